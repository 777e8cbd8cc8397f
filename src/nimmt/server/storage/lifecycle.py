"""The stored tables' life cycle on SQL: the operator's list of every table, and retention (the
deletion of finished and abandoned tables past their days), for
:meth:`~nimmt.server.storage.sql.SqlStorage.stored_tables` and
:meth:`~nimmt.server.storage.sql.SqlStorage.purge`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import Connection, delete, or_, select
from sqlalchemy.orm import Session

from nimmt.server.models import ActionRow, SeatRow, TableRow
from nimmt.server.storage.base import SeatRecord, StoredTable, as_utc, expired

DELETE_CHUNK = 500
"""Tables per delete statement (SQLite caps the bound parameters)."""


def stored_tables(
    connection: Connection,
    *,
    finished_before: datetime | None = None,
    abandoned_before: datetime | None = None,
    only_expired: bool = False,
) -> list[tuple[int, StoredTable]]:
    """Every stored table (or, with ``only_expired``, those retention deletes), with its row
    id, oldest created first."""
    query = select(TableRow).order_by(TableRow.created_at, TableRow.id)
    if only_expired:
        conditions = []
        if finished_before is not None:
            conditions.append(
                TableRow.finished.is_(True) & (TableRow.last_active_at < as_utc(finished_before))
            )
        if abandoned_before is not None:
            conditions.append(
                TableRow.finished.is_(False) & (TableRow.last_active_at < as_utc(abandoned_before))
            )
        if not conditions:
            return []
        query = query.where(or_(*conditions))
    session = Session(bind=connection)  # ORM rows, in the caller's transaction
    rows = session.scalars(query).all()
    seats: dict[int, list[SeatRecord]] = defaultdict(list)
    ids = [row.id for row in rows]
    for start in range(0, len(ids), DELETE_CHUNK):
        chunk = ids[start : start + DELETE_CHUNK]
        for seat in session.scalars(
            select(SeatRow).where(SeatRow.table_id.in_(chunk)).order_by(SeatRow.seat)
        ):
            seats[seat.table_id].append(
                SeatRecord(seat.seat, seat.kind, seat.bot, seat.name, seat.token_hash)
            )
    found = [
        (
            row.id,
            StoredTable(
                code=row.code,
                created_at=as_utc(row.created_at),
                last_active_at=as_utc(row.last_active_at),
                finished=row.finished,
                phase=row.phase,
                game=row.game,
                round=row.round,
                seats=tuple(seats[row.id]),
                assisted=row.assistant_hash is not None,
            ),
        )
        for row in rows
    ]
    if only_expired:  # the same rule as the memory twin's, whatever the SQL above said
        found = [
            (table_id, table)
            for table_id, table in found
            if expired(table, finished_before, abandoned_before)
        ]
    return found


def purge(
    connection: Connection,
    *,
    finished_before: datetime | None,
    abandoned_before: datetime | None,
    keep: Sequence[str],
    dry_run: bool,
) -> list[StoredTable]:
    """Delete (in the caller's write transaction) the expired tables not in ``keep``."""
    kept = set(keep)
    due = [
        (table_id, table)
        for table_id, table in stored_tables(
            connection,
            finished_before=finished_before,
            abandoned_before=abandoned_before,
            only_expired=True,
        )
        if table.code not in kept
    ]
    if not dry_run:
        ids = [table_id for table_id, _table in due]
        for start in range(0, len(ids), DELETE_CHUNK):
            chunk = ids[start : start + DELETE_CHUNK]
            # Children first: no reliance on the foreign keys' cascade being switched on.
            connection.execute(delete(ActionRow).where(ActionRow.table_id.in_(chunk)))
            connection.execute(delete(SeatRow).where(SeatRow.table_id.in_(chunk)))
            connection.execute(delete(TableRow).where(TableRow.id.in_(chunk)))
    return [table for _table_id, table in due]
