"""What a search plays for in the round that may end the game: winning it, not the round.

A round's bullheads are the right measure while the game goes on: every one counts towards the
total, and the lowest total wins in the end. In the round in which somebody passes 66 they are
not. Then only who has the lowest total counts: a leader far ahead may take bullheads that cost
nothing, and a player just behind must catch up now or never. :class:`GameObjective` judges each
sampled future of such a round by the share of the game it wins (a tie of ``k`` lowest totals
wins ``1/k``, as the arena counts it), and a future in which nobody passes 66 by an estimate of
that share from the totals and the rounds that are likely to remain.

It decides once per decision, from the first batch it judges, whether the game may end in this
round (somebody passes 66 in at least a given share of the futures, :data:`ENDS_FROM` unless
told), so that every stage of a search compares like with like; a round that cannot end the
game is judged by the relative score, exactly as before.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from nimmt.bots.batchsim import Batch, relative_scores
from nimmt.bots.montecarlo import table_order
from nimmt.engine import GAME_END_THRESHOLD, SeatView

FloatArray = npt.NDArray[np.float64]

ENDS_FROM = 0.2
"""The share of sampled futures that end the game from which a decision plays to win it."""
TIE_BREAK = 1e-4
"""What a bullhead of the relative score weighs beside the whole win (1): enough to choose
between cards that win alike, too little to outweigh a difference in the chance of winning."""
DEFAULT_RATE = 8.0
"""Bullheads per seat and round assumed before a game has a completed round."""
MIN_RATE = 3.0
SPREAD = math.sqrt(6.0) / math.pi
"""A logistic's scale per standard deviation of the difference it stands for (``√3/π``), for
two seats' totals, each with a round's spread about the rate (``√2``)."""


class GameObjective:
    """A :data:`~nimmt.bots.batchsim.Scorer` for one decision of ``view``'s seat: the relative
    score while the game cannot end this round, minus the chance of winning the game when it
    may."""

    def __init__(self, view: SeatView, ends_from: float = ENDS_FROM) -> None:
        self.ends_from = ends_from
        order = table_order(view)
        self.before = np.asarray(
            [view.totals[seat] + view.penalties[seat] for seat in order], dtype=np.float64
        )
        rounds = len(view.score_sheet)
        self.rate = (
            max(MIN_RATE, sum(view.totals) / (view.players * rounds)) if rounds else DEFAULT_RATE
        )
        self.ends: bool | None = None
        """Whether this decision plays to win the game (decided by the first batch judged)."""

    def __call__(self, batch: Batch) -> FloatArray:
        final = self.before + batch.penalties
        over = final.max(axis=1)
        ended = over > GAME_END_THRESHOLD
        if self.ends is None:
            self.ends = bool(ended.mean() >= self.ends_from)
        if not self.ends:
            return relative_scores(batch)
        lowest = final.min(axis=1)
        winners = final == lowest[:, None]
        share = np.where(winners[:, 0], 1.0 / winners.sum(axis=1), 0.0)
        # The game goes on: the rounds likely left until somebody passes 66, and the chance
        # that seat 0's total is the lowest then, as a logistic race of the totals.
        rounds_left = np.maximum(1.0, (GAME_END_THRESHOLD + 1 - over) / self.rate)
        scale = SPREAD * self.rate * np.sqrt(rounds_left)
        behind = (final - final[:, :1]) / scale[:, None]
        chance = 1.0 / np.exp(-behind).sum(axis=1)
        # Where every card wins alike (the game surely won, or surely lost) the round's
        # bullheads still decide, by a weight too small to matter anywhere else.
        result: FloatArray = TIE_BREAK * relative_scores(batch) - np.where(ended, share, chance)
        return result
