"""``bench/paired.py``: paired differences of a candidate and a baseline, per table and pooled."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

import paired
from nimmt.arena import Match, play_match, report
from nimmt.arena.stats import Z95

SCRIPT = Path(__file__).parents[2] / "bench" / "paired.py"


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


def test_a_games_win_share_splits_ties_and_averages_the_rotations() -> None:
    # Rotation 1: the first bot alone lowest; rotation 2: tied with one other seat.
    assert paired.first_bot_wins({1: [[40, 70, 50], [45, 45, 67]]}) == {1: (1.0 + 0.5) / 2}


def _run(bots: tuple[str, ...], directory: Path) -> dict[str, object]:
    match = Match(bots, 3, 7, whole_games=True, keep_records=True)
    results = play_match(match)
    directory.mkdir()
    for result in results:
        for name, text in result.records:
            (directory / name).write_text(text, encoding="utf-8")
    figures: dict[str, object] = report(match, results)["bots"][0]
    return figures


def test_whole_games_are_compared_by_totals_and_by_wins(tmp_path: Path) -> None:
    candidate = _run(("mc:2", "random", "random"), tmp_path / "candidate")
    baseline = _run(("random", "random", "random"), tmp_path / "baseline")
    output = subprocess.run(
        [
            sys.executable,
            str(SCRIPT),
            f"{tmp_path / 'candidate'}:{tmp_path / 'baseline'}",
            "--json",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    table = json.loads(output.stdout)["tables"][0]
    assert table["deals"] == 3
    assert table["candidate_vs_others"] == candidate["vs_others"]
    assert table["baseline_vs_others"] == baseline["vs_others"]
    assert table["candidate_win_share"] == candidate["win_share"]
    assert table["baseline_win_share"] == baseline["win_share"]
    difference = table["candidate_win_share"] - table["baseline_win_share"]
    assert abs(table["win_share_difference"] - difference) < 1e-3
    low, high = table["win_share_difference_ci95"]
    assert low <= table["win_share_difference"] <= high
