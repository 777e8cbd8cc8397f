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
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
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


def _per_deal(tables: list[dict[int, float]]) -> list[float]:
    """Each deal every table completed: its differences averaged over the tables."""
    common = sorted(set.intersection(*(set(table) for table in tables)))
    if not common:
        raise ValueError("the tables have no deal in common")
    return [math.fsum(table[deal] for table in tables) / len(tables) for deal in common]


def pooled_over_seeds(
    screens: dict[int | None, dict[str, dict[int, float]]],
) -> tuple[int, Estimate]:
    """The screen's figure over every table (by seed, by table: the differences per deal): the
    deals every table of a seed completed, each averaged over that seed's tables, then the
    mean over the deals of every seed together (each seed's deals are other cards) with a
    normal 95% interval over them. Every seed must have the same tables, or the seeds would
    weigh different opponents."""
    lineups = {seed: sorted(tables) for seed, tables in screens.items()}
    first = next(iter(lineups.values()))
    if any(lineup != first for lineup in lineups.values()):
        raise ValueError("pooling seeds needs the same tables at every seed")
    per_deal = [value for tables in screens.values() for value in _per_deal(list(tables.values()))]
    return len(per_deal), estimate(per_deal)


def run_seed(directory: Path) -> int | None:
    """The seed an arena run was played with, as its records say (``None`` if they do not)."""
    for path in sorted(directory.glob("*-rotation*.json")):
        arena = json.loads(path.read_text(encoding="utf-8")).get("meta", {}).get("arena", {})
        seed = arena.get("seed")
        return seed if isinstance(seed, int) else None
    return None


@dataclass
class Table:
    """One table of a screen (the same bots at it), over every seed it was played at: per
    ``(seed, deal)``, the candidate's and the baseline's figures."""

    candidate: str
    baseline: str
    ours: dict[tuple[int | None, int], float] = field(default_factory=dict)
    theirs: dict[tuple[int | None, int], float] = field(default_factory=dict)
    wins_ours: dict[tuple[int | None, int], float] = field(default_factory=dict)
    wins_theirs: dict[tuple[int | None, int], float] = field(default_factory=dict)

    def row(self, name: str) -> dict[str, object]:
        deals = sorted(set(self.ours) & set(self.theirs))
        figure = estimate([self.ours[deal] - self.theirs[deal] for deal in deals])
        row: dict[str, object] = {
            "table": name,
            "candidate": self.candidate,
            "baseline": self.baseline,
            "seeds": sorted({seed for seed, _ in deals}, key=lambda seed: (seed is None, seed)),
            "deals": len(deals),
            "candidate_vs_others": round(_mean(self.ours, deals), 3),
            "baseline_vs_others": round(_mean(self.theirs, deals), 3),
            "difference": round(figure.mean, 3),
            "difference_ci95": interval(figure),
        }
        if self.wins_ours:
            games = sorted(set(self.wins_ours) & set(self.wins_theirs))
            wins = estimate([self.wins_ours[game] - self.wins_theirs[game] for game in games])
            row["candidate_win_share"] = round(_mean(self.wins_ours, games), 4)
            row["baseline_win_share"] = round(_mean(self.wins_theirs, games), 4)
            row["win_share_difference"] = round(wins.mean, 4)
            row["win_share_difference_ci95"] = interval(wins)
        return row


def _mean(values: dict[tuple[int | None, int], float], keys: list[tuple[int | None, int]]) -> float:
    return math.fsum(values[key] for key in keys) / len(keys)


def compare(pairs: list[tuple[Path, Path]]) -> dict[str, object]:
    """The screen's figures (what ``--json`` prints) for ``(candidate_dir, baseline_dir)``
    pairs; a :class:`ValueError` says why pairs cannot be compared."""
    tables: dict[str, Table] = {}
    screens: dict[int | None, dict[str, dict[int, float]]] = defaultdict(dict)
    for ours, theirs in pairs:
        seed, base_seed = run_seed(ours), run_seed(theirs)
        if seed != base_seed:
            raise ValueError(f"{ours} was played at seed {seed}, {theirs} at {base_seed}")
        bots, candidate = numbered_blocks(ours)
        base_bots, baseline = numbered_blocks(theirs)
        differing = differences(candidate, baseline)
        if not differing:
            raise ValueError(f"{ours} and {theirs} have no complete deal in common")
        name = " ".join(bots[1:])
        if name in screens[seed]:
            raise ValueError(f"the table {name!r} is given twice at seed {seed}")
        screens[seed][name] = differing
        table = tables.setdefault(name, Table(bots[0], base_bots[0]))
        if (table.candidate, table.baseline) != (bots[0], base_bots[0]):
            raise ValueError(f"the table {name!r} has another candidate or baseline")
        mine, base = first_bot_relative(candidate), first_bot_relative(baseline)
        for deal in differing:
            table.ours[seed, deal], table.theirs[seed, deal] = mine[deal], base[deal]
        if _whole_games(ours):
            mine, base = first_bot_wins(candidate), first_bot_wins(baseline)
            for deal in sorted(set(mine) & set(base)):
                table.wins_ours[seed, deal], table.wins_theirs[seed, deal] = mine[deal], base[deal]
    deals, overall = pooled_over_seeds(screens)
    return {
        "tables": [table.row(name) for name, table in tables.items()],
        "pooled": {
            "seeds": sorted(screens, key=lambda seed: (seed is None, seed)),
            "deals": deals,
            "difference": round(overall.mean, 3),
            "difference_ci95": interval(overall),
        },
    }


def print_screen(result: dict[str, object]) -> None:
    """The screen's figures as a table for a terminal."""
    rows = result["tables"]
    pooled = result["pooled"]
    assert isinstance(rows, list) and isinstance(pooled, dict)
    for row in rows:
        print(
            f"{row['table']:<60} {row['deals']:>4} deals  {row['candidate_vs_others']:+7.2f}"
            f" {row['baseline_vs_others']:+7.2f}  {row['difference']:+6.2f}"
            f" {row['difference_ci95']}"
        )
    print(
        f"{'pooled':<60} {pooled['deals']:>4} deals  {pooled['difference']:+6.2f}"
        f" {pooled['difference_ci95']}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("pairs", nargs="+", metavar="CAND_DIR:BASE_DIR")
    parser.add_argument("--json", action="store_true", help="one JSON object")
    args = parser.parse_args()
    pairs = []
    for pair in args.pairs:
        ours, sep, theirs = pair.partition(":")
        if not sep:
            raise SystemExit(f"error: {pair!r} is not CAND_DIR:BASE_DIR")
        pairs.append((Path(ours), Path(theirs)))
    try:
        result = compare(pairs)
    except ValueError as error:
        raise SystemExit(f"error: {error}") from None
    if args.json:
        print(json.dumps(result))
    else:
        print_screen(result)


def _whole_games(directory: Path) -> bool:
    """The run played whole games (``--games``): its records are named by game."""
    return any(directory.glob("game*-rotation*.json"))


if __name__ == "__main__":
    main()
