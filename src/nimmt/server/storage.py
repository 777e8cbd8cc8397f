"""Where tables are kept: a small storage interface, its SQLAlchemy implementation, and an
in-memory twin for tests.

The game service stores every accepted change through :meth:`Storage.append` before anybody hears
of it. ``append`` is all-or-nothing (one transaction) and refuses a change whose number does not
follow the table's stored version, so two writers can never interleave a table's history.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from alembic import command
from alembic.config import Config
from sqlalchemy import Engine, create_engine, event, select, update
from sqlalchemy.engine import make_url
from sqlalchemy.exc import IntegrityError
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
    ``play`` (seat, card), ``retract`` (seat), ``choose_row`` (seat, row), ``rematch``."""

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


@dataclass(frozen=True, slots=True)
class TableRecord:
    code: str
    created_at: datetime
    seats: tuple[SeatRecord, ...]
    status: TableStatus


class Storage(Protocol):
    """What the game service needs from a database. Methods block: call them off the event
    loop."""

    def create_table(self, table: TableRecord) -> None:
        """Store a new table; :class:`CodeTakenError` if its code is in use."""
        ...

    def load_table(self, code: str) -> TableRecord | None: ...

    def load_actions(self, code: str, game: int) -> list[ActionRecord]:
        """The actions of one game at the table, in order."""
        ...

    def append(
        self, code: str, action: ActionRecord, status: TableStatus, seat: SeatRecord | None = None
    ) -> None:
        """Store ``action`` (whose ``seq`` must be the stored version + 1), the table's new
        ``status`` and, for a join, the changed ``seat``: all or nothing."""
        ...

    def unfinished_codes(self) -> list[str]:
        """Codes of the tables whose current game is not over."""
        ...

    def close(self) -> None: ...


# ------------------------------------------------------------------------------- in memory


class MemoryStorage:
    """The in-memory twin of :class:`SqlStorage`, with the same checks (for tests)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._tables: dict[str, TableRecord] = {}
        self._actions: dict[str, list[ActionRecord]] = {}

    def create_table(self, table: TableRecord) -> None:
        with self._lock:
            if table.code in self._tables:
                raise CodeTakenError(f"table {table.code} exists")
            self._tables[table.code] = table
            self._actions[table.code] = []

    def load_table(self, code: str) -> TableRecord | None:
        with self._lock:
            return self._tables.get(code)

    def load_actions(self, code: str, game: int) -> list[ActionRecord]:
        with self._lock:
            return [action for action in self._actions.get(code, []) if action.game == game]

    def append(
        self, code: str, action: ActionRecord, status: TableStatus, seat: SeatRecord | None = None
    ) -> None:
        with self._lock:
            table = self._tables.get(code)
            if table is None:
                raise StorageError(f"no table {code}")
            if action.seq != table.status.version + 1 or status.version != action.seq:
                raise VersionConflictError(f"table {code} is at version {table.status.version}")
            seats = table.seats
            if seat is not None:
                seats = tuple(seat if old.seat == seat.seat else old for old in seats)
            stored = replace(action, data=copy.deepcopy(dict(action.data)) if action.data else None)
            self._actions[code].append(stored)
            self._tables[code] = replace(table, seats=seats, status=status)

    def unfinished_codes(self) -> list[str]:
        with self._lock:
            return [code for code, table in self._tables.items() if not table.status.finished]

    def close(self) -> None:
        pass


# ------------------------------------------------------------------------------ SQLAlchemy


def migrate(engine: Engine) -> None:
    """Bring the database schema to the newest revision (Alembic, programmatically)."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "head")


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
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA foreign_keys=ON")
            # Write-ahead log: one fsync per commit instead of several, and readers never wait
            # for the writer. FULL keeps a commit durable even through a power cut.
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=FULL")
            cursor.close()

    return engine


class SqlStorage:
    """:class:`Storage` on any database SQLAlchemy speaks (SQLite and PostgreSQL are tested)."""

    def __init__(self, url: str, *, run_migrations: bool = True) -> None:
        self.engine = open_engine(url)
        if run_migrations:
            migrate(self.engine)

    def create_table(self, table: TableRecord) -> None:
        try:
            with Session(self.engine) as session, session.begin():
                row = TableRow(
                    code=table.code,
                    created_at=table.created_at.astimezone(UTC),
                    version=table.status.version,
                    game=table.status.game,
                    phase=table.status.phase,
                    round=table.status.round,
                    finished=table.status.finished,
                )
                session.add(row)
                session.flush()
                for seat in table.seats:
                    session.add(
                        SeatRow(
                            table_id=row.id,
                            seat=seat.seat,
                            kind=seat.kind,
                            bot=seat.bot,
                            name=seat.name,
                            token_hash=seat.token_hash,
                        )
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
            created = row.created_at
            if created.tzinfo is None:  # SQLite keeps no time zone: everything stored is UTC
                created = created.replace(tzinfo=UTC)
            return TableRecord(
                code=row.code,
                created_at=created,
                seats=tuple(
                    SeatRecord(seat.seat, seat.kind, seat.bot, seat.name, seat.token_hash)
                    for seat in seats
                ),
                status=TableStatus(row.version, row.game, row.phase, row.round, row.finished),
            )

    def load_actions(self, code: str, game: int) -> list[ActionRecord]:
        with Session(self.engine) as session:
            rows = session.scalars(
                select(ActionRow)
                .join(TableRow, TableRow.id == ActionRow.table_id)
                .where(TableRow.code == code, ActionRow.game == game)
                .order_by(ActionRow.seq)
            ).all()
            return [
                ActionRecord(row.seq, row.game, row.kind, row.seat, row.card, row.row, row.data)
                for row in rows
            ]

    def append(
        self, code: str, action: ActionRecord, status: TableStatus, seat: SeatRecord | None = None
    ) -> None:
        if status.version != action.seq:
            raise VersionConflictError("the status must carry the action's version")
        try:
            with Session(self.engine) as session, session.begin():
                table_id = session.scalar(select(TableRow.id).where(TableRow.code == code))
                if table_id is None:
                    raise StorageError(f"no table {code}")
                # Compare-and-set on the version: a change that does not follow the stored
                # history is refused instead of silently forking it.
                moved = session.execute(
                    update(TableRow)
                    .where(TableRow.id == table_id, TableRow.version == action.seq - 1)
                    .values(
                        version=status.version,
                        game=status.game,
                        phase=status.phase,
                        round=status.round,
                        finished=status.finished,
                    )
                )
                if moved.rowcount != 1:  # type: ignore[attr-defined]
                    raise VersionConflictError(f"table {code} is not at version {action.seq - 1}")
                session.add(
                    ActionRow(
                        table_id=table_id,
                        seq=action.seq,
                        game=action.game,
                        kind=action.kind,
                        seat=action.seat,
                        card=action.card,
                        row=action.row,
                        data=dict(action.data) if action.data is not None else None,
                        created_at=datetime.now(UTC),
                    )
                )
                if seat is not None:
                    session.execute(
                        update(SeatRow)
                        .where(SeatRow.table_id == table_id, SeatRow.seat == seat.seat)
                        .values(name=seat.name, token_hash=seat.token_hash)
                    )
        except IntegrityError as error:
            raise VersionConflictError(str(error)) from error

    def unfinished_codes(self) -> list[str]:
        with Session(self.engine) as session:
            return list(
                session.scalars(
                    select(TableRow.code).where(TableRow.finished.is_(False)).order_by(TableRow.id)
                )
            )

    def close(self) -> None:
        self.engine.dispose()
