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

The same rounds give the other benches the host's pace (:class:`PaceProbe`, ``host_pace_ms`` in
``bench/load.py`` and ``bench/action_path.py``): the CPU time of a fixed piece of this work,
sampled through their window.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import random
import statistics
import subprocess
import sys
import threading
import time

from nimmt.engine import HAND_SIZE, NUM_ROWS
from nimmt.engine.core import RoundState, draw_deal


def play_rounds(rng: random.Random, players: int, count: int) -> None:
    """Play ``count`` whole random rounds of ``players`` seats."""
    uniform = rng.random
    for _ in range(count):
        state = RoundState(*draw_deal(rng, players))
        for _ in range(HAND_SIZE):
            cards = [hand[0] for hand in state.hands]  # next in dealt order: see above
            row = int(uniform() * NUM_ROWS) if state.needs_row_choice(cards) else None
            state.resolve_turn(cards, row)


def play_random_rounds(players: int, seconds: float, seed: int) -> tuple[int, float]:
    """Play whole random rounds for about ``seconds``; return (rounds, elapsed seconds)."""
    rng = random.Random(seed)
    rounds = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        play_rounds(rng, players, 100)
        rounds += 100
        now = time.perf_counter()
        if now >= deadline:
            return rounds, now - start


PACE_ROUNDS = 100
"""Random rounds of four seats in one sample of the host's pace (about 4 ms of CPU)."""
PACE_EVERY = 0.2
"""Seconds between two samples of :class:`PaceProbe`."""


def pace_sample() -> float:
    """The CPU time (milliseconds) of the same :data:`PACE_ROUNDS` random rounds: the host's
    pace for Python work like the server's. The same work takes longer while the host is
    slower, and so does every figure measured then. In a 400-table run of ``bench/load.py`` on
    5 December: 4.4 to 5.6 ms; on an idle machine the samples read slower (6 to 7 ms: its cores
    sleep between two of them)."""
    start = time.process_time()
    play_rounds(random.Random(1), 4, PACE_ROUNDS)
    return (time.process_time() - start) * 1000


class PaceProbe:
    """The host's pace through a run: a process of its own (so that the bench's heap and
    collector do not slow it) takes a :func:`pace_sample` every :data:`PACE_EVERY` seconds,
    about 2% of a core; :meth:`median` is the median of the samples taken between two moments
    (``time.monotonic``). On a shared virtual machine the pace moves by up to half within
    seconds, without any steal counted, and the CPU a run measures moves with it."""

    def __init__(self) -> None:
        self._samples: list[tuple[float, float]] = []
        self._process = subprocess.Popen(
            [sys.executable, __file__, "--probe"], stdout=subprocess.PIPE, text=True
        )
        self._reader = threading.Thread(target=self._read, name="pace probe", daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self._process.stdout is not None
        for line in self._process.stdout:
            self._samples.append((time.monotonic(), float(line)))

    def median(self, start: float, end: float) -> float | None:
        """The median pace (milliseconds a sample) between ``start`` and ``end``; ``None``
        without a sample there."""
        taken = [pace for moment, pace in list(self._samples) if start <= moment <= end]
        return round(statistics.median(taken), 2) if taken else None

    def stop(self) -> None:
        self._process.kill()
        self._process.wait()
        self._reader.join(timeout=5)


def probe() -> None:
    """The probe's own process: a pace sample a line, every :data:`PACE_EVERY` seconds."""
    while True:
        print(f"{pace_sample():.3f}", flush=True)
        time.sleep(PACE_EVERY)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=4, choices=range(2, 11), metavar="N")
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print one JSON line (the default)")
    parser.add_argument("--probe", action="store_true", help=argparse.SUPPRESS)  # PaceProbe's
    args = parser.parse_args()
    if args.probe:
        with contextlib.suppress(BrokenPipeError, KeyboardInterrupt):
            probe()
        return
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
