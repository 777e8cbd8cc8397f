"""Thinking time per decision of each bot level, at 4 and 10 players.

Each bot plays every seat of a few seeded rounds against copies of itself, through the engine and
its own seat's view (as in the arena), and its decisions are timed with ``time.perf_counter``:

    python bench/bots.py --players 4 10 --bots mc:64 easy medium hard --rounds 3 --json
"""

from __future__ import annotations

import argparse
import json

from nimmt.arena import Clock, play_round
from nimmt.bots import BOT_NAMES, make_bot
from nimmt.engine import Game


def time_bot(name: str, players: int, rounds: int, seed: int) -> tuple[float, int]:
    """Mean seconds per decision of ``name`` and the number of decisions timed."""
    clock = Clock.for_seats(players)
    for index in range(rounds):
        game = Game(players)
        game.deal(seed + index)
        bots = [make_bot(name, (seed + index) * 100 + seat) for seat in range(players)]
        play_round(game, bots, clock)
    decisions = sum(clock.decisions)
    return sum(clock.seconds) / decisions, decisions


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--players", type=int, nargs="+", default=[4, 10])
    parser.add_argument("--bots", nargs="+", default=["mc:64", *BOT_NAMES])
    parser.add_argument("--rounds", type=int, default=2, help="rounds per bot and table size")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="one JSON line per bot and size")
    args = parser.parse_args()
    for players in args.players:
        for name in args.bots:
            seconds, decisions = time_bot(name, players, args.rounds, args.seed)
            figures = {
                "bot": name,
                "players": players,
                "decisions": decisions,
                "ms_per_decision": round(1000 * seconds, 3),
            }
            if args.json:
                print(json.dumps(figures))
            else:
                print(f"{players:2d} players  {name:10s} {1000 * seconds:9.2f} ms per decision")


if __name__ == "__main__":
    main()
