"""The in-memory twin of the SQL backend (for tests): the same contract and the same checks,
kept in a dict under a lock.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime

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
    check_limit,
    decode_cursor,
    encode_cursor,
    expired,
    lobby_seats,
)
from nimmt.server.storage.people_memory import MemoryPeople
from nimmt.server.storage.talk_memory import MemoryTalk


@dataclass(slots=True)
class _MemoryTable:
    id: int
    record: TableRecord
    actions: list[ActionRecord]


class MemoryStorage:
    """The in-memory twin of :class:`SqlStorage`, with the same checks (for tests)."""

    commit_interval = 0.0
    """Nothing to gather for: a change costs the same alone."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._tables: dict[str, _MemoryTable] = {}
        self._next_id = 1
        self.people = MemoryPeople(self._rename_seat)
        self.talk = MemoryTalk(lambda code: code in self._tables)

    def _rename_seat(self, code: str, seat: int, name: str) -> None:
        """A deleted profile's seat: its name, and the name in its join actions."""
        with self._lock:
            held = self._tables.get(code)
            if held is None:
                return
            seats = tuple(replace(s, name=name) if s.seat == seat else s for s in held.record.seats)
            held.record = replace(held.record, seats=seats)
            held.actions = [
                replace(a, data={**(a.data or {}), "name": name})
                if a.kind == "join" and a.seat == seat
                else a
                for a in held.actions
            ]

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
            raise TableGoneError(f"no table {code}")
        table = held.record
        if action.seq != table.status.version + 1 or status.version != action.seq:
            raise VersionConflictError(f"table {code} is at version {table.status.version}")
        seats = table.seats
        away = table.away_since
        if seat is not None:
            if all(old.seat != seat.seat for old in seats):
                raise StorageError(f"no seat {seat.seat} at table {code}")
            seats = tuple(seat if old.seat == seat.seat else old for old in seats)
            away = {other: since for other, since in away.items() if other != seat.seat}
        if status.last_active_at is None:
            status = replace(status, last_active_at=table.status.last_active_at)
        stored = replace(action, data=copy.deepcopy(dict(action.data)) if action.data else None)
        held.actions.append(stored)
        held.record = replace(table, seats=seats, status=status, away_since=away)

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

    def mark_away(self, code: str, seat: int, since: datetime | None) -> None:
        with self._lock:
            held = self._tables.get(code)
            if held is None or all(old.seat != seat for old in held.record.seats):
                return
            away = dict(held.record.away_since)
            if since is None:
                away.pop(seat, None)
            else:
                away[seat] = as_utc(since)
            held.record = replace(held.record, away_since=away)

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
        check_limit(limit)
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

    def list_group_open(
        self, group: str, *, limit: int, active_since: datetime
    ) -> list[GroupTable]:
        check_limit(limit)
        codes = self.people.tables_of_group(group)
        with self._lock:
            found = sorted(
                (held for held in self._active(active_since) if held.record.code in codes),
                key=lambda held: (held.record.created_at, held.id),
                reverse=True,
            )
        return [_group_line(held.record) for held in found[:limit]]

    def active_codes(self, since: datetime) -> list[str]:
        with self._lock:
            return [held.record.code for held in sorted(self._active(since), key=lambda h: h.id)]

    def close(self) -> None:
        pass

    def stored_tables(self) -> list[StoredTable]:
        with self._lock:
            held = sorted(self._tables.values(), key=lambda t: (t.record.created_at, t.id))
            return [_stored(table.record) for table in held]

    def purge(
        self,
        *,
        finished_before: datetime | None,
        abandoned_before: datetime | None,
        keep: Sequence[str] = (),
        dry_run: bool = False,
    ) -> list[StoredTable]:
        with self._lock:
            due = [
                _stored(held.record)
                for held in sorted(self._tables.values(), key=lambda t: (t.record.created_at, t.id))
                if held.record.code not in keep
                and expired(_stored(held.record), finished_before, abandoned_before)
            ]
            if not dry_run:
                for table in due:
                    del self._tables[table.code]
                    self.talk.forget(table.code)
                    self.people.forget_table(table.code)
            return due


def _group_line(record: TableRecord) -> GroupTable:
    """The table's line on its group's page (:meth:`MemoryStorage.list_group_open`)."""
    real = record.assistant_hash is not None
    free, humans = lobby_seats(record.seats)
    if real:
        humans = [seat.name for seat in record.seats if seat.name is not None]
    status = record.status
    return GroupTable(
        record.code,
        len(record.seats),
        free,
        tuple(humans),
        status.phase,
        status.round,
        status.game,
        record.created_at,
        real,
    )


def _stored(record: TableRecord) -> StoredTable:
    status = record.status
    return StoredTable(
        code=record.code,
        created_at=as_utc(record.created_at),
        last_active_at=as_utc(status.last_active_at or record.created_at),
        finished=status.finished,
        phase=status.phase,
        game=status.game,
        round=status.round,
        seats=record.seats,
        assisted=record.assistant_hash is not None,
    )
