"""Load bench of the web table: many concurrent tables of simulated people against ``nimmt serve``.

    python bench/load.py --tables 50 [--bot greedy] [--processes 1] [--seconds 30] --json

It starts the server itself on loopback (one process on a temporary SQLite file; ``--db
postgresql`` for one process on a throwaway PostgreSQL; ``--processes P`` > 1 runs
``nimmt serve --workers P --bus REDIS_URL`` on a throwaway PostgreSQL and Redis), creates N tables
of three simulated people and one bot, lets them play for ``--seconds``, checks that every
accepted action is stored, stops everything it started, and prints one JSON line (``--json``) or a
readable table.

The people. Each holds a real websocket (the ``websockets`` asyncio client, with the default
extensions a browser also negotiates). On every ``state`` that holds a decision for its seat
(``view.legal_cards`` not empty, or ``view.must_choose_row``) for a decision it has not yet acted
on (the key game, round, turn, phase), it thinks for a uniformly random 0.3 to 1.5 s and then sends
``play`` (a random legal card) or ``choose_row`` (a random row) with the ``version`` of the newest
state it holds and a ``request_id``. The table waits for a person who has to decide (nothing else
starts a new decision meanwhile: others' face-down choices do not, see docs/protocol.md,
Versions), so a ``stale_version`` refusal would mean a real race; such refusals are counted
apart (``stale``) from every other refusal (``errors``). After any refusal the person looks at
its newest state again. Every person sends ``rematch`` when a game is over (a new game starts
once all of a table's people agreed), so that tables keep playing; ``rematches`` counts the new
games started (not timed), and a vote still waiting for the others at the end is not counted as
``unanswered``.

The machine. Beside every figure: the cores this run could use (``cores``), the load average
before and after the window (``load_avg_before``, ``load_avg_after``: other work on the machine
slows every figure), and how many cores the server (with its bot workers) and the load
generator kept busy during the window (``server_cores_used``, ``load_cores_used``), and the share
of the machine's CPU time that its hypervisor gave to other machines during the window
(``steal_share``, from ``/proc/stat``; ``null`` where the system does not count it). On a shared
virtual machine the steal varies from run to run, and with it the latency's tail: a core taken
away for some milliseconds stalls every table it was serving. And the host's pace through the
window (``host_pace_ms``: the median CPU time of a fixed piece of the rules engine's work, sampled
about five times a second in a process of its own, ``bench/engine.py``'s ``PaceProbe``; lower is
quicker): the same code spends more CPU per action while the host is slower, with or without
steal counted, so compare runs made at like paces.

Latency. From just before the action is written to the socket until that person's socket
receives the ``state`` that shows it accepted. Each person's socket asks for ``events=changes``,
as the web client does: the server then tells every change to every socket of the table as one
``change`` holding its ``events`` and what changed of the table and the view, which the script
applies over the state it holds, as the web client does (with ``events=inline``: one ``state``
holding its events; without either: an ``events`` message, then a ``state`` of the same
version; the script reads all three). The events that hold this seat's own ``card_chosen`` (after a
``play``) or its ``row_taken`` with ``chosen: true`` (after a ``choose_row``) fix the accepted
version V, and the first ``state`` with version >= V (that same one, inline) ends the
measurement. A person has at most one action
in flight and never changes a face-down card, so its own ``card_chosen`` can only be that play.
(Watching ``view.chosen_card``
alone would miss the last card of a turn: the turn resolves at once and the state shows the next
turn.) Only actions sent inside the measured window count; the window opens after every table is
seated plus a warm-up of 2 s. ``actions_per_s`` counts the people's accepted actions in it (the
bots' moves are ``bot_actions``); ``server_cpu_per_action_ms`` divides the server's CPU time by the
people's actions. An action still without an answer ``DRAIN_SECONDS`` after the window closes
counts in ``unanswered``.

The bots. The server plays the bot seat with ``NIMMT_BOT_DELAY=0`` (``--bot-delay`` to change
it), so that the bench measures the server's work rather than a pause meant for human eyes.
``bot_p50_ms``/``bot_p99_ms``: seen from seat 0's socket, from the ``state`` in which the bot's
seat is waited for (a new turn, or its row choice) to the ``events`` with its move.
``bot_rushed``: the decisions in the window that a quicker bot made for a slow one because the
wait for a worker ate its budget (the server's ``nimmt_bot_rushed_decisions_total``, read from
``/metrics`` before and after; with one process only, else ``null``: each process counts its own).
From the same scrapes: ``gc_pause_share``, the share of the window the server's cyclic garbage
collector stopped every table (``nimmt_gc_pause_seconds``), and ``gc_long_passes``, its passes
over 50 ms in the window: a tail of slow answers beside long passes comes from the collector.

The lobby. A separate task fetches ``GET /api/tables`` about twice per second, one request at a
time, as a browser on the start page would (``lobby_*_ms``; a failed or timed-out request counts
in ``lobby_errors`` and with its time in the percentiles).

Lost actions. Every action a person saw accepted is remembered as (table, game, round, seat,
kind, card or row). At the end the script reads the ``actions`` table of the database itself
(SQLAlchemy, with the server still running) and rebuilds the same tuples (the round of a stored
action is the number of deals before it in its game); every acknowledged tuple must be among them
(as a multiset: a seat may choose the same row twice in a round). ``lost`` counts the missing ones.
The database is read rather than ``GET /api/tables/{code}/record``, which serves finished games
only; it is what a restarted server would continue from.

Server resources: psutil samples the server's process tree (workers and their children
included): ``server_cpu_s`` during the window (``server_main_cpu_s`` of the first process
alone: with one process, its event loop and threads without the bots' workers;
``server_loop_cpu_per_action_ms`` that process's main thread alone, its event loop, per action;
``null`` with several processes, where the first one only starts and watches the others),
``server_rss_mb`` the peak of the summed resident memory; with PostgreSQL or Redis also
``db_cpu_s``/``bus_cpu_s``. ``load_cpu_s`` is this script's own CPU in the window and
``loop_lag_p99_ms`` how late its event loop ran timers: when the
generator itself is saturated, latencies include its own delay.

Profiling: with ``NIMMT_BENCH_PROFILE=FILE`` in its environment the bench runs the server's
main thread (the event loop) under cProfile during the measured window and writes the profile to
``FILE`` at its end (read it with ``python -m pstats FILE``); the figures are then slower.

``--verbose`` tells the phases on standard error. Everything ends within ``--seconds`` + 120 s
(seating 200 tables took about 20 s on a busy 2-core box; starting the server and its bot workers
up to 30 s at a load average of 20); an unknown option or a bad value is
one ``error:`` line (exit 2), a failed run one ``error:`` line (exit 1).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import itertools
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, NoReturn, TypeVar

import httpx2
import psutil  # type: ignore[import-untyped]  # no stubs among the dependencies

import load_server
import throwaway
from engine import PaceProbe
from load_people import Person, Stats, Table, ms, percentile
from load_server import (
    PEOPLE,
    STOP_SECONDS,
    BenchError,
    ProcessTree,
    Samples,
    Server,
    count_lost,
    cpu_between,
    metrics_figures,
    parse_metrics,
    postmaster_pid,
    progress,
    serve_supports_workers,
    steal_share,
)
from nimmt.bots import BOT_NAMES

WARM_UP_SECONDS = 2.0
RAMP_SECONDS = 2.0
LOBBY_PERIOD = 0.5
LOBBY_TIMEOUT = 15.0
DRAIN_SECONDS = 5.0
SLACK_SECONDS = 120.0
"""Everything ends within ``--seconds`` plus this."""
GC_THRESHOLD = 20_000
"""Allocations between two young-generation collections of the generator (Python's: 700)."""

T = TypeVar("T")


# --------------------------------------------------------------------------- the run


class Run:
    """One bench run against a started server."""

    def __init__(self, args: argparse.Namespace, server: Server, db_url: str) -> None:
        self.args = args
        self.server = server
        self.port = server.port
        self.db_url = db_url
        self.rng = random.Random()
        self.stats = Stats()
        self.request_ids = itertools.count(1)
        self.stopping = False
        self.finished = False
        self.tables: list[Table] = []
        self.tasks: list[asyncio.Task[None]] = []
        self.other_trees: dict[str, ProcessTree] = {}
        self.pace = PaceProbe()

    @property
    def people(self) -> Iterator[Person]:
        for table in self.tables:
            yield from table.people

    async def seat_table(
        self, index: int, client: httpx2.AsyncClient, gate: asyncio.Semaphore
    ) -> None:
        await asyncio.sleep(RAMP_SECONDS * index / self.args.tables)
        seats = [{"kind": "human"}] * PEOPLE + [{"kind": "bot", "bot": self.args.bot}]
        async with gate:
            created = await self._post(client, "/api/tables", {"seats": seats, "name": "Ana"})
            code = created["code"]
            table = Table(code, bot_seat=PEOPLE)
            tokens = {created["seat"]: created["token"]}
            for name in ("Ben", "Cleo"):
                joined = await self._post(client, f"/api/tables/{code}/join", {"name": name})
                tokens[joined["seat"]] = joined["token"]
        for seat, token in sorted(tokens.items()):
            person = Person(self, table, seat, token)
            table.people.append(person)
            self.tasks.append(asyncio.create_task(person.play(), name=f"{code}/{seat}"))
        self.tables.append(table)
        await asyncio.gather(*(person.seated.wait() for person in table.people))

    async def _post(
        self, client: httpx2.AsyncClient, path: str, body: dict[str, Any]
    ) -> dict[str, Any]:
        try:
            answer = await client.post(path, json=body)
        except httpx2.HTTPError as error:
            raise BenchError(f"POST {path} failed: {error!r}") from None
        if answer.status_code >= 400:
            raise BenchError(f"POST {path} answered {answer.status_code}: {answer.text[:200]}")
        result: dict[str, Any] = answer.json()
        return result

    async def lobby(self, client: httpx2.AsyncClient) -> None:
        stats = self.stats
        while not self.finished:
            started = time.perf_counter()
            try:
                answer = await client.get("/api/tables")
                ok = answer.status_code == 200 and "tables" in answer.json()
            except (httpx2.HTTPError, ValueError):
                ok = False
            done = time.perf_counter()
            if stats.in_window(started):
                # A failed or timed-out request still counts with the time it took: leaving it
                # out would flatter the percentiles.
                stats.lobby_latencies.append(done - started)
                stats.lobby_errors += not ok
            await asyncio.sleep(max(0.0, LOBBY_PERIOD - (done - started)))

    async def watch_loop(self) -> None:
        """How late the event loop runs a timer: the load generator's own saturation."""
        period = 0.05
        while not self.finished:
            started = time.perf_counter()
            await asyncio.sleep(period)
            late = time.perf_counter() - started - period
            if self.stats.in_window(started):
                self.stats.loop_lags.append(max(0.0, late))

    async def sample_memory(self) -> None:
        while not self.finished:
            if self.server.tree is not None:
                await asyncio.to_thread(self.server.tree.sample_rss)
            await asyncio.sleep(0.5)

    def cpu_snapshot(self) -> dict[str, dict[int, float]]:
        trees = {"server": self.server.tree, **self.other_trees}
        return {name: tree.cpu() for name, tree in trees.items() if tree is not None}

    async def run(self, deadline: float) -> dict[str, Any]:
        limits = httpx2.Limits(max_connections=32, max_keepalive_connections=32)
        timeout = httpx2.Timeout(30.0)
        async with (
            httpx2.AsyncClient(
                base_url=self.server.base_url, trust_env=False, limits=limits, timeout=timeout
            ) as client,
            httpx2.AsyncClient(
                base_url=self.server.base_url, trust_env=False, timeout=LOBBY_TIMEOUT
            ) as lobby_client,
        ):
            helpers = [
                asyncio.create_task(self.lobby(lobby_client)),
                asyncio.create_task(self.watch_loop()),
                asyncio.create_task(self.sample_memory()),
            ]
            try:
                return await self._measure(client, deadline)
            finally:
                self.finished = True
                self.stopping = True
                await self.close_sockets()
                for task in helpers:
                    task.cancel()
                await asyncio.gather(*helpers, return_exceptions=True)

    async def _measure(self, client: httpx2.AsyncClient, deadline: float) -> dict[str, Any]:
        args = self.args
        stats = self.stats
        # Seat every table: what is left of the time after the window, the drain, the check.
        budget = deadline - time.monotonic() - (WARM_UP_SECONDS + args.seconds + 2 * DRAIN_SECONDS)
        gate = asyncio.Semaphore(16)
        setting_up = [self.seat_table(index, client, gate) for index in range(args.tables)]
        try:
            await asyncio.wait_for(asyncio.gather(*setting_up), timeout=max(5.0, budget))
        except TimeoutError:
            seated = sum(1 for person in self.people if person.state is not None)
            raise BenchError(
                f"seating {args.tables} tables took more than {max(5.0, budget):.0f} s "
                f"({seated} of {PEOPLE * args.tables} people seated)"
            ) from None
        if stats.disconnects:
            raise BenchError(f"{stats.disconnects} sockets closed while seating the tables")
        progress(f"{args.tables} tables seated; warming up")
        # The generator's own collections pause every socket it holds, and that pause would
        # count as the server's latency: what seating built lives to the end, out of the
        # collector's passes, and the passes come less often (as the server does it).
        gc.collect()
        gc.freeze()
        gc.set_threshold(GC_THRESHOLD, 20, 20)
        await asyncio.sleep(WARM_UP_SECONDS)
        self.check_server()
        cpu_before, loop_before = self.cpu_snapshot(), self.server.loop_cpu()
        load_before = psutil.Process().cpu_times()
        load_avg_before = os.getloadavg()
        machine_before = psutil.cpu_times()
        metrics_before = await self.scrape(client)
        self.server.profile(signal.SIGUSR1)
        stats.window_start = time.perf_counter()
        opened = time.monotonic()
        progress(f"measuring for {args.seconds:g} s")
        await asyncio.sleep(args.seconds)
        stats.window_end = time.perf_counter()
        closed = time.monotonic()
        self.server.profile(signal.SIGUSR2)
        cpu_after, loop_after = self.cpu_snapshot(), self.server.loop_cpu()
        load_after = psutil.Process().cpu_times()
        load_avg_after = os.getloadavg()
        machine_after = psutil.cpu_times()
        metrics_after = await self.scrape(client)
        window = stats.window_end - stats.window_start
        self.check_server()
        # Drain: no new actions; wait for the answers to those already sent.
        self.stopping = True
        progress("draining")
        drain_until = time.monotonic() + DRAIN_SECONDS
        while time.monotonic() < drain_until and any(p.pending for p in self.people):
            await asyncio.sleep(0.05)
        # A rematch vote waits for the others' votes, which stopped with the window: not lost.
        unanswered = sum(
            1
            for person in self.people
            if person.pending is not None and person.pending.kind != "rematch"
        )
        acknowledged = sum(stats.acks.values())
        progress(f"checking {acknowledged} acknowledged actions in the database")
        try:
            lost = await asyncio.wait_for(
                asyncio.to_thread(count_lost, self.db_url, stats.acks), timeout=DRAIN_SECONDS * 2
            )
        except TimeoutError:
            raise BenchError("reading the stored actions took too long") from None
        cpu = {name: cpu_between(cpu_before[name], cpu_after.get(name, {})) for name in cpu_before}
        load_cpu = (load_after.user + load_after.system) - (load_before.user + load_before.system)
        server_cpu = cpu.get("server", 0.0)
        main_pid = self.server.process.pid if self.server.process is not None else None
        main_cpu = cpu_after.get("server", {}).get(main_pid or -1, 0.0) - cpu_before.get(
            "server", {}
        ).get(main_pid or -1, 0.0)
        figures: dict[str, Any] = {
            "tables": args.tables,
            "processes": args.processes,
            "bot": args.bot,
            "db": args.db,
            "seconds": round(window, 3),
            "p50_ms": ms(percentile(stats.latencies, 0.50)),
            "p90_ms": ms(percentile(stats.latencies, 0.90)),
            "p99_ms": ms(percentile(stats.latencies, 0.99)),
            "max_ms": ms(max(stats.latencies, default=None)),
            "lobby_p50_ms": ms(percentile(stats.lobby_latencies, 0.50)),
            "lobby_p99_ms": ms(percentile(stats.lobby_latencies, 0.99)),
            "actions": stats.actions,
            "actions_per_s": round(stats.actions / window, 2),
            "errors": stats.errors,
            "stale": stats.stale,
            "unanswered": unanswered,
            "lost": lost,
            "acknowledged": acknowledged,
            "error_codes": dict(stats.error_codes),
            "lobby_requests": len(stats.lobby_latencies),
            "lobby_errors": stats.lobby_errors,
            "disconnects": stats.disconnects,
            "client_errors": dict(stats.client_errors),
            "rematches": stats.rematches,
            "bot_actions": stats.bot_actions,
            "bot_p50_ms": ms(percentile(stats.bot_latencies, 0.50)),
            "bot_p99_ms": ms(percentile(stats.bot_latencies, 0.99)),
            "bot_delay": args.bot_delay,
            **metrics_figures(metrics_before, metrics_after, window),
            "events": args.events,
            "server_cpu_s": round(server_cpu, 2),
            "server_cpu_per_action_ms": (
                round(1000 * server_cpu / stats.actions, 2) if stats.actions else None
            ),
            "server_main_cpu_s": round(main_cpu, 2),
            "server_main_cpu_per_action_ms": (
                round(1000 * main_cpu / stats.actions, 2) if stats.actions else None
            ),
            "server_loop_cpu_per_action_ms": (
                round(1000 * (loop_after - loop_before) / stats.actions, 2)
                if stats.actions and args.processes == 1
                else None  # several processes: the first one only watches the others
            ),
            "server_rss_mb": round(
                (self.server.tree.peak_rss if self.server.tree else 0) / 2**20, 1
            ),
            "load_cpu_s": round(load_cpu, 2),
            "cores": len(os.sched_getaffinity(0)),
            "load_avg_before": [round(value, 2) for value in load_avg_before],
            "load_avg_after": [round(value, 2) for value in load_avg_after],
            "steal_share": steal_share(machine_before, machine_after),
            "host_pace_ms": self.pace.median(opened, closed),
            "server_cores_used": round(server_cpu / window, 2),
            "load_cores_used": round(load_cpu / window, 2),
            "loop_lag_p99_ms": ms(percentile(stats.loop_lags, 0.99)),
        }
        for name in ("db", "bus"):
            if name in cpu:
                figures[f"{name}_cpu_s"] = round(cpu[name], 2)
        return figures

    async def scrape(self, client: httpx2.AsyncClient) -> Samples | None:
        """The server's ``/metrics`` now (``None`` with several processes, which count their
        own, or when it cannot be read)."""
        if self.args.processes > 1:
            return None
        try:
            answer = await client.get("/metrics")
        except httpx2.HTTPError:
            return None
        return parse_metrics(answer.text) if answer.status_code == 200 else None

    def check_server(self) -> None:
        if not self.server.alive():
            raise BenchError(f"nimmt serve stopped during the run: {self.server.last_line()}")

    async def close_sockets(self) -> None:
        for person in self.people:
            person.closing = True
            if person.thinking is not None:
                person.thinking.cancel()
        sockets = [person.socket for person in self.people if person.socket is not None]
        if sockets:
            await asyncio.wait(
                [asyncio.create_task(socket.close()) for socket in sockets], timeout=5
            )
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)


# --------------------------------------------------------------------------- the script


class Parser(argparse.ArgumentParser):
    """Usage errors are one ``error:`` line and exit status 2."""

    def error(self, message: str) -> NoReturn:
        print(f"error: {message} (see `python bench/load.py --help`)", file=sys.stderr)
        sys.exit(2)


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} is less than 1")
    return value


def seconds_between(low: float, high: float, *, low_allowed: bool) -> Callable[[str], float]:
    """An argparse type: a number of seconds from ``low`` (itself only if ``low_allowed``) to
    ``high``."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
        if not (low <= value if low_allowed else low < value) or value > high:
            raise argparse.ArgumentTypeError(f"{text} is not between {low:g} and {high:g} seconds")
        return value

    return parse


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = Parser(
        prog="bench/load.py",
        description="Load bench of the web table: N tables of 3 simulated people and a bot.",
    )
    parser.add_argument("--tables", type=positive_int, required=True, metavar="N")
    parser.add_argument("--bot", default="greedy", choices=BOT_NAMES, metavar="B")
    parser.add_argument("--processes", type=positive_int, default=1, metavar="P")
    parser.add_argument(
        "--seconds", type=seconds_between(0, 3600, low_allowed=False), default=30.0, metavar="S"
    )
    parser.add_argument(
        "--db",
        choices=("sqlite", "postgresql"),
        default=None,
        help="default: sqlite with one process, postgresql with more (required then)",
    )
    parser.add_argument(
        "--bot-delay",
        type=seconds_between(0, 10, low_allowed=True),
        default=0.0,
        metavar="SECONDS",
        help="NIMMT_BOT_DELAY of the server (default 0: measure the server, not a pause)",
    )
    parser.add_argument(
        "--events",
        choices=("changes", "inline"),
        default="changes",
        help="how each person's socket asks to be told a change (default changes, as the web "
        "client; inline: a whole state each time, as before, or against an older server)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON line")
    parser.add_argument("--verbose", action="store_true", help="progress on standard error")
    args = parser.parse_args(argv)
    if args.db is None:
        args.db = "postgresql" if args.processes > 1 else "sqlite"
    if args.processes > 1 and args.db != "postgresql":
        parser.error("--processes above 1 needs --db postgresql (the processes share it)")
    return args


def bench(args: argparse.Namespace) -> dict[str, Any]:
    """Start the services and the server, run the bench, stop everything (always)."""
    deadline = time.monotonic() + args.seconds + SLACK_SECONDS - STOP_SECONDS - 5
    if args.processes > 1 and not serve_supports_workers():
        raise BenchError(
            "this `nimmt serve` has no --workers/--bus options yet: only --processes 1 can run here"
        )
    with contextlib.ExitStack() as stack:
        home = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="nimmt-load-")))
        trees: dict[str, ProcessTree] = {}
        bus_url = None
        try:
            if args.db == "postgresql":
                cluster = stack.enter_context(throwaway.postgres())
                db_url = cluster.url
                pid = postmaster_pid(cluster)
                if pid is not None:
                    trees["db"] = ProcessTree(pid)
            else:
                db_url = f"sqlite:///{home / 'load.db'}"
            if args.processes > 1:
                bus = stack.enter_context(throwaway.redis())
                bus_url = bus.url
                if bus.process is not None:
                    trees["bus"] = ProcessTree(bus.process.pid)
        except (throwaway.ServiceUnavailable, subprocess.CalledProcessError) as error:
            raise BenchError(f"cannot start the throwaway services: {error}") from None
        server = Server(args, db_url, bus_url, home)
        stack.callback(server.stop)
        stack.callback(progress, "stopping nimmt serve")
        progress(f"starting {' '.join(server.command[3:])}")
        server.start(timeout=max(5.0, min(60.0, deadline - time.monotonic() - args.seconds)))
        progress("server ready")
        run = Run(args, server, db_url)
        stack.callback(run.pace.stop)
        run.other_trees = trees
        return run_async(run.run(deadline))


def run_async(coroutine: Awaitable[T]) -> T:
    """Run on uvloop when it is there (as uvicorn does), else on asyncio's own loop."""
    factory: Callable[[], asyncio.AbstractEventLoop] | None = None
    try:
        import uvloop

        factory = uvloop.new_event_loop
    except ImportError:
        pass

    async def main() -> T:
        return await coroutine

    with asyncio.Runner(loop_factory=factory) as runner:
        return runner.run(main())


def show(figures: dict[str, Any]) -> str:
    width = max(len(key) for key in figures)
    return "\n".join(f"{key:<{width}}  {value}" for key, value in figures.items())


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    load_server.VERBOSE = args.verbose

    def terminate(_signum: int, _frame: object) -> None:
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, terminate)
    try:
        figures = bench(args)
    except BenchError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130
    print(json.dumps(figures) if args.json else show(figures), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
