"""Rounds per second of the rules engine.

Plays random rounds (a uniformly random legal card for every seat, a uniformly random row when
the lowest card is below every row) through :class:`nimmt.engine.core.RoundState`, the resolution
core that :class:`nimmt.engine.Game` and every game run, and prints one JSON line:

    .venv/bin/python bench/engine.py --players 4 --seconds 5 --json

The line is ``{"players": N, "rounds": R, "seconds": S, "rounds_per_s": R / S}``: the number of
players, the whole rounds played, the seconds they took (3 decimals) and their rate (1 decimal).
``--seed`` (default 1) seeds the deals; ``--json`` is accepted; the line is the only output.

The deal (``random.Random.sample``) hands each seat its ten cards in a uniformly random order, so
playing each hand in the order it was dealt is a uniformly random legal card at every turn,
independent of everything else, without a further call to the RNG; the row is drawn per choice.
"""

from __future__ import annotations

import argparse
import json
import random
import time

from nimmt.engine import HAND_SIZE, NUM_ROWS
from nimmt.engine.core import RoundState, draw_deal


def play_random_rounds(players: int, seconds: float, seed: int) -> tuple[int, float]:
    """Play whole random rounds for about ``seconds``; return (rounds, elapsed seconds)."""
    rng = random.Random(seed)
    uniform = rng.random
    rounds = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        for _ in range(100):
            state = RoundState(*draw_deal(rng, players))
            for _ in range(HAND_SIZE):
                cards = [hand[0] for hand in state.hands]  # next in dealt order: see above
                row = int(uniform() * NUM_ROWS) if state.needs_row_choice(cards) else None
                state.resolve_turn(cards, row)
        rounds += 100
        now = time.perf_counter()
        if now >= deadline:
            return rounds, now - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=4, choices=range(2, 11), metavar="N")
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print one JSON line (the default)")
    args = parser.parse_args()
    rounds, elapsed = play_random_rounds(args.players, args.seconds, args.seed)
    print(
        json.dumps(
            {
                "players": args.players,
                "rounds": rounds,
                "seconds": round(elapsed, 3),
                "rounds_per_s": round(rounds / elapsed, 1),
            }
        )
    )


if __name__ == "__main__":
    main()
