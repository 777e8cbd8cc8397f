"""People at the online tables: opening a table, taking a seat, playing, leaving, playing again.

Every action is checked here against the seat's token and the state version, then goes through
the book's commit path (:class:`~nimmt.server.book.TableBook`), where the rules engine refuses
anything the rules forbid, changing nothing. Rules added around the engine: a face-down card can
be changed until the last player has chosen; the row choice waits for its player, however long
(no timer ever acts); a person may leave a seat, and only then does a bot take it over; after
game over, the next game starts once every person seated agreed.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Sequence
from typing import Any

from nimmt.engine import Phase, RuleError
from nimmt.names import name_key
from nimmt.server.actions import SEAT_ACTIONS, ActionKind
from nimmt.server.book import CONFLICT_RETRIES, Behind, TableBook, busy
from nimmt.server.errors import ServiceError, quoted, rule_error
from nimmt.server.serialize import bot_display_name
from nimmt.server.storage import SeatRecord, TableRecord, TableStatus
from nimmt.server.table import MAX_SEATS, MIN_SEATS, LiveTable, SeatSpec, clean_name, hash_token

DEFAULT_LEAVE_BOT = "medium"
"""The bot that plays on for a person who leaves without choosing one."""
DEFAULT_AWAY_SECONDS = 120
MIN_AWAY_SECONDS, MAX_AWAY_SECONDS = 2, 3600
"""How long a person must have been away before a bot may be proposed for them (the table's
setting): two minutes unless its creator chose otherwise."""


class Players:
    """The people's actions at the online tables of ``book``; ``bot_names`` are the bots a
    table may seat."""

    def __init__(self, book: TableBook, bot_names: Sequence[str]) -> None:
        self.book = book
        self.bot_names = tuple(bot_names)

    async def create_table(
        self,
        seats: Sequence[SeatSpec],
        creator: object = None,
        *,
        coach: bool = False,
        away_seconds: int = DEFAULT_AWAY_SECONDS,
    ) -> str:
        """A new table; its code. The seats are checked here (count, one human, known bots), and
        the ``creator``'s name if one is given, so that a bad name creates no table. ``coach``:
        every seated person may ask the coach; ``away_seconds``: how long a person must have
        been away before the others may propose that a bot plays for them."""
        creator_name = clean_name(creator) if creator is not None else None
        if not MIN_SEATS <= len(seats) <= MAX_SEATS:
            raise ServiceError("bad_request", f"A table has {MIN_SEATS} to {MAX_SEATS} seats.", 422)
        records: list[SeatRecord] = []
        for index, spec in enumerate(seats):
            if spec.kind == "human":
                records.append(SeatRecord(index, "human"))
            elif spec.kind == "bot":
                self._check_bot(spec.bot)
                assert spec.bot is not None
                records.append(
                    SeatRecord(index, "bot", spec.bot, bot_display_name(spec.bot, index))
                )
            else:
                raise ServiceError("bad_request", "A seat is either human or bot.", 422)
        if isinstance(away_seconds, bool) or not (
            isinstance(away_seconds, int) and MIN_AWAY_SECONDS <= away_seconds <= MAX_AWAY_SECONDS
        ):
            raise ServiceError(
                "bad_request",
                f"The absence delay is {MIN_AWAY_SECONDS} to {MAX_AWAY_SECONDS} seconds.",
                422,
            )
        if not any(record.kind == "human" for record in records):
            raise ServiceError("bad_request", "A table needs at least one human seat.", 422)
        if creator_name is not None:
            check_name_free(creator_name, records)  # a bot's name: "Bot 2 (greedy)"
        created = self.book.clock()
        return await self.book.store_new(
            lambda code: TableRecord(
                code,
                created,
                tuple(records),
                TableStatus(0, 1, "waiting", 0, False, created),
                coach=coach,
                away_seconds=away_seconds,
            )
        )

    def _check_bot(self, bot: str | None) -> None:
        if bot not in self.bot_names:
            raise ServiceError(
                "unknown_bot",
                f"Unknown bot {quoted(bot, 40)}; choose from {', '.join(self.bot_names)}.",
                422,
            )

    async def join(self, code: str, name: object, seat: object = None) -> tuple[int, str]:
        """Give a free human seat to ``name``: the seat and its token (shown only this once)."""
        cleaned = clean_name(name)
        token = secrets.token_urlsafe(24)
        table = await self.book.load(code)
        for _attempt in range(CONFLICT_RETRIES):
            async with table.lock:
                check_name_free(cleaned, table.seats)
                index = free_seat(table, seat)
                data = {"name": cleaned, "token_hash": hash_token(token)}
                action = self.book.action(table, ActionKind.JOIN, seat=index, data=data)
                try:
                    await self.book.commit(table, action)
                except Behind:
                    continue
                await self.book.follow_up(table)
                return index, token
        raise busy()

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
        table = await self.book.load(code)
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
                        table, seat, seat_action(kind), card=card, row=row, version=version,
                        bot=bot, agree=agree,
                    )  # fmt: skip
                except Behind:
                    continue
                return
        raise busy()

    async def _act_locked(
        self,
        table: LiveTable,
        seat: int,
        kind: ActionKind,
        *,
        card: int | None,
        row: int | None,
        version: int | None,
        bot: str | None,
        agree: bool,
    ) -> None:
        if version is not None and not table.decision_version <= version <= table.version:
            raise ServiceError(
                "stale_version",
                f"The table has moved on (version {table.version}); look again and retry.",
                409,
            )
        if kind is ActionKind.LEAVE:
            await self._leave(table, seat, bot)
            return
        if kind is ActionKind.REMATCH and table.finished:
            await self._vote_rematch(table, seat, agree)
            return
        if not table.full:
            raise ServiceError(
                "waiting_for_players", "Not all seats are taken yet: no cards are dealt.", 409
            )
        if kind is ActionKind.REMATCH:
            raise ServiceError("wrong_phase", "A rematch can start only after game over.", 409)
        if (kind is ActionKind.PLAY and card is None) or (
            kind is ActionKind.CHOOSE_ROW and row is None
        ):
            raise ServiceError("malformed", f"A {kind} needs its card or row.", 422)
        if (
            kind is ActionKind.PLAY
            and table.game.phase is Phase.CHOOSING_CARDS
            and table.game.own_cards(seat).chosen_card == card
        ):
            return  # choosing the card already chosen changes nothing
        action = self.book.action(table, kind, seat=seat, card=card, row=row)
        try:
            await self.book.commit(table, action)
        except RuleError as error:
            raise rule_error(error) from None
        await self.book.follow_up(table)

    async def _vote_rematch(self, table: LiveTable, seat: int, agree: bool) -> None:
        """After game over, ``seat`` agrees to play again (or takes it back): stored as a
        ``rematch_vote``; the new game starts with the last person's agreement."""
        if (seat in table.rematch_votes) != agree:
            data = {"agree": agree}
            action = self.book.action(table, ActionKind.REMATCH_VOTE, seat=seat, data=data)
            await self.book.commit(table, action)
        await self._rematch_if_agreed(table)

    async def _rematch_if_agreed(self, table: LiveTable) -> None:
        """Start the next game once every person seated agreed (bots always agree, and so does
        a bot standing in for an absent person: it plays on for them in the new game)."""
        if table.rematch_agreed:
            carried = sorted(table.stand_ins.bots.items())
            data = {"stand_ins": [[seat, bot] for seat, bot in carried]} if carried else None
            action = self.book.action(
                table, ActionKind.REMATCH, game=table.game_number + 1, data=data
            )
            await self.book.commit(table, action)
            await self.book.follow_up(table)

    async def _leave(self, table: LiveTable, seat: int, bot: str | None) -> None:
        """The person at ``seat`` leaves: before the first deal the seat is free again; during a
        game the bot they chose plays it from now on (never without this explicit action)."""
        if table.full and not table.finished:
            chosen = bot if bot is not None else DEFAULT_LEAVE_BOT
            self._check_bot(chosen)
            data: dict[str, Any] = {"bot": chosen}
        else:
            data = {"bot": None}
        await self.book.commit(
            table, self.book.action(table, ActionKind.LEAVE, seat=seat, data=data)
        )
        await self.book.follow_up(table)
        # The others may all have agreed to play again and waited for this person only.
        await self._rematch_if_agreed(table)


def free_seat(table: LiveTable, wanted: object) -> int:
    """The seat a person joining asked for (``None``: the first free one), or why not."""
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


def seat_action(kind: str) -> ActionKind:
    """The kind of a seated person's action, or ``unknown_type``."""
    if kind not in SEAT_ACTIONS:
        raise ServiceError("unknown_type", f"There is no message type {quoted(kind)}.")
    return ActionKind(kind)


def check_name_free(name: str, seats: Iterable[SeatRecord]) -> None:
    """``bad_name`` when ``name`` (a cleaned one) is already at a table of ``seats``, a
    person's or a bot's, in any case or spacing (:func:`name_key`)."""
    taken = {name_key(seat.name) for seat in seats if seat.name is not None}
    if name_key(name) in taken:
        raise ServiceError(
            "bad_name", f"The name {name} is already at this table: choose another.", 422
        )
