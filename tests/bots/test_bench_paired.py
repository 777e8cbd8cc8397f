"""``bench/paired.py``: paired differences of a candidate and a baseline, per table and pooled."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from tests.bench.bench_scripts import json_line, refused

import paired
from nimmt.arena import Match, play_match, report
from nimmt.arena.stats import Z95


def test_a_deals_difference_is_the_first_bots_relative_score_minus_the_baselines() -> None:
    # Two rotations of a 3-seat deal: the first bot 3 and 6, the others (1, 2) and (4, 4).
    candidate = {1: [[3, 1, 2], [6, 4, 4]], 2: [[0, 3, 3], [0, 3, 3]]}
    baseline = {1: [[5, 1, 2], [6, 4, 4]], 3: [[9, 0, 0], [9, 0, 0]]}
    assert paired.first_bot_relative(candidate) == {1: (1.5 + 2.0) / 2, 2: -3.0}
    # Only deal 1 is in both runs: (3.5/2) - (3.5 + 2)/2.
    assert paired.differences(candidate, baseline) == {1: pytest.approx(-1.0)}


def test_pooling_averages_each_deal_over_the_tables_before_the_interval() -> None:
    tables = {"a": {1: -1.0, 2: 1.0, 3: 0.0}, "b": {1: -3.0, 2: 1.0, 4: 5.0}}
    deals, figure = paired.pooled_over_seeds({11: tables})
    # Deals 1 and 2 are in both tables: their means -2 and 1.
    assert deals == 2
    assert figure.mean == pytest.approx(-0.5)
    half_width = Z95 * math.sqrt(((-2 + 0.5) ** 2 + (1 + 0.5) ** 2) / 1) / math.sqrt(2)
    assert figure.low == pytest.approx(-0.5 - half_width)
    assert figure.high == pytest.approx(-0.5 + half_width)
    with pytest.raises(ValueError, match="no deal in common"):
        paired.pooled_over_seeds({11: {"a": {1: 0.0}, "b": {2: 0.0}}})


def test_a_games_win_share_splits_ties_and_averages_the_rotations() -> None:
    # Rotation 1: the first bot alone lowest; rotation 2: tied with one other seat.
    assert paired.first_bot_wins({1: [[40, 70, 50], [45, 45, 67]]}) == {1: (1.0 + 0.5) / 2}


def test_seeds_are_pooled_deal_by_deal_each_over_its_own_tables() -> None:
    screens: dict[int | None, dict[str, dict[int, float]]] = {
        11: {"a": {1: -1.0, 2: 1.0}, "b": {1: -3.0, 2: 1.0}},
        12: {"a": {1: 2.0}, "b": {1: 0.0}},  # deal 1 of seed 12 is other cards than seed 11's
    }
    deals, figure = paired.pooled_over_seeds(screens)
    # Seed 11's deals average -2 and 1 over the tables, seed 12's one deal 1.
    assert deals == 3
    assert figure.mean == pytest.approx(0.0)
    with pytest.raises(ValueError, match="same tables at every seed"):
        paired.pooled_over_seeds({11: {"a": {1: 0.0}}, 12: {"b": {1: 0.0}}})


def test_a_table_played_at_two_seeds_is_one_row_over_both(tmp_path: Path) -> None:
    for seed in (5, 6):
        _run(("mc:2", "random", "random"), tmp_path / f"candidate{seed}", seed=seed, games=False)
        _run(("random", "random", "random"), tmp_path / f"baseline{seed}", seed=seed, games=False)
    pairs = [f"{tmp_path}/candidate{seed}:{tmp_path}/baseline{seed}" for seed in (5, 6)]
    one = [json_line("paired.py", pair, timeout=60) for pair in pairs]
    result = json_line("paired.py", *pairs, timeout=60)
    [row] = result["tables"]
    assert row["seeds"] == [5, 6] and row["deals"] == 6
    # Over both seeds: the mean of each seed's three deals.
    mean = (one[0]["tables"][0]["difference"] + one[1]["tables"][0]["difference"]) / 2
    assert row["difference"] == pytest.approx(mean, abs=2e-3)
    assert result["pooled"]["seeds"] == [5, 6] and result["pooled"]["deals"] == 6
    # Runs of different seeds are not the same deals: never paired.
    crossed = refused("paired.py", f"{tmp_path}/candidate5:{tmp_path}/baseline6")
    assert crossed.strip().splitlines() == [
        f"error: {tmp_path}/candidate5 was played at seed 5, {tmp_path}/baseline6 at 6"
    ]


def _run(
    bots: tuple[str, ...], directory: Path, *, seed: int = 7, games: bool = True
) -> dict[str, object]:
    match = Match(bots, 3, seed, whole_games=games, keep_records=True)
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
    pair = f"{tmp_path / 'candidate'}:{tmp_path / 'baseline'}"
    table = json_line("paired.py", pair, timeout=60)["tables"][0]
    assert table["deals"] == 3
    assert table["candidate_vs_others"] == candidate["vs_others"]
    assert table["baseline_vs_others"] == baseline["vs_others"]
    assert table["candidate_win_share"] == candidate["win_share"]
    assert table["baseline_win_share"] == baseline["win_share"]
    difference = table["candidate_win_share"] - table["baseline_win_share"]
    assert abs(table["win_share_difference"] - difference) < 1e-3
    low, high = table["win_share_difference_ci95"]
    assert low <= table["win_share_difference"] <= high
