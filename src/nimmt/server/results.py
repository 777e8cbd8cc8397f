"""The result of every finished game, written once when it ends: who sat where (and which
profile, if any), each seat's total, bullheads per round and rows taken, and the group the
table was opened for. Standings and histories (:mod:`nimmt.server.standings`) are read from
these results alone.

A seat counts for a profile while the profile holds it (:class:`~nimmt.server.storage.people.
SeatLink`: the seat's token is still the one it was claimed with); a seat left to a bot counts
for the bot. Results are noted after every stored change (the book's after-change hook) and
after each entry of a game with real cards; a game noted twice (two processes) is stored once.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping

from nimmt.engine import Phase, RowTaken
from nimmt.server.assisted import AssistedTable
from nimmt.server.book import TableBook
from nimmt.server.storage.people import GameResult, PeopleStore, ResultSeat, SeatLink
from nimmt.server.table import LiveTable

log = logging.getLogger(__name__)


class Results:
    """Notes the finished games of ``book`` in ``people``."""

    def __init__(self, book: TableBook, people: PeopleStore) -> None:
        self.book = book
        self.people = people
        self._noted: set[tuple[str, int]] = set()

    async def note(self, table: LiveTable) -> None:
        """Store the result of the table's game if it is over and not stored yet (lock held).
        A failure is logged, never raised: the game itself stands."""
        key = (table.code, table.game_number)
        if table.game.phase is not Phase.GAME_OVER or key in self._noted:
            return
        try:
            links = await self.book.read(self.people.seat_links, table.code)
            group = await self.book.read(self.people.group_of_table, table.code)
            result = game_result(table, {link.seat: link for link in links}, group)
            result = GameResult(
                result.table, result.game, self.book.clock(), result.real, group, result.seats
            )
            await self.book.read(self.people.add_result, result)
        except Exception:
            log.exception("the result of table %s game %s was not stored", *key)
            return
        self._noted.add(key)


def game_result(table: LiveTable, links: Mapping[int, SeatLink], group: str | None) -> GameResult:
    """The result of ``table``'s finished game; ``links`` the seats held by profiles."""
    game = table.game
    outcome = game.outcome
    assert outcome is not None
    rows_taken = [0] * game.players
    for event in game.events:
        if isinstance(event, RowTaken):
            rows_taken[event.seat] += 1
    real = isinstance(table, AssistedTable)
    seats = []
    for seat in table.seats:
        link = links.get(seat.seat)
        profile_id = None
        if link is not None and (
            real or (seat.token_hash is not None and link.token_hash == seat.token_hash)
        ):
            profile_id = link.profile_id
        seats.append(
            ResultSeat(
                seat=seat.seat,
                name=seat.name or f"Seat {seat.seat + 1}",
                kind=seat.kind,
                profile_id=profile_id,
                total=outcome.totals[seat.seat],
                winner=seat.seat in outcome.winners,
                rows_taken=rows_taken[seat.seat],
                round_penalties=tuple(
                    log_.penalties[seat.seat] for log_ in game.history if log_.penalties
                ),
            )
        )
    return GameResult(table.code, table.game_number, table.created_at, real, group, tuple(seats))
