"""A dealt example game shared by the engine's tests: the four rows and hands of the record
format's example, each hand filled to ten cards."""

from __future__ import annotations

import random

from nimmt.engine import Game, Phase

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


def deal_or_choose_row(game: Game, rng: random.Random) -> bool:
    """A random game's step that is no card choice: the next deal, or a random row for the
    seat that must choose one. False when the seats are to choose their cards (the caller's
    part) or the game is over."""
    if game.phase is Phase.DEALING:
        game.deal(rng)
        return True
    pending = game.pending_row_choice
    if pending is not None:
        game.choose_row(pending.seat, rng.randrange(4))
        return True
    return False
