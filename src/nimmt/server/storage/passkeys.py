"""The storage of passkeys (WebAuthn credentials) and of the challenges of their ceremonies.

:class:`PasskeyStore` is the interface (``storage.people.passkeys`` in each backend); the
records here are what it speaks in. A challenge is kept in the database, never in a process's
memory, so that a ceremony begun at one server process can end at another; it reaches the store
only as the SHA-256 of its bytes, and it is used up by the first attempt to answer it. A
profile's deletion deletes its passkeys and its pending challenges.

:class:`MemoryPasskeys` is the in-memory twin (for tests) of
:class:`~nimmt.server.storage.passkeys_sql.SqlPasskeys`.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Literal, Protocol

Purpose = Literal["register", "sign_in"]


class PasskeyExistsError(ValueError):
    """The credential is stored already (for this profile or another)."""


class PasskeyLimitError(ValueError):
    """The profile has as many passkeys as it may."""


@dataclass(frozen=True, slots=True)
class Passkey:
    id: str
    """Public and opaque: names the passkey in the profile's routes."""
    profile_id: str
    credential_id: str
    """The credential's id, base64url (as the browser sends it)."""
    public_key: bytes
    """The credential's public key, COSE-encoded."""
    sign_count: int
    """The authenticator's signature counter as last seen (0: it keeps none)."""
    name: str | None
    created_at: datetime
    last_used_at: datetime | None = None


@dataclass(frozen=True, slots=True)
class Challenge:
    challenge_hash: str
    """SHA-256 (hex) of the challenge's bytes."""
    purpose: Purpose
    rp_id: str
    """The relying party (host name) the ceremony was begun for."""
    profile_id: str | None
    """The profile adding a passkey (``register``); ``None`` for a sign-in."""
    expires_at: datetime


class PasskeyStore(Protocol):
    """What the passkeys need from a database. Methods block: call them off the event loop;
    each is one short transaction."""

    def add_challenge(self, challenge: Challenge, now: datetime) -> None:
        """Store a challenge (and forget those expired by ``now``)."""
        ...

    def take_challenge(self, challenge_hash: str, now: datetime) -> Challenge | None:
        """The unexpired challenge, used up by this call (a second call, or one from another
        process, gets ``None``)."""
        ...

    def passkeys(self, profile_id: str) -> list[Passkey]:
        """The profile's passkeys, oldest first."""
        ...

    def by_credential(self, credential_id: str) -> Passkey | None: ...

    def add_passkey(self, passkey: Passkey, limit: int) -> None:
        """:class:`PasskeyExistsError` if the credential is stored already,
        :class:`PasskeyLimitError` if the profile has ``limit`` passkeys already."""
        ...

    def use_passkey(self, passkey_id: str, sign_count: int, now: datetime) -> bool:
        """Record a sign-in: the new counter and the time. Refused (``False``, nothing changed)
        unless the counter went up, or stays 0 for an authenticator that keeps none: of two
        answers with the same counter (a replay, a copied authenticator) only one passes."""
        ...

    def remove_passkey(self, profile_id: str, passkey_id: str) -> bool: ...


class MemoryPasskeys:
    """:class:`PasskeyStore` in dicts, under a lock."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._passkeys: dict[str, Passkey] = {}
        self._challenges: dict[str, Challenge] = {}

    def add_challenge(self, challenge: Challenge, now: datetime) -> None:
        with self._lock:
            for key in [k for k, c in self._challenges.items() if c.expires_at <= now]:
                del self._challenges[key]
            self._challenges[challenge.challenge_hash] = challenge

    def take_challenge(self, challenge_hash: str, now: datetime) -> Challenge | None:
        with self._lock:
            found = self._challenges.pop(challenge_hash, None)
        return found if found is not None and found.expires_at > now else None

    def passkeys(self, profile_id: str) -> list[Passkey]:
        with self._lock:
            found = [p for p in self._passkeys.values() if p.profile_id == profile_id]
        return sorted(found, key=lambda passkey: (passkey.created_at, passkey.id))

    def by_credential(self, credential_id: str) -> Passkey | None:
        with self._lock:
            for passkey in self._passkeys.values():
                if passkey.credential_id == credential_id:
                    return passkey
            return None

    def add_passkey(self, passkey: Passkey, limit: int) -> None:
        with self._lock:
            if any(p.credential_id == passkey.credential_id for p in self._passkeys.values()):
                raise PasskeyExistsError("this credential is stored already")
            held = sum(p.profile_id == passkey.profile_id for p in self._passkeys.values())
            if held >= limit:
                raise PasskeyLimitError(f"a profile has at most {limit} passkeys")
            self._passkeys[passkey.id] = passkey

    def use_passkey(self, passkey_id: str, sign_count: int, now: datetime) -> bool:
        with self._lock:
            passkey = self._passkeys.get(passkey_id)
            if passkey is None or not counter_goes_on(passkey.sign_count, sign_count):
                return False
            self._passkeys[passkey_id] = replace(passkey, sign_count=sign_count, last_used_at=now)
            return True

    def remove_passkey(self, profile_id: str, passkey_id: str) -> bool:
        with self._lock:
            passkey = self._passkeys.get(passkey_id)
            if passkey is None or passkey.profile_id != profile_id:
                return False
            del self._passkeys[passkey_id]
            return True

    def forget_profile(self, profile_id: str) -> None:
        """A deleted profile's passkeys and challenges go with it."""
        with self._lock:
            for key in [k for k, p in self._passkeys.items() if p.profile_id == profile_id]:
                del self._passkeys[key]
            for key in [k for k, c in self._challenges.items() if c.profile_id == profile_id]:
                del self._challenges[key]


def counter_goes_on(stored: int, new: int) -> bool:
    """Whether an authenticator's signature counter ``new`` may follow ``stored``: it must go
    up, unless the authenticator keeps no counter at all (both 0)."""
    return new > stored or new == stored == 0
