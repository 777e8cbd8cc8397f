"""The listings read on SQL, each one query on the lobby's columns of ``tables`` (no replay, no
table loaded): the lobby's page of open tables and a group's open tables, for
:meth:`~nimmt.server.storage.sql.SqlStorage.list_open` and
:meth:`~nimmt.server.storage.sql.SqlStorage.list_group_open`.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import Engine, and_, or_, select

from nimmt.server.models import SeatRow, TableRow
from nimmt.server.storage.base import (
    GroupTable,
    OpenTable,
    as_utc,
    check_limit,
    decode_cursor,
    encode_cursor,
)
from nimmt.server.storage.people_sql import group_tables


def list_open(
    engine: Engine, *, limit: int, cursor: str | None, active_since: datetime
) -> tuple[list[OpenTable], str | None]:
    """:meth:`~nimmt.server.storage.base.Storage.list_open` in ``engine``'s database."""
    check_limit(limit)
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
            TableRow.last_active_at >= as_utc(active_since),
            TableRow.assistant_hash.is_(None),  # an assisted table is followed by its link
        )
        .order_by(TableRow.created_at.desc(), TableRow.id.desc())
        .limit(limit + 1)
    )
    if cursor is not None:
        created, table_id = decode_cursor(cursor)
        created = as_utc(created)
        query = query.where(
            or_(
                TableRow.created_at < created,
                and_(TableRow.created_at == created, TableRow.id < table_id),
            )
        )
    with engine.connect() as connection:
        rows = connection.execute(query).all()
    lines = [
        OpenTable(
            code,
            seat_count,
            free,
            tuple(humans),
            phase,
            round_,
            as_utc(created),
        )
        for _id, code, created, free, humans, phase, round_, seat_count in rows[:limit]
    ]
    if len(rows) <= limit:
        return lines, None
    last = rows[limit - 1]
    return lines, encode_cursor(last.created_at, last.id)


def list_group_open(
    engine: Engine, group: str, *, limit: int, active_since: datetime
) -> list[GroupTable]:
    """:meth:`~nimmt.server.storage.base.Storage.list_group_open` in ``engine``'s database: the
    group's tables (``group_tables`` by group) with the lobby's columns, and the names at the
    seats of those played with real cards (the lobby's ``humans`` holds those of human seats
    only), in one query."""
    check_limit(limit)
    opened = (
        select(
            TableRow.id,
            TableRow.code,
            TableRow.created_at,
            TableRow.seat_count,
            TableRow.free_seats,
            TableRow.humans,
            TableRow.phase,
            TableRow.round,
            TableRow.game,
            TableRow.assistant_hash.is_not(None).label("real_cards"),
        )
        .join(group_tables, group_tables.c.table_code == TableRow.code)
        .where(
            group_tables.c.group_code == group,
            TableRow.finished.is_(False),
            TableRow.last_active_at >= as_utc(active_since),
        )
        .order_by(TableRow.created_at.desc(), TableRow.id.desc())
        .limit(limit)
        .subquery()
    )
    query = (
        select(opened, SeatRow.name.label("player"))
        .outerjoin(SeatRow, and_(SeatRow.table_id == opened.c.id, opened.c.real_cards))
        .order_by(opened.c.created_at.desc(), opened.c.id.desc(), SeatRow.seat)
    )
    with engine.connect() as connection:
        rows = connection.execute(query).all()
    heads: dict[int, Any] = {}
    real_players: dict[int, list[str]] = {}
    for row in rows:  # a real-cards table's row comes once per seat
        heads.setdefault(row.id, row)
        if row.player is not None:
            real_players.setdefault(row.id, []).append(row.player)
    return [
        GroupTable(
            row.code,
            row.seat_count,
            row.free_seats,
            tuple(real_players.get(table_id, ())) if row.real_cards else tuple(row.humans),
            row.phase,
            row.round,
            row.game,
            as_utc(row.created_at),
            bool(row.real_cards),
        )
        for table_id, row in heads.items()
    ]
