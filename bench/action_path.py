"""The server's own CPU per person's action, without the web stack: ``bench/load.py``'s tables
(three people listening with ``events=changes`` and a ``greedy`` bot each, a think time before
each action, every person agreeing to a rematch) played in this process through the service
itself (``GameService.act``) on a SQLite file, each change's frames written as JSON as a socket
would send them.

    python bench/action_path.py --tables 400 --seconds 20 --json

``cpu_per_action_ms`` is this process's CPU time in the window (every thread: the event loop and
the database's write thread) divided by the people's accepted actions; ``loop_cpu_per_action_ms``
the event loop's thread alone. With ``bench/socket_floor.py`` (the web stack alone) it accounts
for ``bench/load.py``'s ``server CPU per action``. ``--profile FILE`` runs the window under
cProfile (the event loop's thread) and writes the profile there: the figures are then slower.
``host_pace_ms``: the host's pace through the window (``bench/load.py``'s, from
``bench/engine.py``'s ``PaceProbe``): the same code spends more CPU per action on a slower host.
Prints one JSON line (``--json``) or a short table.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import gc
import random
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import uvloop

from engine import PaceProbe
from nimmt.server import serialize
from nimmt.server.app import GC_THRESHOLDS
from nimmt.server.service import GameService
from nimmt.server.storage import SqlStorage
from nimmt.server.table import Connection, SeatSpec
from report import print_figures

PEOPLE = 3
THINK = (0.2, 0.75)
"""Seconds between two actions at a table: about 2.1 a second, ``bench/load.py``'s pace."""
WARM_UP = 3.0
"""Seconds played before the window (every table dealt and busy)."""


class Person:
    """One person at a table: acts when the table waits for them, after a think time."""

    def __init__(self, service: GameService, code: str, token: str, listener: Connection):
        self.service = service
        self.code = code
        self.token = token
        self.listener = listener
        self.actions = 0

    def read(self) -> None:
        """What the socket would send: every queued message's JSON."""
        for message in self.listener.take():
            serialize.encode(message)


async def play_table(service: GameService, people: list[Person], rng: random.Random) -> None:
    table = service.book.tables[people[0].code]
    while True:
        await asyncio.sleep(rng.uniform(*THINK))
        for person in people:
            person.read()
        game = table.game
        if table.finished:
            for seat, person in enumerate(people):
                if seat not in table.rematch_votes:
                    await service.act(person.code, person.token, "rematch")
            continue
        waiting = [seat for seat in game.waiting_for() if seat < PEOPLE]
        if not waiting:
            continue  # the bot's move, or the deal, is on its way
        seat = rng.choice(waiting)
        person = people[seat]
        own = game.own_cards(seat)
        if own.must_choose_row:
            await service.act(person.code, person.token, "choose_row", row=rng.randrange(4))
        elif own.legal_cards:
            await service.act(person.code, person.token, "play", card=rng.choice(own.legal_cards))
        else:
            continue
        person.actions += 1


async def run(args: argparse.Namespace, directory: Path) -> dict[str, Any]:
    storage = SqlStorage(f"sqlite:///{directory / 'bench.db'}")
    service = GameService(storage, deal_seed=args.seed)
    await service.start()
    rng = random.Random(args.seed)
    seats = [SeatSpec("human")] * PEOPLE + [SeatSpec("bot", "greedy")]
    tables: list[list[Person]] = []
    for _ in range(args.tables):
        code = await service.create_table(seats)
        people = []
        for seat in range(PEOPLE):
            _seat, token = await service.join(code, f"Person {seat + 1}")
            listener = await service.connect(code, token, changes=True)
            people.append(Person(service, code, token, listener))
        tables.append(people)
    # As the server does once it has started (nimmt.server.app).
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)
    tasks = [
        asyncio.create_task(play_table(service, people, random.Random(rng.random())))
        for people in tables
    ]
    everybody = [person for people in tables for person in people]
    pace = PaceProbe()
    try:
        await asyncio.sleep(WARM_UP)
        profiler = cProfile.Profile() if args.profile else None
        before = sum(person.actions for person in everybody)
        cpu_before, loop_before = time.process_time(), time.thread_time()
        started = time.monotonic()
        if profiler is not None:
            profiler.enable()
        await asyncio.sleep(args.seconds)
        if profiler is not None:
            profiler.disable()
            profiler.dump_stats(args.profile)
        ended = time.monotonic()
        window = ended - started
        cpu, loop = time.process_time() - cpu_before, time.thread_time() - loop_before
        actions = sum(person.actions for person in everybody) - before
    finally:
        pace.stop()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await service.close()
        storage.close()
    return {
        "tables": args.tables,
        "seconds": round(window, 1),
        "actions": actions,
        "actions_per_s": round(actions / window, 1),
        "cpu_per_action_ms": round(1000 * cpu / actions, 3) if actions else None,
        "loop_cpu_per_action_ms": round(1000 * loop / actions, 3) if actions else None,
        "cores_used": round(cpu / window, 2),
        "host_pace_ms": pace.median(started, ended),
    }


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=400)
    parser.add_argument("--seconds", type=float, default=20.0, help="the measured window")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--profile", metavar="FILE", help="write a cProfile of the window")
    parser.add_argument("--json", action="store_true", help="one JSON line")
    args = parser.parse_args(argv)
    if args.tables < 1 or args.seconds <= 0:
        parser.error("--tables and --seconds must be positive")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="nimmt-action-path-") as directory:
        figures = uvloop.run(run(args, Path(directory)))  # as uvicorn runs the server
    print_figures(figures, as_json=args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
