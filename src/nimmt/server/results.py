"""The result of every finished game, written once when it ends: who sat where (and which
profile, if any), each seat's total, bullheads per round and rows taken, and the group the
table was opened for; and, once the coach has reviewed a seat's game, the bullheads that seat
lost to its own decisions. Standings and histories (:mod:`nimmt.server.standings`) are read from
these results alone.

A seat counts for a profile while the profile holds it (:class:`~nimmt.server.storage.people.
SeatLink`: the seat's token is still the one it was claimed with); a seat left to a bot counts
for the bot. Results are noted after every stored change (the book's after-change hook) and
after each entry of a game with real cards; a game noted twice (two processes) is stored once.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

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
        self._storing: dict[tuple[str, int], asyncio.Task[None]] = {}

    async def note(self, table: LiveTable) -> None:
        """Store the result of the table's game if it is over and not stored yet (lock held).
        A failure is logged, never raised: the game itself stands.

        The result is taken from the table at once and stored by a task of its own, which goes
        on when the caller is cancelled: the socket that entered a real-cards game's last turn
        may close right after it (the device puts the page away), and the game must count."""
        key = (table.code, table.game_number)
        if table.game.phase is not Phase.GAME_OVER or key in self._noted:
            return
        task = self._storing.get(key)
        if task is None:
            ended = game_result(table, {}, None)
            hashes = {seat.seat: seat.token_hash for seat in table.seats}
            task = asyncio.create_task(self._store(ended, hashes), name=f"result {key}")
            self._storing[key] = task
            task.add_done_callback(lambda _task: self._storing.pop(key, None))
        await asyncio.shield(task)

    async def _store(self, ended: GameResult, hashes: Mapping[int, str | None]) -> None:
        key = (ended.table, ended.game)
        try:
            links = await self.book.read(self.people.seat_links, ended.table)
            group = await self.book.read(self.people.group_of_table, ended.table)
            held = {link.seat: link for link in links}
            seats = tuple(
                replace(
                    seat, profile_id=profile_of(held.get(seat.seat), hashes[seat.seat], ended.real)
                )
                for seat in ended.seats
            )
            result = replace(ended, finished_at=self.book.clock(), group=group, seats=seats)
            await self.book.read(self.people.add_result, result)
        except Exception:
            log.exception("the result of table %s game %s was not stored", *key)
            return
        self._noted.add(key)

    async def reviewed(self, table: str, game: int, seat: int, review: Mapping[str, Any]) -> None:
        """Keep the coach's review of a seat's game with its result: the bullheads lost to the
        seat's own decisions (a game without a stored result keeps nothing). A failure is
        logged, never raised: the review is answered all the same."""
        try:
            loss = float(review["total_loss"])
            await self.book.read(self.people.note_decision_loss, table, game, seat, loss)
        except Exception:
            log.exception("the review of table %s game %s seat %s was not kept", table, game, seat)


def profile_of(link: SeatLink | None, token_hash: str | None, real: bool) -> str | None:
    """The profile a seat's result counts for: the one that holds the seat with its token (at
    a real-cards table, the one it was picked for), else none."""
    if link is None:
        return None
    if real or (token_hash is not None and link.token_hash == token_hash):
        return link.profile_id
    return None


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
    seats = tuple(
        ResultSeat(
            seat=seat.seat,
            name=seat.name or f"Seat {seat.seat + 1}",
            kind=seat.kind,
            profile_id=profile_of(links.get(seat.seat), seat.token_hash, real),
            total=outcome.totals[seat.seat],
            winner=seat.seat in outcome.winners,
            rows_taken=rows_taken[seat.seat],
            round_penalties=tuple(
                log_.penalties[seat.seat] for log_ in game.history if log_.penalties
            ),
        )
        for seat in table.seats
    )
    return GameResult(table.code, table.game_number, table.created_at, real, group, seats)
