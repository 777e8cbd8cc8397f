"""The bot ladder: a balanced schedule, a new bot playing only its own tables, the file, and the
Bradley-Terry fit (docs/bots.md "The ladder")."""

from __future__ import annotations

import json
import math
from collections import Counter
from itertools import combinations
from pathlib import Path

import numpy as np
import pytest

from nimmt.arena.ladder import (
    Block,
    Ladder,
    LadderError,
    check_ladder,
    deal_results,
    fit_bradley_terry,
    join,
    load_ladder,
    play_ladder,
    rate,
    report,
    save_ladder,
)
from nimmt.bots import UnknownBotError


@pytest.mark.parametrize(("bots", "seats"), [(6, 4), (7, 4), (5, 3), (5, 2), (4, 4)])
def test_every_pair_meets_at_the_same_number_of_tables(bots: int, seats: int) -> None:
    ladder = Ladder(seats=seats, seed=1, bots=[f"mc:{n + 1}" for n in range(bots)])
    tables = ladder.schedule()
    assert len(tables) == math.comb(bots, seats) == len(set(tables))
    assert all(len(set(table)) == seats for table in tables)
    pairs = Counter(pair for table in tables for pair in combinations(sorted(table), 2))
    assert len(pairs) == math.comb(bots, 2)
    assert set(pairs.values()) == {math.comb(bots - 2, seats - 2)}
    seats_taken = Counter(bot for table in tables for bot in table)
    assert set(seats_taken.values()) == {math.comb(bots - 1, seats - 1)}


def test_a_new_bot_plays_only_its_own_tables_and_gets_what_a_fresh_ladder_gets() -> None:
    grown = Ladder(seats=2, seed=5)
    join(grown, ["random", "greedy", "mc:1"])
    assert play_ladder(grown, 2) == 3 * 2
    before = {table: dict(blocks) for table, blocks in grown.tables.items()}
    assert join(grown, ["greedy", "mc:2"]) == ["mc:2"]  # greedy is on the ladder already
    assert grown.missing(2) == [
        (table, block)
        for table in (("random", "mc:2"), ("greedy", "mc:2"), ("mc:1", "mc:2"))
        for block in range(2)
    ]
    assert play_ladder(grown, 2) == 3 * 2
    for table, blocks in before.items():
        assert all(grown.tables[table][block] is entry for block, entry in blocks.items())
    fresh = Ladder(seats=2, seed=5)
    join(fresh, ["random", "greedy", "mc:1", "mc:2"])
    assert play_ladder(fresh, 2, jobs=2) == 6 * 2
    scores = {
        table: {k: b.scores for k, b in blocks.items()} for table, blocks in fresh.tables.items()
    }
    assert scores == {
        table: {k: b.scores for k, b in blocks.items()} for table, blocks in grown.tables.items()
    }
    assert play_ladder(fresh, 2) == 0  # nothing is missing
    assert play_ladder(fresh, 3, extend=False) == 0  # every table has deals: none is extended
    assert play_ladder(fresh, 3) == 6  # one more deal at every table


def test_the_file_keeps_the_ladder_whole(tmp_path: Path) -> None:
    ladder = Ladder(seats=2, seed=2)
    join(ladder, ["random", "greedy"])
    play_ladder(ladder, 3)
    path = tmp_path / "ladder.json"
    save_ladder(ladder, path)
    again = load_ladder(path)
    assert (again.seats, again.seed, again.bots) == (2, 2, ["random", "greedy"])
    assert again.tables == ladder.tables
    assert report(again, 0) == report(ladder, 0)
    assert [p.name for p in tmp_path.iterdir()] == ["ladder.json"]  # no temporary file left


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{", "is not a nimmt-ladder file: it is not JSON"),
        ('{"format": "other"}', "it is not a nimmt-ladder file"),
        ('{"format": "nimmt-ladder", "version": 9}', "it is version 9"),
        ('{"format": "nimmt-ladder", "version": 1, "seats": 2}', "it is damaged (KeyError"),
        (
            '{"format": "nimmt-ladder", "version": 1, "seats": 2, "seed": 1, "bots": ["a", "b"],'
            ' "tables": [{"bots": ["a", "c"], "deals": []}]}',
            "table ['a', 'c'] is not a table of its bots",
        ),
        (
            '{"format": "nimmt-ladder", "version": 1, "seats": 2, "seed": 1, "bots": ["a", "b"],'
            ' "tables": [{"bots": ["a", "b"], "deals": [{"deal": 0, "scores": [[1, 2]],'
            ' "seconds": [0, 0], "decisions": [1, 1]}]}]}',
            "has the wrong shape",
        ),
    ],
)
def test_a_file_that_is_not_a_ladder_is_refused_by_name(
    tmp_path: Path, text: str, message: str
) -> None:
    path = tmp_path / "ladder.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(LadderError, match=r"ladder\.json") as error:
        load_ladder(path)
    assert message in str(error.value)


def test_bad_ladders_are_refused_before_anything_is_played() -> None:
    ladder = Ladder(seats=4, seed=1)
    with pytest.raises(LadderError, match="greedy is named twice"):
        join(ladder, ["greedy", "Greedy"])
    with pytest.raises(UnknownBotError, match="unknown bot 'clever'"):
        join(ladder, ["random", "clever"])
    assert ladder.bots == []
    join(ladder, ["random", "greedy", "easy"])
    with pytest.raises(LadderError, match="needs at least 4 bots, it has 3"):
        check_ladder(ladder, 1)
    join(ladder, ["medium"])
    with pytest.raises(LadderError, match="at least one deal"):
        check_ladder(ladder, 0)
    with pytest.raises(LadderError, match="not 11"):
        check_ladder(Ladder(seats=11, seed=1, bots=["random"] * 11), 1)


def test_deal_results_compare_the_bullheads_over_the_rotations() -> None:
    block = Block(scores=[[3, 5, 0], [4, 2, 7], [1, 1, 1]], seconds=[0.0] * 3, decisions=[1] * 3)
    # 8 bullheads each over the three rotations: three ties
    assert deal_results(block).tolist() == [[0.0, 0.5, 0.5], [0.5, 0.0, 0.5], [0.5, 0.5, 0.0]]
    block = Block(scores=[[3, 5, 0], [4, 3, 1]], seconds=[0.0] * 3, decisions=[1] * 3)  # 7, 8, 1
    assert deal_results(block).tolist() == [[0.0, 1.0, 0.0], [0.0, 0.0, 0.0], [1.0, 1.0, 0.0]]


def test_bradley_terry_recovers_the_odds_with_its_virtual_tie() -> None:
    wins = np.array([[0.0, 30.0], [10.0, 0.0]])
    meetings = np.array([[0.0, 40.0], [40.0, 0.0]])
    strengths = fit_bradley_terry(wins, meetings)
    assert strengths[0] - strengths[1] == pytest.approx(math.log(30.5 / 10.5))
    assert strengths.sum() == pytest.approx(0.0)
    # Three bots in a line: the middle one between the others, a clean sweep kept finite.
    wins = np.array([[0.0, 20.0, 20.0], [0.0, 0.0, 15.0], [0.0, 5.0, 0.0]])
    meetings = 20.0 * (1 - np.eye(3))
    strengths = fit_bradley_terry(wins, meetings)
    assert strengths[0] > strengths[1] > strengths[2]
    assert np.isfinite(strengths).all()


def test_ratings_order_the_bots_and_their_intervals_hold_them() -> None:
    ladder = Ladder(seats=2, seed=3)
    join(ladder, ["random", "greedy", "mc:2"])
    play_ladder(ladder, 10)
    ratings = rate(ladder)
    assert ratings[-1].bot == "random"
    assert sum(rating.rating for rating in ratings) == pytest.approx(0.0, abs=1e-6)
    for rating in ratings:
        assert rating.low <= rating.rating <= rating.high
        assert (rating.tables, rating.deals) == (2, 20)
        assert 0 <= rating.pair_wins <= 1
    assert ratings[0].low > ratings[-1].high  # random is clearly below the best
    assert rate(ladder) == ratings  # the bootstrap is seeded by the ladder


def test_the_report_shape() -> None:
    ladder = Ladder(seats=2, seed=1)
    join(ladder, ["random", "greedy", "mc:1"])
    played = play_ladder(ladder, 2)
    figures = report(ladder, played)
    assert {key: figures[key] for key in ("seats", "seed", "tables", "deals", "games")} == {
        "seats": 2,
        "seed": 1,
        "tables": 3,
        "deals": 6,
        "games": 12,
    }
    assert (figures["rating"], figures["scale"], figures["played_deals"]) == (
        "bradley-terry",
        "elo",
        6,
    )
    assert [bot["rank"] for bot in figures["bots"]] == [1, 2, 3]
    keys = {"rank", "bot", "rating", "ci95", "pair_wins", "mean", "tables", "deals", "ms_per_move"}
    assert all(set(bot) == keys for bot in figures["bots"])
    assert json.loads(json.dumps(figures)) == figures
