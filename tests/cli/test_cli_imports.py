"""The command starts fast: ``nimmt --help`` and ``nimmt replay`` load neither the bots (numpy)
nor the web stack; each subcommand imports what it needs when it runs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from nimmt.bots import BOT_NAMES
from nimmt.cli import play

GOLDEN = Path(__file__).parents[1] / "records" / "golden"
HEAVY = ("numpy", "sqlalchemy", "fastapi", "uvicorn", "nimmt.bots", "nimmt.arena", "nimmt.server")
"""Modules only `nimmt play`, `nimmt arena` and `nimmt serve` need (pydantic is Typer's own)."""


def loaded_modules(code: str) -> list[str]:
    """The modules loaded once ``code`` has run in a fresh interpreter."""
    probe = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)), file=sys.stderr)"
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=False
    )
    loaded: list[str] = json.loads(result.stderr.strip().splitlines()[-1])
    return loaded


def heavy_among(loaded: list[str]) -> list[str]:
    return [
        module
        for module in loaded
        if any(module == name or module.startswith(f"{name}.") for name in HEAVY)
    ]


def test_importing_the_cli_loads_no_bots_and_no_web_stack() -> None:
    loaded = loaded_modules("import nimmt.cli")
    assert "nimmt.cli" in loaded and "typer" in loaded
    assert heavy_among(loaded) == []


@pytest.mark.parametrize(
    "arguments",
    [
        ["--help"],
        ["replay", str(GOLDEN / "full_game.json"), "--json"],
        ["play", "--help"],
        ["analyze", "--help"],
        ["bot", "--help"],
    ],
)
def test_help_and_replay_load_no_bots_and_no_web_stack(arguments: list[str]) -> None:
    code = (
        f"import sys; sys.argv = ['nimmt', *{arguments!r}]\n"
        "from nimmt.cli import main\n"
        "try:\n    main()\nexcept SystemExit as end:\n    assert end.code == 0, end.code"
    )
    loaded = loaded_modules(code)
    assert "nimmt.cli" in loaded
    assert heavy_among(loaded) == []


def test_a_game_loads_the_bots() -> None:
    """The probe itself sees a heavy import when there is one."""
    code = (
        "import io, sys; sys.stdin = io.StringIO('')\n"
        "sys.argv = ['nimmt', 'play', '--players', '2', '--fast', '--seed', '1']\n"
        "from nimmt.cli import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass"
    )
    assert "nimmt.bots" in heavy_among(loaded_modules(code))


def test_the_help_offers_the_bots_there_are() -> None:
    assert play.BOT_NAMES == BOT_NAMES
    assert play.DEFAULT_BOT in BOT_NAMES
