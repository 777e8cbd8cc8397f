"""Messages sent twice, replayed late, or made up at random: each gets exactly one documented
answer, and a refused one changes nothing (the in-process app, compared by ``snapshot``)."""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient, WebSocketTestSession
from tests.server.server_helpers import (
    Message,
    create_table,
    join,
    receive_until,
    service_of,
    snapshot,
)

GREEDY = {"kind": "bot", "bot": "greedy"}
DOC = Path(__file__).resolve().parents[3] / "docs" / "protocol.md"


def documented_codes() -> set[str]:
    """The error codes of docs/protocol.md's table of error codes."""
    text = DOC.read_text()
    table = text[text.index("### Error codes") : text.index("## Limits and security")]
    return set(re.findall(r"`([a-z_]+)`", table)) - {"code", "play", "retract", "rematch"}


CODES = documented_codes()


def settled(ws: WebSocketTestSession) -> Message:
    """Read until the bot has chosen and the table waits for people only; that state."""
    return receive_until(
        ws, lambda m: m["type"] == "state" and not set(m["view"]["waiting_for"]) & {2}
    )


def answers(ws: WebSocketTestSession, tag: str) -> list[Message]:
    """Everything sent before the ``pong`` to a ``ping`` tagged ``tag`` (sent just now)."""
    ws.send_json({"type": "ping", "request_id": tag})
    seen: list[Message] = []
    receive_until(ws, lambda m: m["type"] == "pong" and m["request_id"] == tag, seen)
    return seen[:-1]


def stored(before: Message, after: Message) -> list[Any]:
    added: list[Any] = after["stored"][len(before["stored"]) :]
    return added


def test_duplicated_and_replayed_messages(make_client: Callable[..., TestClient]) -> None:
    client = make_client(deal_seed=11)
    code, ana_token = create_table(client, [{"kind": "human"}, {"kind": "human"}, GREEDY])
    ben_token = join(client, code, "Ben")
    with (
        client.websocket_connect(f"/ws/{code}?token={ana_token}") as ana,
        client.websocket_connect(f"/ws/{code}?token={ben_token}") as ben,
    ):
        state = settled(ana)
        settled(ben)
        # The same play twice: the second changes nothing and is no error.
        before = snapshot(client, code)
        play = {
            "type": "play",
            "card": state["view"]["legal_cards"][0],
            "version": state["version"],
        }
        ana.send_json(play)
        ana.send_json(play)
        seen = answers(ana, "p")
        # (a presence-only state of the old version may come first)
        fresh = [m["type"] for m in seen if m.get("version") != state["version"]]
        assert fresh == ["events", "state"], seen
        assert not [m for m in seen if m["type"] == "error"]
        after = snapshot(client, code)
        assert [(a.kind, a.seat, a.card) for a in stored(before, after)] == [
            ("play", 0, play["card"])
        ]
        ana.send_json(play)
        assert answers(ana, "p2") == []
        assert snapshot(client, code) == after

        # Play on (lowest cards) until a person must choose a row; Ana's first play, replayed
        # with its old version after the turn resolved, is stale.
        ana_state = [m for m in seen if m["type"] == "state"][-1]
        ben_state = receive_until(
            ben, lambda m: m["type"] == "state" and m["version"] == ana_state["version"]
        )
        chooser, version = play_to_row_choice([ana, ben], [ana_state, ben_state])
        before = snapshot(client, code)
        ana.send_json({**play, "request_id": "old"})
        seen = answers(ana, "s")
        # (earlier events and states may still be queued; nothing new comes)
        assert [
            (m["type"], m.get("code"), m.get("request_id")) for m in seen if "version" not in m
        ] == [("error", "stale_version", "old")]
        assert snapshot(client, code) == before

        # A row choice sent twice (and once more without a version): only the first counts.
        choose = {"type": "choose_row", "row": 1, "version": version}
        chooser.send_json(choose)
        chooser.send_json(choose)
        chooser.send_json({"type": "choose_row", "row": 2})
        seen = answers(chooser, "r")
        errors = [m["code"] for m in seen if m["type"] == "error"]
        assert len(errors) == 2 and set(errors) <= {"stale_version", "no_row_choice_pending"}
        table = service_of(client).book.tables[code]
        for step in range(500):  # the bot plays the next turn
            answers(ana, f"b{step}")
            if 2 not in table.game.waiting_for():
                break
        after = snapshot(client, code)
        rows = [a for a in stored(before, after) if a.kind == "choose_row"]
        assert len(rows) == 1 and rows[0].row == 1
        chooser.send_json(choose)
        again = [m.get("code") for m in answers(chooser, "r2") if m["type"] == "error"]
        assert again in (["stale_version"], ["no_row_choice_pending"])
        assert snapshot(client, code) == after


def play_to_row_choice(
    sockets: list[WebSocketTestSession], states: list[Message]
) -> tuple[WebSocketTestSession, int]:
    """Both people play their lowest card each turn until one must choose a row: that socket
    and the version of its state."""
    latest = dict(enumerate(states))
    acted: set[tuple[int, Any]] = set()
    for step in range(2000):
        for index, ws in enumerate(sockets):
            for message in answers(ws, f"t{step}"):
                if message["type"] == "state":
                    latest[index] = message
        for index, ws in enumerate(sockets):
            view = latest[index]["view"]
            if view["must_choose_row"]:
                return ws, latest[index]["version"]
            key = (index, (view["round"], view["turn"]))
            if view["legal_cards"] and key not in acted:
                acted.add(key)
                ws.send_json({"type": "play", "card": view["legal_cards"][0]})
    raise AssertionError("nobody ever had to choose a row")


# ------------------------------------------------------------------------- random messages

REAL_TYPES = ["play", "retract", "choose_row", "rematch", "ping"]
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
field_values = st.one_of(
    json_values,
    st.integers(min_value=-5, max_value=110),
    st.sampled_from(["NaN", "Infinity", "-1", "1e999", "", "42"]),
)
actions = st.fixed_dictionaries(
    {"type": st.sampled_from(REAL_TYPES) | st.text(max_size=12)},
    optional={
        "card": field_values,
        "row": field_values,
        "version": field_values,
        "request_id": field_values,
    },
).filter(lambda m: m["type"] != "leave")  # (a real action, which hands the seat to a bot)


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


plain_actions = st.one_of(
    st.integers(min_value=1, max_value=104).map(lambda c: {"type": "play", "card": c}),
    st.just({"type": "retract"}),
)
frames = st.one_of(
    plain_actions.map(lambda m: ("text", json.dumps(m))),
    actions.map(lambda m: ("text", json.dumps(m))),
    json_values.map(lambda v: ("text", json.dumps(v))),
    st.text(max_size=40).map(lambda t: ("text", t)),
    st.sampled_from(
        [
            "NaN",
            '{"type": "play", "card": NaN}',
            '{"type": "play", "card": 1e999}',
            "{",
            "",
            nested(1500),
            nested(3000),
            '{"type": "ping"' + " " * 5000 + "}",
        ]
    ).map(lambda t: ("text", t)),
    st.binary(max_size=40).map(lambda b: ("bytes", b)),
    actions.map(lambda m: ("bytes", json.dumps(m).encode())),
)


def expected_to_pass(frame: tuple[str, Any], view: Message) -> bool:
    """The message is a valid action that changes the table (the oracle)."""
    try:
        data = json.loads(frame[1], parse_constant=lambda name: math.nan)
    except (ValueError, RecursionError, UnicodeDecodeError):
        return False
    if not isinstance(data, dict) or len(str(frame[1])) > 4096:
        return False
    version = data.get("version")
    if version is not None:  # only a version of the current decision would do
        return False
    card = data.get("card")
    if data.get("type") == "play":
        return (
            isinstance(card, int)
            and not isinstance(card, bool)
            and card in view["hand"]
            and card != view["chosen_card"]
        )
    return data.get("type") == "retract" and view["chosen_card"] is not None


def test_random_messages_get_one_documented_answer(
    make_client: Callable[..., TestClient],
) -> None:
    client = make_client(deal_seed=12)
    code, ana_token = create_table(client, [{"kind": "human"}, {"kind": "human"}, GREEDY])
    join(client, code, "Ben")  # Ben never plays: the turn never resolves
    counter = iter(range(10**6))
    outcomes: Counter[str] = Counter()
    with client.websocket_connect(f"/ws/{code}?token={ana_token}") as ana:
        hand = settled(ana)["view"]["hand"]
        answers(ana, "start")
        own_cards = st.sampled_from(hand).map(
            lambda c: ("text", json.dumps({"type": "play", "card": c}))
        )

        @settings(
            max_examples=200,
            deadline=None,
            derandomize=True,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
        )
        @given(st.one_of(frames, own_cards))
        def check(frame: tuple[str, Any]) -> None:
            before = snapshot(client, code)
            view = before["views"][1]
            valid = expected_to_pass(frame, view)
            kind, payload = frame
            if kind == "bytes":
                ana.send_bytes(payload)
            else:
                ana.send_text(payload)
            seen = answers(ana, f"x{next(counter)}")
            after = snapshot(client, code)
            errors = [m for m in seen if m["type"] == "error"]
            outcomes.update(m["code"] if "code" in m else m["type"] for m in seen)
            pongs = [m for m in seen if m["type"] == "pong"]
            assert all(m["type"] in ("error", "pong", "events", "state") for m in seen), seen
            for error in errors:
                assert error["code"] in CODES, error
                assert isinstance(error["message"], str)
            if errors:
                assert len(seen) == 1, seen
                assert after == before
                assert not valid, (frame, errors)
            elif pongs:
                assert len(seen) == 1 and after == before
            elif seen:
                assert [m["type"] for m in seen] == ["events", "state"], (frame, seen)
                assert after["version"] == before["version"] + 1
                assert valid, frame
            else:  # only the card already chosen, again
                assert after == before
                assert not valid, frame

        check()
    # The examples reached far: accepted actions and many kinds of refusal.
    assert outcomes["events"] >= 1, outcomes
    assert {"malformed", "unknown_type", "card_not_in_hand", "too_large"} <= set(outcomes)
