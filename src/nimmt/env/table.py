"""What the environments share besides the encoding: the seeded deal, the opponents, the errors.

Every random thing in an environment comes from its NumPy generator (``env.np_random``, seeded
by ``reset(seed=...)``), in a fixed order, so that the single and the vectorized environments
deal the same rounds and their opponents make the same choices for the same seed. At the start
of each round the generator gives, in this order:

1. ``permutation(104)``: the shuffled deck; its first 4 cards start the rows, the next 10 are
   seat 0's hand, the next 10 seat 1's, and so on;
2. ``random((10, players, 2))``: for turn ``t`` and seat ``s``, ``[t, s, 0]`` picks a ``random``
   opponent's card (the ``floor(u * n)``-th lowest of its ``n`` cards) and ``[t, s, 1]`` the row
   it takes when its card is below every row (``floor(u * 4)``).

A ``greedy`` opponent is the reference bot of ``docs/bots.md`` and draws nothing. Any other bot
name that :func:`nimmt.bots.make_bot` accepts plays through its own ``random.Random``, seeded
from the generator when the environment is reset (before the first deal).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from nimmt.bots import Bot, make_bot
from nimmt.bots.simple import cheapest_row, greedy_card
from nimmt.engine import DECK, HAND_SIZE, MAX_PLAYERS, MIN_PLAYERS, NUM_ROWS, SeatView

DrawArray = npt.NDArray[np.float64]

BUILTIN_OPPONENTS = ("random", "greedy")
"""The opponents drawn from the environment's own generator (the vector environment's too)."""


class IllegalActionError(ValueError):
    """An action that is not legal now, in an environment made with ``illegal_action="raise"``."""


class EnvConfigError(ValueError):
    """An environment option that nimmt does not accept (a wrong player count or bot name...)."""


def opponent_names(opponents: str | Sequence[str], players: int | None) -> tuple[str, ...]:
    """The opponents' bot names, one per seat after seat 0.

    ``opponents`` is one name for every opponent (``players`` of them less one, 4 players when
    ``players`` is not given) or a list of names, one per opponent.
    """
    if isinstance(opponents, str):
        count = 4 if players is None else players
        names: tuple[str, ...] = (opponents,) * (count - 1) if count >= 1 else ()
    else:
        names = tuple(opponents)
        if players is not None and players != len(names) + 1:
            raise EnvConfigError(
                f"{len(names)} opponents given for {players} players: "
                "give one opponent per seat after the learning seat"
            )
    total = len(names) + 1
    if not MIN_PLAYERS <= total <= MAX_PLAYERS:
        raise EnvConfigError(
            f"classic 6 nimmt! is for {MIN_PLAYERS} to {MAX_PLAYERS} players, not {total}"
        )
    for name in names:
        if not isinstance(name, str):
            raise EnvConfigError(f"an opponent is a bot name such as 'greedy', not {name!r}")
    return tuple(name.strip().lower() for name in names)


def check_choice(name: str, value: str, choices: Sequence[str]) -> str:
    """``value`` if it is one of ``choices``, else an :class:`EnvConfigError` naming them."""
    if value not in choices:
        raise EnvConfigError(
            f"{name} must be one of {', '.join(map(repr, choices))}, not {value!r}"
        )
    return value


@dataclass(frozen=True, slots=True)
class Deal:
    """One round's cards and the ``random`` opponents' draws, from the generator."""

    rows: list[list[int]]
    hands: list[list[int]]
    draws: DrawArray
    """``(10, players, 2)``: see the module docstring."""


def deal_round(rng: np.random.Generator, players: int) -> Deal:
    """Draw one round from ``rng`` (see the module docstring for the order)."""
    deck = rng.permutation(len(DECK)) + 1
    draws = rng.random((HAND_SIZE, players, 2))
    rows = [[int(card)] for card in deck[:NUM_ROWS]]
    hands = [
        sorted(
            int(card)
            for card in deck[NUM_ROWS + seat * HAND_SIZE : NUM_ROWS + (seat + 1) * HAND_SIZE]
        )
        for seat in range(players)
    ]
    return Deal(rows, hands, draws)


class Opponent:
    """A seat the environment plays: ``random``, ``greedy`` or any bot of :mod:`nimmt.bots`."""

    __slots__ = ("_bot", "name")

    def __init__(self, name: str, rng: np.random.Generator) -> None:
        self.name = name
        self._bot: Bot | None = None
        if name not in BUILTIN_OPPONENTS:
            seed = int(rng.integers(2**63))
            try:
                self._bot = make_bot(name, random.Random(seed))
            except ValueError as error:
                raise EnvConfigError(str(error)) from None

    @staticmethod
    def check(name: str) -> None:
        """Refuse a bot name that :func:`nimmt.bots.make_bot` does not know, before any reset."""
        if name not in BUILTIN_OPPONENTS:
            try:
                make_bot(name, 0)
            except ValueError as error:
                raise EnvConfigError(str(error)) from None

    def choose_card(self, view: SeatView, draw: float) -> int:
        if self._bot is not None:
            return self._bot.choose_card(view)
        cards = view.legal_cards()
        if self.name == "random":
            return cards[int(draw * len(cards))]
        return greedy_card(view.rows, cards)

    def choose_row(self, view: SeatView, draw: float) -> int:
        if self._bot is not None:
            return self._bot.choose_row(view)
        if self.name == "random":
            return int(draw * NUM_ROWS)
        return cheapest_row(view.rows)
