"""``nimmt arena``: bots against each other on duplicate deals (docs/formats.md section 3).

Plays every deal once for every rotation of the seats, in parallel worker processes, and prints
each bot's mean bullheads, its paired ``vs_others`` figure with 95% intervals (each deal's
rotations as one block), its tie-split win share and its thinking time per decision. ``--games``
plays whole games (to more than 66) instead of single deals. A bot may be a separate program,
``cmd:COMMAND`` (docs/bots.md); a match with one is played in one process.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from nimmt.cli.errors import fail
from nimmt.cli.stopping import stop_on_signals

DEFAULT_MOVE_TIME = 10.0
"""Seconds a ``cmd:`` bot may think per decision: :data:`nimmt.bots.external.DEFAULT_MOVE_TIME`,
named here so that the help does not import the bots."""
MAX_MOVE_TIME = 86400.0
PIPED_WIDTH = 1000
"""Columns the table may take when standard output is not a terminal: its natural width."""


MoveTimeOption = Annotated[
    float,
    typer.Option(
        "--move-time",
        metavar="SECONDS",
        help="Time a cmd: bot may take for one decision; a slower one stops the play.",
    ),
]
"""``--move-time`` of every command that may seat a ``cmd:`` bot (default
:data:`DEFAULT_MOVE_TIME`; check it with :func:`check_move_time`)."""
JobsOption = Annotated[
    int | None, typer.Option(metavar="N", help="Worker processes (default: all cores).")
]
"""``--jobs`` of the commands that play many deals side by side."""


def worker_count(jobs: int | None, work: int) -> int:
    """How many worker processes ``--jobs`` asks for (default: the cores), never more than
    the ``work`` there is to share out, and at least one (:func:`fail` below one)."""
    if jobs is not None and jobs < 1:
        fail("--jobs must be at least 1")
    return max(1, min(jobs if jobs is not None else (os.cpu_count() or 1), work))


def check_move_time(move_time: float) -> None:
    """``--move-time`` as every command takes it, or one ``error:`` line."""
    if not 0 < move_time <= MAX_MOVE_TIME:
        fail(f"--move-time must be more than 0 and at most {MAX_MOVE_TIME:g} seconds")


if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

    from nimmt.arena import BlockResult, Match


def arena(
    bots: Annotated[
        list[str],
        typer.Argument(
            metavar="BOT...",
            help="2 to 10 bots, one seat each: random, greedy, mc:N, easy, …, cmd:COMMAND "
            "for your own program, or policy:PATH for a saved policy (docs/bots.md).",
        ),
    ],
    deals: Annotated[
        int, typer.Option(metavar="N", help="Duplicate deals (rounds) to play.")
    ] = 100,
    seed: Annotated[
        int, typer.Option(metavar="SEED", help="Seed of the deals (and the bots' own choices).")
    ] = 1,
    json_output: Annotated[
        bool, typer.Option("--json", metavar="", help="Print the figures as JSON.")
    ] = False,
    jobs: JobsOption = None,
    record: Annotated[
        Path | None,
        typer.Option(metavar="DIR", help="Write every game's record into this directory."),
    ] = None,
    games: Annotated[
        int | None,
        typer.Option(
            metavar="N", help="Play this many whole games (to more than 66) instead of deals."
        ),
    ] = None,
    move_time: MoveTimeOption = DEFAULT_MOVE_TIME,
    decision_seeds: Annotated[
        bool,
        typer.Option(
            "--decision-seeds",
            metavar="",
            help="Seed each decision's draws by the decision, for paired screens (docs/bots.md).",
        ),
    ] = False,
) -> None:
    """Pit bots against each other on duplicate deals, every deal in every rotation of the seats."""
    # Imported here so that the other commands start without loading the bots and numpy.
    from rich.console import Console

    from nimmt.arena import ArenaError, Match, check_match, play_match, report
    from nimmt.bots import UnknownBotError
    from nimmt.bots.external import ProgramBotError

    check_move_time(move_time)
    if games is not None and games < 1:
        fail("--games must be at least 1")
    match = Match(
        bots=tuple(bots),
        blocks=games if games is not None else deals,
        seed=seed,
        whole_games=games is not None,
        keep_records=record is not None,
        move_time=move_time,
        decision_seeds=decision_seeds,
    )
    try:
        check_match(match)
    except (ArenaError, UnknownBotError) as error:
        fail(str(error))
    workers = worker_count(jobs, match.blocks)
    if record is not None:
        try:
            record.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            fail(f"cannot create the record directory {str(record)!r}: {error.strerror}")

    def keep(result: BlockResult) -> None:
        assert record is not None
        for name, text in result.records:
            (record / name).write_text(text, encoding="utf-8")

    on_block = keep if record is not None else None
    errors = Console(stderr=True)
    # Ctrl-C, SIGTERM or SIGHUP: every program killed, one line and the conventional status.
    with stop_on_signals() as stopping:
        try:
            if errors.is_terminal and not errors.is_dumb_terminal:
                results = _with_progress(errors, match, workers, on_block)
            else:
                results = play_match(match, workers, on_block)
        except KeyboardInterrupt:
            typer.echo(f"error: {stopping.reason()}", err=True)
            raise typer.Exit(stopping.status()) from None
        except ProgramBotError as error:
            fail(str(error))
        except OSError as error:
            fail(f"cannot write a record: {error}")
    show(report(match, results), _table, json_output=json_output)


def show(
    figures: dict[str, Any], table: Callable[[dict[str, Any]], Table], *, json_output: bool
) -> None:
    """A command's figures on standard output: one JSON line, or ``table`` of them."""
    if json_output:
        typer.echo(json.dumps(figures))
        return
    from rich.console import Console

    # A terminal's width is its own; piped, rich would assume 80 columns and cut the table.
    out = Console()
    if not out.is_terminal:
        out = Console(width=PIPED_WIDTH)
    out.print(table(figures))


def _with_progress(
    console: Console, match: Match, workers: int, on_block: Any
) -> list[BlockResult]:
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    from nimmt.arena import play_match

    what = "games" if match.whole_games else "deals"
    columns = (
        TextColumn(f"[bold]arena[/] {what}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=console, transient=True) as progress:
        task = progress.add_task(what, total=match.blocks)

        def advance(result: BlockResult) -> None:
            if on_block is not None:
                on_block(result)
            progress.advance(task)

        return play_match(match, workers, advance)


def _interval(bounds: list[float | None]) -> str:
    low, high = bounds
    if low is None or high is None:
        return "–"
    return f"{low:.1f}, {high:.1f}"


def _table(figures: dict[str, Any]) -> Table:
    from rich.table import Table

    if figures["mode"] == "games":
        title = (
            f"{figures['whole_games']} whole games × {figures['seats']} rotations "
            f"({figures['rounds']} rounds), seed {figures['seed']}: bullheads per game"
        )
    else:
        title = (
            f"{figures['deals']} deals × {figures['seats']} rotations, seed {figures['seed']}: "
            "bullheads per deal"
        )
    table = Table(title=title)
    for header in ("bot", "mean", "95% CI", "vs others", "95% CI", "wins", "ms/move"):
        table.add_column(header, justify="left" if header == "bot" else "right", no_wrap=True)
    for bot in figures["bots"]:
        table.add_row(
            bot["bot"],
            f"{bot['mean']:.2f}",
            _interval(bot["ci95"]),
            f"{bot['vs_others']:+.2f}",
            _interval(bot["vs_others_ci95"]),
            f"{bot['win_share']:.3f}",
            f"{bot['ms_per_move']:.2f}",
        )
    return table
