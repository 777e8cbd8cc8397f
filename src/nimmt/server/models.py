"""The database tables (SQLAlchemy 2 declarative models); the schema is created by Alembic.

A table's game is stored as what happened, not as a snapshot: the seats, and the ordered list of
accepted changes (joins, deals with every dealt card, cards chosen and taken back, rows chosen,
rematches). Replaying that list through the engine gives back exactly the game that was played,
hidden cards included, so a restarted server continues where it stopped.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Boolean, DateTime, ForeignKey, Index, Integer, String, false
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from nimmt.names import NAME_MAX_CODE_POINTS

NAME_COLUMN = NAME_MAX_CODE_POINTS
"""The length of every column that stores a name (a seat's, a profile's, a group's, a result's,
a talk line's): the most code points a name may take (PostgreSQL counts a VARCHAR in them)."""


class Base(DeclarativeBase):
    pass


class TableRow(Base):
    """One table; ``version``, ``game``, ``phase``, ``round`` and ``finished`` are kept in step
    with the actions, ``seat_count``, ``free_seats`` and ``humans`` with the seats (same
    transaction), so that the lobby is one query on this table alone: no join, no replay."""

    __tablename__ = "tables"
    # The lobby: unfinished tables, newest created first, paged by (created_at, id). Indexing
    # last_active_at instead would cost an index update on every move of every table.
    __table_args__ = (Index("ix_tables_lobby", "finished", "created_at", "id"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    code: Mapped[str] = mapped_column(String(6), unique=True, nullable=False)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
    version: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    game: Mapped[int] = mapped_column(Integer, nullable=False, default=1)
    phase: Mapped[str] = mapped_column(String(20), nullable=False)
    round: Mapped[int] = mapped_column(Integer, nullable=False, default=0)
    finished: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    last_active_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
    """When a person last acted here (join, play, retract, choose_row, rematch, leave)."""
    seat_count: Mapped[int] = mapped_column(Integer, nullable=False, default=0, server_default="0")
    """How many seats the table has (they never change in number)."""
    free_seats: Mapped[int] = mapped_column(Integer, nullable=False, default=0, server_default="0")
    """Human seats nobody holds."""
    humans: Mapped[list[str]] = mapped_column(
        JSON, nullable=False, default=list, server_default="[]"
    )
    """The names at the human seats, in seat order."""
    assistant_hash: Mapped[str | None] = mapped_column(String(64), nullable=True)
    """Set for a game played with real cards (an assisted table): SHA-256 of the token of the
    device that enters the cards. Such a table is not listed in the lobby."""
    coach: Mapped[bool] = mapped_column(
        Boolean, nullable=False, default=False, server_default=false()
    )
    """The table's creator allowed the coach for every seat."""
    away_seconds: Mapped[int] = mapped_column(
        Integer, nullable=False, default=120, server_default="120"
    )
    """Seconds a person must have been disconnected before a bot may be proposed for them."""


class SeatRow(Base):
    """A seat: a bot, a free human seat, or a human seat held by whoever has the token.
    Only a SHA-256 hash of the token is stored: a database dump does not hand out seats."""

    __tablename__ = "seats"

    table_id: Mapped[int] = mapped_column(
        ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True
    )
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String(5), nullable=False)
    bot: Mapped[str | None] = mapped_column(String(40), nullable=True)
    name: Mapped[str | None] = mapped_column(String(NAME_COLUMN), nullable=True)
    token_hash: Mapped[str | None] = mapped_column(String(64), nullable=True)
    away_since: Mapped[datetime | None] = mapped_column(DateTime(timezone=True), nullable=True)
    """When the seat's person left every socket (stored once they have been away a few
    seconds, cleared when they are back): a restarted server counts their absence from there."""


class ActionRow(Base):
    """One accepted change, numbered by the table's version it produced."""

    __tablename__ = "actions"

    table_id: Mapped[int] = mapped_column(
        ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True
    )
    seq: Mapped[int] = mapped_column(Integer, primary_key=True)
    game: Mapped[int] = mapped_column(Integer, nullable=False)
    kind: Mapped[str] = mapped_column(String(12), nullable=False)
    seat: Mapped[int | None] = mapped_column(Integer, nullable=True)
    card: Mapped[int | None] = mapped_column(Integer, nullable=True)
    row: Mapped[int | None] = mapped_column(Integer, nullable=True)
    data: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    """A deal's cards (``{"rows": [...], "hands": [[...], ...]}``); a join's name."""
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
