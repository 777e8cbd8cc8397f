"""``nimmt.client`` against a scripted socket server: a decision lost with its socket is sent again.

The real server stores an action before it answers; if it dies in between, the client cannot know
whether its decision arrived. The state that the next socket begins with says what is still owed,
and the client must answer it even for a turn it has answered before.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from typing import Any

import websockets.asyncio.server

from nimmt.client import play_seat


def state(version: int, phase: str, legal_cards: list[int]) -> str:
    """A ``state`` message with just what the client reads."""
    view = {
        "phase": phase,
        "round": 1,
        "turn": 0,
        "must_choose_row": False,
        "legal_cards": legal_cards,
    }
    message = {"type": "state", "version": version, "you": {"seat": 0}, "table": {"game": 1}}
    return json.dumps({**message, "view": view})


Scripted = Callable[[websockets.asyncio.server.ServerConnection], Awaitable[None]]


def play_against(scripted: Scripted) -> Any:
    """A seat played by ``play_seat`` (always card 12) against the ``scripted`` server."""

    async def scenario() -> Any:
        async with websockets.asyncio.server.serve(scripted, "127.0.0.1", 0) as server:
            port = server.sockets[0].getsockname()[1]
            url = f"http://127.0.0.1:{port}/t/K7QX2M"
            return await asyncio.wait_for(play_seat(url, lambda view: 12, token="tok"), 30)

    return asyncio.run(scenario())


def test_a_card_sent_on_a_socket_that_died_is_sent_again_on_the_next() -> None:
    received: list[dict[str, Any]] = []

    async def scripted(socket: websockets.asyncio.server.ServerConnection) -> None:
        # The first socket takes the card and dies before storing it; the second asks again.
        await socket.send(state(3, "choosing_cards", [12, 40]))
        received.append(json.loads(await socket.recv()))
        if len(received) == 1:
            return  # closed without an answer: the card is lost with the socket
        await socket.send(state(4, "game_over", []))

    result = play_against(scripted)
    assert result.seat == 0
    assert [message["card"] for message in received] == [12, 12]
    assert all(message == {"type": "play", "card": 12, "version": 3} for message in received)


def test_a_socket_that_drops_after_a_changes_events_asks_for_what_came_after_them() -> None:
    asked: list[str] = []

    async def scripted(socket: websockets.asyncio.server.ServerConnection) -> None:
        asked.append(socket.request.path if socket.request is not None else "")
        if len(asked) == 1:
            # Version 5's events arrive, then the socket dies before version 5's state.
            await socket.send(state(4, "choosing_cards", []))
            events = {"type": "events", "version": 5, "events": [{"type": "round_scored"}]}
            await socket.send(json.dumps(events))
            return
        await socket.send(state(5, "game_over", []))

    play_against(scripted)
    assert "since" not in asked[0]
    assert "since=5" in asked[1]  # not 4: version 5's events were heard already
