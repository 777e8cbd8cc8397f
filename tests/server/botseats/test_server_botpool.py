"""The server's bots think in worker processes of their own, at a lower priority, and decide
exactly as the same bot would in the server's own thread."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import subprocess
import sys
import time

from tests.waiting import wait_until

from nimmt.engine import Game, draw_deal
from nimmt.server.botpool import WORKER_NICENESS, BotPool, InlineBots


def _worker_facts() -> tuple[int, int]:
    return os.getpid(), os.nice(0)


def _compiled_core_loaded() -> bool:
    return "nimmt.bots.kernels" in sys.modules and "numba" in sys.modules


def test_the_pool_decides_as_the_bot_does_but_in_another_process() -> None:
    game = Game(4)
    game.apply_deal(*draw_deal(random.Random(7), 4))
    views = [game.view(seat) for seat in range(4)]

    async def scenario() -> None:
        # A worker that has not answered in time is replaced by a quick stand-in; here every
        # decision must be the worker's own, however busy the machine.
        pool = BotPool(2, latest_seconds=600)
        inline = InlineBots()
        try:
            for name in ("random", "greedy", "easy"):
                for seed, view in enumerate(views):
                    assert await pool.decide(name, seed, view) == await inline.decide(
                        name, seed, view
                    )
            loop = asyncio.get_running_loop()
            pid, niceness = await loop.run_in_executor(pool.executor(), _worker_facts)
            assert pid != os.getpid()
            assert niceness >= min(19, os.nice(0) + WORKER_NICENESS)
        finally:
            await pool.close()

    asyncio.run(scenario())


def test_the_workers_load_hard_s_compiled_core_before_the_first_decision() -> None:
    async def scenario() -> None:
        pool = BotPool(1, latest_seconds=600)
        try:
            await pool.start()
            loop = asyncio.get_running_loop()
            assert await loop.run_in_executor(pool.executor(), _compiled_core_loaded)
        finally:
            await pool.close()

    asyncio.run(scenario())


ORPHAN_SCRIPT = """
import asyncio, os, random, signal, sys
from nimmt.engine import Game, draw_deal
from nimmt.server.botpool import BotPool

async def main():
    game = Game(3)
    game.apply_deal(*draw_deal(random.Random(1), 3))
    pool = BotPool(2)
    await pool.decide("easy", 1, game.view(0))
    print(" ".join(str(pid) for pid in pool.executor()._processes), flush=True)
    os.kill(os.getpid(), signal.SIGKILL)

asyncio.run(main())
"""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is gone for good; it waits only for its parent to read its status.
    with open(f"/proc/{pid}/stat") as stat:
        return stat.read().split(")")[-1].split()[0] != "Z"


def test_the_workers_end_when_the_server_is_killed() -> None:
    result = subprocess.run(
        [sys.executable, "-c", ORPHAN_SCRIPT], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == -signal.SIGKILL, result.stderr
    workers = [int(pid) for pid in result.stdout.split()]
    assert workers  # the pool starts workers as decisions need them
    wait_until(
        lambda: not any(_alive(pid) for pid in workers),
        timeout=30,
        interval=0.1,
        message=lambda: f"workers still alive: {[pid for pid in workers if _alive(pid)]}",
    )
    assert not any(_alive(pid) for pid in workers)


def test_closing_ends_a_worker_that_is_still_busy() -> None:
    """A server's shutdown does not wait for a long search: the busy worker gets a short grace,
    then its process is ended, and the work queued behind it is cancelled."""

    async def scenario() -> None:
        pool = BotPool(1)
        pid = await pool.run(os.getpid)
        busy = asyncio.ensure_future(pool.run(time.sleep, 600))
        queued = asyncio.ensure_future(pool.run(time.sleep, 600))
        await asyncio.sleep(0)  # both submitted: one running, one waiting
        await pool.close(grace=0.5)
        assert not _alive(pid)
        await asyncio.wait([busy, queued], timeout=30)
        assert busy.done() and queued.done()
        assert queued.cancelled() or isinstance(queued.exception(), Exception)

    asyncio.run(scenario())
