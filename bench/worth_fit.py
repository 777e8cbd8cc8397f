"""Fit the coefficients that read a card's worth from its holder's features
(:mod:`nimmt.bots.worthfit`), and say how well they read worths they were not fitted to.

The positions are recorded card decisions (``scripts/train_policy.py generate``; only each
decision's rows, hand and unseen cards are used, not the card chosen, so any bot's games will
do). Each card of each hand is played out over ``--rollouts`` futures, the other seats dealt
anew from the cards the holder has not seen each time (the worth of
:func:`~nimmt.bots.levelk.card_worths`): that is the target. The positions are split by deal:
the last ``--held-out`` share of each file's deals is kept out of the fit and judged, then the
coefficients are fitted again on everything and written to ``--out``. Each table size in the
files gets its own coefficients (a bot reads a worth by those of the size nearest its table's).

    python scripts/train_policy.py generate --bot medium --players 4 --deals 150 --seed 901 \
        --out medium4.jsonl
    python bench/worth_fit.py medium4.jsonl --rollouts 256 --labels medium4.npz \
        --out src/nimmt/bots/worth_coefficients.json --json

``--labels FILE`` keeps the played-out worths (computed once, the slow part: about 45 ms of
CPU per position at 4 seats and 256 rollouts) and reads them back on the next run.
``held_out_r2`` is the share of the variance of the worths within a hand (all that a draw by
worth uses) that the coefficients explain on the held-out deals; ``label_r2`` the same for a
second, independent playing-out of those deals' worths (``--check``): the ceiling the noise of
the targets leaves. ``by_seats`` gives the same for each table size alone.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

from nimmt.bots.batchsim import batch_from_rows
from nimmt.bots.worthfit import as_document, expanded, fit, within_hands, worth_features
from opponent_fit import decision
from report import print_figures

Labelled = dict[str, np.ndarray]


def label(lines: list[dict[str, Any]], rollouts: int, seed: int) -> Labelled:
    """Each position's cards' features, played-out worths, position number and deal."""
    rng = np.random.default_rng(seed)
    features, worths, groups, deals = [], [], [], []
    for number, line in enumerate(lines):
        _, worth, _ = decision(line, rollouts, rng)
        hand = np.zeros((1, line["players"], len(line["hand"])), dtype=np.int64)
        hand[0, 0] = line["hand"]
        features.append(worth_features(batch_from_rows(line["rows"], hand))[0, 0])
        worths.append(worth)
        groups.append(np.full(len(worth), number))
        deals.append(np.full(len(worth), line.get("deal", number)))
    return {
        "features": np.concatenate(features),
        "worths": np.concatenate(worths),
        "groups": np.concatenate(groups),
        "deals": np.concatenate(deals),
    }


def fit_on(data: Labelled, chosen: np.ndarray, l2: float) -> np.ndarray:
    """The coefficients fitted on the ``chosen`` cards."""
    return fit(data["features"][chosen], data["worths"][chosen], data["groups"][chosen], l2)


def judged(predicted: np.ndarray, data: Labelled, chosen: np.ndarray) -> float:
    """:func:`r2` of the ``chosen`` cards' predicted worths."""
    return r2(predicted[chosen], data["worths"][chosen], data["groups"][chosen])


def r2(predicted: np.ndarray, actual: np.ndarray, groups: np.ndarray) -> float:
    """The share of ``actual``'s variance within groups that ``predicted`` explains."""
    guess, truth = within_hands(predicted, groups), within_hands(actual, groups)
    return float(1 - ((guess - truth) ** 2).mean() / (truth**2).mean())


def read(path: Path, limit: int) -> list[dict[str, Any]]:
    """The first ``limit`` decisions of ``path`` (0: all)."""
    lines = [json.loads(line) for line in path.read_text().splitlines()[: limit or None]]
    if lines and "unseen" not in lines[0]:
        sys.exit(f"error: {path} has no unseen cards: generate it again")
    return lines


def load(path: Path, limit: int, rollouts: int, seed: int, cache: Path | None) -> Labelled:
    if cache is not None and cache.exists():
        with np.load(cache) as stored:
            return {key: stored[key] for key in stored.files}
    labelled = label(read(path, limit), rollouts, seed)
    if cache is not None:
        np.savez(cache, **labelled)  # type: ignore[arg-type]  # numpy's stub misreads **
    return labelled


def held_out(deals: np.ndarray, share: float) -> np.ndarray:
    """Which of a file's cards belong to its last ``share`` of deals."""
    numbers = np.unique(deals)
    if numbers.size < 2:
        sys.exit("error: every decision file needs two deals or more (one is held out)")
    first = min(numbers.size - 1, max(1, round(numbers.size * (1 - share))))
    kept: np.ndarray = deals >= numbers[first]
    return kept


def joined(parts: list[Labelled]) -> Labelled:
    """The parts as one, their positions and deals numbered apart."""
    joined: dict[str, list[np.ndarray]] = {key: [] for key in parts[0]}
    groups = deals = 0
    for part in parts:
        joined["features"].append(part["features"])
        joined["worths"].append(part["worths"])
        joined["groups"].append(part["groups"] + groups)
        joined["deals"].append(part["deals"] + deals)
        groups += int(part["groups"].max()) + 1
        deals += int(part["deals"].max()) + 1
    return {key: np.concatenate(values) for key, values in joined.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("paths", type=Path, nargs="+", help="decision files (positions)")
    parser.add_argument("--rollouts", type=int, default=256)
    parser.add_argument("--limit", type=int, default=0, help="positions read per file (0: all)")
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--l2", type=float, default=1.0, help="the ridge penalty")
    parser.add_argument("--held-out", type=float, default=0.2, help="share of deals judged")
    parser.add_argument(
        "--labels", type=Path, nargs="*", default=[], help="one cache per decision file"
    )
    parser.add_argument(
        "--check", action="store_true", help="play the first file's held-out worths out again"
    )
    parser.add_argument("--out", type=Path, help="write the coefficients fitted on everything")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.labels and len(args.labels) != len(args.paths):
        sys.exit("error: --labels needs one file per decision file")
    if not 0.0 < args.held_out < 1.0:
        sys.exit("error: --held-out must be between 0 and 1")
    caches = args.labels or [None] * len(args.paths)
    parts = [
        load(path, args.limit, args.rollouts, args.seed + index, cache)
        for index, (path, cache) in enumerate(zip(args.paths, caches, strict=True))
    ]
    data = joined(parts)
    # The last share of each file's deals is held out (one deal at least, and one kept).
    held = np.concatenate([held_out(part["deals"], args.held_out) for part in parts])
    train = ~held
    # The last feature is the table size (seats / 10): one set of coefficients per size.
    sizes = np.rint(data["features"][:, -1] * 10).astype(np.int64)
    predicted = np.zeros(data["worths"].shape)
    by_seats: dict[str, dict[str, Any]] = {}
    for seats in np.unique(sizes):
        fitted = fit_on(data, train & (sizes == seats), args.l2)
        predicted[sizes == seats] = expanded(data["features"][sizes == seats]) @ fitted
        by_seats[str(seats)] = {
            "positions": int(np.unique(data["groups"][sizes == seats]).size),
            "train_r2": round(judged(predicted, data, train & (sizes == seats)), 4),
            "held_out_r2": round(judged(predicted, data, held & (sizes == seats)), 4),
        }
    figures: dict[str, Any] = {
        "positions": int(data["groups"].max()) + 1,
        "cards": int(data["worths"].size),
        "rollouts": args.rollouts,
        "l2": args.l2,
        "train_r2": round(judged(predicted, data, train), 4),
        "held_out_r2": round(judged(predicted, data, held), 4),
        "by_seats": by_seats,
    }
    if args.check:
        first = parts[0]
        kept = held_out(first["deals"], args.held_out)
        lines = read(args.paths[0], args.limit)
        positions = np.unique(first["groups"][kept])
        again = label([lines[index] for index in positions], args.rollouts, args.seed + 1000)
        figures["label_r2"] = round(
            r2(again["worths"], first["worths"][kept], first["groups"][kept]), 4
        )
    if args.out is not None:
        everything = {
            int(seats): fit_on(data, sizes == seats, args.l2) for seats in np.unique(sizes)
        }
        about = {"positions": figures["positions"], "rollouts": args.rollouts, "l2": args.l2}
        args.out.write_text(json.dumps(as_document(everything, **about)) + "\n")
    print_figures(figures, as_json=args.json)


if __name__ == "__main__":
    main()
