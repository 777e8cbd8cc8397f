"""Saved policies at the web tables: the ``.npz`` files of ``NIMMT_POLICY_DIR``, offered as bots.

A web table seats only the bot names the server offers (``GET /api/bots``); a person can never
name a file. When the operator sets ``NIMMT_POLICY_DIR``, every policy file directly in that
folder (``NAME.npz``, docs/env.md) is offered as the bot ``policy:NAME.npz``, after the built-in
ones; the bots' workers play it from the file's full path, which no client ever sees. A folder
that is missing, or a file in it that is not a readable policy, stops the server at start with a
message naming it; a ``policy:`` bot the server does not offer (a table stored while another
folder was set) never reads a file: its seat plays the lowest card, as a bot that fails does.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from nimmt.bots.saved import PREFIX, PolicyFileError, is_policy, load_policy
from nimmt.engine import SeatView
from nimmt.server.botpool import BotRunner


class PolicyDirError(ValueError):
    """``NIMMT_POLICY_DIR`` names no folder, or holds a file that is not a readable policy."""


def offered_policies(folder: Path) -> dict[str, str]:
    """``{"policy:NAME.npz": "policy:/full/path/NAME.npz"}`` for every policy file in
    ``folder`` (not in its subfolders), in name order; a :class:`PolicyDirError` for a folder
    that is missing or a file that cannot be read as a policy."""
    if not folder.is_dir():
        raise PolicyDirError(f"NIMMT_POLICY_DIR: {str(folder)!r} is not a folder")
    offered = {}
    for path in sorted(folder.resolve().glob("*.npz")):
        if not path.is_file():
            continue
        try:
            load_policy(path)
        except PolicyFileError as error:
            raise PolicyDirError(f"NIMMT_POLICY_DIR: {error}") from None
        offered[f"{PREFIX}{path.name}"] = f"{PREFIX}{path}"
    return offered


class PolicyBots:
    """A :class:`~nimmt.server.botpool.BotRunner` that gives ``runner`` the full path of an
    offered policy instead of its name at the table."""

    def __init__(self, runner: BotRunner, offered: Mapping[str, str]) -> None:
        self.runner = runner
        self.offered = dict(offered)

    async def start(self) -> None:
        await self.runner.start()

    async def decide(self, bot: str, seed: int, view: SeatView) -> int:
        if is_policy(bot) and bot not in self.offered:  # e.g. stored before a restart
            raise PolicyFileError(f"the policy {bot!r} is not offered (NIMMT_POLICY_DIR)")
        return await self.runner.decide(self.offered.get(bot, bot), seed, view)

    async def close(self) -> None:
        await self.runner.close()
