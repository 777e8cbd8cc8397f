"""``nimmt replay FILE``: check a game record against the rules and tell the game.

The record and the ``--json`` object are described in docs/formats.md, sections 1 and 2.

With ``--json`` it prints one JSON object for programs; without, a turn-by-turn account for a
person, in which the person who played a ``nimmt play`` game is "you", as in the game itself.
``FILE`` may be ``-`` for standard input. An invalid record: exit status 1, nothing on standard
output, one ``error: ...`` line on standard error naming where the problem is.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.text import Text

from nimmt.cli.errors import fail
from nimmt.engine import CardsRevealed, RoundDealt
from nimmt.records import RecordError, ReplayedGame, replay_record
from nimmt.terminal import Narrator, cards_text


def replay(
    file: Annotated[
        str, typer.Argument(metavar="FILE", help="The game record (JSON), or - for standard input.")
    ],
    as_json: Annotated[
        bool, typer.Option("--json", metavar="", help="Print one JSON object for programs.")
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
        tell(replayed, Console(highlight=False), person=person_seat(text, len(replayed.players)))


MAX_RECORD_MIB = 16
MAX_RECORD_BYTES = MAX_RECORD_MIB * 1024 * 1024
"""The largest record a command reads (docs/formats.md): a whole game takes a few KiB, so this
is generous, and an endless input (``/dev/zero``) stops here."""


def _read(file: str) -> str:
    """The text of the record in ``file`` (``-``: standard input), read as strict UTF-8 and at
    most :data:`MAX_RECORD_BYTES` of it; anything else is one ``error:`` line (:func:`fail`)."""
    where = "standard input" if file == "-" else file
    try:
        if file == "-":
            data = sys.stdin.buffer.read(MAX_RECORD_BYTES + 1)
        else:
            with Path(file).open("rb") as handle:
                data = handle.read(MAX_RECORD_BYTES + 1)
    except FileNotFoundError:
        fail(f"{file}: no such file")
    except IsADirectoryError:
        fail(f"{file}: is a directory, not a game record")
    except OSError as error:
        fail(f"{where}: {error.strerror or error}")
    if len(data) > MAX_RECORD_BYTES:
        fail(f"{where} is larger than {MAX_RECORD_MIB} MiB, too large for a game record")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        if file == "-":
            fail(f"{where}: not UTF-8 text (game records are UTF-8 JSON)")
        fail(f"{file}: not a text file (game records are UTF-8 JSON)")


def person_seat(text: str, players: int) -> int | None:
    """The seat of the person who played the recorded game with ``nimmt play``, which its
    ``meta.person_seat`` names (docs/formats.md); ``None`` for any other record."""
    meta = json.loads(text).get("meta")
    seat = meta.get("person_seat") if isinstance(meta, dict) else None
    if isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < players:
        return seat
    return None


def tell(replayed: ReplayedGame, console: Console, *, person: int | None = None) -> None:
    """The game turn by turn, from the replayed game's events, told by the terminal game's
    narrator, and each round's dealt hands first. Every seat is told by name, but ``person``
    (the one who played it in the terminal) as "you", in the words the game itself used."""
    names = replayed.players
    game = replayed.game
    narrator = Narrator(console, names, pause=lambda: None, person=person)
    if person is not None and names[person] != narrator.who(person):
        console.print(Text(f'Told from {names[person]}\'s seat ("you" in this account).'))
    turn = 0
    for event in game.events:
        if isinstance(event, RoundDealt):
            console.rule(f"[bold]Round {event.round}")
            for seat, hand in enumerate(game.history[event.round - 1].hands):
                dealt = "are dealt" if seat == person else "is dealt"
                console.print(
                    Text.assemble(f"  {narrator.who(seat)} {dealt}  ", cards_text(sorted(hand)))
                )
            console.print(Text.assemble("  Rows:  ", cards_text(event.rows, " | ")))
            narrator.start_round(event.rows)
            continue
        if isinstance(event, CardsRevealed):
            turn = event.turn
        narrator.tell(event)
    if replayed.finished:
        return
    last = replayed.rounds[-1] if replayed.rounds else None
    if last is not None and not last.complete:
        so_far = ", ".join(
            f"{name} {total}" for name, total in zip(names, replayed.totals, strict=True)
        )
        console.print(
            f"\n[yellow]The record ends during round {len(replayed.rounds)}, after turn {turn}."
            f"[/] Bullheads so far: {so_far}"
        )
    else:
        console.print("\n[yellow]The record ends between rounds; the game goes on.[/]")
