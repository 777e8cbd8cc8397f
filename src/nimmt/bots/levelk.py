"""Opponents who search too: the others' cards of this turn drawn from a level-2 model.

``hard``'s search draws the other seats' cards of the current turn from the learned model
(:mod:`nimmt.bots.policy`), a function of each card's place on the rows. A searching opponent
chooses by what its cards are worth over the rest of the round, which those features capture
only in part. Here, in each of a few sampled deals, every card of every other seat's hand is
worth the mean of ``rollouts`` model-played futures to that seat (its bullheads minus the mean
of the others', as a search judges them), and the seat's card is drawn with probability
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
    play_out,
    resolve_turn,
    take_cards,
)
from nimmt.engine import SeatView

FloatArray = npt.NDArray[np.float64]


def card_worths(
    rows: Sequence[Sequence[int]], deals: IntArray, rollouts: int, policy: RolloutPolicy
) -> FloatArray:
    """``(D, P, H)``: each card's worth to the seat holding it (seats 1 and up; seat 0's are
    0): its relative score over ``rollouts`` futures in which it plays that card now and
    everybody else, this turn and later, plays ``policy``."""
    count, seats, width = deals.shape
    others = seats - 1
    # Rows ordered (seat, slot, deal, rollout).
    hands = np.broadcast_to(
        deals[None, None, :, None], (others, width, count, rollouts, seats, width)
    )
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


def level2_logits(
    view: SeatView,
    deals: IntArray,
    rollouts: int,
    weight: float,
    policy: RolloutPolicy,
    logits: FloatArray,
) -> FloatArray:
    """``(D, P, H)``: the others' scores for this turn's card (``logits``: the model's, for the
    same deals) lowered by ``weight`` times each card's worth (:func:`card_worths`)."""
    worths = card_worths(view.rows, deals, rollouts, policy)
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
    uniform = rng.random(keys.shape)
    choice = (keys - np.log(-np.log(np.maximum(uniform, 1e-300)))).argmax(axis=2)
    choice[:, 0] = np.repeat(tried, count * repeats)
    resolve_turn(batch, take_cards(batch, choice))
    play_out(batch, int((batch.hands[0, 0] != EMPTY).sum()), policy)
    means: FloatArray = score(batch).reshape(len(tried), count * repeats).mean(axis=1)
    return means
