"""The in-memory twin of :class:`~nimmt.server.storage.talk.TalkStore` (for tests)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import datetime

from nimmt.server.storage.talk import TalkLine


class MemoryTalk:
    """Talk lines and settings in memory; ``exists(code)`` says whether a table is stored."""

    def __init__(self, exists: Callable[[str], bool]) -> None:
        self._exists = exists
        self._lock = threading.Lock()
        self._lines: dict[str, list[TalkLine]] = {}
        self._spectators: dict[str, bool] = {}
        self._next_id = 1

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
        if not self._exists(code):
            raise KeyError(code)
        with self._lock:
            line = TalkLine(self._next_id, code, at, kind, seat, speaker, name, text)
            self._next_id += 1
            self._lines.setdefault(code, []).append(line)
            return line

    def recent_lines(self, code: str, limit: int) -> list[TalkLine]:
        with self._lock:
            return list(self._lines.get(code, [])[-limit:]) if limit > 0 else []

    def lines_after(self, code: str, after: int, limit: int) -> list[TalkLine]:
        with self._lock:
            return [line for line in self._lines.get(code, []) if line.id > after][:limit]

    def spectators_may_write(self, code: str) -> bool:
        with self._lock:
            return self._spectators.get(code, False)

    def set_spectators_may_write(self, code: str, allowed: bool) -> None:
        if not self._exists(code):
            raise KeyError(code)
        with self._lock:
            self._spectators[code] = allowed

    def forget(self, code: str) -> None:
        """The table was deleted: its talk goes with it."""
        with self._lock:
            self._lines.pop(code, None)
            self._spectators.pop(code, None)
