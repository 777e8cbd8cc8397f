"""The database's write path: one thread of its own, and group commit.

Every table's changes go through one :class:`Writer`, so that the changes of many tables that
arrive together cost one transaction and one disk flush; each change still succeeds or fails on
its own (a batch with a refused change is written again, each change in a savepoint), and every
process writes its tables in the same order, so that two processes never deadlock on each
other's rows.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from nimmt.server.storage import (
    ActionRecord,
    CodeTakenError,
    SeatRecord,
    Storage,
    TableRecord,
    TableStatus,
)

PACED_FROM = 2
"""A batch of at least this many changes says the server is busy: the next transaction starts
no sooner than the storage's ``commit_interval`` after it. After a batch of one (an idle
server, or a table played alone, one change after another) the next change is written at
once."""


def commit_wait(started: float, now: float, interval: float) -> float:
    """How long a busy writer's next batch waits at ``now`` when the last transaction started
    at ``started``: what is left of ``interval``."""
    return max(0.0, started + interval - now)


class Writer:
    """The database's write path: one thread of its own, and group commit. Appends that arrive
    while a transaction is being written go together into the next one (one commit, one
    fsync), so many tables' changes cost one disk flush; while the server is busy, also those
    that arrive within the storage's ``commit_interval`` of its start
    (:attr:`nimmt.server.storage.Storage.commit_interval`)."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage
        self._thread = ThreadPoolExecutor(1, thread_name_prefix="nimmt-db-write")
        self._pending: list[tuple[tuple[Any, ...], asyncio.Future[None]]] = []
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self.failed_at: float | None = None
        """When (``time.monotonic``) the last transaction failed as a whole (the database away,
        the disk full); ``None`` once one commits again (readiness reads it)."""

    async def append(
        self, code: str, action: ActionRecord, status: TableStatus, seat: SeatRecord | None
    ) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._run(), name="database writer")
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._pending.append(((code, action, status, seat), future))
        self._wake.set()
        await future

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        started, busy = float("-inf"), False
        while True:
            await self._wake.wait()
            wait = commit_wait(started, loop.time(), self.storage.commit_interval) if busy else 0.0
            if wait > 0:
                await asyncio.sleep(wait)
            self._wake.clear()
            batch, self._pending = self._pending, []
            if not batch:
                continue
            started, busy = loop.time(), len(batch) >= PACED_FROM
            # Every process writes its tables in the same order (by code), so that two
            # processes' transactions never wait for each other's rows in a circle (deadlock).
            batch.sort(key=lambda entry: entry[0][0])
            items = [item for item, _ in batch]
            try:
                results = await loop.run_in_executor(self._thread, self.storage.append_many, items)
            except Exception:
                # The whole transaction failed (the database was away, or chose it as a victim):
                # once more, then each waiting action hears of the failure.
                try:
                    results = await loop.run_in_executor(
                        self._thread, self.storage.append_many, items
                    )
                except Exception as error:
                    self.failed_at = time.monotonic()
                    results = [error] * len(batch)
                else:
                    self.failed_at = None
            else:
                self.failed_at = None
            for (_item, future), result in zip(batch, results, strict=True):
                if future.done():
                    continue
                if result is None:
                    future.set_result(None)
                else:
                    future.set_exception(result)

    async def create_table(self, record: TableRecord) -> None:
        loop = asyncio.get_running_loop()
        try:
            await loop.run_in_executor(self._thread, self.storage.create_table, record)
        except CodeTakenError:
            raise
        except Exception:
            self.failed_at = time.monotonic()
            raise
        self.failed_at = None

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        for _item, future in self._pending:
            if not future.done():
                future.set_exception(RuntimeError("the server is stopping"))
        await asyncio.to_thread(self._thread.shutdown)
