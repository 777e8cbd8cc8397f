"""Chance at the tables: the deal of every round, and the seeds of the bots' and the coach's
decisions.

The deal is chance, drawn here from the operating system's secure randomness and stored card by
card like any action (:class:`~nimmt.server.actions.ActionKind` ``deal``), so that a restarted
server, or another process, replays the very same game. A fixed deal seed (tests) makes the
games repeat: the seed alone, not the random table code, fixes them.
"""

from __future__ import annotations

import random
import secrets

from nimmt.engine import Phase, draw_deal
from nimmt.server.actions import ActionKind
from nimmt.server.book import TableBook
from nimmt.server.table import LiveTable


class Dealer:
    """Deals each new round at the tables of ``book``; secure randomness unless ``seed``."""

    def __init__(self, book: TableBook, seed: int | None = None) -> None:
        self.book = book
        self.seed = seed

    async def deal_due(self, table: LiveTable) -> None:
        """Deal (lock held) every round that is due: a table whose seats are all taken, with a
        person at it, waiting for its cards."""
        # The phase first: it is the cheap check, and a deal is due after few changes.
        while table.game.phase is Phase.DEALING and table.full and table.has_people:
            rng = self.rng(table.code, "deal", table.game_number, table.game.round + 1)
            rows, hands = draw_deal(rng, len(table.seats))
            action = self.book.action(table, ActionKind.DEAL, data={"rows": rows, "hands": hands})
            await self.book.commit(table, action)

    def rng(self, code: str, *purpose: object) -> random.Random:
        """Secure randomness for deals and bots; a fixed one when a deal seed is set (tests)."""
        if self.seed is None:
            return random.Random(secrets.randbits(256))
        return random.Random("/".join(str(part) for part in (self.seed, *purpose)))

    def decision_seed(self, code: str, *purpose: object) -> int:
        """A seed for a bot's or the coach's decision: secure randomness, or fixed by the deal
        seed (tests)."""
        if self.seed is None:
            return secrets.randbits(63)
        return self.rng(code, *purpose).randrange(2**63)
