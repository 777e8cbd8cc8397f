"""Simulation speed of the bots' batch simulation of the rules (:mod:`nimmt.bots.batchsim`).

Plays whole rounds with the ``greedy`` policy for every seat in batches of sampled deals, the way
``mc:N`` and the levels play their rollouts, for about S seconds, and prints the rounds simulated
per second:

    python bench/batchsim.py --players 4 --batch 640 --seconds 3 --json
"""

from __future__ import annotations

import argparse
import json
import random
import time

import numpy as np

from nimmt.bots.batchsim import batch_from_rows, play_out, sample_hands
from nimmt.engine import DECK, HAND_SIZE, draw_deal


def simulate(players: int, batch_size: int, seconds: float, seed: int) -> tuple[int, float]:
    """Play batches of ``batch_size`` greedy rounds for about ``seconds``: (rounds, elapsed)."""
    rng = random.Random(seed)
    generator = np.random.default_rng(seed)
    rounds = 0
    start = time.perf_counter()
    while True:
        rows, hands = draw_deal(rng, players)
        # The seat's own hand is fixed; the other hands are sampled, as in a decision.
        unseen = [card for card in DECK if card not in hands[0] and [card] not in rows]
        others = sample_hands(unseen, players - 1, HAND_SIZE, batch_size, generator)
        mine = np.broadcast_to(np.asarray(hands[0]), (batch_size, 1, HAND_SIZE))
        batch = batch_from_rows(rows, np.concatenate([mine, others], axis=1))
        play_out(batch, HAND_SIZE)
        rounds += batch_size
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return rounds, elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--players", type=int, nargs="+", default=[4, 10])
    parser.add_argument("--batch", type=int, default=640, help="rounds advanced together")
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="one JSON line per table size")
    args = parser.parse_args()
    for players in args.players:
        rounds, elapsed = simulate(players, args.batch, args.seconds, args.seed)
        figures = {
            "players": players,
            "batch": args.batch,
            "rounds": rounds,
            "seconds": round(elapsed, 3),
            "rounds_per_s": round(rounds / elapsed, 1),
        }
        if args.json:
            print(json.dumps(figures))
        else:
            print(
                f"{players:2d} players, batch {args.batch}: "
                f"{figures['rounds_per_s']:,.0f} greedy rounds/s"
            )


if __name__ == "__main__":
    main()
