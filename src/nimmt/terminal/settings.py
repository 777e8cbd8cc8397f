"""What ``nimmt play`` is told (:class:`PlaySettings`) and who sits where: the person in seat 0,
bots in the seats after it, each with a name from :data:`BOT_PERSONAS`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

PERSON_SEAT = 0
"""The person always sits in seat 0; the bots take the seats after it."""

BOT_PERSONAS: tuple[str, ...] = ("Ada", "Ben", "Cleo", "Dan", "Eli", "Fay", "Gus", "Hana", "Ivo")
"""Names for the bots' seats, so the account reads like a table of people."""

DEFAULT_DELAY = 0.6
"""Seconds between two steps of the card-by-card account, when the output is a terminal."""


@dataclass(frozen=True, slots=True)
class PlaySettings:
    """Everything ``nimmt play`` is told: who plays, how the deal is drawn, how fast it is told."""

    players: int = 4
    bots: tuple[str, ...] = ("greedy",)
    """One kind for every bot seat, or one kind per bot seat (``players - 1`` of them)."""
    name: str = "You"
    seed: int | None = None
    """``None``: a fresh random seed, shown to the person so the game can be played again."""
    delay: float = 0.0
    record: Path | None = None
    coach: bool = False
    """Show before each card and row choice what every choice is expected to cost."""


def bot_kinds_for(players: int, kinds: Sequence[str]) -> tuple[str, ...]:
    """The bot kind of every bot seat: one kind repeated, or exactly one per bot seat."""
    seats = players - 1
    if len(kinds) == 1:
        return tuple(kinds) * seats
    if len(kinds) != seats:
        raise ValueError(
            f"{len(kinds)} bot kinds given for {seats} bot seats: "
            "give one kind for all of them, or one per bot seat"
        )
    return tuple(kinds)


def bot_names(person: str, players: int) -> tuple[str, ...]:
    """Distinct names for the bot seats, none equal to the person's name."""
    taken = person.casefold()
    names = [name for name in BOT_PERSONAS if name.casefold() != taken]
    return tuple(names[: players - 1])
