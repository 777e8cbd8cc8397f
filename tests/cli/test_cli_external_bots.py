"""``cmd:COMMAND`` bots through the real console command: ``nimmt arena`` and ``nimmt play``.

A good program finishes an arena run and a whole game of ``nimmt play``; every way a program can
fail ends the run with one ``error:`` line naming the bot and its seat, exit status 1, and no
process left behind (each program's command line carries a fresh marker, and afterwards no live
process may carry it: the programs run in process groups of their own, so they are not our
children any more once nimmt has exited).
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import uuid
from pathlib import Path

import psutil  # type: ignore[import-untyped]  # no stubs among the dependencies
import pytest

from nimmt.records import replay_record

NIMMT = str(Path(sys.executable).with_name("nimmt"))
ROOT = Path(__file__).parents[2]
FAKE_BOT = Path(__file__).parents[1] / "bots" / "programs" / "fake_bot.py"
EXAMPLE_BOT = ROOT / "docs" / "examples" / "lowest_bot.py"
PERSON_INPUT = "\n".join(str(card) for _ in range(200) for card in range(1, 105)) + "\n"
"""What the person types in ``nimmt play``: every card number again and again. A number not in
the hand is explained and asked again, so each prompt takes the next number that fits."""
DEADLINE = 120.0
"""A guard against a hung test, not a timing assertion."""


def fake_bot(mode: str, marker: str) -> str:
    return f"cmd:{shlex.quote(sys.executable)} {shlex.quote(str(FAKE_BOT))} {mode} {marker}"


def live_processes(marker: str) -> list[psutil.Process]:
    """Processes, other than zombies, whose command line holds ``marker``."""
    found = []
    for process in psutil.process_iter(["cmdline", "status"]):
        with_marker = marker in (process.info["cmdline"] or [])
        if with_marker and process.info["status"] != psutil.STATUS_ZOMBIE:
            found.append(process)
    return found


def assert_one_error_line(stderr: str, *words: str) -> str:
    errors = [line for line in stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, stderr
    assert "Traceback" not in stderr, stderr
    for word in words:
        assert word in errors[0], errors[0]
    return errors[0]


def arena(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [NIMMT, "arena", *args], capture_output=True, text=True, timeout=DEADLINE, check=False
    )


def play(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONIOENCODING": "utf-8", "COLUMNS": "100"}
    return subprocess.run(
        [NIMMT, "play", *args],
        input=PERSON_INPUT,
        capture_output=True,
        text=True,
        timeout=DEADLINE,
        check=False,
        env=env,
    )


def test_the_example_bot_plays_an_arena_run_under_its_own_name() -> None:
    name = f"cmd:{shlex.quote(sys.executable)} {shlex.quote(str(EXAMPLE_BOT))}"
    result = arena(name, "greedy", "random", "--deals", "3", "--seed", "4", "--json")
    assert result.returncode == 0, result.stderr
    figures = json.loads(result.stdout)
    assert [bot["bot"] for bot in figures["bots"]] == [name, "greedy", "random"]
    assert figures["games"] == 9
    again = arena(name, "greedy", "random", "--deals", "3", "--seed", "4", "--json")
    without_time = [{k: v for k, v in b.items() if k != "ms_per_move"} for b in figures["bots"]]
    assert without_time == [
        {k: v for k, v in b.items() if k != "ms_per_move"} for b in json.loads(again.stdout)["bots"]
    ]


def test_a_program_bot_plays_whole_arena_games_with_records(tmp_path: Path) -> None:
    marker = uuid.uuid4().hex
    result = arena(
        fake_bot("good", marker), "greedy", "--games", "1", "--record", str(tmp_path), "--json"
    )
    assert result.returncode == 0, result.stderr
    assert len(list(tmp_path.glob("*.json"))) == 2
    assert live_processes(marker) == []


def test_two_program_bots_with_several_jobs_still_finish_clean() -> None:
    marker = uuid.uuid4().hex
    result = arena(
        fake_bot("good", marker), fake_bot("ignore_bye", marker), "--deals", "2", "--jobs", "2"
    )
    assert result.returncode == 0, result.stderr
    assert live_processes(marker) == []


def test_the_example_bot_plays_a_whole_game_of_nimmt_play() -> None:
    command = f"cmd:{shlex.quote(sys.executable)} {shlex.quote(str(EXAMPLE_BOT))}"
    result = play("--players", "3", "--bots", f"{command},greedy", "--seed", "8")
    assert result.returncode == 0, result.stderr
    assert "Game over" in result.stdout


FAILURES = [
    ("crash_at_start", "exited with status 3 before answering a card request"),
    ("exit_mid_game", "exited with status 0 before answering a "),
    ("hang", "did not answer a card request within 0.5 seconds"),
    ("hang_with_child", "did not answer a card request within 0.5 seconds"),
    ("garbage", "answered 'I play the lowest card' to a card request, which is not JSON"),
    ("wrong_shape", 'to a card request, not {"card": N}'),
    ("illegal_card", "which is not in its hand"),
    ("bad_row", "chose row 4; rows are 0 to 3"),
    ("two_lines", "wrote more than one line for one card request"),
]


def move_time(mode: str) -> list[str]:
    """A short limit for the programs that hang; the default for the others, so that a slow
    start on a busy machine cannot pass for a hang."""
    return ["--move-time", "0.5"] if mode.startswith("hang") else []


@pytest.mark.parametrize(("mode", "what"), FAILURES)
def test_a_failing_program_ends_the_arena_with_one_error_line(mode: str, what: str) -> None:
    marker = uuid.uuid4().hex
    bot = fake_bot(mode, marker)
    result = arena(bot, "greedy", "greedy", "--deals", "4", "--seed", "2", *move_time(mode))
    assert result.returncode == 1, result.stderr
    line = assert_one_error_line(result.stderr, f"error: bot {bot} (seat ", what)
    assert result.stdout == "", line
    assert live_processes(marker) == []


@pytest.mark.parametrize(("mode", "what"), [FAILURES[0], FAILURES[3], FAILURES[6]])
def test_a_failing_program_ends_nimmt_play_with_one_error_line(mode: str, what: str) -> None:
    marker = uuid.uuid4().hex
    bot = fake_bot(mode, marker)
    result = play("--players", "3", "--bots", bot, "--seed", "3", *move_time(mode))
    assert result.returncode == 1, result.stderr
    assert_one_error_line(result.stderr, f"error: bot {bot} (seat 1)", what)
    assert live_processes(marker) == []


def test_a_program_that_fails_mid_game_leaves_the_record_of_what_was_played(
    tmp_path: Path,
) -> None:
    marker = uuid.uuid4().hex
    bot = fake_bot("exit_mid_game", marker)
    path = tmp_path / "game.json"
    result = play("--players", "3", "--bots", bot, "--seed", "3", "--record", str(path))
    assert result.returncode == 1, result.stderr
    line = assert_one_error_line(result.stderr, f"error: bot {bot} (seat 1)", "exited")
    assert line.endswith(f"the record is in {path}")
    # The three turns the program answered before it exited are kept, and replay.
    record = json.loads(path.read_text())
    assert len(record["rounds"][0]["turns"]) == 3
    assert not replay_record(record).finished
    assert live_processes(marker) == []


def test_a_program_that_cannot_be_found_is_refused_before_the_game() -> None:
    result = arena("cmd:no-such-program-here --fast", "greedy")
    assert result.returncode == 1
    assert_one_error_line(result.stderr, "no program 'no-such-program-here'")
    result = play("--bots", "cmd:'unclosed")
    assert result.returncode == 1
    assert_one_error_line(result.stderr, 'unknown bot "cmd:\'unclosed"', "quotation")
    assert "Your card" not in result.stdout


@pytest.mark.parametrize("value", ["0", "-1", "nan", "1e9"])
def test_move_time_must_be_a_sensible_number_of_seconds(value: str) -> None:
    for command in (arena("greedy", "greedy", "--move-time", value), play("--move-time", value)):
        assert command.returncode == 1
        assert_one_error_line(command.stderr, "--move-time")


def test_the_example_in_the_bots_page_is_the_file_the_tests_run() -> None:
    page = (ROOT / "docs" / "bots.md").read_text(encoding="utf-8")
    section = page.split("## Your own bot as a program", 1)[1]
    shown = section.split("```python\n", 1)[1].split("```", 1)[0]
    assert shown == EXAMPLE_BOT.read_text(encoding="utf-8")
