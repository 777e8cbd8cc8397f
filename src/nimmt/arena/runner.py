"""Duplicate matches between bots: every deal played in every rotation of the seats.

docs/formats.md section 3: each deal (one round of 10 turns) is played once for every rotation
of the seats, so every bot plays every hand from every seat; the same seed gives the same deals.
In rotation ``r`` the bot given ``i``-th sits at seat ``(i + r) % P``. With ``games`` instead of
``deals``, each block is a whole game (rounds until someone has more than 66), and every
rotation of a game is dealt the same sequence of rounds for as long as it lasts.

Deals, and the bots' own random choices, are drawn from generators seeded by the arena's seed
and the block, rotation and bot, never from shared state, so a run gives the same games whatever
the number of worker processes. With ``decision_seeds`` each decision's draws come from a
generator of their own (:class:`DecisionSeeded`), so that two bots that differ in one setting
draw the same numbers at the same decision of the same game (a paired screen's common random
numbers).

A ``cmd:COMMAND`` bot (:mod:`nimmt.bots.external`) is one program for the whole match, started
once and asked for every game it sits in; a match with such a bot is played in this process
alone, whatever ``jobs`` says, so that every program is stopped on every way out of
:func:`play_match`.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import random
import signal
import sys
from collections.abc import Callable, Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from nimmt.arena.referee import GamePlay, play_deal, play_game
from nimmt.arena.stats import Estimate, summarize
from nimmt.bots import Bot, ProgramBot, make_bot
from nimmt.bots.external import DEFAULT_MOVE_TIME, is_program
from nimmt.engine import MAX_PLAYERS, MIN_PLAYERS, SeatView, draw_deal


class ArenaError(ValueError):
    """An arena that cannot be run as asked (too few seats, no deals, ...)."""


@dataclass(frozen=True, slots=True)
class Match:
    """What to play: the bots by name (one seat each), how many blocks, and the seed."""

    bots: tuple[str, ...]
    blocks: int
    seed: int
    whole_games: bool = False
    """False: each block is one deal (a round); True: each block is a whole game."""
    keep_records: bool = False
    move_time: float = DEFAULT_MOVE_TIME
    """Seconds a program bot (``cmd:COMMAND``) may take for one decision."""
    decision_seeds: bool = False
    """Seed each decision's draws by the decision (:class:`DecisionSeeded`), instead of one
    generator per bot and game."""


@dataclass(slots=True)
class BlockResult:
    """One block played in every rotation: bullheads by rotation and bot, thinking time."""

    index: int
    scores: list[list[int]]
    """``scores[rotation][bot]``: the bot's bullheads in that rotation's game."""
    seconds: list[float]
    decisions: list[int]
    rounds: int
    records: list[tuple[str, str]] = field(default_factory=list)
    """``(file name, record text)`` for each game, when records are kept."""


def deal_rng(seed: int, block: int, round_index: int = 0) -> random.Random:
    """The generator that deals round ``round_index`` of block ``block``."""
    return random.Random(f"nimmt-arena:{seed}:{block}:{round_index}")


def bot_rng(seed: int, block: int, rotation: int, bot: int) -> random.Random:
    """The generator of the ``bot``-th bot's own random choices in one game."""
    return random.Random(f"nimmt-arena-bot:{seed}:{block}:{rotation}:{bot}")


class DecisionSeeded:
    """The bot called ``name``, made afresh for every decision with a generator seeded by the
    arena's seed, the block, the rotation, the bot's place in the match and the decision (the
    round, the turn, a card or a row).

    By default a bot draws all its decisions of a game from one generator, so a bot that draws
    a different amount of numbers at one decision (another setting, another number of deals)
    draws different numbers at every later one, and two runs of a paired screen part ways at
    the first decision even where both would play the same card. Seeded by the decision, the
    candidate and the baseline draw the same numbers at the same decision, and so do the other
    seats: the games stay the same until a choice differs, and part ways only through what that
    choice changes. The paired difference keeps its expectation and loses part of its noise
    (common random numbers; docs/bots.md measures how much). Made afresh, the bot keeps
    nothing from one decision to the next; the bots built into nimmt decide from the view
    alone, so they play as they would."""

    def __init__(self, name: str, seed: int, block: int, rotation: int, bot: int) -> None:
        self._name = name
        self._key = f"nimmt-arena-decision:{seed}:{block}:{rotation}:{bot}"

    @property
    def name(self) -> str:
        return self._name

    def _bot(self, view: SeatView, kind: str) -> Bot:
        return make_bot(self._name, random.Random(f"{self._key}:{view.round}:{view.turn}:{kind}"))

    def choose_card(self, view: SeatView) -> int:
        return self._bot(view, "card").choose_card(view)

    def choose_row(self, view: SeatView) -> int:
        return self._bot(view, "row").choose_row(view)


def check_match(match: Match) -> None:
    """Raise :class:`ArenaError` (or the bots' ``UnknownBotError``) for a match that cannot run."""
    if not MIN_PLAYERS <= len(match.bots) <= MAX_PLAYERS:
        raise ArenaError(
            f"an arena seats {MIN_PLAYERS} to {MAX_PLAYERS} bots, not {len(match.bots)}"
        )
    if match.blocks < 1:
        raise ArenaError("play at least one deal (or game)")
    for name in match.bots:
        make_bot(name, 0)


def play_block(match: Match, block: int, programs: Mapping[int, Bot] | None = None) -> BlockResult:
    """Play block ``block`` of ``match`` in every rotation of the seats; ``programs`` holds the
    running program bot of each ``cmd:`` entry of ``match.bots`` (by its index there)."""
    seats = len(match.bots)
    result = BlockResult(block, [], [0.0] * seats, [0] * seats, 0)
    rows, hands = draw_deal(deal_rng(match.seed, block), seats)
    for rotation in range(seats):
        # The bot given i-th sits at seat (i + rotation) % seats.
        order = [(seat - rotation) % seats for seat in range(seats)]
        bots: list[Bot] = [
            programs[i]
            if programs is not None and i in programs
            else DecisionSeeded(match.bots[i], match.seed, block, rotation, i)
            if match.decision_seeds
            else make_bot(match.bots[i], bot_rng(match.seed, block, rotation, i))
            for i in order
        ]
        play: GamePlay
        if match.whole_games:
            play = play_game(bots, lambda r: deal_rng(match.seed, block, r))
        else:
            play = play_deal(bots, rows, hands)
        assert play.clock is not None
        by_bot = [0] * seats
        for seat, bot in enumerate(order):
            by_bot[bot] = play.penalties[seat]
            result.seconds[bot] += play.clock.seconds[seat]
            result.decisions[bot] += play.clock.decisions[seat]
        result.scores.append(by_bot)
        result.rounds += play.game.round
        if match.keep_records:
            result.records.append(_record(match, block, rotation, order, play))
    return result


def _record(
    match: Match, block: int, rotation: int, order: Sequence[int], play: GamePlay
) -> tuple[str, str]:
    from nimmt.records import dump_record, to_record

    players = [f"{match.bots[bot]} #{bot + 1}" for bot in order]
    meta = {
        "arena": {
            "seed": match.seed,
            "block": block,
            "rotation": rotation,
            "whole_game": match.whole_games,
            "bots": list(match.bots),
        }
    }
    if match.decision_seeds:
        meta["arena"]["decision_seeds"] = True
    kind = "game" if match.whole_games else "deal"
    name = f"{kind}{block + 1:05d}-rotation{rotation + 1:02d}.json"
    return name, dump_record(to_record(play.game, players, meta))


def play_match(
    match: Match,
    jobs: int = 1,
    on_block: Callable[[BlockResult], None] | None = None,
) -> list[BlockResult]:
    """Play every block of ``match`` (in ``jobs`` worker processes when more than one, unless a
    bot is a program), calling ``on_block`` as each one finishes; the results come back in block
    order. A program bot that fails raises :class:`~nimmt.bots.external.ProgramBotError`."""
    check_match(match)
    results: list[BlockResult] = []

    def finished(result: BlockResult) -> None:
        results.append(result)
        if on_block is not None:
            on_block(result)

    if any(is_program(name) for name in match.bots):
        with ExitStack() as programs:
            running: dict[int, Bot] = {
                index: programs.enter_context(ProgramBot(name, move_time=match.move_time))
                for index, name in enumerate(match.bots)
                if is_program(name)
            }
            for block in range(match.blocks):
                finished(play_block(match, block, running))
    elif jobs <= 1:
        for block in range(match.blocks):
            finished(play_block(match, block))
    else:
        # A multiprocessing pool rather than concurrent.futures: on Ctrl-C it can be terminated
        # at once, whereas an executor waits at exit for its workers' queued blocks.
        with multiprocessing.Pool(
            jobs, initializer=leave_stopping_to_parent, initargs=(os.getpid(),)
        ) as pool:
            for result in pool.imap_unordered(partial(play_block, match), range(match.blocks)):
                finished(result)
    results.sort(key=lambda result: result.index)
    return results


PR_SET_PDEATHSIG = 1
"""Linux's ``prctl`` option: the signal this process gets when the thread that forked it ends."""


def leave_stopping_to_parent(parent: int) -> None:
    """A pool worker's start (the arena's and the ladder's): the parent alone stops the run.

    Ctrl-C reaches every process of the terminal's group: the workers ignore it, so that the
    parent alone stops the run, cleanly, instead of each worker printing a traceback. The
    parent's handlers for SIGTERM and SIGHUP (:mod:`nimmt.cli.stopping`) are inherited by the
    fork and would raise KeyboardInterrupt in a worker that the pool ends with SIGTERM. And a
    worker the pool forked while its parent was stopping (a replacement, from the pool's own
    thread) could miss the pool's SIGTERM and wait for work forever: on Linux each worker is
    killed when the thread that forked it ends, and one whose parent is already gone ends."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGHUP, signal.SIG_DFL)
    if sys.platform == "linux":
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:
        os._exit(0)


def _rounded(value: float | None, digits: int) -> float | None:
    return None if value is None else round(value, digits)


def _interval(estimate: Estimate) -> list[float | None]:
    return [_rounded(estimate.low, 3), _rounded(estimate.high, 3)]


def report(match: Match, results: Sequence[BlockResult]) -> dict[str, Any]:
    """The arena's JSON report (docs/formats.md section 3) for the played blocks."""
    figures = summarize([result.scores for result in results])
    seats = len(match.bots)
    bots: list[dict[str, Any]] = []
    for index, name in enumerate(match.bots):
        seconds = sum(result.seconds[index] for result in results)
        decisions = sum(result.decisions[index] for result in results)
        figure = figures[index]
        bots.append(
            {
                "bot": name,
                "mean": round(figure.mean.mean, 3),
                "ci95": _interval(figure.mean),
                "vs_others": round(figure.vs_others.mean, 3),
                "vs_others_ci95": _interval(figure.vs_others),
                "win_share": round(figure.win_share, 4),
                "ms_per_move": round(1000.0 * seconds / decisions, 3) if decisions else 0.0,
            }
        )
    rounds = sum(result.rounds for result in results)
    out: dict[str, Any] = {"seats": seats}
    if match.whole_games:
        out.update({"mode": "games", "whole_games": len(results), "rounds": rounds})
        out.update({"deals": rounds, "games": len(results) * seats})
    else:
        out.update({"mode": "deals", "deals": len(results), "games": len(results) * seats})
    out["seed"] = match.seed
    if match.decision_seeds:
        out["decision_seeds"] = True
    out["bots"] = bots
    return out
