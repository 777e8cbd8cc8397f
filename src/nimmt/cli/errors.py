"""How the command line reports a failure: one line on standard error, exit status 1."""

from __future__ import annotations

from pathlib import Path
from typing import NoReturn

import typer


def fail(message: str) -> NoReturn:
    """Print ``error: message`` on standard error (:func:`say_error`) and exit with status 1."""
    say_error(message)
    raise typer.Exit(1)


def say_error(message: str) -> None:
    """Print ``error: message`` on standard error, as one line whatever it holds: a file name
    or a value the user typed with a line break or a control character (an escape sequence)
    shows it as ``?`` (:func:`shown`)."""
    typer.echo(f"error: {shown(message)}", err=True)


def shown(text: str) -> str:
    """``text`` (a name, a value given) as an error line may echo it: as it is, but every
    character that does not show (a control character, a line break) as ``?``, so that the
    message stays one line."""
    return "".join(char if char.isprintable() else "?" for char in text)


def check_record_target(record: Path | None, *, force: bool) -> None:
    """Refuse (:func:`fail`) a ``--record FILE`` that cannot be written, or that exists and
    ``--force`` was not given: a game's record is never lost to the next game's."""
    if record is None:
        return
    if not record.parent.is_dir():
        fail(f"cannot write the record to {record}: no such directory {record.parent}")
    if record.is_dir():
        fail(f"cannot write the record to {record}: it is a directory")
    if record.exists() and not force:
        fail(f"{record} exists; use --force to overwrite it")
