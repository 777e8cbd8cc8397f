"""The game service of the web table: the one object the routers call. It knows neither the
transport nor the database.

It is a small facade that wires the parts together and hands each the
:class:`~nimmt.server.book.TableBook`, which owns the loaded tables and the one commit path (apply
through the rules engine, store, tell each seat what it may see, tell the other processes):

- :mod:`nimmt.server.players`: people open tables, take seats, play, leave, play again;
- :mod:`nimmt.server.listeners`: the sockets at a table and what each is sent;
- :mod:`nimmt.server.dealer`: the deal of every round and the seeds of decisions (chance);
- :mod:`nimmt.server.botseats`: bots decide from their own seat's view, in worker processes;
- :mod:`nimmt.server.follower`: the other processes' changes (the bus), the poll while the bus
  is down, the watchdog and the eviction of idle tables;
- :mod:`nimmt.server.assisting`: games played with real cards, entered on one device;
- :mod:`nimmt.server.tablecoach`: the coach's answers and post-game reviews;
- :mod:`nimmt.server.archive`: finished games' records;
- :mod:`nimmt.server.profiles`, :mod:`nimmt.server.groups`, :mod:`nimmt.server.results`: the
  people around the tables, their groups, and the result of every finished game (the routers
  call these three parts directly: they change no table).
- :mod:`nimmt.server.retention`: finished and abandoned tables deleted after their days.
- :mod:`nimmt.server.talk`: the talk at a table (chat and quick reactions), kept with the table
  and carried by the bus, never part of a game.
- :mod:`nimmt.server.absence`: the table's agreement to let a bot play for an absent person.

After every stored change the book runs one hook, wired here: deal what is due, then start the
bots the table waits for, then note the result of a game that is over.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from nimmt.bots import BOT_NAMES
from nimmt.server import serialize
from nimmt.server.absence import Absence
from nimmt.server.archive import game_record
from nimmt.server.assisting import AssistDesk
from nimmt.server.book import TableBook
from nimmt.server.botpool import BotRunner, InlineBots
from nimmt.server.botseats import BotSeats
from nimmt.server.bus import Bus, LocalBus
from nimmt.server.coach import CoachDesk, CoachRunner, InlineCoach
from nimmt.server.dealer import Dealer
from nimmt.server.errors import ServiceError
from nimmt.server.follower import Follower
from nimmt.server.groups import Groups
from nimmt.server.listeners import Listeners
from nimmt.server.players import Players
from nimmt.server.profiles import Profiles
from nimmt.server.publisher import publish
from nimmt.server.results import Results
from nimmt.server.retention import Retention
from nimmt.server.storage import Storage
from nimmt.server.table import Connection, LiveTable
from nimmt.server.tablecoach import TableCoach
from nimmt.server.talk import TableTalk
from nimmt.server.writer import Writer

log = logging.getLogger(__name__)

BOT_RETRY_SECONDS = 2.0
"""Pause before a bot's move or a deal that could not be stored is tried again."""


class GameService:
    """All tables of one server process (see the module for its parts).

    ``storage`` is the database; ``bots`` and ``coach`` where bots and the coach think (in the
    calling thread unless given); ``bus`` tells other processes of changes (none unless given);
    ``deal_seed`` fixes the deals (tests); ``bot_delay`` lets people follow a bot's move;
    ``idle_seconds``, ``watchdog_seconds``, ``retry_seconds`` and ``max_queue`` are the
    housekeeping's timings and a socket's queue length; ``finished_days`` and
    ``abandoned_days`` the retention's (0: kept forever); ``absence_clock`` counts how long a
    person has been away (``time.monotonic`` unless given: a fake clock in tests)."""

    def __init__(
        self,
        storage: Storage,
        *,
        bots: BotRunner | None = None,
        coach: CoachRunner | None = None,
        bus: Bus | None = None,
        bot_names: Sequence[str] = BOT_NAMES,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        deal_seed: int | None = None,
        bot_delay: float = 0.0,
        retry_seconds: float = BOT_RETRY_SECONDS,
        idle_seconds: float = 1800.0,
        watchdog_seconds: float = 5.0,
        max_queue: int = 64,
        finished_days: float = 0.0,
        abandoned_days: float = 0.0,
        absence_clock: Callable[[], float] | None = None,
    ) -> None:
        self.storage = storage
        self.bus: Bus = bus if bus is not None else LocalBus()
        self.bot_names = tuple(bot_names)
        self.idle_seconds = idle_seconds
        self.book = TableBook(
            storage,
            Writer(storage),
            self.bus,
            publish,
            after_change=self._after_change,
            clock=clock,
            retry_seconds=retry_seconds,
        )
        self.dealer = Dealer(self.book, deal_seed)
        self.bot_seats = BotSeats(
            self.book,
            bots if bots is not None else InlineBots(),
            self.dealer,
            delay=bot_delay,
            retry_seconds=retry_seconds,
        )
        self.coach = CoachDesk(coach if coach is not None else InlineCoach())
        self.results = Results(self.book, storage.people)
        self.bots_started = False
        """The bots' workers have started (or failed to: they start when first needed)."""
        self.table_coach = TableCoach(self.book, self.coach, self.dealer, self.results.reviewed)
        self.follower = Follower(
            self.book,
            clock=clock,
            idle_seconds=idle_seconds,
            watchdog_seconds=watchdog_seconds,
            bot_delay=bot_delay,
        )
        self.players = Players(self.book, self.bot_names)
        self.absence = Absence(self.book, self.bot_names, clock=absence_clock)
        self.book.prepare = self.absence.prepare
        self.listeners = Listeners(
            self.book,
            max_queue,
            seat_back=self.absence.seat_back,
            seat_gone=self.absence.seat_gone,
        )
        self.assisted = AssistDesk(self.book)
        self.profiles = Profiles(self.book, storage.people)
        self.groups = Groups(
            self.book, storage.people, self.players, self.assisted, idle_seconds=idle_seconds
        )
        self.retention = Retention(
            self.book, finished_days=finished_days, abandoned_days=abandoned_days
        )
        self.talk = TableTalk(self.book)

        # What the routers call: each the part's own method.
        self.create_table = self.players.create_table
        self.join = self.players.join
        self.act = self.players.act
        self.handover = self.absence.act
        self.connect = self.listeners.connect
        self.disconnect = self.listeners.disconnect
        self.create_assisted_table = self.assisted.create
        self.ask_coach = self.table_coach.ask
        self.game_analysis = self.table_coach.game_analysis
        self.evict_idle = self.follower.evict_idle

    async def _after_change(self, table: LiveTable) -> None:
        """What follows a stored change by itself: the deal of a new round, then the bots."""
        await self.dealer.deal_due(table)
        self.bot_seats.schedule(table)
        await self.results.note(table)

    # ------------------------------------------------------------------ life cycle

    async def start(self) -> None:
        """Start the bus and the housekeeping. A single process also loads every table whose
        game goes on, so that its bots (or the dealer) continue at once; with several processes
        a table is loaded by whichever process is asked for it first."""
        await self.follower.start()
        self.retention.start()
        self.talk.start()
        self.absence.start()
        self.book.spawn(self._start_bots(), "bots")
        self.book.spawn(self._start_runner(self.coach.runner.start, "coach's worker"), "coach")
        if not self.book.shared:
            since = self.book.clock() - timedelta(seconds=self.idle_seconds)
            for code in await self.book.read(self.storage.active_codes, since):
                await self.book.load(code)

    async def _start_bots(self) -> None:
        await self._start_runner(self.bot_seats.runner.start, "bot workers")
        self.bots_started = True

    @staticmethod
    async def _start_runner(start: Callable[[], Any], what: str) -> None:
        try:
            await start()
        except Exception:
            log.exception("the %s did not start; they will be started when needed", what)

    async def close(self) -> None:
        self.book.closed = True  # nothing follows a change any more
        await self.bot_seats.cancel()
        await self.book.stop()
        await self.bus.close()
        await self.coach.close()
        await self.bot_seats.runner.close()
        await self.book.close()
        await asyncio.to_thread(self.storage.close)

    # ---------------------------------------------------------------------- tables

    async def list_tables(self, limit: int = 20, cursor: str | None = None) -> dict[str, Any]:
        """Tables open to join or in play, newest first, a page at a time, from the database
        (no table's lock is taken): finished tables and tables nobody acted at for
        ``idle_seconds`` are not listed."""
        since = self.book.clock() - timedelta(seconds=self.idle_seconds)
        try:
            entries, following = await self.book.read(
                self.storage.list_open, limit=limit, cursor=cursor, active_since=since
            )
        except ValueError:
            raise ServiceError("bad_request", "That page cursor is not valid.", 422) from None
        return {
            "tables": [serialize.open_table_entry(entry) for entry in entries],
            "next": following,
        }

    async def summary(self, code: str) -> dict[str, Any]:
        """The table's summary. The database is asked too, so that every process answers alike
        while it is away (``storage_error``), whether it holds the table or not."""
        table = await self.book.load(code)
        await self.book.confirm_stored(table)
        async with table.lock:
            return serialize.summary(table)

    async def fresh_state(self, connection: Connection) -> dict[str, Any] | None:
        """The current ``state`` for a connection whose queue overflowed."""
        return await self.listeners.fresh_state(connection)

    # -------------------------------------------------------------------- actions

    async def rematch(self, code: str, token: object, agree: bool = True) -> dict[str, Any]:
        """The HTTP twin of the socket's ``rematch`` vote: the current game's number (the new
        one once everybody agreed) and the table's ``rematch`` summary (``None`` once the new
        game started)."""
        if not isinstance(token, str) or not token:
            raise ServiceError("bad_token", "This token holds no seat at this table.", 403)
        await self.act(code, token, "rematch", agree=agree)
        summary = await self.summary(code)
        return {"game": summary["game"], "rematch": summary["rematch"]}

    async def leave(self, code: str, token: object, bot: str | None = None) -> None:
        """The HTTP twin of the socket's ``leave``."""
        if not isinstance(token, str) or not token:
            raise ServiceError("bad_token", "This token holds no seat at this table.", 403)
        await self.act(code, token, "leave", bot=bot)

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
        """An entry at an assisted table (``rows``, ``turn``, ``row``, ``undo``); a game it
        ends counts for its group's standings."""
        await self.assisted.enter(code, token, kind, cards=cards, row=row, version=version)
        table = await self.book.load(code)
        async with table.lock:
            await self.results.note(table)

    # ------------------------------------------------------------------- records

    async def record(self, code: str, game: int | None = None) -> dict[str, Any]:
        """The game record of a finished game at the table (default: the current one)."""
        return await game_record(self.book, code, game)
