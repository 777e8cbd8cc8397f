"""Profiles without passwords: a person is kept by a long-lived secret in their browser, of
which the server stores only a hash.

A profile is made in one step (a name and an avatar: an emoji from :data:`AVATAR_EMOJI` on a
colour from :data:`AVATAR_COLOURS`) and signs in the device that made it. Another device is
signed in by a one-time link (valid :data:`LINK_MINUTES` minutes, used up when redeemed) or by
one of the profile's passkeys (:mod:`nimmt.server.passkeys`, :attr:`Profiles.passkeys`); a
device can be signed out, the profile renamed or deleted. Deleting it leaves the games it played
intact, its name in them replaced by :data:`~nimmt.server.storage.people.FORMER_PLAYER`.

A profile takes part in a table only through a seat it holds (:meth:`Profiles.claim_seat`),
checked against the seat's own token: playing without a profile stays exactly as it was.
"""

from __future__ import annotations

import secrets
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

from nimmt.server.book import TableBook
from nimmt.server.errors import ServiceError
from nimmt.server.passkeys import Passkeys
from nimmt.server.standings import history
from nimmt.server.storage.people import Device, PeopleLimitError, PeopleStore, Profile, SeatLink
from nimmt.server.table import clean_name, hash_token

AVATAR_EMOJI = (
    "🐮",
    "🐂",
    "🐃",
    "🦬",
    "🐄",
    "🐑",
    "🐐",
    "🦊",
    "🐻",
    "🐼",
    "🐸",
    "🦉",
    "🐢",
    "🐙",
    "🦄",
    "🐝",
    "🌻",
    "🍀",
    "🍒",
    "🎲",
    "🃏",
    "⭐",
    "🔥",
    "🌈",
)
"""The emoji a profile's avatar may show (a fixed set: no text smuggled in as an avatar)."""
AVATAR_COLOURS = (
    "#1f5a45",
    "#2e6fb7",
    "#8c3fa8",
    "#c0392b",
    "#d68910",
    "#5d6d7e",
    "#117a65",
    "#b03a2e",
)
"""The colours behind the avatar's emoji, dark enough for white text on them."""
LINK_MINUTES = 5
"""How long a device link stays valid."""
MAX_DEVICES = 10
"""Devices a profile may be signed in on at once."""


class Profiles:
    """The profiles of ``people``; ``book`` for the tables whose seats they hold."""

    def __init__(self, book: TableBook, people: PeopleStore) -> None:
        self.book = book
        self.people = people
        self.passkeys = Passkeys(book, people, self.new_device)

    async def create(self, name: object, emoji: object, colour: object) -> tuple[Profile, str]:
        """A new profile and the secret that keeps it on this device (shown only this once)."""
        cleaned = clean_name(name)
        emoji_, colour_ = check_avatar(emoji, colour)
        now = self.book.clock()
        profile = Profile(new_id(), cleaned, emoji_, colour_, now)
        secret = secrets.token_urlsafe(32)
        device = Device(new_id(), profile.id, now)
        await self.book.read(self.people.add_profile, profile, device, hash_token(secret))
        return profile, secret

    async def signed_in(self, secret: str | None) -> tuple[Profile, Device]:
        """The profile and device of a device secret; ``no_profile`` (401) if it signs in none."""
        if secret:
            found = await self.book.read(self.people.signed_in, hash_token(secret))
            if found is not None:
                return found
        raise ServiceError(
            "no_profile", "This device is not signed in to a profile (or it was signed out).", 401
        )

    async def update(
        self, profile: Profile, *, name: object = None, emoji: object = None, colour: object = None
    ) -> Profile:
        """Rename the profile or change its avatar (what is ``None`` stays)."""
        changed = profile
        if name is not None:
            changed = replace(changed, name=clean_name(name))
        if emoji is not None or colour is not None:
            emoji_, colour_ = check_avatar(
                profile.emoji if emoji is None else emoji,
                profile.colour if colour is None else colour,
            )
            changed = replace(changed, emoji=emoji_, colour=colour_)
        await self.book.read(self.people.update_profile, changed)
        return changed

    async def devices(self, profile: Profile) -> list[Device]:
        return await self.book.read(self.people.devices, profile.id)

    async def sign_out(self, profile: Profile, device_id: str) -> None:
        """Sign out one of the profile's devices (its secret stops working at once)."""
        if not await self.book.read(self.people.remove_device, profile.id, device_id):
            raise ServiceError("device_not_found", "This profile has no such device.", 404)

    async def device_link(self, profile: Profile) -> tuple[str, datetime]:
        """A one-time secret that signs in another device, and until when it is valid."""
        secret = secrets.token_urlsafe(24)
        expires = self.book.clock() + timedelta(minutes=LINK_MINUTES)
        await self.book.read(self.people.add_link, profile.id, hash_token(secret), expires)
        return secret, expires

    async def redeem(self, link: object) -> tuple[Profile, str]:
        """Sign in a new device with a device link: the profile and the device's own secret.
        The link is used up, whether or not the device could be added."""
        if not isinstance(link, str) or not link or len(link) > 100:
            raise _bad_link()
        now = self.book.clock()
        profile_id = await self.book.read(self.people.redeem_link, hash_token(link), now)
        profile = None
        if profile_id is not None:
            profile = await self.book.read(self.people.profile, profile_id)
        if profile is None:
            raise _bad_link()
        return profile, await self.new_device(profile)

    async def new_device(self, profile: Profile) -> str:
        """Sign a new device in to the profile (by a device link or a passkey): its secret."""
        secret = secrets.token_urlsafe(32)
        device = Device(new_id(), profile.id, self.book.clock())
        try:
            await self.book.read(self.people.add_device, device, hash_token(secret), MAX_DEVICES)
        except PeopleLimitError:
            raise ServiceError(
                "too_many_devices",
                f"A profile is signed in on at most {MAX_DEVICES} devices: sign one out first.",
                409,
            ) from None
        return secret

    async def delete(self, profile: Profile) -> None:
        """Delete the profile; its name in every stored game becomes "a former player". The
        tables this process holds are rebuilt from the database to show it at once."""
        renamed = await self.book.read(self.people.delete_profile, profile.id)
        for code in sorted({code for code, _seat in renamed}):
            table = self.book.tables.get(code)
            if table is None:
                continue
            async with table.lock:
                await self.book.restore(table)
                self.book.publish(table)

    async def history(self, profile: Profile) -> dict[str, Any]:
        """Every finished game the profile played, and its figures
        (:func:`nimmt.server.standings.history`)."""
        results = await self.book.read(self.people.results, profile_id=profile.id)
        return history(results, profile.id)

    async def claim_seat(self, profile: Profile, code: str, token: str) -> None:
        """The seat that ``token`` holds at table ``code`` is the profile's: its games there
        count in the profile's history (and its group's standings)."""
        table = await self.book.load(code)
        async with table.lock:
            seat = table.seat_of_token(token)
        if seat is None:
            raise ServiceError("bad_token", "This token holds no seat at this table.", 403)
        link = SeatLink(table.code, seat, profile.id, hash_token(token))
        await self.book.read(self.people.link_seat, link)


def check_avatar(emoji: object, colour: object) -> tuple[str, str]:
    if emoji not in AVATAR_EMOJI or colour not in AVATAR_COLOURS:
        raise ServiceError(
            "bad_avatar", "Choose the avatar's emoji and colour from the ones offered.", 422
        )
    assert isinstance(emoji, str) and isinstance(colour, str)
    return emoji, colour


def new_id() -> str:
    """An opaque public identifier (72 random bits, URL-safe)."""
    return secrets.token_urlsafe(9)


def _bad_link() -> ServiceError:
    return ServiceError(
        "bad_link",
        "This device link is not valid any more: make a new one (it lasts "
        f"{LINK_MINUTES} minutes and works once).",
        410,
    )
