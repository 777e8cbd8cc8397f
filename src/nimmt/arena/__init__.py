"""The arena: bots against each other on duplicate deals, with honest statistics.

:func:`play_match` plays a :class:`Match` (every deal in every rotation of the seats, in worker
processes if asked) and :func:`report` turns the results into the figures of docs/formats.md
section 3 (``mean``, ``ci95``, ``vs_others``, ``win_share``, ``ms_per_move``). The referee
(:mod:`nimmt.arena.referee`) runs each game through :class:`nimmt.engine.Game` and hands each
bot only its own seat's view.
"""

from nimmt.arena.referee import Clock, GamePlay, play_deal, play_game, play_round
from nimmt.arena.runner import (
    ArenaError,
    BlockResult,
    Match,
    check_match,
    play_block,
    play_match,
    report,
)
from nimmt.arena.stats import BotFigures, Estimate, estimate, summarize, vs_others, win_shares

__all__ = [
    "ArenaError",
    "BlockResult",
    "BotFigures",
    "Clock",
    "Estimate",
    "GamePlay",
    "Match",
    "check_match",
    "estimate",
    "play_block",
    "play_deal",
    "play_game",
    "play_match",
    "play_round",
    "report",
    "summarize",
    "vs_others",
    "win_shares",
]
