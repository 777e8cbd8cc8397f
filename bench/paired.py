"""Paired screens: a candidate against a baseline bot in the same seat, on the same deals, over
several tables at once.

Each table is two arena runs with ``--record``: one with the candidate as the first bot, one
with the baseline there, the other seats, ``--seed`` and ``--deals`` the same (so deal ``k`` is
the same cards, and the other seats draw the same random choices). For each deal both runs
completed, the difference is the candidate's ``vs_others`` minus the baseline's (each the mean
over the deal's rotations of the first bot's bullheads minus the mean of the other seats'):
negative means the candidate did better. Per table: the mean difference and a normal 95%
interval over deals (a deal's rotations count as one observation, as in the arena).

Over the whole screen: the tables of one run share their deals (the same seed), so they are
not independent evidence. For each deal that every table completed, the differences are first
averaged over the tables, and the interval is taken over those deals; this is the screen's
"better over all these opponents" figure, with the deals' shared luck counted once.

    python bench/paired.py CAND_DIR:BASE_DIR [CAND_DIR:BASE_DIR ...] --json

Each ``DIR`` is the directory an arena run's ``--record`` wrote. Runs of whole games
(``--games``) compare the games' totals the same way, and also the first bot's share of the
wins (``win_share``, ties split, averaged over a game's rotations): the figure that counts in
a whole game.
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Callable, Iterable
from pathlib import Path

from arena_records import interval, numbered_blocks
from nimmt.arena.stats import Estimate, estimate, vs_others, win_shares

Blocks = dict[int, list[list[int]]]
"""Bullheads by deal number: one list per rotation, one figure per bot in the order given."""


def first_bot_relative(blocks: Blocks) -> dict[int, float]:
    """Per deal: the first bot's bullheads minus the mean of the others', averaged over the
    deal's rotations."""
    return {
        deal: math.fsum(vs_others(game)[0] for game in games) / len(games)
        for deal, games in blocks.items()
    }


def first_bot_wins(blocks: Blocks) -> dict[int, float]:
    """Per deal (or whole game): the first bot's share of the win, averaged over the
    rotations."""
    return {
        deal: math.fsum(win_shares(game)[0] for game in games) / len(games)
        for deal, games in blocks.items()
    }


Measure = Callable[[Blocks], dict[int, float]]
"""A per-deal figure of a run's first bot: :func:`first_bot_relative` or :func:`first_bot_wins`."""


def differences(
    candidate: Blocks, baseline: Blocks, measure: Measure = first_bot_relative
) -> dict[int, float]:
    """Per deal both runs completed: the candidate's ``measure`` (its relative score unless
    told) minus the baseline's."""
    ours, theirs = measure(candidate), measure(baseline)
    return {deal: ours[deal] - theirs[deal] for deal in sorted(set(ours) & set(theirs))}


def side_means(
    candidate: Blocks, baseline: Blocks, deals: Iterable[int], measure: Measure
) -> tuple[float, float]:
    """The candidate's and the baseline's mean ``measure`` over ``deals``."""
    ours, theirs = measure(candidate), measure(baseline)
    chosen = list(deals)
    return (
        math.fsum(ours[deal] for deal in chosen) / len(chosen),
        math.fsum(theirs[deal] for deal in chosen) / len(chosen),
    )


def pooled(tables: list[dict[int, float]]) -> tuple[int, Estimate]:
    """The deals every table completed, and over them the mean of each deal's differences
    averaged over the tables, with a normal 95% interval over deals."""
    common = sorted(set.intersection(*(set(table) for table in tables)))
    if not common:
        raise ValueError("the tables have no deal in common")
    per_deal = [math.fsum(table[deal] for table in tables) / len(tables) for deal in common]
    return len(common), estimate(per_deal)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("pairs", nargs="+", metavar="CAND_DIR:BASE_DIR")
    parser.add_argument("--json", action="store_true", help="one JSON object")
    args = parser.parse_args()
    tables = []
    rows = []
    for pair in args.pairs:
        ours, sep, theirs = pair.partition(":")
        if not sep:
            raise SystemExit(f"error: {pair!r} is not CAND_DIR:BASE_DIR")
        bots, candidate = numbered_blocks(Path(ours))
        base_bots, baseline = numbered_blocks(Path(theirs))
        table = differences(candidate, baseline)
        if not table:
            raise SystemExit(f"error: {ours} and {theirs} have no complete deal in common")
        tables.append(table)
        figure = estimate(list(table.values()))
        mine, base = side_means(candidate, baseline, table, first_bot_relative)
        row: dict[str, object] = {
            "table": " ".join(bots[1:]),
            "candidate": bots[0],
            "baseline": base_bots[0],
            "deals": len(table),
            "candidate_vs_others": round(mine, 3),
            "baseline_vs_others": round(base, 3),
            "difference": round(figure.mean, 3),
            "difference_ci95": interval(figure),
        }
        if _whole_games(Path(ours)):
            wins = differences(candidate, baseline, first_bot_wins)
            win_figure = estimate(list(wins.values()))
            mine, base = side_means(candidate, baseline, wins, first_bot_wins)
            row["candidate_win_share"] = round(mine, 4)
            row["baseline_win_share"] = round(base, 4)
            row["win_share_difference"] = round(win_figure.mean, 4)
            row["win_share_difference_ci95"] = interval(win_figure)
        rows.append(row)
    deals, overall = pooled(tables)
    result = {
        "tables": rows,
        "pooled": {
            "deals": deals,
            "difference": round(overall.mean, 3),
            "difference_ci95": interval(overall),
        },
    }
    if args.json:
        print(json.dumps(result))
        return
    for row, table in zip(rows, tables, strict=True):
        figure = estimate(list(table.values()))
        print(
            f"{row['table']:<60} {len(table):>4} deals  {row['candidate_vs_others']:+7.2f}"
            f" {row['baseline_vs_others']:+7.2f}  {figure.mean:+6.2f} {interval(figure)}"
        )
    print(f"{'pooled':<60} {deals:>4} deals  {overall.mean:+6.2f} {interval(overall)}")


def _whole_games(directory: Path) -> bool:
    """The run played whole games (``--games``): its records are named by game."""
    return any(directory.glob("game*-rotation*.json"))


if __name__ == "__main__":
    main()
