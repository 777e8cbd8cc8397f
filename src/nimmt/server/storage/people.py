"""The storage of the people around the tables: profiles and their devices, one-time device
links, groups and their members, which seat a profile holds, and the results of finished games.

:class:`PeopleStore` is the interface (each storage backend has one as ``storage.people``);
the records here are what it speaks in. Secrets (a device's, a link's, an invite's) reach the
store only as SHA-256 hashes. Standings and histories are computed from :class:`GameResult`
rows, never stored: a result is written once, when its game is over.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol

from nimmt.server.storage.passkeys import PasskeyStore

FORMER_PLAYER = "a former player"
"""The name a deleted profile leaves in the stored games it played."""


class PeopleLimitError(ValueError):
    """A limit of the store is reached (devices of a profile, members of a group)."""


@dataclass(frozen=True, slots=True)
class Profile:
    id: str
    """Public and opaque (it names the profile in URLs and answers, never signs in)."""
    name: str
    emoji: str
    colour: str
    created_at: datetime


@dataclass(frozen=True, slots=True)
class Device:
    """One browser a profile is signed in on, by the hash of its secret."""

    id: str
    profile_id: str
    created_at: datetime


@dataclass(frozen=True, slots=True)
class Group:
    code: str
    name: str
    owner_id: str | None
    """The profile that opened it (``None`` once that profile is deleted)."""
    created_at: datetime
    invite_hash: str | None = None
    """SHA-256 of the invite link's secret; ``None`` while no invite is open."""


@dataclass(frozen=True, slots=True)
class Member:
    profile: Profile
    joined_at: datetime


@dataclass(frozen=True, slots=True)
class SeatLink:
    """A profile holds ``seat`` of table ``table``: while the seat's token hash is still
    ``token_hash`` (a seat left to a bot or freed is no longer theirs); for a game with real
    cards, ``token_hash`` is ``None`` and the seat is theirs for good."""

    table: str
    seat: int
    profile_id: str
    token_hash: str | None


@dataclass(frozen=True, slots=True)
class ResultSeat:
    seat: int
    name: str
    kind: str
    """``human``, ``bot`` or ``real`` (a person at a real table)."""
    profile_id: str | None
    total: int
    winner: bool
    rows_taken: int
    round_penalties: tuple[int, ...]
    decision_loss: float | None = None
    """The bullheads lost to the seat's own decisions by the coach's post-game review (its
    ``total_loss``), once somebody has asked for that review; ``None`` until then."""


@dataclass(frozen=True, slots=True)
class GameResult:
    """A finished game: written once when it ends, the stuff of standings and histories."""

    table: str
    game: int
    finished_at: datetime
    real: bool
    """Played with real cards (an assisted table)."""
    group: str | None
    seats: tuple[ResultSeat, ...]

    @property
    def rounds(self) -> int:
        return max((len(seat.round_penalties) for seat in self.seats), default=0)


class PeopleStore(Protocol):
    """What the profiles, groups and standings need from a database. Methods block: call them
    off the event loop; each is one short transaction."""

    @property
    def passkeys(self) -> PasskeyStore:
        """The profiles' passkeys (deleted with their profile by :meth:`delete_profile`)."""
        ...

    # profiles and devices
    def add_profile(self, profile: Profile, device: Device, secret_hash: str) -> None: ...

    def profile(self, profile_id: str) -> Profile | None: ...

    def signed_in(self, secret_hash: str) -> tuple[Profile, Device] | None:
        """The profile and device a device secret signs in, if any."""
        ...

    def update_profile(self, profile: Profile) -> None: ...

    def devices(self, profile_id: str) -> list[Device]: ...

    def add_device(self, device: Device, secret_hash: str, limit: int) -> None:
        """:class:`PeopleLimitError` if the profile has ``limit`` devices already."""
        ...

    def remove_device(self, profile_id: str, device_id: str) -> bool: ...

    def add_link(self, profile_id: str, link_hash: str, expires_at: datetime) -> None: ...

    def redeem_link(self, link_hash: str, now: datetime) -> str | None:
        """The profile of an unexpired link, which is used up by this call (a second call, or
        one from another process, gets ``None``)."""
        ...

    def delete_profile(self, profile_id: str) -> list[tuple[str, int]]:
        """Delete the profile, its devices, links, passkeys and memberships; its name in every
        stored game (the seats, the join actions, the results) becomes :data:`FORMER_PLAYER`.
        The tables and seats renamed."""
        ...

    # seats held by profiles
    def link_seat(self, link: SeatLink) -> None: ...

    def seat_links(self, table: str) -> list[SeatLink]: ...

    # groups
    def add_group(self, group: Group, joined_at: datetime) -> None:
        """Store a new group with its owner as the first member."""
        ...

    def group(self, code: str) -> Group | None: ...

    def groups_of(self, profile_id: str) -> list[Group]: ...

    def set_invite(self, code: str, invite_hash: str | None) -> None: ...

    def group_by_invite(self, invite_hash: str) -> Group | None: ...

    def add_member(self, code: str, profile_id: str, joined_at: datetime, limit: int) -> bool:
        """Add a member (``False``: they are one already); :class:`PeopleLimitError` if the
        group has ``limit`` members."""
        ...

    def members(self, code: str) -> list[Member]: ...

    def leave_group(self, code: str, profile_id: str) -> bool: ...

    def add_group_table(self, table: str, group: str) -> None: ...

    def group_of_table(self, table: str) -> str | None: ...

    # results
    def add_result(self, result: GameResult) -> bool:
        """Store a finished game's result once (``False``: it was stored already)."""
        ...

    def results(
        self, *, group: str | None = None, profile_id: str | None = None
    ) -> list[GameResult]:
        """The results of a group's games, or of the games a profile played, oldest first."""
        ...

    def note_decision_loss(self, table: str, game: int, seat: int, loss: float) -> bool:
        """Keep the coach's review of a seat's decisions with its result (``False``: no result
        of that game and seat is stored)."""
        ...


def ordered(results: Sequence[GameResult]) -> list[GameResult]:
    """Oldest first, a stable order for results finished at the same moment."""
    return sorted(results, key=lambda result: (result.finished_at, result.table, result.game))
