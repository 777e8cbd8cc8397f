"""``bench/gauntlet.py`` plays the candidate's and the baseline's runs once each and pairs them
as ``bench/paired.py`` does; the figures themselves are not judged."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.bench.bench_scripts import BENCH, refused


def gauntlet(*arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(BENCH / "gauntlet.py"), *arguments],
        capture_output=True,
        text=True,
        timeout=240,
        check=True,
    )


def test_a_screen_pairs_each_table_and_plays_a_finished_run_only_once(tmp_path: Path) -> None:
    options = ("--baseline", "greedy", "--deals", "1", "--seeds", "3", "4", "--jobs", "2")
    first = gauntlet("easy", *options, "--tables", "mc64", "--dir", str(tmp_path), "--json")
    screen = json.loads(first.stdout)["gauntlet"]
    (table,) = screen["tables"]
    assert (table["candidate"], table["baseline"], table["table"]) == (
        "easy",
        "greedy",
        "mc:64 mc:64 mc:64",
    )
    assert table["seeds"] == [3, 4] and table["deals"] == 2
    assert screen["pooled"]["difference"] == table["difference"]  # one table: the same deals
    assert first.stderr.count("played") == 4  # two bots at two seeds
    # Again, with a second candidate: the baseline's runs are kept, only the new ones play.
    again = gauntlet("mc:8", *options, "--tables", "mc64", "--dir", str(tmp_path), "--json")
    assert again.stderr.count("played") == 2 and "played greedy" not in again.stderr
    same = gauntlet("easy", *options, "--tables", "mc64", "--dir", str(tmp_path), "--json")
    assert same.stderr == "" and json.loads(same.stdout)["gauntlet"] == screen


def test_bad_screens_are_refused_with_one_line(tmp_path: Path) -> None:
    assert "at least 1" in refused("gauntlet.py", "easy", "--deals", "0")
    assert "is the baseline" in refused("gauntlet.py", "hard")
    message = refused(
        "gauntlet.py", "nobot", "--tables", "mc64", "--deals", "1", "--dir", str(tmp_path)
    )
    assert "nobot" in message


def test_a_failed_run_stops_the_screen_without_playing_the_runs_still_waiting(
    tmp_path: Path,
) -> None:
    # One run at a time: the baseline's first run plays, the candidate's fails at once, and the
    # one worker has taken up the next run before the failure is seen; the five others wait.
    arguments = ("cmd:false", "--baseline", "greedy", "--deals", "1", "--jobs", "1")
    tables = ("--tables", "mc64", "mixed", "--seeds", "3", "4", "--dir", str(tmp_path))
    result = subprocess.run(
        [sys.executable, str(BENCH / "gauntlet.py"), *arguments, *tables],
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert result.returncode == 1 and "Traceback" not in result.stderr
    *played, error = result.stderr.strip().splitlines()
    assert error.startswith("error: cmd:false at mc:64 mc:64 mc:64: ")
    assert len(played) == 2 and all(line.startswith("played greedy") for line in played)
    assert len(list(tmp_path.glob("*/*/arena.json"))) == 2
