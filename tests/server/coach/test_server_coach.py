"""The coach at the web table, through the real app: the table's setting seen by everyone, the
socket's ``coach`` answer (to the asker alone, from the asker's view alone, never holding the
table up), its refusals, and the finished game's analysis over HTTP."""

from __future__ import annotations

import asyncio
import json
import os
import threading
from collections.abc import Mapping
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient, WebSocketTestSession
from tests.server.server_helpers import Message, create_table, receive_until, service_of, snapshot

import nimmt.server.coach as coach_module
from nimmt.engine import Game, SeatView, total_bullheads
from nimmt.review import review
from nimmt.server.coach import COACH_NICENESS, CoachPool, CoachRunner, InlineCoach
from nimmt.server.storage import MemoryStorage, SeatRecord, SqlStorage, TableRecord, TableStatus

GOLDEN = Path(__file__).parents[2] / "records" / "golden"
GREEDY = {"kind": "bot", "bot": "greedy"}
CREATED = datetime(2026, 11, 30, 9, 0, tzinfo=UTC)


def coach_table(client: TestClient, seats: list[Message], coach: bool = True) -> tuple[str, str]:
    answer = client.post("/api/tables", json={"seats": seats, "name": "Ana", "coach": coach})
    assert answer.status_code == 201, answer.text
    return answer.json()["code"], answer.json()["token"]


def is_state(message: Message) -> bool:
    return bool(message["type"] == "state")


def first_card_state(ws: WebSocketTestSession) -> Message:
    return receive_until(ws, lambda m: is_state(m) and bool(m["view"]["legal_cards"]))


def settled(ws: WebSocketTestSession) -> Message:
    """The first state in which the person has cards to choose and every other seat (bots)
    has chosen: nothing moves at the table until the person acts."""
    return receive_until(
        ws,
        lambda m: (
            is_state(m) and bool(m["view"]["legal_cards"]) and all(m["view"]["has_chosen"][1:])
        ),
    )


def ask(
    ws: WebSocketTestSession, request_id: object = "c1", seen: list[Message] | None = None
) -> Message:
    """Ask the coach; the answer or the refusal (``state`` and ``events`` read past, into
    ``seen``)."""
    ws.send_json({"type": "coach", "request_id": request_id})
    return receive_until(ws, lambda m: m["type"] in ("coach", "error"), seen)


@pytest.fixture(autouse=True)
def quick_coach(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fewer sampled deals: these tests check the plumbing (the figures have their own)."""
    monkeypatch.setattr(coach_module, "COACH_SAMPLES", 64)
    monkeypatch.setattr(coach_module, "REVIEW_SAMPLES", 16)


# ------------------------------------------------------------------------------ the setting


def test_the_coach_setting_is_shown_to_every_seat_and_spectator(
    make_client: Any,
) -> None:
    client = make_client()
    code, token = coach_table(client, [{"kind": "human"}, GREEDY])
    assert client.get(f"/api/tables/{code}").json()["coach"] is True
    with (
        client.websocket_connect(f"/ws/{code}?token={token}") as seated,
        client.websocket_connect(f"/ws/{code}") as spectator,
    ):
        assert first_card_state(seated)["table"]["coach"] is True
        assert receive_until(spectator, is_state)["table"]["coach"] is True
    plain, _ = create_table(client, [{"kind": "human"}, GREEDY])
    assert client.get(f"/api/tables/{plain}").json()["coach"] is False


@pytest.mark.parametrize("make_storage", [MemoryStorage, lambda: SqlStorage("sqlite://")])
def test_the_setting_is_stored_with_the_table(make_storage: Any) -> None:
    storage = make_storage()
    for code, coach in (("COACH2", True), ("PLAIN2", False)):
        storage.create_table(
            TableRecord(
                code,
                CREATED,
                (SeatRecord(0, "human"), SeatRecord(1, "bot", "greedy", "Bot 2 (greedy)")),
                TableStatus(0, 1, "waiting", 0, False),
                coach=coach,
            )
        )
        loaded = storage.load_table(code)
        assert loaded is not None and loaded.coach is coach
    storage.close()


# ------------------------------------------------------------------------- the live coach


def test_the_coach_scores_every_card_of_the_hand_for_the_asker_alone(make_client: Any) -> None:
    client = make_client()
    code, ana = coach_table(client, [{"kind": "human"}, {"kind": "human"}, GREEDY])
    with (
        client.websocket_connect(f"/ws/{code}?token={ana}") as ws_ana,
        client.websocket_connect(f"/ws/{code}") as spectator,
    ):
        ben = client.post(f"/api/tables/{code}/join", json={"name": "Ben"}).json()["token"]
        with client.websocket_connect(f"/ws/{code}?token={ben}") as ws_ben:
            seen = [first_card_state(ws_ana)]
            first_card_state(ws_ben)
            answer = ask(ws_ana, request_id=7, seen=seen)
            # The answer is for the newest state the asker was sent (the bot may have chosen).
            state = [message for message in seen if is_state(message)][-1]
            assert answer["type"] == "coach", answer
            assert set(answer) == {
                "type", "version", "kind", "best", "candidates", "confidence", "request_id"
            }  # fmt: skip
            assert (answer["version"], answer["kind"], answer["request_id"]) == (
                state["version"], "card", 7,
            )  # fmt: skip
            hand = state["view"]["hand"]
            assert [c["choice"] for c in answer["candidates"]] == hand
            best = next(c for c in answer["candidates"] if c["choice"] == answer["best"])
            assert best["extra"] == 0 and best["expected"] == min(
                c["expected"] for c in answer["candidates"]
            )
            for candidate in answer["candidates"]:
                assert set(candidate) == {"choice", "expected", "extra"}
                assert candidate["extra"] == pytest.approx(
                    candidate["expected"] - best["expected"], abs=0.011
                )
            assert 0 <= answer["confidence"] <= 1
            # Nobody else hears of it: after a ping, Ben and the spectator have had no coach.
            for other in (ws_ben, spectator):
                other.send_json({"type": "ping", "request_id": "p"})
                seen = []
                receive_until(other, lambda m: m["type"] == "pong", seen)
                assert all(m["type"] != "coach" for m in seen)
            # Asking is no action: the table did not move, and nothing chose for Ana.
            after = snapshot(client, code)
            assert after["version"] == state["version"]
            assert after["views"][1]["chosen_card"] is None


class Recording:
    """A coach that records what it is given and can be held until the test lets it go."""

    def __init__(self, inner: CoachRunner) -> None:
        self.inner = inner
        self.views: list[SeatView] = []
        self.reviews: list[tuple[Mapping[str, Any], int]] = []
        self.go = threading.Event()
        self.go.set()
        self.thinking = threading.Event()
        """Set once the coach has been given a view (and waits for ``go``)."""

    async def analyze(self, view: SeatView, seed: int) -> dict[str, Any]:
        self.views.append(view)
        self.thinking.set()
        await asyncio.to_thread(self.go.wait, 60)
        return await self.inner.analyze(view, seed)

    async def review(self, record: Mapping[str, Any], seat: int) -> dict[str, Any]:
        self.reviews.append((record, seat))
        return await self.inner.review(record, seat)

    async def start(self) -> None:
        pass

    async def close(self) -> None:
        self.go.set()


def recording_coach(client: TestClient) -> Recording:
    desk = service_of(client).coach
    recording = Recording(InlineCoach())
    desk.runner = recording
    return recording


def test_the_coach_sees_only_the_askers_view(make_client: Any) -> None:
    client = make_client()
    recording = recording_coach(client)
    code, ana = coach_table(client, [{"kind": "human"}, GREEDY, GREEDY])
    with client.websocket_connect(f"/ws/{code}?token={ana}") as ws:
        settled(ws)
        assert ask(ws)["type"] == "coach"
    table = service_of(client).book.tables[code]
    assert len(recording.views) == 1
    view = recording.views[0]
    assert view.seat == 0 and view == table.game.view(0)
    assert set(view.hand).isdisjoint(table.game.hand(1) + table.game.hand(2))


def test_the_table_goes_on_while_the_coach_thinks(make_client: Any) -> None:
    """The coach is held, thinking, until the turn has been played (a bot included): the table
    did not wait for it, and its answer comes afterwards, for the version it analyzed."""
    client = make_client()
    recording = recording_coach(client)
    recording.go.clear()
    code, ana = coach_table(client, [{"kind": "human"}, GREEDY])
    with client.websocket_connect(f"/ws/{code}?token={ana}") as ws:
        state = first_card_state(ws)
        ws.send_json({"type": "coach", "request_id": "slow"})
        assert recording.thinking.wait(60)
        asked_at = service_of(client).book.tables[code].version
        ws.send_json({"type": "play", "card": state["view"]["legal_cards"][0]})
        later = receive_until(ws, is_state)
        while later["view"]["turn"] == 0:  # Ana's card may be below every row: she takes one
            if later["view"]["must_choose_row"]:
                ws.send_json({"type": "choose_row", "row": 0})
            later = receive_until(ws, is_state)
        assert later["version"] > asked_at
        recording.go.set()
        answer = receive_until(ws, lambda m: m["type"] == "coach")
        assert answer["request_id"] == "slow"
        assert state["version"] <= answer["version"] <= asked_at  # what it saw when asked


def test_a_row_choice_is_scored_row_by_row(make_client: Any) -> None:
    client = make_client(deal_seed=3)
    code, ana = coach_table(client, [{"kind": "human"}, GREEDY])
    with client.websocket_connect(f"/ws/{code}?token={ana}") as ws:
        for _ in range(200):  # Ana plays her lowest card until it is below every row
            state = receive_until(
                ws,
                lambda m: (
                    is_state(m) and bool(m["view"]["legal_cards"] or m["view"]["must_choose_row"])
                ),
            )
            if state["view"]["must_choose_row"]:
                break
            ws.send_json({"type": "play", "card": state["view"]["legal_cards"][0]})
        else:
            raise AssertionError("no row choice came")
        answer = ask(ws)
        assert answer["type"] == "coach" and answer["kind"] == "row"
        assert [c["choice"] for c in answer["candidates"]] == [0, 1, 2, 3]  # 0-based, as the wire
        costs = [total_bullheads(row) for row in state["view"]["rows"]]
        if state["view"]["turn"] == 9:  # the last turn: each row costs exactly its bullheads
            assert [c["expected"] for c in answer["candidates"]] == costs
        assert answer["version"] == state["version"]


def test_asking_again_at_the_same_version_is_answered_from_memory(make_client: Any) -> None:
    client = make_client()
    recording = recording_coach(client)
    code, ana = coach_table(client, [{"kind": "human"}, GREEDY])
    with client.websocket_connect(f"/ws/{code}?token={ana}") as ws:
        settled(ws)
        first, second = ask(ws, "a"), ask(ws, "b")
        assert first["type"] == second["type"] == "coach"
        assert {**first, "request_id": "b"} == second
        assert len(recording.views) == 1


# ------------------------------------------------------------------------------- refusals


def test_the_coach_refuses_where_it_is_not_allowed(make_client: Any) -> None:
    client = make_client()
    plain, token = create_table(client, [{"kind": "human"}, GREEDY])
    with client.websocket_connect(f"/ws/{plain}?token={token}") as ws:
        settled(ws)
        before = snapshot(client, plain)
        refusal = ask(ws, request_id="off")
        assert (refusal["type"], refusal["code"], refusal["request_id"]) == (
            "error",
            "coach_off",
            "off",
        )
        assert snapshot(client, plain) == before
    code, ana = coach_table(client, [{"kind": "human"}, {"kind": "human"}])
    with client.websocket_connect(f"/ws/{code}") as spectator:
        receive_until(spectator, is_state)
        assert ask(spectator)["code"] == "not_seated"
    with client.websocket_connect(f"/ws/{code}?token={ana}") as ws:
        receive_until(ws, is_state)
        assert ask(ws)["code"] == "no_decision"  # a seat is still free: no cards dealt


def test_no_decision_while_another_player_chooses_a_row(make_client: Any) -> None:
    client = make_client(deal_seed=3)
    code, ana = coach_table(client, [{"kind": "human"}, {"kind": "human"}])
    ben = client.post(f"/api/tables/{code}/join", json={"name": "Ben"}).json()["token"]
    tokens = [ana, ben]
    service = service_of(client)
    game = service.book.tables[code].game
    for _ in range(100):  # Ana plays her lowest card, Ben his highest, until a row is to take
        if game.pending_row_choice is not None:
            break
        for seat in game.waiting_for():
            card = game.legal_cards(seat)[0 if seat == 0 else -1]
            client.portal.call(partial(service.act, code, tokens[seat], "play", card=card))
    pending = game.pending_row_choice
    assert pending is not None
    with client.websocket_connect(f"/ws/{code}?token={tokens[1 - pending.seat]}") as waiting:
        receive_until(waiting, is_state)
        assert ask(waiting)["code"] == "no_decision"
    with client.websocket_connect(f"/ws/{code}?token={tokens[pending.seat]}") as chooser:
        receive_until(chooser, is_state)
        assert ask(chooser)["kind"] == "row"


# ---------------------------------------------------------------------- the game's analysis


def play_to_the_end(client: TestClient, code: str, token: str) -> None:
    """Ana plays her lowest card and takes the cheapest row until the game is over; on the way,
    the game's analysis is refused while it is played."""
    refused = False
    with client.websocket_connect(f"/ws/{code}?token={token}") as ws:
        while True:
            state = receive_until(ws, is_state)
            view = state["view"]
            if view["phase"] == "game_over":
                break
            if not refused and view["round"] == 1 and view["legal_cards"]:
                running = client.get(f"/api/tables/{code}/analysis?seat=0")
                assert running.status_code == 409
                assert running.json()["error"]["code"] == "game_not_finished"
                refused = True
            if view["legal_cards"]:
                ws.send_json(
                    {"type": "play", "card": view["legal_cards"][0], "version": state["version"]}
                )
            elif view["must_choose_row"]:
                costs = [total_bullheads(row) for row in view["rows"]]
                row = costs.index(min(costs))
                ws.send_json({"type": "choose_row", "row": row, "version": state["version"]})
    assert refused


def test_the_finished_games_analysis_is_nimmt_analyze_json(make_client: Any) -> None:
    client = make_client(deal_seed=5)
    recording = recording_coach(client)
    code, ana = create_table(client, [{"kind": "human"}, GREEDY])  # no coach needed afterwards
    play_to_the_end(client, code, ana)
    record = client.get(f"/api/tables/{code}/record").json()
    answer = client.get(f"/api/tables/{code}/analysis?seat=0")
    assert answer.status_code == 200, answer.text
    assert answer.json() == review(record, 0, samples=coach_module.REVIEW_SAMPLES)
    assert answer.json()["name"] == "Ana" and answer.json()["decisions"]
    again = client.get(f"/api/tables/{code}/analysis", params={"seat": 0, "game": 1})
    assert again.json() == answer.json()
    assert len(recording.reviews) == 1  # remembered, not computed twice
    bot = client.get(f"/api/tables/{code}/analysis?seat=1").json()
    assert bot["seat"] == 1 and bot["name"] == "Bot 2 (greedy)"
    for bad in ("seat=2", "seat=-1", "seat=x", ""):
        refused = client.get(f"/api/tables/{code}/analysis?{bad}")
        assert refused.status_code == 422 and refused.json()["error"]["code"] == "bad_request"
    missing = client.get(f"/api/tables/{code}/analysis?seat=0&game=2")
    assert missing.status_code == 404 and missing.json()["error"]["code"] == "game_not_found"
    assert client.get("/api/tables/ZZZZZZ/analysis?seat=0").status_code == 404


# --------------------------------------------------------------------- the coach's process


def _worker_facts() -> tuple[int, int]:
    return os.getpid(), os.nice(0)


def test_the_coach_pool_answers_as_the_inline_coach_but_in_a_process_of_its_own() -> None:
    game = Game(4)
    game.deal(9)
    view = game.view(2)
    record = json.loads((GOLDEN / "worked_example.json").read_text())

    async def scenario() -> None:
        pool, inline = CoachPool(), InlineCoach()
        try:
            assert await pool.analyze(view, 4) == await inline.analyze(view, 4)
            assert await pool.review(record, 1) == await inline.review(record, 1)
            loop = asyncio.get_running_loop()
            pid, niceness = await loop.run_in_executor(pool.executor(), _worker_facts)
            assert pid != os.getpid()
            assert niceness >= min(19, os.nice(0) + COACH_NICENESS)
        finally:
            await pool.close()

    asyncio.run(scenario())
