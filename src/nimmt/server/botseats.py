"""Bot seats: a bot decides from its own seat's view, and its move is stored like a person's.

When a table waits for a bot seat, :meth:`BotSeats.schedule` gives the bot its
:class:`~nimmt.engine.SeatView` (nothing more) and lets it think in the
:class:`~nimmt.server.botpool.BotRunner` (worker processes: a strong bot thinks for a while).
The move then goes through the book's commit path with the version check of any action: a
decision that is no longer wanted (the seat was taken back by a person, another process moved
the bot first) is dropped, so a duplicate bot move is harmless. A bot that fails or breaks a
rule never stalls its table: a legal move is played for it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from nimmt.engine import Phase, RuleError, SeatView
from nimmt.server.actions import ActionKind
from nimmt.server.book import Behind, TableBook
from nimmt.server.botpool import BotRunner
from nimmt.server.dealer import Dealer
from nimmt.server.errors import ServiceError, rule_error
from nimmt.server.table import LiveTable

log = logging.getLogger(__name__)

Move = tuple[ActionKind, int | None, int | None]
"""A bot's move: its kind, and the card or the row."""


class BotSeats:
    """Moves the bot seats of the tables in ``book``."""

    def __init__(
        self,
        book: TableBook,
        runner: BotRunner,
        dealer: Dealer,
        *,
        delay: float = 0.0,
        retry_seconds: float,
    ) -> None:
        self.book = book
        self.runner = runner
        self.dealer = dealer
        self.delay = delay
        """Seconds a bot waits before it thinks, so that people can follow its move."""
        self.retry_seconds = retry_seconds
        """Pause before a move that could not be stored is tried again."""
        self._moves: set[asyncio.Task[None]] = set()
        """Every move still running, also those that left their table's ``bot_tasks`` (a move
        takes itself out as it takes the table's lock, so that its next decision can start)."""

    def schedule(self, table: LiveTable) -> None:
        """Start a decision (lock held) for every bot seat the table waits for."""
        if self.book.closed or table.gone or not table.full or not table.has_people:
            return
        if table.game.phase not in (Phase.CHOOSING_CARDS, Phase.CHOOSING_ROW):
            return
        for seat in table.game.waiting_for():
            bot = table.bot_for(seat)  # a bot seat's, or one standing in for an absent person
            if bot is not None and seat not in table.bot_tasks:
                view = table.game.view(seat)
                task = asyncio.create_task(
                    self._move(table, seat, bot, view, table.version),
                    name=f"bot {table.code}/{seat}",
                )
                table.bot_tasks[seat] = task
                self._moves.add(task)
                task.add_done_callback(self._moves.discard)

    async def cancel(self) -> None:
        """Stop every bot still thinking or storing its move (the server is stopping): none is
        left to find the database closed under it."""
        tasks = list(self._moves)
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    async def _move(
        self, table: LiveTable, seat: int, bot: str, view: SeatView, version: int
    ) -> None:
        """Let the bot of ``seat`` decide from its own view and play it like a person, version
        check included."""
        try:
            if self.delay:
                await asyncio.sleep(self.delay)
            seed = self.dealer.decision_seed(table.code, "bot", seat, version)
            choice = await self.runner.decide(bot, seed, view)
            move: Move = (
                (ActionKind.CHOOSE_ROW, None, choice)
                if view.must_choose_row
                else (ActionKind.PLAY, choice, None)
            )
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("bot at table %s seat %s failed", table.code, seat)
            move = fallback(view)
        retry = False
        async with table.lock:
            table.bot_tasks.pop(seat, None)
            try:
                await self.book.repair(table)
            except ServiceError:
                if table.gone:
                    return
                retry = True
            if not retry and not still_waiting_for(table, seat, version):
                self.schedule(table)
                return
            try:
                if not retry:
                    await self._play(table, seat, move)
            except ServiceError as error:
                if table.gone:
                    return  # deleted under this process: nothing more to play here
                if error.code == "storage_error":
                    log.error("bot move at table %s not stored; will retry", table.code)
                    retry = True
                else:
                    # A bot broke a rule: play a legal move for it rather than stall the table.
                    log.error("bot at table %s seat %s: %s", table.code, seat, error.message)
                    try:
                        await self._play(table, seat, fallback(view))
                    except ServiceError:
                        retry = True
            except Behind:
                pass  # caught up: another process moved; decide again below if still needed
            if not retry:
                self.schedule(table)
        if retry:
            # Not at once: a database that is down, or a broken bot, must not spin the server.
            await asyncio.sleep(self.retry_seconds)
            async with table.lock:
                self.schedule(table)

    async def _play(self, table: LiveTable, seat: int, move: Move) -> None:
        """The bot's move, stored like a person's (its decision was checked to be still
        wanted, :func:`still_waiting_for`)."""
        kind, card, row = move
        action = self.book.action(table, kind, seat=seat, card=card, row=row)
        try:
            await self.book.commit(table, action, by_bot=True)
        except RuleError as error:
            raise rule_error(error) from None
        await self.book.follow_up(table)


def still_waiting_for(table: LiveTable, seat: int, version: int) -> bool:
    """The bot's decision is still wanted: its seat is still a bot that the table waits for, at
    the same decision (a duplicate move from another process is dropped)."""
    return (
        table.bot_for(seat) is not None
        and seat in table.game.waiting_for()
        and table.decision_version <= version <= table.version
    )


def fallback(view: SeatView) -> Move:
    """A legal move for a bot that could not decide: its lowest card, or the first row."""
    if view.must_choose_row:
        return ActionKind.CHOOSE_ROW, None, 0
    legal = view.legal_cards()
    return ActionKind.PLAY, legal[0] if legal else None, None
