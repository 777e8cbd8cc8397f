"""The game service of the web table: it knows neither the transport nor the database.

For every action it checks the seat's token and the state version, applies the action through the
rules engine (which refuses anything the rules forbid, changing nothing), stores it through the
:class:`~nimmt.server.storage.Storage` interface, and only then tells each connected seat what that
seat may see: its own :meth:`~nimmt.engine.Game.view` and the events that passed the engine's
:func:`~nimmt.engine.visible_to` filter.

Rules it adds around the engine: the deal is chance, drawn here from the operating system's secure
randomness and stored card by card; a face-down card can be changed until the last player has
chosen; the row choice waits for its player, however long (no timer ever acts); bots act from
their own seat's view, in worker processes (:mod:`nimmt.server.botpool`), and their decisions are
stored like a person's; a person may leave a seat, and only then does a bot take it over.

Several processes may serve the same tables (:mod:`nimmt.server.bus`). The database is the source
of truth: a change is stored under the table's next version (compare-and-set), so two processes
can never both append version 42. A process whose table was behind catches up from the database
and checks the action again. After storing, it tells the other processes through the bus, and
each catches up and tells its own sockets. Bots are moved by the process that made the change
that calls them; if that process dies, a watchdog in any process holding the table's sockets
takes over, and a duplicate bot move is harmless (it is stale, or its seat has chosen already).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import secrets
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from nimmt.assist import InputRejected
from nimmt.bots import BOT_NAMES
from nimmt.engine import Phase, RuleError, SeatView, draw_deal
from nimmt.records import to_record
from nimmt.server import assisted, serialize
from nimmt.server.botpool import BotRunner, InlineBots
from nimmt.server.bus import Bus, LocalBus
from nimmt.server.coach import CoachDesk, CoachRunner, InlineCoach, Question, has_decision
from nimmt.server.errors import ServiceError, rule_error
from nimmt.server.serialize import bot_display_name, error_message
from nimmt.server.storage import (
    ActionRecord,
    CodeTakenError,
    SeatRecord,
    Storage,
    TableRecord,
    TableStatus,
    VersionConflictError,
)
from nimmt.server.table import (
    MAX_SEATS,
    MIN_SEATS,
    Connection,
    LiveTable,
    SeatSpec,
    clean_name,
    hash_token,
    new_code,
    normalize_code,
)

log = logging.getLogger(__name__)
T = TypeVar("T")

BOT_RETRY_SECONDS = 2.0
"""Pause before a bot's move or a deal that could not be stored is tried again."""
DEFAULT_LEAVE_BOT = "medium"
CONFLICT_RETRIES = 5
"""How often an action is checked again after another process changed the table first."""
PERSON_ACTIONS = frozenset(
    {"join", "leave", "play", "retract", "choose_row", "rematch", "rematch_vote"}
) | frozenset(assisted.ACTION_KINDS)


class _Behind(Exception):
    """The table moved on in another process; it has been caught up: check the action again."""


class Writer:
    """The database's write path: one thread of its own, and group commit. Appends that arrive
    while a transaction is being written go together into the next one (one commit, one fsync,
    each append in its own savepoint), so many tables' changes cost one disk flush."""

    def __init__(self, storage: Storage) -> None:
        self.storage = storage
        self._thread = ThreadPoolExecutor(1, thread_name_prefix="nimmt-db-write")
        self._pending: list[tuple[tuple[Any, ...], asyncio.Future[None]]] = []
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

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
        while True:
            await self._wake.wait()
            self._wake.clear()
            batch, self._pending = self._pending, []
            if not batch:
                continue
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
                    results = [error] * len(batch)
            for (_item, future), result in zip(batch, results, strict=True):
                if future.done():
                    continue
                if result is None:
                    future.set_result(None)
                else:
                    future.set_exception(result)

    async def create_table(self, record: TableRecord) -> None:
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(self._thread, self.storage.create_table, record)

    async def close(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        for _item, future in self._pending:
            if not future.done():
                future.set_exception(RuntimeError("the server is stopping"))
        await asyncio.to_thread(self._thread.shutdown)


class GameService:
    """All tables of one server process. Every method that changes a table holds that table's
    lock from the check to the broadcast, so actions at one table are applied one at a time, in
    order; across processes the database's version check keeps them in order."""

    def __init__(
        self,
        storage: Storage,
        *,
        bot_delay: float = 0.0,
        deal_seed: int | None = None,
        bot_names: Sequence[str] = BOT_NAMES,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        retry_seconds: float = BOT_RETRY_SECONDS,
        bots: BotRunner | None = None,
        bus: Bus | None = None,
        idle_seconds: float = 1800.0,
        max_queue: int = 64,
        watchdog_seconds: float = 5.0,
        coach: CoachRunner | None = None,
        bot_hold_file: Path | None = None,
    ) -> None:
        self.storage = storage
        self.retry_seconds = retry_seconds
        self.bot_delay = bot_delay
        self.bot_hold_file = bot_hold_file
        """Test hook: while this file exists, bots wait before moving (see :meth:`_bot_move`)."""
        self.deal_seed = deal_seed
        self.bot_names = tuple(bot_names)
        self.bots: BotRunner = bots if bots is not None else InlineBots()
        self.coach = CoachDesk(coach if coach is not None else InlineCoach())
        self.bus: Bus = bus if bus is not None else LocalBus()
        self.idle_seconds = idle_seconds
        self.max_queue = max_queue
        self.watchdog_seconds = watchdog_seconds
        self._clock = clock
        self._tables: dict[str, LiveTable] = {}
        self._load_lock = asyncio.Lock()
        self._background: set[asyncio.Task[None]] = set()
        self._closed = False
        self._reads = ThreadPoolExecutor(4, thread_name_prefix="nimmt-db-read")
        self.writer = Writer(storage)
        self._changed_at: dict[str, float] = {}
        self._shared = not isinstance(self.bus, LocalBus)
        """Other processes may change the tables too (a real bus is configured)."""

    async def _read(self, function: Callable[..., T], *args: Any) -> T:
        """A database read, in the read threads (never the event loop's default pool)."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._reads, partial(function, *args))

    # ------------------------------------------------------------------ life cycle

    async def start(self) -> None:
        """Start the bus and the housekeeping. A single process also loads every table whose
        game goes on, so that its bots (or the dealer) continue at once; with several processes
        a table is loaded by whichever process is asked for it first."""
        await self.bus.start(self._on_bus_change, self._resync_all)
        self._spawn(self._start_bots(), "bot workers")
        self._spawn(self._start_coach(), "coach worker")
        if not self._shared:
            since = self._clock() - timedelta(seconds=self.idle_seconds)
            for code in await self._read(self.storage.active_codes, since):
                await self._table(code)
        self._spawn(self._housekeeping(), "housekeeping")

    async def _start_bots(self) -> None:
        try:
            await self.bots.start()
        except Exception:
            log.exception("the bot workers did not start; they will be started when needed")

    async def _start_coach(self) -> None:
        try:
            await self.coach.runner.start()
        except Exception:
            log.exception("the coach's worker did not start; it will be started when needed")

    async def close(self) -> None:
        self._closed = True
        tasks = [task for table in self._tables.values() for task in table.bot_tasks.values()]
        tasks += self._background
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        await self.bus.close()
        await self.coach.close()
        await self.bots.close()
        await self.writer.close()
        self._reads.shutdown(wait=False)
        await asyncio.to_thread(self.storage.close)

    def _spawn(self, coroutine: Any, name: str) -> None:
        task = asyncio.create_task(coroutine, name=name)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    async def _housekeeping(self) -> None:
        """Every few seconds: poll the database for the tables held here while the bus is down,
        let a watchdog move bots whose mover died, and let idle tables go."""
        period = max(0.2, min(1.0, self.watchdog_seconds / 4))
        last_sweep = time.monotonic()
        while not self._closed:
            await asyncio.sleep(period)
            try:
                if not self.bus.healthy:
                    await self._poll_versions()
                await self._watchdog()
                if time.monotonic() - last_sweep >= min(60.0, self.idle_seconds / 4):
                    last_sweep = time.monotonic()
                    await self.evict_idle()
            except Exception:
                log.exception("housekeeping failed; trying again")

    # ---------------------------------------------------------------------- tables

    async def create_table(
        self, seats: Sequence[SeatSpec], creator: object = None, *, coach: bool = False
    ) -> str:
        """A new table; its code. The seats are checked here (count, one human, known bots), and
        the ``creator``'s name if one is given, so that a bad name creates no table. ``coach``:
        every seated person may ask the coach (:meth:`ask_coach`)."""
        if creator is not None:
            clean_name(creator)
        if not MIN_SEATS <= len(seats) <= MAX_SEATS:
            raise ServiceError("bad_request", f"A table has {MIN_SEATS} to {MAX_SEATS} seats.", 422)
        records: list[SeatRecord] = []
        for index, spec in enumerate(seats):
            if spec.kind == "human":
                records.append(SeatRecord(index, "human"))
            elif spec.kind == "bot":
                if spec.bot not in self.bot_names:
                    raise ServiceError(
                        "unknown_bot",
                        f"Unknown bot {spec.bot!r}; choose from {', '.join(self.bot_names)}.",
                        422,
                    )
                records.append(
                    SeatRecord(index, "bot", spec.bot, bot_display_name(spec.bot, index))
                )
            else:
                raise ServiceError("bad_request", "A seat is either human or bot.", 422)
        if not any(record.kind == "human" for record in records):
            raise ServiceError("bad_request", "A table needs at least one human seat.", 422)
        created = self._clock()
        return await self._store_new_table(
            lambda code: TableRecord(
                code,
                created,
                tuple(records),
                TableStatus(0, 1, "waiting", 0, False, created),
                coach=coach,
            )
        )

    async def _store_new_table(self, make: Callable[[str], TableRecord]) -> str:
        """Store the table ``make`` builds under a fresh code, load it and listen for it on the
        bus; its code. A code another table took meanwhile is tried again with another."""
        for _attempt in range(20):
            record = make(new_code())
            try:
                await self.writer.create_table(record)
            except CodeTakenError:
                continue
            except Exception as error:
                log.exception("storing the new table %s failed", record.code)
                raise ServiceError(
                    "storage_error", "The server could not save this; please try again.", 503
                ) from error
            async with self._load_lock:
                self._tables[record.code] = self._new_live_table(record)
            await self.bus.subscribe(record.code)
            return record.code
        raise ServiceError("busy", "No free table code was found; try again.", 503)

    async def _table(self, code: str) -> LiveTable:
        """The live table with that code, loaded from storage the first time it is asked for
        (then its dealer and bots continue)."""
        normalized = normalize_code(code)
        if normalized is None:
            raise ServiceError("table_not_found", f"There is no table {code!r}.", 404)
        table = self._tables.get(normalized)
        if table is not None:
            if table.needs_restore:
                async with table.lock:
                    await self._repair(table)
            return table
        async with self._load_lock:
            table = self._tables.get(normalized)
            if table is not None:
                return table
            record = await self._read(self.storage.load_table, normalized)
            if record is None:
                raise ServiceError("table_not_found", f"There is no table {normalized}.", 404)
            table = self._new_live_table(record)
            await self._restore(table, record)
            self._tables[normalized] = table
            await self.bus.subscribe(normalized)
        if not self._shared:  # with several processes, the watchdog moves a stalled table
            async with table.lock:
                await self._follow_up(table)
        return table

    async def _repair(self, table: LiveTable) -> None:
        """Rebuild a table (lock held) whose last change could not be stored nor undone because
        the database was away; :class:`ServiceError` ``storage_error`` while it still is."""
        if not table.needs_restore:
            return
        try:
            await self._restore(table)
        except Exception as error:
            raise ServiceError(
                "storage_error", "The server cannot reach its database; please try again.", 503
            ) from error
        table.needs_restore = False
        self._refresh_seats(table)
        self._publish(table)

    def _new_live_table(self, record: TableRecord) -> LiveTable:
        table = (
            LiveTable(record.code, record.created_at, list(record.seats))
            if record.assistant_hash is None
            else assisted.AssistedTable(
                record.code, record.created_at, list(record.seats),
                assistant_hash=record.assistant_hash,
            )
        )  # fmt: skip
        table.game_number = record.status.game
        table.last_active_at = record.status.last_active_at
        table.coach = record.coach
        return table

    async def _restore(self, table: LiveTable, record: TableRecord | None = None) -> None:
        """Rebuild ``table``'s current game from the database (its stored seats, and its actions
        replayed through the engine). Kept events let listeners hear what they missed."""
        if record is None:
            record = await self._read(self.storage.load_table, table.code)
            if record is None:
                return
        actions = await self._read(self.storage.load_actions, table.code, record.status.game)
        # Actions stored after ``record`` was read belong to a later version: leave them to the
        # next catch-up, or the game would run ahead of the version it is told with.
        actions = [action for action in actions if action.seq <= record.status.version]
        table.seats = list(record.seats)
        table.game_number = record.status.game
        table.last_active_at = record.status.last_active_at
        table.replay(actions, record.status.version)
        self._changed_at[table.code] = time.monotonic()

    async def _catch_up(self, table: LiveTable) -> None:
        """Bring ``table`` (lock held) to the database's version, telling the listeners here
        what changed. Incremental when it can be; from scratch otherwise."""
        if table.needs_restore:  # it holds a change that was never stored: rebuild it first
            await self._repair(table)
        record = await self._read(self.storage.load_table, table.code)
        if record is None or record.status.version <= table.version:
            return
        seen = table.version
        try:
            for game in range(table.game_number, record.status.game + 1):
                after = table.version if game == table.game_number else 0
                for action in await self._read(self.storage.load_actions, table.code, game, after):
                    if table.version < action.seq <= record.status.version:
                        table.apply(action)
            if table.version != record.status.version:
                raise RuleError("the stored actions do not reach the stored version")
            table.seats = list(record.seats)
            table.last_active_at = record.status.last_active_at
            self._changed_at[table.code] = time.monotonic()
        except RuleError:
            log.warning("table %s: catching up from scratch", table.code)
            await self._restore(table, record)
            missed = table.events_since(seen)
            table.pending_events = list(missed or [])
        self._refresh_seats(table)
        self._publish(table)

    def _refresh_seats(self, table: LiveTable) -> None:
        """After a seat changed hands, a socket whose token no longer holds it watches."""
        for connection in table.connections:
            if connection.seat is not None and connection.token is not None:
                connection.seat = table.seat_of_token(connection.token)

    async def list_tables(self, limit: int = 20, cursor: str | None = None) -> dict[str, Any]:
        """Tables open to join or in play, newest first, a page at a time, from the database
        (no table's lock is taken): finished tables and tables nobody acted at for
        ``idle_seconds`` are not listed."""
        since = self._clock() - timedelta(seconds=self.idle_seconds)
        try:
            entries, following = await self._read(
                partial(self.storage.list_open, limit=limit, cursor=cursor, active_since=since)
            )
        except ValueError:
            raise ServiceError("bad_request", "That page cursor is not valid.", 422) from None
        return {
            "tables": [serialize.open_table_entry(entry) for entry in entries],
            "next": following,
        }

    async def summary(self, code: str) -> dict[str, Any]:
        table = await self._table(code)
        async with table.lock:
            return serialize.summary(table)

    async def join(self, code: str, name: object, seat: object = None) -> tuple[int, str]:
        """Give a free human seat to ``name``: the seat and its token (shown only this once)."""
        cleaned = clean_name(name)
        token = secrets.token_urlsafe(24)
        table = await self._table(code)
        for _attempt in range(CONFLICT_RETRIES):
            async with table.lock:
                taken = {other.name.casefold() for other in table.seats if other.name is not None}
                if cleaned.casefold() in taken:
                    raise ServiceError(
                        "bad_name", f"{cleaned!r} is already at this table: choose another name.",
                        422,
                    )  # fmt: skip
                index = self._free_seat(table, seat)
                data = {"name": cleaned, "token_hash": hash_token(token)}
                action = self._action(table, "join", seat=index, data=data)
                try:
                    await self._commit(table, action)
                except _Behind:
                    continue
                await self._follow_up(table)
                return index, token
        raise _busy()

    def _free_seat(self, table: LiveTable, wanted: object) -> int:
        if wanted is None:
            for seat in table.seats:
                if seat.kind == "human" and seat.token_hash is None:
                    return seat.seat
            raise ServiceError("table_full", "Every seat at this table is taken.", 409)
        if isinstance(wanted, bool) or not isinstance(wanted, int):
            raise ServiceError("bad_request", "The seat must be a seat number.", 422)
        if not 0 <= wanted < len(table.seats):
            raise ServiceError("bad_request", f"There is no seat {wanted} at this table.", 422)
        seat = table.seats[wanted]
        if seat.kind == "bot" or seat.token_hash is not None:
            raise ServiceError("seat_taken", f"Seat {wanted} is taken.", 409)
        return wanted

    # -------------------------------------------------------------------- sockets

    def _new_connection(self, table: LiveTable, token: str | None) -> Connection:
        seat = table.seat_of_token(token) if token else None
        return Connection(table.code, token, seat, max_queue=self.max_queue)

    async def connect(self, code: str, token: str | None, since: int | None = None) -> Connection:
        """A listener at the table. It is sent what it missed since version ``since`` (when the
        table still keeps those events), then the current state. A wrong token is told
        ``bad_token`` and listens as a spectator."""
        table = await self._table(code)
        async with table.lock:
            if self._shared:
                await self._catch_up(table)
            connection = self._new_connection(table, token)
            if token and connection.seat is None and not table.knows_token(token):
                connection.send(
                    error_message(
                        ServiceError(
                            "bad_token", "This token holds no seat here: you are watching."
                        )
                    )
                )
            if since is not None:
                missed = table.events_since(since)
                message = serialize.events_message(missed or [], table.version, connection.seat)
                if message is not None:
                    connection.send(message)
            seat = connection.seat
            newly_present = seat is not None and all(c.seat != seat for c in table.connections)
            table.connections.add(connection)
            if newly_present:
                self._publish(table)  # everybody sees the seat come back
            else:
                connection.send(serialize.state_message(table, seat))
            return connection

    async def disconnect(self, connection: Connection) -> None:
        table = self._tables.get(connection.code)
        if table is None:
            return
        async with table.lock:
            table.connections.discard(connection)
            seat = connection.seat
            if seat is not None and all(c.seat != seat for c in table.connections):
                self._publish(table)

    async def fresh_state(self, connection: Connection) -> dict[str, Any] | None:
        """The current ``state`` for a connection whose queue overflowed."""
        table = self._tables.get(connection.code)
        if table is None or table.needs_restore:
            return None  # (the repair sends every listener the stored state)
        return serialize.state_message(table, connection.seat)

    # -------------------------------------------------------------------- actions

    async def act(
        self,
        code: str,
        token: str | None,
        kind: str,
        *,
        card: int | None = None,
        row: int | None = None,
        version: int | None = None,
        bot: str | None = None,
        agree: bool = True,
    ) -> None:
        """A person's action (``play``, ``retract``, ``choose_row``, ``rematch``, ``leave``);
        ``rematch`` is a vote: ``agree`` False takes the agreement back."""
        table = await self._table(code)
        for _attempt in range(CONFLICT_RETRIES):
            async with table.lock:
                if not token:
                    raise ServiceError(
                        "not_seated", "Spectators cannot play: take a seat first.", 403
                    )
                seat = table.seat_of_token(token)
                if seat is None:
                    raise ServiceError("bad_token", "This token holds no seat at this table.", 403)
                try:
                    await self._act_locked(
                        table, seat, kind, card=card, row=row, version=version, bot=bot,
                        agree=agree,
                    )  # fmt: skip
                except _Behind:
                    continue
                return
        raise _busy()

    async def _act_locked(
        self,
        table: LiveTable,
        seat: int,
        kind: str,
        *,
        card: int | None = None,
        row: int | None = None,
        version: int | None = None,
        bot: str | None = None,
        agree: bool = True,
    ) -> None:
        if version is not None and not table.decision_version <= version <= table.version:
            raise ServiceError(
                "stale_version",
                f"The table has moved on (version {table.version}); look again and retry.",
                409,
            )
        if kind == "leave":
            await self._leave(table, seat, bot)
            return
        if kind == "rematch" and table.finished:
            await self._vote_rematch(table, seat, agree)
            return
        if not table.full:
            raise ServiceError(
                "waiting_for_players", "Not all seats are taken yet: no cards are dealt.", 409
            )
        if kind == "rematch":
            raise ServiceError("wrong_phase", "A rematch can start only after game over.", 409)
        if (kind == "play" and card is None) or (kind == "choose_row" and row is None):
            raise ServiceError("malformed", f"A {kind} needs its card or row.", 422)
        if (
            kind == "play"
            and table.game.phase is Phase.CHOOSING_CARDS
            and table.game.view(seat).chosen_card == card
        ):
            return  # choosing the card already chosen changes nothing
        action = self._action(table, kind, seat=seat, card=card, row=row)
        try:
            await self._commit(table, action)
        except RuleError as error:
            raise rule_error(error) from None
        await self._follow_up(table)

    async def _vote_rematch(self, table: LiveTable, seat: int, agree: bool) -> None:
        """After game over, ``seat`` agrees to play again (or takes it back): stored as a
        ``rematch_vote``; the new game starts with the last person's agreement."""
        if (seat in table.rematch_votes) != agree:
            data = {"agree": agree}
            await self._commit(table, self._action(table, "rematch_vote", seat=seat, data=data))
        await self._rematch_if_agreed(table)

    async def _rematch_if_agreed(self, table: LiveTable) -> None:
        """Start the next game once every person seated agreed (bots always agree)."""
        if table.rematch_agreed:
            await self._commit(table, self._action(table, "rematch", game=table.game_number + 1))
            await self._follow_up(table)

    async def _leave(self, table: LiveTable, seat: int, bot: str | None) -> None:
        """The person at ``seat`` leaves: before the first deal the seat is free again; during a
        game the bot they chose plays it from now on (never without this explicit action)."""
        if table.full and not table.finished:
            chosen = bot if bot is not None else DEFAULT_LEAVE_BOT
            if chosen not in self.bot_names:
                raise ServiceError(
                    "unknown_bot",
                    f"Unknown bot {chosen!r}; choose from {', '.join(self.bot_names)}.",
                    422,
                )
            data: dict[str, Any] = {"bot": chosen}
        else:
            data = {"bot": None}
        await self._commit(table, self._action(table, "leave", seat=seat, data=data))
        await self._follow_up(table)
        # The others may all have agreed to play again and waited for this person only.
        await self._rematch_if_agreed(table)

    async def rematch(self, code: str, token: object, agree: bool = True) -> dict[str, Any]:
        """The HTTP twin of the socket's ``rematch`` vote: the current game's number (the new
        one once everybody agreed) and the table's ``rematch`` summary (``None`` once the new
        game started)."""
        if not isinstance(token, str) or not token:
            raise ServiceError("bad_token", "This token holds no seat at this table.", 403)
        await self.act(code, token, "rematch", agree=agree)
        table = await self._table(code)
        async with table.lock:
            summary = serialize.summary(table)
        return {"game": summary["game"], "rematch": summary["rematch"]}

    async def leave(self, code: str, token: object, bot: str | None = None) -> None:
        """The HTTP twin of the socket's ``leave``."""
        if not isinstance(token, str) or not token:
            raise ServiceError("bad_token", "This token holds no seat at this table.", 403)
        await self.act(code, token, "leave", bot=bot)

    # ------------------------------------------------------------ assisted tables

    async def create_assisted_table(self, names: object) -> tuple[str, str]:
        """A game played with real cards by ``names`` (:mod:`nimmt.server.assisted`): its code
        and the token that enters its cards (shown only this once)."""
        cleaned = assisted.check_names(names)
        token = secrets.token_urlsafe(24)
        seats = tuple(SeatRecord(seat, assisted.SEAT_KIND, None, name)
                      for seat, name in enumerate(cleaned))  # fmt: skip
        created = self._clock()
        code = await self._store_new_table(
            lambda code: TableRecord(
                code,
                created,
                seats,
                TableStatus(0, 1, "dealing", 0, False, created),
                assistant_hash=hash_token(token),
            )
        )
        return code, token

    async def assist(
        self,
        code: str,
        token: str | None,
        kind: str,
        *,
        cards: list[int] | None = None,
        row: int | None = None,
        version: int | None = None,
    ) -> None:
        """An entry at an assisted table (``rows``, ``turn``, ``row``, ``undo``), by the token
        that created it; refused with a clear error, changing nothing, when it cannot be."""
        table = await self._table(code)
        if not isinstance(table, assisted.AssistedTable):
            raise ServiceError("not_assisted", "This table is played online, not entered.", 409)
        for _attempt in range(CONFLICT_RETRIES):
            async with table.lock:
                if not token or not table.knows_token(token):
                    raise ServiceError(
                        "not_assistant", "Only the device that started this game enters it.", 403
                    )
                if version is not None and version != table.version:
                    raise ServiceError(
                        "stale_version",
                        f"The table has moved on (version {table.version}); look again and retry.",
                        409,
                    )
                data = {"cards": cards} if cards is not None else None
                action = self._action(table, kind, row=row, data=data)
                try:
                    await self._commit(table, action)
                except InputRejected as error:
                    raise assisted.refusal(error) from None
                except _Behind:
                    continue
                return
        raise _busy()

    def _action(
        self,
        table: LiveTable,
        kind: str,
        *,
        seat: int | None = None,
        card: int | None = None,
        row: int | None = None,
        data: dict[str, Any] | None = None,
        game: int | None = None,
    ) -> ActionRecord:
        number = table.game_number if game is None else game
        return ActionRecord(table.version + 1, number, kind, seat, card, row, data)

    async def _commit(
        self, table: LiveTable, action: ActionRecord, *, by_bot: bool = False
    ) -> None:
        """Apply ``action`` (the engine refuses an illegal one, changing nothing), store it,
        then tell this process's listeners and the other processes. If another process stored
        this version first, the table is caught up and :class:`_Behind` raised: the caller
        checks its action again. If the database refuses, the table is rebuilt from what was
        stored, so memory never runs ahead of the database."""
        before_seat = table.seats[action.seat] if action.seat is not None else None
        table.apply(action)
        # The time of a person's action keeps the table in the lobby and in memory; a deal or a
        # bot's move (None) leaves the stored time as it is.
        acted_at = self._clock() if action.kind in PERSON_ACTIONS and not by_bot else None
        status = replace(table.status(), last_active_at=acted_at)
        seat = table.seats[action.seat] if action.seat is not None else None
        try:
            await self.writer.append(
                table.code, action, status, seat if seat != before_seat else None
            )
        except VersionConflictError:
            log.info("table %s: version %s taken by another process", table.code, action.seq)
            seen = table.version - 1
            await self._restore(table)
            table.pending_events = list(table.events_since(seen) or [])
            self._refresh_seats(table)
            self._publish(table)
            raise _Behind from None
        except Exception as error:
            log.exception("storing %s at table %s failed", action.kind, table.code)
            table.needs_restore = True
            with contextlib.suppress(ServiceError):
                await self._repair(table)
            raise ServiceError(
                "storage_error", "The server could not save this; please try again.", 503
            ) from error
        if acted_at is not None:
            table.last_active_at = acted_at
        self._changed_at[table.code] = time.monotonic()
        if action.kind in ("join", "leave"):
            self._refresh_seats(table)
        self._publish(table)
        await self.bus.publish(table.code, action)

    async def _follow_up(self, table: LiveTable) -> None:
        """:meth:`_advance` after an action that is already stored and told: if the deal cannot
        be stored now, the action still stands; the deal is tried again after a pause."""
        try:
            await self._advance(table)
        except (ServiceError, _Behind):
            log.error("table %s: the follow-up failed; retrying", table.code)
            self._spawn(self._retry_follow_up(table), f"retry {table.code}")

    async def _retry_follow_up(self, table: LiveTable) -> None:
        await asyncio.sleep(self.retry_seconds)
        if not self._closed:
            async with table.lock:
                try:
                    await self._repair(table)
                except ServiceError:
                    self._spawn(self._retry_follow_up(table), f"retry {table.code}")
                    return
                await self._follow_up(table)

    async def _advance(self, table: LiveTable) -> None:
        """What follows by itself: the deal of a new round, then the bots' moves."""
        while table.full and table.has_people and table.game.phase is Phase.DEALING:
            rng = self._rng(table.code, "deal", table.game_number, table.game.round + 1)
            rows, hands = draw_deal(rng, len(table.seats))
            action = self._action(table, "deal", data={"rows": rows, "hands": hands})
            await self._commit(table, action)
        self._schedule_bots(table)

    def _seed(self, code: str, *purpose: object) -> int:
        """A seed for a bot's decision: secure randomness, or fixed by the deal seed (tests)."""
        if self.deal_seed is None:
            return secrets.randbits(63)
        return self._rng(code, *purpose).randrange(2**63)

    def _rng(self, code: str, *purpose: object) -> random.Random:
        """Secure randomness for deals and bots; a fixed one when a deal seed is set (tests)."""
        if self.deal_seed is None:
            return random.Random(secrets.randbits(256))
        # The seed alone (not the random table code) fixes the deals: same seed, same games.
        return random.Random("/".join(str(part) for part in (self.deal_seed, *purpose)))

    # ----------------------------------------------------------------------- bots

    def _schedule_bots(self, table: LiveTable) -> None:
        if self._closed or not table.full or not table.has_people:
            return
        if table.game.phase not in (Phase.CHOOSING_CARDS, Phase.CHOOSING_ROW):
            return
        for seat in table.game.waiting_for():
            bot = table.seats[seat].bot
            if bot is not None and seat not in table.bot_tasks:
                view = table.game.view(seat)
                table.bot_tasks[seat] = asyncio.create_task(
                    self._bot_move(table, seat, bot, view, table.version),
                    name=f"bot {table.code}/{seat}",
                )

    async def _bot_move(
        self, table: LiveTable, seat: int, bot: str, view: SeatView, version: int
    ) -> None:
        """Let the bot of ``seat`` decide from its own view (in a worker process: a strong bot
        thinks for a while) and play it like a person, version check included."""
        try:
            if self.bot_delay:
                await asyncio.sleep(self.bot_delay)
            if self.bot_hold_file is not None:
                # Test hook: a test holds the move by a file, not by a delay that a busy machine
                # can outlast (the multiprocess test kills this process while the move waits).
                while self.bot_hold_file.exists():
                    await asyncio.sleep(0.05)
            seed = self._seed(table.code, "bot", seat, version)
            choice = await self.bots.decide(bot, seed, view)
            kind, card, row = (
                ("choose_row", None, choice) if view.must_choose_row else ("play", choice, None)
            )
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("bot at table %s seat %s failed", table.code, seat)
            kind, card, row = _fallback(view)
        retry = False
        async with table.lock:
            table.bot_tasks.pop(seat, None)
            try:
                await self._repair(table)
            except ServiceError:
                retry = True
            if not retry and not self._still_waiting_for(table, seat, version):
                self._schedule_bots(table)
                return
            try:
                if not retry:
                    await self._bot_act(table, seat, kind, card, row)
            except ServiceError as error:
                if error.code == "storage_error":
                    log.error("bot move at table %s not stored; will retry", table.code)
                    retry = True
                else:
                    # A bot broke a rule: play a legal move for it rather than stall the table.
                    log.error("bot at table %s seat %s: %s", table.code, seat, error.message)
                    kind, card, row = _fallback(view)
                    try:
                        await self._bot_act(table, seat, kind, card, row)
                    except ServiceError:
                        retry = True
            except _Behind:
                pass  # caught up: another process moved; decide again below if still needed
            if not retry:
                self._schedule_bots(table)
        if retry:
            # Not at once: a database that is down, or a broken bot, must not spin the server.
            await asyncio.sleep(self.retry_seconds)
            async with table.lock:
                self._schedule_bots(table)

    @staticmethod
    def _still_waiting_for(table: LiveTable, seat: int, version: int) -> bool:
        """The bot's decision is still wanted: its seat is still a bot that the table waits
        for, at the same decision (a duplicate move from another process is dropped)."""
        return (
            table.seats[seat].kind == "bot"
            and seat in table.game.waiting_for()
            and table.decision_version <= version <= table.version
        )

    async def _bot_act(
        self, table: LiveTable, seat: int, kind: str, card: int | None, row: int | None
    ) -> None:
        """The bot's move, stored like a person's (its decision was checked to be still
        wanted, :meth:`_still_waiting_for`)."""
        action = self._action(table, kind, seat=seat, card=card, row=row)
        try:
            await self._commit(table, action, by_bot=True)
        except RuleError as error:
            raise rule_error(error) from None
        await self._follow_up(table)

    # ------------------------------------------------------------------ housekeeping

    async def _on_bus_change(self, code: str, version: int, action: ActionRecord | None) -> None:
        """Another process stored ``version`` of table ``code`` (``action``, when the message
        carried it): apply it, or catch up from the database, if the table is held here."""
        table = self._tables.get(code)
        if table is None or (version <= table.version and not table.needs_restore):
            return
        self._spawn(self._follow_other(table, action), f"catch up {code}")

    async def _follow_other(self, table: LiveTable, action: ActionRecord | None) -> None:
        async with table.lock:
            if (
                action is not None
                and action.seq == table.version + 1
                and not table.needs_restore
                and (action.game == table.game_number or action.kind == "rematch")
            ):
                try:
                    table.apply(action)
                except RuleError:
                    log.warning("table %s: a change from the bus does not apply", table.code)
                else:
                    self._changed_at[table.code] = time.monotonic()
                    if action.kind in ("join", "leave"):
                        self._refresh_seats(table)
                    self._publish(table)
                    return
            try:
                await self._catch_up(table)
            except Exception:
                log.exception("table %s: catching up failed; the next change or poll retries",
                              table.code)  # fmt: skip

    async def _locked_catch_up(self, table: LiveTable) -> None:
        async with table.lock:
            try:
                await self._catch_up(table)
            except Exception:
                log.exception("table %s: catching up failed; the next poll retries", table.code)

    async def _resync_all(self) -> None:
        """The bus is back after a gap: every table held here may have missed changes."""
        for table in list(self._tables.values()):
            await self._locked_catch_up(table)

    async def _poll_versions(self) -> None:
        """While the bus is down: the database's versions of the tables held here, in one
        query, and a catch-up for each table that moved."""
        if not self._tables:
            return
        stored = await self._read(self.storage.versions, list(self._tables))
        for code, version in stored.items():
            table = self._tables.get(code)
            if table is not None and (version > table.version or table.needs_restore):
                await self._locked_catch_up(table)

    async def _watchdog(self) -> None:
        """A table that waits for its dealer or a bot, with nothing happening here for a while,
        lost the process that was moving it: move it from here."""
        now = time.monotonic()
        patience = self.watchdog_seconds + self.bot_delay
        for table in list(self._tables.values()):
            if table.bot_tasks or not table.connections or table.lock.locked():
                continue
            if not table.has_people:  # nothing deals or moves there by itself
                continue
            if now - self._changed_at.get(table.code, now) < patience:
                continue
            game = table.game
            waiting_for_bot = any(table.seats[seat].bot for seat in game.waiting_for())
            if not (game.phase is Phase.DEALING and table.full) and not waiting_for_bot:
                continue
            async with table.lock:
                self._changed_at[table.code] = time.monotonic()
                await self._catch_up(table)
                await self._follow_up(table)

    async def evict_idle(self) -> list[str]:
        """Let go of the tables nobody is at: no socket, no bot thinking, and no person's action
        for ``idle_seconds``. They stay stored and are loaded again when someone opens them."""
        limit = self._clock() - timedelta(seconds=self.idle_seconds)
        evicted = []
        for code, table in list(self._tables.items()):
            if table.connections or table.bot_tasks or table.lock.locked():
                continue
            if table.last_active_at is not None and table.last_active_at > limit:
                continue
            async with self._load_lock:
                if self._tables.get(code) is table and not table.connections:
                    del self._tables[code]
                    self._changed_at.pop(code, None)
                    evicted.append(code)
            await self.bus.unsubscribe(code)
        return evicted

    # ----------------------------------------------------------------- messages

    def _publish(self, table: LiveTable) -> None:
        """Send each listener the new events it may see, then its own state."""
        if table.needs_restore:
            # It holds a change the database refused: nothing of it may be told. The repair
            # publishes the stored table.
            return
        events = table.take_events()
        shared = serialize.summary(table)
        for connection in table.connections:
            message = serialize.events_message(events, table.version, connection.seat)
            if message is not None:
                connection.send(message)
            connection.send(serialize.state_message(table, connection.seat, shared))

    # --------------------------------------------------------------------- coach

    async def ask_coach(self, connection: Connection, request_id: Any = None) -> None:
        """A seated person asks the coach about their current decision. Refusals are raised
        at once (:class:`ServiceError`); the answer, or a later refusal, is sent to this
        connection alone when the coach is done (docs/protocol.md, "coach"). The coach sees
        that seat's view only, and thinks apart from the table's bots."""
        table = await self._table(connection.code)
        async with table.lock:
            self._coach_question(table, connection)  # refuses now what it can

        async def snapshot() -> Question | None:
            async with table.lock:
                if connection not in table.connections:
                    return None  # gone: nobody to answer
                return self._coach_question(table, connection)

        def reply(answer: dict[str, Any] | ServiceError) -> None:
            if isinstance(answer, ServiceError):
                connection.send(error_message(answer, request_id))
            else:
                connection.send({"type": "coach", **answer, "request_id": request_id})

        self.coach.ask(table.code, connection, snapshot, reply)

    def _coach_question(self, table: LiveTable, connection: Connection) -> Question:
        """What the coach is to analyse for ``connection`` now (table lock held), or why not."""
        seat = connection.seat
        if seat is None:
            raise ServiceError("not_seated", "Only a seated player can ask the coach.", 403)
        if not table.coach:
            raise ServiceError("coach_off", "The coach is not allowed at this table.", 403)
        view = table.game.view(seat)
        if not table.full or not has_decision(view):
            raise ServiceError(
                "no_decision", "The coach has nothing to score: you have no card or row to "
                "choose now.", 409,
            )  # fmt: skip
        key = (table.code, table.game_number, seat, table.version)
        seed = self._seed(table.code, "coach", table.game_number, seat, table.version)
        return Question(key, view, table.version, seed)

    async def game_analysis(
        self, code: str, seat: object, game: int | None = None
    ) -> dict[str, Any]:
        """Every decision of ``seat`` in a finished game of the table, scored by the coach as
        ``nimmt analyze --json`` does (computed once, then remembered). A game still being
        played is refused (``game_not_finished``): its record holds every hand."""
        table = await self._table(code)
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < len(table.seats):
            raise ServiceError(
                "bad_request", f"There is no seat {seat!r} at this table "
                f"(seats 0 to {len(table.seats) - 1}).", 422,
            )  # fmt: skip
        number = table.game_number if game is None else game
        key = (table.code, number, seat)
        known = self.coach.reviewed(key)
        if known is not None:
            return known
        record = await self.record(table.code, number)  # refuses a game still being played
        return await self.coach.review(key, record, seat)

    # ------------------------------------------------------------------- records

    async def record(self, code: str, game: int | None = None) -> dict[str, Any]:
        """The game record of a finished game at the table (default: the current one)."""
        table = await self._table(code)
        async with table.lock:
            number = table.game_number if game is None else game
            if not 1 <= number <= table.game_number:
                raise ServiceError(
                    "game_not_found", f"Table {table.code} has no game {number}.", 404
                )
            if isinstance(table, assisted.AssistedTable):
                if number != 1:
                    raise ServiceError(
                        "game_not_found", f"Table {table.code} has no game {number}.", 404
                    )
                return table.record()  # nothing is hidden at a real table: at any time
            names = [seat.name or f"Seat {seat.seat + 1}" for seat in table.seats]
            played = table.game
            if number != table.game_number:
                actions = await self._read(self.storage.load_actions, table.code, number)
                earlier = LiveTable(table.code, table.created_at, list(table.seats))
                earlier.replay(actions, table.version)
                played = earlier.game
            if played.phase is not Phase.GAME_OVER:
                raise ServiceError(
                    "game_not_finished",
                    "The record is given once the game is over: it shows every hand.",
                    409,
                )
            meta = {
                "table": table.code,
                "game": number,
                "bots": {str(seat.seat): seat.bot for seat in table.seats if seat.bot},
            }
            return to_record(played, names, meta)


def _busy() -> ServiceError:
    return ServiceError("busy", "The table is very busy right now; please try again.", 503)


def _fallback(view: SeatView) -> tuple[str, int | None, int | None]:
    if view.must_choose_row:
        return "choose_row", None, 0
    legal = view.legal_cards()
    return "play", legal[0] if legal else None, None
