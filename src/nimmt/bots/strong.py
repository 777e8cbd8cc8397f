"""``hard``: determinized Monte Carlo whose futures are played by a learned model of strong play.

The search is ``hard-v1``'s (:class:`~nimmt.bots.levels.SearchBot`): sample deals of the unseen
cards, try every candidate in the same deals, play the rest of the round out and keep the best
mean relative score. What changed:

- who plays the futures: ``hard-v1``'s rollouts follow a noisy ``greedy``
  (:class:`~nimmt.bots.softmin.SoftminPolicy`), ``hard``'s follow
  :class:`~nimmt.bots.policy.ModelPolicy`, a model fitted to the card choices of the search
  itself (expert iteration), so that it predicts what a searching opponent does;
- which deals it samples: hands that explain what the others played this round, by that same
  model (:mod:`nimmt.bots.belief`), rather than uniform ones;
- where the deals go: after a first look at every card, the close ones get more (successive
  halving), and the last two turns are solved exactly (:mod:`nimmt.bots.endgame`).

``strong:KEY=VALUE,...`` builds the same bot with other settings, for experiments in the arena
(keys: the fields of :class:`StrongSettings`). ``docs/bots.md`` records what was measured.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import numpy.typing as npt

from nimmt.bots.base import Limit
from nimmt.bots.batchsim import IntArray, RolloutPolicy, Scorer, batch_from_rows, relative_scores
from nimmt.bots.belief import Belief, belief, rows_before_each_turn
from nimmt.bots.endgame import endgame_card_scores, leaves_per_deal
from nimmt.bots.levelk import (
    WEIGHT_GRID,
    FloatArray,
    card_scores_against,
    draw_weights,
    level2_logits,
    turn_evidence,
)
from nimmt.bots.montecarlo import card_scores, hand_deals, numpy_rng, row_scores, table_order
from nimmt.bots.objective import ENDS_FROM, GameObjective
from nimmt.bots.policy import SHIPPED_WEIGHTS, ModelPolicy, card_logits, shipped_weights
from nimmt.bots.settings import apply_settings, scaled_samples
from nimmt.bots.softmin import SoftminPolicy
from nimmt.bots.worthfit import Coefficients, shipped_coefficients
from nimmt.engine import SeatView

POLICIES = ("model", "softmin")
CORES = ("numpy", "numba")
OBJECTIVES = ("round", "game")


@dataclass(frozen=True, slots=True)
class StrongSettings:
    """How a :class:`StrongBot` searches."""

    samples: int = 1024
    """Sampled deals per decision at 4 seats (fewer at big tables: see :meth:`samples_for`)."""
    policy: str = "model"
    """Rollout policy: ``model`` (the learned model) or ``softmin`` (``hard-v1``'s)."""
    core: str = "numpy"
    """Where the model's rollouts run: ``numpy`` (batch calls, as ``hard`` plays today) or
    ``numba`` (one compiled call per turn, :mod:`nimmt.bots.kernels`: the same draws, several
    times less CPU; a choice differs only at a near tie of two noisy scores)."""
    temperature: float = 1.0
    """Divides the rollout policy's scores (1: as fitted; lower: more confident)."""
    weights: str = SHIPPED_WEIGHTS
    """The model's weights: a file shipped with :mod:`nimmt.bots`, or a path (holding a ``/``)
    to one written by ``scripts/train_policy.py fit`` (experiments)."""
    own_weights: str = ""
    """With the model's rollouts: the weights that play the deciding seat's own later cards
    (empty: ``weights``, as the others'), a file shipped with :mod:`nimmt.bots` or a path, for
    experiments. Weights trained by self-play (``scripts/train_policy.py selfplay``) play better
    but made the search worse (``docs/bots.md``, "A ninth screen"): the rollouts must predict
    the search's own play, which the shipped weights already do."""
    own_temperature: float = 0.0
    """With the model's rollouts: divides the deciding seat's own scores in its later turns
    instead (0: ``temperature``, as the others'). Lower: the search expects to play its own
    later cards closer to the model's favourite than it expects the others to."""
    endgame: int = 2
    """With at most this many cards in hand, solve the sampled deals exactly
    (:mod:`nimmt.bots.endgame`) instead of rolling out (0: never)."""
    leaves: int = 65_536
    """The most whole futures an exact decision may enumerate (deals times futures per deal)."""
    min_exact_deals: int = 128
    """Roll out instead when the budget leaves fewer deals than this for an exact decision."""
    keep: int = 3
    """After the first ``samples`` deals, the cards with the best means so far that get more."""
    more: int = 2048
    """Fresh deals (at 4 seats; scaled like ``samples``) for each card kept at the first stage."""
    stages: int = 2
    """Stages of refinement: stage ``i`` keeps the ``max(keep - i, 2)`` best cards and gives
    them ``more * 2**i`` fresh deals each (0: a flat search)."""
    row_samples: int = 4096
    """Sampled deals per row at a row choice (at 4 seats; scaled like ``samples``)."""
    belief: float = 2.0
    """Weight the sampled deals by the model's likelihood of the others' plays so far, to
    this power (:mod:`nimmt.bots.belief`; 0: uniform deals)."""
    adapt: float = 0.0
    """With beliefs: judge each other seat's plays by a mixture of the model and a uniformly
    random card, the model's share fitted to how well it explained that seat's plays this round
    (:func:`~nimmt.bots.belief.model_shares`; the value is the prior, 1: uniform over the
    share, larger: leaning towards the model; 0: the model alone, as ``hard-v2``). An opponent
    the model reads badly then weighs the deals little."""
    pool: int = 16
    """With beliefs: the deals are drawn from this many times as many uniform ones."""
    belief_seats: int = 4
    """Beliefs are used at tables of at least this many seats. At 3 seats, against ``mc:64``,
    they measured worse than none: the model, fitted to ``hard-v1``'s play, misreads opponents
    that play otherwise, and with only two others each misread weighs more."""
    objective: str = "round"
    """What a decision plays for: ``round``, the round's relative score (``hard-v2``); ``game``,
    in a round that may end the game, the chance of winning it
    (:class:`~nimmt.bots.objective.GameObjective`)."""
    game_from: float = ENDS_FROM
    """With ``objective=game``: the share of a decision's sampled futures in which somebody
    passes 66 from which it plays to win the game."""
    level2: float = 0.0
    """Draw the others' cards of this turn from the model lowered by this weight times each
    card's worth to its holder over model-played futures (:mod:`nimmt.bots.levelk`; 0: the
    model alone, as ``hard-v2``)."""
    level2_deals: int = 32
    """With ``level2``: the sampled deals whose others' cards are judged (every stage's futures
    are drawn from them)."""
    level2_rollouts: int = 32
    """With ``level2``: the futures that judge each card of each other seat in each deal."""
    level2_adapt: int = 0
    """With ``level2``: 1 judges each other seat's weight of the worth from its plays so far
    this round instead (a posterior over :data:`~nimmt.bots.levelk.WEIGHT_GRID` from a uniform
    prior, :func:`~nimmt.bots.levelk.turn_evidence`; each deal draws one weight per seat), so a
    seat whose plays the worth explains badly is drawn from about the model alone; 0: the
    weight ``level2`` for every seat."""
    level2_zero: float = 0.0
    """With ``level2_adapt``: the prior's mass at weight 0 (the model alone), the rest shared
    evenly by the other weights (:func:`~nimmt.bots.levelk.weight_prior`); 0: uniform."""
    level2_worth: str = ""
    """With ``level2``: how each worth is judged. Empty: played out over ``level2_rollouts``
    futures (and each past play's over ``level2_futures``); otherwise the coefficients that
    read it from its holder's features (:mod:`nimmt.bots.worthfit`): a file shipped with the
    package (``worth_coefficients.json``) or a path, as ``bench/worth_fit.py`` writes it."""
    level2_hands: int = 16
    """With ``level2_adapt``: the sampled hands over which each past play is judged."""
    level2_futures: int = 8
    """With ``level2_adapt``: the futures that judge each card of such a hand."""
    budget: float = 0.0
    """Seconds a card decision should take at most (0: no limit). The first stage always runs;
    a refinement stage starts only while less than half the budget is spent, so a busy machine
    makes the decision rougher rather than later. A limit makes play depend on the machine's
    speed: the arena's ``hard`` has none (the same seed gives the same games), the server's
    has one (a :class:`~nimmt.bots.base.Limit` given to :class:`StrongBot`)."""

    def samples_for(self, players: int) -> int:
        """Fewer deals at big tables, where each one costs more."""
        return scaled_samples(self.samples, players)


def parse_strong(text: str) -> StrongSettings:
    """Settings from ``key=value,...`` (keys are :class:`StrongSettings` fields)."""
    settings = apply_settings(StrongSettings(), text, "strong")
    if settings.policy not in POLICIES:
        raise ValueError(f"strong setting policy must be one of {', '.join(POLICIES)}")
    if settings.core not in CORES:
        raise ValueError(f"strong setting core must be one of {', '.join(CORES)}")
    if settings.objective not in OBJECTIVES:
        raise ValueError(f"strong setting objective must be one of {', '.join(OBJECTIVES)}")
    if not 0 < settings.game_from <= 1:
        raise ValueError("strong setting game_from must be more than 0 and at most 1")
    if settings.own_temperature < 0:
        raise ValueError("strong setting own_temperature must be 0 (as temperature) or positive")
    for key in ("weights", "own_weights"):
        name = getattr(settings, key)
        try:
            if name or key == "weights":
                shipped_weights(name)
        except (OSError, ValueError, KeyError) as error:
            raise ValueError(f"strong setting {key}: {error}") from None
    if (
        settings.level2 < 0
        or min(
            settings.level2_deals,
            settings.level2_rollouts,
            settings.level2_hands,
            settings.level2_futures,
        )
        < 1
    ):
        raise ValueError(
            "strong setting level2 must be 0 or more, its deals, rollouts, hands and futures"
            " 1 or more"
        )
    if settings.level2_adapt not in (0, 1):
        raise ValueError("strong setting level2_adapt must be 0 or 1")
    if not 0 <= settings.level2_zero < 1:
        raise ValueError("strong setting level2_zero must be 0 (uniform) or between 0 and 1")
    if settings.level2_worth:
        try:
            shipped_coefficients(settings.level2_worth)
        except (OSError, ValueError, KeyError) as error:
            raise ValueError(f"strong setting level2_worth: {error}") from None
    if settings.adapt != 0 and settings.adapt < 1:
        raise ValueError("strong setting adapt must be 0 (off) or at least 1")
    return settings


class StrongBot:
    """Determinized Monte Carlo with learned-model rollouts (see the module's docstring).

    A ``limit`` with seconds replaces the settings' :attr:`~StrongSettings.budget`."""

    def __init__(
        self, settings: StrongSettings, rng: random.Random, name: str, limit: Limit | None = None
    ) -> None:
        if limit is not None and limit.seconds is not None:
            settings = replace(settings, budget=limit.seconds)
        self.settings = settings
        self._rng = numpy_rng(rng)
        self._name = name
        self._evidence: dict[tuple[Any, ...], FloatArray] = {}
        """``level2_adapt``'s judgement of each past play of the current round, by its turn
        (each is worked out once, at the first decision after it)."""

    @property
    def name(self) -> str:
        return self._name

    def _weights(self) -> npt.NDArray[np.float32]:
        """The model's weights at this bot's temperature (exact endgame and beliefs)."""
        return shipped_weights(self.settings.weights) / np.float32(self.settings.temperature)

    def _policy(self) -> RolloutPolicy:
        if self.settings.policy == "model":
            return ModelPolicy(
                self._rng,
                self.settings.temperature,
                shipped_weights(self.settings.weights),
                compiled=self.settings.core == "numba",
                own_temperature=self.settings.own_temperature or None,
                own_weights=(
                    shipped_weights(self.settings.own_weights)
                    if self.settings.own_weights
                    else None
                ),
            )
        return SoftminPolicy(self.settings.temperature, self._rng)

    def exact_deals(self, cards: int, players: int) -> int:
        """Deals to solve exactly with ``cards`` in each hand (0: roll out instead)."""
        settings = self.settings
        if cards > settings.endgame or settings.policy != "model":
            return 0
        deals = min(
            settings.samples_for(players), settings.leaves // leaves_per_deal(cards, players)
        )
        return deals if deals >= settings.min_exact_deals else 0

    def choose_card(self, view: SeatView) -> int:
        hand = view.legal_cards()
        if len(hand) == 1:
            return hand[0]
        exact = self.exact_deals(len(hand), view.players)
        if exact:
            others = self._others(self._belief(view, exact), exact)
            candidates, scores = endgame_card_scores(
                view, exact, self._rng, self._weights(), others, self._scorer(view)
            )
            return candidates[int(np.argmin(scores))]
        return hand[self._best_slot(view)]

    def _best_slot(self, view: SeatView) -> int:
        """The card with the best mean over all its deals. Every card gets ``samples`` deals,
        then at each stage the best few so far get fresh ones (successive halving: a flat
        search's noise costs most between close cards, and clearly bad ones need no more deals
        to be ruled out)."""
        settings = self.settings
        started = time.perf_counter()
        samples = settings.samples_for(view.players)
        beliefs = self._belief(view, samples)
        score = self._scorer(view)
        if settings.level2:
            evaluate = self._level2(view, beliefs, score)
        else:
            evaluate = self._model_draws(view, beliefs, score)
        scores = evaluate(samples, np.arange(len(view.legal_cards())))
        totals = scores * samples
        counts = np.full(len(scores), samples)
        alive = np.arange(len(scores))
        for stage in range(settings.stages):
            keep = max(settings.keep - stage, 2)
            if keep >= len(alive) and stage > 0:
                break
            if settings.budget and time.perf_counter() - started > settings.budget / 2:
                break
            alive = alive[np.argsort(totals[alive] / counts[alive], kind="stable")[:keep]]
            more = scaled_samples(settings.more << stage, view.players)
            totals[alive] += evaluate(more, alive) * more
            counts[alive] += more
        means = totals / counts
        return int(alive[int(np.argmin(means[alive]))])

    def _model_draws(
        self, view: SeatView, beliefs: Belief | None, score: Scorer
    ) -> Callable[[int, IntArray], FloatArray]:
        """``evaluate(samples, slots)``: the mean scores of the cards at ``slots`` over
        ``samples`` fresh deals, the others' cards by the rollout policy
        (:func:`~nimmt.bots.montecarlo.card_scores`)."""

        def evaluate(samples: int, slots: IntArray) -> FloatArray:
            others = self._others(beliefs, samples)
            _, scores = card_scores(
                view, samples, self._rng, self._policy(), slots=slots, others=others, score=score
            )
            return scores

        return evaluate

    def _level2(
        self, view: SeatView, beliefs: Belief | None, score: Scorer
    ) -> Callable[[int, IntArray], FloatArray]:
        """``evaluate(samples, slots)``: the mean scores of the cards at ``slots`` over about
        ``samples`` futures, the others' cards of this turn by :mod:`nimmt.bots.levelk`."""
        settings = self.settings
        count = settings.level2_deals
        hand = view.legal_cards()
        deals = hand_deals(view, hand, count, self._rng, self._others(beliefs, count))
        policy = self._policy()
        logits = card_logits(batch_from_rows(view.rows, deals), self._weights()).astype(float)
        weight: float | FloatArray = settings.level2
        if settings.level2_adapt:
            weight = draw_weights(
                self._seat_evidence(view), count, self._rng, settings.level2_zero or None
            )
        scores = level2_logits(
            view,
            deals,
            settings.level2_rollouts,
            weight,
            policy,
            logits,
            self._rng,
            self._learned(),
        )

        def evaluate(samples: int, slots: IntArray) -> FloatArray:
            repeats = max(1, samples // count)
            return card_scores_against(
                view, deals, scores, repeats, self._rng, policy, slots, score
            )

        return evaluate

    def _seat_evidence(self, view: SeatView) -> FloatArray:
        """``(P-1, G)``: what each other seat's plays so far this round say of its weight of
        the worth (:func:`~nimmt.bots.levelk.turn_evidence`, summed over the turns)."""
        total = np.zeros((view.players - 1, len(WEIGHT_GRID)))
        history = rows_before_each_turn(view)
        if history is None:
            return total
        round_key = (view.seat, view.round, view.round_rows)
        if any(key[0] != round_key for key in self._evidence):
            self._evidence.clear()
        for turn, rows in enumerate(history):
            key = (round_key, turn, view.played[turn])
            known = self._evidence.get(key)
            if known is None:
                known = self._evidence[key] = turn_evidence(
                    view,
                    table_order(view),
                    turn,
                    rows,
                    self.settings.level2_hands,
                    self.settings.level2_futures,
                    self._policy(),
                    self._weights(),
                    self._rng,
                    self._learned(),
                )
            total += known
        return total

    def _learned(self) -> Coefficients | None:
        """The coefficients that read the worths (``None``: they are played out)."""
        name = self.settings.level2_worth
        return shipped_coefficients(name) if name else None

    def _belief(self, view: SeatView, samples: int) -> Belief | None:
        """What the others' plays so far say about their hands (``None``: nothing, or beliefs
        are off)."""
        settings = self.settings
        if settings.belief <= 0 or not view.played or view.players < settings.belief_seats:
            return None
        return belief(
            view,
            table_order(view),
            len(view.hand),
            samples * settings.pool,
            self._rng,
            self._weights(),
            settings.belief,
            settings.adapt,
        )

    def _others(self, beliefs: Belief | None, samples: int) -> IntArray | None:
        """The other seats' hands for ``samples`` deals (``None``: uniform, drawn by the caller)."""
        return None if beliefs is None else beliefs.draw(samples, self._rng)

    def choose_row(self, view: SeatView) -> int:
        samples = scaled_samples(self.settings.row_samples, view.players)
        return int(
            np.argmin(row_scores(view, samples, self._rng, self._policy(), self._scorer(view)))
        )

    def _scorer(self, view: SeatView) -> Scorer:
        """How this decision judges a finished round (the settings' :attr:`~StrongSettings.
        objective`)."""
        settings = self.settings
        if settings.objective == "game":
            return GameObjective(view, settings.game_from)
        return relative_scores


HARD_V2_SETTINGS = StrongSettings()
"""The settings of ``hard-v2``: ``hard`` as it was when the compiled core came (numpy rollouts),
kept for the arena as the yardstick of a later ``hard``. Do not change them."""

HARD_SETTINGS = replace(HARD_V2_SETTINGS, core="numba")
"""The settings of ``hard``: ``hard-v2``'s search with its rollouts in the compiled core, about
half the CPU for the same choices (they differ only where two noisy scores are within rounding;
``docs/bots.md``, "A compiled core")."""
