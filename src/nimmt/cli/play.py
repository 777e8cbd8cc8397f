"""`nimmt play`: a whole game of classic 6 nimmt! in the terminal, one person against bots.

This module only reads and checks the options; the game itself is :mod:`nimmt.terminal`. The
bots (and numpy) are imported when the command runs, so that every other command starts fast.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from nimmt.cli.arena import DEFAULT_MOVE_TIME, MoveTimeOption, check_move_time
from nimmt.cli.errors import check_record_target, fail
from nimmt.cli.stopping import stop_on_signals
from nimmt.engine import MAX_PLAYERS, MIN_PLAYERS
from nimmt.terminal import DEFAULT_DELAY

BOT_NAMES: tuple[str, ...] = ("random", "greedy", "easy", "medium", "hard")
"""The bot kinds the help offers: :data:`nimmt.bots.BOT_NAMES`, named here so that the help
does not import the bots (a test keeps the two equal)."""
DEFAULT_BOT = "medium"
MAX_DELAY = 10.0


def play(
    players: Annotated[
        int,
        typer.Option(
            "--players",
            "-n",
            metavar="N",
            help=f"Players at the table, you included ({MIN_PLAYERS} to {MAX_PLAYERS}).",
        ),
    ] = 4,
    bots: Annotated[
        str,
        typer.Option(
            "--bots",
            metavar="KIND[,KIND...]",
            help="The bots' kind: one for every bot, or one per bot seat, comma-separated "
            f"({', '.join(BOT_NAMES)}, cmd:COMMAND for your own program, or policy:PATH for a "
            "saved policy).",
        ),
    ] = DEFAULT_BOT,
    name: Annotated[
        str, typer.Option("--name", metavar="NAME", help="Your name on the score sheet.")
    ] = "You",
    seed: Annotated[
        int | None,
        typer.Option(
            "--seed", metavar="SEED", help="Seed for the deal and the bots (same seed, same game)."
        ),
    ] = None,
    record: Annotated[
        Path | None,
        typer.Option(
            "--record",
            metavar="FILE",
            help="Save the game record (JSON) to FILE at the end, or when interrupted.",
        ),
    ] = None,
    fast: Annotated[
        bool,
        typer.Option("--fast", metavar="", help="Tell the turns without pausing between cards."),
    ] = False,
    force: Annotated[
        bool,
        typer.Option(
            "--force", metavar="", help="Let --record overwrite a FILE that already exists."
        ),
    ] = False,
    coach: Annotated[
        bool,
        typer.Option(
            "--coach",
            metavar="",
            help="Before each card and row choice, show what each choice is expected to cost "
            "you, the best marked (it never chooses for you).",
        ),
    ] = False,
    delay: Annotated[
        float | None,
        typer.Option(
            "--delay",
            metavar="SECONDS",
            help=f"Pause between cards when telling a turn (default {DEFAULT_DELAY} in a "
            "terminal, 0 otherwise).",
        ),
    ] = None,
    move_time: MoveTimeOption = DEFAULT_MOVE_TIME,
) -> None:
    """Play a game of 6 nimmt! against bots in the terminal.

    At the card prompt, type a card's number to play it, or ? for help, s for the score sheet so
    far, l for this round's turns.
    """
    from rich.console import Console

    from nimmt.bots import UnknownBotError, make_bot
    from nimmt.names import NAME_MAX, BadNameError, clean_name
    from nimmt.terminal import PlaySettings, bot_kinds_for, run

    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        fail(f"classic 6 nimmt! is for {MIN_PLAYERS} to {MAX_PLAYERS} players, not {players}")
    kinds = tuple(kind.strip() for kind in bots.split(","))
    try:
        bot_kinds_for(players, kinds)
        for kind in kinds:
            make_bot(kind, 0)
    except (UnknownBotError, ValueError) as error:
        fail(str(error))
    try:
        person = clean_name(name)
    except BadNameError:
        fail(f"the name must be 1 to {NAME_MAX} printable characters")
    if fast and delay is not None:
        fail("give --fast or --delay, not both")
    if delay is not None and not 0 <= delay <= MAX_DELAY:
        fail(f"--delay must be between 0 and {MAX_DELAY:g} seconds")
    check_record_target(record, force=force)
    console = Console(highlight=False)
    if delay is None:
        delay = 0.0 if fast or not console.is_terminal else DEFAULT_DELAY
    settings = PlaySettings(
        players=players,
        bots=kinds,
        name=person,
        seed=seed,
        delay=delay,
        record=record,
        coach=coach,
    )
    check_move_time(move_time)
    from nimmt.bots.external import ProgramBotError, ProgramScope

    # The scope stops every cmd: bot the game started, however the game ends; a signal
    # (SIGINT, SIGTERM, SIGHUP) kills them at once and ends the game as Ctrl-C does.
    with stop_on_signals() as stopping, ProgramScope(move_time):
        try:
            status = run(
                settings, console=console, err_console=Console(stderr=True, highlight=False)
            )
        except ProgramBotError as error:
            fail(str(error))
        except KeyboardInterrupt:  # a signal while the game was being set up or kept
            typer.echo(f"error: {stopping.reason()}", err=True)
            status = stopping.status()
    raise typer.Exit(stopping.status(status))
