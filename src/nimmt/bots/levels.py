"""The project's own levels, for people to choose from: ``easy``, ``medium``, ``hard``.

All three are determinized Monte Carlo searches on the vectorized core
(:mod:`nimmt.bots.search`); they differ in how many deals they sample and in how well they
judge. ``docs/bots.md`` gives their measured strength.

- ``easy``: flat Monte Carlo with only 4 sampled deals, so it often misjudges; weaker than
  ``greedy`` against a table of ``greedy`` bots it is not, but a person beats it regularly.
- ``medium``: flat Monte Carlo with 32 sampled deals (a little weaker than ``mc:64``).
- ``hard``: :class:`SearchBot`, the strongest search that this project measured to win (see
  the class for what it adds to ``mc:N``).

``search:KEY=VALUE,...`` builds a :class:`SearchBot` with other settings, for experiments in the
arena (for example ``search:samples=256,policy=greedy``).
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, fields, replace

import numpy as np
import numpy.typing as npt

from nimmt.bots.base import Bot
from nimmt.bots.montecarlo import (
    MonteCarloBot,
    card_batch,
    evaluate_cards,
    numpy_rng,
    row_scores,
    table_order,
)
from nimmt.bots.search import (
    EMPTY,
    Batch,
    IntArray,
    RolloutPolicy,
    greedy_policy,
    placement_costs,
    turns_left_after,
)
from nimmt.bots.simple import greedy_card_cost
from nimmt.engine import SeatView
from nimmt.engine.cards import HIGHEST_CARD

LEVELS: tuple[str, ...] = ("easy", "medium", "hard")
"""The levels offered to people, weakest first."""


class SoftminPolicy:
    """A noisy ``greedy``: each seat plays a card with probability proportional to
    ``exp(-cost / temperature)``, the cost being ``greedy``'s placement cost.

    In a rollout this stands for opponents whose exact choice is unknown: a single fixed
    tie-break (``greedy``'s lowest card) makes every sampled future alike and lets the search
    exploit a behaviour that real opponents do not have.
    """

    def __init__(self, temperature: float, rng: np.random.Generator) -> None:
        self.temperature = temperature
        self._rng = rng

    def __call__(self, batch: Batch) -> IntArray:
        hands = batch.hands
        noise = self._rng.gumbel(size=hands.shape)
        key = placement_costs(batch) / self.temperature - noise
        key = np.where(hands == EMPTY, np.inf, key)
        choice: IntArray = key.argmin(axis=-1)
        return choice


@dataclass(frozen=True, slots=True)
class SearchSettings:
    """How a :class:`SearchBot` searches."""

    samples: int = 512
    """Sampled deals per decision at 4 seats (scaled by :meth:`samples_for`)."""
    policy: str = "softmin"
    """Rollout policy: ``greedy`` or ``softmin``."""
    temperature: float = 1.0
    """Softmin temperature, in bullheads."""
    infer: float = 0.0
    """Temperature of the opponent model used to weight sampled hands by how plausible the
    cards each opponent played are (0: no weighting)."""
    pool: int = 4
    """With inference, sample this many times more deals and keep the most plausible."""

    def samples_for(self, players: int) -> int:
        """Fewer deals at big tables, where each one costs more (keeps 10 seats near 4's time)."""
        return max(16, int(self.samples * min(1.0, 4.0 / players) ** 0.5))


def parse_settings(text: str) -> SearchSettings:
    """Settings from ``key=value,...`` (keys are :class:`SearchSettings` fields)."""
    settings = SearchSettings()
    kinds = {field.name: type(getattr(settings, field.name)) for field in fields(settings)}
    for part in filter(None, text.split(",")):
        key, _, value = part.partition("=")
        key = key.strip()
        if key not in kinds:
            raise ValueError(f"unknown search setting {key!r}; known: {', '.join(kinds)}")
        try:
            converted = kinds[key](value.strip())
        except ValueError:
            raise ValueError(
                f"search setting {key}={value!r} is not a {kinds[key].__name__}"
            ) from None
        settings = replace(settings, **{key: converted})
    if settings.policy not in ("greedy", "softmin"):
        raise ValueError("search setting policy must be greedy or softmin")
    if settings.samples < 1 or settings.pool < 1 or settings.temperature <= 0:
        raise ValueError("search settings samples, pool and temperature must be positive")
    return settings


class SearchBot:
    """Determinized Monte Carlo with the improvements that measured to win over ``mc:N``.

    Compared with ``mc:N`` it samples many more deals (the vectorized core makes them cheap),
    plays the rollouts with :class:`SoftminPolicy` instead of ``greedy``, and can weight the
    sampled hands by how plausible the cards the opponents played this round were.
    """

    def __init__(self, settings: SearchSettings, rng: random.Random, name: str) -> None:
        self.settings = settings
        self._rng = numpy_rng(rng)
        self._name = name
        self._rows_seen: dict[tuple[int, int], tuple[tuple[int, ...], ...]] = {}

    @property
    def name(self) -> str:
        return self._name

    def _policy(self) -> RolloutPolicy:
        if self.settings.policy == "softmin":
            return SoftminPolicy(self.settings.temperature, self._rng)
        return greedy_policy

    def choose_card(self, view: SeatView) -> int:
        self._rows_seen[(view.round, view.turn)] = view.rows
        hand = view.legal_cards()
        if len(hand) == 1:
            return hand[0]
        samples = self.settings.samples_for(view.players)
        hand, batch = card_batch(view, samples, self._rng)
        if self.settings.infer > 0:
            pool_hand, pool = card_batch(view, samples * self.settings.pool, self._rng)
            del pool_hand
            keep = self._plausible(view, pool, samples)
            batch = _select(pool, keep, len(hand), samples * self.settings.pool)
        scores = evaluate_cards(
            batch, len(hand), samples, turns_left_after(view.turn), self._policy()
        )
        return hand[int(np.argmin(scores))]

    def choose_row(self, view: SeatView) -> int:
        samples = self.settings.samples_for(view.players)
        return int(np.argmin(row_scores(view, samples, self._rng, self._policy())))

    def _plausible(self, view: SeatView, pool: Batch, keep: int) -> IntArray:
        """Indices of ``keep`` deals drawn from the first candidate's deals in ``pool``, each
        with probability proportional to how likely the opponents' plays this round were
        under a softmin model of their choices."""
        size = pool.size // len(view.legal_cards())
        hands = pool.hands[:size, 1:, :]  # (S, P-1, H): the sampled hands of the others
        weights = np.zeros(size)
        order = table_order(view)[1:]
        for turn in range(len(view.played)):
            rows = self._rows_seen.get((view.round, turn))
            if rows is None:
                continue  # the bot did not see that turn's rows (joined mid-round)
            table = _plausibility_table(rows, self.settings.infer)
            for index, seat in enumerate(order):
                later = [view.played[t][seat] for t in range(turn, len(view.played))]
                # The seat's hand at that turn: its sampled hand now plus what it played since.
                mass = table[hands[:, index, :]].sum(axis=1) + table[later].sum()
                weights -= np.log(mass)
        weights = np.exp(weights - weights.max())
        probabilities = weights / weights.sum()
        chosen: IntArray = self._rng.choice(size, size=keep, p=probabilities)
        return chosen


def _plausibility_table(
    rows: Sequence[Sequence[int]], temperature: float
) -> npt.NDArray[np.float64]:
    """``exp(-cost / temperature)`` for every card on ``rows`` (0 for the empty slot)."""
    table = np.zeros(HIGHEST_CARD + 1)
    for card in range(1, HIGHEST_CARD + 1):
        table[card] = math.exp(-greedy_card_cost(rows, card) / temperature)
    return table


def _select(pool: Batch, keep: IntArray, candidates: int, pool_size: int) -> Batch:
    """The batch made of deals ``keep`` of ``pool``, for every candidate in turn."""
    index = (np.arange(candidates)[:, None] * pool_size + keep[None, :]).ravel()
    return Batch(
        ends=pool.ends[index],
        lengths=pool.lengths[index],
        heads=pool.heads[index],
        hands=pool.hands[index],
        penalties=pool.penalties[index],
    )


HARD = SearchSettings()
"""The settings of ``hard``."""


def make_level(name: str, rng: random.Random) -> Bot:
    """The bot of level ``name`` (one of :data:`LEVELS`, or ``search:...``)."""
    if name == "easy":
        return MonteCarloBot(4, rng, "easy")
    if name == "medium":
        return MonteCarloBot(32, rng, "medium")
    if name == "hard":
        return SearchBot(HARD, rng, "hard")
    if name.startswith("search:"):
        return SearchBot(parse_settings(name[len("search:") :]), rng, name)
    raise ValueError(f"unknown level {name!r}")
