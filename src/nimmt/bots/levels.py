"""The project's own levels, for people to choose from: ``easy``, ``medium``, ``hard``.

(Being written.)
"""

from __future__ import annotations

import random

from nimmt.bots.base import Bot
from nimmt.bots.montecarlo import MonteCarloBot

LEVELS: tuple[str, ...] = ("easy", "medium", "hard")


def make_level(name: str, rng: random.Random) -> Bot:
    if name == "easy":
        return MonteCarloBot(4, rng)
    if name == "medium":
        return MonteCarloBot(32, rng)
    return MonteCarloBot(256, rng)
