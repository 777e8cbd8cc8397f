"""The in-memory twin of :class:`~nimmt.server.storage.people_sql.SqlPeople` (for tests): the
same contract under a lock."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime

from nimmt.server.storage.passkeys import MemoryPasskeys
from nimmt.server.storage.people import (
    FORMER_PLAYER,
    Device,
    GameResult,
    Group,
    Member,
    PeopleLimitError,
    Profile,
    SeatLink,
    ordered,
)

RenameSeat = Callable[[str, int, str], None]
"""Renames a seat of a stored table (and its join actions): the tables' own storage does it."""


class MemoryPeople:
    """:class:`~nimmt.server.storage.people.PeopleStore` in dicts."""

    def __init__(self, rename_seat: RenameSeat) -> None:
        self._lock = threading.Lock()
        self._rename_seat = rename_seat
        self.passkeys = MemoryPasskeys()
        self._profiles: dict[str, Profile] = {}
        self._devices: dict[str, tuple[Device, str]] = {}  # device id -> (device, secret hash)
        self._links: dict[str, tuple[str, datetime]] = {}  # link hash -> (profile, expiry)
        self._groups: dict[str, Group] = {}
        self._members: dict[str, dict[str, datetime]] = {}  # group -> profile -> joined
        self._seats: dict[tuple[str, int], SeatLink] = {}
        self._group_tables: dict[str, str] = {}
        self._results: dict[tuple[str, int], GameResult] = {}

    def add_profile(self, profile: Profile, device: Device, secret_hash: str) -> None:
        with self._lock:
            self._profiles[profile.id] = profile
            self._devices[device.id] = (device, secret_hash)

    def profile(self, profile_id: str) -> Profile | None:
        with self._lock:
            return self._profiles.get(profile_id)

    def signed_in(self, secret_hash: str) -> tuple[Profile, Device] | None:
        with self._lock:
            for device, stored in self._devices.values():
                if stored == secret_hash:
                    return self._profiles[device.profile_id], device
            return None

    def update_profile(self, profile: Profile) -> None:
        with self._lock:
            if profile.id in self._profiles:
                self._profiles[profile.id] = profile

    def devices(self, profile_id: str) -> list[Device]:
        with self._lock:
            found = [d for d, _hash in self._devices.values() if d.profile_id == profile_id]
            return sorted(found, key=lambda device: (device.created_at, device.id))

    def add_device(self, device: Device, secret_hash: str, limit: int) -> None:
        with self._lock:
            held = sum(d.profile_id == device.profile_id for d, _h in self._devices.values())
            if held >= limit:
                raise PeopleLimitError(f"a profile is signed in on at most {limit} devices")
            self._devices[device.id] = (device, secret_hash)

    def remove_device(self, profile_id: str, device_id: str) -> bool:
        with self._lock:
            held = self._devices.get(device_id)
            if held is None or held[0].profile_id != profile_id:
                return False
            del self._devices[device_id]
            return True

    def add_link(self, profile_id: str, link_hash: str, expires_at: datetime) -> None:
        with self._lock:
            self._links[link_hash] = (profile_id, expires_at)

    def redeem_link(self, link_hash: str, now: datetime) -> str | None:
        with self._lock:
            held = self._links.pop(link_hash, None)
            if held is None or held[1] <= now or held[0] not in self._profiles:
                return None
            return held[0]

    def delete_profile(self, profile_id: str) -> list[tuple[str, int]]:
        with self._lock:
            self._profiles.pop(profile_id, None)
            for device_id in [
                i for i, (d, _h) in self._devices.items() if d.profile_id == profile_id
            ]:
                del self._devices[device_id]
            for link in [k for k, (p, _e) in self._links.items() if p == profile_id]:
                del self._links[link]
            self.passkeys.forget_profile(profile_id)
            for members in self._members.values():
                members.pop(profile_id, None)
            for code, group in self._groups.items():
                if group.owner_id == profile_id:
                    self._groups[code] = replace(group, owner_id=None)
            renamed = [key for key, link in self._seats.items() if link.profile_id == profile_id]
            for key in renamed:
                del self._seats[key]
            for key, result in self._results.items():
                seats = tuple(
                    replace(seat, name=FORMER_PLAYER, profile_id=None)
                    if seat.profile_id == profile_id
                    else seat
                    for seat in result.seats
                )
                self._results[key] = replace(result, seats=seats)
        for table, seat in renamed:
            self._rename_seat(table, seat, FORMER_PLAYER)
        return renamed

    def link_seat(self, link: SeatLink) -> None:
        with self._lock:
            self._seats[(link.table, link.seat)] = link

    def seat_links(self, table: str) -> list[SeatLink]:
        with self._lock:
            return sorted(
                (link for link in self._seats.values() if link.table == table),
                key=lambda link: link.seat,
            )

    def add_group(self, group: Group, joined_at: datetime) -> None:
        with self._lock:
            self._groups[group.code] = group
            self._members[group.code] = {}
            if group.owner_id is not None:
                self._members[group.code][group.owner_id] = joined_at

    def group(self, code: str) -> Group | None:
        with self._lock:
            return self._groups.get(code)

    def groups_of(self, profile_id: str) -> list[Group]:
        with self._lock:
            return sorted(
                (
                    self._groups[code]
                    for code, members in self._members.items()
                    if profile_id in members
                ),
                key=lambda group: (group.created_at, group.code),
            )

    def set_invite(self, code: str, invite_hash: str | None) -> None:
        with self._lock:
            if code in self._groups:
                self._groups[code] = replace(self._groups[code], invite_hash=invite_hash)

    def group_by_invite(self, invite_hash: str) -> Group | None:
        with self._lock:
            for group in self._groups.values():
                if group.invite_hash == invite_hash:
                    return group
            return None

    def add_member(self, code: str, profile_id: str, joined_at: datetime, limit: int) -> bool:
        with self._lock:
            members = self._members.setdefault(code, {})
            if profile_id in members:
                return False
            if len(members) >= limit:
                raise PeopleLimitError(f"a group has at most {limit} members")
            members[profile_id] = joined_at
            return True

    def members(self, code: str) -> list[Member]:
        with self._lock:
            found = [
                Member(self._profiles[pid], joined)
                for pid, joined in self._members.get(code, {}).items()
                if pid in self._profiles
            ]
            return sorted(found, key=lambda m: (m.joined_at, m.profile.id))

    def leave_group(self, code: str, profile_id: str) -> bool:
        with self._lock:
            group = self._groups.get(code)
            if group is not None and group.owner_id == profile_id:
                # An owner who leaves hands the invite to every member, as one deleted does.
                self._groups[code] = replace(group, owner_id=None)
            return self._members.get(code, {}).pop(profile_id, None) is not None

    def add_group_table(self, table: str, group: str) -> None:
        with self._lock:
            self._group_tables[table] = group

    def group_of_table(self, table: str) -> str | None:
        with self._lock:
            return self._group_tables.get(table)

    def forget_table(self, table: str) -> None:
        """The table was deleted (:meth:`~nimmt.server.storage.memory.MemoryStorage.purge`):
        its group and its seats' profiles go with it, as a database's foreign keys delete
        them; the games' results stay in the standings."""
        with self._lock:
            self._group_tables.pop(table, None)
            for key in [key for key in self._seats if key[0] == table]:
                del self._seats[key]

    def tables_of_group(self, group: str) -> set[str]:
        """The codes of the tables opened for ``group`` (for the tables' own storage, whose
        :meth:`~nimmt.server.storage.memory.MemoryStorage.list_group_open` lists them)."""
        with self._lock:
            return {table for table, of in self._group_tables.items() if of == group}

    def add_result(self, result: GameResult) -> bool:
        with self._lock:
            key = (result.table, result.game)
            if key in self._results:
                return False
            self._results[key] = result
            return True

    def results(
        self, *, group: str | None = None, profile_id: str | None = None
    ) -> list[GameResult]:
        with self._lock:
            found = [
                result
                for result in self._results.values()
                if (group is None or result.group == group)
                and (
                    profile_id is None
                    or any(seat.profile_id == profile_id for seat in result.seats)
                )
            ]
        return ordered(found)

    def note_decision_loss(self, table: str, game: int, seat: int, loss: float) -> bool:
        with self._lock:
            result = self._results.get((table, game))
            if result is None or not any(s.seat == seat for s in result.seats):
                return False
            seats = tuple(
                replace(s, decision_loss=loss) if s.seat == seat else s for s in result.seats
            )
            self._results[(table, game)] = replace(result, seats=seats)
            return True
