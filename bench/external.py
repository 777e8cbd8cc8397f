"""What a bot that is a separate program costs per decision, against the built-in ``greedy``.

A trivial Python program (``docs/examples/lowest_bot.py``: its lowest card, the cheapest row)
plays seat 0 of seeded rounds against three ``greedy`` bots, through the arena's referee, which
times every decision around the bot's call; the built-in ``greedy`` is timed the same way in the
same games. The program is started and asked once before the clock runs, so its start-up is not
counted; the overhead is the program's time per decision minus greedy's:

    python bench/external.py --rounds 50 --json
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
from pathlib import Path

from nimmt.arena import Clock, play_round
from nimmt.bots import Bot, ProgramBot, make_bot
from nimmt.engine import Game

EXAMPLE = Path(__file__).parents[1] / "docs" / "examples" / "lowest_bot.py"
PLAYERS = 4


def measure(rounds: int, seed: int) -> dict[str, float | int]:
    command = f"cmd:{shlex.quote(sys.executable)} {shlex.quote(str(EXAMPLE))}"
    with ProgramBot(command) as program:
        warm_up = Game(PLAYERS)
        warm_up.deal(seed - 1)
        program.choose_card(warm_up.view(0))  # starts the program: not part of a decision
        clock = Clock.for_seats(PLAYERS)
        for index in range(rounds):
            game = Game(PLAYERS)
            game.deal(seed + index)
            bots: list[Bot] = [program]
            bots += [make_bot("greedy", (seed + index) * 10 + seat) for seat in range(1, PLAYERS)]
            play_round(game, bots, clock)
    program_ms = 1000 * clock.seconds[0] / clock.decisions[0]
    greedy_ms = 1000 * sum(clock.seconds[1:]) / sum(clock.decisions[1:])
    return {
        "players": PLAYERS,
        "rounds": rounds,
        "program_decisions": clock.decisions[0],
        "program_ms_per_decision": round(program_ms, 4),
        "greedy_ms_per_decision": round(greedy_ms, 4),
        "overhead_ms_per_decision": round(program_ms - greedy_ms, 4),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=50)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="one JSON line")
    args = parser.parse_args()
    figures = measure(args.rounds, args.seed)
    if args.json:
        print(json.dumps(figures))
    else:
        print(
            f"program {figures['program_ms_per_decision']:.3f} ms per decision, "
            f"greedy {figures['greedy_ms_per_decision']:.3f} ms: "
            f"{figures['overhead_ms_per_decision']:.3f} ms more"
        )


if __name__ == "__main__":
    main()
