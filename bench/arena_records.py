"""The arena's figures from a directory of its records, for a run that was cut short.

``nimmt arena ... --record DIR`` writes each deal's games (one record per rotation) as soon as
the deal is played; the figures are printed only at the end. This replays the records of the
deals that are complete (every rotation written) through the engine and prints the same
figures as ``nimmt arena --json`` (without the thinking times, which records do not hold):

    python bench/arena_records.py DIR

``--paired BASELINE`` compares the first bot of DIR with the first bot of another run on the
same deals (the same seed and table, another bot in the first seat), deal by deal: the paired
difference of their ``vs_others`` has a far narrower interval than the two runs' figures side
by side, since the luck of the deal cancels out:

    python bench/arena_records.py DIR --paired BASELINE_DIR
"""

from __future__ import annotations

import argparse
import json
import re
from collections import defaultdict
from pathlib import Path

from nimmt.arena import Estimate, summarize
from nimmt.arena.stats import estimate, vs_others
from nimmt.records import parse_record, replay_record

_NAME = re.compile(r"(?:deal|game)(\d+)-rotation(\d+)\.json")
"""A record's file name: a deal's, or a whole game's (``--games``)."""
_BOT = re.compile(r" #(\d+)$")


def block_scores(directory: Path) -> tuple[list[str], list[list[list[int]]]]:
    """The bots in the order given to the arena, and each complete deal's bullheads by bot."""
    bots, blocks = numbered_blocks(directory)
    return bots, list(blocks.values())


def numbered_blocks(directory: Path) -> tuple[list[str], dict[int, list[list[int]]]]:
    """The bots in the order given to the arena, and each complete deal's bullheads by bot,
    by deal number (in order); with whole games (``--games``), each game's totals."""
    deals: dict[int, dict[int, list[int]]] = defaultdict(dict)
    bots: list[str] = []
    for path in sorted(directory.glob("*-rotation*.json")):
        match = _NAME.fullmatch(path.name)
        if match is None:
            continue
        record = parse_record(path.read_text(encoding="utf-8"))
        bots = list(record["meta"]["arena"]["bots"])
        replayed = replay_record(record)
        by_bot = [0] * len(bots)
        for seat, player in enumerate(replayed.players):
            found = _BOT.search(player)
            assert found is not None, f"{path.name}: {player!r} names no arena bot"
            by_bot[int(found.group(1)) - 1] = replayed.totals[seat]
        deals[int(match.group(1))][int(match.group(2))] = by_bot
    complete = {
        deal: [games[rotation] for rotation in sorted(games)]
        for deal, games in sorted(deals.items())
        if len(games) == len(bots)
    }
    return bots, complete


def paired(directory: Path, baseline: Path) -> dict[str, object]:
    """The first bot of ``directory`` against the first bot of ``baseline`` on the deals both
    runs completed (the same seed and table gives the same deals): its ``vs_others`` per deal
    in each run, and the paired difference with a normal 95% interval."""
    bots, ours = numbered_blocks(directory)
    base_bots, theirs = numbered_blocks(baseline)
    common = sorted(set(ours) & set(theirs))
    if not common:
        raise SystemExit(f"error: {directory} and {baseline} have no complete deal in common")

    def relative(blocks: dict[int, list[list[int]]]) -> list[float]:
        return [
            sum(vs_others(game)[0] for game in blocks[deal]) / len(blocks[deal]) for deal in common
        ]

    mine, base = relative(ours), relative(theirs)
    difference = estimate([a - b for a, b in zip(mine, base, strict=True)])
    return {
        "deals": len(common),
        "bot": bots[0],
        "baseline": base_bots[0],
        "vs_others": round(estimate(mine).mean, 3),
        "baseline_vs_others": round(estimate(base).mean, 3),
        "difference": round(difference.mean, 3),
        "difference_ci95": interval(difference),
    }


def interval(estimate: Estimate) -> list[float | None]:
    """An estimate's 95% interval, rounded as the arena's report rounds it."""
    return [None if bound is None else round(bound, 3) for bound in (estimate.low, estimate.high)]


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("directory", type=Path)
    parser.add_argument(
        "--paired",
        type=Path,
        metavar="BASELINE",
        help="compare the first bot with the first bot of the run recorded in BASELINE, "
        "deal by deal",
    )
    args = parser.parse_args()
    if args.paired is not None:
        print(json.dumps(paired(args.directory, args.paired)))
        return
    bots, blocks = block_scores(args.directory)
    if not blocks:
        raise SystemExit(f"error: no complete deal in {args.directory}")
    figures = summarize(blocks)
    report = {
        "seats": len(bots),
        "deals": len(blocks),
        "bots": [
            {
                "bot": name,
                "mean": round(figure.mean.mean, 3),
                "ci95": interval(figure.mean),
                "vs_others": round(figure.vs_others.mean, 3),
                "vs_others_ci95": interval(figure.vs_others),
                "win_share": round(figure.win_share, 4),
            }
            for name, figure in zip(bots, figures, strict=True)
        ],
    }
    print(json.dumps(report))


if __name__ == "__main__":
    main()
