"""Computer players. Every bot decides from its seat's :class:`~nimmt.engine.SeatView` only.

:func:`make_bot` builds a bot from its name as used on the command line (``random``, ``greedy``,
``mc:N``, ``easy``, ``medium``, ``hard``; ``hard-v1``, ``search:...`` and ``strong:...`` for the
arena; ``cmd:COMMAND`` for a separate program, see :mod:`nimmt.bots.external`).
:data:`BOT_NAMES` lists the names offered to people.
See ``docs/bots.md`` for what each bot does and how strong it measured.
"""

from __future__ import annotations

import random

from nimmt.bots.analysis import Analysis, Candidate, NoDecisionError, analyze
from nimmt.bots.base import Bot
from nimmt.bots.external import ProgramBot, is_program
from nimmt.bots.levels import HARD_V1, LEVELS, make_level
from nimmt.bots.montecarlo import MonteCarloBot
from nimmt.bots.simple import GreedyBot, RandomBot


class UnknownBotError(ValueError):
    """A bot name that nimmt does not know."""


BOT_NAMES: tuple[str, ...] = ("random", "greedy", *LEVELS)
"""The bot names a person can choose from, weakest first (``mc:N`` is also accepted)."""

MAX_SAMPLES = 100_000
"""The largest ``N`` accepted in ``mc:N``: beyond it a decision would take minutes."""


def make_bot(name: str, rng: random.Random | int | None = None) -> Bot:
    """The bot called ``name``, drawing its random choices from ``rng`` (a ``Random`` or seed).

    A ``cmd:COMMAND`` bot is a program (:class:`~nimmt.bots.external.ProgramBot`), started at
    its first decision: whoever makes one closes it, or makes it inside a
    :class:`~nimmt.bots.external.ProgramScope`.
    """
    if is_program(name):
        try:
            return ProgramBot(name)
        except ValueError as error:
            raise UnknownBotError(f"unknown bot {name!r}: {error}") from None
    generator = rng if isinstance(rng, random.Random) else random.Random(rng)
    key = name.strip().lower()
    if key == "random":
        return RandomBot(generator)
    if key == "greedy":
        return GreedyBot(generator)
    if key in LEVELS or key == HARD_V1:
        return make_level(key, generator)
    if key.startswith(("search:", "strong:")):
        try:
            return make_level(key, generator)
        except ValueError as error:
            raise UnknownBotError(f"unknown bot {name!r}: {error}") from None
    if key.startswith("mc:"):
        count = key[3:]
        if not count.isdigit() or not 1 <= int(count) <= MAX_SAMPLES:
            raise UnknownBotError(
                f"unknown bot {name!r}: mc:N needs a whole number N from 1 to {MAX_SAMPLES}"
            )
        return MonteCarloBot(int(count), generator)
    raise UnknownBotError(
        f"unknown bot {name!r}; choose from {', '.join(BOT_NAMES)}, mc:N (e.g. mc:64) "
        'or cmd:COMMAND (e.g. cmd:"python3 mybot.py")'
    )


__all__ = [
    "BOT_NAMES",
    "LEVELS",
    "Analysis",
    "Bot",
    "Candidate",
    "GreedyBot",
    "MonteCarloBot",
    "NoDecisionError",
    "ProgramBot",
    "RandomBot",
    "UnknownBotError",
    "analyze",
    "make_bot",
]
