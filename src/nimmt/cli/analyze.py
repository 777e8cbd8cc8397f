"""``nimmt analyze RECORD --seat NAME``: how much each of one player's decisions cost them.

Every decision the player made in the record (each card, when they had more than one, and each
row they took by choice) is scored by the coach's search (:func:`nimmt.review.review`):
every legal choice's expected bullheads from that decision to the end of the round, as seen from
the player's own seat at the time. With ``--json`` it prints the object of docs/formats.md
section 4; without, a table of the decisions, the costliest first, and the total.

The bots (and numpy) are imported when the command runs, so that other commands start fast.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from nimmt.cli.errors import fail, shown
from nimmt.cli.replay import _read
from nimmt.records import RecordError, parse_record, replay_record

MAX_SAMPLES = 100_000


def analyze(
    file: Annotated[
        str,
        typer.Argument(metavar="RECORD", help="The game record (JSON), or - for standard input."),
    ],
    seat: Annotated[
        str,
        typer.Option(
            "--seat",
            metavar="NAME",
            help="The player whose decisions to score: their name in the record, or, when no "
            "player has that name, their number counted from 1: 1 is the first player.",
        ),
    ],
    as_json: Annotated[
        bool, typer.Option("--json", metavar="", help="Print one JSON object for programs.")
    ] = False,
    samples: Annotated[
        int,
        typer.Option(
            "--samples",
            metavar="N",
            help="Sampled deals per decision: more is steadier and slower.",
        ),
    ] = 1024,
    seed: Annotated[
        int, typer.Option("--seed", metavar="SEED", help="Seed of the sampled deals.")
    ] = 0,
) -> None:
    """Score one player's decisions in a game record: what each card and row cost them."""
    if not 1 <= samples <= MAX_SAMPLES:
        fail(f"--samples must be a whole number from 1 to {MAX_SAMPLES}, not {samples}")
    text = _read(file)
    try:
        data = parse_record(text)
        players = replay_record(data).players
    except RecordError as error:
        fail(str(error))
    index = seat_index(players, seat)

    from nimmt.review import review  # numpy and the bots: only now

    console = Console(stderr=True, highlight=False)
    with _progress(console) as step:
        try:
            result = review(data, index, samples=samples, seed=seed, progress=step)
        except RecordError as error:
            fail(str(error))
    if as_json:
        typer.echo(json.dumps(result))
    else:
        show(result, Console(highlight=False))


def seat_index(players: tuple[str, ...], wanted: str) -> int:
    """The seat of the player called ``wanted`` (exactly, else ignoring case when only one name
    matches), or the player numbered ``wanted`` from 1 when no name matches; else one error
    line naming the players."""
    if wanted in players:
        return players.index(wanted)
    folded = [index for index, name in enumerate(players) if name.casefold() == wanted.casefold()]
    if len(folded) == 1:
        return folded[0]
    if len(folded) > 1:
        matching = ", ".join(shown(players[index]) for index in folded)
        fail(
            f'"{shown(wanted)}" could be any of {matching}: give the name exactly as in the record'
        )
    stripped = wanted.strip()
    names = ", ".join(shown(name) for name in players)
    if stripped.isdigit() and stripped.isascii():
        if 1 <= int(stripped) <= len(players):
            return int(stripped) - 1
        fail(f"no seat {stripped} in this record: its seats are 1 to {len(players)} ({names})")
    fail(f'no player called "{shown(wanted)}" in this record; the players are {names}')


@contextmanager
def _progress(console: Console) -> Iterator[Callable[[int, int], None]]:
    """A transient progress bar on a terminal's standard error (nothing when redirected)."""
    if not console.is_terminal:
        yield lambda done, total: None
        return
    from rich.progress import Progress

    with Progress(console=console, transient=True) as bar:
        task = bar.add_task("Analysing decisions", total=None)
        yield lambda done, total: bar.update(task, completed=done, total=total)


def show(result: dict[str, Any], console: Console) -> None:
    """The decisions as a table for a person, the costliest first, and the total."""
    name = result["name"]
    decisions = result["decisions"]
    if not decisions:
        console.print(f"{name} made no decision with more than one choice in this record.")
        return
    table = Table(title=f"Decisions of {name}, the costliest first", title_justify="left")
    table.add_column("Round", justify="right")
    table.add_column("Turn", justify="right")
    table.add_column("Chosen", justify="right")
    table.add_column("Best", justify="right")
    table.add_column("Lost", justify="right")
    table.add_column("Expected bullheads to the round's end, each choice")
    ordered = sorted(decisions, key=lambda entry: (-entry["loss"], entry["round"], entry["turn"]))
    for entry in ordered:
        prefix = "row " if entry["kind"] == "row" else ""
        choices = "  ".join(
            f"{prefix}{candidate['choice']}: {candidate['expected']:.1f}"
            for candidate in entry["candidates"]
        )
        loss = entry["loss"]
        table.add_row(
            str(entry["round"]),
            str(entry["turn"]),
            f"{prefix}{entry['chosen']}",
            f"{prefix}{entry['best']}",
            f"[bold red]{loss:.1f}[/]" if loss >= 1 else f"{loss:.1f}",
            choices,
        )
    console.print(table)
    console.print(
        f"{name} lost {result['total_loss']:.1f} expected bullheads over "
        f"{len(decisions)} decisions against the coach's best choices."
    )
