"""Who is present, across processes (issue 19): a seat connected to another process counts as
present as long as that process keeps saying so on the bus; its absence counts from when it
stopped; a presence message that is not a list of seats is ignored."""

from __future__ import annotations

from tests.server.absence.absence_helpers import FakeClock

from nimmt.server.bus import _seats
from nimmt.server.standins import REMOTE_FRESH_SECONDS, Presence


def test_a_seat_held_by_another_process_is_present_until_it_says_otherwise() -> None:
    clock = FakeClock()
    presence = Presence(clock=clock)
    presence.heard("other", frozenset({0, 2}), here=set())
    clock.advance(300)
    presence.heard("other", frozenset({0, 2}), here=set())  # said again every few seconds
    assert presence.away_for(0, set()) is None
    presence.heard("other", frozenset({2}), here=set())  # seat 0 closed its page there
    for _ in range(18):  # the other process says it again every five seconds
        clock.advance(5)
        presence.heard("other", frozenset({2}), here=set())
    assert presence.away_for(0, set()) == 90
    assert presence.away_for(2, set()) is None
    assert presence.away_for(0, {0}) is None  # back, here


def test_a_process_that_falls_silent_stops_counting() -> None:
    clock = FakeClock()
    presence = Presence(clock=clock)
    presence.heard("gone", frozenset({1}), here=set())
    clock.advance(REMOTE_FRESH_SECONDS)
    assert presence.away_for(1, set()) is None
    clock.advance(1)
    assert presence.away_for(1, set()) == 0  # from now on it counts
    clock.advance(120)
    assert presence.away_for(1, set()) == 120


def test_only_a_list_of_seats_is_a_presence_message() -> None:
    assert _seats("[0, 3]") == [0, 3]
    assert _seats("[]") == []
    for payload in ("", "{}", "[true]", '["0"]', "[0.5]", "not json"):
        assert _seats(payload) is None
