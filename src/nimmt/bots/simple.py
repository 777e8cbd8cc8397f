"""The reference bots ``random`` and ``greedy``, exactly as docs/bots.md defines them.

``greedy`` plays the card whose placement on the current rows, as if no other card were played,
costs the fewest bullheads (a card below every row costs the cheapest row; a sixth card costs its
row; any other card costs 0), the lowest such card on ties; it takes the row with the fewest
bullheads, the first such row on ties.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from nimmt.engine import ROW_LIMIT, SeatView, total_bullheads
from nimmt.engine.core import target_row


def greedy_card_cost(rows: Sequence[Sequence[int]], card: int) -> int:
    """What ``card`` would cost on ``rows`` if it were the only card played."""
    best = target_row(rows, card)
    if best < 0:
        return min(total_bullheads(row) for row in rows)
    if len(rows[best]) == ROW_LIMIT:
        return total_bullheads(rows[best])
    return 0


def cheapest_row(rows: Sequence[Sequence[int]]) -> int:
    """The row with the fewest bullheads, the first such row on ties."""
    costs = [total_bullheads(row) for row in rows]
    return costs.index(min(costs))


def greedy_card(rows: Sequence[Sequence[int]], hand: Sequence[int]) -> int:
    """The greedy policy's card: the cheapest placement, the lowest card on ties."""
    return min(hand, key=lambda card: (greedy_card_cost(rows, card), card))


class RandomBot:
    """A uniformly random card; a uniformly random row when it must take one."""

    name = "random"

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng

    def choose_card(self, view: SeatView) -> int:
        return self._rng.choice(view.legal_cards())

    def choose_row(self, view: SeatView) -> int:
        return self._rng.randrange(len(view.rows))


class GreedyBot:
    """The cheapest card for the rows as they are; the cheapest row when it must take one."""

    name = "greedy"

    def __init__(self, rng: random.Random | None = None) -> None:
        del rng  # deterministic: accepts an RNG only to share the bots' constructor

    def choose_card(self, view: SeatView) -> int:
        return greedy_card(view.rows, view.legal_cards())

    def choose_row(self, view: SeatView) -> int:
        return cheapest_row(view.rows)
