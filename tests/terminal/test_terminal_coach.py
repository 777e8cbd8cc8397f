"""``nimmt play --coach``: before each card and row prompt, every choice's expected extra
bullheads with the best marked, from the person's own view only; it never chooses or plays."""

from __future__ import annotations

import io
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from rich.console import Console

from nimmt.engine import Game, SeatView, total_bullheads
from nimmt.terminal import PERSON_SEAT, PlaySettings, Question, QuestionKind, TerminalGame
from nimmt.terminal.coach import advice_text


@dataclass(frozen=True, slots=True)
class FakeCandidate:
    choice: int
    expected: float
    extra: float
    stderr: float = 0.0


@dataclass(frozen=True, slots=True)
class FakeAdvice:
    kind: str
    best: int
    candidates: tuple[FakeCandidate, ...]
    samples: int = 1024
    confidence: float = 0.875


def text_of(advice: FakeAdvice) -> str:
    out = io.StringIO()
    Console(file=out, width=200, color_system=None).print(advice_text(advice))
    return out.getvalue()


def test_the_advice_lists_every_card_with_its_extra_and_stars_the_best() -> None:
    advice = FakeAdvice(
        "card",
        55,
        (FakeCandidate(3, 4.25, 2.5), FakeCandidate(55, 1.75, 0.0), FakeCandidate(98, 2.0, 0.25)),
    )
    lines = text_of(advice).splitlines()
    assert lines[0] == "Coach: extra bullheads each card is expected to cost you, beyond the best ★"
    assert lines[1].split() == ["3·1", "+2.5", "55·7", "★", "98·1", "+0.2"]
    assert lines[2].strip() == (
        "★ card 55: 1.8 bullheads expected to the round's end; no worse than card 98 in 88% of "
        "1024 sampled deals. You choose."
    )


def test_the_advice_for_rows_numbers_them_from_1_and_a_single_choice_has_no_runner_up() -> None:
    rows = FakeAdvice(
        "row", 2, (FakeCandidate(0, 9.0, 4.0), FakeCandidate(2, 5.0, 0.0)), confidence=1.0
    )
    text = text_of(rows)
    assert "row 1 +4.0  row 3 ★" in text
    assert "★ row 3: 5.0 bullheads expected to the round's end; no worse than row 1 in 100%" in text
    single = FakeAdvice("card", 7, (FakeCandidate(7, 0.0, 0.0),), confidence=1.0)
    assert text_of(single).splitlines()[2].strip() == (
        "★ card 7: 0.0 bullheads expected to the round's end. You choose."
    )


class Spy:
    """A stand-in for the analysis: records each view it is given and calls the cheapest-looking
    choice (the highest card, the first row) best, so that advice and answer can differ."""

    def __init__(self) -> None:
        self.views: list[tuple[SeatView, SeatView]] = []
        self.session: TerminalGame | None = None

    def __call__(self, view: SeatView, seed: int) -> FakeAdvice:
        assert self.session is not None
        self.views.append((view, self.session.game.view(PERSON_SEAT)))
        if view.must_choose_row:
            return FakeAdvice("row", 0, tuple(FakeCandidate(r, r, r) for r in range(4)))
        best = view.hand[-1]
        scored = tuple(FakeCandidate(c, 0.0, 0.0 if c == best else 1.0) for c in view.hand)
        return FakeAdvice("card", best, scored)


def test_the_coach_sees_the_persons_view_before_every_prompt_and_never_chooses() -> None:
    spy = Spy()
    out = io.StringIO()
    asked: list[tuple[Question, str]] = []

    def ask(question: Question) -> str:
        # The lowest card and the last row: never what the coach calls best.
        answer = str(question.choices[0] if question.kind is QuestionKind.CARD else 4)
        asked.append((question, out.getvalue()))
        return answer

    session = TerminalGame(
        PlaySettings(players=4, seed=3, coach=True),
        console=Console(file=out, width=200, color_system=None),
        ask=ask,
        analyze=spy,
    )
    spy.session = session
    session.play()
    assert len(spy.views) == len(asked)
    rows_asked = 0
    for (view, seen), (question, screen) in zip(spy.views, asked, strict=True):
        assert view == seen and view.seat == PERSON_SEAT  # the person's view, nothing more
        kind = "row" if question.kind is QuestionKind.ROW else "card"
        assert screen.rsplit("Coach: ", 1)[1].startswith(f"extra bullheads each {kind}")
        rows_asked += kind == "row"
    assert rows_asked > 0, "this seed should put a row choice to the person"
    for log in session.game.history:
        hand = sorted(log.hands[PERSON_SEAT])
        for turn in log.turns:
            assert turn.cards[PERSON_SEAT] == hand.pop(0)  # the person's card, not the coach's
            if turn.row is not None and min(turn.cards) == turn.cards[PERSON_SEAT]:
                assert turn.row == 3


def test_without_coach_there_is_no_advice_and_no_analysis() -> None:
    def never(view: SeatView, seed: int) -> FakeAdvice:
        raise AssertionError("the coach was asked")

    out = io.StringIO()
    TerminalGame(
        PlaySettings(players=3, seed=3),
        console=Console(file=out, width=200, color_system=None),
        ask=lambda question: str(question.choices[0]),
        analyze=never,
    ).play()
    assert "Coach" not in out.getvalue()


ROWS = [[3, 4], [30, 31], [44, 45, 46], [88]]
"""Rows whose cost is known: 2, 4, 8 and 5 bullheads."""


def test_the_real_analysis_prices_a_forced_row_choice_exactly() -> None:
    """The round's last turn: the person's 1 is below every row, so the row taken costs exactly
    its bullheads, whatever the deals sampled."""
    assert [total_bullheads(row) for row in ROWS] == [2, 4, 8, 5]
    out = io.StringIO()
    screens: list[str] = []

    def ask(question: Question) -> str:
        screens.append(out.getvalue())
        if len(screens) == 3:
            raise EOFError  # the next round: enough
        return "1" if question.kind is QuestionKind.CARD else "3"

    session = TerminalGame(
        PlaySettings(players=2, seed=1, coach=True),
        console=Console(file=out, width=200, color_system=None),
        ask=ask,
    )
    session.game = Game.from_position(ROWS, [[1], [60]])
    with pytest.raises(EOFError):
        session.play()
    row_screen = screens[1].split("Row to take")[0].rsplit("Coach: ", 1)[1]
    assert "row 1 ★  row 2 +2.0  row 3 +6.0  row 4 +3.0" in row_screen
    assert "★ row 1: 2.0 bullheads expected to the round's end; no worse than row 2 in 100%" in (
        row_screen
    )
    assert session.game.history[0].turns[-1].row == 2  # the person's row, not the coach's


def test_nimmt_play_coach_through_the_console_command() -> None:
    command = str(Path(sys.executable).with_name("nimmt"))
    result = subprocess.run(
        [command, "play", "--coach", "--players", "3", "--seed", "5", "--fast"],
        input="",
        capture_output=True,
        text=True,
        timeout=120,
        env={"COLUMNS": "200", "PATH": "", "PYTHONIOENCODING": "utf-8"},
        check=False,
    )
    assert result.returncode == 1 and result.stderr.startswith("error: input ended")
    hand = re.findall(r"(\d+)·\d", re.findall(r"Your hand:(.*)", result.stdout)[0])
    advice = result.stdout.split("Coach: ", 1)[1].splitlines()[1]
    assert re.findall(r"(\d+)·\d", advice) == hand  # every card of the hand, in order
    assert advice.count("★") == 1 and advice.count("+") == len(hand) - 1
