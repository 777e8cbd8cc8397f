"""Assisted tables (a game played with real cards, entered on one device) through the real app's
routes and sockets: a whole seeded game entered and watched live, every refused entry changing
nothing, undo across a row choice, a restart on the same database, and the record replayed by
``nimmt replay --json``."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient, WebSocketTestSession
from tests.server.server_helpers import Message, create_table, receive_until, service_of, snapshot

from nimmt.engine import Game, Phase, draw_deal
from nimmt.server.storage import SqlStorage

NIMMT = Path(sys.executable).with_name("nimmt")
NAMES = ["Ana", "Ben", "Cleo"]


@dataclass(frozen=True)
class Entry:
    """One message the assistant's device sends."""

    type: str  # "assist_rows", "assist_turn", "assist_row"
    cards: tuple[int, ...] = ()
    row: int | None = None

    def message(self) -> Message:
        if self.type == "assist_row":
            return {"type": self.type, "row": self.row}
        return {"type": self.type, "cards": list(self.cards)}


def seeded_game(seed: int, players: int = len(NAMES)) -> tuple[list[Entry], Game]:
    """A whole game played through the engine with random legal cards and random row choices,
    as the entries a person would make at the real table."""
    rng = random.Random(seed)
    game = Game(players)
    entries: list[Entry] = []
    while game.phase is not Phase.GAME_OVER:
        rows, hands = draw_deal(rng, players)
        game.apply_deal(rows, hands)
        entries.append(Entry("assist_rows", tuple(row[0] for row in rows)))
        while game.phase is Phase.CHOOSING_CARDS:
            cards = [rng.choice(game.hand(seat)) for seat in range(players)]
            entries.append(Entry("assist_turn", tuple(cards)))
            row = None
            if game.round_state().needs_row_choice(cards):
                row = rng.randrange(4)
                entries.append(Entry("assist_row", row=row))
            game.play_turn(cards, row)
    return entries, game


def create_assisted(client: TestClient, names: list[str] = NAMES) -> tuple[str, str]:
    answer = client.post("/api/assisted", json={"names": names})
    assert answer.status_code == 201, answer.text
    body = answer.json()
    assert body["url"] == f"/t/{body['code']}"
    return body["code"], body["token"]


def state_after(ws: WebSocketTestSession, version: int) -> Message:
    """The first state newer than ``version`` (an error on the way fails the test)."""
    message = receive_until(
        ws, lambda m: m["type"] == "error" or (m["type"] == "state" and m["version"] > version)
    )
    assert message["type"] == "state", message
    return message


def state_of(version: int) -> Callable[[Message], bool]:
    return lambda m: m["type"] == "state" and m["version"] == version


def error_of(ws: WebSocketTestSession, message: Message) -> Message:
    ws.send_json(message)
    answer = receive_until(ws, lambda m: m["type"] in ("error", "state"))
    assert answer["type"] == "error", answer
    return answer


@pytest.fixture
def client(make_client: Any) -> TestClient:
    made: TestClient = make_client()
    return made


@pytest.fixture
def table(client: TestClient) -> Iterator[tuple[str, WebSocketTestSession, Message]]:
    """An assisted table, its assistant's socket, and the first state."""
    code, token = create_assisted(client)
    with client.websocket_connect(f"/ws/{code}?token={token}") as ws:
        first = receive_until(ws, lambda m: m["type"] in ("state", "error"))
        assert first["type"] == "state", first
        yield code, ws, first


def enter(ws: WebSocketTestSession, entries: list[Entry], version: int) -> Message:
    state: Message = {"version": version}
    for entry in entries:
        ws.send_json(entry.message())
        state = state_after(ws, state["version"])
    return state


def test_a_whole_game_is_entered_and_watched_live(client: TestClient, tmp_path: Path) -> None:
    entries, played = seeded_game(5)
    assert any(entry.type == "assist_row" for entry in entries)
    code, token = create_assisted(client)
    summary = client.get(f"/api/tables/{code}").json()
    assert summary["assisted"] is True and summary["phase"] == "dealing"
    assert [seat["name"] for seat in summary["seats"]] == NAMES
    assert all(seat["kind"] == "real" and seat["occupied"] for seat in summary["seats"])
    assert client.get("/api/tables").json()["tables"] == []  # followed by its link, not listed

    with (
        client.websocket_connect(f"/ws/{code}?token={token}") as ws,
        client.websocket_connect(f"/ws/{code}") as watcher,
    ):
        state = receive_until(ws, lambda m: m["type"] in ("state", "error"))
        assert state["type"] == "state" and state["you"] == {"seat": None}
        receive_until(watcher, lambda m: m["type"] == "state")
        seen: list[Message] = []
        version = state["version"]
        for entry in entries:
            ws.send_json(entry.message())
            state = state_after(ws, version)
            version = state["version"]
            shown = receive_until(watcher, state_of(version), seen)
            assert shown["view"] == state["view"] and shown["table"]["assisted"] is True
        # The spectator saw every turn revealed and placed, and no (filled-in) hand.
        kinds = [e["type"] for m in seen if m["type"] == "events" for e in m["events"]]
        for kind in ("cards_revealed", "card_placed", "row_taken", "round_scored", "game_over"):
            assert kind in kinds
        assert "hand_dealt" not in kinds
        view = state["view"]
        assert view["phase"] == "game_over" and view["hand"] == []
        assert view["outcome"]["totals"] == list(played.totals)
        assert view["outcome"]["winners"] == list(played.outcome.winners)  # type: ignore[union-attr]
        assert view["score_sheet"] == [list(line) for line in played.view(None).score_sheet]

    record = client.get(f"/api/tables/{code}/record")
    assert record.status_code == 200, record.text
    path = tmp_path / "game.json"
    path.write_text(record.text)
    replayed = subprocess.run(
        [str(NIMMT), "replay", str(path), "--json"], capture_output=True, text=True, check=False
    )
    assert replayed.returncode == 0, replayed.stderr
    summary = json.loads(replayed.stdout)
    assert summary["totals"] == list(played.totals)
    assert summary["winners"] == list(played.outcome.winners)  # type: ignore[union-attr]
    assert summary["players"] == NAMES
    # Each player's hand for a round is the cards they played in it.
    body = record.json()
    first = body["rounds"][0]
    for seat in range(len(NAMES)):
        assert sorted(first["hands"][seat]) == sorted(t["cards"][seat] for t in first["turns"])


def test_every_refused_entry_changes_nothing(
    client: TestClient, table: tuple[str, WebSocketTestSession, Message]
) -> None:
    code, ws, first = table
    entries, _ = seeded_game(5)
    rows = list(entries[0].cards)

    def refused(message: Message, code_: str, **details: Any) -> None:
        before = snapshot(client, code)
        answer = error_of(ws, message)
        assert answer["code"] == code_, answer
        assert answer.get("details", {}) == details, answer
        assert answer["message"].endswith(".")
        assert snapshot(client, code) == before

    refused({"type": "assist_undo"}, "nothing_to_undo")
    refused({"type": "assist_turn", "cards": [1, 2, 3]}, "turn_not_now")
    refused({"type": "assist_row", "row": 0}, "no_row_choice_pending")
    refused({"type": "assist_rows", "cards": [1, 2, 3]}, "wrong_count", expected=4)
    refused({"type": "assist_rows", "cards": [1, 2, 3, 3]}, "card_twice", card=3)
    refused({"type": "assist_rows", "cards": [0, 2, 3, 4]}, "card_out_of_range", card=0)
    refused({"type": "assist_rows", "cards": [1, 2, 3, 105]}, "card_out_of_range", card=105)
    refused({"type": "assist_rows", "cards": [1, 2, "3", 4]}, "malformed")
    refused({"type": "assist_rows", "cards": [1, 2, 3, 4], "version": 7}, "stale_version")
    enter(ws, [entries[0]], first["version"])

    turn = list(entries[1].cards)
    refused({"type": "assist_rows", "cards": [5, 6, 7, 8]}, "rows_not_now")
    refused({"type": "assist_turn", "cards": turn[:2]}, "wrong_count", expected=3)
    refused({"type": "assist_turn", "cards": [*turn, 50]}, "wrong_count", expected=3)
    refused(
        {"type": "assist_turn", "cards": [turn[0], turn[0], turn[2]]}, "card_twice", card=turn[0]
    )
    refused(
        {"type": "assist_turn", "cards": [turn[0], rows[2], turn[2]]}, "card_seen", card=rows[2]
    )
    refused(
        {"type": "assist_turn", "cards": [turn[0], 104 + 1, turn[2]]}, "card_out_of_range", card=105
    )
    refused({"type": "assist_turn", "cards": None}, "malformed")

    # A spectator, or a wrong token, cannot enter anything.
    with client.websocket_connect(f"/ws/{code}") as watcher:
        receive_until(watcher, lambda m: m["type"] == "state")
        before = snapshot(client, code)
        watcher.send_json({"type": "assist_turn", "cards": turn})
        answer = receive_until(watcher, lambda m: m["type"] == "error")
        assert answer["code"] == "not_assistant"
        watcher.send_json({"type": "assist_undo"})
        assert receive_until(watcher, lambda m: m["type"] == "error")["code"] == "not_assistant"
        assert snapshot(client, code) == before
    with client.websocket_connect(f"/ws/{code}?token=forged") as forged:
        assert receive_until(forged, lambda m: m["type"] == "error")["code"] == "bad_token"
        forged.send_json({"type": "assist_undo"})
        assert receive_until(forged, lambda m: m["type"] == "error")["code"] == "not_assistant"
    assert snapshot(client, code) == before

    # Cards played earlier this round are refused too.
    state = enter(ws, [entries[1]] + ([entries[2]] if entries[2].type == "assist_row" else []), 0)
    assert state["view"]["turn"] == 1
    refused({"type": "assist_turn", "cards": [turn[1], 90, 91]}, "card_seen", card=turn[1])


def test_a_row_choice_is_asked_and_never_made_for_the_player(
    client: TestClient, table: tuple[str, WebSocketTestSession, Message]
) -> None:
    code, ws, first = table
    live = service_of(client).book.tables[code]
    created = live.last_active_at
    assert created is not None
    # Rows 10, 20, 30, 40; Cleo's 5 is below every row: she is asked, and nothing is placed.
    state = enter(ws, [Entry("assist_rows", (10, 20, 30, 40))], first["version"])
    assert live.last_active_at is not None and live.last_active_at > created  # a person acted
    ws.send_json({"type": "assist_turn", "cards": [21, 41, 5]})
    state = state_after(ws, state["version"])
    view = state["view"]
    assert view["phase"] == "choosing_row"
    assert view["pending_row_choice"] == {"seat": 2, "card": 5}
    assert view["revealed"] == [21, 41, 5] and view["rows"] == [[10], [20], [30], [40]]
    assert view["waiting_for"] == [2]
    refused_row = error_of(ws, {"type": "assist_row", "row": 4})
    assert refused_row["code"] == "row_out_of_range" and refused_row["details"] == {"row": 5}
    assert error_of(ws, {"type": "assist_row", "row": -1})["code"] == "row_out_of_range"
    assert error_of(ws, {"type": "assist_turn", "cards": [1, 2, 3]})["code"] == "turn_not_now"

    ws.send_json({"type": "assist_row", "row": 2})
    state = state_after(ws, state["version"])
    view = state["view"]
    assert view["phase"] == "choosing_cards" and view["turn"] == 1
    assert view["rows"] == [[10], [20, 21], [5], [40, 41]]
    assert view["penalties"] == [0, 0, 3]


def test_undo_goes_back_several_entries_across_a_row_choice(
    client: TestClient, table: tuple[str, WebSocketTestSession, Message]
) -> None:
    code, ws, first = table
    state = enter(
        ws,
        [
            Entry("assist_rows", (10, 20, 30, 40)),
            Entry("assist_turn", (21, 41, 5)),
            Entry("assist_row", row=2),
            Entry("assist_turn", (22, 42, 31)),
        ],
        first["version"],
    )
    assert state["view"]["turn"] == 2
    after_rows = None

    def undo() -> Message:
        nonlocal state
        ws.send_json({"type": "assist_undo", "version": state["version"]})
        state = state_after(ws, state["version"])
        view: Message = state["view"]
        return view

    view = undo()  # the second turn
    assert view["turn"] == 1 and view["rows"] == [[10], [20, 21], [5], [40, 41]]
    view = undo()  # the row choice: Cleo is asked again
    assert view["phase"] == "choosing_row" and view["pending_row_choice"] == {"seat": 2, "card": 5}
    assert view["penalties"] == [0, 0, 0]
    view = undo()  # the first turn
    assert view["phase"] == "choosing_cards" and view["turn"] == 0
    after_rows = view
    # Entered again, differently: the game follows the new entries.
    ws.send_json({"type": "assist_turn", "cards": [11, 41, 31], "version": state["version"]})
    state = state_after(ws, state["version"])
    assert state["view"]["rows"] == [[10, 11], [20], [30, 31], [40, 41]]
    view = undo()
    assert view == after_rows
    view = undo()  # the rows
    assert view["phase"] == "dealing" and view["round"] == 0 and view["rows"] == []
    assert error_of(ws, {"type": "assist_undo"})["code"] == "nothing_to_undo"
    # The log keeps everything, undos included.
    stored = snapshot(client, code)["stored"]
    assert [action.kind for action in stored].count("undo") == 5


def test_an_undo_is_told_to_listeners(
    client: TestClient, table: tuple[str, WebSocketTestSession, Message]
) -> None:
    code, ws, first = table
    state = enter(ws, [Entry("assist_rows", (10, 20, 30, 40))], first["version"])
    with client.websocket_connect(f"/ws/{code}") as watcher:
        receive_until(watcher, lambda m: m["type"] == "state")
        ws.send_json({"type": "assist_undo"})
        state_after(ws, state["version"])
        told = receive_until(watcher, lambda m: m["type"] == "events")
        assert told["events"] == [{"type": "entry_undone", "kind": "rows"}]
        shown = receive_until(watcher, lambda m: m["type"] == "state")
        assert shown["view"]["phase"] == "dealing"


def test_a_restarted_server_continues_the_game(make_client: Any, tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'games.db'}"
    entries, played = seeded_game(11)
    half = len(entries) // 2
    client = make_client(storage=SqlStorage(url))
    code, token = create_assisted(client)
    with client.websocket_connect(f"/ws/{code}?token={token}") as ws:
        state = receive_until(ws, lambda m: m["type"] == "state")
        state = enter(ws, entries[:half], state["version"])
        ws.send_json({"type": "assist_undo"})  # an undo stored, and entered again
        state = state_after(ws, state["version"])
        state = enter(ws, entries[half - 1 : half], state["version"])
    before = state
    client.__exit__(None, None, None)

    again = make_client(storage=SqlStorage(url))
    assert again.get("/api/tables").json()["tables"] == []  # the database's lobby leaves it out
    with again.websocket_connect(f"/ws/{code}?token={token}") as ws:
        state = receive_until(ws, lambda m: m["type"] in ("state", "error"))
        assert state["type"] == "state"
        assert state["version"] == before["version"] and state["view"] == before["view"]
        state = enter(ws, entries[half:], state["version"])
    assert state["view"]["outcome"]["totals"] == list(played.totals)
    assert service_of(again).book.tables[code].finished


def test_an_assisted_table_cannot_be_joined_or_played(client: TestClient) -> None:
    code, token = create_assisted(client)
    answer = client.post(f"/api/tables/{code}/join", json={"name": "Zoe"})
    assert answer.status_code == 409 and answer.json()["error"]["code"] == "table_full"
    with client.websocket_connect(f"/ws/{code}?token={token}") as ws:
        receive_until(ws, lambda m: m["type"] == "state")
        assert error_of(ws, {"type": "play", "card": 5})["code"] == "bad_token"
    # A played table refuses the assistant's messages.
    played, seat_token = create_table(client, [{"kind": "human"}, {"kind": "bot", "bot": "greedy"}])
    with client.websocket_connect(f"/ws/{played}?token={seat_token}") as ws:
        receive_until(ws, lambda m: m["type"] == "state")
        assert error_of(ws, {"type": "assist_undo"})["code"] == "not_assisted"


@pytest.mark.parametrize(
    ("names", "code"),
    [
        (["Ana"], "bad_player_count"),
        ([f"P{i}" for i in range(11)], "bad_player_count"),
        (["Ana", "ana"], "bad_name"),
        (["Ana", "  "], "bad_name"),
    ],
)
def test_bad_names_create_nothing(client: TestClient, names: list[str], code: str) -> None:
    answer = client.post("/api/assisted", json={"names": names})
    assert answer.status_code == 422 and answer.json()["error"]["code"] == code
    assert service_of(client).book.tables == {}


def test_a_record_mid_game_says_its_hands_are_filled_in(
    client: TestClient, table: tuple[str, WebSocketTestSession, Message]
) -> None:
    code, ws, first = table
    entries, _ = seeded_game(5)
    enter(ws, entries[:3], first["version"])
    record = client.get(f"/api/tables/{code}/record").json()
    assert record["meta"]["program"] == "nimmt assist" and record["meta"]["table"] == code
    assert "hands" in record["meta"]
    assert client.get(f"/api/tables/{code}/record?game=2").status_code == 404
