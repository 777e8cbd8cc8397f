"""``nimmt serve`` for ``bench/load.py``: started as a subprocess (with PostgreSQL and Redis from
:mod:`throwaway` when asked), its process tree sampled with psutil (CPU, memory), stopped on
every way out; and what the bench's parts share (the host, the progress lines, the error).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections import Counter
from pathlib import Path
from typing import Any

import psutil  # type: ignore[import-untyped]  # no stubs among the dependencies
import sqlalchemy as sa
from prometheus_client.parser import text_string_to_metric_families

import throwaway

HOST = "127.0.0.1"
PEOPLE = 3
"""Simulated people at each table (the fourth seat is a bot)."""
Ack = tuple[str, int, int, int, str, int]
"""(table code, game, round, seat, kind, card or row) of an accepted action."""
STOP_SECONDS = 10.0
"""SIGTERM, then SIGKILL after this long."""
PROFILE_ENV = "NIMMT_BENCH_PROFILE"
"""A file name here runs the server under cProfile and writes its profile there (bench only)."""
PROFILED_MAIN = """
import cProfile, signal, time
from nimmt.cli import main
profiler = cProfile.Profile(time.thread_time)  # the loop's own CPU, whatever else runs
signal.signal(signal.SIGUSR1, lambda *_: profiler.enable())
def dump(*_):
    profiler.disable()
    profiler.dump_stats({path!r})
signal.signal(signal.SIGUSR2, dump)
main()
"""


STARTED = time.monotonic()
VERBOSE = False


def progress(message: str) -> None:
    """With ``--verbose``: what the script is doing, on standard error."""
    if VERBOSE:
        print(f"[{time.monotonic() - STARTED:6.1f} s] {message}", file=sys.stderr, flush=True)


class BenchError(RuntimeError):
    """The run failed: one ``error:`` line, exit status 1."""


class ProcessTree:
    """A process and its descendants, sampled with psutil (CPU seconds, resident memory)."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.peak_rss = 0

    def processes(self) -> list[psutil.Process]:
        try:
            root = psutil.Process(self.pid)
            return [root, *root.children(recursive=True)]
        except psutil.Error:
            return []

    def cpu(self) -> dict[int, float]:
        """CPU seconds (user + system) used so far by each live process of the tree."""
        used: dict[int, float] = {}
        for process in self.processes():
            with contextlib.suppress(psutil.Error):
                times = process.cpu_times()
                used[process.pid] = times.user + times.system
        return used

    def sample_rss(self) -> None:
        total = 0
        for process in self.processes():
            with contextlib.suppress(psutil.Error):
                total += process.memory_info().rss
        self.peak_rss = max(self.peak_rss, total)


def cpu_between(before: dict[int, float], after: dict[int, float]) -> float:
    return sum(seconds - before.get(pid, 0.0) for pid, seconds in after.items())


def steal_share(before: Any, after: Any) -> float | None:
    """The share of the machine's CPU time between two ``psutil.cpu_times()`` that its
    hypervisor spent on other machines (``None`` where the system does not count it)."""
    if not hasattr(before, "steal"):
        return None
    # Linux counts a guest's time in user and nice already: summed again, it would count twice.
    counted = [name for name in before._fields if name not in ("guest", "guest_nice")]
    total = sum(getattr(after, name) - getattr(before, name) for name in counted)
    return round((after.steal - before.steal) / total, 3) if total > 0 else None


Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]
"""A scrape of ``/metrics``: each sample's value by its name and labels."""
GC_LONG_PASS = "0.05"
"""The bucket bound (seconds) above which a collector's pass counts as long."""


def parse_metrics(text: str) -> Samples:
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def metrics_figures(before: Samples | None, after: Samples | None, window: float) -> dict[str, Any]:
    """What the server's own counters say of the window: the rushed bot decisions, and the
    collector's passes (the share of the window every table waited for them, and the passes
    over :data:`GC_LONG_PASS` seconds). ``None`` each when the scrapes failed."""
    if before is None or after is None:
        return {"bot_rushed": None, "gc_pause_share": None, "gc_long_passes": None}

    def grew(name: str, **labels: str) -> float:
        key = (name, tuple(sorted(labels.items())))
        return after.get(key, 0.0) - before.get(key, 0.0)

    generations = [str(generation) for generation in range(3)]
    paused = sum(grew("nimmt_gc_pause_seconds_sum", generation=g) for g in generations)
    long_passes = sum(
        grew("nimmt_gc_pause_seconds_count", generation=g)
        - grew("nimmt_gc_pause_seconds_bucket", generation=g, le=GC_LONG_PASS)
        for g in generations
    )
    return {
        "bot_rushed": int(grew("nimmt_bot_rushed_decisions_total")),
        "gc_pause_share": round(paused / window, 4),
        "gc_long_passes": int(long_passes),
    }


class Server:
    """``nimmt serve`` as a subprocess of this script, its output in a log file."""

    def __init__(self, args: argparse.Namespace, db_url: str, bus_url: str | None, home: Path):
        self.port = throwaway.free_port()
        self.base_url = f"http://{HOST}:{self.port}"
        self.log = home / "server.log"
        self.command = [*nimmt_command(), "serve", "--host", HOST, "--port", str(self.port)]
        self.command += ["--db", db_url]
        if args.processes > 1:
            assert bus_url is not None
            self.command += ["--workers", str(args.processes), "--bus", bus_url]
        profile = os.environ.get(PROFILE_ENV)
        if profile:
            # The server's main thread (the event loop) under cProfile during the window only:
            # SIGUSR1 starts it, SIGUSR2 stops it and writes the profile.
            self.command[2] = PROFILED_MAIN.format(path=str(Path(profile).resolve()))
        self.env = {
            key: value
            for key, value in os.environ.items()
            if key not in ("NIMMT_DB", "NIMMT_HOST", "NIMMT_PORT", "NIMMT_DEAL_SEED")
        }
        self.env["NIMMT_BOT_DELAY"] = str(args.bot_delay)
        self.env["NIMMT_CREATE_QUOTA"] = str(max(100, 2 * args.tables + 10))
        # Every simulated person connects from loopback: the per-address cap is for real clients.
        sockets = PEOPLE * args.tables + 64
        self.env["NIMMT_MAX_CONNECTIONS_PER_ADDRESS"] = str(max(200, sockets))
        self.env["NIMMT_MAX_CONNECTIONS"] = str(max(2000, sockets))
        self.process: subprocess.Popen[bytes] | None = None
        self.tree: ProcessTree | None = None

    def start(self, timeout: float) -> None:
        with self.log.open("ab") as output:
            self.process = subprocess.Popen(
                self.command,
                env=self.env,
                stdin=subprocess.DEVNULL,
                stdout=output,
                stderr=subprocess.STDOUT,
            )
        self.tree = ProcessTree(self.process.pid)
        deadline = time.monotonic() + timeout
        while True:
            status = self.process.poll()
            if status is not None:
                raise BenchError(f"nimmt serve exited with status {status}: {self.last_line()}")
            if self.ready():
                return
            if time.monotonic() > deadline:
                raise BenchError(
                    f"nimmt serve was not ready (/readyz with its bots) within {timeout:.0f} s"
                )
            time.sleep(0.1)

    def profile(self, start_or_stop: signal.Signals) -> None:
        """Start or stop the server's profiler, when the bench runs it under one."""
        if os.environ.get(PROFILE_ENV) and self.process is not None:
            self.process.send_signal(start_or_stop)

    def loop_cpu(self) -> float:
        """CPU seconds used so far by the first server process's main thread (its event loop)."""
        if self.process is None:
            return 0.0
        with contextlib.suppress(psutil.Error):
            for thread in psutil.Process(self.process.pid).threads():
                if thread.id == self.process.pid:
                    return float(thread.user_time + thread.system_time)
        return 0.0

    def ready(self) -> bool:
        """``/readyz`` answers ready, its bots' workers started: a bench window that opened
        while they still started would time their start, not the server (a ``/readyz`` without
        ``bots``, from an older server, counts as ready)."""
        try:
            with urllib.request.urlopen(self.base_url + "/readyz", timeout=2) as answer:
                body = json.loads(answer.read())
        except (urllib.error.URLError, ConnectionError, TimeoutError, ValueError):
            return False
        return bool(body.get("status") == "ready" and body.get("bots", "ready") == "ready")

    def last_line(self) -> str:
        try:
            lines = self.log.read_text(errors="replace").strip().splitlines()
        except OSError:
            return "(no output)"
        return lines[-1] if lines else "(no output)"

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def stop(self) -> None:
        """SIGTERM, then SIGKILL after :data:`STOP_SECONDS`; leftover children are killed too."""
        process = self.process
        if process is None:
            return
        children = self.tree.processes()[1:] if self.tree is not None else []
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(STOP_SECONDS)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        _gone, alive = psutil.wait_procs(children, timeout=2)
        for child in alive:
            with contextlib.suppress(psutil.Error):
                child.kill()
        self.process = None


def nimmt_command() -> list[str]:
    """``nimmt`` of this interpreter's environment (the package has no ``__main__``)."""
    return [sys.executable, "-c", "from nimmt.cli import main; main()"]


def serve_supports_workers() -> bool:
    """Whether this ``nimmt serve`` has the multi-process options ``--workers`` and ``--bus``."""
    try:
        result = subprocess.run(
            [*nimmt_command(), "serve", "--help"],
            capture_output=True,
            text=True,
            timeout=60,
            env={**os.environ, "COLUMNS": "200"},
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return "--workers" in result.stdout and "--bus" in result.stdout


def postmaster_pid(cluster: throwaway.Postgres) -> int | None:
    try:
        return int((cluster.data / "postmaster.pid").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None


# ---------------------------------------------------------------- what was stored


def count_lost(db_url: str, acks: Counter[Ack]) -> int:
    """How many acknowledged actions are missing from the database's ``actions`` table."""
    # The columns of nimmt.server.models, named here: importing the server's package would load
    # the whole web stack into this process.
    tables = sa.table("tables", sa.column("id"), sa.column("code"))
    actions = sa.table(
        "actions",
        *(sa.column(name) for name in ("table_id", "seq", "game", "kind", "seat", "card", "row")),
    )
    codes = sorted({ack[0] for ack in acks})
    if not codes:
        return 0
    if db_url.startswith("postgresql://"):
        db_url = "postgresql+psycopg://" + db_url.removeprefix("postgresql://")
    engine = sa.create_engine(db_url)
    try:
        with engine.connect() as connection:
            rows = connection.execute(
                sa.select(
                    tables.c.code,
                    actions.c.game,
                    actions.c.kind,
                    actions.c.seat,
                    actions.c.card,
                    actions.c.row,
                )
                .join(tables, tables.c.id == actions.c.table_id)
                .where(tables.c.code.in_(codes))
                .order_by(tables.c.code, actions.c.seq)
            ).all()
    finally:
        engine.dispose()
    stored: Counter[Ack] = Counter()
    deals: Counter[tuple[str, int]] = Counter()
    for code, game, kind, seat, card, row in rows:
        if kind == "deal":
            deals[(code, game)] += 1
        elif kind == "play" and seat is not None and card is not None:
            stored[(code, game, deals[(code, game)], seat, "play", card)] += 1
        elif kind == "choose_row" and seat is not None and row is not None:
            stored[(code, game, deals[(code, game)], seat, "choose_row", row)] += 1
    return sum((acks - stored).values())
