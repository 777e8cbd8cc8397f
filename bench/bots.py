"""Thinking time per decision of each bot level, at 4 and 10 players.

Each bot plays every seat of a few seeded rounds against copies of itself, through the engine and
its own seat's view (as in the arena), and its decisions are timed with ``time.perf_counter``
(wall clock), or with ``--cpu`` ``time.process_time`` (the CPU time of this process, which on a
busy machine says what a decision costs better than the wall clock does):

    python bench/bots.py --players 4 10 --bots mc:64 easy medium hard --rounds 3 --json

``--coach`` also times the coach's analysis of a decision (:func:`nimmt.bots.analyze`, the same
figures as ``bench/analysis.py``), one line per table size.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable

from nimmt.arena import Clock, play_round
from nimmt.bots import BOT_NAMES, Bot, make_bot
from nimmt.engine import Game, SeatView


class CpuTimed:
    """A bot whose decisions add their CPU time (``time.process_time``) to ``seconds``; the
    longest decision is kept too (``longest``: wall clock, ``longest_cpu``: CPU time)."""

    def __init__(self, bot: Bot) -> None:
        self.bot = bot
        self.seconds = 0.0
        self.longest = 0.0
        self.longest_cpu = 0.0

    @property
    def name(self) -> str:
        return self.bot.name

    def _timed(self, decide: Callable[[SeatView], int], view: SeatView) -> int:
        wall, cpu = time.perf_counter(), time.process_time()
        choice = decide(view)
        cpu = time.process_time() - cpu
        self.seconds += cpu
        self.longest = max(self.longest, time.perf_counter() - wall)
        self.longest_cpu = max(self.longest_cpu, cpu)
        return choice

    def choose_card(self, view: SeatView) -> int:
        return self._timed(self.bot.choose_card, view)

    def choose_row(self, view: SeatView) -> int:
        return self._timed(self.bot.choose_row, view)


def time_bot(
    name: str, players: int, rounds: int, seed: int, cpu: bool = False
) -> tuple[float, float, int]:
    """Mean and longest seconds per decision of ``name`` (CPU seconds if ``cpu``) and the
    number of decisions timed."""
    clock = Clock.for_seats(players)
    cpu_seconds = longest = 0.0
    for index in range(rounds):
        game = Game(players)
        game.deal(seed + index)
        bots = [CpuTimed(make_bot(name, (seed + index) * 100 + seat)) for seat in range(players)]
        play_round(game, bots, clock)
        cpu_seconds += sum(bot.seconds for bot in bots)
        longest = max(longest, *(bot.longest_cpu if cpu else bot.longest for bot in bots))
    decisions = sum(clock.decisions)
    return (cpu_seconds if cpu else sum(clock.seconds)) / decisions, longest, decisions


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--players", type=int, nargs="+", default=[4, 10])
    parser.add_argument("--bots", nargs="+", default=["mc:64", *BOT_NAMES])
    parser.add_argument("--rounds", type=int, default=2, help="rounds per bot and table size")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="one JSON line per bot and size")
    parser.add_argument("--cpu", action="store_true", help="CPU time instead of wall clock")
    parser.add_argument("--coach", action="store_true", help="also time the coach's analysis")
    args = parser.parse_args()
    # Load hard's compiled core first, as a server's bot worker does when it starts: the first
    # decision would otherwise count numba's loading (about a second) as thinking.
    from nimmt.bots import kernels

    kernels.warm_up()
    for players in args.players:
        for name in args.bots:
            seconds, longest, decisions = time_bot(name, players, args.rounds, args.seed, args.cpu)
            figures = {
                "bot": name,
                "players": players,
                "decisions": decisions,
                "ms_per_decision": round(1000 * seconds, 3),
                "longest_ms": round(1000 * longest, 3),
                "clock": "cpu" if args.cpu else "wall",
            }
            if args.json:
                print(json.dumps(figures))
            else:
                print(
                    f"{players:2d} players  {name:10s} {1000 * seconds:9.2f} ms per decision"
                    f" (longest {1000 * longest:.1f} ms, {figures['clock']} time)"
                )
        if args.coach:
            from analysis import time_analyses  # bench/analysis.py, beside this script

            coach = {"bot": "coach", **time_analyses(players, args.rounds, 1024, args.seed)}
            if args.json:
                print(json.dumps(coach))
            else:
                print(
                    f"{players:2d} players  {'coach':10s} {coach['ms_per_analysis']:9.2f} ms per "
                    f"analysis (first turn {coach['ms_first_turn']} ms wall, "
                    f"{coach['cpu_ms_per_analysis']} ms CPU)"
                )


if __name__ == "__main__":
    main()
