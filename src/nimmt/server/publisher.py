"""What each listener of a table is told after a change: only what its seat may see.

The one place where a table's news leaves for its sockets: every listener gets the new events
that pass the engine's per-seat filter (:func:`~nimmt.server.serialize.events_message`) and then
its own state (its seat's :meth:`~nimmt.engine.Game.view`, or a spectator's).
"""

from __future__ import annotations

from nimmt.server import serialize
from nimmt.server.table import LiveTable


def publish(table: LiveTable) -> None:
    """Send each listener of ``table`` the new events it may see, then its own state."""
    if table.needs_restore:
        # It holds a change the database refused: nothing of it may be told. The repair
        # publishes the stored table.
        return
    events = table.take_events()
    shared = serialize.summary(table)
    for connection in table.connections:
        message = serialize.events_message(events, table.version, connection.seat)
        if message is not None:
            connection.send(message)
        connection.send(serialize.state_message(table, connection.seat, shared))
