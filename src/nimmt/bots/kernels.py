"""Compiled turns of the batch simulation: the rules and the rollout policies as plain loops.

:mod:`nimmt.bots.batchsim` advances ``B`` rounds with a few dozen numpy calls per turn; on the
small arrays of a decision most of that time is the calls themselves. The functions here do the
same work in loops compiled by numba (from wheels, no C compiler needed), one round at a time,
in one call per turn. They change nothing in what is computed:

- :func:`greedy_turn` plays one turn of :func:`~nimmt.bots.batchsim.greedy_policy` for every
  seat and resolves it exactly as :func:`~nimmt.bots.batchsim.resolve_turn` does (integers
  only, so the results are identical);
- :func:`model_choices` and :func:`model_turn` choose every seat's card by the learned model
  (:class:`~nimmt.bots.policy.ModelPolicy`) with the caller's noise, and the second resolves
  the turn. They compute the model's scores in double precision where numpy uses single: a
  choice can differ only when two noisy scores are within rounding of each other.

The arrays are a :class:`~nimmt.bots.batchsim.Batch`'s, changed in place. Numba compiles each
function at its first call and keeps the result in its cache (``__pycache__``, or the directory
``NUMBA_CACHE_DIR`` names).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
from numba import njit

from nimmt.engine import BULLHEADS, HAND_SIZE, NUM_ROWS, ROW_LIMIT

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float32]

EMPTY = 0
_HEADS = np.asarray(BULLHEADS, dtype=np.int64)

(
    _COST,
    _LOW,
    _LOW_CARD,
    _SIXTH,
    _GAP,
    _GAP_SQUARED,
    _GAP_BY_LENGTH,
    _LENGTH_2,
    _LENGTH_3,
    _LENGTH_4,
    _TARGET_HEADS,
    _TARGET_HEADS_BY_LENGTH,
    _CARD,
    _CARD_SQUARED,
    _CARD_HEADS,
    _COST_BY_HAND,
) = range(16)
"""The index of each feature's weight (:data:`nimmt.bots.policy.FEATURE_NAMES`'s order)."""


@njit(cache=True, nogil=True)
def _target(ends: IntArray, b: int, card: int) -> int:
    """The row ``card`` goes after in round ``b``: the one whose end is the highest below it
    (-1: the card is below every row)."""
    row = -1
    best = -1
    for r in range(NUM_ROWS):
        end = ends[b, r]
        if end < card and end > best:
            best = end
            row = r
    return row


@njit(cache=True, nogil=True)
def _resolve(
    ends: IntArray,
    lengths: IntArray,
    heads: IntArray,
    penalties: IntArray,
    b: int,
    cards: IntArray,
    card_heads: IntArray,
) -> None:
    """Place round ``b``'s turn ``cards`` (one per seat) lowest first; a card below every row
    takes the cheapest row (the first such)."""
    seats = cards.shape[0]
    placed = 0
    for _ in range(seats):
        # The lowest card not yet placed (at most ten seats: a selection beats a sort here).
        owner = -1
        for seat in range(seats):
            if (placed >> seat) & 1 == 0 and (owner < 0 or cards[seat] < cards[owner]):
                owner = seat
        placed |= 1 << owner
        card = cards[owner]
        row = _target(ends, b, card)
        if row < 0:
            row = 0
            for r in range(1, NUM_ROWS):
                if heads[b, r] < heads[b, row]:
                    row = r
            take = True
        else:
            take = lengths[b, row] == ROW_LIMIT
        if take:
            penalties[b, owner] += heads[b, row]
            lengths[b, row] = 1
            heads[b, row] = card_heads[card]
        else:
            lengths[b, row] += 1
            heads[b, row] += card_heads[card]
        ends[b, row] = card


@njit(cache=True, nogil=True)
def _greedy_turn(
    ends: IntArray,
    lengths: IntArray,
    heads: IntArray,
    hands: IntArray,
    penalties: IntArray,
    card_heads: IntArray,
) -> None:
    size, seats, width = hands.shape
    cards = np.empty(seats, dtype=np.int64)
    for b in range(size):
        cheapest = heads[b, 0]
        for r in range(1, NUM_ROWS):
            cheapest = min(cheapest, heads[b, r])
        for p in range(seats):
            best_key = -1
            best_slot = 0
            for h in range(width):
                card = hands[b, p, h]
                if card == EMPTY:
                    continue
                target = _target(ends, b, card)
                if target < 0:
                    cost = cheapest
                elif lengths[b, target] == ROW_LIMIT:
                    cost = heads[b, target]
                else:
                    cost = 0
                key = cost * 128 + card
                if best_key < 0 or key < best_key:
                    best_key = key
                    best_slot = h
            cards[p] = hands[b, p, best_slot]
            hands[b, p, best_slot] = EMPTY
        _resolve(ends, lengths, heads, penalties, b, cards, card_heads)


@njit(cache=True, nogil=True)
def _model_turn(
    ends: IntArray,
    lengths: IntArray,
    heads: IntArray,
    hands: IntArray,
    penalties: IntArray,
    card_heads: IntArray,
    weights: npt.NDArray[np.float64],
    noise: FloatArray,
    slots: IntArray,
    resolve: bool,
) -> None:
    """Every seat's card by the model's scores plus ``noise`` (Gumbel-max); with ``resolve``
    the turn is played, else only ``slots`` ``(B, P)`` is filled. ``weights`` ``(2, F)``: row 0
    scores seat 0's (the deciding seat's) cards, row 1 every other seat's."""
    size, seats, width = hands.shape
    cards = np.empty(seats, dtype=np.int64)
    for b in range(size):
        in_hand = 0
        for h in range(width):
            if hands[b, 0, h] != EMPTY:
                in_hand += 1
        cheapest = heads[b, 0]
        for r in range(1, NUM_ROWS):
            cheapest = min(cheapest, heads[b, r])
        for p in range(seats):
            w = weights[min(p, 1)]
            cost_weight = w[_COST] + w[_COST_BY_HAND] * in_hand / HAND_SIZE
            low_score = w[_LOW] + cost_weight * cheapest
            best_key = -np.inf
            best_slot = -1
            for h in range(width):
                card = hands[b, p, h]
                if card == EMPTY:
                    continue
                value = card / 104.0
                score = w[_CARD] * value + w[_CARD_SQUARED] * value * value
                score += w[_CARD_HEADS] * card_heads[card] / 7.0
                target = _target(ends, b, card)
                if target < 0:
                    score += low_score + w[_LOW_CARD] * value
                else:
                    length = lengths[b, target]
                    row_heads = heads[b, target]
                    if length == ROW_LIMIT:
                        score += w[_SIXTH] + cost_weight * row_heads
                    elif length == 2:
                        score += w[_LENGTH_2]
                    elif length == 3:
                        score += w[_LENGTH_3]
                    elif length == 4:
                        score += w[_LENGTH_4]
                    score += row_heads * (
                        w[_TARGET_HEADS] / 10.0 + w[_TARGET_HEADS_BY_LENGTH] / 40.0 * length
                    )
                    gap = min(card - ends[b, target], 40) / 10.0
                    slope = w[_GAP] + w[_GAP_BY_LENGTH] / 4.0 * length
                    score += gap * (slope + w[_GAP_SQUARED] * gap)
                key = score + noise[b, p, h]
                if best_slot < 0 or key > best_key:
                    best_key = key
                    best_slot = h
            slots[b, p] = best_slot
            if resolve:
                cards[p] = hands[b, p, best_slot]
                hands[b, p, best_slot] = EMPTY
        if resolve:
            _resolve(ends, lengths, heads, penalties, b, cards, card_heads)


def greedy_turn(
    ends: IntArray, lengths: IntArray, heads: IntArray, hands: IntArray, penalties: IntArray
) -> None:
    """One turn of ``greedy`` for every seat of every round, resolved (arrays of a batch)."""
    _greedy_turn(ends, lengths, heads, hands, penalties, _HEADS)


def model_choices(
    ends: IntArray,
    lengths: IntArray,
    heads: IntArray,
    hands: IntArray,
    weights: npt.NDArray[np.floating[Any]],
    noise: FloatArray,
) -> IntArray:
    """``(B, P)``: the hand slot of every seat's card by the learned model: ``weights`` are the
    model's (already divided by its temperature; ``(F,)`` for every seat, or ``(2, F)``: seat 0's,
    then the other seats'), ``noise`` ``(B, P, H)`` the Gumbel noise added to each card's score,
    as :class:`~nimmt.bots.policy.ModelPolicy` draws it."""
    size, seats, _ = hands.shape
    slots = np.empty((size, seats), dtype=np.int64)
    unused = np.empty((size, seats), dtype=np.int64)
    _model_turn(ends, lengths, heads, hands, unused, _HEADS, _weights(weights), noise, slots, False)
    return slots


def model_turn(
    ends: IntArray,
    lengths: IntArray,
    heads: IntArray,
    hands: IntArray,
    penalties: IntArray,
    weights: npt.NDArray[np.floating[Any]],
    noise: FloatArray,
) -> None:
    """One turn of the learned model for every seat of every round, resolved (the cards as
    :func:`model_choices` chooses them)."""
    slots = np.empty(penalties.shape, dtype=np.int64)
    _model_turn(
        ends, lengths, heads, hands, penalties, _HEADS, _weights(weights), noise, slots, True
    )


def _weights(weights: npt.NDArray[np.floating[Any]]) -> npt.NDArray[np.float64]:
    """``(2, F)``: the deciding seat's weights and the others' (one row given: everyone's)."""
    rows = np.atleast_2d(np.asarray(weights, dtype=np.float64))
    return np.ascontiguousarray(np.broadcast_to(rows, (2, rows.shape[1])))


def warm_up() -> None:
    """Load (or compile, the first time) every kernel now, on a tiny batch: numba loads in about
    a second, which a process that will search (a server's bot worker, say) had better spend
    before its first decision than during it."""
    size, seats, width = 1, 2, 2
    ends = np.asarray([[10, 20, 30, 40]], dtype=np.int64)
    lengths = np.ones((size, NUM_ROWS), dtype=np.int64)
    heads = np.ones((size, NUM_ROWS), dtype=np.int64)
    hands = np.asarray([[[5, 25], [15, 35]]], dtype=np.int64)
    noise = np.zeros((size, seats, width), dtype=np.float32)
    weights = np.zeros(16)
    model_choices(ends, lengths, heads, hands, weights, noise)
    penalties = np.zeros((size, seats), dtype=np.int64)
    model_turn(ends, lengths, heads, hands.copy(), penalties, weights, noise)
    greedy_turn(ends, lengths, heads, hands.copy(), penalties)
