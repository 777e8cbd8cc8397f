"""A table's life beyond one game: people take and leave seats (the table is told), a
reconnecting client gets what it missed, idle tables leave memory and come back, the lobby is a
paginated list from the database, and a socket that floods or does not read is limited."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from starlette.testclient import TestClient
from tests.server.server_helpers import Message, create_table, join, receive_until, snapshot
from tests.waiting import wait_until_async

from nimmt.server.service import GameService
from nimmt.server.storage import MemoryStorage
from nimmt.server.table import RESYNC, TOO_SLOW, Connection, SeatSpec

HUMAN = {"kind": "human"}
GREEDY = {"kind": "bot", "bot": "greedy"}


def is_state(message: Message) -> bool:
    return bool(message["type"] == "state")


def events_of(message: Message) -> list[str]:
    return [event["type"] for event in message.get("events", [])]


def test_a_join_is_an_event_everybody_sees(make_client: Callable[..., TestClient]) -> None:
    client = make_client()
    code, ana = create_table(client, [HUMAN, HUMAN, GREEDY])
    with client.websocket_connect(f"/ws/{code}?token={ana}") as ws:
        receive_until(ws, is_state)
        join(client, code, "Ben")
        message = receive_until(ws, lambda m: m["type"] == "events")
        assert message["events"][0] == {"type": "player_joined", "seat": 1, "name": "Ben"}


def test_leaving_during_a_game_hands_the_seat_to_the_chosen_bot(
    make_client: Callable[..., TestClient],
) -> None:
    client = make_client(deal_seed=3)
    code, ana = create_table(client, [HUMAN, HUMAN, GREEDY])
    ben = join(client, code, "Ben")
    with (
        client.websocket_connect(f"/ws/{code}?token={ana}") as ws_ana,
        client.websocket_connect(f"/ws/{code}?token={ben}") as ws_ben,
    ):
        receive_until(ws_ana, is_state)
        state = receive_until(ws_ben, is_state)
        assert state["view"]["phase"] == "choosing_cards" and state["you"]["seat"] == 1
        ws_ben.send_json({"type": "leave", "bot": "easy"})
        told = receive_until(ws_ana, lambda m: "seat_left" in events_of(m))
        assert {"type": "seat_left", "seat": 1, "name": "Ben", "bot": "easy"} in told["events"]
        after = receive_until(ws_ben, lambda m: is_state(m) and m["you"]["seat"] is None)
        assert after["view"]["hand"] == []  # the leaver watches now, without a hand
        # The bot plays seat 1 from now on: Ana's card completes the turn.
        state = receive_until(ws_ana, lambda m: is_state(m) and m["view"]["legal_cards"])
        ws_ana.send_json({"type": "play", "card": state["view"]["legal_cards"][0]})
        receive_until(ws_ana, lambda m: "cards_revealed" in events_of(m))
        # The old token plays no more.
        ws_ben.send_json({"type": "play", "card": 1, "request_id": "x"})
        refused = receive_until(ws_ben, lambda m: m["type"] == "error")
        assert refused["code"] == "bad_token" and refused["request_id"] == "x"
    seat = client.get(f"/api/tables/{code}").json()["seats"][1]
    assert (seat["kind"], seat["bot"], seat["name"]) == ("bot", "easy", "Ben")


def test_leaving_before_the_deal_frees_the_seat(make_client: Callable[..., TestClient]) -> None:
    client = make_client()
    code, ana = create_table(client, [HUMAN, HUMAN, HUMAN])
    answer = client.post(f"/api/tables/{code}/leave", json={"token": ana})
    assert answer.status_code == 200, answer.text
    seat = client.get(f"/api/tables/{code}").json()["seats"][0]
    assert (seat["kind"], seat["name"], seat["occupied"]) == ("human", None, False)
    assert join(client, code, "Ana")  # the name is free again, and so is the seat


def test_leaving_refuses_an_unknown_bot_and_changes_nothing(
    make_client: Callable[..., TestClient],
) -> None:
    client = make_client(deal_seed=2)
    code, ana = create_table(client, [HUMAN, GREEDY])
    before = snapshot(client, code)
    with client.websocket_connect(f"/ws/{code}?token={ana}") as ws:
        receive_until(ws, is_state)
        ws.send_json({"type": "leave", "bot": "mc:64", "request_id": 4})
        refused = receive_until(ws, lambda m: m["type"] == "error")
        assert (refused["code"], refused["request_id"]) == ("unknown_bot", 4)
    assert snapshot(client, code) == before


def test_a_reconnecting_client_gets_the_events_it_missed(
    make_client: Callable[..., TestClient],
) -> None:
    client = make_client(deal_seed=5)
    code, ana = create_table(client, [HUMAN, HUMAN])
    ben = join(client, code, "Ben")
    with client.websocket_connect(f"/ws/{code}?token={ana}") as ws:
        state = receive_until(ws, lambda m: is_state(m) and m["view"]["legal_cards"])
        left_at = state["version"]
    with client.websocket_connect(f"/ws/{code}?token={ben}") as ws:
        state = receive_until(ws, lambda m: is_state(m) and m["view"]["legal_cards"])
        ws.send_json({"type": "play", "card": state["view"]["legal_cards"][0]})
        receive_until(ws, lambda m: "card_chosen" in events_of(m))
    with client.websocket_connect(f"/ws/{code}?token={ana}&since={left_at}") as ws:
        first = ws.receive_json()
        assert first["type"] == "events" and first["events"] == [{"type": "card_chosen", "seat": 1}]
        assert receive_until(ws, is_state)["version"] == first["version"]
    # A version the table no longer knows (or never had) gives the state alone.
    with client.websocket_connect(f"/ws/{code}?token={ana}&since=999") as ws:
        assert ws.receive_json()["type"] == "state"


def test_the_lobby_is_paginated(make_client: Callable[..., TestClient]) -> None:
    client = make_client()
    codes = [create_table(client, [HUMAN, GREEDY])[0] for _ in range(7)]
    seen: list[str] = []
    cursor = None
    for _ in range(10):
        query = {"limit": 3} | ({"cursor": cursor} if cursor else {})
        page = client.get("/api/tables", params=query).json()
        assert len(page["tables"]) <= 3
        seen += [entry["code"] for entry in page["tables"]]
        cursor = page["next"]
        if cursor is None:
            break
    assert seen == codes[::-1]  # newest first, each once
    assert client.get("/api/tables", params={"cursor": "!!"}).status_code == 422
    assert client.get("/api/tables", params={"limit": 1000}).status_code == 422


def test_idle_tables_leave_memory_and_the_lobby_and_come_back() -> None:
    async def scenario() -> None:
        now = [datetime(2026, 11, 30, 12, 0, tzinfo=UTC)]
        storage = MemoryStorage()
        service = GameService(storage, clock=lambda: now[0], idle_seconds=600, deal_seed=1)
        code = await service.create_table([SeatSpec("human"), SeatSpec("bot", "greedy")])
        _seat, token = await service.join(code, "Ana")
        table = service.book.tables[code]
        # The bot's move runs as a task on this loop: let it run.
        await wait_until_async(
            lambda: not table.bot_tasks, interval=0.01, message="the bot's move never ended"
        )
        assert [t["code"] for t in (await service.list_tables())["tables"]] == [code]
        assert await service.evict_idle() == []  # Ana acted just now
        now[0] += timedelta(minutes=11)
        assert (await service.list_tables())["tables"] == []
        assert await service.evict_idle() == [code]
        assert code not in service.book.tables
        # Opening it loads it from the database, exactly where it was.
        summary = await service.summary(code)
        assert summary["phase"] == "choosing_cards" and summary["round"] == 1
        view = service.book.tables[code].game.view(0)
        await service.act(code, token, "play", card=view.hand[0])
        assert [t["code"] for t in (await service.list_tables())["tables"]] == [code]
        await service.close()

    asyncio.run(scenario())


def test_a_client_that_does_not_read_gets_a_fresh_state_then_is_closed() -> None:
    connection = Connection("AAAAAA", None, None, max_queue=4)
    for number in range(4):
        connection.send({"type": "state", "version": number})
    assert len(connection.outbox) == 4 and not connection.too_slow
    connection.send({"type": "state", "version": 4})  # one too many: the queue is replaced
    assert connection.take() == [RESYNC]
    for _ in range(3):
        for number in range(5):
            connection.send({"type": "state", "version": number})
    assert connection.too_slow
    assert connection.take() == [TOO_SLOW]  # all it is sent now is its closing
    connection.send({"type": "state", "version": 9})
    assert not connection.outbox


def test_a_fresh_state_waits_for_a_change_in_flight_and_is_the_base_of_the_next() -> None:
    async def scenario() -> None:
        service = GameService(MemoryStorage())
        code = await service.create_table([SeatSpec("human"), SeatSpec("bot", bot="greedy")])
        _seat, token = await service.join(code, "Ana")
        table = service.book.tables[code]
        connection = await service.connect(code, token, changes=True)
        connection.take()
        connection.told = None  # as an overflow leaves it
        async with table.lock:  # a change is on its way to the database
            asking = asyncio.create_task(service.fresh_state(connection))
            for _ in range(5):
                await asyncio.sleep(0)
            assert not asking.done()  # nothing of a change not yet stored is told
        fresh = await asyncio.wait_for(asking, 5)
        assert fresh is not None
        assert fresh["type"] == "state" and fresh["version"] == table.version
        connection.take()  # (what the bot's card, waiting for the lock too, told meanwhile)
        card = table.game.own_cards(0).legal_cards[0]
        await service.act(code, token, "play", card=card)
        told = connection.take()
        # The fresh state is the base: the card comes as a change, not a second whole state.
        assert told and {message["type"] for message in told} == {"change"}
        assert told[0]["version"] > fresh["version"]
        await service.close()

    asyncio.run(scenario())


def test_a_flooding_socket_is_rate_limited(make_client: Callable[..., TestClient]) -> None:
    client = make_client(socket_rate=1.0, socket_burst=5)
    code, ana = create_table(client, [HUMAN, GREEDY])
    with client.websocket_connect(f"/ws/{code}?token={ana}") as ws:
        receive_until(ws, is_state)
        for number in range(8):
            ws.send_json({"type": "ping", "request_id": number})
        answers = [ws.receive_json() for _ in range(8)]
    assert [a["type"] for a in answers].count("pong") == 5
    limited = [a for a in answers if a["type"] == "error"]
    assert len(limited) == 3 and {a["code"] for a in limited} == {"rate_limited"}


def test_a_rate_limited_message_is_refused_with_its_request_id(
    make_client: Callable[..., TestClient],
) -> None:
    # One message at once, then (at 0.01 a second) none for the rest of the test.
    client = make_client(socket_rate=0.01, socket_burst=1)
    code, ana = create_table(client, [HUMAN, GREEDY])
    with client.websocket_connect(f"/ws/{code}?token={ana}") as ws:
        receive_until(ws, is_state)
        ws.send_json({"type": "ping", "request_id": 1})
        assert receive_until(ws, lambda m: m["type"] == "pong")["request_id"] == 1
        ws.send_json({"type": "play", "card": 5, "request_id": "play-7"})
        ws.send_bytes(b'{"type": "ping", "request_id": 8}')
        ws.send_text("not json")
        ws.send_json({"type": "ping", "request_id": {"not": "an id"}})
        ws.send_text(json.dumps({"type": "ping", "request_id": 9, "pad": "x" * 5000}))
        refusals = [receive_until(ws, lambda m: m["type"] == "error") for _ in range(5)]
    assert {refusal["code"] for refusal in refusals} == {"rate_limited"}
    assert [refusal["request_id"] for refusal in refusals] == ["play-7", 8, None, None, None]


def test_the_service_lists_without_taking_table_locks() -> None:
    async def scenario() -> None:
        service = GameService(MemoryStorage())
        code = await service.create_table([SeatSpec("human"), SeatSpec("human")])
        table = service.book.tables[code]
        async with table.lock:  # a table stuck in a slow write does not freeze the lobby
            listed = await asyncio.wait_for(service.list_tables(), 5)
        assert [entry["code"] for entry in listed["tables"]] == [code]
        await service.close()

    asyncio.run(scenario())
