"""Usage errors (unknown command, missing argument, bad option value) are one ``error:`` line;
``nimmt`` alone, ``-h`` and ``--version`` answer and succeed; help pages name no Python types."""

from __future__ import annotations

import re
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

NIMMT = str(Path(sys.executable).with_name("nimmt"))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["bogus"], "error: No such command 'bogus'. (see `nimmt --help`)"),
        (["replay"], "error: Missing argument 'FILE'. (see `nimmt replay --help`)"),
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
    for command in ("play", "replay", "arena", "ladder", "serve"):
        assert command in result.stdout


def nimmt(*args: str) -> subprocess.CompletedProcess[str]:
    env = {"COLUMNS": "100", "PATH": "/usr/bin:/bin", "PYTHONIOENCODING": "utf-8"}
    return subprocess.run([NIMMT, *args], capture_output=True, text=True, env=env, check=False)


def test_nimmt_alone_prints_the_help_and_succeeds() -> None:
    result = nimmt()
    assert result.returncode == 0
    assert result.stderr == ""
    assert "Usage: nimmt [OPTIONS] COMMAND" in result.stdout
    assert result.stdout == nimmt("--help").stdout


@pytest.mark.parametrize("command", [[], ["play"], ["replay"], ["arena"], ["ladder"], ["serve"]])
def test_dash_h_is_help(command: list[str]) -> None:
    short, long = nimmt(*command, "-h"), nimmt(*command, "--help")
    assert (short.returncode, short.stderr) == (0, "")
    assert short.stdout == long.stdout
    assert f"Usage: nimmt {' '.join(command)}".rstrip() in short.stdout


def test_version_prints_the_package_version() -> None:
    result = nimmt("--version")
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout == f"nimmt {version('nimmt')}\n"


TYPE_NAMES = re.compile(
    r"<[\w\[\], |]+>|(?<!:)\b(INTEGER|TEXT|PATH|FLOAT|BOOLEAN|FILENAME)\b|\{\w+\}"
)
"""Typer's type labels (``<int>``, ``<list[str]>``), Click's (``INTEGER``), braced arguments
(a bot name's own placeholder, as in ``policy:PATH``, is not one)."""


@pytest.mark.parametrize("command", [[], ["play"], ["replay"], ["arena"], ["ladder"], ["serve"]])
def test_help_pages_show_no_internal_type_names(command: list[str]) -> None:
    text = nimmt(*command, "--help").stdout
    assert not TYPE_NAMES.search(text), text
    for metavar in {
        "play": ("N", "KIND[,KIND...]", "NAME", "SEED", "FILE", "SECONDS"),
        "replay": ("FILE",),
        "arena": ("BOT...", "N", "SEED", "DIR"),
        "ladder": ("BOT...", "N", "SEED", "FILE", "SECONDS"),
        "serve": ("ADDRESS", "PORT", "URL"),
    }.get(" ".join(command), ()):
        assert f" {metavar} " in text, metavar
