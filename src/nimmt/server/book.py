"""The table book: the tables this process holds, and the one path by which any of them changes.

Every change of a table, whoever makes it (a person, a bot seat, the dealer, an assisted table's
entry), goes through :meth:`TableBook.commit`: the rules engine applies it (refusing an illegal
one, changing nothing), the :class:`~nimmt.server.writer.Writer` stores it under the table's next
version, the publisher tells this process's listeners what each may see, and the bus tells the
other processes. Then :meth:`TableBook.follow_up` runs the after-change hook: what follows by
itself (a deal, the bots' moves), which the service wires in.

The book is handed its collaborators, as boardgame.io's ``Master`` is handed its game, storage
and transport: the storage (reads), the writer, the bus, the publisher and the after-change hook.
Bot seats, the bus follower, assisted tables and the coach are handed the book; none of them
reaches back into the service.

The database is the source of truth. A change is stored under the table's next version
(compare-and-set), so two processes can never both append version 42: the one that loses hears
:class:`Behind`, after the table was caught up from the database, and checks its action again. A
change the database refuses makes the table rebuild itself from what was stored
(:meth:`TableBook.repair`), so memory never runs ahead of the database.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from functools import partial
from typing import Any, TypeVar

from nimmt.engine import RuleError
from nimmt.server.actions import PEOPLE_ACTIONS, SEAT_CHANGES, ActionKind
from nimmt.server.assisted import AssistedTable
from nimmt.server.bus import Bus, LocalBus
from nimmt.server.errors import ServiceError, shown
from nimmt.server.metrics import ACTED, STORAGE_ERRORS
from nimmt.server.serialize import error_message
from nimmt.server.storage import (
    ActionRecord,
    CodeTakenError,
    Storage,
    StorageError,
    TableGoneError,
    TableRecord,
    VersionConflictError,
)
from nimmt.server.table import LiveTable, new_code, normalize_code
from nimmt.server.writer import Writer

log = logging.getLogger(__name__)
T = TypeVar("T")

Publisher = Callable[[LiveTable], None]
"""Tells every listener of a table what it may see of the table's new events and state."""
AfterChange = Callable[[LiveTable], Awaitable[None]]
"""What follows a stored change by itself (lock held): the deal of a new round, the bots' moves.
It may commit more changes; it raises :class:`~nimmt.server.errors.ServiceError` or
:class:`Behind` when one of them could not be stored."""

CONFLICT_RETRIES = 5
"""How often an action is checked again after another process changed the table first."""
CREATE_ATTEMPTS = 20
"""How many fresh codes a new table tries before the server gives up (another table took it)."""


class Behind(Exception):
    """The table moved on in another process; it has been caught up: check the action again."""


def storage_unavailable() -> ServiceError:
    """The refusal while the database cannot be reached (503: try again; nothing changed)."""
    return ServiceError(
        "storage_error", "The server cannot reach its database; please try again.", 503
    )


class TableDeleted(ServiceError):
    """``table_not_found`` at a table deleted from the database while it was held here, with
    ``details`` ``{"deleted": true}``: a socket told so is closed with the reason
    :data:`DELETED_REASON` (docs/protocol.md)."""


DELETED_KEPT = 1_000
"""How many codes of tables deleted under this process it remembers (:attr:`TableBook.
deleted`)."""

DELETED_REASON = "table_deleted"
"""The close reason, beside code 4404, of a socket whose table was deleted under it."""


def table_gone() -> TableDeleted:
    """The refusal at a table deleted from the database while it was held here (404, as at a
    code that never existed)."""
    return TableDeleted("table_not_found", "This table was deleted.", 404, {"deleted": True})


def first_line(error: BaseException) -> str:
    """An error in one line, for a log that must not fill with tracebacks during an outage: the
    database's own words when the error comes from its failure."""
    cause = error.__cause__ if isinstance(error, ServiceError) else None
    if cause is not None:
        error = cause
    text = str(error).strip() or type(error).__name__
    return text.splitlines()[0][:300]


def busy() -> ServiceError:
    """The refusal when a table kept changing under an action in other processes."""
    return ServiceError("busy", "The table is very busy right now; please try again.", 503)


def _take_up(_table: LiveTable) -> None:
    pass


async def _nothing_follows(_table: LiveTable) -> None:
    pass


class TableBook:
    """The tables of one process and their commit path. Whoever changes a table holds its lock
    from the check to the broadcast, so actions at one table are applied one at a time, in
    order; across processes the database's version check keeps them in order."""

    def __init__(
        self,
        storage: Storage,
        writer: Writer,
        bus: Bus,
        publish: Publisher,
        *,
        after_change: AfterChange = _nothing_follows,
        clock: Callable[[], datetime],
        retry_seconds: float,
    ) -> None:
        self.storage = storage
        self.writer = writer
        self.bus = bus
        self.publish = publish
        self.after_change = after_change
        self.clock = clock
        self.retry_seconds = retry_seconds
        """Pause before a follow-up that could not be stored is tried again."""
        self.tables: dict[str, LiveTable] = {}
        """The tables loaded in this process, by code."""
        self.changed_at: dict[str, float] = {}
        """When each table last changed here (``time.monotonic``), for the watchdog."""
        self.deleted: OrderedDict[str, None] = OrderedDict()
        """The codes of the last :data:`DELETED_KEPT` tables let go as deleted under this
        process (:meth:`forget`): asked for again (the page reloaded), such a code is refused
        as deleted, not as one that never existed, while the database has no table under it."""
        self.shared = not isinstance(bus, LocalBus)
        """Other processes may change the tables too (a real bus is configured)."""
        self.closed = False
        self.load_lock = asyncio.Lock()
        """Held while a table is added to or taken from :attr:`tables`."""
        self.prepare: Callable[[LiveTable], None] = _take_up
        """Told of each table this process takes up (created, or loaded), before anyone sees
        it (the absence part sets its clocks)."""
        self._background: set[asyncio.Task[None]] = set()
        self._reads = ThreadPoolExecutor(4, thread_name_prefix="nimmt-db-read")

    async def read(self, function: Callable[..., T], *args: Any, **keywords: Any) -> T:
        """A database read, in the read threads (never the event loop's default pool); while
        the database cannot be reached, :class:`ServiceError` ``storage_error`` (logged in one
        line)."""
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self._reads, partial(function, *args, **keywords))
        except StorageError as error:
            # Not logged here: the refusal is, once, where it is answered (or retried).
            STORAGE_ERRORS.labels("read").inc()
            raise storage_unavailable() from error

    def spawn(self, coroutine: Coroutine[Any, Any, None], name: str) -> None:
        """Run ``coroutine`` in the background until it ends or the book closes."""
        task = asyncio.create_task(coroutine, name=name)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def stop(self) -> None:
        """Stop the background work: nothing follows a change any more."""
        self.closed = True
        tasks = list(self._background)
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    async def close(self) -> None:
        """Close the writer and the read threads, once nothing changes tables any more (the
        caller closes the bus and the storage)."""
        await self.writer.close()
        self._reads.shutdown(wait=False)

    # ----------------------------------------------------------------- loading

    async def load(self, code: str) -> LiveTable:
        """The live table with that code, loaded from storage the first time it is asked for
        (then its dealer and bots continue); ``table_not_found`` when there is none."""
        # A socket's code is already in its normal form: only another one is normalized.
        normalized = code if code in self.tables else normalize_code(code)
        if normalized is None:
            raise ServiceError("table_not_found", f"There is no table {shown(code)}.", 404)
        table = self.tables.get(normalized)
        if table is not None:
            if table.needs_restore:
                async with table.lock:
                    await self.repair(table)
            return table
        async with self.load_lock:
            table = self.tables.get(normalized)
            if table is not None:
                return table
            record = await self.read(self.storage.load_table, normalized)
            if record is None:
                if normalized in self.deleted:
                    raise table_gone()
                raise ServiceError("table_not_found", f"There is no table {normalized}.", 404)
            table = live_table(record)
            self.prepare(table)
            await self.restore(table, record)
            self.tables[normalized] = table
            await self.bus.subscribe(normalized)
        if not self.shared:  # with several processes, the watchdog moves a stalled table
            async with table.lock:
                await self.follow_up(table)
        return table

    async def store_new(self, make: Callable[[str], TableRecord]) -> str:
        """Store the table ``make`` builds under a fresh code, load it and listen for it on the
        bus; its code. A code another table took meanwhile is tried again with another."""
        for _attempt in range(CREATE_ATTEMPTS):
            record = make(new_code())
            try:
                await self.writer.create_table(record)
            except CodeTakenError:
                continue
            except Exception as error:
                STORAGE_ERRORS.labels("write").inc()
                raise ServiceError(
                    "storage_error", "The server could not save this; please try again.", 503
                ) from error
            async with self.load_lock:
                table = live_table(record)
                self.prepare(table)
                self.tables[record.code] = table
            await self.bus.subscribe(record.code)
            return record.code
        raise ServiceError("busy", "No free table code was found; try again.", 503)

    async def confirm_stored(self, table: LiveTable) -> None:
        """``table_not_found`` when ``table`` is no longer in the database (``nimmt admin
        purge`` deleted it while this process held it): it is let go (:meth:`forget`) before
        anything of it is shown again."""
        if table.gone:
            raise table_gone()
        if await self.read(self.storage.table_version, table.code) is None:
            self.forget(table)
            raise table_gone()

    def forget(self, table: LiveTable) -> None:
        """``table`` was deleted from the database under this process (``nimmt admin purge``
        while people were at it): each listener is told so and its socket closed, as at a code
        that never existed, and nothing more happens here (no bot moves, no retries)."""
        if table.gone:
            return
        table.gone = True
        log.warning("table %s was deleted from the database; letting it go", table.code)
        self.deleted[table.code] = None
        while len(self.deleted) > DELETED_KEPT:
            self.deleted.popitem(last=False)
        for task in table.bot_tasks.values():
            task.cancel()
        table.bot_tasks.clear()
        goodbye = error_message(table_gone())
        for connection in table.connections:
            connection.end(goodbye)
        table.connections.clear()
        if self.tables.get(table.code) is table:
            del self.tables[table.code]
            self.changed_at.pop(table.code, None)
            self.spawn(self.bus.unsubscribe(table.code), f"unsubscribe {table.code}")

    async def restore(self, table: LiveTable, record: TableRecord | None = None) -> None:
        """Rebuild ``table``'s current game from the database (its stored seats, and its actions
        replayed through the engine). Kept events let listeners hear what they missed. A table
        no longer stored is let go (:meth:`forget`): ``table_not_found``."""
        if record is None:
            record = await self.read(self.storage.load_table, table.code)
            if record is None:
                self.forget(table)
                raise table_gone()
        actions = await self.read(self.storage.load_actions, table.code, record.status.game)
        # Actions stored after ``record`` was read belong to a later version: leave them to the
        # next catch-up, or the game would run ahead of the version it is told with.
        actions = [action for action in actions if action.seq <= record.status.version]
        table.seats = list(record.seats)
        table.game_number = record.status.game
        table.last_active_at = record.status.last_active_at
        table.presence.stored = dict(record.away_since)
        table.replay(actions, record.status.version)
        self.changed_at[table.code] = time.monotonic()

    async def repair(self, table: LiveTable) -> None:
        """Rebuild a table (lock held) whose last change could not be stored nor undone because
        the database was away; :class:`ServiceError` ``storage_error`` while it still is."""
        if not table.needs_restore:
            return
        try:
            await self.restore(table)
        except ServiceError:
            raise
        except Exception as error:
            raise storage_unavailable() from error
        table.needs_restore = False
        self.refresh_seats(table)
        self.publish(table)

    async def catch_up(self, table: LiveTable) -> None:
        """Bring ``table`` (lock held) to the database's version, telling the listeners here
        what changed. Incremental when it can be; from scratch otherwise. A table no longer
        stored is let go (:meth:`forget`)."""
        if table.needs_restore:  # it holds a change that was never stored: rebuild it first
            await self.repair(table)
        record = await self.read(self.storage.load_table, table.code)
        if record is None:  # deleted (``nimmt admin purge``) while held here
            self.forget(table)
            return
        # The moments people left, as another process may have stored them.
        table.presence.stored = dict(record.away_since)
        if record.status.version <= table.version:
            return
        seen = table.version
        try:
            for game in range(table.game_number, record.status.game + 1):
                after = table.version if game == table.game_number else 0
                for action in await self.read(self.storage.load_actions, table.code, game, after):
                    if table.version < action.seq <= record.status.version:
                        table.apply(action)
            if table.version != record.status.version:
                raise RuleError("the stored actions do not reach the stored version")
            table.seats = list(record.seats)
            table.last_active_at = record.status.last_active_at
            self.changed_at[table.code] = time.monotonic()
        except RuleError:
            log.warning("table %s: catching up from scratch", table.code)
            await self.restore(table, record)
            missed = table.events_since(seen)
            table.pending_events = list(missed or [])
        self.refresh_seats(table)
        self.publish(table)

    async def unload(self, code: str, table: LiveTable) -> bool:
        """Let go of ``table`` if it is still the one held under ``code`` and nobody listens;
        whether it was let go. It stays stored and is loaded again when someone opens it."""
        async with self.load_lock:
            if self.tables.get(code) is not table or table.connections:
                return False
            del self.tables[code]
            self.changed_at.pop(code, None)
        await self.bus.unsubscribe(code)
        return True

    # ------------------------------------------------------------ the commit path

    @staticmethod
    def action(
        table: LiveTable,
        kind: ActionKind,
        *,
        seat: int | None = None,
        card: int | None = None,
        row: int | None = None,
        data: dict[str, Any] | None = None,
        game: int | None = None,
    ) -> ActionRecord:
        """The table's next action (its next version), of the current game unless ``game``."""
        number = table.game_number if game is None else game
        return ActionRecord(table.version + 1, number, kind, seat, card, row, data)

    async def commit(self, table: LiveTable, action: ActionRecord, *, by_bot: bool = False) -> None:
        """Apply ``action`` (the engine refuses an illegal one, changing nothing), store it,
        then tell this process's listeners and the other processes. If another process stored
        this version first, the table is caught up and :class:`Behind` raised: the caller
        checks its action again. If the database refuses, the table is rebuilt from what was
        stored, so memory never runs ahead of the database."""
        if table.gone:
            raise table_gone()
        before_seat = table.seats[action.seat] if action.seat is not None else None
        table.apply(action)
        # The time of a person's action keeps the table in the lobby and in memory; a deal or a
        # bot's move (None) leaves the stored time as it is.
        acted_at = self.clock() if action.kind in PEOPLE_ACTIONS and not by_bot else None
        status = table.status(acted_at)
        seat = table.seats[action.seat] if action.seat is not None else None
        try:
            await self.writer.append(
                table.code, action, status, seat if seat != before_seat else None
            )
        except VersionConflictError:
            log.info("table %s: version %s taken by another process", table.code, action.seq)
            seen = table.version - 1
            await self.restore(table)
            table.pending_events = list(table.events_since(seen) or [])
            self.refresh_seats(table)
            self.publish(table)
            raise Behind from None
        except TableGoneError:
            self.forget(table)
            raise table_gone() from None
        except Exception as error:
            STORAGE_ERRORS.labels("write").inc()
            table.needs_restore = True
            with contextlib.suppress(ServiceError):
                await self.repair(table)
            raise ServiceError(
                "storage_error", "The server could not save this; please try again.", 503
            ) from error
        if acted_at is not None:
            table.last_active_at = acted_at
        ACTED[action.kind].inc()
        self.applied(table, action)
        await self.bus.publish(table.code, action)

    def applied(self, table: LiveTable, action: ActionRecord) -> None:
        """``action`` is now part of ``table`` (stored here, or by another process): note the
        change, look at the seats again if they changed hands, and tell the listeners: as the
        table's lock is let go when it is held (with whatever follows under it), else now."""
        self.changed_at[table.code] = time.monotonic()
        if action.kind in SEAT_CHANGES:
            self.refresh_seats(table)
        lock = table.lock
        if lock.locked():
            if lock.tell is None:
                lock.tell = partial(self.publish, table)
            lock.news = True
        else:
            self.publish(table)

    async def follow_up(self, table: LiveTable) -> None:
        """The after-change hook, after an action that is already stored and told: if what
        follows cannot be stored now, the action still stands; it is tried again after a
        pause."""
        if table.gone:
            return
        try:
            await self.after_change(table)
        except (ServiceError, Behind):
            if table.gone:
                return  # deleted meanwhile: nothing to retry
            log.error("table %s: the follow-up failed; retrying", table.code)
            self.spawn(self._retry_follow_up(table), f"retry {table.code}")

    async def _retry_follow_up(self, table: LiveTable) -> None:
        await asyncio.sleep(self.retry_seconds)
        if not self.closed and not table.gone:
            async with table.lock:
                try:
                    await self.repair(table)
                except ServiceError:
                    self.spawn(self._retry_follow_up(table), f"retry {table.code}")
                    return
                await self.follow_up(table)

    @staticmethod
    def refresh_seats(table: LiveTable) -> None:
        """After a seat changed hands, a socket whose token no longer holds it watches."""
        for connection in table.connections:
            if connection.seat is not None and connection.token is not None:
                connection.seat = table.seat_of_token(connection.token)


def live_table(record: TableRecord) -> LiveTable:
    """A stored table as this process holds it (its game not yet replayed)."""
    table = (
        LiveTable(record.code, record.created_at, list(record.seats))
        if record.assistant_hash is None
        else AssistedTable(
            record.code, record.created_at, list(record.seats),
            assistant_hash=record.assistant_hash,
        )
    )  # fmt: skip
    table.game_number = record.status.game
    table.last_active_at = record.status.last_active_at
    table.coach = record.coach
    table.away_seconds = record.away_seconds
    table.presence.stored = dict(record.away_since)
    return table
