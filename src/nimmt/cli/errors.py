"""How the command line reports a failure: one line on standard error, exit status 1."""

from __future__ import annotations

from typing import NoReturn

import typer


def fail(message: str) -> NoReturn:
    """Print ``error: message`` on standard error and exit with status 1."""
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(1)
