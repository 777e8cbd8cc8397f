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

A connection that asked for ``events=changes`` (the web client does) is told a change as one
``change`` message: its events and only the parts of the table's summary and of the view that
differ from what that connection was told last (:class:`~nimmt.server.table.Told`). Most
listeners of a change are told the same few parts (a face-down card: who has chosen), so one
frame serves them, and a table's rows, hands and score sheet go out only when they change.
"""

from __future__ import annotations

from typing import Any

from nimmt.engine import OwnCards, visible_to
from nimmt.server import serialize
from nimmt.server.events import TABLE_EVENTS, TableEvent
from nimmt.server.serialize import Frame
from nimmt.server.table import Connection, LiveTable, Told

SPECTATORS_OWN = serialize.own_view_json(OwnCards(None, (), (), None, False))
"""A spectator's own part of the view: no cards, nothing to choose (the same in every view the
engine gives a spectator)."""


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
        if connection.changes:
            change = news.change_for(connection)
            if change is not None:
                connection.send(change)
            continue
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
        self._changed: dict[int, dict[str, Any]] = {}
        self.summary = _share(table, "table", serialize.summary(table), self._changed)
        # Every event's wire form, once; whether a spectator may see it (then every seat may:
        # the engine hides only a seat's own cards from the others).
        self.events = [
            (event, serialize.event_to_json(event), shown_to(event, None)) for event in events
        ]
        self.everybody = all(public for _, _, public in self.events)
        self._shown: dict[int | None, tuple[int, ...]] = {}
        self._told: dict[tuple[int, ...], tuple[list[dict[str, Any]], Frame | None]] = {}
        self._public: dict[str, Any] | None = None
        self._own: dict[int | None, dict[str, Any]] = {}
        self._seats: dict[int | None, tuple[Frame | None, Frame]] = {}
        self._inline: dict[int | None, Frame] = {}
        self._changes: dict[tuple[Any, ...], Frame | None] = {}

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
            wire = self._events_for(seat)[2]
            if wire:
                state["events"] = wire
            known = self._inline[seat] = Frame(state)
        return known

    def whole_for(self, connection: Connection) -> Frame:
        """``connection``'s whole ``state`` holding the events it may see; for a ``changes``
        listener, also the base of its next ``change``."""
        seat = connection.seat
        if connection.changes:
            public, own = self._parts(seat)
            connection.told = Told(seat, self.table.version, self.summary, public, own)
        return self.inline_for(seat)

    def change_for(self, connection: Connection) -> Frame | None:
        """The ``change`` that brings ``connection`` from what it was told last to now: the
        events it may see and what differs of the summary and the view (``None`` when nothing
        does); a whole ``state`` when it holds no base (just connected, or it fell behind and
        lost what was queued), or its seat changed."""
        told = connection.told
        seat = connection.seat
        if told is None or told.seat != seat:
            return self.whole_for(connection)
        public, own = self._parts(seat)
        version_before, table_before = told.version, told.table
        public_before, own_before = told.public, told.own
        own_changed = {} if own is own_before else self._changed_since(own_before, own)
        shown, _, wire = self._events_for(seat)
        key = (
            version_before,
            id(table_before),
            id(public_before),
            (seat, id(own_before)) if own_changed else None,
            shown,
        )
        told.move(self.table.version, self.summary, public, own)
        if key in self._changes:
            return self._changes[key]
        message: dict[str, Any] = {"type": "change", "version": self.table.version}
        if wire:
            message["events"] = wire
        table_changed = self._changed_since(table_before, self.summary)
        if table_changed:
            message["table"] = table_changed
        view_changed = {**self._changed_since(public_before, public), **own_changed}
        if view_changed:
            message["view"] = view_changed
        nothing = len(message) == 2 and version_before == self.table.version
        frame = self._changes[key] = None if nothing else Frame(message)
        return frame

    def _changed_since(self, before: dict[str, Any], now: dict[str, Any]) -> dict[str, Any]:
        """The entries of ``now`` that differ from ``before`` (worked out once per ``before``:
        the listeners told the same last share it; for the part told last, :func:`_share`
        already did). ``now`` is this news' part of the kind ``before`` is (the summary, the
        public part, or the own part of the listener's seat: every own part is its seat's
        own object), so ``before`` alone is the key."""
        known = self._changed.get(id(before))
        if known is None:
            known = self._changed[id(before)] = _changed(before, now)
        return known

    def _parts(self, seat: int | None) -> tuple[dict[str, Any], dict[str, Any]]:
        """The public part of the view (built once for every listener) and ``seat``'s own."""
        table = self.table
        if self._public is None:
            everybody = table.game.view(None)
            self._public = _share(
                table,
                "public",
                serialize.public_view_json(
                    everybody, table.names(), table.game.waiting_for(), seated=table.full
                ),
                self._changed,
            )
            self._own[None] = SPECTATORS_OWN
        own = self._own.get(seat)
        if own is None:
            assert seat is not None  # (the spectators' part is built with the public one)
            cards = table.game.own_cards(seat)
            if table.own_told.get(seat) is cards:
                own = table.shown[seat]  # the engine's very part: nothing of it changed
            else:
                own = _share(table, seat, serialize.own_view_json(cards), self._changed)
                table.own_told[seat] = cards
            self._own[seat] = own
        return self._public, own

    def _state(self, seat: int | None) -> dict[str, Any]:
        public, own = self._parts(seat)
        return {
            "type": "state",
            "version": self.table.version,
            "you": {"seat": seat},
            "table": self.summary,
            "view": {**public, **own},
        }

    def _events_for(
        self, seat: int | None
    ) -> tuple[tuple[int, ...], Frame | None, list[dict[str, Any]]]:
        """Which of the events ``seat`` may see (their indexes), the ``events`` message of them
        (``None`` when there are none) and their wire forms: one for every seat that may see
        the same."""
        shown = self._shown.get(seat)
        if shown is None:
            shown = self._shown[seat] = (
                tuple(range(len(self.events)))
                if self.everybody
                else tuple(
                    index
                    for index, (event, _, public) in enumerate(self.events)
                    if public or shown_to(event, seat)
                )
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
        return shown, known[1], known[0]


def merge_queued(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What a ``changes`` connection's queue holds, with each run of a ``state`` or ``change``
    followed by ``change`` messages told as one message: the changes' events in order, their
    parts over the first's, the last one's version (a socket that fell behind hears a backlog
    in one frame instead of one each). Other messages keep their place; nothing is changed in
    place (the messages are frames other listeners share)."""
    merged: list[dict[str, Any]] = []
    for message in messages:
        last = merged[-1] if merged else None
        if (
            last is None
            or message.get("type") != "change"
            or last.get("type") not in ("state", "change")
        ):
            merged.append(message)
            continue
        combined = apply_change(last, message)
        events = [*last.get("events", ()), *message.get("events", ())]
        if events:
            combined["events"] = events
        merged[-1] = combined
    return merged


def apply_change(held: dict[str, Any], change: dict[str, Any]) -> dict[str, Any]:
    """What a ``changes`` client holds after ``change`` (docs/protocol.md): ``held`` (a
    ``state``, or what earlier changes made of one) with the change's ``table`` and ``view``
    parts over its own and the change's version. The events are left as they were: a client
    hears them once, the queue merges them. Nothing is changed in place."""
    applied = {**held, "version": change["version"]}
    for part in ("table", "view"):
        if part in change:
            applied[part] = {**held.get(part, {}), **change[part]}
    return applied


_MISSING = object()
"""Stands for a key a part did not have (``None`` is a value the wire knows)."""


def _share(
    table: LiveTable,
    part: str | int,
    now: dict[str, Any],
    diffs: dict[int, dict[str, Any]],
) -> dict[str, Any]:
    """``now``, a new part of ``table``'s news, with each value equal to the one told last in
    that part replaced by that very object, and kept as the part told last; what differs from
    the part told last goes into ``diffs`` under that part's ``id`` (:meth:`News.
    _changed_since`: nearly every listener was told that part last).

    Most of a change leaves most of the view as it was (the rows, the names, the score sheet),
    yet every change builds it afresh. The listeners hold what they were told until their next
    change, so every copy outlived a pass of the cyclic collector and was scanned by it, at
    400 tables tens of thousands of objects per pass. Shared, a value lives once, the copies
    die at once, and :func:`_changed` knows an unchanged value by its identity."""
    before = table.shown.get(part)
    if before is not None:
        changed = {}
        for key, value in now.items():
            old = before.get(key, _MISSING)
            if old is value:
                continue
            if old == value:
                now[key] = old
            else:
                changed[key] = value
        diffs[id(before)] = changed
    table.shown[part] = now
    return now


def _changed(before: dict[str, Any], now: dict[str, Any]) -> dict[str, Any]:
    """The entries of ``now`` whose values differ from ``before``'s (every entry of a state's
    part is always there, so none is ever removed; a value shared with ``before`` is the same
    object, :func:`_share`)."""
    changed = {}
    for key, value in now.items():
        old = before.get(key, _MISSING)
        if old is not value and old != value:
            changed[key] = value
    return changed


def shown_to(event: TableEvent, seat: int | None) -> bool:
    """``seat`` (``None``: a spectator) may see ``event``: the table's own events are public,
    the engine's pass its per-seat filter."""
    return isinstance(event, TABLE_EVENTS) or visible_to(event, seat)
