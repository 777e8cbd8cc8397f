"""The passkey store's contract on every backend (memory, SQLite, PostgreSQL): a challenge is
taken once and not after its time, expired ones are forgotten, a credential is stored once and
at most ``limit`` per profile, the counter moves by compare-and-set, and a profile's deletion
takes its passkeys and pending challenges with it."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from tests.server.storage.test_server_storage import fresh_postgres_database

from nimmt.server.storage import MemoryStorage, SqlStorage, Storage
from nimmt.server.storage.passkeys import (
    Challenge,
    Passkey,
    PasskeyExistsError,
    PasskeyLimitError,
)
from nimmt.server.storage.people import Device, Profile

NOW = datetime(2026, 12, 1, 20, 0, tzinfo=UTC)
LATER = NOW + timedelta(minutes=2)


@pytest.fixture(params=["memory", "sqlite", "postgresql"])
def storage(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Storage]:
    if request.param == "memory":
        yield MemoryStorage()
    elif request.param == "sqlite":
        made = SqlStorage(f"sqlite:///{tmp_path}/t.db")
        yield made
        made.close()
    else:
        with fresh_postgres_database(request.getfixturevalue("postgres_url")) as url:
            made = SqlStorage(url)
            yield made
            made.close()


def profile(storage: Storage, profile_id: str) -> None:
    storage.people.add_profile(
        Profile(profile_id, profile_id.title(), "🐮", "#1f5a45", NOW),
        Device(f"d-{profile_id}", profile_id, NOW),
        f"{profile_id:0<64}",
    )


def passkey(number: int, profile_id: str = "ana", count: int = 0) -> Passkey:
    return Passkey(f"k{number}", profile_id, f"cred-{number}", b"\x01\x02" * 40, count, None, NOW)


def test_challenges_are_taken_once_and_in_time(storage: Storage) -> None:
    store = storage.people.passkeys
    profile(storage, "ana")
    store.add_challenge(Challenge("a" * 64, "register", "testserver", "ana", LATER), NOW)
    store.add_challenge(Challenge("b" * 64, "sign_in", "localhost", None, LATER), NOW)
    taken = store.take_challenge("a" * 64, NOW)
    assert taken == Challenge("a" * 64, "register", "testserver", "ana", LATER)
    assert store.take_challenge("a" * 64, NOW) is None
    assert store.take_challenge("b" * 64, LATER) is None  # expired (and used up)
    store.add_challenge(Challenge("c" * 64, "sign_in", "localhost", None, LATER), NOW)
    # A new challenge forgets the expired ones.
    store.add_challenge(
        Challenge("d" * 64, "sign_in", "localhost", None, LATER + timedelta(minutes=2)), LATER
    )
    assert store.take_challenge("c" * 64, NOW) is None
    assert store.take_challenge("d" * 64, LATER) is not None


def test_passkeys_are_stored_once_within_the_limit(storage: Storage) -> None:
    store = storage.people.passkeys
    profile(storage, "ana")
    profile(storage, "ben")
    store.add_passkey(passkey(1, count=3), limit=2)
    store.add_passkey(passkey(2), limit=2)
    with pytest.raises(PasskeyLimitError):
        store.add_passkey(passkey(3), limit=2)
    with pytest.raises(PasskeyExistsError):
        store.add_passkey(Passkey("k9", "ben", "cred-1", b"x", 0, "Key", NOW), limit=2)
    assert [p.id for p in store.passkeys("ana")] == ["k1", "k2"]
    assert store.passkeys("ben") == []
    assert store.by_credential("cred-1") == passkey(1, count=3)
    assert store.by_credential("cred-9") is None
    assert not store.remove_passkey("ben", "k1")
    assert store.remove_passkey("ana", "k2")
    assert [p.id for p in store.passkeys("ana")] == ["k1"]


def test_the_counter_moves_by_compare_and_set(storage: Storage) -> None:
    store = storage.people.passkeys
    profile(storage, "ana")
    store.add_passkey(passkey(1, count=3), limit=5)
    store.add_passkey(passkey(2, count=0), limit=5)
    assert not store.use_passkey("k1", 3, LATER)
    assert not store.use_passkey("k1", 2, LATER)
    assert store.use_passkey("k1", 4, LATER)
    assert not store.use_passkey("k1", 4, LATER)  # the same answer a second time
    found = store.by_credential("cred-1")
    assert found is not None and found.sign_count == 4 and found.last_used_at == LATER
    assert store.use_passkey("k2", 0, NOW) and store.use_passkey("k2", 0, LATER)
    assert store.use_passkey("k2", 2**32 - 1, LATER)  # an unsigned 32-bit counter fits
    assert not store.use_passkey("k9", 5, LATER)


def test_a_deleted_profile_takes_its_passkeys_and_challenges(storage: Storage) -> None:
    store = storage.people.passkeys
    profile(storage, "ana")
    profile(storage, "ben")
    store.add_passkey(passkey(1), limit=5)
    store.add_passkey(passkey(2, "ben"), limit=5)
    store.add_challenge(Challenge("a" * 64, "register", "testserver", "ana", LATER), NOW)
    storage.people.delete_profile("ana")
    assert store.passkeys("ana") == [] and store.by_credential("cred-1") is None
    assert store.take_challenge("a" * 64, NOW) is None
    assert [p.id for p in store.passkeys("ben")] == ["k2"]
