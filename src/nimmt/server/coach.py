"""The coach at the web table: where it thinks, and how its work is kept from delaying a table.

A seated person at a table whose creator allowed the coach may ask it (the socket's ``coach``
message) to score every choice of their current decision: :func:`nimmt.bots.analyze` on that
seat's own view, nothing else. After a game, ``GET /api/tables/{code}/analysis?seat=N`` scores
every decision of one seat in the finished game's record (:func:`nimmt.review.review`).

Both run in a worker process of their own (:class:`CoachPool`), apart from the bots' pool: a
table's bots never wait behind the coach. :class:`CoachDesk` keeps the coach's work per table to
one analysis at a time, always of the table's state when the analysis starts (a request that
waited while the table moved on is answered for the newer state, and the answer says which
version it is for), and remembers the latest answers so that asking twice costs nothing.
:class:`InlineCoach` thinks in a thread of the server's own process (tests, and servers without
bot processes).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from nimmt.engine import Phase, SeatView
from nimmt.server.errors import ServiceError
from nimmt.server.workers import WorkerPool

log = logging.getLogger(__name__)

COACH_NICENESS = 15
"""The coach's worker runs below the bots' (10): people first, then bots, then the coach."""
COACH_SAMPLES = 1024
"""Sampled deals per live analysis (:func:`nimmt.bots.analyze`'s default)."""
REVIEW_SAMPLES = 1024
"""Sampled deals per decision of a finished game's review (as ``nimmt analyze``)."""
ANSWERS_KEPT = 512
"""How many coach answers (and game reviews) are remembered in memory, the latest first."""


def has_decision(view: SeatView) -> bool:
    """The seat has something for the coach to score: a row to take, or a card to choose (or
    to change, while the turn's cards are being chosen)."""
    return view.must_choose_row or (view.phase is Phase.CHOOSING_CARDS and bool(view.hand))


def analyze_view(view: SeatView, seed: int, samples: int) -> dict[str, Any]:
    """The coach's answer for one seat's view: the body of the socket's ``coach`` message."""
    from nimmt.bots import analyze

    analysis = analyze(view, samples=samples, seed=seed)
    return {
        "kind": analysis.kind,
        "best": analysis.best,
        "candidates": [
            {
                "choice": candidate.choice,
                "expected": round(candidate.expected, 2),
                "extra": round(candidate.extra, 2),
            }
            for candidate in analysis.candidates
        ],
        "confidence": round(analysis.confidence, 3),
    }


def review_record(record: Mapping[str, Any], seat: int, samples: int) -> dict[str, Any]:
    """Every decision of ``seat`` in a finished game's record, as ``nimmt analyze --json``."""
    from nimmt.review import review

    return review(record, seat, samples=samples)


def _warm_up() -> int:
    """In the coach's worker: load the search (numpy, the bots) before the first question."""
    import nimmt.bots.analysis  # noqa: F401

    return os.getpid()


class CoachRunner(Protocol):
    """Where the coach thinks."""

    async def start(self) -> None:
        """Get ready, so that the first question does not wait for a worker to start."""
        ...

    async def analyze(self, view: SeatView, seed: int) -> dict[str, Any]: ...

    async def review(self, record: Mapping[str, Any], seat: int) -> dict[str, Any]: ...

    async def close(self) -> None: ...


class CoachPool(WorkerPool):
    """The coach in one worker process of its own (started when first asked), at a lower
    priority than the bots' workers."""

    def __init__(self) -> None:
        super().__init__(1, COACH_NICENESS)

    async def start(self) -> None:
        await self.warm_up(_warm_up)

    async def analyze(self, view: SeatView, seed: int) -> dict[str, Any]:
        return await self.run(analyze_view, view, seed, COACH_SAMPLES)

    async def review(self, record: Mapping[str, Any], seat: int) -> dict[str, Any]:
        return await self.run(review_record, dict(record), seat, REVIEW_SAMPLES)


class InlineCoach:
    """The coach in a thread of the server's process (tests; servers without bot processes)."""

    async def start(self) -> None:
        pass

    async def analyze(self, view: SeatView, seed: int) -> dict[str, Any]:
        return await asyncio.to_thread(analyze_view, view, seed, COACH_SAMPLES)

    async def review(self, record: Mapping[str, Any], seat: int) -> dict[str, Any]:
        return await asyncio.to_thread(review_record, record, seat, REVIEW_SAMPLES)

    async def close(self) -> None:
        pass


Snapshot = Callable[[], Awaitable["Question | None"]]
"""Reads, when the coach is free to answer, what to analyze for one waiting request (``None``
when it is no longer wanted, e.g. its socket closed); raises :class:`ServiceError` when the
request is to be refused."""
Reply = Callable[[dict[str, Any] | ServiceError], None]
"""Takes the answer (the ``coach`` message's fields) or the refusal."""


@dataclass(frozen=True, slots=True)
class Question:
    """What the coach is asked, read from the table when its turn comes."""

    key: tuple[Any, ...]
    """Identifies the answer: the same key, the same answer (table, game, seat and version)."""
    view: SeatView
    version: int
    seed: int


class CoachDesk:
    """One analysis at a time per table; requests wait in order, and the latest answers are
    remembered. ``ask`` never blocks its caller: the reply comes when the analysis is done."""

    def __init__(self, runner: CoachRunner) -> None:
        self.runner = runner
        """Where the coach thinks (the service starts it)."""
        self._queues: dict[str, list[tuple[object, Snapshot, Reply]]] = {}
        self._workers: dict[str, asyncio.Task[None]] = {}
        self._answers: OrderedDict[tuple[Any, ...], dict[str, Any]] = OrderedDict()
        self._reviews: dict[tuple[Any, ...], asyncio.Future[dict[str, Any]]] = {}
        self._reviewed: OrderedDict[tuple[Any, ...], dict[str, Any]] = OrderedDict()

    def ask(self, table: str, asker: object, snapshot: Snapshot, reply: Reply) -> None:
        """Queue a request of ``asker`` (a connection) at ``table``; an older request of the
        same asker that is still waiting is dropped (this one will answer for a newer state)."""
        queue = self._queues.setdefault(table, [])
        queue[:] = [entry for entry in queue if entry[0] is not asker]
        queue.append((asker, snapshot, reply))
        if table not in self._workers:
            task = asyncio.create_task(self._work(table), name=f"coach {table}")
            self._workers[table] = task

    async def _work(self, table: str) -> None:
        try:
            queue = self._queues.get(table, [])
            while queue:
                _asker, snapshot, reply = queue.pop(0)
                try:
                    question = await snapshot()
                    if question is None:
                        continue
                    reply(await self._answer(question))
                except ServiceError as error:
                    reply(error)
                except Exception:
                    log.exception("the coach failed at table %s", table)
                    reply(ServiceError("internal_error", "The coach failed; please ask again."))
        finally:
            self._workers.pop(table, None)
            if not self._queues.get(table):
                self._queues.pop(table, None)

    async def _answer(self, question: Question) -> dict[str, Any]:
        known = self._answers.get(question.key)
        if known is None:
            known = await self.runner.analyze(question.view, question.seed)
            known = {"version": question.version, **known}
            self._answers[question.key] = known
            while len(self._answers) > ANSWERS_KEPT:
                self._answers.popitem(last=False)
        else:
            self._answers.move_to_end(question.key)
        return known

    def reviewed(self, key: tuple[Any, ...]) -> dict[str, Any] | None:
        """The review remembered under ``key``, if there is one."""
        known = self._reviewed.get(key)
        if known is not None:
            self._reviewed.move_to_end(key)
        return known

    async def review(
        self, key: tuple[Any, ...], record: Mapping[str, Any], seat: int
    ) -> dict[str, Any]:
        """The review of ``seat`` in a finished game's ``record`` (``key`` names the game and
        the seat), computed once: requests that come while it is computed share the result."""
        known = self.reviewed(key)
        if known is not None:
            return known
        running = self._reviews.get(key)
        if running is None:
            running = asyncio.ensure_future(self._review(key, record, seat))
            self._reviews[key] = running
        return await asyncio.shield(running)

    async def _review(
        self, key: tuple[Any, ...], record: Mapping[str, Any], seat: int
    ) -> dict[str, Any]:
        try:
            result = await self.runner.review(record, seat)
        finally:
            self._reviews.pop(key, None)
        self._reviewed[key] = result
        while len(self._reviewed) > ANSWERS_KEPT:
            self._reviewed.popitem(last=False)
        return result

    async def close(self) -> None:
        tasks: list[asyncio.Future[Any]] = [*self._workers.values(), *self._reviews.values()]
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._queues.clear()
        await self.runner.close()
