"""Helpers shared by the server tests: creating tables, reading a socket until a message comes,
and looking at a table's state from inside the service (to prove a refusal changed nothing)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from starlette.testclient import TestClient, WebSocketTestSession

from nimmt.server.serialize import view_to_json
from nimmt.server.service import GameService

Message = dict[str, Any]


def create_table(client: TestClient, seats: list[Message], name: str = "Ana") -> tuple[str, str]:
    answer = client.post("/api/tables", json={"seats": seats, "name": name})
    assert answer.status_code == 201, answer.text
    return answer.json()["code"], answer.json()["token"]


def join(client: TestClient, code: str, name: str) -> str:
    answer = client.post(f"/api/tables/{code}/join", json={"name": name})
    assert answer.status_code == 200, answer.text
    token: str = answer.json()["token"]
    return token


def receive_until(
    ws: WebSocketTestSession, wanted: Callable[[Message], bool], seen: list[Message] | None = None
) -> Message:
    """Read messages until one is ``wanted`` (each read also lands in ``seen``)."""
    for _ in range(10_000):
        message: Message = ws.receive_json()
        if seen is not None:
            seen.append(message)
        if wanted(message):
            return message
    raise AssertionError("the wanted message never came")


def service_of(client: TestClient) -> GameService:
    service: GameService = client.app.state.service  # type: ignore[attr-defined]
    return service


def snapshot(client: TestClient, code: str) -> Message:
    """Everything about a table that an action could change: version, every seat's full view,
    the stored actions."""
    service = service_of(client)
    table = service._tables[code]
    storage = service.storage
    stored = client.portal.call(  # type: ignore[union-attr]
        _stored_actions, storage, code, table.game_number
    )
    return {
        "version": table.version,
        "decision_version": table.decision_version,
        "views": [
            view_to_json(
                table.game.view(seat), table.names(), table.game.waiting_for(), seated=table.full
            )
            for seat in [None, *range(len(table.seats))]
        ],
        "events": len(table.game.events),
        "stored": stored,
    }


async def _stored_actions(storage: Any, code: str, game: int) -> list[Any]:
    return list(storage.load_actions(code, game))
