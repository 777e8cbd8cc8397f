"""The publisher builds each distinct message of a change once, and still tells every listener
exactly its own view: a seat's hand to that seat alone, no hand to a spectator."""

from __future__ import annotations

import random
from datetime import UTC, datetime
from typing import Any

import orjson

from nimmt.engine import draw_deal
from nimmt.server import serialize
from nimmt.server.actions import ActionKind
from nimmt.server.publisher import apply_change, merge_queued, publish
from nimmt.server.serialize import Frame, encode
from nimmt.server.storage import ActionRecord, SeatRecord
from nimmt.server.table import RESYNC, Connection, LiveTable


def _table() -> tuple[LiveTable, dict[str, Connection]]:
    seats = [SeatRecord(seat, "human", None, name, f"hash{seat}") for seat, name in
             enumerate(("Ana", "Ben", "Cleo"))]  # fmt: skip
    seats.append(SeatRecord(3, "bot", "greedy", "Bot 4 (greedy)"))
    table = LiveTable("ABCDEF", datetime(2026, 12, 1, tzinfo=UTC), seats)
    listeners = {
        "ana phone": Connection(table.code, "a", 0),
        "ana laptop": Connection(table.code, "a", 0),
        "ben": Connection(table.code, "b", 1),
        "cleo": Connection(table.code, "c", 2),
        "tv": Connection(table.code, None, None),
        "guest": Connection(table.code, None, None),
    }
    table.connections.update(listeners.values())
    return table, listeners


def _deal(table: LiveTable) -> None:
    rows, hands = draw_deal(random.Random(5), 4)
    data = {"rows": [list(row) for row in rows], "hands": [list(hand) for hand in hands]}
    table.apply(ActionRecord(table.version + 1, 1, ActionKind.DEAL, None, None, None, data))


def _heard(connection: Connection) -> list[dict[str, Any]]:
    return connection.take()


def _wire(message: dict[str, Any]) -> Any:
    """What the socket sends, read back as a browser reads it."""
    return orjson.loads(encode(message))


def test_every_listener_gets_exactly_its_own_view_of_a_deal() -> None:
    table, listeners = _table()
    _deal(table)
    publish(table)
    heard = {name: _heard(connection) for name, connection in listeners.items()}
    for name, connection in listeners.items():
        events, state = heard[name]
        seat = connection.seat
        assert events["type"] == "events" and state["type"] == "state"
        # The same as the state built for this listener alone, byte for byte on the wire.
        alone = serialize.state_message(table, seat)
        assert _wire(state) == orjson.loads(orjson.dumps(alone))
        view = _wire(state)["view"]
        assert _wire(state)["you"] == {"seat": seat}
        dealt = [event for event in _wire(events)["events"] if event["type"] == "hand_dealt"]
        if seat is None:
            assert view["hand"] == [] and view["legal_cards"] == [] and dealt == []
        else:
            assert view["hand"] == list(table.game.hand(seat)) and len(view["hand"]) == 10
            assert [event["seat"] for event in dealt] == [seat]
            assert dealt[0]["cards"] == view["hand"]
    # Built once: one frame for a seat's two devices, one for every spectator; seats differ.
    assert heard["ana phone"][1] is heard["ana laptop"][1]
    assert heard["tv"][1] is heard["guest"][1]
    assert heard["ana phone"][1] is not heard["ben"][1]
    assert heard["ben"][0] is not heard["cleo"][0]  # each seat's own hand in its events
    assert heard["tv"][0] is heard["guest"][0]


def test_public_events_go_out_as_one_frame_and_nothing_is_told_twice() -> None:
    table, listeners = _table()
    _deal(table)
    publish(table)
    for connection in listeners.values():
        _heard(connection)
    card = table.game.hand(1)[0]
    table.apply(ActionRecord(table.version + 1, 1, ActionKind.PLAY, 1, card, None, None))
    publish(table)
    heard = {name: _heard(connection) for name, connection in listeners.items()}
    frames = {id(messages[0]) for messages in heard.values()}
    assert len(frames) == 1  # the card chosen face down: the same news for everybody
    told = heard["tv"][0]
    assert isinstance(told, Frame)
    assert _wire(told)["events"] == [{"type": "card_chosen", "seat": 1}]  # face down
    assert _wire(heard["ben"][1])["view"]["chosen_card"] == card
    assert _wire(heard["cleo"][1])["view"]["chosen_card"] is None
    assert _wire(heard["tv"][1])["view"]["has_chosen"] == [False, True, False, False]
    publish(table)  # nothing new: only the states again
    assert all([m["type"] for m in _heard(c)] == ["state"] for c in listeners.values())


def test_a_frame_is_written_once_and_reads_like_its_message() -> None:
    frame = Frame({"type": "events", "version": 3, "events": ({"type": "x", "ready": (0, 2)},)})
    text = frame.text
    assert frame.text is text  # written once
    assert orjson.loads(text) == {"type": "events", "version": 3,
                                  "events": [{"type": "x", "ready": [0, 2]}]}  # fmt: skip
    assert frame["version"] == 3 and encode(frame) is text
    assert encode({"type": "pong", "request_id": None}) == '{"type":"pong","request_id":null}'


def test_an_inline_listener_hears_each_change_as_one_state_holding_the_pair() -> None:
    """``events=inline``: one message per change, the same events and state as the pair a
    listener without it hears, for a seat and for a spectator, at a deal (a hand of its own)
    and at a face-down card."""
    table, listeners = _table()
    inline = {
        "ben": Connection(table.code, "b", 1, inline=True),
        "tv": Connection(table.code, None, None, inline=True),
    }
    table.connections.update(inline.values())
    _deal(table)
    publish(table)
    card = table.game.hand(2)[0]
    table.apply(ActionRecord(table.version + 1, 1, ActionKind.PLAY, 2, card, None, None))
    publish(table)
    for name, connection in inline.items():
        pairs = _heard(listeners[name])
        heard = _heard(connection)
        assert [m["type"] for m in heard] == ["state", "state"]
        assert [m["type"] for m in pairs] == ["events", "state"] * 2
        for one, (told, state) in zip(heard, (pairs[0:2], pairs[2:4]), strict=True):
            wire = _wire(one)
            assert wire.pop("events") == _wire(told)["events"]
            assert wire == _wire(state)


def test_an_inline_state_of_no_news_holds_no_events() -> None:
    table, _listeners = _table()
    _deal(table)
    publish(table)
    late = Connection(table.code, None, None, inline=True)
    table.connections.add(late)
    publish(table)  # nothing new happened: a state alone
    (state,) = _heard(late)
    assert "events" not in _wire(state)
    assert _wire(state)["view"]["hand"] == []


def _follow(held: dict[str, Any] | None, message: dict[str, Any]) -> dict[str, Any]:
    """What a ``changes`` client holds after ``message``, as docs/protocol.md says it applies
    one: a ``state`` whole, a ``change`` over the state it holds (its events aside)."""
    wire: dict[str, Any] = _wire(message)
    wire.pop("events", None)
    if wire["type"] == "state":
        return wire
    assert wire["type"] == "change" and held is not None
    return apply_change(held, wire)


def _one_action(table: LiveTable, rng: random.Random) -> None:
    """A random legal next step of the game: a row choice, a card, or the next deal."""
    game = table.game
    pending = game.view(None).pending_row_choice
    if pending is not None:
        action = ActionRecord(table.version + 1, 1, ActionKind.CHOOSE_ROW, pending.seat, None,
                              rng.randrange(4), None)  # fmt: skip
    elif game.waiting_for() and len(game.waiting_for()) < game.players and rng.random() < 0.2:
        # A card taken back, or exchanged, before everybody has chosen.
        seat = rng.choice([seat for seat in range(game.players) if seat not in game.waiting_for()])
        chosen = game.view(seat).chosen_card
        others = [card for card in game.view(seat).hand if card != chosen]
        if others and rng.random() < 0.5:
            action = ActionRecord(table.version + 1, 1, ActionKind.PLAY, seat, rng.choice(others),
                                  None, None)  # fmt: skip
        else:
            action = ActionRecord(table.version + 1, 1, ActionKind.RETRACT, seat, None, None, None)
    elif game.waiting_for():
        seat = rng.choice(list(game.waiting_for()))
        card = rng.choice(list(game.view(seat).legal_cards()))
        action = ActionRecord(table.version + 1, 1, ActionKind.PLAY, seat, card, None, None)
    else:
        _deal(table)
        return
    table.apply(action)


def test_a_changes_listener_holds_exactly_the_whole_state_after_every_change() -> None:
    """``events=changes``: applying each ``change`` over the state held gives, after every
    change of two rounds, the very state a listener of whole states gets (a seat, another
    seat's two devices, a spectator; one listener connected late, one whose queue overflowed,
    one whose seat changed hands), with the same events; a face-down card is one frame for
    every listener but its player's, and it does not repeat the rows."""
    table, others = _table()
    rng = random.Random(8)
    followers = {
        "ana": Connection(table.code, "a", 0, changes=True),
        "ben phone": Connection(table.code, "b", 1, changes=True),
        "ben laptop": Connection(table.code, "b", 1, changes=True),
        "tv": Connection(table.code, None, None, changes=True),
        "slow": Connection(table.code, "c", 2, changes=True, max_queue=3),
    }
    table.connections.update(followers.values())
    held: dict[str, dict[str, Any] | None] = dict.fromkeys(followers)
    reference = Connection(table.code, None, None, inline=True)  # a spectator of whole states
    table.connections.add(reference)
    late = Connection(table.code, None, None, changes=True)
    _deal(table)
    publish(table)
    reference.take()
    for name, connection in followers.items():
        (dealt,) = connection.take()
        held[name] = _follow(None, dealt)
    steps = 0
    while table.game.round <= 2 and table.game.outcome is None:
        _one_action(table, rng)
        steps += 1
        if steps == 7:
            table.connections.add(late)
            followers["late"] = late
            held["late"] = None
        if steps == 11:
            followers["ben laptop"].seat = None  # a seat that changed hands: it now watches
        if steps == 15:  # Ben's phone goes, and his other socket: seat 1 is connected nowhere
            table.connections.discard(followers.pop("ben phone"))
            table.connections.discard(others["ben"])
        if steps == 19:  # and comes back
            followers["ben phone"] = Connection(table.code, "b", 1, changes=True)
            table.connections.add(followers["ben phone"])
            held["ben phone"] = None
        publish(table)
        (whole_state,) = reference.take()
        for name, connection in followers.items():
            if name == "slow" and 20 <= steps < 26:
                continue  # it stops reading for a while: its queue overflows
            messages = connection.take()
            if messages and messages[0] is RESYNC:
                messages[0] = serialize.state_message(table, connection.seat)
            if name == "slow":  # what it missed while it did not read comes in one message
                assert len(merge_queued(messages)) <= 1
            messages = merge_queued(messages)  # as the socket's sender does
            for message in messages:
                held[name] = _follow(held[name], message)
            whole = _wire(serialize.state_message(table, connection.seat))
            assert held[name] == whole, (name, steps)
            seat_1 = whole["table"]["seats"][1]
            assert seat_1["connected"] is not (15 <= steps < 19), (name, steps)
            if name == "tv" and messages:
                assert _wire(messages[-1]).get("events") == _wire(whole_state).get("events")
    assert steps > 40
    assert followers["slow"].overflows > 0
    # A card chosen face down: one frame for every follower but the one who chose it.
    assert table.game.round == 3 and 1 in table.game.waiting_for()  # round 3 just dealt
    card = table.game.view(1).legal_cards()[0]
    table.apply(ActionRecord(table.version + 1, 1, ActionKind.PLAY, 1, card, None, None))
    publish(table)
    told = {name: connection.take() for name, connection in followers.items()}
    assert told["ana"][0] is told["tv"][0] is told["late"][0] is told["slow"][0]
    assert told["ben phone"][0] is not told["ana"][0]
    change = _wire(told["ana"][0])
    assert change["type"] == "change" and "rows" not in change["view"]
    assert change["events"] == [{"type": "card_chosen", "seat": 1}]
    assert _wire(told["ben phone"][0])["view"]["chosen_card"] == card


def test_what_a_change_left_as_it_was_is_the_very_object_told_before() -> None:
    """Successive news share every value that did not change (so that the copies a busy server
    builds die at once instead of outliving the collector's passes); what changed is new."""
    table, _ = _table()
    watcher = Connection(table.code, None, None, inline=True)
    player = Connection(table.code, "b", 1, inline=True)
    table.connections.update((watcher, player))
    _deal(table)
    publish(table)
    (before,) = watcher.take()
    (ben_before,) = player.take()
    card = table.game.view(0).legal_cards()[0]
    table.apply(ActionRecord(table.version + 1, 1, ActionKind.PLAY, 0, card, None, None))
    publish(table)
    (after,) = watcher.take()
    (ben_after,) = player.take()
    for key in ("rows", "names", "score_sheet", "totals", "round_rows"):
        assert after["view"][key] is before["view"][key], key
    assert after["table"]["seats"] is before["table"]["seats"]
    assert after["view"]["has_chosen"] != before["view"]["has_chosen"]
    assert ben_after["view"]["hand"] is ben_before["view"]["hand"]  # another seat's card
    assert _wire(after)["view"] == _wire(serialize.state_message(table, None))["view"]


def test_a_changes_listener_hears_nothing_when_nothing_changed() -> None:
    table, _ = _table()
    follower = Connection(table.code, "a", 0, changes=True)
    table.connections.add(follower)
    _deal(table)
    publish(table)
    assert [m["type"] for m in follower.take()] == ["state"]
    publish(table)  # nothing new
    assert follower.take() == []


def test_queued_changes_are_told_as_one_and_other_messages_keep_their_place() -> None:
    state = Frame({"type": "state", "version": 4, "you": {"seat": 0}, "table": {"a": 1},
                   "view": {"x": 1, "y": 1}})  # fmt: skip
    first = Frame({"type": "change", "version": 5, "events": [{"type": "e1"}], "view": {"x": 2}})
    second = Frame({"type": "change", "version": 6, "table": {"a": 2}, "view": {"y": 3}})
    pong = {"type": "pong", "request_id": 7}
    third = Frame({"type": "change", "version": 7, "events": [{"type": "e2"}]})
    fourth = Frame({"type": "change", "version": 8, "view": {"x": 4}})
    merged = merge_queued([state, first, second, pong, third, fourth])
    assert merged == [
        {"type": "state", "version": 6, "you": {"seat": 0}, "table": {"a": 2},
         "view": {"x": 2, "y": 3}, "events": [{"type": "e1"}]},
        pong,
        {"type": "change", "version": 8, "events": [{"type": "e2"}], "view": {"x": 4}},
    ]  # fmt: skip
    assert state == {"type": "state", "version": 4, "you": {"seat": 0}, "table": {"a": 1},
                     "view": {"x": 1, "y": 1}}  # fmt: skip
    assert first["view"] == {"x": 2}  # the frames others share are left as they were


def test_a_change_applies_over_what_the_client_holds_and_leaves_it_be() -> None:
    held = {"type": "state", "version": 4, "table": {"a": 1, "b": 2}, "view": {"x": 1, "y": 2}}
    before = orjson.dumps(held)
    applied = apply_change(held, {"type": "change", "version": 5, "view": {"y": 3}})
    assert applied == {
        "type": "state",
        "version": 5,
        "table": {"a": 1, "b": 2},
        "view": {"x": 1, "y": 3},
    }
    assert orjson.dumps(held) == before
