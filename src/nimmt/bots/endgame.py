"""Exact play at the end of a round: every joint choice of the last turns, instead of rollouts.

With few cards left in each hand the joint choices of the seats are few (``h**P`` in a turn with
``h`` cards and ``P`` seats), so in every sampled deal of the unseen cards the rest of the round
can be enumerated completely. :func:`solve` does so on a whole :class:`~nimmt.bots.batchsim.Batch`:
the other seats choose by the learned model of :mod:`nimmt.bots.policy` (each joint choice
weighted by the product of their probabilities), the deciding seat (seat 0) takes the choice with
the lowest expected score at every later turn of the deal, and the last card of every hand is
forced. :func:`endgame_card_scores` gives a decision's candidates their exact expected scores over
the sampled deals; :func:`leaves_per_deal` says how much work that is, so that the caller can
keep to a budget.
"""

from __future__ import annotations

import itertools
from functools import cache

import numpy as np
import numpy.typing as npt

from nimmt.bots.batchsim import (
    Batch,
    IntArray,
    Scorer,
    batch_from_rows,
    relative_scores,
    resolve_turn,
    sample_hands,
)
from nimmt.bots.policy import card_logits
from nimmt.engine import SeatView

FloatArray = npt.NDArray[np.float64]


@cache
def joint_choices(cards: int, seats: int) -> IntArray:
    """``(cards**seats, seats)``: every joint choice of a slot per seat, seat 0's slowest."""
    return np.asarray(list(itertools.product(range(cards), repeat=seats)), dtype=np.int64)


def leaves_per_deal(cards: int, seats: int) -> int:
    """How many whole futures :func:`solve` enumerates per deal with ``cards`` in each hand."""
    return int(np.prod([float(left) ** seats for left in range(2, cards + 1)]))


def _repeat(batch: Batch, times: int) -> Batch:
    """Each round of ``batch`` ``times`` times in a row (round ``b`` becomes ``b*times...``)."""
    return Batch(
        ends=np.repeat(batch.ends, times, axis=0),
        lengths=np.repeat(batch.lengths, times, axis=0),
        heads=np.repeat(batch.heads, times, axis=0),
        hands=np.repeat(batch.hands, times, axis=0),
        penalties=np.repeat(batch.penalties, times, axis=0),
    )


def choice_values(
    batch: Batch, weights: npt.NDArray[np.float32], score: Scorer = relative_scores
) -> FloatArray:
    """``(B, h)``: for each round and each card slot of seat 0, the expected relative score at
    the end of the round when seat 0 plays it now (the others by the model, then on as
    :func:`solve`; ``score`` judges the finished rounds when given). Every hand must hold
    ``h >= 2`` cards in its slots, no empty slot."""
    size, seats, cards = batch.hands.shape
    logits = card_logits(batch, weights).astype(np.float64)
    logits -= logits.max(axis=-1, keepdims=True)
    probability = np.exp(logits)
    probability /= probability.sum(axis=-1, keepdims=True)
    choices = joint_choices(cards, seats)
    count = choices.shape[0]
    # The others' joint probability of each joint choice, (B, count).
    weight = np.ones((size, count))
    for seat in range(1, seats):
        weight *= probability[:, seat, choices[:, seat]]
    child = _repeat(batch, count)
    slots = np.tile(choices, (size, 1))
    rows = np.arange(child.size)[:, None]
    played = child.hands[rows, np.arange(seats)[None, :], slots]
    resolve_turn(child, played)
    # The remaining cards, still without gaps: drop each seat's played slot.
    keep = np.ones(child.hands.shape, dtype=bool)
    keep[rows, np.arange(seats)[None, :], slots] = False
    child.hands = child.hands[keep].reshape(child.size, seats, cards - 1)
    values = solve(child, weights, score).reshape(size, count)
    weighted = (weight * values).reshape(size, cards, count // cards)
    # Seat 0's card fixes a block of joint choices whose weights sum to 1, up to rounding.
    means: FloatArray = weighted.sum(axis=-1) / weight.reshape(size, cards, -1).sum(axis=-1)
    return means


def solve(
    batch: Batch, weights: npt.NDArray[np.float32], score: Scorer = relative_scores
) -> FloatArray:
    """``(B,)``: the expected relative score of seat 0 at the end of each round of ``batch``,
    seat 0 choosing the best card at every turn, the others by the model (every hand holds the
    same number of cards, none empty). The batch is used up."""
    cards = batch.hands.shape[2]
    if cards == 1:
        resolve_turn(batch, batch.hands[:, :, 0].copy())
        return score(batch)
    values: FloatArray = choice_values(batch, weights, score).min(axis=1)
    return values


def endgame_card_scores(
    view: SeatView,
    samples: int,
    rng: np.random.Generator,
    weights: npt.NDArray[np.float32],
    others: IntArray | None = None,
    score: Scorer = relative_scores,
) -> tuple[tuple[int, ...], FloatArray]:
    """Each legal card and its exact expected relative score (lower is better), averaged over
    ``samples`` sampled deals of the unseen cards (or the other seats' hands ``others``, in
    table order, when given); the rest of the round as :func:`solve` (``score``: as there)."""
    hand = view.legal_cards()
    if others is None:
        others = sample_hands(view.unseen_cards(), view.players - 1, len(hand), samples, rng)
    mine = np.broadcast_to(np.asarray(hand, dtype=np.int64), (samples, 1, len(hand)))
    batch = batch_from_rows(view.rows, np.concatenate([mine, others], axis=1))
    scores: FloatArray = choice_values(batch, weights, score).mean(axis=0)
    return hand, scores
