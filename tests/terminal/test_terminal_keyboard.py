"""Keys pressed while a turn is told, on a real (pseudo-)terminal: not shown, and never the answer
to the next prompt, the row choice above all; the terminal is put back as it was however the
game ends.

The person's keyboard is the master side of a pseudo-terminal (``os.openpty``); the game reads the
slave side. In-process, the injected ``sleep`` (the account's pauses) is where the test types, so
every key is typed during the account by construction; through ``nimmt play`` the test types as
soon as it has read a line of the account that is followed by pauses.
"""

from __future__ import annotations

import io
import os
import re
import select
import signal
import subprocess
import sys
import termios
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO, cast

import pytest
from rich.console import Console

from nimmt.engine import BULLHEADS
from nimmt.records import replay_record
from nimmt.terminal import EXIT_INTERRUPTED, PERSON_SEAT, PlaySettings, TerminalGame, run

CARD_PROMPT = "Your card: "
ROW_PROMPT = "Row to take (1-4): "
EXPLANATIONS = ("not in your hand", "not a card number", "There is no row", "not a row number")
"""What the game says to a wrong answer: a key typed ahead that reached a prompt would show."""
DEADLINE = 60.0
"""Seconds to wait for the program's output: a guard against a hung test, not a timing check."""


def echo_on(fd: int) -> bool:
    return bool(termios.tcgetattr(fd)[3] & termios.ECHO)


def last_hand(text: str) -> list[int]:
    shown = re.findall(r"Your hand:(.*)", text)
    return [int(card) for card in re.findall(r"(\d+)·\d", shown[-1])]


@pytest.fixture
def keyboard() -> Iterator[tuple[int, int]]:
    """A pseudo-terminal: (master, the side the person types on; slave, the game's terminal)."""
    master, slave = os.openpty()
    yield master, slave
    os.close(master)
    os.close(slave)


class Answerer:
    """The console's file: it keeps the screen and, when a prompt appears, types the answer on
    the keyboard: the lowest card in the hand, and row 4."""

    def __init__(self, master: int) -> None:
        self.master = master
        self.screen = ""

    def write(self, text: str) -> int:
        self.screen += text
        if self.screen.endswith(CARD_PROMPT):
            os.write(self.master, f"{min(last_hand(self.screen))}\n".encode())
        elif self.screen.endswith(ROW_PROMPT):
            os.write(self.master, b"4\n")
        return len(text)

    def flush(self) -> None:
        pass


class ImpatientPerson:
    """The account's pauses: at each one the person types a row ("0001") and the highest card of
    the hand ("0087"), both valid answers that differ from the Answerer's, with echo checked."""

    def __init__(self, master: int, slave: int, answerer: Answerer) -> None:
        self.master, self.slave, self.answerer = master, slave, answerer
        self.echo_during_pauses: list[bool] = []

    def __call__(self, seconds: float) -> None:
        self.echo_during_pauses.append(echo_on(self.slave))
        highest = max(last_hand(self.answerer.screen))
        os.write(self.master, f"0001\n{highest:04d}\n".encode())


def play_on_the_pty(
    master: int,
    slave: int,
    settings: PlaySettings,
    monkeypatch: pytest.MonkeyPatch,
) -> tuple[int, Answerer, ImpatientPerson]:
    terminal = open(os.dup(slave), encoding="utf-8")  # noqa: SIM115  (closed below)
    monkeypatch.setattr(sys, "stdin", terminal)
    answerer = Answerer(master)
    person = ImpatientPerson(master, slave, answerer)
    console = Console(
        file=cast(IO[str], answerer), width=110, color_system=None, force_terminal=False
    )
    err = Console(file=io.StringIO(), width=110, color_system=None)
    try:
        status = run(settings, console=console, err_console=err, sleep=person)
    finally:
        terminal.close()
    return status, answerer, person


def test_keys_typed_during_the_account_answer_nothing_and_are_not_shown(
    keyboard: tuple[int, int], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    master, slave = keyboard
    assert echo_on(slave)
    record = tmp_path / "game.json"
    settings = PlaySettings(players=3, seed=3, delay=0.5, record=record)
    status, answerer, person = play_on_the_pty(master, slave, settings, monkeypatch)
    assert status == 0
    assert person.echo_during_pauses and not any(person.echo_during_pauses)
    assert echo_on(slave)  # put back as it was
    assert not any(explanation in answerer.screen for explanation in EXPLANATIONS)
    # Every answer was the Answerer's: the lowest card each turn and row 4 at every row choice.
    game = replay_record(record.read_text(encoding="utf-8")).game
    row_choices = 0
    for log in game.history:
        hand = set(log.hands[PERSON_SEAT])
        for turn in log.turns:
            card = turn.cards[PERSON_SEAT]
            assert card == min(hand)
            hand.remove(card)
            if turn.row is not None and min(turn.cards) == card:
                row_choices += 1
                assert turn.row == 3
    assert row_choices > 0, "this seed should put a row choice to the person"


def test_ctrl_c_during_the_account_puts_the_echo_back(
    keyboard: tuple[int, int], monkeypatch: pytest.MonkeyPatch
) -> None:
    master, slave = keyboard
    pauses: list[bool] = []

    def interrupted(seconds: float) -> None:
        pauses.append(echo_on(slave))
        if len(pauses) == 3:
            raise KeyboardInterrupt

    monkeypatch.setattr(sys, "stdin", open(os.dup(slave), encoding="utf-8"))  # noqa: SIM115
    answerer = Answerer(master)
    console = Console(file=cast(IO[str], answerer), width=110, color_system=None)
    status = run(
        PlaySettings(players=3, seed=3, delay=0.5),
        console=console,
        err_console=Console(file=io.StringIO(), color_system=None),
        sleep=interrupted,
    )
    sys.stdin.close()
    assert status == EXIT_INTERRUPTED
    assert pauses == [False, False, False]
    assert echo_on(slave)


# ------------------------------------------------------------------ through the console command


def nimmt_command() -> str:
    found = Path(sys.executable).parent / "nimmt"
    assert found.exists(), "the nimmt console command is not installed"
    return str(found)


def seed_with_a_row_choice_first() -> tuple[int, int]:
    """A seed for two players whose first turn puts a row choice to the person when they play
    their lowest card, and that card."""
    console = Console(file=io.StringIO())
    for seed in range(200):
        session = TerminalGame(
            PlaySettings(players=2, seed=seed), console=console, ask=lambda question: ""
        )
        game = session.game
        game.deal(session.deal_rng)
        lowest = min(game.hand(PERSON_SEAT))
        if lowest < min(row[-1] for row in game.rows):
            return seed, lowest
    raise AssertionError("no seed in range(200) deals a card below every row")


class Terminal:
    """``nimmt play`` with the slave side of a pseudo-terminal as its standard input and output."""

    def __init__(self, master: int, slave: int, *args: str) -> None:
        self.master, self.slave = master, slave
        env = {**os.environ, "TERM": "dumb", "COLUMNS": "100", "PYTHONIOENCODING": "utf-8"}
        self.process = subprocess.Popen(
            [nimmt_command(), "play", *args],
            stdin=slave,
            stdout=slave,
            stderr=subprocess.PIPE,
            env=env,
        )
        self.screen = ""

    def wait_for(self, text: str, start: int = 0) -> int:
        """Read the screen until ``text`` appears after ``start``; its position."""
        deadline = time.monotonic() + DEADLINE
        while (found := self.screen.find(text, start)) < 0:
            assert time.monotonic() < deadline, f"no {text!r} on the screen:\n{self.screen}"
            assert self.process.poll() is None, f"nimmt ended:\n{self.screen}"
            if select.select([self.master], [], [], 0.2)[0]:
                self.screen += os.read(self.master, 65536).decode("utf-8", errors="replace")
        return found

    def type(self, text: str) -> None:
        os.write(self.master, text.encode())


def test_nimmt_play_on_a_terminal_ignores_and_hides_keys_typed_during_the_account(
    keyboard: tuple[int, int],
) -> None:
    master, slave = keyboard
    seed, lowest = seed_with_a_row_choice_first()
    # Pauses of 3 s: the test's keys must arrive within one, even on a busy machine.
    terminal = Terminal(master, slave, "--players", "2", "--seed", str(seed), "--delay", "3")
    try:
        prompt = terminal.wait_for(CARD_PROMPT)
        assert last_hand(terminal.screen)[0] == lowest
        terminal.type(f"{lowest}\n")
        # The reveal is followed by a pause before the row question: type a row meanwhile.
        told = terminal.wait_for("cards revealed, lowest first", prompt)
        assert not echo_on(slave)
        terminal.type("0001\n")
        asked = terminal.wait_for(ROW_PROMPT, told)
        assert echo_on(slave)  # the prompt shows what is typed
        terminal.type("4\n")
        # The row taken is told after a pause, then the bot's card after another: type a card.
        taken = terminal.wait_for("You take row 4", asked)
        assert not echo_on(slave)
        hand = last_hand(terminal.screen)
        highest = max(card for card in hand if card != lowest)
        terminal.type(f"{highest:04d}\n")
        prompt = terminal.wait_for(CARD_PROMPT, taken)
        second = min(card for card in hand if card != lowest)
        terminal.type(f"{second}\n")
        terminal.wait_for(f"{second}·{BULLHEADS[second]} You", prompt)
        screen = terminal.screen
        assert "0001" not in screen and f"{highest:04d}" not in screen  # nothing typed showed
        assert not any(explanation in screen for explanation in EXPLANATIONS)
        terminal.process.send_signal(signal.SIGINT)
        assert terminal.process.wait(timeout=DEADLINE) == EXIT_INTERRUPTED
        assert echo_on(slave)  # the terminal is put back as it was
    finally:
        if terminal.process.poll() is None:
            terminal.process.kill()
            terminal.process.wait()
        assert terminal.process.stderr is not None
        terminal.process.stderr.close()
