"""``nimmt ladder``: every bot against the others at tables drawn so each pair meets equally often.

The tables are every set of ``--seats`` bots; each plays ``--deals`` duplicate deals as the arena
does, and the paired deal results give Bradley-Terry ratings with bootstrap intervals
(:mod:`nimmt.arena.ladder`, docs/bots.md "The ladder"). With ``--file``, the results are kept:
naming a new bot plays only the tables that include it, and the table shows every bot in the
file.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from nimmt.cli.arena import (
    DEFAULT_MOVE_TIME,
    JobsOption,
    MoveTimeOption,
    check_move_time,
    show,
    worker_count,
)
from nimmt.cli.errors import fail
from nimmt.cli.stopping import stop_on_signals

DEFAULT_SEATS = 4
DEFAULT_SEED = 1
DEFAULT_DEALS = 20
SAVE_EVERY = 2.0
"""Seconds between two saves of the file while a run goes on (and once at its end)."""

if TYPE_CHECKING:
    from rich.table import Table

    from nimmt.arena.ladder import Ladder


def ladder(
    bots: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="BOT...",
            help="The bots to rate (random, greedy, easy, medium, hard, mc:N, cmd:COMMAND…); "
            "with --file, the ones to add to the bots it holds.",
        ),
    ] = None,
    deals: Annotated[
        int | None,
        typer.Option(
            metavar="N",
            help=f"Duplicate deals at each table, at least (default: {DEFAULT_DEALS}, or as "
            "many as the file's tables have).",
        ),
    ] = None,
    seats: Annotated[
        int | None,
        typer.Option(
            metavar="N", help=f"Seats at each table (default: {DEFAULT_SEATS}, or the file's)."
        ),
    ] = None,
    seed: Annotated[
        int | None,
        typer.Option(
            metavar="SEED",
            min=0,
            help=f"Seed of the deals (default: {DEFAULT_SEED}, or the file's).",
        ),
    ] = None,
    file: Annotated[
        Path | None,
        typer.Option("--file", metavar="FILE", help="Keep the results in this file, across runs."),
    ] = None,
    json_output: Annotated[
        bool, typer.Option("--json", metavar="", help="Print the ladder as JSON.")
    ] = False,
    jobs: JobsOption = None,
    move_time: MoveTimeOption = DEFAULT_MOVE_TIME,
) -> None:
    """Rate bots against each other: tables of every --seats of them, duplicate deals."""
    from nimmt.arena.ladder import (
        Ladder,
        LadderError,
        check_ladder,
        join,
        load_ladder,
        play_ladder,
        report,
    )
    from nimmt.bots import UnknownBotError
    from nimmt.bots.external import ProgramBotError

    check_move_time(move_time)
    try:
        if file is not None and file.exists():
            kept = load_ladder(file)
            _check_same("--seats", seats, kept.seats, file)
            _check_same("--seed", seed, kept.seed, file)
            current = kept
        else:
            current = Ladder(
                seats=seats if seats is not None else DEFAULT_SEATS,
                seed=seed if seed is not None else DEFAULT_SEED,
            )
        join(current, bots or [])
        extend = deals is not None  # without --deals, only the tables that have none are played
        if deals is None:
            deals = max((len(blocks) for blocks in current.tables.values()), default=DEFAULT_DEALS)
        check_ladder(current, deals)
    except (LadderError, UnknownBotError) as error:
        fail(str(error))
    workers = worker_count(jobs, len(current.missing(deals, extend=extend)))
    if file is not None:
        _save(current, file)  # a path that cannot be written fails now, before any play
    last_save = time.monotonic()

    def saved(_table: tuple[str, ...], _block: int) -> None:
        nonlocal last_save
        if file is not None and time.monotonic() - last_save >= SAVE_EVERY:
            _save(current, file)
            last_save = time.monotonic()

    with (
        stop_on_signals() as stopping,
        _progress(len(current.missing(deals, extend=extend))) as advance,
    ):

        def done(table: tuple[str, ...], block: int) -> None:
            advance()
            saved(table, block)

        try:
            played = play_ladder(
                current, deals, jobs=workers, move_time=move_time, on_block=done, extend=extend
            )
        except KeyboardInterrupt:
            if file is not None:
                _save(current, file)
            kept_note = f"; the deals played are kept in {str(file)!r}" if file else ""
            typer.echo(f"error: {stopping.reason()}{kept_note}", err=True)
            raise typer.Exit(stopping.status()) from None
        except ProgramBotError as error:
            if file is not None:
                _save(current, file)
            fail(str(error))
    if file is not None:
        _save(current, file)
    show(report(current, played), _table, json_output=json_output)


@contextmanager
def _progress(total: int) -> Iterator[Callable[[], None]]:
    """A progress bar of the deals to play on standard error, when it is a terminal."""
    from rich.console import Console

    console = Console(stderr=True)
    if total == 0 or not console.is_terminal or console.is_dumb_terminal:
        yield lambda: None
        return
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    columns = (
        TextColumn("[bold]ladder[/] deals"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=console, transient=True) as progress:
        task = progress.add_task("deals", total=total)
        yield lambda: progress.advance(task)


def _check_same(option: str, given: int | None, value: int, file: Path) -> None:
    from nimmt.arena.ladder import LadderError

    if given is not None and given != value:
        raise LadderError(
            f"the ladder in {str(file)!r} has {option} {value}, not {given}: "
            "leave the option out, or use another file"
        )


def _save(current: Ladder, file: Path) -> None:
    from nimmt.arena.ladder import save_ladder

    try:
        save_ladder(current, file)
    except OSError as error:
        fail(f"cannot write the ladder to {str(file)!r}: {error.strerror}")


def _table(figures: dict[str, Any]) -> Table:
    from rich.table import Table

    title = (
        f"{len(figures['bots'])} bots, {figures['tables']} tables of {figures['seats']}, "
        f"{figures['deals']} deals × {figures['seats']} rotations, seed {figures['seed']}: "
        "Bradley-Terry ratings (Elo scale) on paired deal results"
    )
    table = Table(title=title)
    headers = ("#", "bot", "rating", "95% CI", "pair wins", "bullheads", "deals", "ms/move")
    for header in headers:
        table.add_column(header, justify="left" if header == "bot" else "right", no_wrap=True)
    for bot in figures["bots"]:
        low, high = bot["ci95"]
        table.add_row(
            str(bot["rank"]),
            bot["bot"],
            f"{bot['rating']:+.0f}",
            f"{low:+.0f}, {high:+.0f}",
            f"{bot['pair_wins']:.3f}",
            f"{bot['mean']:.2f}",
            str(bot["deals"]),
            f"{bot['ms_per_move']:.2f}",
        )
    return table
