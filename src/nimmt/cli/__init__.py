"""The ``nimmt`` command: one Typer app, one module per subcommand.

Every failure a user can cause ends as one line ``error: ...`` on standard error and exit
status 1 (:func:`fail`); never a traceback. ``nimmt`` alone prints the help.
"""

from __future__ import annotations

import os
import sys
from typing import Annotated

import typer
from typer.exceptions import TyperException

from nimmt.cli import admin, analyze, arena, assist, bot, ladder, play, replay, serve
from nimmt.cli.errors import say_error
from nimmt.cli.help import HelpCommand, HelpGroup
from nimmt.exits import EXIT_INTERRUPTED

app = typer.Typer(
    name="nimmt",
    cls=HelpGroup,
    help="Classic 6 nimmt! for 2 to 10 players: play, replay, pit bots, serve the web table.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)
app.command("play", cls=HelpCommand)(play.play)
app.command("replay", cls=HelpCommand)(replay.replay)
app.command("arena", cls=HelpCommand)(arena.arena)
app.command("ladder", cls=HelpCommand)(ladder.ladder)
app.command("serve", cls=HelpCommand)(serve.serve)
app.command("assist", cls=HelpCommand)(assist.assist)
app.command("analyze", cls=HelpCommand)(analyze.analyze)
app.command("bot", cls=HelpCommand)(bot.bot)
app.add_typer(admin.app, name="admin", cls=HelpGroup)


def version() -> str:
    """The installed package's version."""
    from importlib.metadata import version as installed_version

    return installed_version("nimmt")


def _show_version(shown: bool) -> None:
    if shown:
        typer.echo(f"nimmt {version()}")
        raise typer.Exit(0)


@app.callback()
def _options(
    _version: Annotated[
        bool,
        typer.Option(
            "--version",
            metavar="",
            is_eager=True,
            expose_value=False,
            callback=_show_version,
            help="Show the version and exit.",
        ),
    ] = False,
) -> None:
    """Classic 6 nimmt! for 2 to 10 players: play, replay, pit bots, serve the web table."""


def main() -> None:
    """Run the command; a usage error (unknown option, bad value) is one ``error:`` line too."""
    arguments = sys.argv[1:] or ["--help"]  # `nimmt` alone: the help, and success
    try:
        status = app(args=arguments, prog_name="nimmt", standalone_mode=False)
    except (typer.Abort, KeyboardInterrupt):  # Ctrl-C, as Click reports it or as it came
        typer.echo("error: interrupted", err=True)
        sys.exit(EXIT_INTERRUPTED)
    except TyperException as error:  # Click's usage errors, as vendored by Typer
        message = error.format_message() if hasattr(error, "format_message") else str(error)
        message = message or "Missing command."  # a group without its command: `nimmt admin`
        context = getattr(error, "ctx", None)
        hint = f" (see `{context.command_path} --help`)" if context is not None else ""
        say_error(f"{message}{hint}")
        sys.exit(getattr(error, "exit_code", 2))
    except RecursionError:
        typer.echo("error: the input is nested too deeply to read", err=True)
        sys.exit(1)
    except Exception as error:
        # What no command foresaw (a file that cannot be written, an odd input a reader let
        # through) is still one line; NIMMT_DEBUG=1 shows where it came from.
        if os.environ.get("NIMMT_DEBUG"):
            raise
        say_error(unforeseen(error))
        sys.exit(1)
    sys.exit(status if isinstance(status, int) else 0)


def unforeseen(error: BaseException) -> str:
    """A failure no command foresaw, in one line: what the system or the library said."""
    if sys.stdin is None and isinstance(error, AttributeError):
        return "standard input is closed"
    if isinstance(error, OSError) and error.strerror:
        where = f": {error.filename}" if error.filename else ""
        return f"{error.strerror}{where}"
    text = str(error).strip().splitlines()
    return text[0] if text else type(error).__name__
