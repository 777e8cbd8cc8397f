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

A ``greedy`` opponent is the reference bot of ``docs/bots.md`` and draws nothing, and so does
an opponent that is a policy (a callable of :mod:`nimmt.env.policies`, or a saved one named
``policy:PATH``). Any other bot name that :func:`nimmt.bots.make_bot` accepts plays through its
own ``random.Random``, seeded from the generator when the environment is reset (before the first
deal).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from nimmt.bots import Bot, make_bot
from nimmt.bots.saved import PolicyFileError, is_policy, policy_path
from nimmt.bots.simple import cheapest_row, greedy_card
from nimmt.engine import DECK, HAND_SIZE, MAX_PLAYERS, MIN_PLAYERS, NUM_ROWS, SeatView
from nimmt.env.encoding import ROW_ACTION, MaskArray, action_mask, describe_action, encode_view
from nimmt.env.policies import Policy, SnapshotPolicy, policy_name

DrawArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
OpponentSpec = str | Policy
"""An opponent: a bot name, or a policy (:mod:`nimmt.env.policies`)."""

BUILTIN_OPPONENTS = ("random", "greedy")
"""The opponents drawn from the environment's own generator (the vector environment's too)."""


class IllegalActionError(ValueError):
    """An action that is not legal now, in an environment made with ``illegal_action="raise"``."""


class EnvConfigError(ValueError):
    """An environment option that nimmt does not accept (a wrong player count or bot name...)."""


def opponent_specs(
    opponents: OpponentSpec | Sequence[OpponentSpec], players: int | None
) -> tuple[OpponentSpec, ...]:
    """The opponents, one per seat after seat 0: bot names (in lower case) and policies, a
    ``policy:PATH`` name loaded as a :class:`~nimmt.env.policies.SnapshotPolicy`.

    ``opponents`` is one name or policy for every opponent (``players`` of them less one, 4
    players when ``players`` is not given) or a list of them, one per opponent.
    """
    if isinstance(opponents, str) or callable(opponents):
        count = 4 if players is None else players
        given: tuple[OpponentSpec, ...] = (opponents,) * (count - 1) if count >= 1 else ()
    else:
        given = tuple(opponents)
        if players is not None and players != len(given) + 1:
            raise EnvConfigError(
                f"{len(given)} opponents given for {players} players: "
                "give one opponent per seat after the learning seat"
            )
    total = len(given) + 1
    if not MIN_PLAYERS <= total <= MAX_PLAYERS:
        raise EnvConfigError(
            f"classic 6 nimmt! is for {MIN_PLAYERS} to {MAX_PLAYERS} players, not {total}"
        )
    loaded: dict[str, Policy] = {}  # one policy for every seat that names the same file
    specs: list[OpponentSpec] = []
    for spec in given:
        if isinstance(spec, str) and is_policy(spec):
            name = spec.strip()
            if name not in loaded:
                try:
                    loaded[name] = SnapshotPolicy.from_file(policy_path(name), name=name)
                except PolicyFileError as error:
                    raise EnvConfigError(f"opponent {name!r}: {error}") from None
            specs.append(loaded[name])
        elif isinstance(spec, str):
            specs.append(spec.strip().lower())
        elif callable(spec):
            specs.append(spec)
        else:
            raise EnvConfigError(
                f"an opponent is a bot name such as 'greedy' or a policy, not {spec!r}"
            )
    return tuple(specs)


def opponent_names(
    opponents: OpponentSpec | Sequence[OpponentSpec], players: int | None
) -> tuple[str, ...]:
    """The opponents' names, one per seat after seat 0 (a policy's own name)."""
    return tuple(spec_name(spec) for spec in opponent_specs(opponents, players))


def spec_name(spec: OpponentSpec) -> str:
    """An opponent's name: the bot name, or the policy's."""
    return spec if isinstance(spec, str) else policy_name(spec)


def policy_actions(
    policy: Policy,
    observations: npt.NDArray[np.float32],
    masks: MaskArray,
    who: str,
    where: IntArray | None = None,
) -> IntArray:
    """The actions ``policy`` chooses for ``observations`` under ``masks``, checked: an
    :class:`IllegalActionError` naming ``who`` (and the environment, from ``where``) for an
    answer of the wrong shape or an illegal action."""
    count = masks.shape[0]
    answer = np.asarray(policy(observations, masks))
    if answer.shape != (count,) or not np.issubdtype(answer.dtype, np.integer):
        raise IllegalActionError(
            f"{who} must return {count} whole numbers (one action per observation), "
            f"got an array of shape {answer.shape} and type {answer.dtype}"
        )
    actions = answer.astype(np.int64)
    legal = (actions >= 0) & (actions < masks.shape[1])
    legal &= masks[np.arange(count), np.clip(actions, 0, masks.shape[1] - 1)] == 1
    if not legal.all():
        index = int(np.flatnonzero(~legal)[0])
        place = f" in environment {int(where[index])}" if where is not None else ""
        raise IllegalActionError(
            f"{who} chose {describe_action(int(actions[index]))}{place}, which is not legal now"
        )
    return actions


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
    """A seat the environment plays: ``random``, ``greedy``, any bot of :mod:`nimmt.bots`, or a
    policy (called with the seat's observation and mask)."""

    __slots__ = ("_bot", "_policy", "name", "seat")

    def __init__(self, spec: OpponentSpec, rng: np.random.Generator, seat: int = 0) -> None:
        self.name = spec_name(spec)
        self.seat = seat
        self._bot: Bot | None = None
        self._policy: Policy | None = None
        if not isinstance(spec, str):
            self._policy = spec
        elif spec not in BUILTIN_OPPONENTS:
            seed = int(rng.integers(2**63))
            try:
                self._bot = make_bot(spec, random.Random(seed))
            except ValueError as error:
                raise EnvConfigError(str(error)) from None

    @staticmethod
    def check(spec: OpponentSpec) -> None:
        """Refuse a bot name that :func:`nimmt.bots.make_bot` does not know, before any reset."""
        if isinstance(spec, str) and spec not in BUILTIN_OPPONENTS:
            try:
                make_bot(spec, 0)
            except ValueError as error:
                raise EnvConfigError(str(error)) from None

    def _ask(self, view: SeatView) -> int:
        assert self._policy is not None
        who = f"the policy {self.name!r} of seat {self.seat}"
        observation = encode_view(view)[None, :]
        return int(policy_actions(self._policy, observation, action_mask(view)[None, :], who)[0])

    def choose_card(self, view: SeatView, draw: float) -> int:
        if self._policy is not None:
            return self._ask(view) + 1
        if self._bot is not None:
            return self._bot.choose_card(view)
        cards = view.legal_cards()
        if self.name == "random":
            return cards[int(draw * len(cards))]
        return greedy_card(view.rows, cards)

    def choose_row(self, view: SeatView, draw: float) -> int:
        if self._policy is not None:
            return self._ask(view) - ROW_ACTION
        if self._bot is not None:
            return self._bot.choose_row(view)
        if self.name == "random":
            return int(draw * NUM_ROWS)
        return cheapest_row(view.rows)
