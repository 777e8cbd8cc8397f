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

``--adaptive`` adds what ``strong:level2_adapt=1`` assumes instead of one weight: each decision
predicted by the mixture over :data:`~nimmt.bots.levelk.WEIGHT_GRID`, weighted by the posterior
(uniform prior) that the same seat's earlier plays in the deal give each weight, their hidden
cards integrated out over ``--hands`` sampled hands with ``--futures`` futures per card
(:func:`~nimmt.bots.levelk.play_evidence`). Nothing is fitted for it. ``--at-zero 0.5 0.8``
also gives the same mixture under priors that put that much of their mass on weight 0 (the
model alone) and share the rest evenly (``strong:level2_zero``).

``--learned FILE`` reads every worth by the coefficients of ``FILE`` (``bench/worth_fit.py``,
``strong:level2_worth``) instead of playing it out: in the fit and with ``--adaptive`` alike
(``--rollouts`` and ``--futures`` are then unused).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

from nimmt.bots.batchsim import batch_from_rows, sample_hands
from nimmt.bots.levelk import (
    WEIGHT_GRID,
    card_worths,
    play_evidence,
    weight_posterior,
    weight_prior,
)
from nimmt.bots.policy import ModelPolicy, card_logits, shipped_weights
from nimmt.bots.worthfit import Coefficients, predicted_worths, read_coefficients
from report import print_figures

Decision = tuple[np.ndarray, np.ndarray, int]
"""The model's scores of the hand's cards, their worths, and the chosen card's index."""

WEIGHTS = np.round(np.arange(0.0, 2.001, 0.025), 3)
"""The weights of the worth tried by the fit."""


def decision(
    line: dict[str, Any],
    rollouts: int,
    rng: np.random.Generator,
    learned: Coefficients | None = None,
) -> Decision:
    """The model's scores and the worths of one recorded decision's cards (played out, or
    read by the ``learned`` coefficients)."""
    hand = line["hand"]
    players = line["players"]
    size = len(hand)
    mine = np.zeros((1, players, size), dtype=np.int64)
    mine[0, 0] = hand
    logits = card_logits(batch_from_rows(line["rows"], mine), shipped_weights())[0, 0]
    if learned is not None:
        read = predicted_worths(batch_from_rows(line["rows"], mine), learned)[0, 0]
        return logits.astype(np.float64), read, hand.index(line["card"])
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


def seat_evidence(
    line: dict[str, Any],
    hands: int,
    futures: int,
    rng: np.random.Generator,
    learned: Coefficients | None = None,
) -> np.ndarray:
    """``(len(WEIGHT_GRID),)``: what one recorded play says of its seat's weight of the worth,
    as an observer who saw only the card would judge it: the seat's other cards drawn from
    what it had not seen."""
    hand, card, players = line["hand"], line["card"], line["players"]
    size = len(hand)
    pool = sorted({*line["unseen"], *hand})
    drawn = sample_hands([c for c in pool if c != card], 1, players * size - 1, hands, rng)[:, 0]
    # The judged seat (1) holds the card it played (slot 0) and size - 1 drawn cards; the
    # other seats' hands are the rest of each draw.
    judged = np.concatenate([np.full((hands, 1), card), drawn[:, : size - 1]], axis=1)
    others = drawn[:, size - 1 :].reshape(hands, players - 1, size)
    deals = np.concatenate([others[:, :1], judged[:, None], others[:, 1:]], axis=1)
    policy = ModelPolicy(rng, compiled=True)
    evidence = play_evidence(
        line["rows"], deals, pool, 0, futures, policy, shipped_weights(), rng, learned
    )
    seat: np.ndarray = evidence[0]
    return seat


def adaptive(
    decisions: list[Decision],
    lines: list[dict[str, Any]],
    evidence: list[np.ndarray],
    at_zero: float | None = None,
) -> float:
    """Mean log-probability of the chosen cards under the mixture over the weights, each
    decision's posterior from its seat's earlier plays in the deal (the prior of
    :func:`~nimmt.bots.levelk.weight_posterior`'s ``at_zero``: uniform by default)."""
    seen: dict[tuple[int, int], np.ndarray] = {}
    total = 0.0
    for (logits, worths, chosen), line, judged in zip(decisions, lines, evidence, strict=True):
        key = (line["deal"], line["seat"])
        prior = seen.get(key, np.zeros(len(WEIGHT_GRID)))
        posterior = weight_posterior(prior, at_zero)
        chances = [
            np.exp(log_likelihood([(logits, worths, chosen)], float(weight)))
            for weight in WEIGHT_GRID
        ]
        total += float(np.log((posterior * np.asarray(chances)).sum()))
        seen[key] = prior + judged
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
    parser.add_argument(
        "--adaptive", action="store_true", help="also the weights judged per seat (level2_adapt)"
    )
    parser.add_argument("--hands", type=int, default=16, help="with --adaptive")
    parser.add_argument("--futures", type=int, default=8, help="with --adaptive")
    parser.add_argument(
        "--at-zero",
        type=float,
        nargs="*",
        default=[],
        help="with --adaptive: also each prior with this mass at weight 0 (level2_zero)",
    )
    parser.add_argument(
        "--learned",
        type=Path,
        help="worths read by these coefficients (bench/worth_fit.py) instead of played out",
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    learned = None
    if args.learned is not None:
        try:
            learned = read_coefficients(args.learned)
        except (OSError, ValueError, KeyError) as error:
            sys.exit(f"error: --learned: {error}")
    for share in args.at_zero:
        try:
            weight_prior(share)
        except ValueError as error:
            sys.exit(f"error: --at-zero: {error}")
    rng = np.random.default_rng(args.seed)
    data: dict[str, list[Decision]] = {}
    mixed: dict[str, float] = {}
    leaning: dict[str, dict[str, float]] = {}
    for path in args.paths:
        lines = [json.loads(line) for line in path.read_text().splitlines()[: args.limit or None]]
        if lines and "unseen" not in lines[0]:
            sys.exit(f"error: {path} has no unseen cards: generate it again")
        if lines and args.adaptive and "seat" not in lines[0]:
            sys.exit(f"error: {path} does not say whose decisions: generate it again")
        data[path.name] = [decision(line, args.rollouts, rng, learned) for line in lines]
        if args.adaptive:
            evidence = [
                seat_evidence(line, args.hands, args.futures, rng, learned) for line in lines
            ]
            mixed[path.name] = adaptive(data[path.name], lines, evidence)
            leaning[path.name] = {
                str(share): round(adaptive(data[path.name], lines, evidence, share), 4)
                for share in args.at_zero
            }
    fitted = best_weight(data[args.paths[0].name])
    figures: dict[str, Any] = {
        "rollouts": "learned" if learned is not None else args.rollouts,
        "weight": fitted,
        "files": {},
    }
    for name, decisions in data.items():
        figures["files"][name] = {
            "decisions": len(decisions),
            "model": round(log_likelihood(decisions, 0.0), 4),
            "with_worth": round(log_likelihood(decisions, fitted), 4),
            "own_weight": best_weight(decisions),
        }
        if name in mixed:
            figures["files"][name]["adaptive"] = round(mixed[name], 4)
        if leaning.get(name):
            figures["files"][name]["adaptive_at_zero"] = leaning[name]
    print_figures(figures, as_json=args.json)


if __name__ == "__main__":
    main()
