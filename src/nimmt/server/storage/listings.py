"""The listings read on SQL, each one query on the lobby's columns of ``tables`` (no replay, no
table loaded): the lobby's page of open tables, for
:meth:`~nimmt.server.storage.sql.SqlStorage.list_open`.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Engine, and_, or_, select

from nimmt.server.models import TableRow
from nimmt.server.storage.base import (
    OpenTable,
    as_utc,
    check_limit,
    decode_cursor,
    encode_cursor,
)


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
