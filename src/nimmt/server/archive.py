"""The records of finished games, as ``nimmt replay`` and the replay page read them.

A record holds every hand, so only a game that is over is given (an assisted table's at any
time: nothing is hidden at a real table). An earlier game of a table is rebuilt from its stored
actions.
"""

from __future__ import annotations

from typing import Any

from nimmt.engine import Phase
from nimmt.records import to_record
from nimmt.server import assisted
from nimmt.server.book import TableBook
from nimmt.server.errors import ServiceError
from nimmt.server.table import LiveTable


async def game_record(book: TableBook, code: str, game: int | None = None) -> dict[str, Any]:
    """The game record of a finished game at the table (default: the current one)."""
    table = await book.load(code)
    await book.confirm_stored(table)  # a table purged while held here has no record to give
    async with table.lock:
        number = table.game_number if game is None else game
        if not 1 <= number <= table.game_number:
            raise ServiceError("game_not_found", f"Table {table.code} has no game {number}.", 404)
        if isinstance(table, assisted.AssistedTable):
            if number != 1:
                raise ServiceError(
                    "game_not_found", f"Table {table.code} has no game {number}.", 404
                )
            return table.record()  # nothing is hidden at a real table: at any time
        played, source = table.game, table
        if number != table.game_number:
            actions = await book.read(book.storage.load_actions, table.code, number)
            earlier = LiveTable(table.code, table.created_at, list(table.seats))
            earlier.replay(actions, table.version)
            played, source = earlier.game, earlier
        # Whoever played it, as the game ended: a seat left since then does not rewrite it.
        seats = source.seats_at_end or table.seats
        names = [seat.name or f"Seat {seat.seat + 1}" for seat in seats]
        if played.phase is not Phase.GAME_OVER:
            raise ServiceError(
                "game_not_finished",
                "The record is given once the game is over: it shows every hand.",
                409,
            )
        meta = {
            "table": table.code,
            "game": number,
            "bots": {str(seat.seat): seat.bot for seat in seats if seat.bot},
        }
        stand_ins = source.stand_ins.history
        if stand_ins:  # who played an absent person's seat, from which round and turn
            meta["stand_ins"] = [dict(entry) for entry in stand_ins]
        return to_record(played, names, meta)
