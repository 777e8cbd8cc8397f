"""The sockets at a table: who listens, as which seat, and what each is sent when it comes.

A listener is a :class:`~nimmt.server.table.Connection`: a seat's (by its token) or a
spectator's. It is sent what it missed since the version it knew (when the table still keeps
those events), then its own state; the transport drains its bounded queue.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from nimmt.server import serialize
from nimmt.server.book import TableBook, table_gone
from nimmt.server.errors import ServiceError
from nimmt.server.publisher import News
from nimmt.server.serialize import error_message
from nimmt.server.table import Connection, LiveTable

SeatBack = Callable[[LiveTable, int], Awaitable[None]]
"""Told (lock held) when a seat's first socket in this process comes."""
SeatGone = Callable[[LiveTable, int], None]
"""Told (lock held) when a seat's last socket in this process closed."""


async def _nobody_back(_table: LiveTable, _seat: int) -> None:
    pass


def _nobody_gone(_table: LiveTable, _seat: int) -> None:
    pass


class Listeners:
    """The sockets of the tables of ``book``; each queue holds at most ``max_queue``
    messages."""

    def __init__(
        self,
        book: TableBook,
        max_queue: int,
        *,
        seat_back: SeatBack = _nobody_back,
        seat_gone: SeatGone = _nobody_gone,
    ) -> None:
        self.book = book
        self.max_queue = max_queue
        self.seat_back = seat_back
        """An absent person may take their seat back (:mod:`nimmt.server.absence`)."""
        self.seat_gone = seat_gone

    async def connect(
        self,
        code: str,
        token: str | None,
        since: int | None = None,
        *,
        inline: bool = False,
        changes: bool = False,
    ) -> Connection:
        """A listener at the table. It is sent what it missed since version ``since`` (when the
        table still keeps those events), then the current state. A wrong token is told
        ``bad_token`` and listens as a spectator. ``inline``: every change is told as one
        ``state`` that holds its events; ``changes``: as one ``change`` that holds its events
        and what changed (:func:`nimmt.server.publisher.publish`)."""
        table = await self.book.load(code)
        async with table.lock:
            if self.book.shared:
                await self.book.catch_up(table)
                if table.gone:  # deleted in the database, as another process held it
                    raise table_gone()
            else:  # deleted by `nimmt admin purge` while this process held it?
                await self.book.confirm_stored(table)
            seat = table.seat_of_token(token) if token else None
            connection = Connection(
                table.code, token, seat, max_queue=self.max_queue, inline=inline, changes=changes
            )
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
            newly_present = seat is not None and all(c.seat != seat for c in table.connections)
            table.connections.add(connection)
            if newly_present:
                assert seat is not None
                await self.seat_back(table, seat)
                self.book.publish(table)  # everybody sees the seat come back
            else:
                connection.send(News(table, []).whole_for(connection))
            return connection

    async def disconnect(self, connection: Connection) -> None:
        """The socket closed; the others see the seat go when it was its last."""
        table = self.book.tables.get(connection.code)
        if table is None:
            return
        async with table.lock:
            table.connections.discard(connection)
            seat = connection.seat
            if seat is not None and all(c.seat != seat for c in table.connections):
                self.seat_gone(table, seat)
                self.book.publish(table)

    async def fresh_state(self, connection: Connection) -> dict[str, Any] | None:
        """The current ``state`` for a connection whose queue overflowed, made as a new
        listener's is: under the table's lock, so that it never holds a change still on its way
        to the database (one the database may refuse), and as the base of the connection's
        next ``change``, which can then be a change again instead of a second whole state."""
        table = self.book.tables.get(connection.code)
        if table is None:
            return None
        async with table.lock:
            if table.needs_restore or connection not in table.connections:
                return None  # (the repair sends every listener the stored state)
            return News(table, []).whole_for(connection)
