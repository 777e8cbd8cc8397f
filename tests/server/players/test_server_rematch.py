"""Rematch by agreement: after game over each person seated agrees (or takes it back), every
listener hears ``rematch_vote``, the new game starts with the last agreement (bots always
agree), the votes are stored actions (a restart keeps them), and every finished game's record
stays downloadable."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from starlette.testclient import TestClient
from tests.server.server_helpers import receive_until

from nimmt.server.errors import ServiceError
from nimmt.server.service import GameService
from nimmt.server.storage import MemoryStorage
from nimmt.server.table import SeatSpec

HUMAN = SeatSpec("human")
GREEDY = SeatSpec("bot", "greedy")


async def seat_people(service: GameService, seats: list[SeatSpec]) -> tuple[str, dict[int, str]]:
    code = await service.create_table(seats)
    tokens = {}
    for index, spec in enumerate(seats):
        if spec.kind == "human":
            seat, token = await service.join(code, f"P{index}")
            tokens[seat] = token
    return code, tokens


async def play_to_the_end(service: GameService, code: str, tokens: dict[int, str]) -> None:
    """Every person plays their lowest card and takes the first row; bots play for themselves."""
    table = service.book.tables[code]
    while not table.finished:
        if table.bot_tasks:
            await asyncio.gather(*table.bot_tasks.values())
            continue
        for seat in table.game.waiting_for():
            if seat not in tokens:
                continue
            view = table.game.view(seat)
            if view.must_choose_row:
                await service.act(code, tokens[seat], "choose_row", row=0)
            elif view.legal_cards():
                await service.act(code, tokens[seat], "play", card=view.legal_cards()[0])
            break


def test_the_new_game_starts_when_every_person_agreed() -> None:
    async def scenario() -> None:
        storage = MemoryStorage()
        service = GameService(storage, deal_seed=4)
        code, tokens = await seat_people(service, [HUMAN, GREEDY, HUMAN, HUMAN])
        table = service.book.tables[code]
        with pytest.raises(ServiceError) as early:
            await service.act(code, tokens[0], "rematch")
        assert early.value.code == "wrong_phase"
        await play_to_the_end(service, code, tokens)
        listener = await service.connect(code, None)
        summary = (await service.summary(code))["rematch"]
        assert summary == {"ready": [], "needed": [0, 2, 3]}

        await service.act(code, tokens[2], "rematch")
        await service.act(code, tokens[0], "rematch")
        assert (await service.summary(code))["rematch"] == {"ready": [0, 2], "needed": [0, 2, 3]}
        # Agreeing twice changes nothing (no new version); taking it back is heard too.
        version = table.version
        await service.act(code, tokens[0], "rematch")
        assert table.version == version
        await service.act(code, tokens[2], "rematch", agree=False)
        assert table.finished and table.game_number == 1

        # A restart keeps the votes: they are stored actions.
        restarted = GameService(storage, deal_seed=4)
        assert (await restarted.summary(code))["rematch"] == {"ready": [0], "needed": [0, 2, 3]}

        await service.act(code, tokens[2], "rematch")
        assert table.game_number == 1
        await service.act(code, tokens[3], "rematch")  # the last person: the new game starts
        assert table.game_number == 2 and not table.finished
        assert table.game.round == 1 and table.rematch_votes == set()
        assert (await service.summary(code))["rematch"] is None

        heard = []
        for message in listener.take():
            if message["type"] == "events":
                heard += [event for event in message["events"] if event["type"].startswith("rem")]
        assert heard == [
            {"type": "rematch_vote", "seat": 2, "agree": True, "ready": (2,)},
            {"type": "rematch_vote", "seat": 0, "agree": True, "ready": (0, 2)},
            {"type": "rematch_vote", "seat": 2, "agree": False, "ready": (0,)},
            {"type": "rematch_vote", "seat": 2, "agree": True, "ready": (0, 2)},
            {"type": "rematch_vote", "seat": 3, "agree": True, "ready": (0, 2, 3)},
            {"type": "rematch_started", "game": 2},
        ]
        stored = [action.kind for action in storage.load_actions(code, 1)]
        assert stored.count("rematch_vote") == 5
        assert storage.load_actions(code, 2)[0].kind == "rematch"
        # The first game's record stays available after the rematch.
        record = await service.record(code, 1)
        assert record["meta"]["game"] == 1

    asyncio.run(scenario())


def test_alone_with_bots_one_agreement_is_enough() -> None:
    async def scenario() -> None:
        service = GameService(MemoryStorage(), deal_seed=6)
        code, tokens = await seat_people(service, [HUMAN, GREEDY, GREEDY])
        await play_to_the_end(service, code, tokens)
        assert (await service.summary(code))["rematch"] == {"ready": [], "needed": [0]}
        await service.act(code, tokens[0], "rematch")
        assert service.book.tables[code].game_number == 2

    asyncio.run(scenario())


def test_when_the_last_holdout_leaves_the_others_play_again() -> None:
    async def scenario() -> None:
        service = GameService(MemoryStorage(), deal_seed=7)
        code, tokens = await seat_people(service, [HUMAN, HUMAN, HUMAN])
        table = service.book.tables[code]
        await play_to_the_end(service, code, tokens)
        await service.act(code, tokens[0], "rematch")
        await service.act(code, tokens[1], "rematch")
        await service.act(code, tokens[1], "leave")  # a vote leaves with its person
        assert table.game_number == 1
        assert (await service.summary(code))["rematch"] == {"ready": [0], "needed": [0, 2]}
        await service.act(code, tokens[2], "leave")
        # Everybody still seated agreed: the new game starts, and waits for the free seats.
        assert table.game_number == 2
        assert (await service.summary(code))["phase"] == "waiting"
        await service.join(code, "Newcomer")
        await service.join(code, "Other")
        assert (await service.summary(code))["phase"] == "choosing_cards"

    asyncio.run(scenario())


def test_the_vote_over_http_and_the_socket(make_client) -> None:  # type: ignore[no-untyped-def]
    client: TestClient = make_client(deal_seed=4)
    service: GameService = client.app.state.service  # type: ignore[attr-defined]
    assert client.portal is not None  # a started client
    code = client.portal.call(service.create_table, [HUMAN, HUMAN, GREEDY])
    tokens = {}
    for name in ("Ana", "Ben"):
        answer = client.post(f"/api/tables/{code}/join", json={"name": name}).json()
        tokens[answer["seat"]] = answer["token"]
    client.portal.call(play_to_the_end, service, code, tokens)

    with client.websocket_connect(f"/ws/{code}?token={tokens[0]}") as ws:
        over = ws.receive_json()
        assert over["table"]["rematch"] == {"ready": [], "needed": [0, 1]}
        ws.send_json({"type": "rematch", "agree": "yes", "request_id": 1})
        assert receive_until(ws, lambda m: m["type"] == "error")["code"] == "malformed"
        ws.send_json({"type": "rematch", "version": over["version"]})
        events = receive_until(ws, lambda m: m["type"] == "events")
        assert events["events"] == [
            {"type": "rematch_vote", "seat": 0, "agree": True, "ready": [0]}
        ]
        state = receive_until(ws, lambda m: m["type"] == "state")
        assert state["table"]["rematch"] == {"ready": [0], "needed": [0, 1]}

        answer = client.post(f"/api/tables/{code}/rematch", json={"token": tokens[1]})
        assert answer.json() == {"game": 2, "rematch": None}
        # The last agreement and the new game it starts are told together.
        events = receive_until(ws, lambda m: m["type"] == "events")
        assert events["events"][:2] == [
            {"type": "rematch_vote", "seat": 1, "agree": True, "ready": [0, 1]},
            {"type": "rematch_started", "game": 2},
        ]
    assert client.get(f"/api/tables/{code}/record?game=1").status_code == 200
    assert client.get(f"/api/tables/{code}/record?game=2").status_code == 409
    spectator_vote = client.post(f"/api/tables/{code}/rematch", json={"token": ""})
    assert spectator_vote.status_code == 403


def test_bot_seat_names_have_their_parts_a_persons_seat_does_not() -> None:
    async def scenario() -> list[Any]:
        service = GameService(MemoryStorage(), deal_seed=4)
        code, tokens = await seat_people(service, [HUMAN, GREEDY, HUMAN])
        await service.act(code, tokens[2], "leave", bot="easy")
        return [seat["bot_name"] for seat in (await service.summary(code))["seats"]]

    assert asyncio.run(scenario()) == [None, {"bot": "greedy", "number": 2}, None]
