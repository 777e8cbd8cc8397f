"""CPU per decision of ``hard``'s search with its rollouts in numpy or compiled (numba).

Plays seeded rounds in which every seat is ``hard`` (numpy core), and at each card decision
also asks the same search with ``core=numba`` (same settings, same seed for that decision), and
reports each core's CPU time per decision (``time.process_time``, so a busy machine inflates
both alike) and how often the two chose the same card (they differ only at near ties of two
noisy rollout scores):

    python bench/search_core.py --players 4 --rounds 2 --seed 1 --json

The numba core compiles at its first call (cached afterwards); that call is made before the
timing starts.
"""

from __future__ import annotations

import argparse
import json
import random
import time

from nimmt.bots import make_bot
from nimmt.engine import Game, Phase


def _decide(name: str, seed: int, view: object) -> tuple[int, float]:
    bot = make_bot(name, seed)
    started = time.process_time()
    card = bot.choose_card(view)  # type: ignore[arg-type]
    return card, time.process_time() - started


def run(players: int, rounds: int, seed: int, settings: str) -> dict[str, object]:
    prefix = f"strong:{settings}," if settings else "strong:"
    numpy_name, numba_name = f"{prefix}core=numpy", f"{prefix}core=numba"
    warm = Game(players)
    warm.deal(seed)
    _decide(numba_name, 0, warm.view(0))  # compile (or load the cache) before timing
    cpu = {"numpy": 0.0, "numba": 0.0}
    decisions = same = 0
    for number in range(rounds):
        game = Game(players)
        game.deal(random.Random(f"{seed}/{number}").getrandbits(32))
        while game.phase in (Phase.CHOOSING_CARDS, Phase.CHOOSING_ROW):
            pending = game.pending_row_choice
            if pending is not None:
                view = game.view(pending.seat)
                game.choose_row(pending.seat, make_bot(numpy_name, 1).choose_row(view))
                continue
            for seat in game.waiting_for():
                view = game.view(seat)
                decision_seed = hash((seed, number, seat, len(view.hand))) & 0xFFFFFFFF
                card, spent = _decide(numpy_name, decision_seed, view)
                other, other_spent = _decide(numba_name, decision_seed, view)
                if len(view.legal_cards()) > 1:
                    decisions += 1
                    same += card == other
                    cpu["numpy"] += spent
                    cpu["numba"] += other_spent
                game.play(seat, card)
                if game.phase is not Phase.CHOOSING_CARDS:
                    break
    return {
        "players": players,
        "decisions": decisions,
        "cpu_ms_per_decision": {
            core: round(1000 * spent / decisions, 1) for core, spent in cpu.items()
        },
        "speedup": round(cpu["numpy"] / cpu["numba"], 2),
        "same_card_share": round(same / decisions, 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--settings", default="", help="strong settings shared by both (e.g. samples=512)"
    )
    parser.add_argument("--json", action="store_true")
    arguments = parser.parse_args()
    result = run(arguments.players, arguments.rounds, arguments.seed, arguments.settings)
    if arguments.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key}: {value}")


if __name__ == "__main__":
    main()
