"""What each listener of a table is told after a change: only what its seat may see.

The one place where a table's news leaves for its sockets: every listener gets the new events
that pass the engine's per-seat filter (:func:`~nimmt.server.serialize.events_message`) and then
its own state (its seat's :meth:`~nimmt.engine.Game.view`, or a spectator's).

Each distinct message is built once per change and sent as one :class:`~nimmt.server.serialize.
Frame` (its JSON written once): the listeners of one seat (a person's phone and laptop) share it,
every spectator shares the spectators' state, and events that every seat may see (all of them
but a dealt hand) go out as one frame to all.
"""

from __future__ import annotations

from typing import Any

from nimmt.engine import visible_to
from nimmt.server import serialize
from nimmt.server.events import TABLE_EVENTS, TableEvent
from nimmt.server.serialize import Frame
from nimmt.server.table import LiveTable


def publish(table: LiveTable) -> None:
    """Send each listener of ``table`` the new events it may see, then its own state."""
    if table.needs_restore:
        # It holds a change the database refused: nothing of it may be told. The repair
        # publishes the stored table.
        return
    events = table.take_events()
    if not table.connections:
        return
    news = News(table, events)
    for connection in table.connections:
        told, state = news.for_seat(connection.seat)
        if told is not None:
            connection.send(told)
        connection.send(state)


class News:
    """The messages of one change at ``table``, built once for each seat that listens
    (``None``: the spectators)."""

    def __init__(self, table: LiveTable, events: list[TableEvent]) -> None:
        self.table = table
        self.summary = serialize.summary(table)
        # Every event's wire form, once; whether a spectator may see it (then every seat may:
        # the engine hides only a seat's own cards from the others).
        self.events = [
            (event, serialize.event_to_json(event), shown_to(event, None)) for event in events
        ]
        self.everybody = all(public for _, _, public in self.events)
        self._told: dict[tuple[int, ...], Frame | None] = {}
        self._seats: dict[int | None, tuple[Frame | None, Frame]] = {}

    def for_seat(self, seat: int | None) -> tuple[Frame | None, Frame]:
        """The ``events`` message ``seat`` may see (``None`` when it may see none of them) and
        its own ``state``."""
        known = self._seats.get(seat)
        if known is None:
            state = Frame(serialize.state_message(self.table, seat, self.summary))
            known = self._seats[seat] = (self._events_for(seat), state)
        return known

    def _events_for(self, seat: int | None) -> Frame | None:
        shown = tuple(
            index
            for index, (event, _, public) in enumerate(self.events)
            if self.everybody or public or shown_to(event, seat)
        )
        if shown not in self._told:
            wire: list[dict[str, Any]] = [self.events[index][1] for index in shown]
            self._told[shown] = (
                Frame({"type": "events", "version": self.table.version, "events": wire})
                if wire
                else None
            )
        return self._told[shown]


def shown_to(event: TableEvent, seat: int | None) -> bool:
    """``seat`` (``None``: a spectator) may see ``event``: the table's own events are public,
    the engine's pass its per-seat filter."""
    return isinstance(event, TABLE_EVENTS) or visible_to(event, seat)
