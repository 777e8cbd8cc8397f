"""`nimmt play` through the real console command, its input a pipe written as a person would.

A small driver reads the program's output until a prompt appears, reads the hand from the
screen, and answers; no pexpect and no autoplay option: the prompts themselves are exercised.
Also the options' checks, Ctrl-C (a real SIGINT) and the end of input.
"""

from __future__ import annotations

import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from typer.testing import CliRunner

from nimmt.cli import app
from nimmt.records import replay_record

CARD_PROMPT = "Your card: "
ROW_PROMPT = "Row to take (1-4): "
DEADLINE = 60.0
"""Seconds to wait for a prompt: a guard against a hung test, not a timing assertion."""


def nimmt_command() -> str:
    beside_python = Path(sys.executable).parent / "nimmt"
    found = str(beside_python) if beside_python.exists() else shutil.which("nimmt")
    assert found, "the nimmt console command is not installed"
    return found


class Driver:
    """Runs ``nimmt play ...`` with pipes and talks to it prompt by prompt."""

    def __init__(self, *args: str) -> None:
        env = {**os.environ, "PYTHONIOENCODING": "utf-8", "COLUMNS": "100"}
        self.process = subprocess.Popen(
            [nimmt_command(), "play", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
        self.output = ""
        self._chunks: queue.Queue[bytes] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self._raw = b""

    def _read(self) -> None:
        stdout = self.process.stdout
        assert stdout is not None
        while chunk := os.read(stdout.fileno(), 4096):
            self._chunks.put(chunk)
        self._chunks.put(b"")

    def next_prompt(self) -> str | None:
        """Wait for the next prompt and return it; ``None`` once the program has closed its
        output."""
        while True:
            for prompt in (CARD_PROMPT, ROW_PROMPT):
                if self.output.endswith(prompt):
                    return prompt
            chunk = self._chunks.get(timeout=DEADLINE)
            if not chunk:
                return None
            self._raw += chunk
            self.output = self._raw.decode("utf-8", errors="replace")

    def answer(self, text: str) -> None:
        stdin = self.process.stdin
        assert stdin is not None
        stdin.write(f"{text}\n".encode())
        stdin.flush()
        self.output += "\n"  # so that the same prompt is not seen twice
        self._raw += b"\n"

    def hand(self) -> list[int]:
        shown = re.findall(r"Your hand:(.*)", self.output)
        return [int(card) for card in re.findall(r"(\d+)·\d", shown[-1])]

    def finish(self) -> tuple[int, str]:
        if self.process.stdin is not None:
            self.process.stdin.close()
        status = self.process.wait(timeout=DEADLINE)
        assert self.process.stderr is not None
        return status, self.process.stderr.read().decode("utf-8")


def test_a_whole_game_through_the_console_command(tmp_path: Path) -> None:
    record = tmp_path / "game.json"
    driver = Driver("--seed", "3", "--players", "3", "--fast", "--record", str(record))
    card_prompts = row_prompts = 0
    while (prompt := driver.next_prompt()) is not None:
        if prompt == CARD_PROMPT:
            card_prompts += 1
            if card_prompts == 1:
                driver.answer("seven")  # explained, then asked again
                assert driver.next_prompt() == CARD_PROMPT
            driver.answer(str(driver.hand()[0]))
        else:
            row_prompts += 1
            driver.answer("4")
    status, err = driver.finish()
    assert (status, err) == (0, "")
    text = driver.output
    assert "'seven' is not a card number" in text
    assert "Game over" in text and "Traceback" not in text
    replayed = replay_record(record.read_text(encoding="utf-8"))
    assert replayed.finished
    assert card_prompts == 10 * len(replayed.rounds)
    assert row_prompts == sum(
        1
        for log in replayed.game.history
        for turn in log.turns
        if turn.row is not None and turn.cards.index(min(turn.cards)) == 0
    )
    assert text.count("Score sheet") == len(replayed.rounds)


def test_ctrl_c_ends_cleanly_with_status_130_and_keeps_the_game(tmp_path: Path) -> None:
    record = tmp_path / "partial.json"
    driver = Driver("--seed", "3", "--players", "3", "--fast", "--record", str(record))
    assert driver.next_prompt() == CARD_PROMPT
    driver.answer(str(driver.hand()[-1]))
    assert driver.next_prompt() is not None
    driver.process.send_signal(signal.SIGINT)
    status, err = driver.finish()
    assert status == 130
    assert err == f"Game interrupted; the record is in {record}.\n"
    replayed = replay_record(record.read_text(encoding="utf-8"))
    assert not replayed.finished and len(replayed.game.history[0].turns) >= 1


def test_end_of_input_ends_with_one_error_line() -> None:
    driver = Driver("--seed", "3", "--players", "3", "--fast")
    assert driver.next_prompt() == CARD_PROMPT
    status, err = driver.finish()
    assert status == 1
    assert err == "error: input ended before the game was over\n"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--players", "11"], "error: classic 6 nimmt! is for 2 to 10 players, not 11"),
        (["--players", "1"], "error: classic 6 nimmt! is for 2 to 10 players, not 1"),
        (["--bots", "nosuchbot"], "error: unknown bot 'nosuchbot'"),
        (
            ["-n", "3", "--bots", "greedy,policy:no.npz"],
            "error: bot 'policy:no.npz': no policy file at",
        ),
        (["--players", "4", "--bots", "greedy,random"], "error: 2 bot kinds given for 3"),
        (["--fast", "--delay", "1"], "error: give --fast or --delay, not both"),
        (["--delay", "-1"], "error: --delay must be between 0 and 10 seconds"),
        (["--name", "  "], "error: the name must be 1 to 24 printable characters"),
        (["--record", "/no/such/dir/game.json"], "error: cannot write the record to"),
        (["--record", "/", "--force"], "error: cannot write the record to /: it is a directory"),
    ],
)
def test_bad_options_are_refused_with_one_line(args: list[str], message: str) -> None:
    result = CliRunner().invoke(app, ["play", *args], input="")
    assert result.exit_code == 1
    assert result.output.startswith(message)
    assert result.output.count("\n") == 1


def test_record_refuses_to_overwrite_a_file_without_force(tmp_path: Path) -> None:
    record = tmp_path / "game.json"
    record.write_text("precious", encoding="utf-8")
    result = CliRunner().invoke(app, ["play", "--fast", "--record", str(record)], input="")
    assert result.exit_code == 1
    assert result.output == f"error: {record} exists; use --force to overwrite it\n"
    assert record.read_text(encoding="utf-8") == "precious"  # refused before the game began


def test_record_with_force_overwrites_the_file(tmp_path: Path) -> None:
    record = tmp_path / "game.json"
    record.write_text("old", encoding="utf-8")
    driver = Driver("--seed", "3", "--players", "3", "--fast", "--record", str(record), "--force")
    assert driver.next_prompt() == CARD_PROMPT
    status, err = driver.finish()  # input ends: the game in progress is saved
    assert status == 1
    assert err == f"error: input ended before the game was over; the record is in {record}\n"
    assert not replay_record(record.read_text(encoding="utf-8")).finished


def test_the_help_offers_the_coach_and_the_prompts_commands() -> None:
    result = CliRunner().invoke(app, ["play", "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    words = " ".join(result.output.replace("│", " ").split())
    assert "--coach" in words and "it never chooses for you" in words
    assert "? for help, s for the score sheet so far, l for this round's turns" in words
    # Lines break where the terminal ends, not where the source's did.
    assert "or ? for help, s for the score sheet so far, l for" in result.output
