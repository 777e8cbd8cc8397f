"""The arena's statistics on small result sets computed by hand."""

from __future__ import annotations

import pytest

from nimmt.arena import estimate, summarize, vs_others, win_shares
from nimmt.arena.stats import Z95

# Two bots, two blocks (deals) of two rotations each: blocks[block][game][bot].
BLOCKS = [[[2, 4], [6, 0]], [[1, 1], [3, 5]]]


def test_mean_and_interval_treat_each_deal_as_one_block() -> None:
    first, second = summarize(BLOCKS)
    # Bot 0 averages 4 on the first deal and 2 on the second: mean 3, block spread sqrt(2),
    # standard error sqrt(2) / sqrt(2) = 1.
    assert first.mean.mean == pytest.approx(3.0)
    assert first.mean.low == pytest.approx(3.0 - Z95)
    assert first.mean.high == pytest.approx(3.0 + Z95)
    assert second.mean.mean == pytest.approx(2.5)  # (4 + 0) / 2 and (1 + 5) / 2


def test_vs_others_is_paired_within_each_game() -> None:
    first, second = summarize(BLOCKS)
    # Bot 0 minus bot 1: -2 and 6 (block mean 2), 0 and -2 (block mean -1): mean 0.5;
    # the two block means differ from it by 1.5 each: variance 4.5, standard error 1.5.
    assert first.vs_others.mean == pytest.approx(0.5)
    assert first.vs_others.low == pytest.approx(0.5 - 1.5 * Z95)
    assert first.vs_others.high == pytest.approx(0.5 + 1.5 * Z95)
    assert second.vs_others.mean == pytest.approx(-0.5)


def test_win_share_splits_ties() -> None:
    first, second = summarize(BLOCKS)
    # Games: (2, 4) bot 0 wins; (6, 0) bot 1; (1, 1) shared; (3, 5) bot 0.
    assert first.win_share == pytest.approx(2.5 / 4)
    assert second.win_share == pytest.approx(1.5 / 4)


def test_per_game_helpers_for_three_seats() -> None:
    assert vs_others([3, 6, 0]) == [0.0, 4.5, -4.5]
    assert win_shares([2, 2, 2]) == pytest.approx([1 / 3] * 3)
    assert win_shares([5, 1, 1]) == [0.0, 0.5, 0.5]


def test_a_single_block_has_no_interval() -> None:
    single = estimate([4.0])
    assert (single.mean, single.low, single.high) == (4.0, None, None)
    with pytest.raises(ValueError):
        estimate([])
