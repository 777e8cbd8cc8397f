"""``nimmt assist`` and ``nimmt play`` on a real (pseudo-)terminal: ``u`` takes back the last
entry (again and again, across a row choice and a finished turn), ``?`` says what each prompt
takes with an example that is legal there, and ``u`` with nothing entered is one clear error.

The person's keyboard is the master side of a pseudo-terminal (``os.openpty``); the program's
standard input, output and error are the slave side, so the test reads the screen as a person
sees it, errors included, and types as a person does.
"""

from __future__ import annotations

import json
import os
import re
import select
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from nimmt.engine import BULLHEADS

DEADLINE = 60.0
"""Seconds to wait for the program's output: a guard against a hung test, not a timing check."""
ROWS_PROMPT = "the 4 starting row cards: "
CARDS_PROMPT = "the cards revealed (Ana Ben): "
ROW_PROMPT = "Ana, which row do you take (1 to 4)? "
CARD_PROMPT = "Your card: "


def nimmt_command() -> str:
    found = Path(sys.executable).parent / "nimmt"
    assert found.exists(), "the nimmt console command is not installed"
    return str(found)


class Terminal:
    """A ``nimmt`` command with the slave side of a pseudo-terminal as its whole terminal."""

    def __init__(self, *args: str) -> None:
        self.master, slave = os.openpty()
        env = {**os.environ, "TERM": "dumb", "COLUMNS": "120", "PYTHONIOENCODING": "utf-8"}
        self.process = subprocess.Popen(
            [nimmt_command(), *args], stdin=slave, stdout=slave, stderr=slave, env=env
        )
        os.close(slave)
        self.screen = ""
        self.mark = 0

    def wait_for(self, text: str) -> str:
        """Read the screen until ``text`` appears after the last one waited for; the screen
        from there to the end of ``text``."""
        deadline = time.monotonic() + DEADLINE
        while (found := self.screen.find(text, self.mark)) < 0:
            assert time.monotonic() < deadline, f"no {text!r} on the screen:\n{self.screen}"
            if select.select([self.master], [], [], 0.2)[0]:
                try:
                    self.screen += os.read(self.master, 65536).decode("utf-8", errors="replace")
                except OSError:  # the program ended and closed its side
                    raise AssertionError(f"no {text!r} on the screen:\n{self.screen}") from None
        start, self.mark = self.mark, found + len(text)
        return self.screen[start : self.mark]

    def type(self, line: str) -> None:
        os.write(self.master, f"{line}\n".encode())

    def answer(self, prompt: str, line: str) -> str:
        """Wait for ``prompt``, type ``line``; the screen up to the prompt."""
        shown = self.wait_for(prompt)
        self.type(line)
        return shown

    def end_input(self, prompt: str) -> int:
        """At ``prompt``, end the input (Ctrl-D); the exit status."""
        self.wait_for(prompt)
        os.write(self.master, b"\x04")
        self.wait_for("Input ended: the game stops here.")
        return self.process.wait(timeout=DEADLINE)

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait(timeout=DEADLINE)
        os.close(self.master)


@pytest.fixture
def assist(tmp_path: Path) -> Iterator[tuple[Terminal, Path]]:
    record = tmp_path / "game.json"
    terminal = Terminal("assist", "--players", "Ana,Ben", "--record", str(record))
    yield terminal, record
    terminal.close()


def turns_of(record: Path) -> list[list[dict[str, object]]]:
    data = json.loads(record.read_text(encoding="utf-8"))
    return [entry["turns"] for entry in data["rounds"]]


def help_lines(shown: str) -> dict[str, str]:
    """The help's lines after "At this prompt, type:": what is typed -> what it does."""
    text = shown[shown.index("At this prompt, type:") :]
    return {match[1]: match[2] for match in re.finditer(r"^  (\S.*?)  +(\S.*?)\r?$", text, re.M)}


def test_u_with_nothing_entered_is_one_error_and_the_same_question(
    assist: tuple[Terminal, Path],
) -> None:
    terminal, record = assist
    terminal.answer(ROWS_PROMPT, "u")
    shown = terminal.wait_for(ROWS_PROMPT)
    assert "error: there is nothing to undo" in shown
    assert "Taken back" not in shown
    terminal.type("50 60 70 80")
    terminal.answer(CARDS_PROMPT, "u")  # the rows go back
    shown = terminal.wait_for(ROWS_PROMPT)
    assert "Taken back: the starting row cards of round 1 (50 60 70 80)." in shown
    terminal.type("u")
    assert "error: there is nothing to undo" in terminal.wait_for(ROWS_PROMPT)
    assert terminal.end_input("") == 0
    assert turns_of(record) == []


def test_u_takes_back_the_turns_of_a_round_one_by_one(assist: tuple[Terminal, Path]) -> None:
    terminal, record = assist
    terminal.answer(ROWS_PROMPT, "1 2 3 4")
    terminal.answer(CARDS_PROMPT, "10 11")
    terminal.answer(CARDS_PROMPT, "20 21")
    terminal.answer(CARDS_PROMPT, "u")
    shown = terminal.wait_for("Turn 2, " + CARDS_PROMPT)
    assert "Taken back: the cards of round 1, turn 2 (20 21)." in shown
    terminal.type("u")
    shown = terminal.wait_for("Turn 1, " + CARDS_PROMPT)
    assert "Taken back: the cards of round 1, turn 1 (10 11)." in shown
    # 20 and 21 are no longer seen this round: they may be entered again, in turn 1.
    terminal.type("21 20")
    terminal.answer("Turn 2, " + CARDS_PROMPT, "10 11")
    assert terminal.end_input("Turn 3, " + CARDS_PROMPT) == 0
    assert [turn["cards"] for turn in turns_of(record)[0]] == [[21, 20], [10, 11]]


def test_u_goes_back_across_a_row_choice(assist: tuple[Terminal, Path]) -> None:
    terminal, record = assist
    terminal.answer(ROWS_PROMPT, "50 60 70 80")
    terminal.answer(CARDS_PROMPT, "1 52")  # Ana's 1 is below every row: Ana chooses
    terminal.answer(ROW_PROMPT, "2")
    shown = terminal.answer("Turn 2, " + CARDS_PROMPT, "u")
    assert "Ana takes row 2" in shown
    shown = terminal.wait_for(ROW_PROMPT)  # the row choice goes back, the turn waits for it
    assert "Taken back: Ana's choice of row 2 in round 1, turn 1." in shown
    terminal.type("u")
    shown = terminal.wait_for("Turn 1, " + CARDS_PROMPT)  # then the turn's cards
    assert "Taken back: the cards of round 1, turn 1 (1 52)." in shown
    terminal.type("2 53")
    terminal.answer(ROW_PROMPT, "4")
    shown = terminal.wait_for("Turn 2, " + CARDS_PROMPT)
    assert "Ana takes row 4: 80·3 (3 bullheads); 2 starts the row." in shown
    assert terminal.end_input("") == 0
    assert turns_of(record)[0] == [{"cards": [2, 53], "row": 3}]


def test_u_goes_back_across_a_finished_round(assist: tuple[Terminal, Path]) -> None:
    terminal, record = assist
    terminal.answer(ROWS_PROMPT, "1 2 3 4")
    # Ten turns of cards above every row: no row choice; row 4 fills and is taken twice.
    for turn in range(10):
        terminal.answer(CARDS_PROMPT, f"{5 + 2 * turn} {6 + 2 * turn}")
    shown = terminal.answer("Round 2, " + ROWS_PROMPT, "u")
    assert "Score sheet" in shown
    shown = terminal.wait_for("Turn 10, " + CARDS_PROMPT)
    assert "Taken back: the cards of round 1, turn 10 (23 24)." in shown
    terminal.type("u")
    assert "Taken back: the cards of round 1, turn 9 (21 22)." in terminal.wait_for(
        "Turn 9, " + CARDS_PROMPT
    )
    terminal.type("22 21")
    terminal.answer("Turn 10, " + CARDS_PROMPT, "30 24")
    shown = terminal.wait_for("Round 2, " + ROWS_PROMPT)
    assert shown.count("Score sheet") == 1  # the round is scored once more, as now entered
    assert terminal.end_input("") == 0
    cards = [turn["cards"] for turn in turns_of(record)[0]]
    assert cards[8:] == [[22, 21], [30, 24]]
    assert len(cards) == 10


def test_help_at_each_prompt_lists_what_it_takes_and_its_example_is_accepted(
    assist: tuple[Terminal, Path],
) -> None:
    terminal, record = assist
    terminal.answer(ROWS_PROMPT, "?")
    first = help_lines(terminal.wait_for(ROWS_PROMPT))
    assert "u" not in first  # nothing to take back yet
    assert first["?"] == "this help"
    (rows_example,) = [typed for typed in first if typed != "?"]
    assert "starting row cards of round 1" in first[rows_example]
    terminal.type(rows_example)  # the example is a legal answer here

    terminal.answer(CARDS_PROMPT, "?")
    cards_help = help_lines(terminal.wait_for(CARDS_PROMPT))
    assert cards_help["u"].startswith("take back the last entry")
    (cards_example,) = [typed for typed in cards_help if typed not in ("?", "u")]
    assert "in player order (Ana, Ben)" in cards_help[cards_example]
    assert not set(cards_example.split()) & set(rows_example.split())  # none seen yet
    cards = [int(card) for card in cards_example.split()]
    # Ana's example card is below every row of the rows example: Ana is asked for a row.
    assert cards[0] < min(int(card) for card in rows_example.split())
    terminal.type(cards_example)
    shown = terminal.answer(ROW_PROMPT, "?")
    assert "error:" not in shown  # the example was accepted
    row_help = help_lines(terminal.wait_for(ROW_PROMPT))
    assert set(row_help) == {"1", "u", "?"}
    assert row_help["1"] == "the row Ana takes, 1 to 4"
    costs = " · ".join(
        f"row {row} → {BULLHEADS[int(card)]}" for row, card in enumerate(rows_example.split(), 1)
    )
    assert f"Bullheads in each row: {costs}." in terminal.screen
    terminal.type("1")
    assert "error:" not in terminal.wait_for("Turn 2, " + CARDS_PROMPT)
    assert terminal.end_input("") == 0
    assert turns_of(record)[0] == [{"cards": cards, "row": 0}]


def test_nimmt_play_help_names_a_card_of_the_hand_and_playing_it_works() -> None:
    terminal = Terminal("play", "--players", "2", "--seed", "5", "--delay", "0")
    try:
        shown = terminal.answer(CARD_PROMPT, "?")
        hand = [int(card) for card in re.findall(r"(\d+)·\d", shown.split("Your hand:")[-1])]
        assert len(hand) == 10
        shown = terminal.wait_for(CARD_PROMPT)
        match = re.search(r"^  (\d+) +the number of one of your cards, to play it", shown, re.M)
        assert match is not None, shown
        example = int(match[1])
        assert example in hand
        terminal.type(str(example))
        terminal.wait_for("Turn 1, cards revealed, lowest first:")
        assert f"{example}·{BULLHEADS[example]} You" in terminal.wait_for("\n")
        assert "not in your hand" not in terminal.screen
    finally:
        terminal.close()
