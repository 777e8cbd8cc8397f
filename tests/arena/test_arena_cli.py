"""``nimmt arena`` through the real console command (docs/formats.md section 3)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from nimmt.records import replay_record

NIMMT = str(Path(sys.executable).with_name("nimmt"))


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [NIMMT, "arena", *args], capture_output=True, text=True, timeout=120, check=False
    )


def test_arena_json_has_one_entry_per_bot_given() -> None:
    result = run(
        "mc:8", "greedy", "greedy", "random", "--deals", "4", "--seed", "3", "--json", "--jobs", "2"
    )
    assert result.returncode == 0, result.stderr
    figures = json.loads(result.stdout)
    assert (figures["seats"], figures["deals"], figures["games"], figures["seed"]) == (4, 4, 16, 3)
    assert [bot["bot"] for bot in figures["bots"]] == ["mc:8", "greedy", "greedy", "random"]
    keys = {"bot", "mean", "ci95", "vs_others", "vs_others_ci95", "win_share", "ms_per_move"}
    assert all(keys <= set(bot) for bot in figures["bots"])
    again = run(
        "mc:8", "greedy", "greedy", "random", "--deals", "4", "--seed", "3", "--json", "--jobs", "1"
    )
    strip = [{k: v for k, v in bot.items() if k != "ms_per_move"} for bot in figures["bots"]]
    assert strip == [
        {k: v for k, v in bot.items() if k != "ms_per_move"}
        for bot in json.loads(again.stdout)["bots"]
    ]


def test_arena_prints_a_table_without_json() -> None:
    result = run("greedy", "random", "--deals", "3", "--jobs", "1")
    assert result.returncode == 0, result.stderr
    assert "greedy" in result.stdout and "wins" in result.stdout


def test_arena_records_every_game(tmp_path: Path) -> None:
    result = run(
        "greedy",
        "random",
        "--games",
        "1",
        "--json",
        "--jobs",
        "1",
        "--record",
        str(tmp_path / "records"),
    )
    assert result.returncode == 0, result.stderr
    files = sorted((tmp_path / "records").iterdir())
    assert [file.name for file in files] == [
        "game00001-rotation01.json",
        "game00001-rotation02.json",
    ]
    assert all(replay_record(file.read_text()).finished for file in files)
    assert json.loads(result.stdout)["mode"] == "games"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["greedy"], "2 to 10 bots"),
        (["greedy", "wizard"], "unknown bot 'wizard'"),
        (["greedy", "mc:0"], "mc:N"),
        (["greedy", "random", "--deals", "0"], "at least one"),
        (["greedy", "random", "--jobs", "0"], "--jobs"),
        (["greedy", "policy:nowhere.npz"], "bot 'policy:nowhere.npz': no policy file at"),
    ],
)
def test_arena_refuses_bad_requests_in_one_line(args: list[str], message: str) -> None:
    result = run(*args)
    assert result.returncode == 1
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and message in lines[0]


def test_a_saved_policy_takes_a_seat(tmp_path: Path) -> None:
    import numpy as np

    from nimmt.bots.saved import Network

    path = Network.initial(8, np.random.default_rng(1)).save(tmp_path / "mine.npz")
    bots = (f"policy:{path}", "greedy", "random")
    result = run(*bots, "--deals", "3", "--seed", "2", "--json", "--jobs", "2")
    assert result.returncode == 0, result.stderr
    figures = json.loads(result.stdout)
    assert [bot["bot"] for bot in figures["bots"]] == list(bots)
    assert figures["games"] == 9 and figures["bots"][0]["mean"] > 0


def test_the_piped_table_is_not_cut_to_80_columns() -> None:
    example = Path(__file__).parents[2] / "docs" / "examples" / "lowest_bot.py"
    program = f"cmd:{sys.executable} {example}"
    result = run(program, "greedy", "--deals", "1")
    assert result.returncode == 0, result.stderr
    line = next(line for line in result.stdout.splitlines() if "lowest_bot.py" in line)
    assert program in line and "…" not in result.stdout
    assert len(line) > 80  # every column kept, on one line
