"""The ``nimmt`` command: one Typer app, one module per subcommand.

Every failure a user can cause ends as one line ``error: ...`` on standard error and exit
status 1 (:func:`fail`); never a traceback.
"""

from __future__ import annotations

import sys

import typer
from typer.exceptions import TyperException

from nimmt.cli import arena, play, replay, serve

app = typer.Typer(
    name="nimmt",
    help="Classic 6 nimmt! for 2 to 10 players: play, replay, pit bots, serve the web table.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
app.command("play")(play.play)
app.command("replay")(replay.replay)
app.command("arena")(arena.arena)
app.command("serve")(serve.serve)


def main() -> None:
    """Run the command; a usage error (unknown option, bad value) is one ``error:`` line too."""
    try:
        status = app(standalone_mode=False)
    except typer.Abort:
        typer.echo("error: interrupted", err=True)
        sys.exit(130)
    except TyperException as error:  # Click's usage errors, as vendored by Typer
        message = error.format_message() if hasattr(error, "format_message") else str(error)
        context = getattr(error, "ctx", None)
        hint = f" (see `{context.command_path} --help`)" if context is not None else ""
        typer.echo(f"error: {message}{hint}", err=True)
        sys.exit(getattr(error, "exit_code", 2))
    sys.exit(status if isinstance(status, int) else 0)
