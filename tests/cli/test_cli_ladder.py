"""``nimmt ladder`` through the real console command (docs/bots.md "The ladder")."""

from __future__ import annotations

import json
import shlex
import signal
import subprocess
import sys
import uuid
from pathlib import Path

import psutil  # type: ignore[import-untyped]  # no stubs among the dependencies
import pytest
from tests.cli.test_cli_external_bots import (
    DEADLINE,
    EXAMPLE_BOT,
    NIMMT,
    assert_one_error_line,
    fake_bot,
)
from tests.cli.test_cli_program_signals import SIGNALS, left_behind, stop_when_started
from tests.waiting import wait_until

from nimmt.arena.ladder import load_ladder


def ladder(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [NIMMT, "ladder", *args], capture_output=True, text=True, timeout=DEADLINE, check=False
    )


def test_a_new_bot_joins_the_ladder_kept_in_the_file(tmp_path: Path) -> None:
    path = tmp_path / "ladder.json"
    first = ladder("random", "greedy", "mc:1", "--seats", "2", "--deals", "2", "--file", str(path))
    first_args = ("--json", "--jobs", "1")
    assert first.returncode == 0, first.stderr
    assert "random" in first.stdout and "rating" in first.stdout  # the table, without --json
    result = ladder("mc:2", "--deals", "2", "--file", str(path), *first_args)
    assert result.returncode == 0, result.stderr
    figures = json.loads(result.stdout)
    assert (figures["seats"], figures["seed"], figures["tables"]) == (2, 1, 6)
    assert (figures["deals"], figures["games"], figures["played_deals"]) == (12, 24, 6)
    assert sorted(bot["bot"] for bot in figures["bots"]) == ["greedy", "mc:1", "mc:2", "random"]
    assert all(bot["tables"] == 3 and bot["deals"] == 6 for bot in figures["bots"])
    low, high = figures["bots"][0]["ci95"]
    assert low <= figures["bots"][0]["rating"] <= high
    kept = load_ladder(path)
    assert kept.bots == ["random", "greedy", "mc:1", "mc:2"]
    assert sorted(len(blocks) for blocks in kept.tables.values()) == [2] * 6
    again = ladder("--file", str(path), *first_args)  # nothing to play: the same figures
    assert again.returncode == 0, again.stderr
    shown = json.loads(again.stdout)
    assert shown["played_deals"] == 0
    assert [bot["rating"] for bot in shown["bots"]] == [bot["rating"] for bot in figures["bots"]]


def test_a_program_bot_takes_its_seat_on_the_ladder(tmp_path: Path) -> None:
    program = f"cmd:{shlex.quote(sys.executable)} {shlex.quote(str(EXAMPLE_BOT))}"
    result = ladder(program, "random", "greedy", "--seats", "2", "--deals", "1", "--json")
    assert result.returncode == 0, result.stderr
    assert program in [bot["bot"] for bot in json.loads(result.stdout)["bots"]]


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["random", "greedy", "easy"], ["needs at least 4 bots, it has 3"]),
        (["random", "greedy", "clever", "easy"], ["unknown bot 'clever'"]),
        (["random", "greedy", "Random"], ["random is named twice"]),
        (["random", "greedy", "--seats", "1"], ["tables seat 2 to 10 bots, not 1"]),
        (["random", "greedy", "--seats", "2", "--deals", "0"], ["at least one deal"]),
        (["random", "greedy", "--seats", "2", "--jobs", "0"], ["--jobs must be at least 1"]),
        ([], ["needs at least 4 bots, it has 0"]),
    ],
)
def test_bad_requests_are_one_error_line(args: list[str], words: list[str]) -> None:
    result = ladder(*args)
    assert result.returncode == 1
    assert_one_error_line(result.stderr, *words)
    assert result.stdout == ""


def test_a_file_from_another_ladder_or_none_at_all_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "ladder.json"
    made = ladder("random", "greedy", "--seats", "2", "--deals", "1", "--file", str(path))
    assert made.returncode == 0, made.stderr
    before = path.read_text(encoding="utf-8")
    for option, value, word in (("--seats", "3", "--seats 2, not 3"), ("--seed", "7", "--seed 1")):
        result = ladder("mc:1", option, value, "--file", str(path))
        assert result.returncode == 1
        assert_one_error_line(result.stderr, "ladder.json", word)
    assert path.read_text(encoding="utf-8") == before  # a refused run changes nothing
    damaged = tmp_path / "damaged.json"
    damaged.write_text("[1, 2]", encoding="utf-8")
    result = ladder("random", "--file", str(damaged))
    assert_one_error_line(result.stderr, "damaged.json", "is not a nimmt-ladder file")
    missing = tmp_path / "no" / "such" / "dir.json"
    result = ladder("random", "greedy", "--seats", "2", "--file", str(missing))
    assert result.returncode == 1
    assert_one_error_line(result.stderr, "cannot write the ladder", "dir.json")


@pytest.mark.parametrize("number", SIGNALS, ids=lambda number: signal.Signals(number).name)
def test_a_signal_stops_the_ladder_keeps_the_file_and_ends_every_program(
    tmp_path: Path, number: int
) -> None:
    marker = uuid.uuid4().hex
    path = tmp_path / "ladder.json"
    command = [NIMMT, "ladder", fake_bot("hang_with_child", marker), "greedy", "random"]
    command += ["--seats", "2", "--deals", "2", "--file", str(path), "--move-time", "600"]
    status, stderr = stop_when_started(command, marker, number)
    assert status == 128 + number, stderr
    last = assert_one_error_line(stderr, "kept in", "ladder.json")
    if number != signal.SIGINT:
        assert signal.Signals(number).name in last
    assert left_behind(marker) == []
    assert len(load_ladder(path).bots) == 3


def alive(process: psutil.Process) -> bool:
    try:
        return bool(process.is_running() and process.status() != psutil.STATUS_ZOMBIE)
    except psutil.NoSuchProcess:
        return False


@pytest.mark.parametrize(
    "command",
    [
        ["ladder", "mc:64", "mc:32", "--seats", "2", "--deals", "50"],
        ["arena", "mc:64", "mc:32", "--deals", "50"],
    ],
    ids=["ladder", "arena"],
)
def test_sigterm_stops_the_worker_processes_without_a_traceback(
    tmp_path: Path, command: list[str]
) -> None:
    process = subprocess.Popen(
        [NIMMT, *command, "--jobs", "2"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        cwd=tmp_path,
    )
    try:
        parent = psutil.Process(process.pid)
        wait_until(
            lambda: len(parent.children()) >= 2,
            timeout=DEADLINE,
            interval=0.05,
            message="the worker processes did not start",
        )
        workers = parent.children()
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=DEADLINE)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 128 + signal.SIGTERM, stderr
    assert_one_error_line(stderr, "terminated (SIGTERM)")
    assert stderr.strip().splitlines()[-1].startswith("error:")
    wait_until(
        lambda: (
            not any(
                worker.is_running() and worker.status() != psutil.STATUS_ZOMBIE
                for worker in workers
            )
        ),
        timeout=10,
        interval=0.05,
        message="a worker process was left running",
    )


def _limit_memory() -> None:
    import resource

    # Without the check, the endless read ends in MemoryError, not in a swapping host.
    resource.setrlimit(resource.RLIMIT_AS, (2 * 1024**3, 2 * 1024**3))


def test_a_file_that_is_not_a_regular_file_is_refused_unread() -> None:
    if not Path("/dev/zero").exists():
        pytest.skip("no /dev/zero")
    result = subprocess.run(
        [NIMMT, "ladder", "random", "greedy", "--seats", "2", "--file", "/dev/zero"],
        capture_output=True,
        text=True,
        timeout=DEADLINE,
        check=False,
        preexec_fn=_limit_memory,
    )
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == "error: cannot read '/dev/zero': it is not a regular file\n"
