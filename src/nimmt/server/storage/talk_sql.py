"""The SQLAlchemy side of :class:`~nimmt.server.storage.talk.TalkStore`: the tables
``talk_lines`` and ``talk_settings`` (created by migration ``0007``), deleted with their table."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Any

from sqlalchemy import (
    Boolean,
    Column,
    Connection,
    DateTime,
    Engine,
    ForeignKey,
    Index,
    Integer,
    String,
    Table,
    insert,
    select,
    update,
)
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.exc import TimeoutError as PoolTimeoutError

from nimmt.server.models import NAME_COLUMN, Base
from nimmt.server.storage.base import StorageError, as_utc
from nimmt.server.storage.talk import TalkLine
from nimmt.server.storage.writes import WRITE

MAX_TEXT = 800
"""Room for a line's text in the database (the server allows 200 characters)."""

_meta = Base.metadata
talk_lines = Table(
    "talk_lines",
    _meta,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("table_code", String(6), ForeignKey("tables.code", ondelete="CASCADE"), nullable=False),
    Column("at", DateTime(timezone=True), nullable=False),
    Column("kind", String(8), nullable=False),
    Column("seat", Integer, nullable=True),
    Column("speaker", String(32), nullable=False),
    Column("name", String(NAME_COLUMN), nullable=False),
    Column("text", String(MAX_TEXT), nullable=False),
    Index("ix_talk_lines_table", "table_code", "id"),
)
talk_settings = Table(
    "talk_settings",
    _meta,
    Column(
        "table_code", String(6), ForeignKey("tables.code", ondelete="CASCADE"), primary_key=True
    ),
    Column("spectators_write", Boolean, nullable=False),
)


def _line(row: Any) -> TalkLine:
    return TalkLine(
        row.id, row.table_code, as_utc(row.at), row.kind, row.seat, row.speaker, row.name, row.text
    )


class SqlTalk:
    """:class:`~nimmt.server.storage.talk.TalkStore` on SQLite or PostgreSQL."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine

    @contextmanager
    def _connected(self, *, write: bool) -> Iterator[Connection]:
        try:
            with self.engine.connect() as connection:
                if write:
                    connection.execution_options(**{WRITE: True})
                with connection.begin():
                    yield connection
        except IntegrityError as error:
            raise KeyError("no such table") from error
        except (DBAPIError, PoolTimeoutError) as error:
            raise StorageError(f"the database failed: {error}") from error

    def add_line(
        self,
        code: str,
        *,
        at: datetime,
        kind: str,
        seat: int | None,
        speaker: str,
        name: str,
        text: str,
    ) -> TalkLine:
        values = {
            "table_code": code, "at": as_utc(at), "kind": kind, "seat": seat,
            "speaker": speaker, "name": name, "text": text,
        }  # fmt: skip
        with self._connected(write=True) as connection:
            line_id = connection.execute(
                insert(talk_lines).values(**values).returning(talk_lines.c.id)
            ).scalar_one()
        return TalkLine(line_id, code, as_utc(at), kind, seat, speaker, name, text)

    def recent_lines(self, code: str, limit: int) -> list[TalkLine]:
        if limit <= 0:
            return []
        with self._connected(write=False) as connection:
            rows = connection.execute(
                select(talk_lines)
                .where(talk_lines.c.table_code == code)
                .order_by(talk_lines.c.id.desc())
                .limit(limit)
            ).all()
        return [_line(row) for row in reversed(rows)]

    def lines_after(self, code: str, after: int, limit: int) -> list[TalkLine]:
        with self._connected(write=False) as connection:
            rows = connection.execute(
                select(talk_lines)
                .where(talk_lines.c.table_code == code, talk_lines.c.id > after)
                .order_by(talk_lines.c.id)
                .limit(limit)
            ).all()
        return [_line(row) for row in rows]

    def spectators_may_write(self, code: str) -> bool:
        with self._connected(write=False) as connection:
            allowed = connection.execute(
                select(talk_settings.c.spectators_write).where(talk_settings.c.table_code == code)
            ).scalar_one_or_none()
        return bool(allowed)

    def set_spectators_may_write(self, code: str, allowed: bool) -> None:
        with self._connected(write=True) as connection:
            changed = connection.execute(
                update(talk_settings)
                .where(talk_settings.c.table_code == code)
                .values(spectators_write=allowed)
            ).rowcount
            if not changed:
                connection.execute(
                    insert(talk_settings).values(table_code=code, spectators_write=allowed)
                )
