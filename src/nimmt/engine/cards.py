"""The 104 cards of classic 6 nimmt! and the bullheads each one carries.

Rule (the rules page, "Scoring"): 55 carries 7 bullheads; the other multiples of 11 carry 5;
multiples of 10 carry 3; the other multiples of 5 carry 2; every other card carries 1. The deck
carries 171 bullheads in all.

>>> bullheads(55), bullheads(22), bullheads(30), bullheads(15), bullheads(7)
(7, 5, 3, 2, 1)
>>> sum(bullheads(card) for card in DECK)
171
"""

from __future__ import annotations

from collections.abc import Iterable

LOWEST_CARD = 1
HIGHEST_CARD = 104
DECK: tuple[int, ...] = tuple(range(LOWEST_CARD, HIGHEST_CARD + 1))
NUM_ROWS = 4
ROW_LIMIT = 5
"""A row holds at most five cards: the sixth card takes them."""
HAND_SIZE = 10
"""Cards dealt to each player, and so turns in a round."""
MIN_PLAYERS = 2
MAX_PLAYERS = 10
GAME_END_THRESHOLD = 66
"""The game ends after a round in which someone has *more* than this many bullheads."""


def _bullheads_of(card: int) -> int:
    if card == 55:
        return 7
    if card % 11 == 0:
        return 5
    if card % 10 == 0:
        return 3
    if card % 5 == 0:
        return 2
    return 1


BULLHEADS: tuple[int, ...] = (0, *(_bullheads_of(card) for card in DECK))
"""``BULLHEADS[card]`` for cards 1 to 104 (index 0 is unused): a table, for the hot paths."""


def bullheads(card: int) -> int:
    """The bullheads printed on ``card`` (1 to 104)."""
    if not LOWEST_CARD <= card <= HIGHEST_CARD:
        raise ValueError(f"there is no card {card}: cards are numbered 1 to 104")
    return BULLHEADS[card]


def total_bullheads(cards: Iterable[int]) -> int:
    """The bullheads on a group of cards, such as a row that is taken.

    >>> total_bullheads([12, 14, 15, 21, 26])
    6
    """
    return sum(map(BULLHEADS.__getitem__, cards))
