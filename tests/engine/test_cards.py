"""The deck and its bullheads (the rules page, "Scoring")."""

import pytest

from nimmt.engine import BULLHEADS, DECK, bullheads, total_bullheads


@pytest.mark.parametrize(
    ("card", "heads"),
    [
        (55, 7),
        (11, 5),
        (22, 5),
        (33, 5),
        (44, 5),
        (66, 5),
        (77, 5),
        (88, 5),
        (99, 5),
        (10, 3),
        (50, 3),
        (100, 3),
        (5, 2),
        (15, 2),
        (95, 2),
        (1, 1),
        (12, 1),
        (104, 1),
    ],
)
def test_bullheads_of_each_kind_of_card(card: int, heads: int) -> None:
    assert bullheads(card) == heads
    assert BULLHEADS[card] == heads


def test_deck_is_104_cards_carrying_171_bullheads() -> None:
    assert tuple(range(1, 105)) == DECK
    assert total_bullheads(DECK) == 171
    counts = {
        value: sum(1 for card in DECK if bullheads(card) == value) for value in (1, 2, 3, 5, 7)
    }
    assert counts == {7: 1, 5: 8, 3: 10, 2: 9, 1: 76}


@pytest.mark.parametrize("card", [0, 105, -3])
def test_there_is_no_such_card(card: int) -> None:
    with pytest.raises(ValueError, match="no card"):
        bullheads(card)
