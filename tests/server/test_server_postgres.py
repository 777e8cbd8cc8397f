"""The server on PostgreSQL: a throwaway PostgreSQL 15 cluster is started in a temporary
directory, the migrations run against it, a short game is played through the app to its end, and
a second app on the same database finds the table exactly as it was left."""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from server_helpers import create_table
from sqlalchemy import create_engine, text
from starlette.testclient import TestClient

from nimmt.records import replay_record
from nimmt.server import Settings, create_app

PG_BIN = Path("/usr/lib/postgresql/15/bin")


def _as_postgres(command: list[str]) -> list[str]:
    """initdb refuses to run as root: run the cluster as the ``postgres`` user then."""
    if os.geteuid() != 0:
        return command
    return ["runuser", "-u", "postgres", "--", *command]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.fixture(scope="module")
def postgres_url() -> Iterator[str]:
    if not (PG_BIN / "initdb").exists() or not (PG_BIN / "pg_ctl").exists():
        pytest.skip(f"PostgreSQL 15 binaries are not installed in {PG_BIN}")
    home = Path(tempfile.mkdtemp(prefix="nimmt-pg-"))
    if os.geteuid() == 0:
        owner = pwd.getpwnam("postgres")
        os.chown(home, owner.pw_uid, owner.pw_gid)
    data, port = home / "data", _free_port()

    def run(*args: object) -> None:
        subprocess.run(_as_postgres([str(a) for a in args]), check=True, capture_output=True)

    try:
        run(
            PG_BIN / "initdb",
            "-D",
            data,
            "-A",
            "trust",
            "-U",
            "postgres",
            "-E",
            "UTF8",
            "--no-sync",
        )
        options = f"-p {port} -k {home} -c listen_addresses=127.0.0.1 -c fsync=off"
        run(
            PG_BIN / "pg_ctl",
            "-D",
            data,
            "-o",
            options,
            "-l",
            home / "log",
            "-w",
            "-t",
            "60",
            "start",
        )
        yield f"postgresql://postgres@127.0.0.1:{port}/postgres"
    finally:
        if (data / "postmaster.pid").exists():
            subprocess.run(
                _as_postgres([str(PG_BIN / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"]),
                capture_output=True,
            )
        shutil.rmtree(home, ignore_errors=True)


def test_migrations_and_a_game_on_postgresql(postgres_url: str) -> None:
    settings = Settings(db=postgres_url, bot_delay=0, deal_seed=4)
    assert settings.db.startswith("postgresql+psycopg://")
    seats = [{"kind": "human"}, {"kind": "bot", "bot": "greedy"}]
    with TestClient(create_app(settings)) as client:
        code, token = create_table(client, seats, "Ana")
        with client.websocket_connect(f"/ws/{code}?token={token}") as ws:
            acted: set[tuple[object, ...]] = (
                set()
            )  # one decision per turn: later states of the same turn are old news
            while True:
                message = ws.receive_json()
                assert message["type"] in ("state", "events"), message
                if message["type"] != "state":
                    continue
                view, version = message["view"], message["version"]
                if view["phase"] == "game_over":
                    break
                key = (view["round"], view["turn"], view["phase"])
                if key in acted:
                    continue
                if view["legal_cards"]:
                    acted.add(key)
                    ws.send_json(
                        {"type": "play", "card": view["legal_cards"][-1], "version": version}
                    )
                elif view["must_choose_row"]:
                    acted.add(key)
                    ws.send_json({"type": "choose_row", "row": 1, "version": version})
        record = client.get(f"/api/tables/{code}/record").json()
        summary = client.get(f"/api/tables/{code}").json()
    assert replay_record(record).finished
    assert view["outcome"]["totals"] == list(replay_record(record).totals)

    # Started again on the same database: the migrations are already there, the table too.
    with TestClient(create_app(settings)) as client:
        assert client.get(f"/api/tables/{code}/record").json() == record
        assert client.get(f"/api/tables/{code}").json() == summary
    engine = create_engine(settings.db)
    with engine.connect() as connection:
        assert (
            connection.execute(text("select version_num from alembic_version")).scalar() == "0001"
        )
        stored = connection.execute(text("select count(*) from actions")).scalar()
    engine.dispose()
    turns = sum(len(entry["turns"]) for entry in record["rounds"])
    assert stored is not None and stored >= 2 * turns + len(record["rounds"]) + 1
