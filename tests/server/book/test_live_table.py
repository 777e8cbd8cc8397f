"""A table in memory: whether every seat is taken and whether a person still plays there follow
each seat's change, and a replay leaves them as the stored seats say."""

from __future__ import annotations

from datetime import UTC, datetime

from nimmt.server.actions import ActionKind
from nimmt.server.storage import ActionRecord, SeatRecord
from nimmt.server.table import LiveTable


def _seat_change(table: LiveTable, kind: ActionKind, seat: int, **data: object) -> None:
    table.apply(ActionRecord(table.version + 1, 1, kind, seat, None, None, dict(data)))


def _table() -> LiveTable:
    seats = [SeatRecord(0, "human"), SeatRecord(1, "bot", "greedy", "Bot 2 (greedy)")]
    return LiveTable("ABCDEF", datetime(2026, 12, 1, tzinfo=UTC), seats)


def test_full_and_people_follow_joins_and_leaves() -> None:
    table = _table()
    assert (table.full, table.has_people) == (False, True)
    _seat_change(table, ActionKind.JOIN, 0, name="Ana", token_hash="hash0")
    assert (table.full, table.has_people) == (True, True)
    _seat_change(table, ActionKind.LEAVE, 0, bot=None)  # before the deal: free again
    assert (table.full, table.has_people) == (False, True)
    _seat_change(table, ActionKind.JOIN, 0, name="Ben", token_hash="hash1")
    assert table.full
    _seat_change(table, ActionKind.LEAVE, 0, bot="greedy")  # a bot plays on for Ben
    assert (table.full, table.has_people) == (True, False)


def test_a_replay_keeps_the_stored_seats_and_what_follows_from_them() -> None:
    table = _table()
    join = ActionRecord(1, 1, ActionKind.JOIN, 0, None, None, {"name": "Ana", "token_hash": "h"})
    assert not table.full
    # The stored seats (a free seat here) stay, whatever the replayed actions did to them.
    table.replay([join], 1)
    assert not table.full
    table.seats = [SeatRecord(0, "human", None, "Ana", "h"), table.seats[1]]
    assert table.full
