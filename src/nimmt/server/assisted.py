"""Assisted tables: games played with a real deck at a real table, entered on one device.

The device that created the table (its token) enters what the people at the table reveal; the
server keeps the game and shows it live to everyone who opens its link. Nothing is hidden at a
real table once revealed, so everyone watches the same spectator view; no seat is played through
the server, so nothing deals or moves by itself.

The table's log is append-only, like any table's: ``rows`` (a round's four starting row cards),
``turn`` (every player's card, in player order), ``row`` (the row the owner of a too-low card
takes, 0 to 3) and ``undo`` (takes back the last entry still standing: several undos go back
several entries, across a row choice too). The game is always rebuilt by
:class:`~nimmt.assist.Assistant` from the entries still standing, so its rules, refusals and
record are those of the engine and of ``nimmt assist``.
"""

from __future__ import annotations

import hmac
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from nimmt.assist import Assistant, InputRejected
from nimmt.engine import MAX_PLAYERS, MIN_PLAYERS
from nimmt.names import BadNameError, clean_names
from nimmt.server.actions import ENTRY_KINDS, ActionKind
from nimmt.server.errors import ServiceError
from nimmt.server.events import EntryUndone
from nimmt.server.storage import ActionRecord
from nimmt.server.table import LiveTable, hash_token

SEAT_KIND = "real"
"""The kind of an assisted table's seats: a person at the real table, entered by the assistant."""


def check_names(names: object) -> list[str]:
    """The players' names (2 to 10, each a usable name, no two alike), or a
    :class:`ServiceError`."""
    if not isinstance(names, list):
        raise ServiceError("bad_request", "The players' names must be a list.", 422)
    if not MIN_PLAYERS <= len(names) <= MAX_PLAYERS:
        raise ServiceError(
            "bad_player_count",
            f"A game has {MIN_PLAYERS} to {MAX_PLAYERS} players, not {len(names)}.",
            422,
        )
    try:
        return clean_names(names)
    except BadNameError as error:
        raise ServiceError.refusing(error) from None


def refusal(error: InputRejected) -> ServiceError:
    """The socket's error for an entry the assistant refused (its code, its sentence, and what
    fills it in for the translations)."""
    details = {
        key: value
        for key, value in (("card", error.card), ("row", error.row), ("expected", error.expected))
        if value is not None
    }
    message = str(error)
    return ServiceError(error.code, message[:1].upper() + message[1:] + ".", 422, details)


@dataclass(eq=False)
class AssistedTable(LiveTable):
    """A table whose game is entered with :class:`~nimmt.assist.Assistant` (see the module)."""

    assisted: ClassVar[bool] = True
    assistant_hash: str = ""
    entries: list[ActionRecord] = field(default_factory=list)
    """The entries still standing, oldest first (what ``undo`` left)."""
    assistant: Assistant = field(init=False)

    def __post_init__(self) -> None:
        self.assistant = Assistant(self._player_names())
        super().__post_init__()
        self.game = self.assistant.game

    def _player_names(self) -> list[str]:
        return [seat.name or f"Player {seat.seat + 1}" for seat in self.seats]

    @property
    def full(self) -> bool:
        return True  # every player is at the real table from the start

    def knows_token(self, token: str) -> bool:
        return hmac.compare_digest(self.assistant_hash, hash_token(token))

    def apply(self, action: ActionRecord) -> None:
        """Enter one stored or new entry (an :class:`~nimmt.assist.InputRejected` changes
        nothing), or take the last one back."""
        if action.kind == ActionKind.UNDO:
            if not self.entries:
                raise ServiceError("nothing_to_undo", "There is nothing to undo.", 409)
            undone = self.entries[-1]
            self._rebuild(self.entries[:-1])
            # The game is rebuilt, not extended: its events start over. Listeners are told of
            # the undo and redraw from the state; a reconnecting one is sent the state alone.
            self.events_seen = len(self.game.events)
            self.history.clear()
            self.pending_events.append(EntryUndone(undone.kind))
        elif action.kind in ENTRY_KINDS:
            enter(self.assistant, action)
            self.entries.append(action)
            self.game = self.assistant.game
        else:
            raise ValueError(f"unknown action {action.kind!r} at an assisted table")
        self.version = action.seq
        self.note_change()

    def _rebuild(self, entries: Sequence[ActionRecord]) -> None:
        assistant = Assistant(self._player_names())
        for entry in entries:
            enter(assistant, entry)
        self.assistant = assistant
        self.entries = list(entries)
        self.game = assistant.game

    def replay(self, actions: Iterable[ActionRecord], version: int) -> None:
        self.assistant = Assistant(self._player_names())
        self.entries = []
        super().replay(actions, version)
        self.game = self.assistant.game
        self.events_seen = len(self.game.events)

    def record(self) -> dict[str, Any]:
        """The game record so far (a round still going has its unplayed hands filled in, and
        ``meta`` says so; see :meth:`nimmt.assist.Assistant.record`)."""
        record = self.assistant.record()
        record["meta"] = {**record.get("meta", {}), "table": self.code}
        return record


def enter(assistant: Assistant, action: ActionRecord) -> None:
    """Give ``assistant`` one entry (:class:`~nimmt.assist.InputRejected` if it cannot be)."""
    data = action.data or {}
    if action.kind == ActionKind.ROWS:
        assistant.start_round(list(data.get("cards", ())))
    elif action.kind == ActionKind.TURN:
        assistant.reveal(list(data.get("cards", ())))
    elif action.kind == ActionKind.ROW:
        assert action.row is not None
        assistant.take_row(action.row)
    else:
        raise ValueError(f"unknown entry {action.kind!r}")
