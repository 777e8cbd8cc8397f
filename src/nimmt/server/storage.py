"""Where tables are kept: a small storage interface, its SQLAlchemy implementation, and an
in-memory twin for tests.

The game service stores every accepted change through :meth:`Storage.append` (or many tables' at
once through :meth:`Storage.append_many`) before anybody hears of it. ``append`` is all-or-nothing
(one transaction) and refuses a change whose number does not follow the table's stored version, so
two writers (two server processes) can never interleave a table's history. The database is the
source of truth: the lobby is read from it (:meth:`Storage.list_open`), and a process catches up a
table it holds from it (:meth:`Storage.table_version`, :meth:`Storage.load_actions` ``after``).
"""

from __future__ import annotations

import base64
import copy
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol, cast

from alembic import command
from alembic.config import Config
from sqlalchemy import (
    Connection,
    Engine,
    Table,
    and_,
    bindparam,
    create_engine,
    event,
    insert,
    or_,
    select,
    text,
    update,
)
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.exc import TimeoutError as PoolTimeoutError
from sqlalchemy.orm import Session

from nimmt.server.models import ActionRow, SeatRow, TableRow

MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"


class StorageError(RuntimeError):
    """The database refused a change (or cannot be reached)."""


class CodeTakenError(StorageError):
    """A table with that code exists already."""


class VersionConflictError(StorageError):
    """The change does not follow the stored version of its table."""


@dataclass(frozen=True, slots=True)
class SeatRecord:
    seat: int
    kind: str
    """``"human"`` or ``"bot"``."""
    bot: str | None = None
    name: str | None = None
    token_hash: str | None = None
    """SHA-256 (hex) of the seat's token; ``None`` while a human seat is free."""


@dataclass(frozen=True, slots=True)
class ActionRecord:
    """One accepted change. ``kind``: ``join`` (seat, data name), ``deal`` (data rows, hands),
    ``play`` (seat, card), ``retract`` (seat), ``choose_row`` (seat, row), ``rematch``,
    ``rematch_vote`` (seat, data agree), ``leave`` (seat)."""

    seq: int
    game: int
    kind: str
    seat: int | None = None
    card: int | None = None
    row: int | None = None
    data: Mapping[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class TableStatus:
    """What listings need to know of a table, kept in step with its actions."""

    version: int
    game: int
    phase: str
    round: int
    finished: bool
    last_active_at: datetime | None = None
    """When a person last acted at the table (join, play, retract, choose_row, rematch, leave).
    Given to :meth:`Storage.append`, ``None`` means that no person acted (a deal, a bot's move):
    the stored time stays. Always set in what storage hands back."""


@dataclass(frozen=True, slots=True)
class TableRecord:
    code: str
    created_at: datetime
    seats: tuple[SeatRecord, ...]
    status: TableStatus
    assistant_hash: str | None = None
    """Set for an assisted table (a game played with real cards): SHA-256 of the token that may
    enter its cards. Its seats are ``"real"`` ones (people at the real table, with their names);
    it is never listed in the lobby."""
    coach: bool = False
    """The table's creator allowed the coach for every seat (shown to all: fairness is visible)."""


@dataclass(frozen=True, slots=True)
class OpenTable:
    """A table's line in the lobby (``GET /api/tables``), read from storage alone."""

    code: str
    seats: int
    free_seats: int
    humans: tuple[str, ...]
    """The names at the human seats, in seat order."""
    phase: str
    round: int
    created_at: datetime


AppendItem = tuple[str, ActionRecord, TableStatus, SeatRecord | None]
"""One table's change for :meth:`Storage.append_many`: ``append``'s arguments."""


class Storage(Protocol):
    """What the game service needs from a database. Methods block: call them off the event
    loop. Each call is one short transaction; no lock is held from one call to the next."""

    def create_table(self, table: TableRecord) -> None:
        """Store a new table; :class:`CodeTakenError` if its code is in use. The table counts as
        last active at ``table.status.last_active_at``, or when created if that is ``None``."""
        ...

    def load_table(self, code: str) -> TableRecord | None: ...

    def load_actions(self, code: str, game: int, after: int = 0) -> list[ActionRecord]:
        """The actions of one game at the table, in order; only those with ``seq > after`` (to
        catch up from a known version)."""
        ...

    def append(
        self, code: str, action: ActionRecord, status: TableStatus, seat: SeatRecord | None = None
    ) -> None:
        """Store ``action`` (whose ``seq`` must be the stored version + 1, else
        :class:`VersionConflictError`), the table's new ``status`` and the changed ``seat`` (a
        join; a leave, which may turn the seat into a bot or free it): all or nothing."""
        ...

    def append_many(self, items: Sequence[AppendItem]) -> list[Exception | None]:
        """Several :meth:`append` calls (of different tables, or in order of one table) in one
        transaction: one commit for all. An item that is refused (:class:`VersionConflictError`,
        :class:`StorageError`) is left out and its error returned at its index; the others are
        stored. :class:`StorageError` if the transaction as a whole fails: then none is."""
        ...

    def table_version(self, code: str) -> int | None:
        """The table's stored version; ``None`` if there is no such table."""
        ...

    def versions(self, codes: Sequence[str]) -> dict[str, int]:
        """The stored versions of the tables among ``codes`` that exist."""
        ...

    def list_open(
        self, *, limit: int, cursor: str | None, active_since: datetime
    ) -> tuple[list[OpenTable], str | None]:
        """Unfinished tables where a person acted since ``active_since``, newest created first,
        at most ``limit``; and the cursor of the next page (``None`` on the last). A cursor is
        an opaque URL-safe string; a malformed one raises :class:`ValueError`."""
        ...

    def active_codes(self, since: datetime) -> list[str]:
        """Codes of the unfinished tables where a person acted since ``since``."""
        ...

    def close(self) -> None: ...


def lobby_seats(seats: Iterable[SeatRecord]) -> tuple[int, list[str]]:
    """The free human seats and the seated people's names, as the lobby shows them."""
    free = 0
    humans: list[str] = []
    for seat in seats:
        if seat.kind == "human":
            free += seat.token_hash is None
            if seat.name is not None:
                humans.append(seat.name)
    return free, humans


def _utc(moment: datetime) -> datetime:
    """``moment`` in UTC; a naive one is taken as UTC (SQLite keeps no time zone)."""
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


def encode_cursor(created_at: datetime, table_id: int) -> str:
    """The lobby's page cursor: where the last line shown sorts (its creation, then its id)."""
    text = f"{_utc(created_at).isoformat()}|{table_id}"
    return base64.urlsafe_b64encode(text.encode("ascii")).decode("ascii").rstrip("=")


def decode_cursor(cursor: str) -> tuple[datetime, int]:
    """The inverse of :func:`encode_cursor`; :class:`ValueError` if ``cursor`` is not one."""
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        text = base64.b64decode(padded.encode("ascii"), altchars=b"-_", validate=True)
        moment_text, id_text = text.decode("ascii").split("|")
        moment = datetime.fromisoformat(moment_text)
        if moment.tzinfo is None or not id_text.isdigit() or not id_text.isascii():
            raise ValueError
        return moment, int(id_text)
    except ValueError:  # binascii.Error and UnicodeError are ValueErrors too
        raise ValueError(f"malformed cursor {cursor[:40]!r}") from None


def _check_limit(limit: int) -> None:
    if limit < 1:
        raise ValueError("limit must be at least 1")


# ------------------------------------------------------------------------------- in memory


@dataclass(slots=True)
class _MemoryTable:
    id: int
    record: TableRecord
    actions: list[ActionRecord]


class MemoryStorage:
    """The in-memory twin of :class:`SqlStorage`, with the same checks (for tests)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._tables: dict[str, _MemoryTable] = {}
        self._next_id = 1

    def create_table(self, table: TableRecord) -> None:
        with self._lock:
            if table.code in self._tables:
                raise CodeTakenError(f"table {table.code} exists")
            if table.status.last_active_at is None:
                table = replace(
                    table, status=replace(table.status, last_active_at=table.created_at)
                )
            self._tables[table.code] = _MemoryTable(self._next_id, table, [])
            self._next_id += 1

    def load_table(self, code: str) -> TableRecord | None:
        with self._lock:
            held = self._tables.get(code)
            return held.record if held is not None else None

    def load_actions(self, code: str, game: int, after: int = 0) -> list[ActionRecord]:
        with self._lock:
            held = self._tables.get(code)
            if held is None:
                return []
            return [a for a in held.actions if a.game == game and a.seq > after]

    def _append(
        self, code: str, action: ActionRecord, status: TableStatus, seat: SeatRecord | None
    ) -> None:
        held = self._tables.get(code)
        if held is None:
            raise StorageError(f"no table {code}")
        table = held.record
        if action.seq != table.status.version + 1 or status.version != action.seq:
            raise VersionConflictError(f"table {code} is at version {table.status.version}")
        seats = table.seats
        if seat is not None:
            if all(old.seat != seat.seat for old in seats):
                raise StorageError(f"no seat {seat.seat} at table {code}")
            seats = tuple(seat if old.seat == seat.seat else old for old in seats)
        if status.last_active_at is None:
            status = replace(status, last_active_at=table.status.last_active_at)
        stored = replace(action, data=copy.deepcopy(dict(action.data)) if action.data else None)
        held.actions.append(stored)
        held.record = replace(table, seats=seats, status=status)

    def append(
        self, code: str, action: ActionRecord, status: TableStatus, seat: SeatRecord | None = None
    ) -> None:
        with self._lock:
            self._append(code, action, status, seat)

    def append_many(self, items: Sequence[AppendItem]) -> list[Exception | None]:
        """One :meth:`append` per item (the twin has no transactions to group)."""
        results: list[Exception | None] = []
        for code, action, status, seat in items:
            try:
                self.append(code, action, status, seat)
            except StorageError as error:
                results.append(error)
            else:
                results.append(None)
        return results

    def table_version(self, code: str) -> int | None:
        with self._lock:
            held = self._tables.get(code)
            return held.record.status.version if held is not None else None

    def versions(self, codes: Sequence[str]) -> dict[str, int]:
        with self._lock:
            return {
                code: self._tables[code].record.status.version
                for code in codes
                if code in self._tables
            }

    def _active(self, since: datetime) -> list[_MemoryTable]:
        return [
            held
            for held in self._tables.values()
            if not held.record.status.finished
            and (held.record.status.last_active_at or held.record.created_at) >= since
        ]

    def list_open(
        self, *, limit: int, cursor: str | None, active_since: datetime
    ) -> tuple[list[OpenTable], str | None]:
        _check_limit(limit)
        after = decode_cursor(cursor) if cursor is not None else None
        with self._lock:
            found = sorted(
                (held for held in self._active(active_since) if held.record.assistant_hash is None),
                key=lambda held: (held.record.created_at, held.id),
                reverse=True,
            )
        if after is not None:
            found = [held for held in found if (held.record.created_at, held.id) < after]
        page = found[:limit]
        lines = []
        for held in page:
            table = held.record
            free, humans = lobby_seats(table.seats)
            lines.append(
                OpenTable(
                    table.code,
                    len(table.seats),
                    free,
                    tuple(humans),
                    table.status.phase,
                    table.status.round,
                    table.created_at,
                )
            )
        more = len(found) > limit
        return lines, encode_cursor(page[-1].record.created_at, page[-1].id) if more else None

    def active_codes(self, since: datetime) -> list[str]:
        with self._lock:
            return [held.record.code for held in sorted(self._active(since), key=lambda h: h.id)]

    def close(self) -> None:
        pass


# ------------------------------------------------------------------------------ SQLAlchemy

WRITE = "nimmt_write"
"""Execution option of a connection that will write: on SQLite its transaction starts with
``BEGIN IMMEDIATE``, which takes the write lock at once (waiting up to the busy timeout) rather
than failing when a read in the transaction must turn into a write while another commits."""
VERSIONS_CHUNK = 500
"""Codes per query of :meth:`SqlStorage.versions` (SQLite caps the bound parameters)."""
MIGRATION_LOCK = 0x6E696D6D74
"""PostgreSQL advisory lock taken while migrating: processes starting at once migrate in turn."""

# The statements of every append, built once: building a statement costs more than running it.
_tables = cast(Table, TableRow.__table__)
_actions = cast(Table, ActionRow.__table__)
_TABLE_ID = select(_tables.c.id).where(_tables.c.code == bindparam("b_code"))
_MOVE = (
    update(_tables)
    .where(_tables.c.code == bindparam("b_code"), _tables.c.version == bindparam("b_expected"))
    .values(
        version=bindparam("b_version"),
        game=bindparam("b_game"),
        phase=bindparam("b_phase"),
        round=bindparam("b_round"),
        finished=bindparam("b_finished"),
    )
    .returning(_tables.c.id)
)
_MOVE_ACTIVE = _MOVE.values(last_active_at=bindparam("b_last_active_at"))
_INSERT_ACTION = insert(_actions)


def _driver_execute(connection: Connection, sql: str) -> None:
    """Run ``sql`` on the DBAPI connection itself, outside any transaction SQLAlchemy begins."""
    driver = connection.connection.driver_connection
    assert driver is not None
    driver.execute(sql)


def migrate(engine: Engine, revision: str = "head") -> None:
    """Bring the database schema to ``revision`` (default the newest; Alembic, programmatically),
    in one transaction.

    On SQLite the foreign keys are off meanwhile (they can only be switched outside a
    transaction): a migration that rebuilds a table drops the old one, which would otherwise
    cascade to the rows that refer to it. They are checked before the commit."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    with engine.connect() as connection:
        backend = connection.dialect.name
        if backend == "sqlite":
            _driver_execute(connection, "PRAGMA foreign_keys=OFF")
        try:
            connection.execution_options(**{WRITE: True})
            with connection.begin():
                if backend == "postgresql":
                    connection.execute(
                        text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK}
                    )
                config.attributes["connection"] = connection
                command.upgrade(config, revision)
                if backend == "sqlite":
                    broken = connection.exec_driver_sql("PRAGMA foreign_key_check").all()
                    if broken:
                        raise StorageError(f"the migration broke foreign keys: {broken[:5]}")
        finally:
            if backend == "sqlite" and not connection.invalidated:
                _driver_execute(connection, "PRAGMA foreign_keys=ON")


def open_engine(url: str) -> Engine:
    """An engine for ``url``; an SQLite file's directory is created if missing."""
    parsed = make_url(url)
    connect_args: dict[str, Any] = {}
    if parsed.get_backend_name() == "sqlite":
        # The service runs storage calls in worker threads, one at a time per table.
        connect_args["check_same_thread"] = False
        connect_args["timeout"] = 30
        database = parsed.database
        if database and database != ":memory:" and not database.startswith("file:"):
            Path(database).expanduser().parent.mkdir(parents=True, exist_ok=True)
    engine = create_engine(url, connect_args=connect_args, pool_pre_ping=True)
    if parsed.get_backend_name() == "sqlite":

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
            # pysqlite's own transaction handling (a BEGIN only before data changes, none before
            # SAVEPOINT or DDL) is switched off; the "begin" hook below emits every BEGIN, so
            # that savepoints and migrations work (SQLAlchemy's documented recipe).
            dbapi_connection.isolation_level = None
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA foreign_keys=ON")
            # Write-ahead log: one fsync per commit instead of several, and readers never wait
            # for the writer. FULL keeps a commit durable even through a power cut.
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=FULL")
            cursor.close()

        @event.listens_for(engine, "begin")
        def _sqlite_begin(connection: Connection) -> None:
            writes = connection.get_execution_options().get(WRITE, False)
            connection.exec_driver_sql("BEGIN IMMEDIATE" if writes else "BEGIN")

    return engine


class SqlStorage:
    """:class:`Storage` on any database SQLAlchemy speaks (SQLite and PostgreSQL are tested)."""

    def __init__(self, url: str, *, run_migrations: bool = True) -> None:
        self.engine = open_engine(url)
        if run_migrations:
            migrate(self.engine)

    @contextmanager
    def _writing(self) -> Iterator[Connection]:
        """A connection in a write transaction, committed at the end of the block; database
        failures come out as :class:`StorageError` (refusals of a change as they are)."""
        try:
            with self.engine.connect() as connection:
                connection.execution_options(**{WRITE: True})
                with connection.begin():
                    yield connection
        except IntegrityError:
            raise
        except (DBAPIError, PoolTimeoutError) as error:
            raise StorageError(f"the database failed: {error}") from error

    def create_table(self, table: TableRecord) -> None:
        free, humans = lobby_seats(table.seats)
        try:
            with self._writing() as connection:
                table_id = connection.execute(
                    insert(TableRow)
                    .values(
                        code=table.code,
                        created_at=_utc(table.created_at),
                        version=table.status.version,
                        game=table.status.game,
                        phase=table.status.phase,
                        round=table.status.round,
                        finished=table.status.finished,
                        last_active_at=_utc(table.status.last_active_at or table.created_at),
                        seat_count=len(table.seats),
                        free_seats=free,
                        humans=humans,
                        assistant_hash=table.assistant_hash,
                        coach=table.coach,
                    )
                    .returning(TableRow.id)
                ).scalar_one()
                if table.seats:
                    connection.execute(
                        insert(SeatRow),
                        [
                            {
                                "table_id": table_id,
                                "seat": seat.seat,
                                "kind": seat.kind,
                                "bot": seat.bot,
                                "name": seat.name,
                                "token_hash": seat.token_hash,
                            }
                            for seat in table.seats
                        ],
                    )
        except IntegrityError as error:
            raise CodeTakenError(f"table {table.code} exists") from error

    def load_table(self, code: str) -> TableRecord | None:
        with Session(self.engine) as session:
            row = session.scalars(select(TableRow).where(TableRow.code == code)).one_or_none()
            if row is None:
                return None
            seats = session.scalars(
                select(SeatRow).where(SeatRow.table_id == row.id).order_by(SeatRow.seat)
            ).all()
            return TableRecord(
                code=row.code,
                created_at=_utc(row.created_at),
                seats=tuple(
                    SeatRecord(seat.seat, seat.kind, seat.bot, seat.name, seat.token_hash)
                    for seat in seats
                ),
                status=TableStatus(
                    row.version,
                    row.game,
                    row.phase,
                    row.round,
                    row.finished,
                    _utc(row.last_active_at),
                ),
                assistant_hash=row.assistant_hash,
                coach=row.coach,
            )

    def load_actions(self, code: str, game: int, after: int = 0) -> list[ActionRecord]:
        with Session(self.engine) as session:
            rows = session.scalars(
                select(ActionRow)
                .join(TableRow, TableRow.id == ActionRow.table_id)
                .where(TableRow.code == code, ActionRow.game == game, ActionRow.seq > after)
                .order_by(ActionRow.seq)
            ).all()
            return [
                ActionRecord(row.seq, row.game, row.kind, row.seat, row.card, row.row, row.data)
                for row in rows
            ]

    @staticmethod
    def _append_in(
        connection: Connection,
        code: str,
        action: ActionRecord,
        status: TableStatus,
        seat: SeatRecord | None,
    ) -> None:
        """One table's change, in the caller's transaction."""
        if status.version != action.seq:
            raise VersionConflictError("the status must carry the action's version")
        values: dict[str, Any] = {
            "b_code": code,
            "b_expected": action.seq - 1,
            "b_version": status.version,
            "b_game": status.game,
            "b_phase": status.phase,
            "b_round": status.round,
            "b_finished": status.finished,
        }
        if status.last_active_at is None:
            statement = _MOVE
        else:
            statement = _MOVE_ACTIVE
            values["b_last_active_at"] = _utc(status.last_active_at)
        # Compare-and-set on the version: a change that does not follow the stored history is
        # refused instead of silently forking it. On PostgreSQL the update also locks the row,
        # so the seats below change under it.
        table_id = connection.execute(statement, values).scalar()
        if table_id is None:
            if connection.execute(_TABLE_ID, {"b_code": code}).scalar() is None:
                raise StorageError(f"no table {code}")
            raise VersionConflictError(f"table {code} is not at version {action.seq - 1}")
        connection.execute(
            _INSERT_ACTION,
            {
                "table_id": table_id,
                "seq": action.seq,
                "game": action.game,
                "kind": action.kind,
                "seat": action.seat,
                "card": action.card,
                "row": action.row,
                "data": dict(action.data) if action.data is not None else None,
                "created_at": datetime.now(UTC),
            },
        )
        if seat is None:
            return
        changed = connection.execute(
            update(SeatRow)
            .where(SeatRow.table_id == table_id, SeatRow.seat == seat.seat)
            .values(kind=seat.kind, bot=seat.bot, name=seat.name, token_hash=seat.token_hash)
        )
        if changed.rowcount != 1:
            raise StorageError(f"no seat {seat.seat} at table {code}")
        seats = connection.execute(
            select(SeatRow.seat, SeatRow.kind, SeatRow.bot, SeatRow.name, SeatRow.token_hash)
            .where(SeatRow.table_id == table_id)
            .order_by(SeatRow.seat)
        ).all()
        free, humans = lobby_seats(SeatRecord(*row) for row in seats)
        connection.execute(
            update(TableRow).where(TableRow.id == table_id).values(free_seats=free, humans=humans)
        )

    def append(
        self, code: str, action: ActionRecord, status: TableStatus, seat: SeatRecord | None = None
    ) -> None:
        try:
            with self._writing() as connection:
                self._append_in(connection, code, action, status, seat)
        except IntegrityError as error:
            raise VersionConflictError(str(error)) from error

    def append_many(self, items: Sequence[AppendItem]) -> list[Exception | None]:
        results: list[Exception | None] = [None] * len(items)
        if not items:
            return results
        try:
            with self._writing() as connection:
                for index, (code, action, status, seat) in enumerate(items):
                    # Each item in its own savepoint: a refused one is rolled back alone.
                    try:
                        with connection.begin_nested():
                            self._append_in(connection, code, action, status, seat)
                    except IntegrityError as error:
                        results[index] = VersionConflictError(str(error))
                    except StorageError as error:
                        results[index] = error
        except IntegrityError as error:  # not from an item: the commit itself
            raise StorageError(f"the database failed: {error}") from error
        return results

    def table_version(self, code: str) -> int | None:
        with self.engine.connect() as connection:
            return connection.scalar(select(TableRow.version).where(TableRow.code == code))

    def versions(self, codes: Sequence[str]) -> dict[str, int]:
        wanted = list(dict.fromkeys(codes))
        found: dict[str, int] = {}
        with self.engine.connect() as connection:
            for start in range(0, len(wanted), VERSIONS_CHUNK):
                chunk = wanted[start : start + VERSIONS_CHUNK]
                rows = connection.execute(
                    select(TableRow.code, TableRow.version).where(TableRow.code.in_(chunk))
                )
                found.update((code, version) for code, version in rows)
        return found

    def list_open(
        self, *, limit: int, cursor: str | None, active_since: datetime
    ) -> tuple[list[OpenTable], str | None]:
        _check_limit(limit)
        query = (
            select(
                TableRow.id,
                TableRow.code,
                TableRow.created_at,
                TableRow.free_seats,
                TableRow.humans,
                TableRow.phase,
                TableRow.round,
                TableRow.seat_count,
            )
            .where(
                TableRow.finished.is_(False),
                TableRow.last_active_at >= _utc(active_since),
                TableRow.assistant_hash.is_(None),  # an assisted table is followed by its link
            )
            .order_by(TableRow.created_at.desc(), TableRow.id.desc())
            .limit(limit + 1)
        )
        if cursor is not None:
            created, table_id = decode_cursor(cursor)
            created = _utc(created)
            query = query.where(
                or_(
                    TableRow.created_at < created,
                    and_(TableRow.created_at == created, TableRow.id < table_id),
                )
            )
        with self.engine.connect() as connection:
            rows = connection.execute(query).all()
        lines = [
            OpenTable(
                code,
                seat_count,
                free,
                tuple(humans),
                phase,
                round_,
                _utc(created),
            )
            for _id, code, created, free, humans, phase, round_, seat_count in rows[:limit]
        ]
        if len(rows) <= limit:
            return lines, None
        last = rows[limit - 1]
        return lines, encode_cursor(last.created_at, last.id)

    def active_codes(self, since: datetime) -> list[str]:
        with self.engine.connect() as connection:
            return list(
                connection.scalars(
                    select(TableRow.code)
                    .where(TableRow.finished.is_(False), TableRow.last_active_at >= _utc(since))
                    .order_by(TableRow.id)
                )
            )

    def close(self) -> None:
        self.engine.dispose()
