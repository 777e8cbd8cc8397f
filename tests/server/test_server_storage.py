"""The storage interface, held to the same contract by the SQLAlchemy implementation and its
in-memory twin; and the Alembic migrations produce exactly the models' schema."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from nimmt.server.models import Base
from nimmt.server.settings import Settings, normalize_database_url
from nimmt.server.storage import (
    ActionRecord,
    CodeTakenError,
    MemoryStorage,
    SeatRecord,
    SqlStorage,
    Storage,
    TableRecord,
    TableStatus,
    VersionConflictError,
)

SEATS = (SeatRecord(0, "human"), SeatRecord(1, "bot", "greedy", "Bot 2 (greedy)"))
CREATED = datetime(2026, 11, 29, 15, 0, tzinfo=UTC)


def new_table(code: str) -> TableRecord:
    return TableRecord(code, CREATED, SEATS, TableStatus(0, 1, "waiting", 0, False))


@pytest.fixture(params=["memory", "sqlite"])
def storage(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Storage]:
    made: Storage = (
        MemoryStorage() if request.param == "memory" else SqlStorage(f"sqlite:///{tmp_path}/t.db")
    )
    yield made
    made.close()


def test_the_storage_contract(storage: Storage) -> None:
    storage.create_table(new_table("AAAAAA"))
    storage.create_table(new_table("BBBBBB"))
    with pytest.raises(CodeTakenError):
        storage.create_table(new_table("AAAAAA"))
    assert storage.load_table("CCCCCC") is None
    loaded = storage.load_table("AAAAAA")
    assert loaded is not None and loaded.seats == SEATS and loaded.status.version == 0
    assert loaded.created_at == CREATED

    joined = SeatRecord(0, "human", None, "Ana", "f" * 64)
    storage.append(
        "AAAAAA",
        ActionRecord(1, 1, "join", seat=0, data={"name": "Ana"}),
        TableStatus(1, 1, "waiting", 0, False),
        joined,
    )
    deal = {"rows": [[1], [2], [3], [4]], "hands": [list(range(5, 15)), list(range(15, 25))]}
    storage.append(
        "AAAAAA",
        ActionRecord(2, 1, "deal", data=deal),
        TableStatus(2, 1, "choosing_cards", 1, False),
    )
    # A change that does not follow the stored version is refused, and nothing is kept of it.
    for seq in (2, 4):
        with pytest.raises(VersionConflictError):
            storage.append(
                "AAAAAA",
                ActionRecord(seq, 1, "play", seat=0, card=5),
                TableStatus(seq, 1, "choosing_cards", 1, False),
            )
    storage.append(
        "AAAAAA",
        ActionRecord(3, 1, "play", seat=0, card=5),
        TableStatus(3, 1, "choosing_cards", 1, False),
    )
    storage.append("AAAAAA", ActionRecord(4, 2, "rematch"), TableStatus(4, 2, "dealing", 0, False))

    loaded = storage.load_table("AAAAAA")
    assert loaded is not None
    assert loaded.seats == (joined, SEATS[1])
    assert loaded.status == TableStatus(4, 2, "dealing", 0, False)
    first_game = storage.load_actions("AAAAAA", 1)
    assert [(a.seq, a.kind) for a in first_game] == [(1, "join"), (2, "deal"), (3, "play")]
    assert first_game[1].data == deal and first_game[2].card == 5
    assert [a.kind for a in storage.load_actions("AAAAAA", 2)] == ["rematch"]
    assert storage.load_actions("BBBBBB", 1) == []

    storage.append("BBBBBB", ActionRecord(1, 1, "join"), TableStatus(1, 1, "game_over", 6, True))
    assert storage.unfinished_codes() == ["AAAAAA"]


def test_the_migrations_build_exactly_the_models(tmp_path: Path) -> None:
    storage = SqlStorage(f"sqlite:///{tmp_path}/m.db")
    with storage.engine.connect() as connection:
        differences = compare_metadata(MigrationContext.configure(connection), Base.metadata)
    storage.close()
    assert differences == []
    SqlStorage(f"sqlite:///{tmp_path}/m.db").close()  # running them again is harmless


def test_database_urls(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert normalize_database_url("postgresql://u@h/db") == "postgresql+psycopg://u@h/db"
    assert normalize_database_url("postgres://u@h/db") == "postgresql+psycopg://u@h/db"
    assert normalize_database_url("sqlite:///games.db") == "sqlite:///games.db"
    monkeypatch.setenv("NIMMT_DB", "postgresql://me@db.example/nimmt")
    assert Settings().db == "postgresql+psycopg://me@db.example/nimmt"
    monkeypatch.delenv("NIMMT_DB")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    default = Settings().db
    assert default.startswith("sqlite:///") and default.endswith("nimmt.db")
    # The default file and its directory are created on first start.
    SqlStorage(default).close()
    assert Path(default.removeprefix("sqlite:///")).is_file()
