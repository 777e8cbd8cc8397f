"""Computer players. Every bot decides from its seat's :class:`~nimmt.engine.SeatView` only.

:func:`make_bot` builds a bot from its name as used on the command line (``random``, ``greedy``,
...). :data:`BOT_NAMES` lists the names offered to people.
"""

from __future__ import annotations

import random

from nimmt.bots.base import Bot
from nimmt.bots.simple import GreedyBot, RandomBot


class UnknownBotError(ValueError):
    """A bot name that nimmt does not know."""


BOT_NAMES: tuple[str, ...] = ("random", "greedy")
"""The bot names a person can choose from, weakest first."""


def make_bot(name: str, rng: random.Random | int | None = None) -> Bot:
    """The bot called ``name``, drawing its random choices from ``rng`` (a ``Random`` or seed)."""
    generator = rng if isinstance(rng, random.Random) else random.Random(rng)
    key = name.strip().lower()
    if key == "random":
        return RandomBot(generator)
    if key == "greedy":
        return GreedyBot(generator)
    raise UnknownBotError(f"unknown bot {name!r}; choose from {', '.join(BOT_NAMES)}")


__all__ = ["BOT_NAMES", "Bot", "GreedyBot", "RandomBot", "UnknownBotError", "make_bot"]
