"""Where the server's bots think: worker processes of their own, never the event loop's thread.

A strong bot searches for tens of milliseconds per decision and holds the GIL while it does; in
the server's process that would stall every table. :class:`BotPool` sends each decision (the bot's
name, a seed and the seat's :class:`~nimmt.engine.SeatView`, nothing more) to a pool of worker
processes started from a fork server that has imported the bots once. The workers run at a lower
scheduling priority (``nice``), so when the CPU is short the people's actions go first and the bots
answer later.

:class:`InlineBots` decides in the calling thread: for tests and tools that drive the service
without processes.
"""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from typing import Protocol

from nimmt.bots import make_bot
from nimmt.engine import SeatView

WORKER_NICENESS = 10
"""How much lower the bot workers' priority is than the server's (``nice`` increment)."""


class BotRunner(Protocol):
    """Decides for a bot seat: a card, or when ``view.must_choose_row`` a row (0 to 3)."""

    async def decide(self, bot: str, seed: int, view: SeatView) -> int: ...

    async def close(self) -> None: ...


def decide(bot: str, seed: int, view: SeatView) -> int:
    """One decision of the bot called ``bot``, its randomness drawn from ``seed``."""
    player = make_bot(bot, seed)
    return player.choose_row(view) if view.must_choose_row else player.choose_card(view)


def _lower_priority() -> None:
    with contextlib.suppress(OSError):
        os.nice(WORKER_NICENESS)


class BotPool:
    """Decisions in ``processes`` worker processes (started when the first decision comes)."""

    def __init__(self, processes: int) -> None:
        self.processes = max(1, processes)
        self._executor: ProcessPoolExecutor | None = None

    def _pool(self) -> ProcessPoolExecutor:
        if self._executor is None:
            context = multiprocessing.get_context("forkserver")
            context.set_forkserver_preload(["nimmt.bots", "nimmt.server.botpool"])
            self._executor = ProcessPoolExecutor(
                self.processes, mp_context=context, initializer=_lower_priority
            )
        return self._executor

    async def decide(self, bot: str, seed: int, view: SeatView) -> int:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._pool(), decide, bot, seed, view)

    async def close(self) -> None:
        executor, self._executor = self._executor, None
        if executor is not None:
            await asyncio.to_thread(executor.shutdown, wait=True, cancel_futures=True)


class InlineBots:
    """Decides at once in the caller's thread (tests; a quick bot only)."""

    async def decide(self, bot: str, seed: int, view: SeatView) -> int:
        return decide(bot, seed, view)

    async def close(self) -> None:
        pass
