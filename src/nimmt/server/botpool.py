"""Where the server's bots think: worker processes of their own, never the event loop's thread.

A strong bot searches for tens of milliseconds per decision and holds the GIL while it does; in
the server's process that would stall every table. :class:`BotPool` sends each decision (the bot's
name, a seed and the seat's :class:`~nimmt.engine.SeatView`, nothing more) to a pool of worker
processes, started afresh rather than forked, so that they hold none of the server's sockets or
files. The workers run at a lower scheduling priority (``nice``): when the CPU is short the
people's actions go first and the bots answer later. Each worker ends by itself once its server
process is gone, even after ``kill -9``.

:class:`InlineBots` decides in the calling thread: for tests and tools that drive the service
without processes.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Protocol

from nimmt.bots import Limit, make_bot
from nimmt.engine import SeatView

WORKER_NICENESS = 10
"""How much lower the bot workers' priority is than the server's (``nice`` increment)."""


class BotRunner(Protocol):
    """Decides for a bot seat: a card, or when ``view.must_choose_row`` a row (0 to 3)."""

    async def start(self) -> None:
        """Get ready, so that the first decisions do not wait for workers to start."""
        ...

    async def decide(self, bot: str, seed: int, view: SeatView) -> int: ...

    async def close(self) -> None: ...


DECISION_BUDGET = 1.0
"""Seconds a bot's card decision should take at most at a table (``hard`` refines its choice
only while it has time: :attr:`nimmt.bots.strong.StrongSettings.budget`)."""


def decide(bot: str, seed: int, view: SeatView) -> int:
    """One decision of the bot called ``bot``, its randomness drawn from ``seed``."""
    player = make_bot(bot, seed, limit=Limit(seconds=DECISION_BUDGET))
    return player.choose_row(view) if view.must_choose_row else player.choose_card(view)


def _start_worker(server: int, niceness: int = WORKER_NICENESS) -> None:
    """In each worker: a lower priority, and a watch on the server process."""
    with contextlib.suppress(OSError):
        os.nice(niceness)
    threading.Thread(target=_exit_with, args=(server,), daemon=True, name="orphan watch").start()


def _exit_with(server: int) -> None:
    """End this worker once its server process is gone (a killed server cannot stop it)."""
    while os.getppid() == server:
        time.sleep(1.0)
    os._exit(0)


class BotPool:
    """Decisions in ``processes`` worker processes (started when the first decision comes)."""

    def __init__(self, processes: int) -> None:
        self.processes = max(1, processes)
        self._executor: ProcessPoolExecutor | None = None

    def _pool(self) -> ProcessPoolExecutor:
        if self._executor is None:
            self._executor = ProcessPoolExecutor(
                self.processes,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_start_worker,
                initargs=(os.getpid(),),
            )
        return self._executor

    async def start(self) -> None:
        loop = asyncio.get_running_loop()
        pool = self._pool()
        await asyncio.gather(
            *(loop.run_in_executor(pool, os.getpid) for _ in range(self.processes))
        )

    async def decide(self, bot: str, seed: int, view: SeatView) -> int:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._pool(), decide, bot, seed, view)

    async def close(self) -> None:
        executor, self._executor = self._executor, None
        if executor is not None:
            await asyncio.to_thread(executor.shutdown, wait=True, cancel_futures=True)


class InlineBots:
    """Decides at once in the caller's thread (tests; a quick bot only)."""

    async def start(self) -> None:
        pass

    async def decide(self, bot: str, seed: int, view: SeatView) -> int:
        return decide(bot, seed, view)

    async def close(self) -> None:
        pass
