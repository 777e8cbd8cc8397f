"""What the card prompt takes besides a card: ``?`` (help), ``s`` (the score sheet so far) and
``l`` (this round's log), each shown before the same question is asked again; and the notice at
a round's start that it may be the last."""

from __future__ import annotations

import io
import re
from collections.abc import Callable

import pytest
from rich.console import Console

from nimmt.engine import Game, SeatView
from nimmt.terminal import PERSON_SEAT, PlaySettings, Question, QuestionKind, TerminalGame
from nimmt.terminal.game import LAST_ROUND_NOTICE_FROM

NOTICE = "This may be the last round"


class Scripted:
    """Answers with the lowest card, but first types ``commands`` at the card prompt of
    (round, turn); keeps the screen printed in answer to each command."""

    def __init__(self, at: tuple[int, int], commands: list[str]) -> None:
        self.at, self.commands = at, list(commands)
        self.session: TerminalGame | None = None
        self.out = io.StringIO()
        self.shown: dict[str, str] = {}
        self.asked: list[Question] = []
        self._pending: str | None = None
        self._mark = 0
        self.view: SeatView | None = None

    def __call__(self, question: Question) -> str:
        assert self.session is not None
        game = self.session.game
        if self._pending is not None:
            self.shown[self._pending] = self.out.getvalue()[self._mark :]
            self._pending = None
        if question.kind is QuestionKind.CARD and (game.round, game.turn) == self.at:
            self.asked.append(question)
            self.view = game.view(PERSON_SEAT)
            assert game.view(PERSON_SEAT).chosen_card is None  # nothing played meanwhile
            if self.commands:
                self._pending = self.commands.pop(0)
                self._mark = len(self.out.getvalue())
                return self._pending
        return str(question.choices[0])

    def play(self, settings: PlaySettings) -> TerminalGame:
        console = Console(file=self.out, width=120, color_system=None)
        self.session = TerminalGame(settings, console=console, ask=self)
        self.session.play()
        return self.session


def test_help_says_what_can_be_typed_and_asks_again() -> None:
    script = Scripted(at=(1, 0), commands=["?", " ? "])
    script.play(PlaySettings(players=3, seed=2))
    assert len(script.asked) == 3 and len(set(script.asked)) == 1  # the same question thrice
    for typed in ("?", " ? "):
        help_text = script.shown[typed]
        assert help_text.startswith("At the card prompt, type:")
        assert re.search(r"^\s+s\s+the score sheet so far$", help_text, re.MULTILINE)
        assert re.search(r"^\s+l\s+this round's log", help_text, re.MULTILINE)
        example = re.search(r"^\s+(\d+)\s+the number of one of your cards", help_text, re.M)
        assert example is not None and script.view is not None
        assert int(example[1]) in script.view.legal_cards()  # the example is a card of the hand
    assert "? tells what you can type" in script.out.getvalue()


def player_line(text: str, name: str) -> list[str]:
    return next(line.split() for line in text.splitlines() if line.split()[:1] == [name])


def test_the_score_sheet_so_far_has_the_rounds_played_and_this_one() -> None:
    script = Scripted(at=(2, 3), commands=["S"])
    session = script.play(PlaySettings(players=4, seed=7))
    assert script.view is not None
    first_round, this_round, totals = (
        script.view.score_sheet[0],
        script.view.penalties,
        script.view.totals,
    )
    sheet = script.shown["S"]
    assert "Score sheet so far" in sheet
    assert player_line(sheet, "Player") == ["Player", "R1", "R2", "so", "far", "Total"]
    for seat, name in enumerate(session.names):
        numbers = player_line(sheet, name)[1:4]
        total = totals[seat] + this_round[seat]
        assert numbers == [str(first_round[seat]), str(this_round[seat]), str(total)]
    assert sum(this_round) > 0  # the round's own column is not trivially zero


def test_the_log_tells_this_rounds_turns_only_and_nothing_unrevealed() -> None:
    script = Scripted(at=(2, 3), commands=["l"])
    session = script.play(PlaySettings(players=4, seed=7))
    log = script.shown["l"]
    assert log.startswith("Round 2 so far:")
    turns = session.game.history[1].turns[:3]
    revealed = re.findall(r"Turn (\d+), cards revealed, lowest first:(.*)", log)
    assert [int(number) for number, _ in revealed] == [1, 2, 3]
    for (_, line), turn in zip(revealed, turns, strict=True):
        cards = [int(card) for card in re.findall(r"(\d+)·\d", line)]
        assert cards == sorted(turn.cards)
    # Where each card went: one line per card of the three turns.
    placed = re.findall(r"goes to row|is the 6th card|takes? row", log)
    assert len(placed) == 3 * 4
    # Cards still in any hand (the bots' especially) are nowhere in the log.
    hands = session.game.history[1].hands
    played = {card for turn in turns for card in turn.cards}
    unplayed = {card for hand in hands for card in hand} - played
    shown = {int(card) for card in re.findall(r"(\d+)·\d", log)}
    assert not shown & unplayed


def test_the_log_at_a_rounds_start_says_no_card_is_played_yet() -> None:
    script = Scripted(at=(2, 0), commands=["L"])
    script.play(PlaySettings(players=3, seed=7))
    assert script.shown["L"].strip() == "Round 2 has just begun: no card played yet."


def start_at(totals: tuple[int, ...]) -> tuple[TerminalGame, str]:
    """The screen at the start of round 5 with these totals, up to the first card prompt."""
    out = io.StringIO()

    def stop(question: Question) -> str:
        raise EOFError

    session = TerminalGame(
        PlaySettings(players=4, seed=1),
        console=Console(file=out, width=200, color_system=None),
        ask=stop,
    )
    hands = [list(range(start, start + 10)) for start in (1, 21, 41, 61)]
    session.game = Game.from_position([[11], [31], [51], [71]], hands, totals=totals, round=5)
    with pytest.raises(EOFError):
        session.play()
    return session, out.getvalue()


@pytest.mark.parametrize(
    ("totals", "notice"),
    [
        ((50, 61, 20, 47), "This may be the last round: Ada has 61, you have 50 and Cleo has 47."),
        ((10, 20, 30, 66), "This may be the last round: Cleo has 66."),
        ((LAST_ROUND_NOTICE_FROM, 0, 0, 0), "This may be the last round: you have 45."),
        ((44, 44, 44, 44), None),
    ],
)
def test_a_round_that_may_be_the_last_is_announced(
    totals: tuple[int, ...], notice: str | None
) -> None:
    _, screen = start_at(totals)
    if notice is None:
        assert NOTICE not in screen
    else:
        assert notice in screen.splitlines()
        assert screen.index("Round 5 · turn 1") < screen.index(notice) < screen.index("Row ")


def test_in_a_whole_game_the_notice_comes_exactly_when_someone_has_45() -> None:
    out = io.StringIO()
    choose: Callable[[Question], str] = lambda question: str(question.choices[0])  # noqa: E731
    session = TerminalGame(
        PlaySettings(players=4, seed=7),
        console=Console(file=out, width=200, color_system=None),
        ask=choose,
    )
    session.play()
    sheet = session.game.view(PERSON_SEAT).score_sheet
    rounds = re.split(r"Round \d+ · turn 1 of 10", out.getvalue())[1:]
    assert len(rounds) == len(sheet)
    announced = 0
    for number, screen in enumerate(rounds):
        before = [sum(scores[seat] for scores in sheet[:number]) for seat in range(4)]
        expected = max(before) >= LAST_ROUND_NOTICE_FROM
        assert (NOTICE in screen.split("Your card")[0]) == expected, (number + 1, before)
        announced += expected
    assert announced == 2  # this seed's rounds 3 and 4 start at 47 and 60, rounds 1 and 2 do not
