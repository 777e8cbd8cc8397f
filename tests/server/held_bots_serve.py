"""``nimmt serve`` whose bots wait while a file exists: a test's way to hold a bot's move in a
real server process for as long as it needs (not a delay, which a busy machine can outlast).

Run as ``python held_bots_serve.py HOLD_FILE SERVE_ARGS...``; everything else is ``nimmt serve``
as it is (its command line, its settings from the environment).
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import nimmt.server
from nimmt.cli import main
from nimmt.engine import SeatView
from nimmt.server.botpool import BotPool, BotRunner, InlineBots
from nimmt.server.settings import Settings

HOLD_POLL_SECONDS = 0.05


class HeldBots:
    """A :class:`~nimmt.server.botpool.BotRunner` whose decisions wait while ``hold`` exists,
    then are made by ``runner``."""

    def __init__(self, runner: BotRunner, hold: Path) -> None:
        self.runner = runner
        self.hold = hold

    async def start(self) -> None:
        await self.runner.start()

    async def decide(self, bot: str, seed: int, view: SeatView) -> int:
        while self.hold.exists():
            await asyncio.sleep(HOLD_POLL_SECONDS)
        return await self.runner.decide(bot, seed, view)

    async def close(self) -> None:
        await self.runner.close()


def serve_held(hold: Path, arguments: list[str]) -> None:
    real_create_app = nimmt.server.create_app

    def create_app(settings: Settings | None = None, **options: Any) -> Any:
        processes = (settings or Settings()).bot_processes
        runner: BotRunner = BotPool(processes) if processes > 0 else InlineBots()
        return real_create_app(settings, bots=HeldBots(runner, hold), **options)

    nimmt.server.create_app = create_app  # what `nimmt serve` calls
    sys.argv = ["nimmt", "serve", *arguments]
    main()


if __name__ == "__main__":
    serve_held(Path(sys.argv[1]), sys.argv[2:])
