"""``nimmt replay FILE``: check a game record against the rules and tell the game (INTERFACES 2).

With ``--json`` it prints one JSON object for programs; without, a turn-by-turn account for a
person. ``FILE`` may be ``-`` for standard input. An invalid record: exit status 1, nothing on
standard output, one ``error: ...`` line on standard error naming where the problem is.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from nimmt.cli.errors import fail
from nimmt.engine import (
    CardPlaced,
    CardsRevealed,
    GameOver,
    RoundDealt,
    RoundScored,
    RowTaken,
)
from nimmt.records import RecordError, ReplayedGame, replay_record


def replay(
    file: Annotated[str, typer.Argument(help="The game record (JSON), or - for standard input.")],
    as_json: Annotated[
        bool, typer.Option("--json", help="Print one JSON object for programs.")
    ] = False,
) -> None:
    """Check a game record against the rules and tell the game turn by turn."""
    text = _read(file)
    try:
        replayed = replay_record(text)
    except RecordError as error:
        fail(str(error))
    if as_json:
        typer.echo(json.dumps(replayed.summary()))
    else:
        tell(replayed, Console(highlight=False))


def _read(file: str) -> str:
    if file == "-":
        return sys.stdin.read()
    path = Path(file)
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        fail(f"{file}: no such file")
    except IsADirectoryError:
        fail(f"{file}: is a directory, not a game record")
    except UnicodeDecodeError:
        fail(f"{file}: not a text file (game records are UTF-8 JSON)")
    except OSError as error:
        fail(f"{file}: {error.strerror or error}")


def _cards(cards: Sequence[int]) -> str:
    return " ".join(str(card) for card in cards)


def _heads(count: int) -> str:
    return f"{count} bullhead" + ("" if count == 1 else "s")


def tell(replayed: ReplayedGame, console: Console) -> None:
    """The game turn by turn, from the replayed game's events."""
    names = replayed.players
    game = replayed.game
    history = game.history
    rows: list[list[int]] = []
    turn = 0
    for event in game.events:
        if isinstance(event, RoundDealt):
            console.rule(f"[bold]Round {event.round}")
            rows = [[card] for card in event.rows]
            for name, hand in zip(names, history[event.round - 1].hands, strict=True):
                console.print(f"  {name} is dealt {_cards(sorted(hand))}")
            console.print(f"  Rows: {' | '.join(_cards(row) for row in rows)}")
        elif isinstance(event, CardsRevealed):
            turn = event.turn
            played = ", ".join(
                f"{name} {card}" for name, card in zip(names, event.cards, strict=True)
            )
            console.print(f"\n[bold]Turn {turn}[/]: {played}")
        elif isinstance(event, RowTaken):
            name = names[event.seat]
            taken = f"{_cards(event.cards)} ({_heads(event.bullheads)})"
            if event.chosen:
                console.print(
                    f"  {name}'s card is lower than every row: {name} chooses row "
                    f"{event.row + 1} and takes {taken}"
                )
            else:
                console.print(
                    f"  {name}'s card is the sixth in row {event.row + 1}: {name} takes {taken}"
                )
            rows[event.row] = []
        elif isinstance(event, CardPlaced):
            rows[event.row].append(event.card)
            console.print(
                f"  {event.card} ({names[event.seat]}) goes to row {event.row + 1}: "
                f"{_cards(rows[event.row])}"
            )
        elif isinstance(event, RoundScored):
            _score_sheet(console, names, replayed, event.round)
        elif isinstance(event, GameOver):
            winners = [names[seat] for seat in event.winners]
            lead = "Winner" if len(winners) == 1 else "Joint winners"
            console.print(f"\n[bold green]{lead}: {', '.join(winners)}[/]")
    if not replayed.finished:
        last = replayed.rounds[-1] if replayed.rounds else None
        if last is not None and not last.complete:
            console.print(
                f"\n[yellow]The record ends during round {len(replayed.rounds)}, "
                f"after turn {turn}.[/] Bullheads so far: "
                + ", ".join(
                    f"{name} {total}" for name, total in zip(names, replayed.totals, strict=True)
                )
            )
        else:
            console.print("\n[yellow]The record ends between rounds; the game goes on.[/]")


def _score_sheet(console: Console, names: Sequence[str], replayed: ReplayedGame, upto: int) -> None:
    table = Table(title=f"Score sheet after round {upto}", title_justify="left")
    table.add_column("Player")
    for number in range(1, upto + 1):
        table.add_column(f"R{number}", justify="right")
    table.add_column("Total", justify="right", style="bold")
    best = min(replayed.rounds[upto - 1].totals)
    for seat, name in enumerate(names):
        total = replayed.rounds[upto - 1].totals[seat]
        cells = [str(replayed.rounds[index].penalties[seat]) for index in range(upto)]
        marker = " ★" if total == best else ""
        table.add_row(name, *cells, f"{total}{marker}")
    console.print()
    console.print(table)


__all__ = ["replay", "tell"]
