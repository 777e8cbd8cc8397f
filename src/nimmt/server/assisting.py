"""Entering a game played with real cards: opening an assisted table, and each entry at it.

The table itself (how entries rebuild its game) is :mod:`nimmt.server.assisted`; here the
entries arrive, are checked against the token of the device that opened the table and the state
version, and go through the book's commit path like every other change.
"""

from __future__ import annotations

import secrets
from typing import Any

from nimmt.assist import InputRejected
from nimmt.server import assisted
from nimmt.server.actions import ASSIST_KINDS, ActionKind
from nimmt.server.book import CONFLICT_RETRIES, Behind, TableBook, busy
from nimmt.server.errors import ServiceError, quoted
from nimmt.server.storage import SeatRecord, TableRecord, TableStatus
from nimmt.server.table import hash_token


class AssistDesk:
    """The assisted tables of ``book``."""

    def __init__(self, book: TableBook) -> None:
        self.book = book

    async def create(self, names: object) -> tuple[str, str]:
        """A game played with real cards by ``names``: its code and the token that enters its
        cards (shown only this once)."""
        cleaned = assisted.check_names(names)
        token = secrets.token_urlsafe(24)
        seats = tuple(SeatRecord(seat, assisted.SEAT_KIND, None, name)
                      for seat, name in enumerate(cleaned))  # fmt: skip
        created = self.book.clock()
        code = await self.book.store_new(
            lambda code: TableRecord(
                code,
                created,
                seats,
                TableStatus(0, 1, "dealing", 0, False, created),
                assistant_hash=hash_token(token),
            )
        )
        return code, token

    async def enter(
        self,
        code: str,
        token: str | None,
        kind: str,
        *,
        cards: list[int] | None = None,
        row: int | None = None,
        version: int | None = None,
    ) -> None:
        """An entry (``rows``, ``turn``, ``row``, ``undo``), by the token that created the
        table; refused with a clear error, changing nothing, when it cannot be."""
        table = await self.book.load(code)
        if not isinstance(table, assisted.AssistedTable):
            raise ServiceError("not_assisted", "This table is played online, not entered.", 409)
        if kind not in ASSIST_KINDS:
            raise ServiceError("unknown_type", f"There is no entry {quoted(kind)}.")
        for _attempt in range(CONFLICT_RETRIES):
            async with table.lock:
                if not token or not table.knows_token(token):
                    raise ServiceError(
                        "not_assistant", "Only the device that started this game enters it.", 403
                    )
                if version is not None and version != table.version:
                    raise ServiceError(
                        "stale_version",
                        f"The table has moved on (version {table.version}); look again and retry.",
                        409,
                    )
                data: dict[str, Any] | None = {"cards": cards} if cards is not None else None
                action = self.book.action(table, ActionKind(kind), row=row, data=data)
                try:
                    await self.book.commit(table, action)
                except InputRejected as error:
                    raise assisted.refusal(error) from None
                except Behind:
                    continue
                return
        raise busy()
