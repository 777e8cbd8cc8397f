"""Keeping up with the other processes, and housekeeping: the bus follower, the poll while the
bus is down, the watchdog, and the eviction of idle tables.

Several processes may serve the same tables (:mod:`nimmt.server.bus`). After storing a change, a
process tells the others through the bus; :class:`Follower` applies what another process stored
(the action itself when the message carried it, else a catch-up from the database) and tells its
own sockets. Bots are moved by the process that made the change that calls them; if that process
dies, the watchdog of any process holding the table's sockets takes over. While the bus is down,
the tables held here are polled in the database instead.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from datetime import datetime, timedelta

from nimmt.engine import Phase, RuleError
from nimmt.server.actions import ActionKind
from nimmt.server.book import TableBook
from nimmt.server.errors import ServiceError
from nimmt.server.storage import ActionRecord
from nimmt.server.table import LiveTable

log = logging.getLogger(__name__)

SWEEP_SECONDS = 60.0
"""The longest time between two looks for idle tables."""


class Follower:
    """Follows the bus for the tables of ``book`` and keeps them tidy."""

    def __init__(
        self,
        book: TableBook,
        *,
        clock: Callable[[], datetime],
        idle_seconds: float,
        watchdog_seconds: float,
        bot_delay: float,
    ) -> None:
        self.book = book
        self.clock = clock
        self.idle_seconds = idle_seconds
        """A table nobody acted at for this long leaves memory (and the lobby)."""
        self.watchdog_seconds = watchdog_seconds
        """A table waiting this long (plus a bot's delay) for its dealer or a bot is moved from
        here: the process that was moving it is taken to be gone."""
        self.bot_delay = bot_delay

    async def start(self) -> None:
        """Listen on the bus, and start the housekeeping."""
        await self.book.bus.start(self.on_bus_change, self.resync_all)
        self.book.spawn(self._housekeeping(), "housekeeping")

    async def _housekeeping(self) -> None:
        """Every few seconds: poll the database for the tables held here while the bus is down,
        let a watchdog move bots whose mover died, and let idle tables go."""
        period = max(0.2, min(1.0, self.watchdog_seconds / 4))
        last_sweep = time.monotonic()
        while not self.book.closed:
            await asyncio.sleep(period)
            try:
                if not self.book.bus.healthy:
                    await self.poll_versions()
                await self.watchdog()
                if time.monotonic() - last_sweep >= min(SWEEP_SECONDS, self.idle_seconds / 4):
                    last_sweep = time.monotonic()
                    await self.let_go_deleted()
                    await self.evict_idle()
            except ServiceError as error:  # the database is away: one line, then again
                log.warning("housekeeping: %s; trying again", error.message)
            except Exception:
                log.exception("housekeeping failed; trying again")

    # ------------------------------------------------------------------ the bus

    async def on_bus_change(self, code: str, version: int, action: ActionRecord | None) -> None:
        """Another process stored ``version`` of table ``code`` (``action``, when the message
        carried it): apply it, or catch up from the database, if the table is held here."""
        table = self.book.tables.get(code)
        if table is None or (version <= table.version and not table.needs_restore):
            return
        self.book.spawn(self._follow(table, action), f"catch up {code}")

    async def _follow(self, table: LiveTable, action: ActionRecord | None) -> None:
        async with table.lock:
            if (
                action is not None
                and action.seq == table.version + 1
                and not table.needs_restore
                and (action.game == table.game_number or action.kind == ActionKind.REMATCH)
            ):
                try:
                    table.apply(action)
                except RuleError:
                    log.warning("table %s: a change from the bus does not apply", table.code)
                else:
                    self.book.applied(table, action)
                    return
            try:
                await self.book.catch_up(table)
            except Exception:
                log.exception("table %s: catching up failed; the next change or poll retries",
                              table.code)  # fmt: skip

    async def _locked_catch_up(self, table: LiveTable) -> None:
        async with table.lock:
            try:
                await self.book.catch_up(table)
            except Exception:
                log.exception("table %s: catching up failed; the next poll retries", table.code)

    async def resync_all(self) -> None:
        """The bus is back after a gap: every table held here may have missed changes, and
        the others may have missed what this process stored meanwhile. Each process's bus
        comes back on its own: one already back polls no more and waits to be told, while
        this one, still down, published nothing. So each table's version is announced."""
        for table in list(self.book.tables.values()):
            await self._locked_catch_up(table)
            await self.book.bus.announce(table.code, table.version)

    async def poll_versions(self) -> None:
        """While the bus is down: the database's versions of the tables held here, in one
        query, and a catch-up for each table that moved."""
        tables = self.book.tables
        if not tables:
            return
        stored = await self.book.read(self.book.storage.versions, list(tables))
        for code, version in stored.items():
            table = tables.get(code)
            if table is not None and (version > table.version or table.needs_restore):
                await self._locked_catch_up(table)

    # ------------------------------------------------------------- housekeeping

    async def watchdog(self) -> None:
        """A table that waits for its dealer or a bot, with nothing happening here for a while,
        lost the process that was moving it: move it from here."""
        now = time.monotonic()
        patience = self.watchdog_seconds + self.bot_delay
        for table in list(self.book.tables.values()):
            if table.bot_tasks or not table.connections or table.lock.locked():
                continue
            if not table.has_people:  # nothing deals or moves there by itself
                continue
            if now - self.book.changed_at.get(table.code, now) < patience:
                continue
            game = table.game
            waiting_for_bot = any(table.bot_for(seat) for seat in game.waiting_for())
            if not (game.phase is Phase.DEALING and table.full) and not waiting_for_bot:
                continue
            async with table.lock:
                self.book.changed_at[table.code] = time.monotonic()
                await self.book.catch_up(table)
                await self.book.follow_up(table)

    async def let_go_deleted(self) -> list[str]:
        """Let go of the tables held here that the database no longer has (``nimmt admin
        purge`` from outside deleted them), in one query: their people are told and their
        sockets closed (:meth:`~nimmt.server.book.TableBook.forget`) within a sweep, also at a
        table where nobody acts again. Their codes."""
        held = dict(self.book.tables)
        if not held:
            return []
        stored = await self.book.read(self.book.storage.versions, list(held))
        deleted = [code for code in held if code not in stored]
        for code in deleted:
            table = held[code]
            async with table.lock:
                self.book.forget(table)
        return deleted

    async def evict_idle(self) -> list[str]:
        """Let go of the tables nobody is at: no socket, no bot thinking, and no person's action
        for ``idle_seconds``. They stay stored and are loaded again when someone opens them."""
        limit = self.clock() - timedelta(seconds=self.idle_seconds)
        evicted = []
        for code, table in list(self.book.tables.items()):
            if table.connections or table.bot_tasks or table.lock.locked():
                continue
            if table.last_active_at is not None and table.last_active_at > limit:
                continue
            if await self.book.unload(code, table):
                evicted.append(code)
        return evicted
