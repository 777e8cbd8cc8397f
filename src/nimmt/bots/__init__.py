"""Computer players. Every bot decides from its seat's :class:`~nimmt.engine.SeatView` only.

:func:`make_bot` builds a bot from its name as used on the command line (``random``, ``greedy``,
``mc:N``, ``easy``, ``medium``, ``hard``; ``hard-v1``, ``search:...`` and ``strong:...`` for the
arena; ``cmd:COMMAND`` for a separate program, see :mod:`nimmt.bots.external`).
:data:`BOT_NAMES` lists the names offered to people. Both live in :mod:`nimmt.bots.registry`;
a :class:`Limit` given to :func:`make_bot` holds a bot that can keep to one to a time per decision.
See ``docs/bots.md`` for what each bot does and how strong it measured.
"""

from __future__ import annotations

from nimmt.bots.analysis import Analysis, Candidate, NoDecisionError, analyze
from nimmt.bots.base import Bot, Limit
from nimmt.bots.external import ProgramBot
from nimmt.bots.montecarlo import MonteCarloBot
from nimmt.bots.registry import BOT_NAMES, LEVELS, UnknownBotError, make_bot
from nimmt.bots.simple import GreedyBot, RandomBot

__all__ = [
    "BOT_NAMES",
    "LEVELS",
    "Analysis",
    "Bot",
    "Candidate",
    "GreedyBot",
    "Limit",
    "MonteCarloBot",
    "NoDecisionError",
    "ProgramBot",
    "RandomBot",
    "UnknownBotError",
    "analyze",
    "make_bot",
]
