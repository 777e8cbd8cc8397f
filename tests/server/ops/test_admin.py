"""The operator's commands (``nimmt admin tables|purge|backup``) against the database of a
running ``nimmt serve``, a backup restored and served again, and retention in the server (a
table somebody is at is never deleted under them)."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import urllib.error
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect
from tests.server.ops.deploy_doc import block, substituted
from tests.server.server_helpers import (
    NIMMT,
    create_table,
    http,
    receive_until,
    service_of,
    start_server,
    stop_server,
)

from nimmt.server.storage import MemoryStorage, SqlStorage, Storage

SEATS = [{"kind": "human"}, {"kind": "bot", "bot": "greedy"}]


def admin(*arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(NIMMT), "admin", *arguments], capture_output=True, text=True, timeout=60
    )


def age(url: str, code: str, days: float, *, finished: bool) -> None:
    """Make table ``code`` look idle for ``days`` (and finished or not)."""
    engine = create_engine(url)
    when = datetime.now(UTC) - timedelta(days=days)
    with engine.begin() as connection:
        connection.execute(
            text("update tables set last_active_at = :when, finished = :finished where code = :c"),
            {"when": when, "finished": finished, "c": code},
        )
    engine.dispose()


def test_list_purge_and_back_up_the_database_of_a_running_server(tmp_path: Path) -> None:
    database = tmp_path / "games.db"
    url = f"sqlite:///{database}"
    served = start_server(url, tmp_path / "serve.log")
    try:
        # Each waits for a second person: nothing is dealt, nothing written after the ageing.
        waiting = [{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "bot": "greedy"}]
        codes = [
            http("POST", f"{served.http}/api/tables", {"seats": waiting, "name": name})["code"]
            for name in ("Ana", "Ben", "Cleo")
        ]
        old_finished, old_open, fresh = codes
        age(url, old_finished, 40, finished=True)
        age(url, old_open, 10, finished=False)

        listed = admin("tables", "--db", url, "--json")
        assert listed.returncode == 0, listed.stderr
        tables = {entry["code"]: entry for entry in json.loads(listed.stdout)["tables"]}
        assert set(tables) == set(codes)
        assert tables[old_finished]["state"] == "finished"
        assert tables[fresh]["state"] == "open"
        assert [seat["name"] for seat in tables[fresh]["seats"]] == ["Cleo", None, "Bot 3 (greedy)"]
        assert tables[fresh]["seats"][2]["bot"] == "greedy"
        assert datetime.fromisoformat(tables[old_open]["last_action"]) < datetime.now(UTC)
        plain = admin("tables", "--db", url)
        assert (
            plain.returncode == 0 and old_finished in plain.stdout and "bot:greedy" in plain.stdout
        )

        # While the server runs: a consistent copy, which a server then serves as it was.
        backup = tmp_path / "backup.db"
        copied = admin("backup", str(backup), "--db", url)
        assert copied.returncode == 0, copied.stderr
        assert "3 tables" in copied.stdout

        trial = admin("purge", "--finished-days", "30", "--abandoned-days", "7", "--dry-run",
                      "--db", url)  # fmt: skip
        assert trial.returncode == 0, trial.stderr
        assert f"would delete {old_finished}" in trial.stdout
        assert f"would delete {old_open}" in trial.stdout
        assert fresh not in trial.stdout
        assert trial.stdout.strip().endswith("would delete 2 tables")
        assert len(json.loads(admin("tables", "--db", url, "--json").stdout)["tables"]) == 3

        done = admin("purge", "--finished-days", "30", "--abandoned-days", "7", "--db", url)
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip().endswith("deleted 2 tables")
        left = json.loads(admin("tables", "--db", url, "--json").stdout)["tables"]
        assert [entry["code"] for entry in left] == [fresh]
    finally:
        stop_server(served)

    # Restored: the copy put in place of a database and served.
    restored = start_server(f"sqlite:///{backup}", tmp_path / "restored.log")
    try:
        for code in codes:
            summary = http("GET", f"{restored.http}/api/tables/{code}")
            assert summary["code"] == code
    finally:
        stop_server(restored)


def test_the_guide_s_nightly_backup_and_restore_as_written(tmp_path: Path) -> None:
    """docs/deploy.md's cron line, run as cron runs it (twice: a week later it writes over the
    same day's copy), while the server runs; then its restore, with the server stopped."""
    home = tmp_path / "var-lib-nimmt"  # /var/lib/nimmt, the service user's home
    home.mkdir()
    section = "Backups and retention"
    line = block("cron", section, "nimmt admin backup").strip()
    command = line.split(maxsplit=5)[5]  # what follows the five time fields
    # cron turns each "\%" into "%" (a bare one would end the command) and hands it to /bin/sh.
    assert "%" not in command.replace("\\%", "")
    command = substituted(
        command.replace("\\%", "%"),
        {"/opt/nimmt/.venv/bin/nimmt": str(NIMMT), "/var/lib/nimmt": str(home)},
    )
    cron_env = {"PATH": "/usr/bin:/bin", "HOME": str(home), "SHELL": "/bin/sh"}
    url = f"sqlite:///{home}/nimmt.db"
    waiting = [{"kind": "human"}, {"kind": "human"}]
    served = start_server(url, tmp_path / "serve.log")
    try:
        kept = http("POST", f"{served.http}/api/tables", {"seats": waiting, "name": "Ana"})
        for _night in range(2):
            night = subprocess.run(
                ["/bin/sh", "-c", command], env=cron_env, capture_output=True, text=True,
                timeout=60,
            )  # fmt: skip
            assert night.returncode == 0, night.stderr
        later = http("POST", f"{served.http}/api/tables", {"seats": waiting, "name": "Ben"})
    finally:
        stop_server(served)
    (copy,) = home.glob("backup-*.db")  # backup-Mon.db ... backup-Sun.db

    restore = block("sh", section, "systemctl stop nimmt")
    (copy_back,) = [step for step in restore.splitlines() if step.startswith("cp ")]
    copy_back = substituted(copy_back, {"/var/lib/nimmt": str(home), "backup-Mon.db": copy.name})
    restored = subprocess.run(
        ["/bin/sh", "-c", copy_back], env={**os.environ}, capture_output=True, text=True,
        timeout=60,
    )  # fmt: skip
    assert restored.returncode == 0, restored.stderr
    served = start_server(url, tmp_path / "restored.log")
    try:
        assert http("GET", f"{served.http}/api/tables/{kept['code']}")["code"] == kept["code"]
        with pytest.raises(urllib.error.HTTPError) as missing:
            http("GET", f"{served.http}/api/tables/{later['code']}")
        assert missing.value.code == 404
    finally:
        stop_server(served)


def test_admin_errors_are_one_line(tmp_path: Path) -> None:
    missing = admin("tables", "--db", f"sqlite:///{tmp_path}/nothing.db")
    assert missing.returncode == 1
    assert missing.stderr.startswith("error: there is no database at")
    assert len(missing.stderr.splitlines()) == 1
    postgres = admin("backup", str(tmp_path / "b.db"), "--db", "postgresql://u@localhost/db")
    assert postgres.returncode == 1 and "pg_dump" in postgres.stderr
    assert len(postgres.stderr.splitlines()) == 1
    # (A date before year 1 once said "Python int too large"; ``nan`` that it should be at
    # least 0.)
    for days in ("-1", "1e10", "inf", "nan", "ten"):
        refused = admin("purge", "--finished-days", "7", "--abandoned-days", days)
        assert refused.returncode == 1
        assert refused.stderr == (
            f"error: --abandoned-days takes a number of days from 0 to 36500, not '{days}'\n"
        )
    database = tmp_path / "here.db"
    sqlite3.connect(database).close()
    for folder in (str(tmp_path), ""):  # (the copy once failed on renaming a temporary file)
        refused = admin("backup", folder, "--db", f"sqlite:///{database}")
        assert refused.returncode == 1
        shown = repr(str(Path(folder)))  # ("" is the current directory, ".")
        assert refused.stderr == f"error: {shown} is a directory: give the copy's file name\n"
    # A directory nobody can write a file in (as root too: /proc).
    source = tmp_path / "games.db"
    sqlite3.connect(source).close()
    unwritable = admin("backup", "/proc/games.db", "--db", f"sqlite:///{source}")
    assert unwritable.returncode == 1
    assert (
        unwritable.stderr == "error: cannot write the backup in /proc: No such file or directory\n"
    )


@pytest.mark.parametrize("backend", ["memory", "sqlite"])
def test_purge_deletes_only_what_is_due(backend: str, tmp_path: Path) -> None:
    storage: Storage = (
        MemoryStorage() if backend == "memory" else SqlStorage(f"sqlite:///{tmp_path}/s.db")
    )
    from nimmt.server.storage import TableRecord, TableStatus

    now = datetime.now(UTC)

    def stored(code: str, days: float, finished: bool) -> None:
        when = now - timedelta(days=days)
        status = TableStatus(0, 1, "lobby", 0, finished, when)
        storage.create_table(TableRecord(code, when, (), status))

    stored("AAAAAA", 40, True)
    stored("BBBBBB", 20, True)
    stored("CCCCCC", 8, False)
    stored("DDDDDD", 1, False)
    stored("EEEEEE", 50, False)
    finished_before = now - timedelta(days=30)
    abandoned_before = now - timedelta(days=7)
    assert [t.code for t in storage.purge(
        finished_before=finished_before, abandoned_before=abandoned_before, dry_run=True
    )] == [
        "EEEEEE", "AAAAAA", "CCCCCC"
    ]  # fmt: skip
    assert len(storage.stored_tables()) == 5
    deleted = storage.purge(
        finished_before=finished_before, abandoned_before=abandoned_before, keep=["CCCCCC"]
    )
    assert sorted(t.code for t in deleted) == ["AAAAAA", "EEEEEE"]
    assert [t.code for t in storage.stored_tables()] == ["BBBBBB", "CCCCCC", "DDDDDD"]
    assert storage.load_table("AAAAAA") is None
    storage.close()


def test_retention_spares_the_tables_held_in_memory(
    make_client: Callable[..., TestClient],
) -> None:
    storage = MemoryStorage()
    client = make_client(storage=storage, finished_days=30, abandoned_days=7)
    code, _token = create_table(client, SEATS)
    held = storage._tables[code]
    old = datetime.now(UTC) - timedelta(days=9)
    held.record = replace(held.record, status=replace(held.record.status, last_active_at=old))
    service = service_of(client)
    assert client.portal.call(service.retention.purge) == []  # type: ignore[union-attr]
    table = service.book.tables[code]
    assert client.portal.call(service.book.unload, code, table)  # type: ignore[union-attr]
    deleted = client.portal.call(service.retention.purge)  # type: ignore[union-attr]
    assert [entry.code for entry in deleted] == [code]
    assert client.get(f"/api/tables/{code}").status_code == 404


def test_pg_dump_and_pg_restore_as_docs_deploy_says(postgres_url: str, tmp_path: Path) -> None:
    import throwaway
    from nimmt.server.storage import TableRecord, TableStatus

    storage = SqlStorage(postgres_url.replace("postgresql://", "postgresql+psycopg://"))
    now = datetime.now(UTC)
    for code in ("PGAAAA", "PGBBBB"):
        storage.create_table(TableRecord(code, now, (), TableStatus(0, 1, "lobby", 0, False, now)))
    before = storage.stored_tables()
    storage.close()
    dump = tmp_path / "nimmt.dump"
    pg = throwaway.PG_BIN
    subprocess.run(
        [str(pg / "pg_dump"), "--format=custom", f"--file={dump}", postgres_url],
        check=True, capture_output=True, timeout=120,
    )  # fmt: skip
    engine = create_engine(postgres_url.replace("postgresql://", "postgresql+psycopg://"))
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
        connection.execute(text("CREATE DATABASE restored"))
    engine.dispose()
    restored_url = postgres_url.rsplit("/", 1)[0] + "/restored"
    subprocess.run(
        [str(pg / "pg_restore"), "--no-owner", f"--dbname={restored_url}", str(dump)],
        check=True, capture_output=True, timeout=120,
    )  # fmt: skip
    listed = admin("tables", "--db", restored_url, "--json")
    assert listed.returncode == 0, listed.stderr
    codes = {entry["code"] for entry in json.loads(listed.stdout)["tables"]}
    assert codes >= {table.code for table in before}


def test_a_table_purged_under_its_players_is_closed_not_retried(
    make_client: Callable[..., TestClient],
) -> None:
    """``admin purge --abandoned-days 0`` deletes a table while people play at it: the server
    tells them it is gone and lets go of it, instead of trying to store its moves for ever."""
    storage = MemoryStorage()
    client = make_client(storage=storage, deal_seed=5)
    code, token = create_table(client, SEATS)
    service = service_of(client)
    with client.websocket_connect(f"/ws/{code}?token={token}") as ws:
        state = receive_until(ws, lambda m: m["type"] == "state" and m["view"]["hand"])
        now = datetime.now(UTC) + timedelta(seconds=1)
        assert [t.code for t in storage.purge(finished_before=now, abandoned_before=now)] == [code]
        ws.send_json({"type": "play", "card": state["view"]["hand"][0], "request_id": 7})
        refused = receive_until(ws, lambda m: m["type"] == "error")
        assert refused["code"] == "table_not_found"
        assert refused["message"] == "This table was deleted."
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()  # (one goodbye: the refusal of the play itself is not sent twice)
        assert (closed.value.code, closed.value.reason) == (4404, "table_deleted")
    assert code not in service.book.tables
    # A new socket hears what an unknown code's hears.
    with client.websocket_connect(f"/ws/{code}?token={token}") as ws:
        assert ws.receive_json()["code"] == "table_not_found"
    assert client.get(f"/api/tables/{code}").status_code == 404


def test_a_table_deleted_while_another_process_moves_it_is_let_go_on_catching_up(
    make_client: Callable[..., TestClient],
) -> None:
    """With several processes, one that holds a table only follows it: it learns of the
    deletion when it catches up (a poll, the watchdog), tells its sockets and lets the table go;
    what would follow the change is not retried."""
    storage = MemoryStorage()
    client = make_client(storage=storage)
    code, _token = create_table(client, [{"kind": "human"}, {"kind": "human"}])
    service = service_of(client)
    book = service.book
    table = book.tables[code]

    async def catch_up_and_follow() -> list[str]:
        async with table.lock:
            await book.catch_up(table)
            await book.follow_up(table)
        return [task.get_name() for task in book._background]

    with client.websocket_connect(f"/ws/{code}") as watching:
        receive_until(watching, lambda m: m["type"] == "state")
        now = datetime.now(UTC) + timedelta(seconds=1)
        storage.purge(finished_before=now, abandoned_before=now)
        background = client.portal.call(catch_up_and_follow)  # type: ignore[union-attr]
        assert not [name for name in background if name.startswith("retry")]
        assert table.gone and code not in book.tables
        assert receive_until(watching, lambda m: m["type"] == "error")["code"] == "table_not_found"
        with pytest.raises(WebSocketDisconnect) as closed:
            watching.receive_json()
        assert (closed.value.code, closed.value.reason) == (4404, "table_deleted")


def test_a_purged_table_where_nobody_acts_is_let_go_by_the_sweep_and_every_route(
    make_client: Callable[..., TestClient],
) -> None:
    """A table deleted from outside while this process holds it, and nobody acts there again
    (a finished game, a person who left): its summary, its record and a new socket answer as at
    an unknown code, and the housekeeping's sweep finds the others in one query, tells their
    sockets and lets them go."""
    storage = MemoryStorage()
    client = make_client(storage=storage)
    service = service_of(client)
    book = service.book
    people = [{"kind": "human"}, {"kind": "human"}]
    swept, by_summary, by_record, by_socket, kept = (
        create_table(client, people)[0] for _ in range(5)
    )
    with client.websocket_connect(f"/ws/{swept}") as watching:
        receive_until(watching, lambda m: m["type"] == "state")
        for code in (swept, by_summary, by_record, by_socket):
            storage._tables.pop(code)  # as `nimmt admin purge` in another process deletes it
        assert client.get(f"/api/tables/{by_summary}").status_code == 404
        again = client.get(f"/api/tables/{by_summary}")  # let go by now: still said so
        assert again.status_code == 404 and again.json()["error"]["message"] == (
            "This table was deleted."
        )
        assert client.get(f"/api/tables/{by_record}/record").status_code == 404
        with client.websocket_connect(f"/ws/{by_socket}") as late:
            assert late.receive_json()["message"] == "This table was deleted."
            with pytest.raises(WebSocketDisconnect) as refused:
                late.receive_json()
            assert (refused.value.code, refused.value.reason) == (4404, "table_deleted")
        assert {by_summary, by_record, by_socket}.isdisjoint(book.tables)
        assert swept in book.tables  # nobody asked for it: the sweep lets it go
        sweep = service.follower.let_go_deleted
        assert client.portal.call(sweep) == [swept]  # type: ignore[union-attr]
        assert swept not in book.tables and kept in book.tables
        assert receive_until(watching, lambda m: m["type"] == "error")["code"] == "table_not_found"
        with pytest.raises(WebSocketDisconnect) as closed:
            watching.receive_json()
        assert (closed.value.code, closed.value.reason) == (4404, "table_deleted")
