"""The ``nimmt`` command: one Typer app, one module per subcommand.

Every failure a user can cause ends as one line ``error: ...`` on standard error and exit
status 1 (:func:`fail`); never a traceback. ``nimmt`` alone prints the help.
"""

from __future__ import annotations

import inspect
import os
import sys
from typing import Annotated, Any

import typer
from typer._click import Context
from typer.core import TyperArgument, TyperCommand, TyperGroup, TyperOption
from typer.exceptions import TyperException

from nimmt.cli import admin, analyze, arena, assist, bot, ladder, play, replay, serve
from nimmt.cli.errors import say_error
from nimmt.exits import EXIT_INTERRUPTED


class _Group(TyperGroup):
    """The app's group: its ``--help`` shows no type name (Typer would show ``<bool>``)."""

    def get_help_option(self, ctx: Context) -> TyperOption | None:
        option = super().get_help_option(ctx)
        if option is not None:
            option.metavar = ""
        return option


class _Argument(TyperArgument):
    """An argument shown by its metavar alone: ``FILE``, not ``{FILE}`` and ``<str>``."""

    def display_type_rich(self, ctx: Context) -> str | None:
        return None

    def _usage_display_name(self) -> str:
        return self.display_name_raw if self.required else f"[{self.display_name_raw}]"


class _Command(TyperCommand):
    """A subcommand: its ``--help`` shows no type name either."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.help:
            # Typer keeps the line breaks of a docstring's later paragraphs, which then break
            # the help's lines where the source did, not where the terminal does.
            paragraphs = inspect.cleandoc(self.help).split("\n\n")
            self.help = "\n\n".join(" ".join(paragraph.split()) for paragraph in paragraphs)
        for param in self.params:
            if type(param) is TyperArgument:
                param.__class__ = _Argument  # Typer builds the arguments; only their help differs

    def get_help_option(self, ctx: Context) -> TyperOption | None:
        option = super().get_help_option(ctx)
        if option is not None:
            option.metavar = ""
        return option


app = typer.Typer(
    name="nimmt",
    cls=_Group,
    help="Classic 6 nimmt! for 2 to 10 players: play, replay, pit bots, serve the web table.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)
app.command("play", cls=_Command)(play.play)
app.command("replay", cls=_Command)(replay.replay)
app.command("arena", cls=_Command)(arena.arena)
app.command("ladder", cls=_Command)(ladder.ladder)
app.command("serve", cls=_Command)(serve.serve)
app.command("assist", cls=_Command)(assist.assist)
app.command("analyze", cls=_Command)(analyze.analyze)
app.command("bot", cls=_Command)(bot.bot)
app.add_typer(admin.app, name="admin", cls=_Group)


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
