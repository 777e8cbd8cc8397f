"""The project's own levels, for people to choose from: ``easy``, ``medium``, ``hard``.

All three are determinized Monte Carlo searches on the vectorized core
(:mod:`nimmt.bots.batchsim`); they differ in how many deals they sample and in how they play the
sampled futures. ``docs/bots.md`` gives their measured strength.

- ``easy``: ``mc:4``, flat Monte Carlo with only 4 sampled deals and ``greedy`` rollouts: it
  beats ``greedy`` but often misjudges.
- ``medium``: :class:`SearchBot` with 16 sampled deals: ``hard``'s search, with too few deals
  to see the rarer dangers.
- ``hard``: :class:`nimmt.bots.strong.StrongBot`, this search with rollouts played by a model
  learned from the search's own choices and the last two turns solved exactly.
- ``hard-v1``: the ``hard`` before that, :class:`SearchBot` with 1024 sampled deals (fewer at
  big tables), frozen for the arena and not offered to people.

What makes :class:`SearchBot` strong is its rollout policy (:class:`SoftminPolicy`): ``mc:N``
plays every sampled future with ``greedy``, whose choices are a fixed function of the cards, so
it predicts the other seats' cards far more confidently than it should and plans against that
prediction. Playing the futures with a noisy ``greedy`` instead measured about 5 bullheads per
deal better against three ``mc:64`` (``docs/bots.md``); more deals alone gave far less, and
weighting the sampled hands by how plausible the opponents' plays were gave nothing measurable,
so it was removed.

``search:KEY=VALUE,...`` builds a :class:`SearchBot` with other settings (``strong:...`` a
:class:`~nimmt.bots.strong.StrongBot`), for experiments in the arena (for example
``search:samples=256,policy=greedy``; keys: ``samples``, ``policy`` (``greedy`` or
``softmin``), ``temperature``).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, fields, replace
from typing import Any, ClassVar, Protocol, TypeVar

import numpy as np

from nimmt.bots.base import Bot
from nimmt.bots.batchsim import (
    EMPTY,
    Batch,
    IntArray,
    RolloutPolicy,
    greedy_policy,
    placement_costs,
)
from nimmt.bots.montecarlo import (
    MonteCarloBot,
    card_scores,
    numpy_rng,
    row_scores,
)
from nimmt.engine import SeatView

LEVELS: tuple[str, ...] = ("easy", "medium", "hard")
"""The levels offered to people, weakest first."""

_TINY = np.float32(1e-30)
"""Keeps the Gumbel noise finite when the uniform draw is exactly 0."""


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
        # Gumbel-max sampling: the argmin of cost / T minus Gumbel noise is a softmin draw.
        # Single precision halves the cost of the noise, which dominates this policy.
        uniform = self._rng.random(hands.shape, dtype=np.float32)
        noise = -np.log(-np.log(np.maximum(uniform, _TINY)))
        key = placement_costs(batch).astype(np.float32) * np.float32(1 / self.temperature)
        key -= noise
        key[hands == EMPTY] = np.inf
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

    def samples_for(self, players: int) -> int:
        """Fewer deals at big tables, where each one costs more (keeps 10 seats near 4's time)."""
        return scaled_samples(self.samples, players)


def scaled_samples(samples: int, players: int) -> int:
    """``samples`` at 4 seats, fewer at big tables, where each deal costs more (keeps 10 seats
    near 4's time)."""
    return max(16, int(samples * min(1.0, 4.0 / players) ** 0.5))


class _Tunable(Protocol):
    """The settings of a search: a dataclass with at least these two fields."""

    __dataclass_fields__: ClassVar[dict[str, Any]]

    @property
    def samples(self) -> int: ...

    @property
    def temperature(self) -> float: ...


Settings = TypeVar("Settings", bound=_Tunable)


def apply_settings(settings: Settings, text: str, what: str) -> Settings:
    """``settings`` with the ``key=value,...`` of ``text`` applied (keys are its fields, each
    value converted to its field's type); a ``ValueError`` naming ``what`` otherwise."""
    kinds = {field.name: type(getattr(settings, field.name)) for field in fields(settings)}
    for part in filter(None, text.split(",")):
        key, _, value = part.partition("=")
        key = key.strip()
        if key not in kinds:
            raise ValueError(f"unknown {what} setting {key!r}; known: {', '.join(kinds)}")
        try:
            converted = kinds[key](value.strip())
        except ValueError:
            raise ValueError(
                f"{what} setting {key}={value!r} is not a {kinds[key].__name__}"
            ) from None
        settings = replace(settings, **{key: converted})
    if settings.samples < 1 or settings.temperature <= 0:
        raise ValueError(f"{what} settings samples and temperature must be positive")
    return settings


def parse_settings(text: str) -> SearchSettings:
    """Settings from ``key=value,...`` (keys are :class:`SearchSettings` fields)."""
    settings = apply_settings(SearchSettings(), text, "search")
    if settings.policy not in ("greedy", "softmin"):
        raise ValueError("search setting policy must be greedy or softmin")
    return settings


class SearchBot:
    """Determinized Monte Carlo with the improvements that measured to win over ``mc:N``.

    The decision is ``mc:N``'s (same sampling, same candidates in the same deals, the same
    relative score, rows decided the same way), but the rollouts, including the other seats'
    cards of the current turn, follow :class:`SoftminPolicy`, and it can afford many more deals.
    """

    def __init__(self, settings: SearchSettings, rng: random.Random, name: str) -> None:
        self.settings = settings
        self._rng = numpy_rng(rng)
        self._name = name

    @property
    def name(self) -> str:
        return self._name

    def _policy(self) -> RolloutPolicy:
        if self.settings.policy == "softmin":
            return SoftminPolicy(self.settings.temperature, self._rng)
        return greedy_policy

    def choose_card(self, view: SeatView) -> int:
        hand = view.legal_cards()
        if len(hand) == 1:
            return hand[0]
        samples = self.settings.samples_for(view.players)
        candidates, scores = card_scores(view, samples, self._rng, self._policy())
        return candidates[int(np.argmin(scores))]

    def choose_row(self, view: SeatView) -> int:
        samples = self.settings.samples_for(view.players)
        return int(np.argmin(row_scores(view, samples, self._rng, self._policy())))


MEDIUM = SearchSettings(samples=16, policy="softmin", temperature=1.0)
"""The settings of ``medium``: the same search as ``hard`` with 64 times fewer deals."""

HARD = SearchSettings(samples=1024, policy="softmin", temperature=1.0)
"""The settings of ``hard-v1``, the ``hard`` of before the learned rollout model."""

HARD_V1 = "hard-v1"
"""The name of ``hard`` as it was before :mod:`nimmt.bots.strong`, frozen for the arena (not
offered to people)."""


def make_level(name: str, rng: random.Random) -> Bot:
    """The bot of level ``name`` (one of :data:`LEVELS`, ``hard-v1``, ``search:...`` or
    ``strong:...``)."""
    # Imported here: nimmt.bots.strong builds on this module's SoftminPolicy.
    from nimmt.bots import strong

    if name == "easy":
        return MonteCarloBot(4, rng, "easy")
    if name == "medium":
        return SearchBot(MEDIUM, rng, "medium")
    if name == "hard":
        return strong.StrongBot(strong.HARD, rng, "hard")
    if name == HARD_V1:
        return SearchBot(HARD, rng, HARD_V1)
    if name.startswith("search:"):
        return SearchBot(parse_settings(name[len("search:") :]), rng, name)
    if name.startswith("strong:"):
        return strong.StrongBot(strong.parse_strong(name[len("strong:") :]), rng, name)
    raise ValueError(f"unknown level {name!r}")
