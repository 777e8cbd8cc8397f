"""The storage interface, held to the same contract by its in-memory twin and the SQLAlchemy
implementation on SQLite and on PostgreSQL; and the Alembic migrations produce exactly the
models' schema, and carry existing data forward."""

from __future__ import annotations

import sqlite3
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import create_engine, event, text
from sqlalchemy.engine import make_url

from nimmt.server.models import Base
from nimmt.server.serialize import iso, open_table_entry
from nimmt.server.settings import Settings, normalize_database_url
from nimmt.server.storage import (
    MIGRATIONS_DIR,
    ActionRecord,
    AppendItem,
    CodeTakenError,
    GroupTable,
    MemoryStorage,
    OpenTable,
    SeatRecord,
    SqlStorage,
    Storage,
    StorageError,
    TableGoneError,
    TableRecord,
    TableStatus,
    VersionConflictError,
    encode_cursor,
    migrate,
    open_engine,
)
from nimmt.server.storage.people import Group
from nimmt.server.storage.sql import SQLITE_COMMIT_INTERVAL

SEATS = (SeatRecord(0, "human"), SeatRecord(1, "bot", "greedy", "Bot 2 (greedy)"))
CREATED = datetime(2026, 11, 29, 15, 0, tzinfo=UTC)
LONG_AGO = datetime(2000, 1, 1, tzinfo=UTC)


def new_table(
    code: str,
    created: datetime = CREATED,
    seats: tuple[SeatRecord, ...] = SEATS,
    active: datetime | None = None,
) -> TableRecord:
    return TableRecord(code, created, seats, TableStatus(0, 1, "waiting", 0, False, active))


def code_of(number: int) -> str:
    alphabet = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
    return "T" + "".join(alphabet[(number >> (5 * i)) % 32] for i in range(5))


@contextmanager
def fresh_postgres_database(cluster_url: str) -> Iterator[str]:
    """A new empty database in the module's throwaway cluster, dropped afterwards."""
    admin = create_engine(normalize_database_url(cluster_url), isolation_level="AUTOCOMMIT")
    name = f"t_{uuid.uuid4().hex[:12]}"
    with admin.connect() as connection:
        connection.exec_driver_sql(f"CREATE DATABASE {name}")
    try:
        url = make_url(normalize_database_url(cluster_url)).set(database=name)
        yield url.render_as_string(hide_password=False)
    finally:
        with admin.connect() as connection:
            connection.exec_driver_sql(f"DROP DATABASE {name} WITH (FORCE)")
        admin.dispose()


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """An empty database: an SQLite file, or a PostgreSQL database of its own."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path}/t.db"
    else:
        with fresh_postgres_database(request.getfixturevalue("postgres_url")) as url:
            yield url


@pytest.fixture(params=["memory", "sqlite", "postgresql"])
def storage(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Storage]:
    if request.param == "memory":
        yield MemoryStorage()
    elif request.param == "sqlite":
        made = SqlStorage(f"sqlite:///{tmp_path}/t.db")
        yield made
        made.close()
    else:
        with fresh_postgres_database(request.getfixturevalue("postgres_url")) as url:
            made = SqlStorage(url)
            yield made
            made.close()


def test_only_sqlite_lets_a_busy_server_gather_changes(storage: Storage) -> None:
    # SQLite's commit is this process's CPU: worth sharing. PostgreSQL's is its own server's:
    # a wait there saves nothing here and lengthens every process's actions.
    sqlite = isinstance(storage, SqlStorage) and storage.engine.dialect.name == "sqlite"
    assert storage.commit_interval == (SQLITE_COMMIT_INTERVAL if sqlite else 0.0)
    assert SQLITE_COMMIT_INTERVAL > 0


def test_the_storage_contract(storage: Storage) -> None:
    storage.create_table(new_table("AAAAAA"))
    storage.create_table(new_table("BBBBBB"))
    with pytest.raises(CodeTakenError):
        storage.create_table(new_table("AAAAAA"))
    assert storage.load_table("CCCCCC") is None
    loaded = storage.load_table("AAAAAA")
    assert loaded is not None and loaded.seats == SEATS and loaded.status.version == 0
    assert loaded.created_at == CREATED
    assert loaded.status.last_active_at == CREATED  # no time given: as created

    joined = SeatRecord(0, "human", None, "Ana", "f" * 64)
    ana_joined = CREATED + timedelta(seconds=5)
    storage.append(
        "AAAAAA",
        ActionRecord(1, 1, "join", seat=0, data={"name": "Ana"}),
        TableStatus(1, 1, "waiting", 0, False, ana_joined),
        joined,
    )
    deal = {"rows": [[1], [2], [3], [4]], "hands": [list(range(5, 15)), list(range(15, 25))]}
    storage.append(
        "AAAAAA",
        ActionRecord(2, 1, "deal", data=deal),
        TableStatus(2, 1, "choosing_cards", 1, False),  # the dealer is no person
    )
    # A change that does not follow the stored version is refused, and nothing is kept of it.
    for seq in (2, 4):
        with pytest.raises(VersionConflictError):
            storage.append(
                "AAAAAA",
                ActionRecord(seq, 1, "play", seat=0, card=5),
                TableStatus(seq, 1, "choosing_cards", 1, False, CREATED),
            )
    with pytest.raises(VersionConflictError):  # the status must carry the action's number
        storage.append("AAAAAA", ActionRecord(3, 1, "retract"), TableStatus(4, 1, "x", 1, False))
    with pytest.raises(StorageError):
        storage.append("CCCCCC", ActionRecord(1, 1, "join"), TableStatus(1, 1, "waiting", 0, False))
    storage.append(
        "AAAAAA",
        ActionRecord(3, 1, "play", seat=0, card=5),
        TableStatus(3, 1, "choosing_cards", 1, False),
    )
    rematch = CREATED + timedelta(minutes=30)
    storage.append(
        "AAAAAA", ActionRecord(4, 2, "rematch"), TableStatus(4, 2, "dealing", 0, False, rematch)
    )

    loaded = storage.load_table("AAAAAA")
    assert loaded is not None
    assert loaded.seats == (joined, SEATS[1])
    assert loaded.status == TableStatus(4, 2, "dealing", 0, False, rematch)
    first_game = storage.load_actions("AAAAAA", 1)
    assert [(a.seq, a.kind) for a in first_game] == [(1, "join"), (2, "deal"), (3, "play")]
    assert first_game[1].data == deal and first_game[2].card == 5
    assert [a.kind for a in storage.load_actions("AAAAAA", 2)] == ["rematch"]
    assert storage.load_actions("BBBBBB", 1) == []
    assert storage.load_actions("CCCCCC", 1) == []

    storage.append("BBBBBB", ActionRecord(1, 1, "join"), TableStatus(1, 1, "game_over", 6, True))
    assert storage.active_codes(LONG_AGO) == ["AAAAAA"]


def test_catching_up_and_versions(storage: Storage) -> None:
    storage.create_table(new_table("AAAAAA"))
    storage.create_table(new_table("BBBBBB"))
    for seq in range(1, 6):
        storage.append(
            "AAAAAA",
            ActionRecord(seq, 1, "play", seat=0, card=seq),
            TableStatus(seq, 1, "choosing_cards", 1, False),
        )
    assert [a.seq for a in storage.load_actions("AAAAAA", 1, after=3)] == [4, 5]
    assert [a.card for a in storage.load_actions("AAAAAA", 1, after=0)] == [1, 2, 3, 4, 5]
    assert storage.load_actions("AAAAAA", 1, after=5) == []
    assert storage.load_actions("AAAAAA", 2, after=0) == []

    assert storage.table_version("AAAAAA") == 5
    assert storage.table_version("BBBBBB") == 0
    assert storage.table_version("CCCCCC") is None
    assert storage.versions(["AAAAAA", "CCCCCC", "BBBBBB", "AAAAAA"]) == {
        "AAAAAA": 5,
        "BBBBBB": 0,
    }
    assert storage.versions([]) == {}
    # Many codes at once (more than one query's worth of parameters on SQLite).
    many = [code_of(n) for n in range(1200)] + ["BBBBBB"]
    assert storage.versions(many) == {"BBBBBB": 0}


def test_the_lobby_pages_through_every_open_table_once(storage: Storage) -> None:
    # 25 tables; some created at the same moment, which their ids then order.
    codes = [code_of(n) for n in range(25)]
    for n, code in enumerate(codes):
        storage.create_table(new_table(code, CREATED + timedelta(minutes=n // 2)))
    newest_first = list(reversed(codes))

    seen: list[str] = []
    cursor: str | None = None
    pages = 0
    while True:
        page, cursor = storage.list_open(limit=10, cursor=cursor, active_since=LONG_AGO)
        pages += 1
        assert len(page) == (10 if cursor is not None else 5)
        seen += [line.code for line in page]
        if cursor is None:
            break
        assert cursor.isascii() and all(c.isalnum() or c in "-_" for c in cursor)
    assert pages == 3 and seen == newest_first

    # A page that ends exactly at the last table says so.
    page, cursor = storage.list_open(limit=25, cursor=None, active_since=LONG_AGO)
    assert len(page) == 25 and cursor is None
    page, cursor = storage.list_open(limit=5, cursor=None, active_since=LONG_AGO)
    page, cursor = storage.list_open(limit=20, cursor=cursor, active_since=LONG_AGO)
    assert [line.code for line in page] == newest_first[5:] and cursor is None

    assert page[-1] == OpenTable(codes[0], 2, 1, (), "waiting", 0, CREATED)
    too_big = encode_cursor(CREATED, 2**63)  # past any row id: the database cannot compare it
    for bad in ("", "nope", "!!!!", encode_cursor(CREATED, 1)[:-3], "bm9wZQ", "MjAyNnwx", too_big):
        with pytest.raises(ValueError):
            storage.list_open(limit=10, cursor=bad, active_since=LONG_AGO)
    with pytest.raises(ValueError):
        storage.list_open(limit=0, cursor=None, active_since=LONG_AGO)


def test_the_lobby_shows_live_unfinished_tables_only(storage: Storage) -> None:
    now = CREATED + timedelta(days=1)
    storage.create_table(new_table("OLDOLD", CREATED, active=CREATED))
    storage.create_table(new_table("LIVELY", CREATED, active=now - timedelta(minutes=5)))
    storage.create_table(new_table("FRESH2", now, active=now))
    storage.create_table(new_table("ENDED2", now, active=now))
    storage.append("ENDED2", ActionRecord(1, 1, "play"), TableStatus(1, 1, "game_over", 9, True))
    since = now - timedelta(hours=1)

    def lobby() -> list[str]:
        page, cursor = storage.list_open(limit=50, cursor=None, active_since=since)
        assert cursor is None
        return [line.code for line in page]

    assert lobby() == ["FRESH2", "LIVELY"]
    assert sorted(storage.active_codes(since)) == ["FRESH2", "LIVELY"]
    assert sorted(storage.active_codes(LONG_AGO)) == ["FRESH2", "LIVELY", "OLDOLD"]

    # A move by the dealer or a bot keeps the time; a person's move brings a table back.
    storage.append(
        "OLDOLD", ActionRecord(1, 1, "deal"), TableStatus(1, 1, "choosing_cards", 1, False)
    )
    assert lobby() == ["FRESH2", "LIVELY"]
    storage.append(
        "OLDOLD", ActionRecord(2, 1, "play"), TableStatus(2, 1, "choosing_cards", 1, False, now)
    )
    assert lobby() == ["FRESH2", "LIVELY", "OLDOLD"]
    assert sorted(storage.active_codes(since)) == ["FRESH2", "LIVELY", "OLDOLD"]
    assert storage.active_codes(now + timedelta(seconds=1)) == []


def test_free_seats_and_names_follow_joins_and_leaves(storage: Storage) -> None:
    seats = (SeatRecord(0, "human"), SeatRecord(1, "human"), SeatRecord(2, "bot", "greedy", "B3"))
    storage.create_table(new_table("SEATED", seats=seats))
    version = 0

    def change(kind: str, seat: SeatRecord, phase: str = "waiting") -> OpenTable:
        nonlocal version
        version += 1
        storage.append(
            "SEATED",
            ActionRecord(version, 1, kind, seat=seat.seat),
            TableStatus(version, 1, phase, 1 if phase != "waiting" else 0, False, CREATED),
            seat,
        )
        page, _ = storage.list_open(limit=5, cursor=None, active_since=LONG_AGO)
        return page[0]

    page, _ = storage.list_open(limit=5, cursor=None, active_since=LONG_AGO)
    assert (page[0].seats, page[0].free_seats, page[0].humans) == (3, 2, ())
    line = change("join", SeatRecord(0, "human", None, "Ana", "a" * 64))
    assert (line.free_seats, line.humans) == (1, ("Ana",))
    line = change("join", SeatRecord(1, "human", None, "Ben", "b" * 64))
    assert (line.free_seats, line.humans) == (0, ("Ana", "Ben"))
    # Ben leaves before the game starts: the seat is free again.
    line = change("leave", SeatRecord(1, "human"))
    assert (line.free_seats, line.humans) == (1, ("Ana",))
    line = change("join", SeatRecord(1, "human", None, "Cleo", "c" * 64))
    assert (line.free_seats, line.humans) == (0, ("Ana", "Cleo"))
    # Ana leaves during the game: a bot takes her seat over.
    line = change("leave", SeatRecord(0, "bot", "medium", "…"), phase="choosing_cards")
    assert (line.seats, line.free_seats, line.humans) == (3, 0, ("Cleo",))
    assert (line.phase, line.round) == ("choosing_cards", 1)
    loaded = storage.load_table("SEATED")
    assert loaded is not None
    assert loaded.seats == (
        SeatRecord(0, "bot", "medium", "…"),
        SeatRecord(1, "human", None, "Cleo", "c" * 64),
        seats[2],
    )
    assert [a.kind for a in storage.load_actions("SEATED", 1)] == [
        "join",
        "join",
        "leave",
        "join",
        "leave",
    ]
    # No such seat: refused, and nothing of it is kept.
    with pytest.raises(StorageError):
        storage.append(
            "SEATED",
            ActionRecord(6, 1, "join", seat=7),
            TableStatus(6, 1, "choosing_cards", 1, False),
            SeatRecord(7, "human", None, "Dan", "d" * 64),
        )
    assert storage.table_version("SEATED") == 5


def test_a_group_lists_its_own_open_tables_online_and_with_real_cards(storage: Storage) -> None:
    now = CREATED + timedelta(days=1)
    for group in ("THURSDAY", "FRIDAYS2"):
        storage.people.add_group(Group(group, group.title(), None, CREATED), CREATED)
    seated = (
        SeatRecord(0, "human", None, "Ana", "a" * 64),
        SeatRecord(1, "human"),
        SeatRecord(2, "bot", "greedy", "Bot 3 (greedy)"),
    )
    minute = timedelta(minutes=1)
    storage.create_table(new_table("ONLINE", CREATED + minute, seated, active=now))
    real = (SeatRecord(0, "real", None, "Ana"), SeatRecord(1, "real", None, "Cy"))
    status = TableStatus(4, 2, "choosing_cards", 3, False, now)
    storage.create_table(TableRecord("REALCD", CREATED + 2 * minute, real, status, "h" * 64))
    storage.create_table(new_table("ASLEEP", CREATED, active=CREATED))
    storage.create_table(new_table("ENDED3", CREATED + 3 * minute, active=now))
    storage.append("ENDED3", ActionRecord(1, 1, "play"), TableStatus(1, 1, "game_over", 9, True))
    storage.create_table(new_table("OTHERS", CREATED + 4 * minute, active=now))
    storage.create_table(new_table("LOBBY1", CREATED + 5 * minute, active=now))
    for code in ("ONLINE", "REALCD", "ASLEEP", "ENDED3"):
        storage.people.add_group_table(code, "THURSDAY")
    storage.people.add_group_table("OTHERS", "FRIDAYS2")
    since = now - timedelta(hours=1)

    def listed(group: str = "THURSDAY", limit: int = 10) -> list[GroupTable]:
        return storage.list_group_open(group, limit=limit, active_since=since)

    # Newest first; neither the finished table, nor the idle one, nor another group's.
    assert listed() == [
        GroupTable(
            "REALCD", 2, 0, ("Ana", "Cy"), "choosing_cards", 3, 2, CREATED + 2 * minute, True
        ),
        GroupTable("ONLINE", 3, 1, ("Ana",), "waiting", 0, 1, CREATED + minute, False),
    ]
    assert [line.code for line in listed(limit=1)] == ["REALCD"]
    assert [line.code for line in listed("FRIDAYS2")] == ["OTHERS"]
    assert listed("NOSUCHGR") == []
    with pytest.raises(ValueError):
        listed(limit=0)
    # A person's move brings the idle table back, as in the lobby.
    storage.append(
        "ASLEEP", ActionRecord(1, 1, "join"), TableStatus(1, 1, "waiting", 0, False, now)
    )
    assert [line.code for line in listed()] == ["REALCD", "ONLINE", "ASLEEP"]
    # A table the retention deleted is gone from its group's list.
    storage.purge(finished_before=None, abandoned_before=now + minute, keep=["REALCD"])
    assert [line.code for line in listed()] == ["REALCD"]
    assert listed("FRIDAYS2") == []
    # Its tie to the group went with it: a new table under its code is no group's.
    assert storage.people.group_of_table("ONLINE") is None
    assert storage.people.group_of_table("REALCD") == "THURSDAY"


def test_append_many_stores_all_but_the_refused(storage: Storage) -> None:
    for code in ("AAAAAA", "BBBBBB", "CCCCCC"):
        storage.create_table(new_table(code))
    assert storage.append_many([]) == []
    ana = SeatRecord(0, "human", None, "Ana", "a" * 64)
    waiting = TableStatus(1, 1, "waiting", 0, False)
    results = storage.append_many(
        [
            ("AAAAAA", ActionRecord(1, 1, "join", seat=0), waiting, ana),
            ("BBBBBB", ActionRecord(2, 1, "play"), replace(waiting, version=2), None),
            ("CCCCCC", ActionRecord(1, 1, "play"), waiting, None),
            ("AAAAAA", ActionRecord(2, 1, "deal"), TableStatus(2, 1, "dealing", 1, False), None),
            ("ZZZZZZ", ActionRecord(1, 1, "play"), waiting, None),
            # A refused join changes no seat.
            ("BBBBBB", ActionRecord(5, 1, "join", seat=0), replace(waiting, version=5), ana),
        ]
    )
    assert [type(result) for result in results] == [
        type(None),
        VersionConflictError,
        type(None),
        type(None),
        TableGoneError,  # (no table ZZZZZZ: a StorageError of its own kind)
        VersionConflictError,
    ]
    assert storage.versions(["AAAAAA", "BBBBBB", "CCCCCC"]) == {
        "AAAAAA": 2,
        "BBBBBB": 0,
        "CCCCCC": 1,
    }
    assert [a.kind for a in storage.load_actions("AAAAAA", 1)] == ["join", "deal"]
    assert storage.load_actions("BBBBBB", 1) == []
    loaded = storage.load_table("BBBBBB")
    assert loaded is not None and loaded.seats == SEATS
    page, _ = storage.list_open(limit=5, cursor=None, active_since=LONG_AGO)
    lines = {line.code: line for line in page}
    assert (lines["AAAAAA"].free_seats, lines["AAAAAA"].humans) == (0, ("Ana",))
    assert (lines["BBBBBB"].free_seats, lines["BBBBBB"].humans) == (1, ())


def test_a_batch_of_plays_keeps_order_versions_and_moments(storage: Storage) -> None:
    """The common batch (no seat changes): two changes of one table in order, a status with
    no moment of activity keeping the stored one, and actions in their tables."""
    for code in ("AAAAAA", "BBBBBB"):
        storage.create_table(new_table(code))
    later = CREATED + timedelta(minutes=5)
    results = storage.append_many(
        [
            ("AAAAAA", ActionRecord(1, 1, "play", 0, 5), TableStatus(1, 1, "c", 1, False), None),
            ("BBBBBB", ActionRecord(1, 1, "play", 1, 9), TableStatus(1, 1, "c", 1, False, later),
             None),
            ("AAAAAA", ActionRecord(2, 1, "play", 1, 6), TableStatus(2, 1, "c", 1, True), None),
        ]
    )  # fmt: skip
    assert results == [None, None, None]
    assert storage.versions(["AAAAAA", "BBBBBB"]) == {"AAAAAA": 2, "BBBBBB": 1}
    assert [(a.seq, a.card) for a in storage.load_actions("AAAAAA", 1)] == [(1, 5), (2, 6)]
    assert [(a.seq, a.card) for a in storage.load_actions("BBBBBB", 1)] == [(1, 9)]
    first, second = storage.load_table("AAAAAA"), storage.load_table("BBBBBB")
    assert first is not None and first.status.finished
    assert first.status.last_active_at == CREATED  # none given: the stored one stays
    assert second is not None and second.status.last_active_at == later


def test_a_batch_finds_a_code_taken_again_by_a_new_table(database_url: str) -> None:
    """A process's batches remember tables' ids. Another process purges a finished table and a
    new table takes its code: this process's next batch still stores at the new table, with
    its data and moment as given (the driver's own parameters)."""
    here, other = SqlStorage(database_url), SqlStorage(database_url, run_migrations=False)
    try:
        here.create_table(new_table("AAAAAA"))
        status = TableStatus(1, 1, "game_over", 1, True)
        assert here.append_many([("AAAAAA", ActionRecord(1, 1, "play", 0, 5), status, None)]) == [
            None
        ]
        gone = other.purge(finished_before=CREATED + timedelta(days=400), abandoned_before=None)
        assert [table.code for table in gone] == ["AAAAAA"]
        other.create_table(new_table("AAAAAA"))
        deal = {"rows": [[1], [2], [3], [4]], "hands": [[5, 6], [7, 8]]}
        later = CREATED + timedelta(minutes=3)
        results = here.append_many(
            [("AAAAAA", ActionRecord(1, 1, "deal", None, None, None, deal),
              TableStatus(1, 1, "choosing_cards", 1, False, later), None)]
        )  # fmt: skip
        assert results == [None]
        (stored,) = other.load_actions("AAAAAA", 1)
        assert (stored.kind, stored.data) == ("deal", deal)
        table = other.load_table("AAAAAA")
        assert table is not None and table.status.last_active_at == later
    finally:
        here.close()
        other.close()


def test_writers_in_threads_do_not_trip_over_each_other(storage: Storage) -> None:
    codes = [code_of(n) for n in range(6)]
    for code in codes:
        storage.create_table(new_table(code))
    errors: list[BaseException] = []

    def play(code: str) -> None:
        try:
            for seq in range(1, 21):
                status = TableStatus(seq, 1, "choosing_cards", 1, False, CREATED)
                if seq % 2:
                    storage.append(code, ActionRecord(seq, 1, "play", card=seq), status)
                else:
                    item = (code, ActionRecord(seq, 1, "play", card=seq), status, None)
                    assert storage.append_many([item]) == [None]
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=play, args=(code,)) for code in codes]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert storage.versions(codes) == dict.fromkeys(codes, 20)


def test_append_many_without_a_database_raises_and_stores_nothing(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/t.db"
    storage = SqlStorage(url)
    for code in ("AAAAAA", "BBBBBB"):
        storage.create_table(new_table(code))
    items = [
        (code, ActionRecord(1, 1, "play"), TableStatus(1, 1, "waiting", 0, False, CREATED), None)
        for code in ("AAAAAA", "BBBBBB")
    ]

    # Another process holds the write lock past the busy timeout.
    storage.engine.dispose()

    @event.listens_for(storage.engine, "connect")
    def _short_wait(dbapi_connection: sqlite3.Connection, _record: object) -> None:
        dbapi_connection.execute("PRAGMA busy_timeout=100")

    other = sqlite3.connect(f"{tmp_path}/t.db", isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        with pytest.raises(StorageError):
            storage.append_many(items)
        with pytest.raises(StorageError):
            storage.append(*items[0])
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert storage.versions(["AAAAAA", "BBBBBB"]) == {"AAAAAA": 0, "BBBBBB": 0}

    # The database cannot be opened at all.
    storage.close()
    storage.engine = open_engine(f"sqlite:///{tmp_path}")  # a directory, not a database
    with pytest.raises(StorageError):
        storage.append_many(items)
    storage.close()

    again = SqlStorage(url)
    assert again.versions(["AAAAAA", "BBBBBB"]) == {"AAAAAA": 0, "BBBBBB": 0}
    assert again.load_actions("AAAAAA", 1) == []
    assert again.append_many(items) == [None, None]  # and it works once the database is back
    again.close()


def test_a_batch_of_known_tables_fails_whole_or_refuses_alone(tmp_path: Path) -> None:
    """Once the write path knows every table's id, a batch runs on SQLite's own driver: a
    refused change is still refused alone, and a batch the database fails stores nothing of
    itself (the tables' moves are rolled back with it) and says so as StorageError."""
    url = f"sqlite:///{tmp_path}/t.db"
    storage = SqlStorage(url)
    codes = ("AAAAAA", "BBBBBB", "CCCCCC")
    for code in codes:
        storage.create_table(new_table(code))

    def play(code: str, seq: int) -> AppendItem:
        status = TableStatus(seq, 1, "choosing_cards", 1, False, CREATED)
        return code, ActionRecord(seq, 1, "play", 0, seq), status, None

    assert storage.append_many([play(code, 1) for code in codes]) == [None] * 3  # ids found
    results = storage.append_many([play("AAAAAA", 2), play("BBBBBB", 5), play("CCCCCC", 2)])
    assert [type(result) for result in results] == [type(None), VersionConflictError, type(None)]
    assert storage.versions(list(codes)) == {"AAAAAA": 2, "BBBBBB": 1, "CCCCCC": 2}

    other = sqlite3.connect(f"{tmp_path}/t.db", isolation_level=None)
    try:
        other.execute("ALTER TABLE actions RENAME TO actions_away")
        with pytest.raises(StorageError, match="the database failed"):
            storage.append_many([play("AAAAAA", 3), play("CCCCCC", 3)])
        assert storage.versions(list(codes)) == {"AAAAAA": 2, "BBBBBB": 1, "CCCCCC": 2}
        other.execute("ALTER TABLE actions_away RENAME TO actions")
    finally:
        other.close()
    assert storage.append_many([play("AAAAAA", 3), play("CCCCCC", 3)]) == [None, None]
    assert [action.card for action in storage.load_actions("AAAAAA", 1)] == [1, 2, 3]
    storage.close()


def test_the_lobby_line_from_storage() -> None:
    seats = (
        SeatRecord(0, "human", None, "Ana", "a" * 64),
        SeatRecord(1, "human"),
        SeatRecord(2, "bot", "greedy", "Bot 3 (greedy)"),
    )
    storage = MemoryStorage()
    storage.create_table(new_table("LINEUP", seats=seats))
    page, _ = storage.list_open(limit=1, cursor=None, active_since=LONG_AGO)
    assert open_table_entry(page[0]) == {
        "code": "LINEUP",
        "seats": 3,
        "free_seats": 1,
        "humans": ["Ana"],
        "phase": "waiting",
        "round": 0,
        "created_at": iso(CREATED),
    }


def test_the_migrations_build_exactly_the_models(database_url: str) -> None:
    storage = SqlStorage(database_url)
    with storage.engine.connect() as connection:
        differences = compare_metadata(MigrationContext.configure(connection), Base.metadata)
    storage.close()
    assert differences == []
    SqlStorage(database_url).close()  # running them again is harmless


def test_migration_0002_fills_in_the_lobby_columns(database_url: str) -> None:
    engine = open_engine(database_url)
    migrate(engine, "0001")
    created = [CREATED, CREATED + timedelta(hours=1)]
    with engine.begin() as connection:
        for number, (code, moment) in enumerate(zip(("AAAAAA", "BBBBBB"), created, strict=True)):
            connection.execute(
                text(
                    "INSERT INTO tables (id, code, created_at, version, game, phase, round,"
                    " finished) VALUES (:id, :code, :created, 1, 1, 'waiting', 0, false)"
                ),
                {"id": number + 1, "code": code, "created": moment},
            )
        seats = [
            (1, 0, "human", None, "Ana", "a" * 64),
            (1, 1, "human", None, None, None),
            (1, 2, "bot", "greedy", "Bot 3 (greedy)", None),
            (1, 3, "human", None, "Ben", "b" * 64),
            (2, 0, "human", None, None, None),
            (2, 1, "human", None, None, None),
        ]
        for table_id, seat, kind, bot, name, token_hash in seats:
            connection.execute(
                text(
                    "INSERT INTO seats (table_id, seat, kind, bot, name, token_hash)"
                    " VALUES (:t, :s, :k, :b, :n, :h)"
                ),
                {"t": table_id, "s": seat, "k": kind, "b": bot, "n": name, "h": token_hash},
            )
        connection.execute(
            text(
                "INSERT INTO actions (table_id, seq, game, kind, seat, created_at)"
                " VALUES (1, 1, 1, 'join', 0, :at)"
            ),
            {"at": CREATED},
        )
    engine.dispose()

    storage = SqlStorage(database_url)
    with storage.engine.connect() as connection:
        version = connection.scalar(text("SELECT version_num FROM alembic_version"))
    assert version == ScriptDirectory(str(MIGRATIONS_DIR)).get_current_head()  # the newest
    for code, moment in zip(("AAAAAA", "BBBBBB"), created, strict=True):
        loaded = storage.load_table(code)
        assert loaded is not None and loaded.status.last_active_at == moment
    page, _ = storage.list_open(limit=10, cursor=None, active_since=LONG_AGO)
    assert page == [
        OpenTable("BBBBBB", 2, 2, (), "waiting", 0, created[1]),
        OpenTable("AAAAAA", 4, 1, ("Ana", "Ben"), "waiting", 0, created[0]),
    ]
    # Rebuilding the table on SQLite took nothing that refers to it along.
    assert [a.kind for a in storage.load_actions("AAAAAA", 1)] == ["join"]
    loaded = storage.load_table("AAAAAA")
    assert loaded is not None and len(loaded.seats) == 4
    assert storage.active_codes(CREATED + timedelta(minutes=30)) == ["BBBBBB"]
    storage.close()


def test_migration_0011_widens_the_names_and_keeps_what_refers_to_them(
    database_url: str,
) -> None:
    engine = create_engine(database_url)
    migrate(engine, "0010")
    with engine.begin() as connection:
        connection.execute(
            text(
                "INSERT INTO profiles (id, name, emoji, colour, created_at)"
                " VALUES ('p1', 'Ana', 'x', '#000000', :at)"
            ),
            {"at": CREATED},
        )
        connection.execute(
            text(
                "INSERT INTO profile_devices (id, profile_id, secret_hash, created_at)"
                " VALUES ('d1', 'p1', :hash, :at)"
            ),
            {"hash": "c" * 64, "at": CREATED},
        )
    engine.dispose()

    storage = SqlStorage(database_url)  # migrates to the newest
    long_name = "\U0001f469\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466" * 24
    with storage.engine.begin() as connection:
        # Rebuilding the profiles on SQLite took none of their devices along.
        assert connection.scalar(text("SELECT count(*) FROM profile_devices")) == 1
        connection.execute(text("UPDATE profiles SET name = :name"), {"name": long_name})
        assert connection.scalar(text("SELECT name FROM profiles")) == long_name
    storage.close()


def test_database_urls(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert normalize_database_url("postgresql://u@h/db") == "postgresql+psycopg://u@h/db"
    assert normalize_database_url("postgres://u@h/db") == "postgresql+psycopg://u@h/db"
    assert normalize_database_url("sqlite:///games.db") == "sqlite:///games.db"
    monkeypatch.setenv("NIMMT_DB", "postgresql://me@db.example/nimmt")
    assert Settings().db == "postgresql+psycopg://me@db.example/nimmt"
    monkeypatch.delenv("NIMMT_DB")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    default = Settings().db
    assert default.startswith("sqlite:///") and default.endswith("nimmt.db")
    # The default file and its directory are created on first start.
    SqlStorage(default).close()
    assert Path(default.removeprefix("sqlite:///")).is_file()
