"""Beliefs about the hidden hands: sampled deals weighted by how well they explain the past plays.

A uniform deal of the unseen cards ignores what the other seats have shown this round: a seat
that played a card that took a row when it could have played safely more likely held nothing
safe. :func:`belief_hands` samples several times the deals needed, gives each the likelihood of
every other seat's plays so far this round under the learned model of :mod:`nimmt.bots.policy`
(the seat's hand then being its sampled cards plus those it played since), raised to a power
``strength`` (0: uniform, as before; 1: the model taken at its word); the search then draws its
deals from that pool by those weights (:class:`Belief`), once per decision however many stages
it has.

The model was fitted to one opponent's play; another may play otherwise. With ``adapt``
(``strong:adapt=...``) each seat's plays are judged instead by a mixture "the model's card with
probability ``m``, a uniformly random card of the hand otherwise", ``m`` fitted per seat from how
well the model explained that seat's plays so far this round (:func:`model_shares`): a seat the
model reads badly then weighs the deals little.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from nimmt.bots.batchsim import IntArray, batch_from_rows, sample_hands
from nimmt.bots.policy import card_logits
from nimmt.engine import SeatView
from nimmt.engine.core import RoundState
from nimmt.engine.errors import RuleError


def rows_before_each_turn(view: SeatView) -> list[list[list[int]]] | None:
    """The rows at the start of each completed turn of this round, replayed from the round's
    starting rows; ``None`` when the view does not hold the whole round (a game set up from a
    position mid-round)."""
    if len(view.round_rows) != len(view.rows) or len(view.chosen_rows) != len(view.played):
        return None
    hands = [[cards[seat] for cards in view.played] for seat in range(view.players)]
    state = RoundState([[card] for card in view.round_rows], hands)
    before = []
    try:
        for cards, row in zip(view.played, view.chosen_rows, strict=True):
            before.append([list(row_cards) for row_cards in state.rows])
            state.resolve_turn(cards, row)
    except RuleError:
        return None
    if [tuple(row) for row in state.rows] != [tuple(row) for row in view.rows]:
        return None
    return before


def turn_log_probabilities(
    view: SeatView, others: IntArray, order: list[int], weights: npt.NDArray[np.float32]
) -> list[npt.NDArray[np.float64]]:
    """For each completed turn of this round, ``(N, P-1)``: the log-probability under the model
    of the card each seat of ``order[1:]`` played then, in each sampled deal ``others``
    ``(N, P-1, h)`` (empty when the view does not hold the whole round)."""
    count = others.shape[0]
    history = rows_before_each_turn(view)
    if history is None:
        return []
    turns = len(view.played)
    held = others.shape[2]
    result = []
    for turn, rows in enumerate(history):
        # A seat's hand at that turn: its sampled cards and the cards it played from then on
        # (slot ``held`` holds the card it played at that turn). Only the other seats are
        # scored, so only their hands are built: the model scores each card on its own.
        later = np.asarray(
            [[view.played[step][seat] for step in range(turn, turns)] for seat in order[1:]],
            dtype=np.int64,
        )
        hands = np.empty((count, len(order) - 1, held + turns - turn), dtype=np.int64)
        hands[:, :, :held] = others
        hands[:, :, held:] = later[None]
        logits = card_logits(batch_from_rows(rows, hands), weights).astype(np.float64)
        logits -= logits.max(axis=-1, keepdims=True)
        log_probability = logits - np.log(np.exp(logits).sum(axis=-1, keepdims=True))
        result.append(log_probability[:, :, held])
    return result


def play_log_likelihood(
    view: SeatView, others: IntArray, order: list[int], weights: npt.NDArray[np.float32]
) -> npt.NDArray[np.float64]:
    """``(N,)``: for each sampled deal ``others`` ``(N, P-1, h)`` (the hands of ``order[1:]``),
    the log-probability under the model of every card those seats played this round."""
    total = np.zeros(others.shape[0])
    for log_probability in turn_log_probabilities(view, others, order, weights):
        total += log_probability.sum(axis=1)
    return total


MIX_GRID = np.linspace(0.0, 1.0, 11)
"""The shares of the model in an opponent's mixture that :func:`model_shares` weighs."""

EVIDENCE_DEALS = 2048
"""At most this many of the pool's (uniform) deals estimate how well each share explains a
seat's plays."""


def model_shares(
    log_probabilities: npt.NDArray[np.float64], hand_sizes: npt.NDArray[np.float64], prior: float
) -> npt.NDArray[np.float64]:
    """``(S,)``: for each seat, the posterior mean share of the model in the mixture "the model
    with probability ``m``, a uniformly random card of the hand otherwise" that explains its plays.

    ``log_probabilities`` ``(N, S, T)`` is the model's log-probability of each seat's play at
    each turn in ``N`` uniform deals of the unseen cards, ``hand_sizes`` ``(T,)`` the cards in
    hand at each turn. The evidence for a share ``m`` is the chance of the seat's plays under
    that mixture averaged over the deals (the hidden hand is unknown: uniform deals integrate it
    out); the prior over :data:`MIX_GRID` is proportional to ``m ** (prior - 1)`` (1: uniform,
    larger: leaning towards the model)."""
    shares = MIX_GRID[:, None, None, None]
    with np.errstate(divide="ignore"):
        mixed = np.logaddexp(
            np.log(shares) + log_probabilities[None],
            np.log1p(-shares) - np.log(hand_sizes),
        ).sum(axis=-1)  # (K, N, S)
        log_prior = (prior - 1.0) * np.log(MIX_GRID) if prior != 1.0 else np.zeros(len(MIX_GRID))
    peak = mixed.max(axis=1, keepdims=True)
    evidence = np.log(np.exp(mixed - peak).mean(axis=1)) + peak[:, 0]  # (K, S)
    log_posterior = log_prior[:, None] + evidence
    log_posterior -= log_posterior.max(axis=0, keepdims=True)
    posterior = np.exp(log_posterior)
    posterior /= posterior.sum(axis=0, keepdims=True)
    shares_mean: npt.NDArray[np.float64] = (posterior * MIX_GRID[:, None]).sum(axis=0)
    return shares_mean


def adaptive_log_likelihood(
    view: SeatView,
    others: IntArray,
    order: list[int],
    weights: npt.NDArray[np.float32],
    prior: float,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """``(N,)`` log-likelihoods of the plays seen, each seat's plays judged by its own mixture of
    the model and uniform play (:func:`model_shares`, fitted on the first
    :data:`EVIDENCE_DEALS` deals of ``others``, which must be uniform ones), and the shares
    ``(P-1,)`` (1 where no play was seen)."""
    per_turn = turn_log_probabilities(view, others, order, weights)
    if not per_turn:
        return np.zeros(others.shape[0]), np.ones(others.shape[1])
    log_probabilities = np.stack(per_turn, axis=-1)  # (N, S, T)
    turns = len(per_turn)
    sizes = (others.shape[2] + turns - np.arange(turns)).astype(np.float64)
    shares = model_shares(log_probabilities[:EVIDENCE_DEALS], sizes, prior)
    with np.errstate(divide="ignore"):
        mixed = np.logaddexp(
            np.log(shares)[None, :, None] + log_probabilities,
            np.log1p(-shares)[None, :, None] - np.log(sizes),
        )
    total: npt.NDArray[np.float64] = mixed.sum(axis=(1, 2))
    return total, shares


@dataclass(frozen=True, slots=True)
class Belief:
    """Sampled hands of the other seats and the probability of each (they sum to 1)."""

    pool: IntArray
    """``(N, P-1, h)``: the hands of the other seats in table order, one deal per row."""
    probability: npt.NDArray[np.float64]
    """``(N,)``: how likely each deal is, given the plays seen."""

    def draw(self, samples: int, rng: np.random.Generator) -> IntArray:
        """``(samples, P-1, h)``: deals drawn from the pool by their probabilities."""
        chosen = rng.choice(len(self.pool), size=samples, p=self.probability)
        drawn: IntArray = self.pool[chosen]
        return drawn


def belief(
    view: SeatView,
    order: list[int],
    hand_size: int,
    count: int,
    rng: np.random.Generator,
    weights: npt.NDArray[np.float32],
    strength: float,
    adapt: float = 0.0,
) -> Belief:
    """``count`` uniform deals of the unseen cards to the seats ``order[1:]``, each weighted by
    the likelihood of their plays so far to the power ``strength``. With ``adapt`` (the prior
    of :func:`model_shares`; 0: off) each seat's plays are judged by its own mixture of the model
    and uniform play, fitted to how well the model explains that seat's plays this round."""
    pool = sample_hands(view.unseen_cards(), view.players - 1, hand_size, count, rng)
    if adapt > 0:
        likelihood, _ = adaptive_log_likelihood(view, pool, order, weights, adapt)
    else:
        likelihood = play_log_likelihood(view, pool, order, weights)
    log_weight = strength * likelihood
    weight = np.exp(log_weight - log_weight.max())
    return Belief(pool, weight / weight.sum())
