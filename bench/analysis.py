"""Time per analysis of the coach (:func:`nimmt.bots.analysis.analyze`), at 4 and 10 players.

Plays a few seeded rounds with ``greedy`` at every seat and analyses every decision of seat 0
(each card while it has more than one, each row it must take) with the default 1024 sampled
deals, timed with ``time.perf_counter`` (wall clock) and ``time.process_time`` (this process's
CPU time, which other work on a busy machine inflates less). The first turn, with ten cards to
score, is the slowest decision of a round and is reported on its own:

    python bench/analysis.py --players 4 10 --rounds 3 --json
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Iterable

from nimmt.bots import analyze, make_bot
from nimmt.engine import Game, Phase, SeatView


def time_analyses(players: int, rounds: int, samples: int, seed: int) -> dict[str, float | int]:
    """Milliseconds per analysis over ``rounds`` rounds: mean, first turn's mean, slowest."""
    times: list[tuple[float, float]] = []
    first_turns: list[tuple[float, float]] = []
    for index in range(rounds):
        game = Game(players)
        game.deal(seed + index)
        bots = [make_bot("greedy", seed + seat) for seat in range(players)]
        while game.phase in (Phase.CHOOSING_CARDS, Phase.CHOOSING_ROW):
            pending = game.pending_row_choice
            if pending is not None:
                view = game.view(pending.seat)
                if pending.seat == 0:
                    times.append(_timed(view, samples, seed))
                game.choose_row(pending.seat, bots[pending.seat].choose_row(view))
                continue
            view = game.view(0)
            if len(view.legal_cards()) > 1:
                times.append(_timed(view, samples, seed))
                if game.turn == 0:
                    first_turns.append(times[-1])
            for seat in game.waiting_for():
                game.play(seat, bots[seat].choose_card(game.view(seat)))
    return {
        "players": players,
        "samples": samples,
        "analyses": len(times),
        "ms_per_analysis": _mean_ms(wall for wall, _ in times),
        "ms_first_turn": _mean_ms(wall for wall, _ in first_turns),
        "ms_slowest": round(1000 * max(wall for wall, _ in times), 1),
        "cpu_ms_per_analysis": _mean_ms(cpu for _, cpu in times),
        "cpu_ms_first_turn": _mean_ms(cpu for _, cpu in first_turns),
    }


def _mean_ms(seconds: Iterable[float]) -> float:
    values = list(seconds)
    return round(1000 * sum(values) / len(values), 1)


def _timed(view: SeatView, samples: int, seed: int) -> tuple[float, float]:
    """Wall and CPU seconds of one analysis."""
    wall, cpu = time.perf_counter(), time.process_time()
    analyze(view, samples=samples, seed=seed)
    return time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--players", type=int, nargs="+", default=[4, 10])
    parser.add_argument("--rounds", type=int, default=3, help="rounds per table size")
    parser.add_argument("--samples", type=int, default=1024)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="one JSON line per table size")
    args = parser.parse_args()
    warm_up = Game(4)
    warm_up.deal(0)
    analyze(warm_up.view(0), samples=16)  # numpy's first calls are slow: not timed
    for players in args.players:
        figures = time_analyses(players, args.rounds, args.samples, args.seed)
        if args.json:
            print(json.dumps(figures))
        else:
            print(
                f"{players:2d} players  {figures['ms_per_analysis']:7.1f} ms per analysis  "
                f"(first turn {figures['ms_first_turn']:.1f} ms, slowest "
                f"{figures['ms_slowest']:.1f} ms, {figures['analyses']} analyses; CPU "
                f"{figures['cpu_ms_per_analysis']:.1f} ms, first turn "
                f"{figures['cpu_ms_first_turn']:.1f} ms)"
            )


if __name__ == "__main__":
    main()
