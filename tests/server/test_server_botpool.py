"""The server's bots think in worker processes of their own, at a lower priority, and decide
exactly as the same bot would in the server's own thread."""

from __future__ import annotations

import asyncio
import os
import random

from nimmt.engine import Game, deal_cards
from nimmt.server.botpool import WORKER_NICENESS, BotPool, InlineBots


def _worker_facts() -> tuple[int, int]:
    return os.getpid(), os.nice(0)


def test_the_pool_decides_as_the_bot_does_but_in_another_process() -> None:
    game = Game(4)
    game.deal_cards(*deal_cards(random.Random(7), 4))
    views = [game.view(seat) for seat in range(4)]

    async def scenario() -> None:
        pool = BotPool(2)
        inline = InlineBots()
        try:
            for name in ("random", "greedy", "easy"):
                for seed, view in enumerate(views):
                    assert await pool.decide(name, seed, view) == await inline.decide(
                        name, seed, view
                    )
            loop = asyncio.get_running_loop()
            pid, niceness = await loop.run_in_executor(pool._pool(), _worker_facts)
            assert pid != os.getpid()
            assert niceness >= min(19, os.nice(0) + WORKER_NICENESS)
        finally:
            await pool.close()

    asyncio.run(scenario())
