"""Issue 20's gauntlet: a candidate and a baseline paired at the same tables, deals and seeds.

Every table is played twice at every seed, once with the candidate in the first seat and once
with the baseline there, the other seats, the deals and (with ``--decision-seeds``) every
decision's draws the same; ``bench/paired.py``'s figures then compare them deal by deal, per
table and pooled over the gauntlet (the target table, ``hard`` ×3, is reported but kept out of
the pool: the gauntlet is the opponents no model of the project was fitted to).

    python bench/gauntlet.py CANDIDATE [--baseline hard] [--seeds 11 12] [--deals 30] \\
        [--target] [--jobs 2] [--dir screens] [--json]

Each run is ``nimmt arena BOT OPPONENTS --deals N --seed S --json --jobs 1 --decision-seeds
--record DIR``, one process per run, ``--jobs`` at a time. A run is kept under ``--dir`` by
its bot, table, seed and deals, and a run that finished before is not played again: a baseline
is played once for every candidate screened against it, and a screen stopped half way goes on
where it stopped. ``hard`` as the target's opponents plays ``hard-v2``'s games card for card
(``docs/bots.md``, "A compiled core") at about 60% of its CPU.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from nimmt.bots import UnknownBotError, make_bot
from paired import compare, print_screen

ROOT = Path(__file__).resolve().parents[1]
SELFPLAY = ROOT / "docs" / "examples" / "selfplay.npz"

GAUNTLET: dict[str, tuple[str, ...]] = {
    "mc64": ("mc:64",) * 3,
    "hard-v1": ("hard-v1",) * 3,
    "softmin-t2": ("search:temperature=2",) * 3,
    "mixed": ("greedy", "mc:64", "hard-v1"),
    "selfplay": (f"policy:{SELFPLAY}",) * 3,
}
"""The tables of issue 20's gauntlet by name: opponents no model of ``hard`` was fitted to
(``hard-v1``'s play is what the shipped model imitates, which the issue lets stand), softmin
searchers at another temperature, a mixed table and a policy trained by self-play."""

TARGET: dict[str, tuple[str, ...]] = {"hard": ("hard",) * 3}
"""The target table: three of today's ``hard`` (``hard-v2``'s games)."""


def run_directory(root: Path, bot: str, table: str, seed: int, deals: int) -> Path:
    """Where a run is kept: readable, and unique for its bot (whose settings may hold any
    character, so they are hashed)."""
    digest = hashlib.sha256(bot.encode()).hexdigest()[:10]
    readable = "".join(char if char.isalnum() else "-" for char in bot)[:40]
    return root / f"{readable}-{digest}" / f"{table}-seed{seed}-deals{deals}"


def play(bot: str, opponents: tuple[str, ...], seed: int, deals: int, directory: Path) -> Path:
    """Play one run unless it finished before; its directory of records."""
    done = directory / "arena.json"
    if done.exists():
        return directory
    directory.mkdir(parents=True, exist_ok=True)
    records = directory / "records"
    command = [
        *(sys.executable, "-c", "from nimmt.cli import main; main()", "arena", bot, *opponents),
        *("--deals", str(deals), "--seed", str(seed), "--json", "--jobs", "1"),
        *("--decision-seeds", "--record", str(records)),
    ]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        message = result.stderr.strip().splitlines()
        last = message[-1].removeprefix("error: ") if message else f"status {result.returncode}"
        raise RuntimeError(f"{bot} at {' '.join(opponents)}: {last}")
    partial = done.with_suffix(".part")
    partial.write_text(result.stdout)
    os.replace(partial, done)
    print(f"played {bot} at {' '.join(opponents)}, seed {seed}", file=sys.stderr, flush=True)
    return directory


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("candidate")
    parser.add_argument("--baseline", default="hard")
    parser.add_argument("--seeds", type=int, nargs="+", default=[11])
    parser.add_argument("--deals", type=int, default=30)
    parser.add_argument(
        "--tables", nargs="+", choices=sorted(GAUNTLET), help="only these (default: every one)"
    )
    parser.add_argument("--target", action="store_true", help="also the target, hard ×3")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--dir", type=Path, default=Path("screens"))
    parser.add_argument("--json", action="store_true", help="one JSON object")
    args = parser.parse_args()
    if args.deals < 1 or args.jobs < 1:
        raise SystemExit("error: --deals and --jobs must be at least 1")
    if args.candidate == args.baseline:
        raise SystemExit("error: the candidate is the baseline")
    for bot in (args.candidate, args.baseline):
        if not bot.startswith("cmd:"):  # a program is only checked by running it
            try:
                make_bot(bot, 1)
            except UnknownBotError as error:
                raise SystemExit(f"error: {error}") from None
    tables = {name: GAUNTLET[name] for name in args.tables or GAUNTLET}
    targets = TARGET if args.target else {}
    runs = [
        (bot, name, opponents, seed)
        for seed in args.seeds
        for name, opponents in {**tables, **targets}.items()
        for bot in (args.baseline, args.candidate)
    ]
    with ThreadPoolExecutor(args.jobs) as pool:
        futures = {
            (bot, name, seed): pool.submit(
                play,
                bot,
                opponents,
                seed,
                args.deals,
                run_directory(args.dir, bot, name, seed, args.deals),
            )
            for bot, name, opponents, seed in runs
        }
        try:
            done = {key: future.result() for key, future in futures.items()}
        except RuntimeError as error:
            # The runs not started yet are dropped: the error is told once those playing end.
            pool.shutdown(cancel_futures=True)
            raise SystemExit(f"error: {error}") from None

    def pairs(names: dict[str, tuple[str, ...]]) -> list[tuple[Path, Path]]:
        return [
            (
                done[args.candidate, name, seed] / "records",
                done[args.baseline, name, seed] / "records",
            )
            for seed in args.seeds
            for name in names
        ]

    try:
        result: dict[str, object] = {"gauntlet": compare(pairs(tables))}
        if targets:
            result["target"] = compare(pairs(targets))
    except ValueError as error:
        raise SystemExit(f"error: {error}") from None
    if args.json:
        print(json.dumps(result))
        return
    for part, screen in result.items():
        print(f"== {part}")
        assert isinstance(screen, dict)
        print_screen(screen)


if __name__ == "__main__":
    main()
