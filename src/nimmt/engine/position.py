"""The checks of a game set up in the middle of a round (:meth:`nimmt.engine.Game.from_position`).

:func:`check_position` raises :class:`~nimmt.engine.errors.InvalidPositionError` naming the first
thing wrong with a position, before the game takes any of it.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from nimmt.engine import errors
from nimmt.engine.cards import (
    GAME_END_THRESHOLD,
    HAND_SIZE,
    HIGHEST_CARD,
    LOWEST_CARD,
    NUM_ROWS,
    ROW_LIMIT,
)


def check_position(
    players: int,
    rows: Sequence[Sequence[int]],
    hands: Sequence[Sequence[int]],
    *,
    totals: Sequence[int] | None,
    round: int,
    played: Sequence[Sequence[int]],
    penalties: Sequence[int] | None,
) -> tuple[list[int], list[int]]:
    """The totals and this round's penalties of a position of ``players`` seats (zeros where
    not given), once every rule of :meth:`~nimmt.engine.Game.from_position` holds; an
    :class:`~nimmt.engine.errors.InvalidPositionError` naming what is wrong otherwise."""
    zeros = [0] * players
    totals_list = _position_numbers("totals", totals if totals is not None else zeros, players)
    penalties_list = _position_numbers(
        "penalties", penalties if penalties is not None else zeros, players
    )
    if max(totals_list) > GAME_END_THRESHOLD:
        raise errors.InvalidPositionError(
            f"a total of {max(totals_list)} is above {GAME_END_THRESHOLD}: the game would be over"
        )
    if isinstance(round, bool) or not isinstance(round, int) or round < 1:
        raise errors.InvalidPositionError(f"the round must be 1 or more, not {round!r}")
    if len(rows) != NUM_ROWS:
        raise errors.InvalidPositionError(f"{len(rows)} rows given: the table has {NUM_ROWS}")
    for index, row in enumerate(rows):
        if not 1 <= len(row) <= ROW_LIMIT:
            raise errors.InvalidPositionError(
                f"row {index} has {len(row)} cards: a row holds 1 to {ROW_LIMIT}", row=index
            )
        _check_cards(row, f"row {index}", row=index)
        if any(low >= high for low, high in itertools.pairwise(row)):
            raise errors.InvalidPositionError(
                f"row {index} is {list(row)}: a row's cards rise from left to right", row=index
            )
    size = len(hands[0])
    for seat, hand in enumerate(hands):
        if len(hand) != size:
            raise errors.InvalidPositionError(
                f"seat {seat} holds {len(hand)} cards and seat 0 {size}: "
                "every hand has the same size",
                seat=seat,
            )
        _check_cards(hand, f"seat {seat}'s hand", seat=seat)
    if not 1 <= size <= HAND_SIZE:
        raise errors.InvalidPositionError(f"hands of {size} cards: a hand holds 1 to {HAND_SIZE}")
    if len(played) + size > HAND_SIZE:
        raise errors.InvalidPositionError(
            f"{len(played)} turns played and {size} cards in each hand: "
            f"a round has {HAND_SIZE} turns"
        )
    for index, turn in enumerate(played):
        if len(turn) != players:
            raise errors.InvalidPositionError(
                f"played turn {index + 1} has {len(turn)} cards for {players} players"
            )
        _check_cards(turn, f"played turn {index + 1}")
    # A card played this round may lie on a row (it was placed there), so the rows and the
    # played cards may share cards; nothing else may.
    _distinct([card for group in (*rows, *hands) for card in group], "")
    _distinct([card for group in (*played, *hands) for card in group], " (played or in hand)")
    played_cards = {card for turn in played for card in turn}
    if len(played) + size == HAND_SIZE:  # the whole round is known: rows hold played cards
        # but for one first card each, if the row was never taken
        for index, row in enumerate(rows):
            for card in row[1:]:
                if card not in played_cards:
                    raise errors.InvalidPositionError(
                        f"row {index}: card {card} was not played this round, "
                        "so it can only start its row",
                        card=card,
                        row=index,
                    )
    return totals_list, penalties_list


def _check_cards(
    cards: Sequence[int], where: str, *, seat: int | None = None, row: int | None = None
) -> None:
    """Every one of ``cards`` (in ``where`` of a position) is a card number from 1 to 104."""
    for card in cards:
        if isinstance(card, bool) or not isinstance(card, int):
            raise errors.InvalidPositionError(
                f"{where}: {card!r} is not a card number", seat=seat, card=card, row=row
            )
        if not LOWEST_CARD <= card <= HIGHEST_CARD:
            raise errors.InvalidPositionError(
                f"{where}: there is no card {card}, cards are 1 to 104",
                seat=seat,
                card=card,
                row=row,
            )


def _position_numbers(name: str, numbers: Sequence[int], players: int) -> list[int]:
    """``numbers`` (totals or penalties of a position): one whole number, 0 or more, per seat."""
    if len(numbers) != players:
        raise errors.InvalidPositionError(f"{len(numbers)} {name} given for {players} players")
    for seat, number in enumerate(numbers):
        if isinstance(number, bool) or not isinstance(number, int) or number < 0:
            raise errors.InvalidPositionError(
                f"{name}: seat {seat} has {number!r}, not a whole number of 0 or more",
                seat=seat,
            )
    return list(numbers)


def _distinct(cards: list[int], where: str) -> set[int]:
    """The set of ``cards``, or an :class:`~nimmt.engine.errors.InvalidPositionError` naming a
    card that appears twice."""
    seen: set[int] = set()
    for card in cards:
        if card in seen:
            raise errors.InvalidPositionError(
                f"card {card} appears more than once{where}", card=card
            )
        seen.add(card)
    return seen
