"""Where the server's bots think: worker processes of their own, never the event loop's thread.

A strong bot searches for tens of milliseconds per decision and holds the GIL while it does; in
the server's process that would stall every table. :class:`BotPool` sends each decision (the bot's
name, a seed and the seat's :class:`~nimmt.engine.SeatView`, nothing more) to worker processes
(:mod:`nimmt.server.workers`) at a lower priority than the server's; only the quick bots
(:data:`QUICK_BOTS`) decide at once in the server's thread, which costs less than the trip.

:class:`InlineBots` decides in the calling thread: for tests and tools that drive the service
without processes.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable
from typing import Protocol

from nimmt.bots import Limit, make_bot
from nimmt.engine import SeatView
from nimmt.server.metrics import BOT_DECISION, BOT_QUEUE_WAIT, BOT_RUSHED
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
"""Seconds a bot's card decision should take at most at a table, counted from when the table
asked (``hard`` refines its choice only while it has time:
:attr:`nimmt.bots.strong.StrongSettings.budget`)."""
QUICK_BUDGET = 0.05
"""What a decision gets when the queue ate its budget."""
RUSHED: dict[str, tuple[str, float]] = {"hard": ("medium", 0.6)}
"""Who decides for a slow bot when the queue left it less than the time it needs, and that
time: ``hard``'s first search stage always runs and takes about 0.6 s of a core whatever its
budget, which 50 tables on two busy cores cannot give each time; ``medium`` (the same kind of
search with 16 deals, about 8 ms) keeps the table moving, at about four bullheads a deal weaker
(docs/bots.md, the ladder). Only late decisions are rushed."""


LATEST_SECONDS = 2.0
"""A decision no worker answered this long after its table asked is made in the server's thread
by :data:`LATE_STAND_IN`, so that a table never waits much longer for a bot."""
LATE_STAND_IN = "greedy"
"""Who decides in the server's thread when no worker answered in time: the workers are starved
then, and so is the server's own loop, which must not spend even ``medium``'s few milliseconds
per decision on bots while people wait (``greedy`` takes about 25 us)."""


QUICK_BOTS = frozenset({"random", "greedy"})
"""Bots that decide in a few tens of microseconds (``greedy``: about 25 us of a core): less than
sending the decision to a worker and back costs, so they decide in the server's own thread."""


def remaining_budget(asked_at: float, now: float) -> float:
    """What is left of :data:`DECISION_BUDGET` for a decision asked for at ``asked_at`` (both
    ``time.monotonic``, one clock for every process of the machine), at least
    :data:`QUICK_BUDGET`: when the CPU is short, a decision gets rougher rather than later.

    >>> remaining_budget(10.0, 10.25)
    0.75
    >>> remaining_budget(10.0, 14.0)
    0.05
    """
    return max(QUICK_BUDGET, DECISION_BUDGET - (now - asked_at))


def deciding_bot(bot: str, budget: float) -> str:
    """Who decides for ``bot`` with ``budget`` seconds left: ``bot`` itself, or its quick
    stand-in (:data:`RUSHED`) when that is less than ``bot`` needs.

    >>> deciding_bot("hard", 0.9), deciding_bot("hard", 0.3), deciding_bot("easy", 0.05)
    ('hard', 'medium', 'easy')
    """
    stand_in = RUSHED.get(bot)
    if stand_in is not None and budget < stand_in[1]:
        return stand_in[0]
    return bot


def decide(
    bot: str,
    seed: int,
    view: SeatView,
    asked_at: float | None = None,
    *,
    clock: Callable[[], float] = time.monotonic,
) -> int:
    """One decision of the bot called ``bot``, its randomness drawn from ``seed``, within what
    is left of its budget when asked at ``asked_at`` (default: now) by ``clock``."""
    now = clock()
    budget = remaining_budget(now if asked_at is None else asked_at, now)
    player = make_bot(deciding_bot(bot, budget), seed, limit=Limit(seconds=budget))
    return player.choose_row(view) if view.must_choose_row else player.choose_card(view)


def timed_decide(
    bot: str,
    seed: int,
    view: SeatView,
    asked_at: float,
    clock: Callable[[], float] = time.monotonic,
) -> tuple[int, float]:
    """:func:`decide` in a worker, and how long the decision waited for it (seconds)."""
    waited = clock() - asked_at
    return decide(bot, seed, view, asked_at, clock=clock), waited


class BotPool(WorkerPool):
    """Decisions in ``processes`` worker processes (started when the first decision comes)."""

    def __init__(self, processes: int, latest_seconds: float = LATEST_SECONDS) -> None:
        super().__init__(processes, WORKER_NICENESS)
        self.latest_seconds = latest_seconds
        """How long a decision waits for a worker before :data:`LATE_STAND_IN` decides."""

    async def start(self) -> None:
        await self.warm_up(_warm_up)

    async def decide(self, bot: str, seed: int, view: SeatView) -> int:
        asked_at = time.monotonic()
        if bot in QUICK_BOTS:
            return _decide_here(bot, seed, view, asked_at)
        try:
            choice, waited = await asyncio.wait_for(
                self.run(timed_decide, bot, seed, view, asked_at), self.latest_seconds
            )
        except TimeoutError:
            # The workers are starved (a busy machine gives their lower priority little): a
            # quick stand-in decides here; the worker's answer, if it ever comes, is dropped.
            BOT_RUSHED.inc()
            return _decide_here(LATE_STAND_IN, seed, view, asked_at)
        BOT_QUEUE_WAIT.observe(waited)
        if deciding_bot(bot, remaining_budget(asked_at, asked_at + waited)) != bot:
            BOT_RUSHED.inc()
        BOT_DECISION.observe(time.monotonic() - asked_at)
        return choice


def _warm_up() -> int:
    """In a bot worker: load the bots and the compiled core of ``hard``'s search (about a
    second) before the first decision, whose budget it would otherwise eat."""
    from nimmt.bots import kernels

    kernels.warm_up()
    return os.getpid()


def _decide_here(bot: str, seed: int, view: SeatView, asked_at: float) -> int:
    """:func:`decide` in the calling thread (no queue to wait in)."""
    choice = decide(bot, seed, view, asked_at)
    BOT_QUEUE_WAIT.observe(0.0)
    BOT_DECISION.observe(time.monotonic() - asked_at)
    return choice


class InlineBots:
    """Decides at once in the caller's thread (tests; a quick bot only)."""

    async def start(self) -> None:
        pass

    async def decide(self, bot: str, seed: int, view: SeatView) -> int:
        return _decide_here(bot, seed, view, time.monotonic())

    async def close(self) -> None:
        pass
