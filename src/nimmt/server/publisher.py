"""What each listener of a table is told after a change: only what its seat may see.

The one place where a table's news leaves for its sockets: every listener gets the new events
that pass the engine's per-seat filter (:func:`~nimmt.server.serialize.events_message`) and its
own state (its seat's :meth:`~nimmt.engine.Game.view`, or a spectator's): as two messages, or as
one ``state`` holding the events for a connection that asked for that (``events=inline``: the
web client does, so that a change costs one frame per socket).

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
    """Send each listener of ``table`` the new events it may see and its own state: as an
    ``events`` message and then a ``state``, or as one ``state`` that holds the events, for a
    connection that asked for that (``events=inline``, docs/protocol.md)."""
    if table.needs_restore:
        # It holds a change the database refused: nothing of it may be told. The repair
        # publishes the stored table.
        return
    events = table.take_events()
    if not table.connections:
        return
    news = News(table, events)
    for connection in table.connections:
        if connection.inline:
            connection.send(news.inline_for(connection.seat))
            continue
        told, state = news.for_seat(connection.seat)
        if told is not None:
            connection.send(told)
        connection.send(state)


class News:
    """The messages of one change at ``table``, built once for each seat that listens
    (``None``: the spectators). What every listener sees alike (the table's summary, the public
    part of the view) is built once for all of them."""

    def __init__(self, table: LiveTable, events: list[TableEvent]) -> None:
        self.table = table
        self.summary = serialize.summary(table)
        # Every event's wire form, once; whether a spectator may see it (then every seat may:
        # the engine hides only a seat's own cards from the others).
        self.events = [
            (event, serialize.event_to_json(event), shown_to(event, None)) for event in events
        ]
        self.everybody = all(public for _, _, public in self.events)
        self._told: dict[tuple[int, ...], tuple[list[dict[str, Any]], Frame | None]] = {}
        self._public: dict[str, Any] | None = None
        self._spectator: dict[str, Any] = {}
        self._seats: dict[int | None, tuple[Frame | None, Frame]] = {}
        self._inline: dict[int | None, Frame] = {}

    def for_seat(self, seat: int | None) -> tuple[Frame | None, Frame]:
        """The ``events`` message ``seat`` may see (``None`` when it may see none of them) and
        its own ``state``."""
        known = self._seats.get(seat)
        if known is None:
            known = self._seats[seat] = (self._events_for(seat)[1], Frame(self._state(seat)))
        return known

    def inline_for(self, seat: int | None) -> Frame:
        """``seat``'s ``state`` holding the events it may see (``events``, left out when it may
        see none)."""
        known = self._inline.get(seat)
        if known is None:
            state = self._state(seat)
            wire = self._events_for(seat)[0]
            if wire:
                state["events"] = wire
            known = self._inline[seat] = Frame(state)
        return known

    def _state(self, seat: int | None) -> dict[str, Any]:
        table = self.table
        if self._public is None:
            everybody = table.game.view(None)
            self._public = serialize.public_view_json(
                everybody, table.names(), table.game.waiting_for(), seated=table.full
            )
            self._spectator = serialize.own_view_json(everybody.own_cards())
        own = (
            self._spectator if seat is None else serialize.own_view_json(table.game.own_cards(seat))
        )
        return {
            "type": "state",
            "version": table.version,
            "you": {"seat": seat},
            "table": self.summary,
            "view": {**self._public, **own},
        }

    def _events_for(self, seat: int | None) -> tuple[list[dict[str, Any]], Frame | None]:
        """The events ``seat`` may see, and the ``events`` message of them (``None`` when
        there are none): one for every seat that may see the same."""
        shown = tuple(
            index
            for index, (event, _, public) in enumerate(self.events)
            if self.everybody or public or shown_to(event, seat)
        )
        known = self._told.get(shown)
        if known is None:
            wire = [self.events[index][1] for index in shown]
            told = (
                Frame({"type": "events", "version": self.table.version, "events": wire})
                if wire
                else None
            )
            known = self._told[shown] = (wire, told)
        return known


def shown_to(event: TableEvent, seat: int | None) -> bool:
    """``seat`` (``None``: a spectator) may see ``event``: the table's own events are public,
    the engine's pass its per-seat filter."""
    return isinstance(event, TABLE_EVENTS) or visible_to(event, seat)
