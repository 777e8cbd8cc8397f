"""The storage of a table's talk: the chat lines and quick reactions said at a table, and the
table's one talk setting (whether spectators may write).

:class:`TalkStore` is the interface (each storage backend has one as ``storage.talk``). Talk is
kept with its table, beside the game, never in it: a line is not an action, takes no version,
and no game record holds it. It is deleted with its table.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Protocol


@dataclass(frozen=True, slots=True)
class TalkLine:
    """One thing said at a table: a chat line (``kind`` ``say``, ``text`` what was written,
    already cleaned) or a quick reaction (``kind`` ``react``, ``text`` the reaction's key)."""

    id: int
    """Increasing in the order the lines were stored (across tables and processes)."""
    code: str
    at: datetime
    kind: str
    seat: int | None
    """The speaker's seat; ``None`` for a spectator."""
    speaker: str
    """An opaque key of who spoke (a seat's token or a spectator's browser, hashed): what a
    listener mutes."""
    name: str
    """The speaker's name when it was said ("" for a spectator who gave none)."""
    text: str


class TalkStore(Protocol):
    """What the table talk needs from a database. Methods block: call them off the event
    loop."""

    def add_line(
        self,
        code: str,
        *,
        at: datetime,
        kind: str,
        seat: int | None,
        speaker: str,
        name: str,
        text: str,
    ) -> TalkLine:
        """Store one line of table ``code``; the stored line (with its id). ``KeyError`` when
        there is no such table."""
        ...

    def recent_lines(self, code: str, limit: int) -> list[TalkLine]:
        """The last ``limit`` lines of the table, oldest first."""
        ...

    def lines_after(self, code: str, after: int, limit: int) -> list[TalkLine]:
        """The lines of the table with an id above ``after``, oldest first, at most ``limit``."""
        ...

    def spectators_may_write(self, code: str) -> bool:
        """Whether spectators may write at the table (False until its creator allows it)."""
        ...

    def set_spectators_may_write(self, code: str, allowed: bool) -> None: ...
