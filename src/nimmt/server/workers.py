"""Worker processes for the bots and the coach, never the event loop's thread.

A strong bot or the coach searches for a while and holds the GIL while it does; in the server's
process that would stall every table. A :class:`WorkerPool` runs such work in processes of its
own, started afresh rather than forked, so that they hold none of the server's sockets or files.
The workers run at a lower scheduling priority (``nice``): when the CPU is short the people's
actions go first, then the bots, then the coach. Each worker ends by itself once its server
process is gone, even after ``kill -9``.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from typing import Any, TypeVar

T = TypeVar("T")

ORPHAN_CHECK_SECONDS = 1.0
"""How often a worker looks whether its server process is still there."""

CLOSE_GRACE_SECONDS = 2.0
"""How long :meth:`WorkerPool.close` lets a busy worker finish before it ends the process: a
search or an analysis under way is not worth holding a server's shutdown for."""


class WorkerPool:
    """``processes`` worker processes at ``niceness`` below the server (started when first
    used)."""

    def __init__(self, processes: int, niceness: int) -> None:
        self.processes = max(1, processes)
        self.niceness = niceness
        self._executor: ProcessPoolExecutor | None = None

    def executor(self) -> ProcessPoolExecutor:
        """The pool, started now if it is not yet."""
        if self._executor is None:
            self._executor = ProcessPoolExecutor(
                self.processes,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=start_worker,
                initargs=(os.getpid(), self.niceness),
            )
        return self._executor

    async def run(self, function: Callable[..., T], *args: Any) -> T:
        """``function(*args)`` in a worker (both must pickle)."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.executor(), function, *args)

    async def warm_up(self, function: Callable[[], Any] = os.getpid) -> None:
        """Start every worker now, each running ``function`` once (e.g. to import the bots), so
        that the first real request does not wait for processes to start."""
        await asyncio.gather(*(self.run(function) for _ in range(self.processes)))

    async def close(self, grace: float = CLOSE_GRACE_SECONDS) -> None:
        """Stop the workers: queued work is cancelled, work under way gets ``grace`` seconds,
        then its process is ended (its caller was going away with the server anyway)."""
        executor, self._executor = self._executor, None
        if executor is None:
            return
        # The executor keeps its processes in a private mapping; read it before shutdown
        # forgets it. There is no public way to end busy workers before Python 3.14.
        processes = list(getattr(executor, "_processes", {}).values())
        executor.shutdown(wait=False, cancel_futures=True)
        await asyncio.to_thread(_end_processes, processes, grace)


def _end_processes(processes: list[Any], grace: float) -> None:
    """Join every process within ``grace`` seconds in all; end the ones still running."""
    deadline = time.monotonic() + grace
    for process in processes:
        process.join(max(0.0, deadline - time.monotonic()))
    for process in processes:
        if process.is_alive():
            process.terminate()
            process.join(ORPHAN_CHECK_SECONDS)
        if process.is_alive():
            process.kill()
            process.join()


def start_worker(server: int, niceness: int) -> None:
    """In each worker: a lower priority, and a watch on the server process."""
    with contextlib.suppress(OSError):
        os.nice(niceness)
    threading.Thread(target=_exit_with, args=(server,), daemon=True, name="orphan watch").start()


def _exit_with(server: int) -> None:
    """End this worker once its server process is gone (a killed server cannot stop it)."""
    while os.getppid() == server:
        time.sleep(ORPHAN_CHECK_SECONDS)
    os._exit(0)
