"""Groups: the people who play again and again together ("Thursdays at Ana's").

A profile opens a group and is its first member and owner; the owner makes an invite link
(revocable: a new one, or none, replaces it) and members join with it. A table played online or
a game with real cards can be opened for the group: its finished games count in the group's
standings (:mod:`nimmt.server.standings`), and while it is open it is listed on the group's
page, so that the members find it there. A group's page, standings and games are shown to its
members only.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from nimmt.server.assisting import AssistDesk
from nimmt.server.book import TableBook
from nimmt.server.errors import ServiceError
from nimmt.server.players import DEFAULT_AWAY_SECONDS, Players
from nimmt.server.serialize import group_table_entry, iso
from nimmt.server.standings import RECENT_GAMES, evenings, game_summary, standings
from nimmt.server.storage.people import Group, PeopleLimitError, PeopleStore, Profile, SeatLink
from nimmt.server.table import CODE_ALPHABET, SeatSpec, clean_name, hash_token

GROUP_CODE_LENGTH = 8
MAX_GROUPS = 20
"""Groups a profile may belong to."""
MAX_MEMBERS = 30
"""Members of one group."""
OPEN_TABLES = 10
"""The group's open tables its page lists, the newest."""


class Groups:
    """The groups of ``people``; new tables through ``players`` and ``assisted``. A table
    nobody acted at for ``idle_seconds`` is not listed on its group's page, as in the lobby."""

    def __init__(
        self,
        book: TableBook,
        people: PeopleStore,
        players: Players,
        assisted: AssistDesk,
        *,
        idle_seconds: float,
    ) -> None:
        self.book = book
        self.people = people
        self.players = players
        self.assisted = assisted
        self.idle_seconds = idle_seconds

    async def create(self, profile: Profile, name: object) -> Group:
        cleaned = clean_name(name)
        if len(await self.book.read(self.people.groups_of, profile.id)) >= MAX_GROUPS:
            raise ServiceError(
                "too_many_groups", f"A profile belongs to at most {MAX_GROUPS} groups.", 409
            )
        now = self.book.clock()
        group = Group(new_group_code(), cleaned, profile.id, now)
        await self.book.read(self.people.add_group, group, now)
        return group

    async def mine(self, profile: Profile) -> list[Group]:
        return await self.book.read(self.people.groups_of, profile.id)

    async def member_of(self, profile: Profile, code: str) -> Group:
        """The group ``code`` if ``profile`` belongs to it; ``group_not_found`` otherwise (a
        group's existence is nobody else's business)."""
        code = code.strip().upper()
        group = await self.book.read(self.people.group, code)
        if group is not None:
            members = await self.book.read(self.people.members, code)
            if any(member.profile.id == profile.id for member in members):
                return group
        raise ServiceError("group_not_found", "There is no such group, or you are not in it.", 404)

    async def page(self, profile: Profile, code: str) -> dict[str, Any]:
        """Everything the group's page shows: members, standings, recent games, evenings, and
        the tables open now (from the database, as the lobby: no table is loaded)."""
        group = await self.member_of(profile, code)
        members = await self.book.read(self.people.members, group.code)
        results = await self.book.read(self.people.results, group=group.code)
        return {
            "group": group_json(group, profile),
            "members": [
                {
                    "profile": m.profile.id,
                    "name": m.profile.name,
                    "emoji": m.profile.emoji,
                    "colour": m.profile.colour,
                    "joined_at": iso(m.joined_at),
                    "owner": m.profile.id == group.owner_id,
                }
                for m in members
            ],
            "games": len(results),
            "standings": standings(results, members),
            "recent": [game_summary(result) for result in reversed(results[-RECENT_GAMES:])],
            "evenings": evenings(results),
            "open": await self._open(group.code),
        }

    async def open_tables(self, profile: Profile, code: str) -> list[dict[str, Any]]:
        """The page's ``open`` alone, for a page that reads it again: no standings made."""
        group = await self.member_of(profile, code)
        return await self._open(group.code)

    async def _open(self, group: str) -> list[dict[str, Any]]:
        """The group's tables open now, from the database (as the lobby: no table is loaded)."""
        since = self.book.clock() - timedelta(seconds=self.idle_seconds)
        tables = await self.book.read(
            self.book.storage.list_group_open, group, limit=OPEN_TABLES, active_since=since
        )
        return [group_table_entry(table) for table in tables]

    async def standings(self, profile: Profile, code: str) -> dict[str, Any]:
        group = await self.member_of(profile, code)
        members = await self.book.read(self.people.members, group.code)
        results = await self.book.read(self.people.results, group=group.code)
        return {
            "group": group.code,
            "name": group.name,
            "games": len(results),
            "standings": standings(results, members),
        }

    async def new_invite(self, profile: Profile, code: str) -> str:
        """A new invite secret for the group (the old one stops working)."""
        group = await self._owned(profile, code)
        secret = secrets.token_urlsafe(18)
        await self.book.read(self.people.set_invite, group.code, hash_token(secret))
        return secret

    async def revoke_invite(self, profile: Profile, code: str) -> None:
        group = await self._owned(profile, code)
        await self.book.read(self.people.set_invite, group.code, None)

    async def _owned(self, profile: Profile, code: str) -> Group:
        group = await self.member_of(profile, code)
        if group.owner_id not in (None, profile.id):  # an owner who left hands it to everyone
            raise ServiceError("not_owner", "Only the group's owner manages its invite.", 403)
        return group

    async def join(self, profile: Profile, invite: object) -> Group:
        if not isinstance(invite, str) or not invite or len(invite) > 100:
            raise _bad_invite()
        group = await self.book.read(self.people.group_by_invite, hash_token(invite))
        if group is None:
            raise _bad_invite()
        if len(await self.book.read(self.people.groups_of, profile.id)) >= MAX_GROUPS:
            raise ServiceError(
                "too_many_groups", f"A profile belongs to at most {MAX_GROUPS} groups.", 409
            )
        try:
            await self.book.read(
                self.people.add_member, group.code, profile.id, self.book.clock(), MAX_MEMBERS
            )
        except PeopleLimitError:
            raise ServiceError(
                "group_full", f"A group has at most {MAX_MEMBERS} members.", 409
            ) from None
        return group

    async def leave(self, profile: Profile, code: str) -> None:
        group = await self.member_of(profile, code)
        await self.book.read(self.people.leave_group, group.code, profile.id)

    async def open_table(
        self,
        profile: Profile,
        code: str,
        seats: Sequence[SeatSpec],
        *,
        coach: bool = False,
        away_seconds: int = DEFAULT_AWAY_SECONDS,
    ) -> dict[str, Any]:
        """A table played online for the group, with the options of any table (the coach, the
        delay before an absent person's seat may be handed to a bot); the profile takes its
        first seat."""
        group = await self.member_of(profile, code)
        table = await self.players.create_table(
            seats, profile.name, coach=coach, away_seconds=away_seconds
        )
        await self.book.read(self.people.add_group_table, table, group.code)
        seat, token = await self.players.join(table, profile.name)
        await self.book.read(
            self.people.link_seat, SeatLink(table, seat, profile.id, hash_token(token))
        )
        return {"code": table, "url": f"/t/{table}", "seat": seat, "token": token}

    async def open_real_cards(self, profile: Profile, code: str, players: object) -> dict[str, Any]:
        """A game with real cards for the group. ``players``: in seat order, each
        ``{"profile": id}`` (a member) or ``{"name": ...}`` (a guest)."""
        group = await self.member_of(profile, code)
        if not isinstance(players, list):
            raise ServiceError("bad_request", "The players must be a list.", 422)
        members = {
            m.profile.id: m.profile for m in await self.book.read(self.people.members, group.code)
        }
        names: list[object] = []
        profiles: dict[int, str] = {}
        for seat, player in enumerate(players):
            chosen = player.get("profile") if isinstance(player, dict) else None
            if chosen is not None:
                if chosen not in members or chosen in profiles.values():
                    raise ServiceError(
                        "not_member",
                        "Each member plays once, and only members of the group.",
                        422,
                    )
                profiles[seat] = str(chosen)
                names.append(members[str(chosen)].name)
            else:
                names.append(player.get("name") if isinstance(player, dict) else None)
        table, token = await self.assisted.create(names)
        await self.book.read(self.people.add_group_table, table, group.code)
        for seat, profile_id in profiles.items():
            await self.book.read(self.people.link_seat, SeatLink(table, seat, profile_id, None))
        return {"code": table, "url": f"/t/{table}", "token": token}


def group_json(group: Group, viewer: Profile) -> dict[str, Any]:
    return {
        "code": group.code,
        "name": group.name,
        "url": f"/g/{group.code}",
        "created_at": iso(group.created_at),
        # Whether the viewer manages the invite: they opened the group, or its opener left it.
        "owner": group.owner_id in (None, viewer.id),
        "invite_open": group.invite_hash is not None,
    }


def new_group_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(GROUP_CODE_LENGTH))


def could_be_group_code(code: str) -> bool:
    """Whether ``code`` (in any case) has a group code's shape: no group has any other code.
    Only the shape: whether such a group exists is its members' business
    (:meth:`Groups.member_of`)."""
    code = code.strip().upper()
    return len(code) == GROUP_CODE_LENGTH and all(char in CODE_ALPHABET for char in code)


def _bad_invite() -> ServiceError:
    return ServiceError(
        "bad_invite", "This invite link is not valid (any more): ask for a new one.", 404
    )
