"""Retention: finished and abandoned tables are deleted after some days (``NIMMT_FINISHED_DAYS``,
``NIMMT_ABANDONED_DAYS``; 0 keeps them forever), with their seats and actions. Until then a
finished game's record stays downloadable. A table held in this process's memory (someone is
still at it) is never deleted under it.

The same deletion, run by hand: ``nimmt admin purge`` (:mod:`nimmt.cli.admin`).
"""

from __future__ import annotations

import asyncio
import logging
from datetime import datetime, timedelta

from nimmt.server.book import TableBook, first_line
from nimmt.server.storage import StoredTable

log = logging.getLogger(__name__)

PERIOD_SECONDS = 3600.0
"""How often retention looks for tables past their days."""
FIRST_DELAY_SECONDS = 60.0
"""Retention waits this long after start, so that starting is not slowed by it."""


def cutoff(now: datetime, days: float) -> datetime | None:
    """The last-activity time before which a table is due (``None`` for 0 days: never)."""
    return now - timedelta(days=days) if days > 0 else None


class Retention:
    """Deletes the tables past their days, every :data:`PERIOD_SECONDS`."""

    def __init__(self, book: TableBook, *, finished_days: float, abandoned_days: float) -> None:
        self.book = book
        self.finished_days = finished_days
        self.abandoned_days = abandoned_days

    def start(self) -> None:
        if self.finished_days > 0 or self.abandoned_days > 0:
            self.book.spawn(self._loop(), "retention")

    async def _loop(self) -> None:
        await asyncio.sleep(FIRST_DELAY_SECONDS)
        while not self.book.closed:
            try:
                await self.purge()
            except Exception as error:  # the database away: the next round tries again
                log.warning("retention failed: %s", first_line(error))
            await asyncio.sleep(PERIOD_SECONDS)

    async def purge(self) -> list[StoredTable]:
        """Delete what is due now; what was deleted."""
        now = self.book.clock()
        deleted = await asyncio.to_thread(
            self.book.storage.purge,
            finished_before=cutoff(now, self.finished_days),
            abandoned_before=cutoff(now, self.abandoned_days),
            keep=list(self.book.tables),
        )
        if deleted:
            log.info(
                "retention deleted %s tables (%s finished, %s abandoned)",
                len(deleted),
                sum(table.finished for table in deleted),
                sum(not table.finished for table in deleted),
            )
        return deleted
