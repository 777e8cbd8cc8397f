"""A session of ``nimmt play`` as the command line runs it: :func:`run` plays a
:class:`~nimmt.terminal.game.TerminalGame`, writes the record if asked, and turns Ctrl-C and the
end of input into a clean end with one line and an exit status."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from contextlib import nullcontext
from enum import Enum
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.text import Text

from nimmt.exits import EXIT_INTERRUPTED
from nimmt.terminal.game import TerminalGame
from nimmt.terminal.prompts import Asker, console_asker, echo_set
from nimmt.terminal.settings import PERSON_SEAT, PlaySettings


class Ending(Enum):
    """How a session in the terminal ended."""

    FINISHED = "finished"
    INPUT_ENDED = "input ended"
    INTERRUPTED = "interrupted"
    BOT_FAILED = "bot failed"


def record_meta(session: TerminalGame) -> dict[str, Any]:
    """What a record of a terminal game says beyond the rules: enough to play it again."""
    return {
        "program": "nimmt play",
        "seed": session.seed,
        "person_seat": PERSON_SEAT,
        "bots": list(session.bot_kinds),
    }


def save_record(session: TerminalGame, path: Path) -> None:
    """Write the game (finished or in progress) as a record to ``path``."""
    from nimmt.records import dump_record, to_record

    record = to_record(session.game, list(session.names), record_meta(session))
    path.write_text(dump_record(record), encoding="utf-8")


def run(
    settings: PlaySettings,
    *,
    console: Console,
    err_console: Console,
    ask: Asker | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> int:
    """Play a game, save its record if asked, and return the exit status.

    Ctrl-C (status 130, :data:`~nimmt.exits.EXIT_INTERRUPTED`) or the end of input (status 1)
    stop the game cleanly with one line on ``err_console``; the record, if asked for, then holds
    the game in progress.
    """
    session = TerminalGame(
        settings, console=console, ask=ask or console_asker(console), sleep=sleep
    )
    # At the keyboard, keys pressed while a turn is told are not shown (the prompts show them).
    quiet = echo_set(sys.stdin, on=False) if ask is None else nullcontext()
    # Imported here: the bots are loaded only once a game is played (`nimmt --help` stays fast).
    from nimmt.bots.external import ProgramBotError

    failure = ""
    try:
        with quiet:
            session.play()
        ending = Ending.FINISHED
    except KeyboardInterrupt:
        ending = Ending.INTERRUPTED
    except EOFError:
        ending = Ending.INPUT_ENDED
    except ProgramBotError as error:
        # A cmd: bot broke its protocol: the game cannot go on, but what was played is kept.
        ending, failure = Ending.BOT_FAILED, str(error)
    if ending is not Ending.FINISHED:
        console.print()  # the prompt's line was left open
    note, record_failed = "", False
    if settings.record is not None:
        try:
            save_record(session, settings.record)
            note = f"the record is in {settings.record}"
        except OSError as error:
            note = f"the record could not be written to {settings.record}: {error.strerror}"
            record_failed = True

    def say(line: str) -> None:
        err_console.print(line, markup=False, highlight=False, soft_wrap=True)

    if ending is Ending.INTERRUPTED:
        say(f"Game interrupted; {note}." if note else "Game interrupted.")
        return EXIT_INTERRUPTED
    if ending is Ending.INPUT_ENDED:
        say(f"error: input ended before the game was over{'; ' + note if note else ''}")
        return 1
    if ending is Ending.BOT_FAILED:
        say(f"error: {failure}{'; ' + note if note else ''}")
        return 1
    if record_failed:
        say(f"error: {note}")
        return 1
    if note:
        console.print(Text(f"The record is in {settings.record}.", style="dim"))
    return 0
