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
    take_cards,
    turns_left_after,
)
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
    weight: float,
    policy: RolloutPolicy,
    logits: FloatArray,
    rng: np.random.Generator | None = None,
) -> FloatArray:
    """``(D, P, H)``: the others' scores for this turn's card (``logits``: the model's, for the
    same deals) lowered by ``weight`` times each card's worth (:func:`card_worths`). With
    ``rng``, each holder's worths are judged without its others' hands (they are redealt from
    what the deciding seat has not seen and its own hand); without, in the deal's hands."""
    pool = None if rng is None else (*view.unseen_cards(), *view.hand)
    worths = card_worths(view.rows, deals, rollouts, policy, pool, rng)
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
