"""``nimmt assist --players Ana,Ben,Cleo``: the assistant for a game played with a real deck.

This module reads and checks the options; the assistant itself is :mod:`nimmt.assist`, and its
questions in the terminal :mod:`nimmt.terminal.assist`, both imported when the command runs.
Answers are read one per line (a prompt on a terminal, or piped in); a line it cannot accept is
one ``error: ...`` line on standard error, and the same question is asked again; ``u`` takes
back the last entry and ``?`` says what the prompt takes. The end of input stops the game where
it is (exit status 0), writing the record if asked.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from nimmt.cli.errors import check_record_target, fail, say_error
from nimmt.engine import MAX_PLAYERS, MIN_PLAYERS
from nimmt.exits import EXIT_INTERRUPTED


def player_names(text: str) -> tuple[str, ...]:
    """The players' names from ``Ana,Ben,Cleo``: 2 to 10, each a name by the rule of
    :mod:`nimmt.names` and no two alike; else one ``error:`` line and exit status 1."""
    from nimmt.names import BadNameError, clean_names  # the regex module: only when run

    try:
        names = clean_names(text.split(","))
    except BadNameError as error:
        fail(f"--players: {error}")
    if not MIN_PLAYERS <= len(names) <= MAX_PLAYERS:
        fail(
            f"--players: classic 6 nimmt! is for {MIN_PLAYERS} to {MAX_PLAYERS} players, "
            f"not {len(names)}"
        )
    return tuple(names)


def assist(
    players: Annotated[
        str,
        typer.Option(
            "--players",
            "-p",
            metavar="NAMES",
            help="The players' names in seat order, comma-separated (2 to 10): Ana,Ben,Cleo.",
        ),
    ],
    record: Annotated[
        Path | None,
        typer.Option(
            "--record",
            metavar="FILE",
            help="Write the game record (JSON) to FILE at the end, or when input ends.",
        ),
    ] = None,
    force: Annotated[
        bool,
        typer.Option(
            "--force", metavar="", help="Let --record overwrite a FILE that already exists."
        ),
    ] = False,
) -> None:
    """Assist a game played with a real deck: enter the cards, nimmt places and scores them.

    At any prompt, u takes back the last entry and ? says what the prompt takes.
    """
    from rich.console import Console
    from rich.text import Text

    from nimmt.assist import Assistant
    from nimmt.terminal.assist import AssistSession

    names = player_names(players)
    check_record_target(record, force=force)

    console = Console(highlight=False)
    echo = not sys.stdin.isatty()

    def ask(question: str) -> str:
        answer = console.input(Text(question, style="bold"))
        if echo:  # piped: show the answer, so that the transcript reads like a session
            console.print(answer, markup=False, highlight=False)
        return answer

    def reject(message: str) -> None:
        say_error(message)

    assistant = Assistant(names)
    session = AssistSession(assistant, console, ask, reject)
    status = 0
    try:
        session.run()
    except EOFError:
        console.print()
        console.print("Input ended: the game stops here.", markup=False)
    except KeyboardInterrupt:
        console.print()
        typer.echo("Game interrupted.", err=True)
        status = EXIT_INTERRUPTED
    if record is not None:
        from nimmt.records import dump_record

        try:
            record.write_text(dump_record(assistant.record()), encoding="utf-8")
        except OSError as error:
            fail(f"the record could not be written to {record}: {error.strerror}")
        console.print(f"The record is in {record}.", markup=False, style="dim")
    raise typer.Exit(status)
