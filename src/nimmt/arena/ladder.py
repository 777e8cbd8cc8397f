"""The bot ladder: every bot against the others on duplicate deals, rated by Bradley-Terry.

docs/bots.md ("The ladder"): the tables are every set of ``seats`` bots drawn from the ladder's
bots (all the ``seats``-subsets), so every pair of bots meets at the same number of tables. Each
table plays its deals as the arena does (:func:`nimmt.arena.runner.play_block`: every deal in
every rotation of the seats), block ``k`` of every table on the same deal, the arena's
``deal_rng(seed, k)``.

A deal gives one paired result for each pair of bots at the table: the bot with fewer bullheads
over the deal's rotations wins it, equal bullheads are a tie (half a win each). The ratings are
the Bradley-Terry model fitted to those results (:func:`fit_bradley_terry`), on the Elo scale
(a difference of 400 points is 10-to-1 odds of winning a deal's comparison), centred on the
ladder's mean. The 95% intervals come from a bootstrap over deals: each table's deals are drawn
again with replacement and the model refitted, so the deals' shared cards are not taken for
independent evidence.

A ladder is kept in a JSON file (:func:`load_ladder`, :func:`save_ladder`): running it again
with a new bot plays only the tables that include it.
"""

from __future__ import annotations

import json
import math
import multiprocessing
import os
from collections.abc import Callable, Iterable
from contextlib import ExitStack
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from nimmt.arena.runner import BlockResult, Match, leave_stopping_to_parent, play_block
from nimmt.bots import Bot, ProgramBot, make_bot
from nimmt.bots.external import DEFAULT_MOVE_TIME, is_program
from nimmt.engine import MAX_PLAYERS, MIN_PLAYERS

FORMAT = "nimmt-ladder"
VERSION = 1
BOOTSTRAP_SAMPLES = 200
ELO = 400.0 / math.log(10.0)
"""Elo points per unit of Bradley-Terry strength (natural log)."""
PRIOR_TIES = 1.0
"""Virtual tied deals between every two bots: keeps a bot that won every comparison finite."""

Table = tuple[str, ...]


class LadderError(ValueError):
    """A ladder that cannot be run as asked (too few bots, a file that is not a ladder, ...)."""


@dataclass(slots=True)
class Block:
    """One deal of one table, played in every rotation (as :class:`BlockResult` holds it)."""

    scores: list[list[int]]
    """``scores[rotation][bot]``: bullheads, the bots in the table's order."""
    seconds: list[float]
    decisions: list[int]


@dataclass(slots=True)
class Ladder:
    """The bots (in the order they joined), the tables' played deals by index, and the seed."""

    seats: int
    seed: int
    bots: list[str] = field(default_factory=list)
    tables: dict[Table, dict[int, Block]] = field(default_factory=dict)

    def schedule(self) -> list[Table]:
        """Every table of the ladder: each set of ``seats`` bots, in the bots' order."""
        return list(combinations(self.bots, self.seats))

    def missing(self, deals: int, *, extend: bool = True) -> list[tuple[Table, int]]:
        """The (table, deal index) pairs to play so that every table has ``deals`` deals (with
        ``extend`` false, only the tables with none yet)."""
        return [
            (table, block)
            for table in self.schedule()
            if extend or not self.tables.get(table)
            for block in range(deals)
            if block not in self.tables.get(table, {})
        ]

    def add(self, table: Table, block: int, result: BlockResult) -> None:
        self.tables.setdefault(table, {})[block] = Block(
            result.scores, result.seconds, result.decisions
        )


def canonical(name: str) -> str:
    """A bot's name as the ladder keeps it: the built-in ones as :func:`make_bot` reads them
    (``Greedy`` is ``greedy``), a ``cmd:`` program as given."""
    return name.strip() if is_program(name) else name.strip().lower()


def join(ladder: Ladder, names: Iterable[str]) -> list[str]:
    """Add the bots ``names`` to ``ladder`` (the ones it has are kept); returns the new ones.
    Raises :class:`LadderError` for a name given twice, the bots' ``UnknownBotError`` for one
    they do not know."""
    added: list[str] = []
    for raw in names:
        name = canonical(raw)
        if name in added:
            raise LadderError(f"{name} is named twice: each bot has one place on the ladder")
        if name not in ladder.bots:
            make_bot(name, 0)  # an unknown name fails here, before anything is played
            added.append(name)
    ladder.bots.extend(added)
    return added


def check_ladder(ladder: Ladder, deals: int) -> None:
    if not MIN_PLAYERS <= ladder.seats <= MAX_PLAYERS:
        raise LadderError(
            f"tables seat {MIN_PLAYERS} to {MAX_PLAYERS} bots, not {ladder.seats} (--seats)"
        )
    if len(ladder.bots) < ladder.seats:
        raise LadderError(
            f"a ladder of {ladder.seats}-seat tables needs at least {ladder.seats} bots, "
            f"it has {len(ladder.bots)}"
        )
    if deals < 1:
        raise LadderError("play at least one deal at each table (--deals)")


def play_ladder(
    ladder: Ladder,
    deals: int,
    *,
    jobs: int = 1,
    move_time: float = DEFAULT_MOVE_TIME,
    on_block: Callable[[Table, int], None] | None = None,
    extend: bool = True,
) -> int:
    """Play what ``ladder`` lacks for ``deals`` deals at every table (in ``jobs`` worker
    processes; tables with a ``cmd:`` program in this one, each program started once), calling
    ``on_block`` after each deal is added; with ``extend`` false, only the tables that have no
    deal yet are played. Returns the number of deals played."""
    check_ladder(ladder, deals)
    tasks = ladder.missing(deals, extend=extend)
    local = [task for task in tasks if any(is_program(name) for name in task[0])]
    pooled = [task for task in tasks if task not in local]

    def finished(table: Table, block: int, result: BlockResult) -> None:
        ladder.add(table, block, result)
        if on_block is not None:
            on_block(table, block)

    if local:
        with ExitStack() as stack:
            programs: dict[str, Bot] = {
                name: stack.enter_context(ProgramBot(name, move_time=move_time))
                for name in ladder.bots
                if is_program(name) and any(name in table for table, _ in local)
            }
            for table, block in local:
                running = {i: programs[name] for i, name in enumerate(table) if is_program(name)}
                match = Match(bots=table, blocks=block + 1, seed=ladder.seed)
                finished(table, block, play_block(match, block, running))
    if pooled and jobs > 1:
        work = [(table, block, ladder.seed) for table, block in pooled]
        with multiprocessing.Pool(
            min(jobs, len(work)), initializer=leave_stopping_to_parent, initargs=(os.getpid(),)
        ) as pool:
            for table, block, result in pool.imap_unordered(_play_task, work):
                finished(table, block, result)
    else:
        for table, block in pooled:
            finished(*_play_task((table, block, ladder.seed)))
    return len(tasks)


def _play_task(task: tuple[Table, int, int]) -> tuple[Table, int, BlockResult]:
    table, block, seed = task
    return table, block, play_block(Match(bots=table, blocks=block + 1, seed=seed), block)


# ------------------------------------------------------------------ ratings

FloatArray = npt.NDArray[np.float64]


def deal_results(block: Block) -> FloatArray:
    """``wins[i, j]``: 1 if the table's ``i``-th bot took fewer bullheads than its ``j``-th
    over the deal's rotations, 0.5 on a tie, else 0."""
    totals = np.asarray(block.scores, dtype=np.float64).sum(axis=0)
    wins: FloatArray = (totals[:, None] < totals[None, :]).astype(np.float64)
    wins += 0.5 * (totals[:, None] == totals[None, :])
    np.fill_diagonal(wins, 0.0)
    return wins


def fit_bradley_terry(wins: FloatArray, meetings: FloatArray) -> FloatArray:
    """Bradley-Terry strengths (natural log, mean 0) from ``wins[i, j]`` (deals ``i`` won
    against ``j``, ties counted half) and ``meetings[i, j]`` (deals they met), by the
    minorization-maximization iteration (Hunter, 2004), with :data:`PRIOR_TIES` virtual ties
    between every two bots."""
    count = wins.shape[0]
    prior = PRIOR_TIES * (1.0 - np.eye(count))
    wins = wins + 0.5 * prior
    meetings = meetings + prior
    won = wins.sum(axis=1)
    strength = np.ones(count)
    for _ in range(10_000):
        pair = meetings / (strength[:, None] + strength[None, :])
        updated = won / pair.sum(axis=1)
        updated /= math.exp(float(np.log(updated).mean()))
        done = float(np.abs(np.log(updated) - np.log(strength)).max()) < 1e-10
        strength = updated
        if done:
            break
    logs: FloatArray = np.log(strength)
    centred: FloatArray = logs - logs.mean()
    return centred


@dataclass(frozen=True, slots=True)
class Rating:
    bot: str
    rating: float
    """Elo points, the ladder's mean at 0."""
    low: float
    high: float
    """The bootstrap's 95% interval."""
    pair_wins: float
    """The share of its paired deal results the bot won (ties count half)."""
    mean: float
    """Bullheads per game, over every game it played."""
    tables: int
    deals: int
    ms_per_move: float


def rate(ladder: Ladder, samples: int = BOOTSTRAP_SAMPLES) -> list[Rating]:
    """Every bot's rating with its interval, best first (see the module docstring). The
    bootstrap draws from a generator seeded by the ladder's seed: the same file gives the same
    figures."""
    index = {name: i for i, name in enumerate(ladder.bots)}
    count = len(ladder.bots)
    played = [(table, blocks) for table, blocks in ladder.tables.items() if blocks]
    per_table: list[tuple[npt.NDArray[np.intp], FloatArray]] = []
    for table, blocks in played:
        where = np.array([index[name] for name in table])
        per_table.append((where, np.stack([deal_results(block) for block in blocks.values()])))

    def totals(draw: Callable[[int], npt.NDArray[np.intp]]) -> tuple[FloatArray, FloatArray]:
        wins = np.zeros((count, count))
        meetings = np.zeros((count, count))
        for where, results in per_table:
            chosen = draw(len(results))
            grid = np.ix_(where, where)
            wins[grid] += results[chosen].sum(axis=0)
            meetings[grid] += len(chosen)
        np.fill_diagonal(meetings, 0.0)
        return wins, meetings

    wins, meetings = totals(lambda n: np.arange(n))
    strengths = fit_bradley_terry(wins, meetings)
    rng = np.random.default_rng(ladder.seed)
    boot = np.array(
        [fit_bradley_terry(*totals(lambda n: rng.integers(0, n, size=n))) for _ in range(samples)]
    )
    low, high = np.percentile(boot, [2.5, 97.5], axis=0)
    ratings = []
    for name, i in index.items():
        means: list[float] = []
        seconds, decisions, tables = 0.0, 0, 0
        for table, blocks in played:
            if name not in table:
                continue
            seat = table.index(name)
            tables += 1
            for block in blocks.values():
                means.append(sum(scores[seat] for scores in block.scores) / len(block.scores))
                seconds += block.seconds[seat]
                decisions += block.decisions[seat]
        met = float(meetings[i].sum())
        ratings.append(
            Rating(
                bot=name,
                rating=ELO * float(strengths[i]),
                low=ELO * float(low[i]),
                high=ELO * float(high[i]),
                pair_wins=float(wins[i].sum()) / met if met else 0.0,
                mean=math.fsum(means) / len(means) if means else 0.0,
                tables=tables,
                deals=len(means),
                ms_per_move=1000.0 * seconds / decisions if decisions else 0.0,
            )
        )
    return sorted(ratings, key=lambda rating: -rating.rating)


def report(ladder: Ladder, played: int) -> dict[str, Any]:
    """The ladder's JSON (docs/bots.md): its size, what this run played, each bot's figures."""
    deals = sum(len(blocks) for blocks in ladder.tables.values())
    ratings = rate(ladder)
    return {
        "seats": ladder.seats,
        "seed": ladder.seed,
        "rating": "bradley-terry",
        "scale": "elo",
        "tables": sum(1 for blocks in ladder.tables.values() if blocks),
        "deals": deals,
        "games": deals * ladder.seats,
        "played_deals": played,
        "bots": [
            {
                "rank": rank,
                "bot": rating.bot,
                "rating": round(rating.rating, 1),
                "ci95": [round(rating.low, 1), round(rating.high, 1)],
                "pair_wins": round(rating.pair_wins, 4),
                "mean": round(rating.mean, 3),
                "tables": rating.tables,
                "deals": rating.deals,
                "ms_per_move": round(rating.ms_per_move, 3),
            }
            for rank, rating in enumerate(ratings, start=1)
        ],
    }


# ------------------------------------------------------------------ the file


def to_json(ladder: Ladder) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "version": VERSION,
        "seats": ladder.seats,
        "seed": ladder.seed,
        "bots": list(ladder.bots),
        "tables": [
            {
                "bots": list(table),
                "deals": [
                    {
                        "deal": block,
                        "scores": entry.scores,
                        "seconds": entry.seconds,
                        "decisions": entry.decisions,
                    }
                    for block, entry in sorted(blocks.items())
                ],
            }
            for table, blocks in ladder.tables.items()
        ],
    }


def from_json(data: Any) -> Ladder:
    """The ladder a file holds; :class:`LadderError` for anything else."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise LadderError(f"it is not a {FORMAT} file")
    if data.get("version") != VERSION:
        raise LadderError(f"it is version {data.get('version')!r}; this nimmt reads {VERSION}")
    try:
        ladder = Ladder(seats=_whole(data["seats"]), seed=_whole(data["seed"]))
        ladder.bots = [str(name) for name in data["bots"]]
        for entry in data["tables"]:
            table = tuple(str(name) for name in entry["bots"])
            if len(table) != ladder.seats or not set(table) <= set(ladder.bots):
                raise LadderError(f"table {list(table)} is not a table of its bots")
            blocks = ladder.tables.setdefault(table, {})
            for deal in entry["deals"]:
                scores = [[_whole(value) for value in row] for row in deal["scores"]]
                if len(scores) != ladder.seats or any(len(row) != ladder.seats for row in scores):
                    raise LadderError(f"a deal of table {list(table)} has the wrong shape")
                blocks[_whole(deal["deal"])] = Block(
                    scores,
                    [float(value) for value in deal["seconds"]],
                    [_whole(value) for value in deal["decisions"]],
                )
    except (KeyError, TypeError, ValueError) as error:
        if isinstance(error, LadderError):
            raise
        raise LadderError(f"it is damaged ({type(error).__name__}: {error})") from None
    return ladder


def _whole(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"{value!r} is not a whole number")
    return value


def load_ladder(path: Path) -> Ladder:
    """The ladder kept in ``path``; :class:`LadderError` (naming the file) if it cannot be read.
    Only a regular file (or a directory, refused as it reads) is read: a device or a pipe
    (``/dev/zero``) may never end, and the ladder is saved over its path."""
    if path.exists() and not path.is_file() and not path.is_dir():
        raise LadderError(f"cannot read {str(path)!r}: it is not a regular file")
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise LadderError(f"cannot read {str(path)!r}: {error.strerror}") from None
    try:
        data = json.loads(text)
    except ValueError:
        raise LadderError(f"{str(path)!r} is not a {FORMAT} file: it is not JSON") from None
    try:
        return from_json(data)
    except LadderError as error:
        raise LadderError(f"{str(path)!r} is not a usable ladder: {error}") from None


def save_ladder(ladder: Ladder, path: Path) -> None:
    """Write ``ladder`` to ``path`` whole or not at all (a new file renamed over the old)."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temporary.write_text(json.dumps(to_json(ladder)), encoding="utf-8")
    os.replace(temporary, path)


__all__ = [
    "Ladder",
    "LadderError",
    "Rating",
    "canonical",
    "check_ladder",
    "fit_bradley_terry",
    "join",
    "load_ladder",
    "play_ladder",
    "rate",
    "report",
    "save_ladder",
]
