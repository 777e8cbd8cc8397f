"""``mc:N``: determinized flat Monte Carlo, as the bots issue defines it.

At each decision the bot samples ``N`` deals of the cards it has not seen (uniformly, so every
deal is consistent with its hand, the rows and every card played so far this round), and tries
every candidate in the same ``N`` deals: the other seats' cards of this turn and the rest of the
round are played by the ``greedy`` policy for everyone (a card below every row takes the
cheapest row). A candidate scores the seat's own bullheads minus the mean of the other seats'
over the rest of the round; the bot plays the candidate with the best mean (the lowest card, or
the first row, on ties). Row choices are decided the same way: each of the four rows is tried in
the same sampled deals, the turn finishes, and the round is played out.

:func:`card_scores` and :func:`row_scores` are the two evaluations, shared with the project's
own levels (:mod:`nimmt.bots.levels`), which change the number of deals and the rollout policy.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from nimmt.bots.batchsim import (
    Batch,
    IntArray,
    RolloutPolicy,
    Scorer,
    batch_from_rows,
    greedy_policy,
    play_out,
    relative_scores,
    resolve_turn,
    sample_hands,
    take_cards,
    turns_left_after,
)
from nimmt.engine import NUM_ROWS, SeatView

FloatArray = npt.NDArray[np.float64]


def table_order(view: SeatView) -> list[int]:
    """The seats as a batch orders them: the deciding seat first, the others in table order."""
    assert view.seat is not None, "a spectator makes no decisions"
    return [(view.seat + step) % view.players for step in range(view.players)]


def hand_deals(
    view: SeatView,
    own: tuple[int, ...],
    samples: int,
    rng: np.random.Generator,
    others: IntArray | None = None,
) -> IntArray:
    """``(samples, P, H)``: the seat's own cards ``own`` with the others' hands ``others``, or
    with uniformly sampled hands when none are given."""
    if others is None:
        others = sample_hands(view.unseen_cards(), view.players - 1, len(own), samples, rng)
    mine = np.broadcast_to(np.asarray(own, dtype=np.int64), (samples, 1, len(own)))
    return np.concatenate([mine, others], axis=1)


def card_scores(
    view: SeatView,
    samples: int,
    rng: np.random.Generator,
    policy: RolloutPolicy = greedy_policy,
    slots: Sequence[int] | IntArray | None = None,
    others: IntArray | None = None,
    score: Scorer = relative_scores,
) -> tuple[tuple[int, ...], FloatArray]:
    """Each legal card and its mean relative score over ``samples`` sampled deals (lower is
    better): this turn's other cards and the rest of the round follow ``policy``. ``score``
    judges each finished round instead of the relative score when given.

    ``slots`` limits the evaluation to those cards (indices into the legal cards); the scores
    are then theirs, in that order. All cards are tried in the same sampled deals: uniform
    deals of the unseen cards, or the other seats' hands ``others`` ``(samples, P-1, H)`` (in
    :func:`table_order`) when given.
    """
    hand = view.legal_cards()
    tried = np.arange(len(hand)) if slots is None else np.asarray(slots, dtype=np.int64)
    deals = hand_deals(view, hand, samples, rng, others)
    batch = batch_from_rows(view.rows, np.tile(deals, (len(tried), 1, 1)))
    return hand, evaluate_cards(batch, tried, samples, turns_left_after(view.turn), policy, score)


def evaluate_cards(
    batch: Batch,
    tried: IntArray,
    samples: int,
    turns_after: int,
    policy: RolloutPolicy,
    score: Scorer = relative_scores,
) -> FloatArray:
    """Play slot ``tried[i]`` of seat 0's hand in rounds ``i*samples`` to ``(i+1)*samples - 1``
    of the batch, the rest by ``policy``; each tried card's mean score."""
    slots = policy(batch)
    slots[:, 0] = np.repeat(tried, samples)
    resolve_turn(batch, take_cards(batch, slots))
    play_out(batch, turns_after, policy)
    means: FloatArray = score(batch).reshape(len(tried), samples).mean(axis=1)
    return means


def row_batch(view: SeatView, samples: int, rng: np.random.Generator) -> tuple[IntArray, Batch]:
    """This turn's revealed cards in batch order ``(4*samples, P)`` and a batch holding, for
    each of the four rows in turn, the same sampled deals of the cards still in hand."""
    revealed = view.revealed
    assert revealed is not None and view.seat is not None, "no row choice is pending"
    mine = revealed[view.seat]
    rest = tuple(card for card in view.hand if card != mine)
    deals = hand_deals(view, rest, samples, rng)
    batch = batch_from_rows(view.rows, np.tile(deals, (NUM_ROWS, 1, 1)))
    turn = np.asarray([revealed[seat] for seat in table_order(view)], dtype=np.int64)
    return np.broadcast_to(turn, (batch.size, view.players)).copy(), batch


def row_scores(
    view: SeatView,
    samples: int,
    rng: np.random.Generator,
    policy: RolloutPolicy = greedy_policy,
    score: Scorer = relative_scores,
) -> FloatArray:
    """Each row's mean relative score (lower is better) if the seat takes it: the turn
    finishes, then the rest of the round follows ``policy`` (``score``: as
    :func:`card_scores`)."""
    cards, batch = row_batch(view, samples, rng)
    resolve_turn(batch, cards, np.repeat(np.arange(NUM_ROWS), samples))
    play_out(batch, turns_left_after(view.turn), policy)
    means: FloatArray = score(batch).reshape(NUM_ROWS, samples).mean(axis=1)
    return means


def numpy_rng(rng: random.Random) -> np.random.Generator:
    """A numpy generator seeded from ``rng``, so that a seeded bot is deterministic."""
    return np.random.default_rng(rng.getrandbits(64))


class MonteCarloBot:
    """``mc:N``: determinized flat Monte Carlo with ``N`` sampled deals and greedy rollouts."""

    def __init__(self, samples: int, rng: random.Random, name: str | None = None) -> None:
        if samples < 1:
            raise ValueError("mc:N needs at least one sampled deal")
        self.samples = samples
        self._rng = numpy_rng(rng)
        self._name = name if name is not None else f"mc:{samples}"

    @property
    def name(self) -> str:
        return self._name

    def choose_card(self, view: SeatView) -> int:
        hand = view.legal_cards()
        if len(hand) == 1:
            return hand[0]
        candidates, scores = card_scores(view, self.samples, self._rng)
        return candidates[int(np.argmin(scores))]

    def choose_row(self, view: SeatView) -> int:
        return int(np.argmin(row_scores(view, self.samples, self._rng)))
