"""Fixtures of the server tests: an app on the in-memory storage, driven through its real
HTTP routes and websockets (Starlette's TestClient)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from tests.server.absence.absence_helpers import Table, open_table

import throwaway
from nimmt.server import Settings, create_app
from nimmt.server.storage import MemoryStorage, Storage


def start_client(storage: Storage | None = None, **settings: Any) -> TestClient:
    """A started TestClient on an app with the tests' settings (the caller exits it)."""
    settings.setdefault("bot_delay", 0.0)
    settings.setdefault("bot_processes", 0)  # quick bots think inline here; see test_botpool
    # Tests act as fast as the machine goes; the rate limit has a test of its own.
    settings.setdefault("socket_rate", 10_000.0)
    settings.setdefault("socket_burst", 10_000)
    settings.setdefault("db", "sqlite://")
    settings.setdefault("allowed_hosts", ["testserver"])  # the TestClient's Host
    app = create_app(Settings(**settings), storage=storage or MemoryStorage())
    client = TestClient(app)
    client.__enter__()
    return client


@pytest.fixture
def make_client() -> Iterator[Callable[..., TestClient]]:
    """``make_client(storage=..., deal_seed=..., **settings)``: a started TestClient."""
    clients: list[TestClient] = []

    def make(storage: Storage | None = None, **settings: Any) -> TestClient:
        client = start_client(storage, **settings)
        clients.append(client)
        return client

    yield make
    for client in reversed(clients):
        client.__exit__(None, None, None)


@pytest.fixture(scope="module")
def postgres_cluster() -> Iterator[throwaway.Postgres]:
    """A throwaway PostgreSQL 15 cluster for the module (skipped where it is not installed)."""
    if not throwaway.postgres_available():
        pytest.skip(f"PostgreSQL 15 binaries are not installed in {throwaway.PG_BIN}")
    with throwaway.postgres() as cluster:
        yield cluster


@pytest.fixture(scope="module")
def postgres_url(postgres_cluster: throwaway.Postgres) -> str:
    return postgres_cluster.url


@pytest.fixture(scope="module")
def redis_server() -> Iterator[throwaway.Redis]:
    """A throwaway Redis server for the module (skipped where redis-server is not installed)."""
    if not throwaway.redis_available():
        pytest.skip(f"{throwaway.REDIS_SERVER} is missing: apt-get install redis-server")
    with throwaway.redis() as server:
        yield server


@pytest.fixture
def table_of(make_client: Callable[..., TestClient]) -> Iterator[Callable[..., Table]]:
    """``table_of(names, **options)``: the absent-player tests' tables
    (:func:`~tests.server.absence.absence_helpers.open_table` on a fresh app), whose sockets are
    all closed before the app stops."""
    tables: list[Table] = []

    def make(names: list[str], **options: Any) -> Table:
        table = open_table(make_client, names, **options)
        tables.append(table)
        return table

    yield make
    for table in tables:
        for person in table.people:
            person.exit.close()
