"""The CPU of telling one change to a table's sockets (:func:`nimmt.server.publisher.publish`):
whole games at a table of three people listening (``events=changes``, as the web client asks)
and a bot, every change told as the server tells it, the JSON of every frame written.

    python bench/news.py --games 200 --json

``publish_us`` is the CPU time (``time.process_time``) per change told, the frames' JSON
included; nothing is sent (each socket's queue is emptied after each change), so this is the
server's own work for a change, without the web stack's (``bench/socket_floor.py``). Prints one
JSON line (``--json``) or a short table.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from nimmt.engine import Phase
from nimmt.server import publisher, serialize
from nimmt.server.storage import SeatRecord
from nimmt.server.table import Connection, LiveTable
from report import print_figures

PEOPLE = 3
CODE = "BENCH2"


def play_game(seed: int) -> tuple[float, int, int]:
    """One game, each change told: the CPU seconds telling took, the changes told and the
    frames' bytes."""
    seats = [
        SeatRecord(seat, "human", None, f"Person {seat + 1}", f"{seat:064x}")
        for seat in range(PEOPLE)
    ]
    seats.append(SeatRecord(PEOPLE, "bot", "greedy", f"Bot {PEOPLE + 1} (greedy)"))
    table = LiveTable(CODE, datetime.now(UTC), seats)
    listeners = [Connection(CODE, f"token{seat}", seat, changes=True) for seat in range(PEOPLE)]
    table.connections = set(listeners)
    rng = random.Random(seed)
    spent, told, size = 0.0, 0, 0
    game = table.game
    while game.phase is not Phase.GAME_OVER:
        if game.phase is Phase.DEALING:
            game.deal(rng)
        elif game.pending_row_choice is not None:
            game.choose_row(game.pending_row_choice.seat, rng.randrange(4))
        else:
            seat = rng.choice(game.waiting_for())
            game.play(seat, rng.choice(game.legal_cards(seat)))
        table.version += 1
        table.note_change()
        start = time.process_time()
        publisher.publish(table)
        for listener in listeners:
            size += sum(len(serialize.encode(message)) for message in listener.take())
        spent += time.process_time() - start
        told += 1
    return spent, told, size


def bench(games: int, seed: int) -> dict[str, Any]:
    spent, told, size = 0.0, 0, 0
    for game in range(games):
        game_spent, game_told, game_size = play_game(seed + game)
        spent, told, size = spent + game_spent, told + game_told, size + game_size
    return {
        "games": games,
        "changes": told,
        "publish_us": round(1e6 * spent / told, 1),
        "bytes_per_change": round(size / told, 1),
    }


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="one JSON line")
    args = parser.parse_args(argv)
    if args.games < 1:
        parser.error("--games must be at least 1")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    figures = bench(args.games, args.seed)
    print_figures(figures, as_json=args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
