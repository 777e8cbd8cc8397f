"""Usage errors (unknown command, missing argument, bad option value) are one ``error:`` line."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

NIMMT = str(Path(sys.executable).with_name("nimmt"))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["bogus"], "error: No such command 'bogus'. (see `nimmt --help`)"),
        (["replay"], "error: Missing argument 'file'. (see `nimmt replay --help`)"),
        (["play", "--players", "abc"], "error: Invalid value for '--players'"),
    ],
)
def test_usage_errors_are_one_line(args: list[str], message: str) -> None:
    result = subprocess.run([NIMMT, *args], capture_output=True, text=True, check=False)
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.startswith(message)
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr


def test_help_lists_every_command() -> None:
    result = subprocess.run([NIMMT, "--help"], capture_output=True, text=True, check=False)
    assert result.returncode == 0
    for command in ("play", "replay", "arena", "serve"):
        assert command in result.stdout
