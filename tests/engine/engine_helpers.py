"""A dealt example game shared by the engine's tests: the four rows and hands of the record
format's example, each hand filled to ten cards."""

from __future__ import annotations

from nimmt.engine import Game

ROWS = [[12], [37], [43], [58]]
HANDS = [
    [14, 21, 3, 1, 2, 4, 5, 6, 7, 8],
    [15, 26, 9, 100, 101, 102, 103, 104, 99, 98],
    [44, 30, 68, 90, 91, 92, 93, 94, 95, 96],
    [61, 36, 83, 80, 81, 82, 84, 85, 86, 87],
]


def example_game() -> Game:
    """Four players, dealt :data:`ROWS` and :data:`HANDS`."""
    game = Game(4)
    game.apply_deal(ROWS, HANDS)
    return game
