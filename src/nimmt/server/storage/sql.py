"""The SQLAlchemy backend: :class:`SqlStorage` on SQLite or PostgreSQL, the engine it opens
(:func:`open_engine`, with SQLite's pragmas) and the Alembic migrations it runs (:func:`migrate`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, ParamSpec, TypeVar, cast

from alembic import command
from alembic.config import Config
from sqlalchemy import (
    Connection,
    Engine,
    Table,
    bindparam,
    create_engine,
    event,
    func,
    insert,
    select,
    text,
    update,
)
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.exc import TimeoutError as PoolTimeoutError
from sqlalchemy.orm import Session

from nimmt.server.models import ActionRow, SeatRow, TableRow
from nimmt.server.storage import lifecycle, listings
from nimmt.server.storage.base import (
    ActionRecord,
    AppendItem,
    CodeTakenError,
    GroupTable,
    OpenTable,
    SeatRecord,
    StorageError,
    StoredTable,
    TableGoneError,
    TableRecord,
    TableStatus,
    VersionConflictError,
    as_utc,
    lobby_seats,
)
from nimmt.server.storage.driver import DriverStatement
from nimmt.server.storage.people_sql import SqlPeople
from nimmt.server.storage.talk_sql import SqlTalk
from nimmt.server.storage.writes import WRITE, sqlite_write, writing

P = ParamSpec("P")
R = TypeVar("R")

MIGRATIONS_DIR = Path(__file__).resolve().parent.parent / "migrations"


VERSIONS_CHUNK = 500
"""Codes per query of :meth:`SqlStorage.versions` (SQLite caps the bound parameters)."""
MIGRATION_LOCK = 0x6E696D6D74
"""PostgreSQL advisory lock taken while migrating: processes starting at once migrate in turn."""

# The statements of every append, built once: building a statement costs more than running it.
_tables = cast(Table, TableRow.__table__)
_actions = cast(Table, ActionRow.__table__)
_TABLE_ID = select(_tables.c.id).where(_tables.c.code == bindparam("b_code"))
_MOVED = (
    update(_tables)
    .where(_tables.c.code == bindparam("b_code"), _tables.c.version == bindparam("b_expected"))
    .values(
        version=bindparam("b_version"),
        game=bindparam("b_game"),
        phase=bindparam("b_phase"),
        round=bindparam("b_round"),
        finished=bindparam("b_finished"),
    )
)
_MOVE = _MOVED.returning(_tables.c.id)
_MOVE_ACTIVE = _MOVE.values(last_active_at=bindparam("b_last_active_at"))
_MOVE_MANY = _MOVED.values(
    last_active_at=func.coalesce(
        bindparam("b_last_active_at", type_=_tables.c.last_active_at.type),
        _tables.c.last_active_at,
    )
)
"""Many tables' moves at once (one executemany): a status without a moment of activity keeps
the stored one."""
_INSERT_ACTION = insert(_actions)


def _move(code: str, action: ActionRecord, status: TableStatus) -> dict[str, Any]:
    """The parameters of a table's compare-and-set move to ``status`` by ``action``."""
    active = status.last_active_at
    return {
        "b_code": code,
        "b_expected": action.seq - 1,
        "b_version": status.version,
        "b_game": status.game,
        "b_phase": status.phase,
        "b_round": status.round,
        "b_finished": status.finished,
        "b_last_active_at": as_utc(active) if active is not None else None,
    }


def _action_row(table_id: int, action: ActionRecord, now: datetime) -> dict[str, Any]:
    """The ``actions`` row of ``action`` at the table of that id."""
    return {
        "table_id": table_id,
        "seq": action.seq,
        "game": action.game,
        "kind": action.kind,
        "seat": action.seat,
        "card": action.card,
        "row": action.row,
        "data": dict(action.data) if action.data is not None else None,
        "created_at": now,
    }


class _Refused(Exception):
    """A change of a batch was refused: the batch is written again, each change on its own."""


def _reading(method: Callable[P, R]) -> Callable[P, R]:
    """A read whose database failures (server away, connection lost, pool exhausted) come out
    as :class:`StorageError`, as the writes' do: the server answers them 503 ``storage_error``."""

    @functools.wraps(method)
    def read(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return method(*args, **kwargs)
        except (DBAPIError, PoolTimeoutError) as error:
            raise StorageError(f"the database failed: {error}") from error

    return read


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
    # A pool's ping before each use finds a server connection that died (PostgreSQL after an
    # outage); an SQLite file has none, and the ping cost the write path a query per batch.
    sqlite = parsed.get_backend_name() == "sqlite"
    engine = create_engine(url, connect_args=connect_args, pool_pre_ping=not sqlite)
    if sqlite:

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


SQLITE_COMMIT_INTERVAL = 0.010
"""A busy server's shortest time between two SQLite transactions (:attr:`SqlStorage.
commit_interval`). A transaction costs a fixed part in this process, whatever its size (its
commit's disk flush and the transaction's own work, about 0.5 ms of CPU): at 400 tables batches
held 4.5 changes at once; gathered for up to 10 ms, about 7, for about a tenth less CPU per
action (docs/deploy.md). On PostgreSQL (a server of its own) the same wait saved no CPU here and
lengthened the tail of two processes' actions: it waits for nothing there."""


class SqlStorage:
    """:class:`Storage` on any database SQLAlchemy speaks (SQLite and PostgreSQL are tested)."""

    def __init__(self, url: str, *, run_migrations: bool = True) -> None:
        self.engine = open_engine(url)
        if run_migrations:
            migrate(self.engine)
        self.people = SqlPeople(self.engine)
        self.talk = SqlTalk(self.engine)
        self._move_many = DriverStatement(_MOVE_MANY, self.engine.dialect)
        self._insert_actions = DriverStatement(_INSERT_ACTION, self.engine.dialect)
        self._ids: dict[str, int] = {}
        """Table ids by code, as the batches found them (only the write thread uses it). A
        stale one (a table purged, its code taken again) fails its batch's insert, which is
        then written change by change, and the cache starts afresh."""
        self.commit_interval = (
            SQLITE_COMMIT_INTERVAL if self.engine.dialect.name == "sqlite" else 0.0
        )
        # Batches of known tables go on the driver's own cursor (sqlite_write).
        self._direct = self.engine.dialect.name == "sqlite"

    def _writing(self) -> AbstractContextManager[Connection]:
        """A connection in a write transaction (:func:`~nimmt.server.storage.writes.writing`)."""
        return writing(self.engine)

    def create_table(self, table: TableRecord) -> None:
        free, humans = lobby_seats(table.seats)
        try:
            with self._writing() as connection:
                table_id = connection.execute(
                    insert(TableRow)
                    .values(
                        code=table.code,
                        created_at=as_utc(table.created_at),
                        version=table.status.version,
                        game=table.status.game,
                        phase=table.status.phase,
                        round=table.status.round,
                        finished=table.status.finished,
                        last_active_at=as_utc(table.status.last_active_at or table.created_at),
                        seat_count=len(table.seats),
                        free_seats=free,
                        humans=humans,
                        assistant_hash=table.assistant_hash,
                        coach=table.coach,
                        away_seconds=table.away_seconds,
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

    @_reading
    def load_table(self, code: str) -> TableRecord | None:
        with Session(self.engine) as session:
            row = session.scalars(select(TableRow).where(TableRow.code == code)).one_or_none()
            if row is None:
                return None
            seats = session.scalars(
                select(SeatRow).where(SeatRow.table_id == row.id).order_by(SeatRow.seat)
            ).all()
            away = {seat.seat: as_utc(seat.away_since) for seat in seats if seat.away_since}
            return TableRecord(
                code=row.code,
                created_at=as_utc(row.created_at),
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
                    as_utc(row.last_active_at),
                ),
                assistant_hash=row.assistant_hash,
                coach=row.coach,
                away_seconds=row.away_seconds,
                away_since=away,
            )

    @_reading
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
        later: list[dict[str, Any]] | None = None,
    ) -> None:
        """One table's change, in the caller's transaction. With ``later``, the action's row
        is added to that list for the caller to insert with the others, in one statement."""
        if status.version != action.seq:
            raise VersionConflictError("the status must carry the action's version")
        values = _move(code, action, status)
        statement = _MOVE_ACTIVE
        if values["b_last_active_at"] is None:
            statement = _MOVE
            del values["b_last_active_at"]
        # Compare-and-set on the version: a change that does not follow the stored history is
        # refused instead of silently forking it. On PostgreSQL the update also locks the row,
        # so the seats below change under it.
        table_id = connection.execute(statement, values).scalar()
        if table_id is None:
            if connection.execute(_TABLE_ID, {"b_code": code}).scalar() is None:
                raise TableGoneError(f"no table {code}")
            raise VersionConflictError(f"table {code} is not at version {action.seq - 1}")
        row = _action_row(table_id, action, datetime.now(UTC))
        if later is not None:
            later.append(row)
        else:
            connection.execute(_INSERT_ACTION, row)
        if seat is None:
            return
        changed = connection.execute(
            update(SeatRow)
            .where(SeatRow.table_id == table_id, SeatRow.seat == seat.seat)
            .values(
                kind=seat.kind,
                bot=seat.bot,
                name=seat.name,
                token_hash=seat.token_hash,
                away_since=None,
            )
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

    def _move_all(self, target: Connection | Any, items: Sequence[AppendItem]) -> None:
        """Changes that touch no seat, in two statements run by the driver in ``target`` (a
        connection, or a driver cursor when every table's id is known): every table's
        compare-and-set move at once, then their actions at once; the ids of tables not seen
        before cost a third. :class:`_Refused` when a table was not at the version its change
        follows (or is not there)."""
        moves: list[dict[str, Any]] = []
        for code, action, status, _seat in items:
            if status.version != action.seq:
                raise _Refused("the status must carry the action's version")
            moves.append(_move(code, action, status))
        if self._move_many.executemany(target, moves) != len(moves):
            raise _Refused("a table was not at the version its change follows")
        ids = self._ids
        missing = list(dict.fromkeys(code for code, *_ in items if code not in ids))
        for start in range(0, len(missing), VERSIONS_CHUNK):
            chunk = missing[start : start + VERSIONS_CHUNK]
            rows = target.execute(
                select(_tables.c.code, _tables.c.id).where(_tables.c.code.in_(chunk))
            )
            ids.update((code, table_id) for code, table_id in rows)
        now = datetime.now(UTC)
        self._insert_actions.executemany(
            target, [_action_row(ids[code], action, now) for code, action, _, _ in items]
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
        # Nearly always every change is accepted: then they go in without a savepoint each,
        # their actions in one insert, and (when no seat changes) the tables' moves in one
        # statement too. When one is refused, that transaction is rolled back and the batch
        # written again, each change on its own.
        no_seats = all(seat is None for *_, seat in items)
        try:
            if no_seats and self._direct and all(code in self._ids for code, *_ in items):
                # The usual batch, on SQLite: the whole transaction on the driver's cursor.
                with sqlite_write(self.engine) as cursor:
                    self._move_all(cursor, items)
                return results
            with self._writing() as connection:
                if no_seats and connection.dialect.supports_sane_multi_rowcount:
                    self._move_all(connection, items)
                else:
                    rows: list[dict[str, Any]] = []
                    for code, action, status, seat in items:
                        try:
                            self._append_in(connection, code, action, status, seat, rows)
                        except (IntegrityError, StorageError) as error:
                            raise _Refused from error
                    self._insert_actions.executemany(connection, rows)
        except (_Refused, IntegrityError):
            self._ids.clear()
        else:
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

    @_reading
    def table_version(self, code: str) -> int | None:
        with self.engine.connect() as connection:
            return connection.scalar(select(TableRow.version).where(TableRow.code == code))

    def mark_away(self, code: str, seat: int, since: datetime | None) -> None:
        table_id = select(TableRow.id).where(TableRow.code == code).scalar_subquery()
        with self._writing() as connection:
            connection.execute(
                update(SeatRow)
                .where(SeatRow.table_id == table_id, SeatRow.seat == seat)
                .values(away_since=as_utc(since) if since is not None else None)
            )

    @_reading
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

    @_reading
    def list_open(
        self, *, limit: int, cursor: str | None, active_since: datetime
    ) -> tuple[list[OpenTable], str | None]:
        return listings.list_open(
            self.engine, limit=limit, cursor=cursor, active_since=active_since
        )

    @_reading
    def list_group_open(
        self, group: str, *, limit: int, active_since: datetime
    ) -> list[GroupTable]:
        return listings.list_group_open(self.engine, group, limit=limit, active_since=active_since)

    @_reading
    def active_codes(self, since: datetime) -> list[str]:
        with self.engine.connect() as connection:
            return list(
                connection.scalars(
                    select(TableRow.code)
                    .where(TableRow.finished.is_(False), TableRow.last_active_at >= as_utc(since))
                    .order_by(TableRow.id)
                )
            )

    @_reading
    def stored_tables(self) -> list[StoredTable]:
        with self.engine.connect() as connection:
            return [table for _id, table in lifecycle.stored_tables(connection)]

    def purge(
        self,
        *,
        finished_before: datetime | None,
        abandoned_before: datetime | None,
        keep: Sequence[str] = (),
        dry_run: bool = False,
    ) -> list[StoredTable]:
        self._ids.clear()  # (a purged table's code may be taken again)
        with self._writing() as connection:
            return lifecycle.purge(
                connection,
                finished_before=finished_before,
                abandoned_before=abandoned_before,
                keep=keep,
                dry_run=dry_run,
            )

    def close(self) -> None:
        self.engine.dispose()
