"""How well a model of the others predicts a bot's card choices: the learned model alone, and
the model lowered by each card's worth over model-played futures (:mod:`nimmt.bots.levelk`).

The decisions come from ``scripts/train_policy.py generate`` (one JSON line per card decision,
with the cards the seat had not seen). For each decision, ``--rollouts`` sampled deals of those
unseen cards each play the round out once per card of the hand (that card now, every other card
by the model), and a card's worth is its mean relative score. The weight of the worth is fitted
by maximum likelihood on the first file's decisions and then applied unchanged to every file,
so the other files show whether what was fitted to one bot's choices predicts other bots'.

    python scripts/train_policy.py generate --bot hard --players 4 --deals 30 --seed 301 \
        --out hard.jsonl
    python bench/opponent_fit.py hard.jsonl hard-v1.jsonl --rollouts 128 --json

Prints, per file, the mean log-likelihood of the chosen card per decision under the model and
under the model with the worth (higher is better), and each file's own best weight.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

from nimmt.bots.batchsim import batch_from_rows, sample_hands
from nimmt.bots.levelk import card_worths
from nimmt.bots.policy import ModelPolicy, card_logits, shipped_weights
from report import print_figures

Decision = tuple[np.ndarray, np.ndarray, int]
"""The model's scores of the hand's cards, their worths, and the chosen card's index."""

WEIGHTS = np.round(np.arange(0.0, 2.001, 0.025), 3)
"""The weights of the worth tried by the fit."""


def decision(line: dict[str, Any], rollouts: int, rng: np.random.Generator) -> Decision:
    """The model's scores and the worths of one recorded decision's cards."""
    hand = line["hand"]
    players = line["players"]
    size = len(hand)
    mine = np.zeros((1, players, size), dtype=np.int64)
    mine[0, 0] = hand
    logits = card_logits(batch_from_rows(line["rows"], mine), shipped_weights())[0, 0]
    # The deciding seat in seat 1 of each deal (card_worths judges seats 1 and up), the other
    # seats dealt the cards it had not seen.
    others = sample_hands(line["unseen"], players - 1, size, rollouts, rng)
    deals = np.concatenate(
        [others[:, :1], np.broadcast_to(hand, (rollouts, 1, size)), others[:, 1:]], axis=1
    )
    policy = ModelPolicy(rng, compiled=True)
    worths = card_worths(line["rows"], deals, 1, policy)[:, 1, :].mean(axis=0)
    return logits.astype(np.float64), worths, hand.index(line["card"])


def log_likelihood(decisions: list[Decision], weight: float) -> float:
    """Mean log-probability of the chosen cards under ``exp(score - weight * worth)``."""
    total = 0.0
    for logits, worths, chosen in decisions:
        scores = logits - weight * worths
        scores -= scores.max()
        total += scores[chosen] - np.log(np.exp(scores).sum())
    return total / len(decisions)


def best_weight(decisions: list[Decision]) -> float:
    values = [log_likelihood(decisions, weight) for weight in WEIGHTS]
    return float(WEIGHTS[int(np.argmax(values))])


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("paths", type=Path, nargs="+", help="decision files; the first is fitted")
    parser.add_argument("--rollouts", type=int, default=128)
    parser.add_argument("--limit", type=int, default=0, help="decisions read per file (0: all)")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    data: dict[str, list[Decision]] = {}
    for path in args.paths:
        lines = path.read_text().splitlines()[: args.limit or None]
        if lines and "unseen" not in json.loads(lines[0]):
            sys.exit(f"error: {path} has no unseen cards: generate it again")
        data[path.name] = [decision(json.loads(line), args.rollouts, rng) for line in lines]
    fitted = best_weight(data[args.paths[0].name])
    figures: dict[str, Any] = {"rollouts": args.rollouts, "weight": fitted, "files": {}}
    for name, decisions in data.items():
        figures["files"][name] = {
            "decisions": len(decisions),
            "model": round(log_likelihood(decisions, 0.0), 4),
            "with_worth": round(log_likelihood(decisions, fitted), 4),
            "own_weight": best_weight(decisions),
        }
    print_figures(figures, as_json=args.json)


if __name__ == "__main__":
    main()
