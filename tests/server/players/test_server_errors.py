"""Every refused socket action through the real app: the sender gets an ``error`` with the
protocol's code (and its request id), the connection goes on, and the table is exactly as before
(version, every seat's view, the engine's events, the stored actions)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from starlette.testclient import TestClient, WebSocketTestSession
from tests.server.server_helpers import (
    Message,
    create_table,
    join,
    receive_until,
    service_of,
    snapshot,
)


@dataclass
class Duel:
    """Two people at a table without bots, so nothing moves unless the test moves it."""

    client: TestClient
    code: str
    sockets: list[WebSocketTestSession]
    spectator: WebSocketTestSession
    last: dict[int, Message] = field(default_factory=dict)
    """The newest state each socket has read (by ``id`` of the socket)."""

    @property
    def version(self) -> int:
        return service_of(self.client).book.tables[self.code].version

    def read_until(self, ws: WebSocketTestSession, wanted: Callable[[Message], bool]) -> Message:
        seen: list[Message] = []
        try:
            return receive_until(ws, wanted, seen)
        finally:
            for message in seen:
                if message["type"] == "state":
                    self.last[id(ws)] = message

    def state(self, ws: WebSocketTestSession, version: int) -> Message:
        """The socket's first state at ``version`` or later."""
        last = self.last.get(id(ws))
        if last is not None and last["version"] >= version:
            return last
        return self.read_until(ws, lambda m: m["type"] == "state" and m["version"] >= version)

    def states(self) -> list[Message]:
        """Each seat's state at the table's current version."""
        version = self.version
        return [self.state(ws, version) for ws in self.sockets]

    def states_after(self, version: int) -> list[Message]:
        return [self.state(ws, version + 1) for ws in self.sockets]

    def play_turn(self) -> None:
        """Both play their lowest card; a row choice takes the first row."""
        states = self.states()
        version = states[0]["version"]
        for seat, ws in enumerate(self.sockets):
            if states[seat]["view"]["must_choose_row"]:
                ws.send_json({"type": "choose_row", "row": 0})
                self.states_after(version)
                return
        for seat, ws in enumerate(self.sockets):
            ws.send_json({"type": "play", "card": min(states[seat]["view"]["legal_cards"])})
            # This seat's card is in before the next one completes the turn.
            self.state(ws, version + 1 + seat)

    def play_until(self, phase: str) -> list[Message]:
        for _ in range(500):
            states = self.states()
            if states[0]["view"]["phase"] == phase:
                return states
            assert states[0]["view"]["phase"] != "game_over", f"game ended before {phase}"
            self.play_turn()
        raise AssertionError(f"never reached {phase}")


@pytest.fixture
def duel(make_client) -> Iterator[Duel]:  # type: ignore[no-untyped-def]
    client: TestClient = make_client(deal_seed=3)
    code, ana = create_table(client, [{"kind": "human"}, {"kind": "human"}], "Ana")
    ben = join(client, code, "Ben")
    with (
        client.websocket_connect(f"/ws/{code}?token={ana}") as ws0,
        client.websocket_connect(f"/ws/{code}?token={ben}") as ws1,
        client.websocket_connect(f"/ws/{code}") as spectator,
    ):
        yield Duel(client, code, [ws0, ws1], spectator)


def refused(duel: Duel, ws: WebSocketTestSession, message: Any, code: str) -> Message:
    """Send ``message`` (a dict, or raw text); assert it is refused with ``code`` and changes
    nothing; then prove the connection still answers."""
    before = snapshot(duel.client, duel.code)
    if isinstance(message, str):
        ws.send_text(message)
    else:
        ws.send_json({**message, "request_id": 41})
    error = duel.read_until(ws, lambda m: m["type"] in ("error", "pong"))
    assert error["type"] == "error", error
    assert error["code"] == code, error
    assert isinstance(error["message"], str) and error["message"]
    if not isinstance(message, str):
        assert error["request_id"] == 41
    assert snapshot(duel.client, duel.code) == before
    ws.send_json({"type": "ping", "request_id": "alive"})
    assert duel.read_until(ws, lambda m: m["type"] == "pong") == {
        "type": "pong",
        "request_id": "alive",
    }
    return error


def test_refusals_while_cards_are_chosen(duel: Duel) -> None:
    states = duel.states()
    ana = duel.sockets[0]
    hand, other_hand = states[0]["view"]["hand"], states[1]["view"]["hand"]
    version = states[0]["version"]
    refused(duel, ana, "{not json", "malformed")
    refused(duel, ana, "[1, 2]", "malformed")
    refused(duel, ana, {"type": 5}, "malformed")
    refused(duel, ana, {"card": hand[0]}, "malformed")
    refused(duel, ana, {"type": "play"}, "malformed")
    refused(duel, ana, {"type": "play", "card": str(hand[0])}, "malformed")
    refused(duel, ana, {"type": "play", "card": True}, "malformed")
    refused(duel, ana, {"type": "play", "card": hand[0], "version": "7"}, "malformed")
    refused(duel, ana, {"type": "choose_row"}, "malformed")
    refused(duel, ana, {"type": "cheat"}, "unknown_type")
    refused(duel, ana, {"type": "play", "card": other_hand[0]}, "card_not_in_hand")
    # A message cannot act for another seat: "seat" is ignored, the card is still not Ana's.
    refused(duel, ana, {"type": "play", "card": other_hand[0], "seat": 1}, "card_not_in_hand")
    refused(duel, ana, {"type": "play", "card": 0}, "card_not_in_hand")
    error = refused(duel, ana, {"type": "play", "card": 105}, "card_not_in_hand")
    assert error["message"] == "105 is not in your hand."
    refused(duel, ana, {"type": "retract"}, "no_card_chosen")
    refused(duel, ana, {"type": "choose_row", "row": 1}, "no_row_choice_pending")
    refused(duel, ana, {"type": "rematch"}, "wrong_phase")
    refused(duel, ana, {"type": "play", "card": hand[0], "version": version - 1}, "stale_version")
    refused(duel, ana, {"type": "play", "card": hand[0], "version": version + 1}, "stale_version")
    refused(duel, duel.spectator, {"type": "play", "card": hand[0]}, "not_seated")
    refused(duel, duel.spectator, {"type": "retract"}, "not_seated")


def test_a_wrong_token_is_told_and_watches(duel: Duel) -> None:
    with duel.client.websocket_connect(f"/ws/{duel.code}?token=forged-token") as ws:
        error = ws.receive_json()
        assert error["type"] == "error" and error["code"] == "bad_token"
        state = ws.receive_json()
        assert state["type"] == "state" and state["you"] == {"seat": None}
        assert state["view"]["hand"] == []
        hand = duel.states()[0]["view"]["hand"]
        refused(duel, ws, {"type": "play", "card": hand[0]}, "bad_token")


def test_changing_the_chosen_card_until_all_have_chosen(duel: Duel) -> None:
    states = duel.states()
    ana, _ben = duel.sockets
    low, high = states[0]["view"]["hand"][0], states[0]["view"]["hand"][-1]
    version = states[0]["version"]
    ana.send_json({"type": "play", "card": low, "version": version})
    assert duel.states_after(version)[0]["view"]["chosen_card"] == low
    # Choosing the same card again changes nothing and is no error.
    before = snapshot(duel.client, duel.code)
    ana.send_json({"type": "play", "card": low, "version": version})
    ana.send_json({"type": "ping"})
    assert duel.read_until(ana, lambda m: m["type"] in ("pong", "error"))["type"] == "pong"
    assert snapshot(duel.client, duel.code) == before
    # A new card replaces the chosen one: one stored change, seen by Ben only as who, not what.
    ana.send_json({"type": "play", "card": high, "version": version})
    events = duel.read_until(duel.sockets[1], lambda m: m["type"] == "events")
    assert events["events"] == [
        {"type": "choice_withdrawn", "seat": 0},
        {"type": "card_chosen", "seat": 0},
    ]
    states = duel.states_after(version + 1)
    assert states[0]["view"]["chosen_card"] == high
    assert states[1]["view"]["chosen_card"] is None
    assert states[1]["view"]["has_chosen"] == [True, False]
    # Still Ana's choice: a card she no longer holds is refused, the chosen card stays.
    refused(duel, ana, {"type": "play", "card": states[1]["view"]["hand"][0]}, "card_not_in_hand")
    assert duel.states()[0]["view"]["chosen_card"] == high
    ana.send_json({"type": "retract"})
    assert duel.states_after(version + 2)[0]["view"]["chosen_card"] is None


def test_refusals_while_a_row_is_chosen(duel: Duel) -> None:
    states = duel.play_until("choosing_row")
    pending = states[0]["view"]["pending_row_choice"]
    chooser, other = duel.sockets[pending["seat"]], duel.sockets[1 - pending["seat"]]
    other_hand = states[1 - pending["seat"]]["view"]["hand"]
    assert states[pending["seat"]]["view"]["must_choose_row"]
    refused(duel, other, {"type": "choose_row", "row": 0}, "not_your_decision")
    refused(duel, other, {"type": "play", "card": other_hand[0]}, "wrong_phase")
    refused(duel, chooser, {"type": "choose_row", "row": 4}, "bad_row")
    refused(duel, chooser, {"type": "choose_row", "row": -1}, "bad_row")
    refused(duel, chooser, {"type": "choose_row", "row": "1"}, "malformed")
    refused(duel, chooser, {"type": "retract"}, "wrong_phase")
    refused(duel, duel.spectator, {"type": "choose_row", "row": 0}, "not_seated")
    # Nothing chooses for the person: the table still waits for the same decision.
    assert duel.states()[0]["view"]["pending_row_choice"] == pending
    chooser.send_json({"type": "choose_row", "row": 2, "version": states[0]["version"]})
    after = duel.states_after(states[0]["version"])
    assert after[0]["view"]["phase"] == "choosing_cards"
    assert after[0]["view"]["rows"][2][0] == pending["card"]


def test_refusals_after_game_over(duel: Duel) -> None:
    states = duel.play_until("game_over")
    ana, _ben = duel.sockets
    assert states[0]["view"]["outcome"] is not None
    refused(duel, ana, {"type": "play", "card": 50}, "game_over")
    refused(duel, ana, {"type": "choose_row", "row": 0}, "game_over")
    refused(duel, ana, {"type": "retract"}, "game_over")
    record = duel.client.get(f"/api/tables/{duel.code}/record")
    assert record.status_code == 200 and record.json()["players"] == ["Ana", "Ben"]
