"""The game service of the web table: it knows neither the transport nor the database.

For every action it checks the seat's token and the state version, applies the action through the
rules engine (which refuses anything the rules forbid, changing nothing), stores it through the
:class:`~nimmt.server.storage.Storage` interface, and only then tells each connected seat what that
seat may see: its own :meth:`~nimmt.engine.Game.view` and the events that passed the engine's
:func:`~nimmt.engine.visible_to` filter.

Rules it adds around the engine (RULES.md): the deal is chance, drawn here from the operating
system's secure randomness and stored card by card; a face-down card can be changed until the
last player has chosen; the row choice waits for its player, however long (no timer ever acts);
bots act server-side from their own seat's view, off the event loop, and their decisions are
stored like a person's. A table is rebuilt after a restart by replaying its stored deals and
actions through the engine.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import secrets
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from nimmt.bots import BOT_NAMES, make_bot
from nimmt.engine import Game, Phase, RuleError, SeatView, deal_cards
from nimmt.records import to_record
from nimmt.server import serialize
from nimmt.server.errors import ServiceError, rule_error
from nimmt.server.serialize import RematchStarted, error_message
from nimmt.server.storage import (
    ActionRecord,
    CodeTakenError,
    SeatRecord,
    Storage,
    TableRecord,
    TableStatus,
)
from nimmt.server.table import (
    MAX_SEATS,
    MIN_SEATS,
    Connection,
    LiveTable,
    SeatSpec,
    apply_to_game,
    bot_display_name,
    clean_name,
    hash_token,
    new_code,
    normalize_code,
)

log = logging.getLogger(__name__)

BOT_RETRY_SECONDS = 2.0
"""Pause before a bot's move or a deal that could not be stored is tried again."""


class GameService:
    """All tables of one server. Every method that changes a table holds that table's lock from
    the check to the broadcast, so actions at one table are applied one at a time, in order."""

    def __init__(
        self,
        storage: Storage,
        *,
        bot_delay: float = 0.0,
        deal_seed: int | None = None,
        bot_names: Sequence[str] = BOT_NAMES,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        retry_seconds: float = BOT_RETRY_SECONDS,
    ) -> None:
        self.storage = storage
        self.retry_seconds = retry_seconds
        self.bot_delay = bot_delay
        self.deal_seed = deal_seed
        self.bot_names = tuple(bot_names)
        self._clock = clock
        self._tables: dict[str, LiveTable] = {}
        self._load_lock = asyncio.Lock()
        self._background: set[asyncio.Task[None]] = set()
        self._closed = False

    # ------------------------------------------------------------------ life cycle

    async def start(self) -> None:
        """Load every table whose game goes on, and let its bots (or the dealer) continue."""
        codes = await asyncio.to_thread(self.storage.unfinished_codes)
        for code in codes:
            table = await self._table(code)
            async with table.lock:
                await self._follow_up(table)

    async def close(self) -> None:
        self._closed = True
        tasks = [task for table in self._tables.values() for task in table.bot_tasks.values()]
        tasks += self._background
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        await asyncio.to_thread(self.storage.close)

    # ---------------------------------------------------------------------- tables

    async def create_table(self, seats: Sequence[SeatSpec], creator: object = None) -> str:
        """A new table; its code. The seats are checked here (count, one human, known bots), and
        the ``creator``'s name if one is given, so that a bad name creates no table."""
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
        for _attempt in range(20):
            code = new_code()
            record = TableRecord(
                code, created, tuple(records), TableStatus(0, 1, "waiting", 0, False)
            )
            try:
                await asyncio.to_thread(self.storage.create_table, record)
            except CodeTakenError:
                continue
            except Exception as error:
                log.exception("storing the new table %s failed", code)
                raise ServiceError(
                    "storage_error", "The server could not save this; please try again.", 503
                ) from error
            async with self._load_lock:
                self._tables[code] = self._new_live_table(record)
            return code
        raise ServiceError("busy", "No free table code was found; try again.", 503)

    def _new_live_table(self, record: TableRecord) -> LiveTable:
        table = LiveTable(record.code, record.created_at, list(record.seats))
        for seat in record.seats:
            if seat.kind == "bot" and seat.bot is not None:
                table.bots[seat.seat] = make_bot(seat.bot, self._rng(record.code, "bot", seat.seat))
        return table

    async def _table(self, code: str) -> LiveTable:
        """The live table with that code, loaded from storage the first time it is asked for."""
        normalized = normalize_code(code)
        if normalized is None:
            raise ServiceError("table_not_found", f"There is no table {code!r}.", 404)
        table = self._tables.get(normalized)
        if table is not None:
            return table
        async with self._load_lock:
            table = self._tables.get(normalized)
            if table is None:
                table = await self._load(normalized)
                if table is None:
                    raise ServiceError("table_not_found", f"There is no table {normalized}.", 404)
                self._tables[normalized] = table
            return table

    async def _load(self, code: str) -> LiveTable | None:
        record = await asyncio.to_thread(self.storage.load_table, code)
        if record is None:
            return None
        table = self._new_live_table(record)
        await self._restore(table, record)
        return table

    async def _restore(self, table: LiveTable, record: TableRecord) -> None:
        """Rebuild ``table``'s current game by replaying its stored actions through the engine."""
        actions = await asyncio.to_thread(self.storage.load_actions, table.code, record.status.game)
        table.seats = list(record.seats)
        table.game_number = record.status.game
        table.replay(actions, record.status.version)

    async def list_tables(self) -> list[dict[str, Any]]:
        """Tables open to join or in play (finished ones are not listed), newest first."""
        rows = []
        for table in list(self._tables.values()):
            async with table.lock:
                if not table.finished:
                    rows.append((table.created_at, serialize.open_table(table)))
        rows.sort(key=lambda row: row[0], reverse=True)
        return [row[1] for row in rows]

    async def summary(self, code: str) -> dict[str, Any]:
        table = await self._table(code)
        async with table.lock:
            return serialize.summary(table)

    async def join(self, code: str, name: object, seat: object = None) -> tuple[int, str]:
        """Give a free human seat to ``name``: the seat and its token (shown only this once)."""
        table = await self._table(code)
        async with table.lock:
            cleaned = clean_name(name)
            taken_names = {other.name.casefold() for other in table.seats if other.name is not None}
            if cleaned.casefold() in taken_names:
                raise ServiceError(
                    "bad_name", f"{cleaned!r} is already at this table: choose another name.", 422
                )
            index = self._free_seat(table, seat)
            token = secrets.token_urlsafe(24)
            updated = replace(table.seats[index], name=cleaned, token_hash=hash_token(token))
            table.seats[index] = updated
            table.version += 1
            action = ActionRecord(
                table.version, table.game_number, "join", seat=index, data={"name": cleaned}
            )
            table.note_change()
            await self._store(table, action, seat=updated)
            self._publish(table)
            await self._follow_up(table)
            return index, token

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

    async def connect(self, code: str, token: str | None) -> Connection:
        """A listener at the table; it is sent the current state at once. A wrong token is told
        ``bad_token`` and listens as a spectator."""
        table = await self._table(code)
        async with table.lock:
            seat = table.seat_of_token(token) if token else None
            connection = Connection(table.code, token, seat)
            if token and seat is None:
                connection.send(
                    error_message(
                        ServiceError(
                            "bad_token", "This token holds no seat here: you are watching."
                        )
                    )
                )
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
    ) -> None:
        """A person's action (``play``, ``retract``, ``choose_row``, ``rematch``)."""
        table = await self._table(code)
        async with table.lock:
            if not token:
                raise ServiceError("not_seated", "Spectators cannot play: take a seat first.", 403)
            seat = table.seat_of_token(token)
            if seat is None:
                raise ServiceError("bad_token", "This token holds no seat at this table.", 403)
            await self._act_locked(table, seat, kind, card=card, row=row, version=version)

    async def _act_locked(
        self,
        table: LiveTable,
        seat: int,
        kind: str,
        *,
        card: int | None = None,
        row: int | None = None,
        version: int | None = None,
    ) -> None:
        if version is not None and not table.decision_version <= version <= table.version:
            raise ServiceError(
                "stale_version",
                f"The table has moved on (version {table.version}); look again and retry.",
                409,
            )
        if not table.full:
            raise ServiceError(
                "waiting_for_players", "Not all seats are taken yet: no cards are dealt.", 409
            )
        if kind == "rematch":
            await self._rematch(table)
            return
        if (kind == "play" and card is None) or (kind == "choose_row" and row is None):
            raise ServiceError("malformed", f"A {kind} needs its card or row.", 422)
        action = ActionRecord(table.version + 1, table.game_number, kind, seat, card, row)
        if (
            kind == "play"
            and table.game.phase is Phase.CHOOSING_CARDS
            and table.game.view(seat).chosen_card == card
        ):
            return  # choosing the card already chosen changes nothing
        try:
            apply_to_game(table.game, action)
        except RuleError as error:
            raise rule_error(error, card=card) from None
        table.version = action.seq
        table.note_change()
        await self._store(table, action)
        self._publish(table)
        await self._follow_up(table)

    async def rematch(self, code: str, token: object) -> int:
        """The HTTP twin of the socket's ``rematch``: the new game's number."""
        table = await self._table(code)
        async with table.lock:
            seat = table.seat_of_token(token) if isinstance(token, str) and token else None
            if seat is None:
                raise ServiceError("bad_token", "This token holds no seat at this table.", 403)
            await self._rematch(table)
            return table.game_number

    async def _rematch(self, table: LiveTable) -> None:
        if not table.finished:
            raise ServiceError("wrong_phase", "A rematch can start only after game over.", 409)
        table.game_number += 1
        table.game = Game(len(table.seats))
        table.events_seen = 0
        table.version += 1
        table.pending_events.append(RematchStarted(table.game_number))
        table.note_change()
        await self._store(table, ActionRecord(table.version, table.game_number, "rematch"))
        self._publish(table)
        await self._follow_up(table)

    async def _follow_up(self, table: LiveTable) -> None:
        """:meth:`_advance` after an action that is already stored and told: if the deal cannot
        be stored now, the action still stands; the deal is tried again after a pause."""
        try:
            await self._advance(table)
        except ServiceError:
            log.error("table %s: the follow-up failed; retrying", table.code)
            retry = asyncio.create_task(self._retry_follow_up(table))
            self._background.add(retry)
            retry.add_done_callback(self._background.discard)

    async def _retry_follow_up(self, table: LiveTable) -> None:
        await asyncio.sleep(self.retry_seconds)
        if not self._closed:
            async with table.lock:
                await self._follow_up(table)

    async def _advance(self, table: LiveTable) -> None:
        """What follows by itself: the deal of a new round, then the bots' moves."""
        while table.full and table.game.phase is Phase.DEALING:
            rng = self._rng(table.code, "deal", table.game_number, table.game.round + 1)
            rows, hands = deal_cards(rng, len(table.seats))
            action = ActionRecord(
                table.version + 1,
                table.game_number,
                "deal",
                data={"rows": rows, "hands": hands},
            )
            apply_to_game(table.game, action)
            table.version = action.seq
            table.note_change()
            await self._store(table, action)
            self._publish(table)
        self._schedule_bots(table)

    def _rng(self, code: str, *purpose: object) -> random.Random:
        """Secure randomness for deals and bots; a fixed one when a deal seed is set (tests)."""
        if self.deal_seed is None:
            return random.Random(secrets.randbits(256))
        # The seed alone (not the random table code) fixes the deals: same seed, same games.
        return random.Random("/".join(str(part) for part in (self.deal_seed, *purpose)))

    async def _store(
        self, table: LiveTable, action: ActionRecord, seat: SeatRecord | None = None
    ) -> None:
        """Store an applied action before anyone hears of it. If the database refuses, the table
        is rebuilt from what was stored, so memory never runs ahead of the database."""
        try:
            await asyncio.to_thread(self.storage.append, table.code, action, table.status(), seat)
        except Exception as error:
            log.exception("storing %s at table %s failed", action.kind, table.code)
            record = await asyncio.to_thread(self.storage.load_table, table.code)
            if record is not None:
                await self._restore(table, record)
            raise ServiceError(
                "storage_error", "The server could not save this; please try again.", 503
            ) from error

    # ----------------------------------------------------------------------- bots

    def _schedule_bots(self, table: LiveTable) -> None:
        if self._closed or not table.full:
            return
        if table.game.phase not in (Phase.CHOOSING_CARDS, Phase.CHOOSING_ROW):
            return
        for seat in table.game.waiting_for():
            if seat in table.bots and seat not in table.bot_tasks:
                view = table.game.view(seat)
                table.bot_tasks[seat] = asyncio.create_task(
                    self._bot_move(table, seat, view, table.version),
                    name=f"bot {table.code}/{seat}",
                )

    async def _bot_move(self, table: LiveTable, seat: int, view: SeatView, version: int) -> None:
        """Let the bot of ``seat`` decide from its own view (in a worker thread: a strong bot
        thinks for a while) and play it like a person, version check included."""
        try:
            if self.bot_delay:
                await asyncio.sleep(self.bot_delay)
            bot = table.bots[seat]
            if view.must_choose_row:
                kind, row, card = "choose_row", await asyncio.to_thread(bot.choose_row, view), None
            else:
                kind, card, row = "play", await asyncio.to_thread(bot.choose_card, view), None
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("bot at table %s seat %s failed", table.code, seat)
            kind, card, row = _fallback(view)
        retry = False
        async with table.lock:
            table.bot_tasks.pop(seat, None)
            try:
                await self._act_locked(table, seat, kind, card=card, row=row, version=version)
            except ServiceError as error:
                if error.code == "stale_version":
                    pass  # the game moved on while the bot thought: it decides again below
                elif error.code == "storage_error":
                    log.error("bot move at table %s not stored; will retry", table.code)
                    retry = True
                else:
                    # A bot broke a rule: play a legal move for it rather than stall the table.
                    log.error("bot at table %s seat %s: %s", table.code, seat, error.message)
                    kind, card, row = _fallback(view)
                    try:
                        await self._act_locked(
                            table, seat, kind, card=card, row=row, version=version
                        )
                    except ServiceError:
                        retry = True
            if not retry:
                self._schedule_bots(table)
        if retry:
            # Not at once: a database that is down, or a broken bot, must not spin the server.
            await asyncio.sleep(self.retry_seconds)
            async with table.lock:
                self._schedule_bots(table)

    # ----------------------------------------------------------------- messages

    def _publish(self, table: LiveTable) -> None:
        """Send each listener the new events it may see, then its own state."""
        events = table.pending_events
        table.pending_events = []
        for connection in table.connections:
            message = serialize.events_message(events, table.version, connection.seat)
            if message is not None:
                connection.send(message)
            connection.send(serialize.state_message(table, connection.seat))

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
            names = [seat.name or f"Seat {seat.seat + 1}" for seat in table.seats]
            played = table.game
            if number != table.game_number:
                actions = await asyncio.to_thread(self.storage.load_actions, table.code, number)
                earlier = LiveTable(table.code, table.created_at, table.seats)
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


def _fallback(view: SeatView) -> tuple[str, int | None, int | None]:
    if view.must_choose_row:
        return "choose_row", None, 0
    legal = view.legal_cards()
    return "play", legal[0] if legal else None, None
