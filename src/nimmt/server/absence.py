"""An absent player: the table may agree to let a bot play for someone who has left.

When a seated person has been disconnected everywhere for the table's delay (``away_seconds``,
two minutes unless the creator chose otherwise), the others see it and one of them may propose
that a bot of a level they name plays for that seat. The handover happens only when every other
person present agrees; anyone may decline, which ends the proposal; nothing happens by a timer.
The absent person takes the seat back by coming back (a socket with their token), from the next
decision on: a card the bot already chose for the current turn stands.

Who counts as present is this process's knowledge (:class:`~nimmt.server.standins.Presence`):
its own sockets and what the other processes say on the bus every few seconds. A person whose
page is only reloading is not absent: people count as present, and so must agree, until they
have been away for the table's delay. The agreement is checked when the ``agree`` that would
complete it is made, against the people present then, under the table's lock; it is stored
through the book's one commit path (compare-and-set across processes: a change another process
stored first makes it be checked again). Every step is a stored ``handover`` action and the
return a ``return`` action (:data:`~nimmt.server.actions.STAND_IN_KINDS`), so a restart keeps
the proposal, the agreements and a handover that was agreed, and never invents one.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Sequence
from typing import Any

from nimmt.engine import RuleError
from nimmt.server.actions import ActionKind
from nimmt.server.book import CONFLICT_RETRIES, Behind, TableBook, busy
from nimmt.server.errors import ServiceError, quoted
from nimmt.server.standins import STORE_AFTER_SECONDS, deciding_people
from nimmt.server.table import LiveTable

log = logging.getLogger(__name__)

STEPS = ("propose", "agree", "decline", "withdraw")
"""The socket's messages of the agreement (docs/protocol.md, "An absent player")."""
LOOK_SECONDS = 1.0
"""How often the tables held here are looked at: a seat away for the delay is told to all, and
a person back while a bot plays for them takes the seat back."""
PRESENCE_SECONDS = 5.0
"""How often a process tells the others on the bus which seats are connected to it."""
SETTLE_SECONDS = PRESENCE_SECONDS + 1.0
"""With several processes: how long after a process took a table up a seat that is connected
nowhere it knows of still counts as present (the others tell theirs within that time)."""


class Absence:
    """The agreements about absent people at the tables of ``book``; ``bot_names``: the bots a
    table offers."""

    def __init__(
        self,
        book: TableBook,
        bot_names: Sequence[str],
        *,
        clock: Callable[[], float] | None = None,
    ) -> None:
        self.book = book
        self.bot_names = tuple(bot_names)
        self.clock = clock if clock is not None else time.monotonic
        """Counts how long a person has been away (seconds; a fake clock in tests)."""

    def watch(self, table: LiveTable) -> LiveTable:
        """``table``, its presence counted by this part's clock."""
        table.presence.clock = self.clock
        table.presence.wall = self.book.clock
        return table

    def prepare(self, table: LiveTable) -> None:
        """A table this process takes up (created or loaded): its presence counted by this
        part's clocks, and with several processes, nobody counted away before the others had
        the time to say whom they hold."""
        self.watch(table)
        if self.book.shared:
            table.presence.settled = self.clock() + SETTLE_SECONDS

    # ------------------------------------------------------------ the people's steps

    async def act(
        self, code: str, token: str | None, step: str, *, seat: object = None, bot: object = None
    ) -> None:
        """A person's step: ``propose`` (``seat``: the absent person's, ``bot``: a level the
        table offers), ``agree``, ``decline`` or ``withdraw`` the open proposal."""
        if step not in STEPS:
            raise ServiceError("unknown_type", f"There is no message type {quoted(step)}.")
        table = self.watch(await self.book.load(code))
        for _attempt in range(CONFLICT_RETRIES):
            async with table.lock:
                if not token:
                    raise ServiceError(
                        "not_seated", "Spectators do not decide this: take a seat first.", 403
                    )
                me = table.seat_of_token(token)
                if me is None:
                    raise ServiceError("bad_token", "This token holds no seat at this table.", 403)
                try:
                    await self._act_locked(table, me, step, seat, bot)
                except Behind:
                    continue
                return
        raise busy()

    async def _act_locked(
        self, table: LiveTable, me: int, step: str, target: object, bot: object
    ) -> None:
        if not table.full or table.finished:
            raise ServiceError(
                "wrong_phase", "A seat can be handed to a bot only while a game goes on.", 409
            )
        if me not in table.connected_seats() or me in table.stand_ins.bots:
            raise ServiceError(
                "not_present", "Only the people present at the table decide this.", 403
            )
        proposal = table.stand_ins.proposal
        data: dict[str, Any]
        if step == "propose":
            data = self._proposal(table, me, target, bot)
        elif proposal is None:
            raise ServiceError("no_proposal", "Nobody has proposed a handover.", 409)
        elif step == "withdraw":
            if proposal.by != me:
                raise ServiceError(
                    "not_proposer", "Only the person who proposed it can withdraw it.", 403
                )
            data = {"step": "withdraw"}
        elif step == "decline":
            data = {"step": "decline"}
        else:
            wanted = table.handover_needed()
            if me not in wanted:
                raise ServiceError(
                    "not_present", "Only the people present at the table decide this.", 403
                )
            done = set(wanted) <= proposal.agreed | {me}
            if done and proposal.seat not in table.absent_seats():
                raise ServiceError(
                    "not_absent", "That person is back (or not away long enough): no handover.",
                    409,
                )  # fmt: skip
            if done and self.book.shared and not self.book.bus.healthy:
                raise ServiceError(
                    "busy", "The server cannot tell who is present right now; try again.", 503
                )
            if me in proposal.agreed and not done:
                return  # agreed already; the others are still to agree
            data = {"step": "agree", "done": done}
            if done:
                data["needed"] = wanted
        action = self.book.action(table, ActionKind.HANDOVER, seat=me, data=data)
        try:
            await self.book.commit(table, action)
        except RuleError:  # the state checked above no longer holds: nothing changed
            raise ServiceError("no_proposal", "Nobody has proposed a handover.", 409) from None
        await self.book.follow_up(table)  # after a handover, the bot plays for the seat

    def _proposal(self, table: LiveTable, me: int, target: object, bot: object) -> dict[str, Any]:
        """The ``propose`` action's data, once it is allowed."""
        if table.stand_ins.proposal is not None:
            raise ServiceError(
                "already_proposed", "A handover is proposed already: agree or decline it.", 409
            )
        if isinstance(target, bool) or not isinstance(target, int):
            raise ServiceError("malformed", 'A proposal needs "seat": the absent seat.', 422)
        if not 0 <= target < len(table.seats) or target == me:
            raise ServiceError("bad_request", f"Seat {target} cannot be handed over.", 422)
        if target in table.stand_ins.bots:
            raise ServiceError(
                "handed_over", "A bot already plays for that seat until its person returns.", 409
            )
        if target not in table.absent_seats():
            raise ServiceError(
                "not_absent",
                f"Only a person away for {table.away_seconds} seconds or more can be handed over.",
                409,
            )
        if not isinstance(bot, str) or bot not in self.bot_names:
            raise ServiceError(
                "unknown_bot",
                f"Unknown bot {quoted(bot, 40)}; choose from {', '.join(self.bot_names)}.",
                422,
            )
        return {"step": "propose", "target": target, "bot": bot}

    # ------------------------------------------------------------------ presence

    async def seat_back(self, table: LiveTable, seat: int) -> None:
        """A socket of ``seat`` came (lock held): if a bot plays for that person, or a handover
        is proposed for them, they take their seat back (a stored ``return``). The other
        processes are told at once, and a stored moment of their leaving is cleared."""
        self.watch(table)
        self.book.spawn(self.tell_presence(table), f"presence {table.code}")
        if seat in table.presence.stored:
            await self._forget_moment(table, seat)
        stand_ins = table.stand_ins
        proposal = stand_ins.proposal
        if seat not in stand_ins.bots and (proposal is None or proposal.seat != seat):
            return
        try:
            await self.book.commit(table, self.book.action(table, ActionKind.RETURN, seat=seat))
        except (ServiceError, Behind) as error:
            # Not stored now (the database away, another process first): the next look retries.
            log.warning("table %s: seat %s back, not stored yet: %s", table.code, seat, error)
            return
        await self.book.follow_up(table)

    def seat_gone(self, table: LiveTable, seat: int) -> None:
        """The last socket of ``seat`` here closed: its absence counts from now."""
        self.watch(table).presence.gone(seat)
        self.book.spawn(self.tell_presence(table), f"presence {table.code}")

    # ------------------------------------------------------ the moments people left

    async def keep_moments(self, table: LiveTable) -> None:
        """Store when each person away for :data:`STORE_AFTER_SECONDS` left (once), and clear
        the moment of a person connected here again (one connected to another process has
        it cleared there)."""
        presence = table.presence
        here = table.here()
        now = presence.clock()
        remote = presence.remote_seats(now)
        for seat in list(presence.stored):
            if seat in here:
                await self._forget_moment(table, seat)
            elif seat in remote:
                presence.stored.pop(seat, None)
        for seat in deciding_people(table.seats, table.stand_ins):
            if seat in presence.stored or self.book.closed:
                continue
            away = presence.away_for(seat, here, now)
            if away is None or away < STORE_AFTER_SECONDS:
                continue
            moment = presence.stored[seat] = presence.left_at(seat, away)
            try:
                await self.book.read(self.book.storage.mark_away, table.code, seat, moment)
            except ServiceError as error:
                presence.stored.pop(seat, None)  # the next look tries again
                log.warning("table %s: seat %s away, not stored yet: %s", table.code, seat, error)

    async def _forget_moment(self, table: LiveTable, seat: int) -> None:
        moment = table.presence.stored.pop(seat, None)
        try:
            await self.book.read(self.book.storage.mark_away, table.code, seat, None)
        except ServiceError as error:
            if moment is not None:
                table.presence.stored[seat] = moment  # the next look tries again
            log.warning("table %s: seat %s back, not stored yet: %s", table.code, seat, error)

    async def on_presence(self, code: str, sender: str, seats: list[int]) -> None:
        """Another process says which seats of table ``code`` are connected to it."""
        table = self.book.tables.get(code)
        if table is not None:
            self.watch(table).presence.heard(sender, frozenset(seats), table.here())

    async def tell_presence(self, table: LiveTable) -> None:
        """Tell the other processes which seats of ``table`` are connected here."""
        tell = getattr(self.book.bus, "publish_presence", None)
        if tell is not None and self.book.shared:
            await tell(table.code, sorted(table.here()))

    # --------------------------------------------------------------- looking around

    def start(self) -> None:
        """Listen for the other processes' presence, and look at the tables every second."""
        if hasattr(self.book.bus, "on_presence"):
            self.book.bus.on_presence = self.on_presence
        self.book.spawn(self._loop(), "absence")

    async def _loop(self) -> None:
        told = 0.0
        while not self.book.closed:
            await asyncio.sleep(LOOK_SECONDS)
            told += LOOK_SECONDS
            try:
                await self.look()
                if told >= PRESENCE_SECONDS:
                    told = 0.0
                    for table in list(self.book.tables.values()):
                        if table.connections:
                            await self.tell_presence(table)
            except Exception:
                log.exception("looking for absent players failed; trying again")

    async def look(self) -> None:
        """Every table held here: tell its listeners when the absent people changed (a seat
        away for the delay, or back); a person connected here while a bot plays for them takes
        the seat back (the handover was stored elsewhere meanwhile)."""
        for table in list(self.book.tables.values()):
            if table.assisted or not table.full or table.lock.locked():
                continue
            self.watch(table)
            await self.keep_moments(table)
            proposal = table.stand_ins.proposal
            back = [
                seat
                for seat in sorted(table.here())
                if seat in table.stand_ins.bots or (proposal is not None and proposal.seat == seat)
            ]
            if not back and frozenset(table.absent_seats()) == table.presence.announced:
                continue  # nothing to do: the table's lock is left alone
            async with table.lock:
                for seat in back:
                    await self.seat_back(table, seat)
                now_absent = frozenset(table.absent_seats())
                if now_absent != table.presence.announced:
                    table.presence.announced = now_absent
                    self.book.publish(table)
