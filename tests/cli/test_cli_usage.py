"""Usage errors (unknown command, missing argument, bad option value) are one ``error:`` line;
``nimmt`` alone, ``-h`` and ``--version`` answer and succeed; help pages name no Python types."""

from __future__ import annotations

import os
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
        # A negative seed would be stored in the ladder's file and fail every later run.
        (["ladder", "random", "greedy", "--seed", "-3"], "error: Invalid value for '--seed'"),
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
    if "PYTHONPATH" in os.environ:  # the code under test, when it is not the installed one
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]
    return subprocess.run([NIMMT, *args], capture_output=True, text=True, env=env, check=False)


def test_nimmt_alone_prints_the_help_and_succeeds() -> None:
    result = nimmt()
    assert result.returncode == 0
    assert result.stderr == ""
    assert "Usage: nimmt [OPTIONS] COMMAND" in result.stdout
    assert result.stdout == nimmt("--help").stdout


EVERY_COMMAND = [
    [], ["play"], ["replay"], ["arena"], ["ladder"], ["serve"], ["assist"], ["analyze"], ["bot"],
    ["admin"], ["admin", "tables"], ["admin", "purge"], ["admin", "backup"],
]  # fmt: skip


@pytest.mark.parametrize("command", EVERY_COMMAND)
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


@pytest.mark.parametrize("command", EVERY_COMMAND)
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


def test_failures_no_command_foresaw_are_one_line_too(tmp_path: Path) -> None:
    # A record nested past Python's recursion limit, standard input closed, output that
    # cannot be written, a link the URL parser refuses: each one `error:` line, exit 1.
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    example = Path(__file__).parents[1] / "records" / "golden" / "worked_example.json"
    with open("/dev/full", "w") as full:
        unwritable = subprocess.run(
            [NIMMT, "replay", str(example), "--json"],
            stdout=full, stderr=subprocess.PIPE, text=True, check=False,
        )  # fmt: skip
    closed = subprocess.run(
        [NIMMT, "replay", "-"], capture_output=True, text=True, check=False,
        stdin=subprocess.DEVNULL, preexec_fn=lambda: os.close(0),
    )  # fmt: skip
    failures = {
        "the input is nested too deeply to read": nimmt("replay", str(deep)).stderr,
        "No space left on device": unwritable.stderr,
        "standard input is closed": closed.stderr,
        "Invalid IPv6 URL": nimmt("bot", "http://[::1").stderr,
    }
    for said, stderr in failures.items():
        assert stderr == f"error: {said}\n"
    assert unwritable.returncode == closed.returncode == 1


def test_jobs_never_start_more_workers_than_there_is_work() -> None:
    from nimmt.cli.arena import worker_count

    # --jobs 100000 for one deal once started processes for twenty seconds and more.
    assert worker_count(100_000, 3) == 3
    assert worker_count(2, 10) == 2
    assert worker_count(None, 1) == 1


def test_a_group_without_its_command_says_what_is_missing() -> None:
    result = nimmt("admin")
    assert result.returncode == 2
    assert "Usage: nimmt admin" in result.stdout  # its help, then what was wrong
    assert result.stderr == "error: Missing command. (see `nimmt admin --help`)\n"


def test_seat_options_say_how_they_count() -> None:
    """`nimmt bot --seat` counts seats from 0 (the API's `seat`), `nimmt analyze --seat` players
    from 1 (docs/formats.md): both are relied on, so each help page says which it is."""

    def option_help(*command: str) -> str:
        text = nimmt(*command, "--help").stdout
        return " ".join(text.replace("│", " ").split())

    assert "counted from 0 as the table's API counts them: 0 is the first seat" in option_help(
        "bot"
    )
    assert "their number counted from 1: 1 is the first player" in option_help("analyze")
