"""The kinds of action a table's log holds, one enum for the router, the service and the table.

Every change of a table is stored as one :class:`~nimmt.server.storage.ActionRecord` whose
``kind`` is one of these. A :class:`~enum.StrEnum` is its own text, so a kind read back from the
database (plain text) compares equal to its member, and the wire and the database stay as they
were.
"""

from __future__ import annotations

from enum import StrEnum


class ActionKind(StrEnum):
    """What an action does to its table."""

    JOIN = "join"
    """A person takes a free seat (its name and token hash)."""
    LEAVE = "leave"
    """A person leaves a seat: free again before the first deal, a bot's during a game."""
    DEAL = "deal"
    """The dealer's cards for a round: the four row cards and every hand."""
    PLAY = "play"
    """A seat chooses its face-down card (a person may change it until the last has chosen)."""
    RETRACT = "retract"
    """A person takes back the face-down card not yet revealed."""
    CHOOSE_ROW = "choose_row"
    """The owner of a card below every row chooses the row they take."""
    REMATCH_VOTE = "rematch_vote"
    """After game over, a person agrees to play again (or takes it back)."""
    REMATCH = "rematch"
    """The next game starts (every person seated agreed)."""
    ROWS = "rows"
    """Assisted table: a round's four starting row cards, as dealt at the real table."""
    TURN = "turn"
    """Assisted table: every player's revealed card, in player order."""
    ROW = "row"
    """Assisted table: the row the owner of a too-low card takes."""
    UNDO = "undo"
    """Assisted table: takes back the last entry still standing."""
    HANDOVER = "handover"
    """The table's agreement to let a bot play for an absent person (data ``step``: ``propose``
    with ``target`` and ``bot``, ``agree`` (``done`` when it completed it), ``decline``,
    ``withdraw``); see :mod:`nimmt.server.standins`."""
    RETURN = "return"
    """An absent person is back: their seat is theirs again from the next decision on."""


PEOPLE_ACTIONS = frozenset(
    {
        ActionKind.JOIN,
        ActionKind.LEAVE,
        ActionKind.PLAY,
        ActionKind.RETRACT,
        ActionKind.CHOOSE_ROW,
        ActionKind.REMATCH,
        ActionKind.REMATCH_VOTE,
        ActionKind.ROWS,
        ActionKind.TURN,
        ActionKind.ROW,
        ActionKind.UNDO,
        ActionKind.HANDOVER,
        ActionKind.RETURN,
    }
)
"""Kinds a person's action can have: when a person (not a bot) makes one, it keeps the table in
the lobby and in memory."""

SEAT_CHANGES = frozenset({ActionKind.JOIN, ActionKind.LEAVE})
"""Kinds that change who holds a seat: the connections' seats are looked at again after them."""

ENTRY_KINDS = (ActionKind.ROWS, ActionKind.TURN, ActionKind.ROW)
"""At an assisted table: the actions that enter something; ``undo`` takes the last one back."""
ASSIST_KINDS = (*ENTRY_KINDS, ActionKind.UNDO)
"""Everything stored at an assisted table."""

SEAT_ACTIONS = (
    ActionKind.PLAY,
    ActionKind.RETRACT,
    ActionKind.CHOOSE_ROW,
    ActionKind.REMATCH,
    ActionKind.LEAVE,
)
"""What a seated person sends at an online table (the socket's message types of the same names)."""

STAND_IN_KINDS = frozenset({ActionKind.HANDOVER, ActionKind.RETURN})
"""The table's agreements about an absent person's seat (:mod:`nimmt.server.standins`)."""
