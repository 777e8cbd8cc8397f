"""``bench/paired.py``: paired differences of a candidate and a baseline, per table and pooled."""

from __future__ import annotations

import math

import pytest

import paired
from nimmt.arena.stats import Z95


def test_a_deals_difference_is_the_first_bots_relative_score_minus_the_baselines() -> None:
    # Two rotations of a 3-seat deal: the first bot 3 and 6, the others (1, 2) and (4, 4).
    candidate = {1: [[3, 1, 2], [6, 4, 4]], 2: [[0, 3, 3], [0, 3, 3]]}
    baseline = {1: [[5, 1, 2], [6, 4, 4]], 3: [[9, 0, 0], [9, 0, 0]]}
    assert paired.first_bot_relative(candidate) == {1: (1.5 + 2.0) / 2, 2: -3.0}
    # Only deal 1 is in both runs: (3.5/2) - (3.5 + 2)/2.
    assert paired.differences(candidate, baseline) == {1: pytest.approx(-1.0)}


def test_pooling_averages_each_deal_over_the_tables_before_the_interval() -> None:
    tables = [{1: -1.0, 2: 1.0, 3: 0.0}, {1: -3.0, 2: 1.0, 4: 5.0}]
    deals, figure = paired.pooled(tables)
    # Deals 1 and 2 are in both tables: their means -2 and 1.
    assert deals == 2
    assert figure.mean == pytest.approx(-0.5)
    half_width = Z95 * math.sqrt(((-2 + 0.5) ** 2 + (1 + 0.5) ** 2) / 1) / math.sqrt(2)
    assert figure.low == pytest.approx(-0.5 - half_width)
    assert figure.high == pytest.approx(-0.5 + half_width)
    with pytest.raises(ValueError, match="no deal in common"):
        paired.pooled([{1: 0.0}, {2: 0.0}])
