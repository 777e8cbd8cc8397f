"""Opponents who search too: the others' cards of this turn drawn from a level-2 model.

``hard``'s search draws the other seats' cards of the current turn from the learned model
(:mod:`nimmt.bots.policy`), a function of each card's place on the rows. A searching opponent
chooses by what its cards are worth over the rest of the round, which those features capture
only in part. Here, in each of a few sampled deals, every card of every other seat's hand is
worth the mean of ``rollouts`` model-played futures to that seat (its bullheads minus the mean
of the others', as a search judges them; in each future the others' hands are dealt anew, for
the seat does not know them), and the seat's card is drawn with probability
proportional to ``exp(model score - weight * worth)``. The deciding seat's cards are then tried
against those draws, as :func:`~nimmt.bots.montecarlo.card_scores` tries them against the
model's.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from nimmt.bots.batchsim import (
    EMPTY,
    IntArray,
    RolloutPolicy,
    Scorer,
    batch_from_rows,
    gumbel_noise,
    play_out,
    resolve_turn,
    sample_hands,
    take_cards,
    turns_left_after,
)
from nimmt.bots.policy import card_logits
from nimmt.bots.worthfit import Coefficients, predicted_worths
from nimmt.engine import SeatView

FloatArray = npt.NDArray[np.float64]


def card_worths(
    rows: Sequence[Sequence[int]],
    deals: IntArray,
    rollouts: int,
    policy: RolloutPolicy,
    pool: Sequence[int] | None = None,
    rng: np.random.Generator | None = None,
) -> FloatArray:
    """``(D, P, H)``: each card's worth to the seat holding it (seats 1 and up; seat 0's are
    0): its relative score over ``rollouts`` futures in which it plays that card now and
    everybody else, this turn and later, plays ``policy``.

    With a ``pool`` (the cards the holder cannot tell apart: the deciding seat's unseen cards
    and its hand), each future deals the holder's others new hands from it, drawn by ``rng``:
    the holder judges its cards without knowing the others' hands. Without one, the futures
    keep the deal's hands."""
    count, seats, width = deals.shape
    others = seats - 1
    if pool is None:
        held = np.broadcast_to(deals[None, :, None], (others, count, rollouts, seats, width))
    else:
        assert rng is not None, "redealing needs a generator"
        held = redealt(deals, rollouts, pool, rng)
    # Rows ordered (seat, slot, deal, rollout).
    hands = np.broadcast_to(held[:, None], (others, width, count, rollouts, seats, width))
    batch = batch_from_rows(rows, hands.reshape(-1, seats, width).copy())
    slots = policy(batch)
    seat = np.repeat(np.arange(1, seats), width * count * rollouts)
    slot = np.tile(np.repeat(np.arange(width), count * rollouts), others)
    index = np.arange(batch.size)
    slots[index, seat] = slot
    resolve_turn(batch, take_cards(batch, slots))
    play_out(batch, int((batch.hands[0, 0] != EMPTY).sum()), policy)
    penalties = batch.penalties.astype(np.float64)
    own = penalties[index, seat]
    relative = own - (penalties.sum(axis=1) - own) / others
    worths = np.zeros((count, seats, width))
    means = relative.reshape(others, width, count, rollouts).mean(axis=3)
    worths[:, 1:, :] = means.transpose(2, 0, 1)
    return worths


def judged_worths(
    rows: Sequence[Sequence[int]],
    deals: IntArray,
    rollouts: int,
    policy: RolloutPolicy,
    pool: Sequence[int] | None,
    rng: np.random.Generator | None,
    learned: Coefficients | None,
) -> FloatArray:
    """``(D, P, H)``: :func:`card_worths`, or with ``learned`` coefficients the worths they
    read from each holder's features (seat 0's are 0 either way)."""
    if learned is None:
        return card_worths(rows, deals, rollouts, policy, pool, rng)
    worths = predicted_worths(batch_from_rows(rows, deals), learned)
    worths[:, 0] = 0.0
    return worths


def redealt(
    deals: IntArray, rollouts: int, pool: Sequence[int], rng: np.random.Generator
) -> IntArray:
    """``(P-1, D, R, P, H)``: for each seat ``o`` from 1, deal and rollout, seat ``o``'s hand of
    the deal with every other seat's drawn anew, uniformly, from ``pool`` less that hand."""
    count, seats, width = deals.shape
    cards = np.asarray(pool, dtype=np.int64)
    result = np.empty((seats - 1, count, rollouts, seats, width), dtype=np.int64)
    for holder in range(1, seats):
        hand = deals[:, holder]
        taken = (cards[None, :, None] == hand[:, None, :]).any(axis=2)
        keys = rng.random((count, rollouts, cards.size))
        keys[np.broadcast_to(taken[:, None, :], keys.shape)] = 2.0  # after every free card
        drawn = cards[np.argsort(keys, axis=2)[:, :, : (seats - 1) * width]]
        rest = [seat for seat in range(seats) if seat != holder]
        result[holder - 1][:, :, rest] = drawn.reshape(count, rollouts, seats - 1, width)
        result[holder - 1][:, :, holder] = hand[:, None]
    return result


def level2_logits(
    view: SeatView,
    deals: IntArray,
    rollouts: int,
    weight: float | FloatArray,
    policy: RolloutPolicy,
    logits: FloatArray,
    rng: np.random.Generator | None = None,
    learned: Coefficients | None = None,
) -> FloatArray:
    """``(D, P, H)``: the others' scores for this turn's card (``logits``: the model's, for the
    same deals) lowered by ``weight`` times each card's worth (:func:`card_worths`). With
    ``rng``, each holder's worths are judged without its others' hands (they are redealt from
    what the deciding seat has not seen and its own hand); without, in the deal's hands. With
    ``learned`` coefficients, each worth is read from its holder's features instead
    (:func:`~nimmt.bots.worthfit.predicted_worths`; ``rollouts`` is then unused)."""
    pool = None if rng is None else (*view.unseen_cards(), *view.hand)
    worths = judged_worths(view.rows, deals, rollouts, policy, pool, rng, learned)
    scores = logits - weight * worths
    scores[deals == EMPTY] = -np.inf
    return scores


def card_scores_against(
    view: SeatView,
    deals: IntArray,
    scores: FloatArray,
    repeats: int,
    rng: np.random.Generator,
    policy: RolloutPolicy,
    slots: Sequence[int] | IntArray,
    score: Scorer,
) -> FloatArray:
    """Each tried card's (``slots``) mean score over ``repeats`` futures of each deal: the
    others' cards of this turn drawn from ``scores`` (:func:`level2_logits`), the rest of the
    round by ``policy``."""
    tried = np.asarray(slots, dtype=np.int64)
    count, seats, width = deals.shape
    hands = np.broadcast_to(deals[None, :, None], (len(tried), count, repeats, seats, width))
    batch = batch_from_rows(view.rows, hands.reshape(-1, seats, width).copy())
    keys = np.broadcast_to(scores[None, :, None], hands.shape).reshape(-1, seats, width)
    choice = (keys + gumbel_noise(rng, keys.shape, np.float64)).argmax(axis=2)
    choice[:, 0] = np.repeat(tried, count * repeats)
    resolve_turn(batch, take_cards(batch, choice))
    play_out(batch, turns_left_after(view.turn), policy)
    means: FloatArray = score(batch).reshape(len(tried), count * repeats).mean(axis=1)
    return means


WEIGHT_GRID = np.round(np.arange(0.0, 1.21, 0.2), 2)
"""The weights of the worth among which ``level2_adapt`` judges each other seat."""


def turn_evidence(
    view: SeatView,
    order: Sequence[int],
    turn: int,
    rows: Sequence[Sequence[int]],
    hands: int,
    rollouts: int,
    policy: RolloutPolicy,
    weights: npt.NDArray[np.float32],
    rng: np.random.Generator,
    learned: Coefficients | None = None,
) -> FloatArray:
    """``(P-1, len(WEIGHT_GRID))``: for each seat of ``order[1:]``, the log-likelihood (up to a
    constant) of the card it played at ``turn`` of this round (``rows``: the rows before it)
    under each weight of the worth, its hidden cards integrated out over ``hands`` sampled
    deals.

    A seat's hand at that turn was the cards it played from then on and as many as it holds
    now, drawn from what ``view``'s seat has not seen; each card's worth is judged over
    ``rollouts`` futures in which the holder's others are dealt anew (:func:`card_worths`), or
    read by the ``learned`` coefficients."""
    seats = view.players
    later = np.asarray(
        [[cards[seat] for cards in view.played[turn:]] for seat in order], dtype=np.int64
    )
    held = len(view.hand)
    unseen = view.unseen_cards()
    deals = np.empty((hands, seats, held + later.shape[1]), dtype=np.int64)
    deals[:, 0, :held] = view.hand
    deals[:, 1:, :held] = sample_hands(unseen, seats - 1, held, hands, rng)
    deals[:, :, held:] = later[None]
    pool = (*unseen, *view.hand, *later.ravel().tolist())
    # Slot ``held`` of each seat's hand holds the card it played at ``turn``.
    return play_evidence(rows, deals, pool, held, rollouts, policy, weights, rng, learned)


def play_evidence(
    rows: Sequence[Sequence[int]],
    deals: IntArray,
    pool: Sequence[int],
    played: int,
    rollouts: int,
    policy: RolloutPolicy,
    weights: npt.NDArray[np.float32],
    rng: np.random.Generator,
    learned: Coefficients | None = None,
) -> FloatArray:
    """``(P-1, len(WEIGHT_GRID))``: for each seat from 1, the log of its mean chance over
    ``deals`` (``(K, P, H)``: hands it may have held, each with the card it played at slot
    ``played``) of playing that card, under each weight of the worth; each worth judged over
    ``rollouts`` futures, the holder's others dealt anew from ``pool`` (:func:`card_worths`),
    or read by the ``learned`` coefficients."""
    worths = judged_worths(rows, deals, rollouts, policy, pool, rng, learned)[:, 1:]
    logits = card_logits(batch_from_rows(rows, deals), weights).astype(np.float64)[:, 1:]
    scores = logits[None] - WEIGHT_GRID[:, None, None, None] * worths[None]
    scores -= scores.max(axis=3, keepdims=True)
    chosen = scores[..., played] - np.log(np.exp(scores).sum(axis=3))
    # (G, K, P-1) to (G, P-1): the mean of each seat's chance of its card over the deals.
    peak = chosen.max(axis=1, keepdims=True)
    marginal = peak[:, 0] + np.log(np.exp(chosen - peak).mean(axis=1))
    result: FloatArray = marginal.T
    return result


def weight_prior(at_zero: float | None = None) -> FloatArray:
    """``(G,)``: the log of a prior over :data:`WEIGHT_GRID`: uniform, or ``at_zero`` of its
    mass on weight 0 (the model alone) and the rest shared evenly by the other weights."""
    if at_zero is None:
        return np.zeros(len(WEIGHT_GRID))
    if not 0.0 < at_zero < 1.0:
        raise ValueError(f"the prior's mass at weight 0 must be between 0 and 1, not {at_zero}")
    prior = np.full(len(WEIGHT_GRID), (1.0 - at_zero) / (len(WEIGHT_GRID) - 1))
    prior[0] = at_zero
    result: FloatArray = np.log(prior)
    return result


def weight_posterior(evidence: FloatArray, at_zero: float | None = None) -> FloatArray:
    """``(..., G)``: the posterior over :data:`WEIGHT_GRID` that the prior
    (:func:`weight_prior` of ``at_zero``; uniform by default) and ``evidence`` (``(..., G)``,
    the log-likelihoods of a seat's plays under each weight) give."""
    if at_zero is not None:
        evidence = evidence + weight_prior(at_zero)
    posterior: FloatArray = np.exp(evidence - evidence.max(axis=-1, keepdims=True))
    posterior /= posterior.sum(axis=-1, keepdims=True)
    return posterior


def draw_weights(
    evidence: FloatArray, count: int, rng: np.random.Generator, at_zero: float | None = None
) -> FloatArray:
    """``(count, P, 1)``: for each of ``count`` deals a weight of the worth for every seat (seat
    0's unused, 0), each other seat's drawn from its posterior over :data:`WEIGHT_GRID`
    (:func:`weight_posterior` of ``evidence``, ``(P-1, G)``, and ``at_zero``)."""
    cumulative = weight_posterior(evidence, at_zero).cumsum(axis=1)
    picks = (rng.random((count, evidence.shape[0], 1)) > cumulative[None]).sum(axis=2)
    picks = np.minimum(picks, len(WEIGHT_GRID) - 1)
    weights = np.zeros((count, evidence.shape[0] + 1, 1))
    weights[:, 1:, 0] = WEIGHT_GRID[picks]
    return weights
