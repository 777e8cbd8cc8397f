"""The observation and action encoding shared by every nimmt environment (see ``docs/env.md``).

An observation is one flat ``float32`` vector built from one seat's
:class:`~nimmt.engine.SeatView` and nothing else, so an agent sees what a person in that seat
sees. For ``P`` players its ``222 + 3 P`` entries are, in order:

=================  ==========  ==========================================================
slice              size        meaning
=================  ==========  ==========================================================
``HAND``           104         1 where card ``i + 1`` is in the seat's hand
``SEEN``           104         1 where card ``i + 1`` was seen this round: the seat's hand,
                               the row starters, every revealed card, the cards on the rows
``ROW_END``        4           the last card of each row
``ROW_LENGTH``     4           how many cards each row holds (1 to 5)
``ROW_BULLHEADS``  4           the bullheads each row would cost if taken
``PENALTIES``      P           bullheads taken this round, the seat itself first, then the
                               following seats in table order
``TOTALS``         P           totals of the completed rounds, in the same order
``REVEALED``       P           this turn's cards in the same order while the seat must take
                               a row (its own card below every row first), else 0
``MUST_TAKE_ROW``  1           1 while the seat must choose the row it takes
``TURN``           1           turns completed this round (0 to 10)
=================  ==========  ==========================================================

An action is a number from 0 to 107: ``a`` below 104 plays card ``a + 1``; ``104 + r`` takes row
``r`` (0 to 3). :func:`action_mask` marks the legal ones.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from nimmt.engine import (
    BULLHEADS,
    DECK,
    GAME_END_THRESHOLD,
    HAND_SIZE,
    NUM_ROWS,
    ROW_LIMIT,
    Phase,
    SeatView,
    total_bullheads,
)

ObsArray = npt.NDArray[np.float32]
MaskArray = npt.NDArray[np.int8]

CARDS = len(DECK)
"""104: one action, and one hand and seen entry, per card."""
ROW_ACTION = CARDS
"""The first row action: ``ROW_ACTION + r`` takes row ``r``."""
NUM_ACTIONS = CARDS + NUM_ROWS

HAND = slice(0, CARDS)
SEEN = slice(CARDS, 2 * CARDS)
ROW_END = slice(2 * CARDS, 2 * CARDS + NUM_ROWS)
ROW_LENGTH = slice(ROW_END.stop, ROW_END.stop + NUM_ROWS)
ROW_BULLHEADS = slice(ROW_LENGTH.stop, ROW_LENGTH.stop + NUM_ROWS)
_SEAT_BLOCKS = ROW_BULLHEADS.stop
"""Where the per-seat blocks start (220)."""

_MOST_FIRST = sorted((BULLHEADS[card] for card in DECK), reverse=True)
MAX_ROW_BULLHEADS = sum(_MOST_FIRST[:ROW_LIMIT])
"""27, a row of 55, 66, 77, 88 and 99: no row of at most 5 cards costs more."""
MAX_ROUND_PENALTY = sum(_MOST_FIRST[: HAND_SIZE * ROW_LIMIT])
"""117: a seat takes a row at most once a turn, 5 cards at most, so 50 cards in a round."""
MAX_TOTAL = GAME_END_THRESHOLD + MAX_ROUND_PENALTY
"""183: a total is at most 66 before the last round, plus that round's penalty."""


class Layout:
    """The slices of an observation for ``players`` seats (the per-seat blocks vary in size)."""

    __slots__ = ("must_take_row", "penalties", "players", "revealed", "size", "totals", "turn")

    def __init__(self, players: int) -> None:
        self.players = players
        start = _SEAT_BLOCKS
        self.penalties = slice(start, start + players)
        self.totals = slice(start + players, start + 2 * players)
        self.revealed = slice(start + 2 * players, start + 3 * players)
        self.must_take_row = start + 3 * players
        self.turn = start + 3 * players + 1
        self.size = start + 3 * players + 2


def observation_space(players: int) -> spaces.Box:
    """The :class:`~gymnasium.spaces.Box` of an observation for ``players`` seats."""
    layout = Layout(players)
    high = np.zeros(layout.size, dtype=np.float32)
    high[HAND] = 1
    high[SEEN] = 1
    high[ROW_END] = CARDS
    high[ROW_LENGTH] = ROW_LIMIT
    high[ROW_BULLHEADS] = MAX_ROW_BULLHEADS
    high[layout.penalties] = MAX_ROUND_PENALTY
    high[layout.totals] = MAX_TOTAL
    high[layout.revealed] = CARDS
    high[layout.must_take_row] = 1
    high[layout.turn] = HAND_SIZE
    return spaces.Box(low=np.zeros_like(high), high=high, dtype=np.float32)


def action_space() -> spaces.Discrete:
    """104 card actions, then 4 row actions."""
    return spaces.Discrete(NUM_ACTIONS)


def seat_order(seat: int, players: int) -> list[int]:
    """The seats as an observation lists them: ``seat`` first, then the following ones."""
    return [(seat + offset) % players for offset in range(players)]


def round_penalties(view: SeatView) -> Sequence[int]:
    """This round's penalties: none between rounds or after the game (they are in the totals)."""
    if view.phase in (Phase.DEALING, Phase.GAME_OVER):
        return (0,) * view.players
    return view.penalties


def encode_view(view: SeatView) -> ObsArray:
    """The observation of the seat whose view this is (see the module docstring)."""
    assert view.seat is not None, "a spectator has no observation"
    layout = Layout(view.players)
    obs = np.zeros(layout.size, dtype=np.float32)
    for card in view.hand:
        obs[card - 1] = 1
    for card in view.seen_cards():
        obs[CARDS + card - 1] = 1
    for index, row in enumerate(view.rows):
        obs[ROW_END.start + index] = row[-1]
        obs[ROW_LENGTH.start + index] = len(row)
        obs[ROW_BULLHEADS.start + index] = total_bullheads(row)
    order = seat_order(view.seat, view.players)
    penalties = round_penalties(view)
    obs[layout.penalties] = [penalties[seat] for seat in order]
    obs[layout.totals] = [view.totals[seat] for seat in order]
    if view.must_choose_row and view.revealed is not None:
        obs[layout.revealed] = [view.revealed[seat] for seat in order]
        obs[layout.must_take_row] = 1
    obs[layout.turn] = view.turn
    return obs


def action_mask(view: SeatView) -> MaskArray:
    """1 for every legal action of the seat whose view this is, 0 elsewhere."""
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    if view.must_choose_row:
        mask[ROW_ACTION:] = 1
    else:
        for card in view.legal_cards():
            mask[card - 1] = 1
    return mask


def describe_action(action: int) -> str:
    """``"play card 13"`` or ``"take row 2"``: an action in words, for error messages."""
    if 0 <= action < CARDS:
        return f"play card {action + 1}"
    if ROW_ACTION <= action < NUM_ACTIONS:
        return f"take row {action - ROW_ACTION}"
    return f"action {action!r} (actions are 0 to {NUM_ACTIONS - 1})"
