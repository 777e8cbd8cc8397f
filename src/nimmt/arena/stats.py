"""The arena's statistics (docs/formats.md section 3), from per-game bullheads grouped in blocks.

A block is one deal (or one whole game) played in every rotation of the seats. Bots' scores in
the same block are not independent (they share the cards), so the confidence intervals treat a
block as one observation: each figure is first averaged over the block's rotations, then its
mean and a normal 95% interval are taken over blocks.

- ``mean``: bullheads per game of that bot.
- ``vs_others``: per game, the bot's bullheads minus the mean of the other seats' bullheads in
  the same game; averaged per block, then over blocks. Negative is better than the table.
- ``win_share``: the share of games in which the bot had the fewest bullheads, a tie of ``k``
  seats giving each ``1/k``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

Z95 = 1.959963984540054
"""The two-sided 95% quantile of the normal distribution."""


@dataclass(frozen=True, slots=True)
class Estimate:
    """A mean over blocks and its 95% interval (``None`` bounds with fewer than two blocks)."""

    mean: float
    low: float | None
    high: float | None


def estimate(values: Sequence[float]) -> Estimate:
    """The mean of ``values`` (one per block) with a normal 95% confidence interval."""
    if not values:
        raise ValueError("no blocks to summarize")
    count = len(values)
    mean = math.fsum(values) / count
    if count < 2:
        return Estimate(mean, None, None)
    variance = math.fsum((value - mean) ** 2 for value in values) / (count - 1)
    half = Z95 * math.sqrt(variance / count)
    return Estimate(mean, mean - half, mean + half)


def win_shares(scores: Sequence[int]) -> list[float]:
    """Each seat's share of one game's win: 1 for the sole lowest score, split on ties."""
    best = min(scores)
    winners = sum(1 for score in scores if score == best)
    return [1.0 / winners if score == best else 0.0 for score in scores]


def vs_others(scores: Sequence[int]) -> list[float]:
    """Each seat's score minus the mean of the other seats' scores in the same game."""
    total = sum(scores)
    others = len(scores) - 1
    return [score - (total - score) / others for score in scores]


@dataclass(frozen=True, slots=True)
class BotFigures:
    """One bot's figures over all blocks."""

    mean: Estimate
    vs_others: Estimate
    win_share: float


def summarize(blocks: Sequence[Sequence[Sequence[int]]]) -> list[BotFigures]:
    """Figures for each bot from ``blocks[block][game][bot]``: the bullheads each bot (in the
    order given, not by seat) took in each game (rotation) of each block."""
    if not blocks:
        raise ValueError("no blocks to summarize")
    bots = len(blocks[0][0])
    games = sum(len(block) for block in blocks)
    figures: list[BotFigures] = []
    for bot in range(bots):
        means = [sum(game[bot] for game in block) / len(block) for block in blocks]
        relative = [sum(vs_others(game)[bot] for game in block) / len(block) for block in blocks]
        wins = sum(win_shares(game)[bot] for block in blocks for game in block)
        figures.append(BotFigures(estimate(means), estimate(relative), wins / games))
    return figures
