"""Every bot by its name: :func:`make_bot` builds the bot a name on the command line, in the
arena or at a web table stands for.

The names: ``random``, ``greedy``, ``mc:N``, the levels ``easy``, ``medium`` and ``hard``
(:data:`LEVELS`), ``hard-v1``, ``hard-v2``, ``search:...`` and ``strong:...`` for the arena, and
``cmd:COMMAND`` for a separate program (:mod:`nimmt.bots.external`), ``policy:PATH`` for a saved
policy (:mod:`nimmt.bots.saved`). :data:`BOT_NAMES` lists the
names offered to people. This module knows every kind of bot; no bot module knows another's
names.
"""

from __future__ import annotations

import random

from nimmt.bots.base import Bot, Limit
from nimmt.bots.external import ProgramBot, is_program
from nimmt.bots.levels import HARD_V1_SETTINGS, MEDIUM_SETTINGS, SearchBot, parse_settings
from nimmt.bots.montecarlo import MonteCarloBot
from nimmt.bots.saved import PolicyBot, PolicyFileError, is_policy
from nimmt.bots.simple import GreedyBot, RandomBot
from nimmt.bots.strong import HARD_SETTINGS, HARD_V2_SETTINGS, StrongBot, parse_strong

LEVELS: tuple[str, ...] = ("easy", "medium", "hard")
"""The levels offered to people, weakest first."""

HARD_V1 = "hard-v1"
"""The name of ``hard`` as it was before :mod:`nimmt.bots.strong`, frozen for the arena (not
offered to people)."""

HARD_V2 = "hard-v2"
"""The name of ``hard`` as it plays now (:data:`~nimmt.bots.strong.HARD_V2_SETTINGS`, numpy
rollouts), frozen for the arena (not offered to people): the yardstick a later ``hard`` is
measured against, draw for draw."""

BOT_NAMES: tuple[str, ...] = ("random", "greedy", *LEVELS)
"""The bot names a person can choose from, weakest first (``mc:N`` is also accepted)."""

MAX_SAMPLES = 100_000
"""The largest ``N`` accepted in ``mc:N``: beyond it a decision would take minutes."""


class UnknownBotError(ValueError):
    """A bot name that nimmt does not know."""


def make_bot(
    name: str, rng: random.Random | int | None = None, *, limit: Limit | None = None
) -> Bot:
    """The bot called ``name``, drawing its random choices from ``rng`` (a ``Random`` or seed).

    ``limit`` is the time the bot may take for a card decision: a bot that can keep to one
    (``hard`` and ``strong:...``) takes it, any other does its fixed amount of work. Without a
    limit, the same seed gives the same games.

    A ``cmd:COMMAND`` bot is a program (:class:`~nimmt.bots.external.ProgramBot`), started at
    its first decision: whoever makes one closes it, or makes it inside a
    :class:`~nimmt.bots.external.ProgramScope`. A ``policy:PATH`` bot reads the policy file at
    ``PATH`` (:class:`~nimmt.bots.saved.PolicyBot`); a missing or bad file is an
    :class:`UnknownBotError` that says what is wrong.
    """
    if is_program(name):
        try:
            return ProgramBot(name)
        except ValueError as error:
            raise UnknownBotError(f"unknown bot {name!r}: {error}") from None
    if is_policy(name):
        try:
            return PolicyBot(name.strip())
        except PolicyFileError as error:
            raise UnknownBotError(f"bot {name.strip()!r}: {error}") from None
    generator = rng if isinstance(rng, random.Random) else random.Random(rng)
    key = name.strip().lower()
    if key == "random":
        return RandomBot(generator)
    if key == "greedy":
        return GreedyBot(generator)
    if key == "easy":
        return MonteCarloBot(4, generator, "easy")
    if key == "medium":
        return SearchBot(MEDIUM_SETTINGS, generator, "medium")
    if key == "hard":
        return StrongBot(HARD_SETTINGS, generator, "hard", limit)
    if key == HARD_V1:
        return SearchBot(HARD_V1_SETTINGS, generator, HARD_V1)
    if key == HARD_V2:
        return StrongBot(HARD_V2_SETTINGS, generator, HARD_V2, limit)
    if key.startswith(("search:", "strong:")):
        kind, _, settings = key.partition(":")
        try:
            if kind == "search":
                return SearchBot(parse_settings(settings), generator, key)
            return StrongBot(parse_strong(settings), generator, key, limit)
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
        'cmd:COMMAND (e.g. cmd:"python3 mybot.py") or policy:PATH (a saved policy)'
    )
