"""The bots' batch simulation of the rules: many sampled rounds advanced together with numpy.

A :class:`Batch` holds ``B`` independent copies of a round in progress, one per sampled deal of
the unseen cards (and per candidate being tried). A row is kept as three numbers (its last card,
its length and its bullheads), which is all that the rules need to place a card and to score a
taken row (the rules page, "A turn"): a card goes after the row whose last card is the highest one
below it; a sixth card takes its row's five cards; a card below every row takes the row its
player chooses. Every step below is the same rule applied to all ``B`` rounds at once, so a
whole decision costs a few hundred numpy calls instead of hundreds of thousands of Python ones.

Seat 0 of a batch is always the deciding seat; the others follow in table order. Hands are
fixed-width arrays in which a played card is replaced by :data:`EMPTY`.

Determinization (sampling the unseen cards) lives here too: :func:`sample_hands` deals the cards
the seat has not seen to the other seats, uniformly and consistently with everything it saw.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from nimmt.engine import BULLHEADS, HAND_SIZE, NUM_ROWS, ROW_LIMIT

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

EMPTY = 0
"""The card number standing for "no card" in a hand array (cards are 1 to 104)."""

_HEADS = np.asarray(BULLHEADS, dtype=np.int64)
"""Bullheads by card number; ``_HEADS[EMPTY] == 0``."""

_NO_CARD_KEY = 1 << 20
"""A policy key larger than any real card's, so that an empty slot is never chosen."""


@dataclass(slots=True)
class Batch:
    """``B`` rounds in progress, advanced together (shapes given for ``P`` seats, ``H`` slots)."""

    ends: IntArray
    """``(B, 4)``: the last card of each row."""
    lengths: IntArray
    """``(B, 4)``: how many cards each row holds (1 to 5)."""
    heads: IntArray
    """``(B, 4)``: the bullheads each row would cost if taken."""
    hands: IntArray
    """``(B, P, H)``: each seat's cards, :data:`EMPTY` where a card was played."""
    penalties: IntArray
    """``(B, P)``: bullheads taken by each seat since the batch was built."""

    @property
    def size(self) -> int:
        return int(self.ends.shape[0])

    @property
    def seats(self) -> int:
        return int(self.hands.shape[1])


RolloutPolicy = Callable[[Batch], IntArray]
"""A policy for every seat of every round in a batch: returns the slot index ``(B, P)`` into
``hands`` of the card each seat plays (never an empty slot)."""


def batch_from_rows(rows: Sequence[Sequence[int]], hands: IntArray) -> Batch:
    """A batch whose rounds all have ``rows`` and whose hands are ``hands`` ``(B, P, H)``."""
    size = hands.shape[0]
    ends = np.array([row[-1] for row in rows], dtype=np.int64)
    lengths = np.array([len(row) for row in rows], dtype=np.int64)
    heads = np.array([int(_HEADS[list(row)].sum()) for row in rows], dtype=np.int64)
    return Batch(
        ends=np.tile(ends, (size, 1)),
        lengths=np.tile(lengths, (size, 1)),
        heads=np.tile(heads, (size, 1)),
        hands=hands.astype(np.int64, copy=True),
        penalties=np.zeros((size, hands.shape[1]), dtype=np.int64),
    )


def placement_costs(batch: Batch) -> IntArray:
    """``(B, P, H)``: what each card in each hand would cost on the rows as they are, if it
    were the only card played (the ``greedy`` measure of docs/bots.md): a card below
    every row costs the cheapest row, a sixth card costs its row, any other card costs 0."""
    size = batch.size
    # Sort each round's row ends; a card's target is then given by how many ends lie below it
    # (0: below every row). Four element-wise comparisons on (B, P, H) are much cheaper than a
    # reduction over a trailing axis of four.
    order = np.argsort(batch.ends, axis=1)
    ends = np.take_along_axis(batch.ends, order, axis=1)
    full_cost = np.where(batch.lengths == ROW_LIMIT, batch.heads, 0)
    by_position = np.empty((size, NUM_ROWS + 1), dtype=np.int64)
    by_position[:, 0] = batch.heads.min(axis=1)
    by_position[:, 1:] = np.take_along_axis(full_cost, order, axis=1)
    hands = batch.hands
    position = (hands > ends[:, 0, None, None]).astype(np.int64)
    for row in range(1, NUM_ROWS):
        position += hands > ends[:, row, None, None]
    position += (np.arange(size) * (NUM_ROWS + 1))[:, None, None]
    cost: IntArray = by_position.ravel()[position]
    return cost


def greedy_policy(batch: Batch) -> IntArray:
    """The ``greedy`` reference policy for every seat: the cheapest placement, lowest card on
    ties (played slots are never chosen)."""
    hands = batch.hands
    key = placement_costs(batch) * 128 + hands
    key = np.where(hands == EMPTY, _NO_CARD_KEY, key)
    choice: IntArray = key.argmin(axis=-1)
    return choice


def take_cards(batch: Batch, slots: IntArray) -> IntArray:
    """Remove the cards at ``slots`` ``(B, P)`` from the hands and return them ``(B, P)``."""
    size, seats = slots.shape
    rows = np.arange(size)[:, None]
    cols = np.arange(seats)[None, :]
    cards: IntArray = batch.hands[rows, cols, slots]
    batch.hands[rows, cols, slots] = EMPTY
    return cards


def resolve_turn(batch: Batch, cards: IntArray, low_row: IntArray | None = None) -> None:
    """Place one turn's ``cards`` ``(B, P)`` lowest first, in every round of the batch.

    When the lowest card is below every row, its player takes ``low_row`` ``(B,)`` if given,
    else the row with the fewest bullheads (the first such row), as ``greedy`` would. Only the
    lowest card of a turn can be below every row, so later cards skip that case.
    """
    size, seats = cards.shape
    index = np.arange(size)
    order = np.argsort(cards, axis=1)
    ordered = np.take_along_axis(cards, order, axis=1)
    ends, lengths, heads, penalties = batch.ends, batch.lengths, batch.heads, batch.penalties
    for position in range(seats):
        card = ordered[:, position]
        owner = order[:, position]
        below = ends < card[:, None]
        row = np.where(below, ends, -1).argmax(axis=1)
        length = lengths[index, row]
        take = length == ROW_LIMIT
        if position == 0:
            too_low = ~below.any(axis=1)
            if too_low.any():
                chosen = low_row if low_row is not None else heads.argmin(axis=1)
                row = np.where(too_low, chosen, row)
                length = lengths[index, row]
                take = take | too_low
        row_heads = heads[index, row]
        penalties[index, owner] += np.where(take, row_heads, 0)
        card_heads = _HEADS[card]
        ends[index, row] = card
        lengths[index, row] = np.where(take, 1, length + 1)
        heads[index, row] = np.where(take, card_heads, row_heads + card_heads)


def play_out(batch: Batch, turns: int, policy: RolloutPolicy = greedy_policy) -> None:
    """Play ``turns`` more turns in every round of the batch, every seat following ``policy``.

    A policy with a ``compiled_turn`` (:class:`CompiledGreedy`, a compiled
    :class:`~nimmt.bots.policy.ModelPolicy`) plays each turn in one compiled call
    (:mod:`nimmt.bots.kernels`)."""
    turn: Callable[[Batch], None] | None = getattr(policy, "compiled_turn", None)
    for _ in range(turns):
        if turn is not None:
            turn(batch)
        else:
            resolve_turn(batch, take_cards(batch, policy(batch)))


class CompiledGreedy:
    """:func:`greedy_policy`, whose rollouts play each turn in one compiled call: the same
    results, faster on large batches (numba loads, and compiles once, at the first turn)."""

    def __call__(self, batch: Batch) -> IntArray:
        return greedy_policy(batch)

    @staticmethod
    def compiled_turn(batch: Batch) -> None:
        from nimmt.bots import kernels  # numba loads only when a search first needs it

        kernels.greedy_turn(batch.ends, batch.lengths, batch.heads, batch.hands, batch.penalties)


def sample_hands(
    unseen: Sequence[int], others: int, hand_size: int, samples: int, rng: np.random.Generator
) -> IntArray:
    """``(samples, others, hand_size)``: deals of the unseen cards to the other seats.

    Each deal is a uniformly random draw without replacement from ``unseen`` (the other seats'
    hands and the undealt rest are indistinguishable to the seat), which is exactly the set of
    deals consistent with what the seat has seen.
    """
    needed = others * hand_size
    pool = np.asarray(unseen, dtype=np.int64)
    if needed > pool.size:
        raise ValueError(f"{needed} unseen cards needed, only {pool.size} unseen")
    shuffled = rng.permuted(np.broadcast_to(pool, (samples, pool.size)), axis=1)
    return shuffled[:, :needed].reshape(samples, others, hand_size)


_TINY: dict[np.dtype[Any], np.floating[Any]] = {
    np.dtype(np.float32): np.float32(1e-30),
    np.dtype(np.float64): np.float64(1e-300),
}
"""Keeps Gumbel noise finite when a uniform draw is exactly 0 (by precision)."""


def gumbel_noise(
    rng: np.random.Generator, shape: tuple[int, ...], dtype: type[np.floating[Any]] = np.float32
) -> npt.NDArray[Any]:
    """Gumbel noise of ``shape``: the argmax of scores plus it is a draw from their softmax
    (Gumbel-max), the argmin of costs minus it a draw from their softmin. Single precision by
    default: it halves the cost of the noise, which dominates a rollout policy's."""
    uniform = rng.random(shape, dtype=dtype)
    noise: npt.NDArray[Any] = -np.log(-np.log(np.maximum(uniform, _TINY[uniform.dtype])))
    return noise


Scorer = Callable[[Batch], npt.NDArray[np.float64]]
"""What a finished round of a batch is worth to seat 0, per round (lower is better):
:func:`relative_scores`, or the chance of winning the game (:mod:`nimmt.bots.objective`)."""


def relative_scores(batch: Batch) -> npt.NDArray[np.float64]:
    """``(B,)``: seat 0's bullheads minus the mean of the other seats' (lower is better)."""
    penalties = batch.penalties
    result: npt.NDArray[np.float64] = penalties[:, 0] - penalties[:, 1:].mean(axis=1)
    return result


def turns_left_after(turns_done: int) -> int:
    """Turns still to play after the current one, when ``turns_done`` are complete."""
    return HAND_SIZE - turns_done - 1
