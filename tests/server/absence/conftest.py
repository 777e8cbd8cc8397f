"""The absent-player tests' fixture: tables whose sockets are all closed before the app stops."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient
from tests.server.absence.absence_helpers import Table, open_table


@pytest.fixture
def table_of(make_client: Callable[..., TestClient]) -> Iterator[Callable[..., Table]]:
    """``table_of(names, **options)``: :func:`open_table` on a fresh app."""
    tables: list[Table] = []

    def make(names: list[str], **options: Any) -> Table:
        table = open_table(make_client, names, **options)
        tables.append(table)
        return table

    yield make
    for table in tables:
        for person in table.people:
            person.exit.close()
