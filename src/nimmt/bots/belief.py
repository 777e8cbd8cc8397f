"""Beliefs about the hidden hands: sampled deals weighted by how well they explain the past plays.

A uniform deal of the unseen cards ignores what the other seats have shown this round: a seat
that played a card that took a row when it could have played safely more likely held nothing
safe. :func:`belief_hands` samples several times the deals needed, gives each the likelihood of
every other seat's plays so far this round under the learned model of :mod:`nimmt.bots.policy`
(the seat's hand then being its sampled cards plus those it played since), raised to a power
``strength`` (0: uniform, as before; 1: the model taken at its word); the search then draws its
deals from that pool by those weights (:class:`Belief`), once per decision however many stages
it has.
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


def play_log_likelihood(
    view: SeatView, others: IntArray, order: list[int], weights: npt.NDArray[np.float32]
) -> npt.NDArray[np.float64]:
    """``(N,)``: for each sampled deal ``others`` ``(N, P-1, h)`` (the hands of ``order[1:]``),
    the log-probability under the model of every card those seats played this round."""
    count = others.shape[0]
    total = np.zeros(count)
    history = rows_before_each_turn(view)
    if history is None:
        return total
    turns = len(view.played)
    held = others.shape[2]
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
        total += log_probability[:, :, held].sum(axis=1)
    return total


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
) -> Belief:
    """``count`` uniform deals of the unseen cards to the seats ``order[1:]``, each weighted by
    the likelihood of their plays so far to the power ``strength``."""
    pool = sample_hands(view.unseen_cards(), view.players - 1, hand_size, count, rng)
    log_weight = strength * play_log_likelihood(view, pool, order, weights)
    weight = np.exp(log_weight - log_weight.max())
    return Belief(pool, weight / weight.sum())
