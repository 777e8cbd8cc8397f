"""The core's refusals: ``RoundState.resolve_turn`` checks everything before it changes anything,
and never changes the caller's lists."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from nimmt.engine import (
    CardNotInHandError,
    NoRowChoicePendingError,
    RoundState,
    RowChoiceMissingError,
    RowIndexError,
    RuleError,
)

ROWS = [[12], [37], [43], [58]]
HANDS = [[14, 3, 1], [15, 26, 9], [44, 30, 68]]


def snapshot(state: RoundState) -> Any:
    """Every slot of the state, deep-copied."""
    return {name: copy.deepcopy(getattr(state, name)) for name in RoundState.__slots__}


def fresh() -> tuple[RoundState, list[list[int]], list[list[int]]]:
    rows = [list(row) for row in ROWS]
    hands = [list(hand) for hand in HANDS]
    return RoundState(rows, hands), rows, hands


def test_the_state_copies_the_rows_and_hands_it_is_given() -> None:
    state, rows, hands = fresh()
    state.resolve_turn([14, 15, 44])
    assert rows == ROWS
    assert hands == HANDS
    assert state.hands == [[3, 1], [26, 9], [30, 68]]


@pytest.mark.parametrize(
    ("cards", "row_choice", "error"),
    [
        pytest.param([3, 15, 44], None, RowChoiceMissingError, id="row-choice-missing"),
        pytest.param([3, 15, 44], -1, RowIndexError, id="negative-row"),
        pytest.param([3, 15, 44], 4, RowIndexError, id="row-too-high"),
        pytest.param([3, 15, 44], True, RowIndexError, id="bool-row"),
        pytest.param([3, 15, 44], 1.0, RowIndexError, id="float-row"),
        pytest.param([14, 15, 44], 0, NoRowChoicePendingError, id="row-not-needed"),
        pytest.param([14, 15, 99], None, CardNotInHandError, id="card-not-in-hand"),
        pytest.param([14, 44, 15], None, CardNotInHandError, id="card-of-another-seat"),
        pytest.param([True, 15, 44], 0, CardNotInHandError, id="bool-card"),
        pytest.param([14, 15], None, RuleError, id="too-few-cards"),
    ],
)
def test_a_refused_turn_changes_nothing(
    cards: list[Any], row_choice: Any, error: type[RuleError]
) -> None:
    state, rows, hands = fresh()
    state.resolve_turn([1, 9, 30], 2)  # a turn first, so that the state is not fresh
    before = snapshot(state)
    given = list(cards)
    with pytest.raises(error):
        state.resolve_turn(given, row_choice)
    assert snapshot(state) == before
    assert given == cards
    assert rows == ROWS
    assert hands == HANDS


def test_after_a_refusal_the_same_turn_can_be_played_rightly() -> None:
    state, _, _ = fresh()
    with pytest.raises(RowChoiceMissingError):
        state.resolve_turn([3, 15, 44])
    state.resolve_turn([3, 15, 44], 0)
    assert state.rows == [[3, 15], [37], [43, 44], [58]]
    assert state.penalties == [1, 0, 0]
    assert state.hands == [[14, 1], [26, 9], [30, 68]]
