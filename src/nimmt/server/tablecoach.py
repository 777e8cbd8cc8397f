"""The coach at the tables: a seated person's question about their current decision, and the
review of a seat's decisions after a game.

The coach sees that seat's view only and thinks apart from the table's bots
(:class:`~nimmt.server.coach.CoachDesk` and its runner). Refusals are raised at once; the answer,
or a later refusal, is sent to the asking connection alone when the coach is done.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from nimmt.server.archive import game_record
from nimmt.server.book import TableBook
from nimmt.server.coach import CoachDesk, Question, has_decision
from nimmt.server.dealer import Dealer
from nimmt.server.errors import ServiceError, shown
from nimmt.server.serialize import error_message
from nimmt.server.table import Connection, LiveTable

Reviewed = Callable[[str, int, int, dict[str, Any]], Awaitable[None]]
"""Told of each game review the coach computes: the table, the game, the seat and the review."""


class TableCoach:
    """The coach for the tables of ``book``, thinking at ``desk``; ``reviewed`` is told of every
    review computed (the results keep its total loss for the person's history)."""

    def __init__(
        self, book: TableBook, desk: CoachDesk, dealer: Dealer, reviewed: Reviewed | None = None
    ) -> None:
        self.book = book
        self.desk = desk
        self.dealer = dealer
        self.reviewed = reviewed

    async def ask(self, connection: Connection, request_id: Any = None) -> None:
        """A seated person asks the coach about their current decision (docs/protocol.md,
        "coach")."""
        table = await self.book.load(connection.code)
        async with table.lock:
            self._question(table, connection)  # refuses now what it can

        async def snapshot() -> Question | None:
            async with table.lock:
                if connection not in table.connections:
                    return None  # gone: nobody to answer
                return self._question(table, connection)

        def reply(answer: dict[str, Any] | ServiceError) -> None:
            if isinstance(answer, ServiceError):
                connection.send(error_message(answer, request_id))
            else:
                connection.send({"type": "coach", **answer, "request_id": request_id})

        self.desk.ask(table.code, connection, snapshot, reply)

    def _question(self, table: LiveTable, connection: Connection) -> Question:
        """What the coach is to analyze for ``connection`` now (table lock held), or why not."""
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
        seed = self.dealer.decision_seed(
            table.code, "coach", table.game_number, seat, table.version
        )
        return Question(key, view, table.version, seed)

    async def game_analysis(
        self, code: str, seat: object, game: int | None = None
    ) -> dict[str, Any]:
        """Every decision of ``seat`` in a finished game of the table, scored by the coach as
        ``nimmt analyze --json`` does (computed once, then remembered). A game still being
        played is refused (``game_not_finished``): its record holds every hand."""
        table = await self.book.load(code)
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < len(table.seats):
            raise ServiceError(
                "bad_request", f"There is no seat {shown(seat)} at this table "
                f"(seats 0 to {len(table.seats) - 1}).", 422,
            )  # fmt: skip
        number = table.game_number if game is None else game
        key = (table.code, number, seat)
        known = self.desk.reviewed(key)
        if known is not None:
            return known
        record = await game_record(self.book, table.code, number)  # refuses a game being played
        review = await self.desk.review(key, record, seat)
        if self.reviewed is not None:
            await self.reviewed(table.code, number, seat, review)
        return review
