"""Fixtures of the server tests: an app on the in-memory storage, driven through its real
HTTP routes and websockets (Starlette's TestClient)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from nimmt.server import Settings, create_app
from nimmt.server.storage import MemoryStorage, Storage


@pytest.fixture
def make_client() -> Iterator[Callable[..., TestClient]]:
    """``make_client(storage=..., deal_seed=..., **settings)``: a started TestClient."""
    clients: list[TestClient] = []

    def make(storage: Storage | None = None, **settings: Any) -> TestClient:
        settings.setdefault("bot_delay", 0.0)
        settings.setdefault("db", "sqlite://")
        app = create_app(Settings(**settings), storage=storage or MemoryStorage())
        client = TestClient(app)
        client.__enter__()
        clients.append(client)
        return client

    yield make
    for client in reversed(clients):
        client.__exit__(None, None, None)
