"""The storages the people tests (profiles, device links, groups, invites, results) run on:
the in-memory one, an SQLite file and a PostgreSQL database of its own in the module's
throwaway cluster (skipped where PostgreSQL is not installed).

A directory's ``conftest.py`` imports :func:`make_client` and :func:`database_url` from here:
there they stand in for the server tests' fixtures of those names, so every test that asks for
an app without a storage of its own runs once per storage."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import ExitStack
from itertools import count
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from tests.server.conftest import start_client
from tests.server.storage.test_server_storage import fresh_postgres_database

from nimmt.server.storage import MemoryStorage, SqlStorage, Storage

PEOPLE_STORAGES = ["memory", "sqlite", "postgresql"]


@pytest.fixture(params=PEOPLE_STORAGES)
def make_client(
    request: pytest.FixtureRequest, tmp_path: Path
) -> Iterator[Callable[..., TestClient]]:
    """``make_client(storage=..., **settings)``: a started TestClient, on this run's kind of
    storage when none is given; the apps stop before their databases are dropped."""
    files = count()
    with ExitStack() as stack:

        def storage_for_test() -> Storage:
            if request.param == "memory":
                return MemoryStorage()
            if request.param == "sqlite":
                return SqlStorage(f"sqlite:///{tmp_path}/people{next(files)}.db")
            cluster = request.getfixturevalue("postgres_url")
            return SqlStorage(stack.enter_context(fresh_postgres_database(cluster)))

        clients: list[TestClient] = []

        def make(storage: Storage | None = None, **settings: Any) -> TestClient:
            client = start_client(storage or storage_for_test(), **settings)
            clients.append(client)
            return client

        try:
            yield make
        finally:
            for client in reversed(clients):
                client.__exit__(None, None, None)  # the app closes its storage


@pytest.fixture
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """An empty SQL database of the run's kind (an SQLite file for the in-memory run too): for
    a test that reads the tables themselves."""
    if request.node.callspec.params.get("make_client") != "postgresql":
        yield f"sqlite:///{tmp_path}/t.db"
    else:
        with fresh_postgres_database(request.getfixturevalue("postgres_url")) as url:
            yield url
