"""What the terminal says about a turn, a round and the end: the rules page's example told
card by card, the score sheet, and single and joint winners."""

from __future__ import annotations

import io

from rich.console import Console

from nimmt.engine import Game, GameOver
from nimmt.terminal import PERSON_SEAT, Narrator, card_text, rows_table, score_sheet

NAMES = ("Ana", "Ben", "Cleo", "Dan")


class Listener:
    """A narrator that follows one game from its deal, as the terminal's does."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.out = io.StringIO()
        console = Console(file=self.out, width=120, color_system=None)
        self.narrator = Narrator(console, NAMES, lambda: None)
        self.seen = 0

    def told(self) -> str:
        """What is told about the events since the last call."""
        start = self.out.tell()
        for event in self.game.events_for(PERSON_SEAT, self.seen):
            self.narrator.tell(event)
        self.seen = self.game.event_count
        return self.out.getvalue()[start:]


def worked_example() -> Game:
    """The rules page's example: rows (12) (37) (43) (58), the person in seat 0."""
    game = Game(4)
    game.apply_deal(
        rows=[[12], [37], [43], [58]],
        hands=[
            [14, 21, 3, 1, 2, 4, 5, 6, 7, 90],
            [15, 26, 9, 10, 11, 13, 16, 17, 18, 19],
            [44, 30, 68, 20, 22, 23, 24, 25, 27, 28],
            [61, 36, 83, 29, 31, 32, 33, 34, 35, 38],
        ],
    )
    return game


def test_the_worked_example_is_told_card_by_card() -> None:
    game = worked_example()
    listener = Listener(game)
    game.play_turn([14, 15, 44, 61])
    game.play_turn([21, 26, 30, 36])
    text = listener.told()
    assert "Turn 1, cards revealed, lowest first:  14·1 You  15·2 Ben  44·5 Cleo  61·1 Dan" in text
    assert "Your 14·1 goes to row 1 (2 cards)." in text
    assert "Ben's 26·1 goes to row 1 (5 cards, full)." in text
    assert (
        "Cleo's 30·3 is the 6th card in row 1: Cleo takes 12·1 14·1 15·2 21·1 26·1 "
        "(6 bullheads); 30 starts the row." in text
    )
    assert "Dan's 36·1 goes to row 1 (2 cards)." in text
    game.play(1, 9)
    game.play(2, 68)
    game.play(3, 83)
    game.play(0, 3)
    assert listener.told().strip() == (
        "Turn 3, cards revealed, lowest first:  3·1 You  9·1 Ben  68·1 Cleo  83·1 Dan\n"
        "Your 3·1 is lower than every row: you choose the row you take."
    )
    game.choose_row(0, 1)
    text = listener.told()
    assert "You take row 2: 37·1 (1 bullhead); 3 starts the row." in text


def test_a_bot_choosing_a_row_is_told_in_the_third_person() -> None:
    game = worked_example()
    listener = Listener(game)
    game.play_turn([14, 15, 44, 61])
    game.play_turn([21, 26, 30, 36])
    listener.told()
    for seat, card in enumerate([90, 9, 68, 83]):
        game.play(seat, card)
    game.choose_row(1, 2)
    text = listener.told()
    assert "Ben's 9·1 is lower than every row: Ben chooses a row to take." in text
    assert "Ben takes row 3: 43·1 44·5 (6 bullheads); 9 starts the row." in text


def test_rows_table_marks_a_full_row_and_counts_bullheads() -> None:
    out = io.StringIO()
    Console(file=out, width=120, color_system=None).print(
        rows_table([(12, 14, 15, 21, 26), (37,), (43, 44), (55,)])
    )
    lines = out.getvalue().splitlines()
    full = next(line for line in lines if "12·1" in line)
    assert "takes" in full and "5/5 full" in full and full.split()[-3] == "6"
    assert "full" not in next(line for line in lines if "43·1" in line)
    assert next(line for line in lines if "55·7" in line).split()[-2:] == ["7", "1/5"]


def test_card_styles_single_out_55() -> None:
    styles = {str(card_text(card).style) for card in (1, 5, 10, 11, 55)}
    assert len(styles) == 5


def tell_game_over(totals: tuple[int, ...], winners: tuple[int, ...]) -> str:
    out = io.StringIO()
    narrator = Narrator(Console(file=out, width=120, color_system=None), NAMES, lambda: None)
    narrator.tell(GameOver(totals, winners))
    return out.getvalue()


def test_a_single_winner_and_joint_winners() -> None:
    text = tell_game_over((70, 20, 31, 45), (1,))
    assert "more than 66 bullheads for you (70)." in text
    assert "The winner is Ben, with 20 bullheads." in text
    text = tell_game_over((20, 67, 20, 20), (0, 2, 3))
    assert "for Ben (67)." in text
    assert "Joint winners: Ana, Cleo and Dan, with 20 bullheads each. Well played!" in text


def test_score_sheet_has_a_column_per_round_and_marks_the_end() -> None:
    out = io.StringIO()
    rounds = [(10, 30, 5, 0), (12, 40, 7, 3)]
    Console(file=out, width=120, color_system=None).print(
        score_sheet(NAMES, (22, 70, 12, 3), rounds)
    )
    text = out.getvalue()
    header = next(line for line in text.splitlines() if "Player" in line)
    assert header.split() == ["Player", "R1", "R2", "Total"]
    ben = next(line for line in text.splitlines() if line.strip().startswith("Ben"))
    assert ben.split() == ["Ben", "30", "40", "70", "✗", "over", "66"]
    dan = next(line for line in text.splitlines() if line.strip().startswith("Dan"))
    assert dan.split() == ["Dan", "0", "3", "3", "★", "lowest"]
