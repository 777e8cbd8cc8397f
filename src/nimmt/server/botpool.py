"""Where the server's bots think: worker processes of their own, never the event loop's thread.

A strong bot searches for tens of milliseconds per decision and holds the GIL while it does; in
the server's process that would stall every table. :class:`BotPool` sends each decision (the bot's
name, a seed and the seat's :class:`~nimmt.engine.SeatView`, nothing more) to worker processes
(:mod:`nimmt.server.workers`) at a lower priority than the server's.

:class:`InlineBots` decides in the calling thread: for tests and tools that drive the service
without processes.
"""

from __future__ import annotations

from typing import Protocol

from nimmt.bots import Limit, make_bot
from nimmt.engine import SeatView
from nimmt.server.workers import WorkerPool

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


class BotPool(WorkerPool):
    """Decisions in ``processes`` worker processes (started when the first decision comes)."""

    def __init__(self, processes: int) -> None:
        super().__init__(processes, WORKER_NICENESS)

    async def start(self) -> None:
        await self.warm_up()

    async def decide(self, bot: str, seed: int, view: SeatView) -> int:
        return await self.run(decide, bot, seed, view)


class InlineBots:
    """Decides at once in the caller's thread (tests; a quick bot only)."""

    async def start(self) -> None:
        pass

    async def decide(self, bot: str, seed: int, view: SeatView) -> int:
        return decide(bot, seed, view)

    async def close(self) -> None:
        pass
