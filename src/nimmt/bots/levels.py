"""The project's own levels, for people to choose from: ``easy``, ``medium``, ``hard``, and the
search of ``medium`` and ``hard-v1`` (:class:`SearchBot`); :mod:`nimmt.bots.registry` builds
each level from its name.

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

What makes :class:`SearchBot` strong is its rollout policy
(:class:`~nimmt.bots.softmin.SoftminPolicy`): ``mc:N`` plays every sampled future with
``greedy``, whose choices are a fixed function of the cards, so it predicts the other seats'
cards far more confidently than it should and plans against that prediction. Playing the
futures with a noisy ``greedy`` instead measured about 5 bullheads per deal better against three
``mc:64`` (``docs/bots.md``); more deals alone gave far less, and weighting the sampled hands by
how plausible the opponents' plays were gave nothing measurable, so it was removed.

``search:KEY=VALUE,...`` builds a :class:`SearchBot` with other settings (``strong:...`` a
:class:`~nimmt.bots.strong.StrongBot`), for experiments in the arena (for example
``search:samples=256,policy=greedy``; keys: ``samples``, ``policy`` (``greedy`` or
``softmin``), ``temperature``).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np

from nimmt.bots.batchsim import RolloutPolicy, greedy_policy
from nimmt.bots.montecarlo import card_scores, numpy_rng, row_scores
from nimmt.bots.settings import apply_settings, scaled_samples
from nimmt.bots.softmin import SoftminPolicy
from nimmt.engine import SeatView


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


MEDIUM_SETTINGS = SearchSettings(samples=16, policy="softmin", temperature=1.0)
"""The settings of ``medium``: the same search as ``hard-v1`` with 64 times fewer deals."""

HARD_V1_SETTINGS = SearchSettings(samples=1024, policy="softmin", temperature=1.0)
"""The settings of ``hard-v1``, the ``hard`` of before the learned rollout model."""
