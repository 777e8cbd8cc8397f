"""The ``nimmt`` command: one Typer app, one module per subcommand.

Every failure a user can cause ends as one line ``error: ...`` on standard error and exit
status 1 (:func:`fail`); never a traceback.
"""

from __future__ import annotations

import typer

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
    app()
