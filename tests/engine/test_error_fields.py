"""Each engine error carries what it is about: ``seat``, ``card``, ``row`` and ``phase``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from tests.engine.engine_helpers import HANDS, ROWS, example_game

from nimmt.engine import (
    CardAlreadyChosenError,
    CardNotInHandError,
    Game,
    GameOverError,
    InvalidDealError,
    InvalidPositionError,
    NoCardChosenError,
    NoRowChoicePendingError,
    NotYourDecisionError,
    Phase,
    PlayerCountError,
    RoundState,
    RowChoiceMissingError,
    RowIndexError,
    RuleError,
    SeatError,
    TurnSizeError,
    WrongPhaseError,
)


def waiting_for_row() -> Game:
    """Seat 0's 3 is below every row: the table waits for its row."""
    game = example_game()
    for seat, card in enumerate([3, 15, 44, 61]):
        game.play(seat, card)
    return game


def over() -> Game:
    game = Game(2)
    game._phase = Phase.GAME_OVER  # the end of a game, without playing one out here
    return game


def fields(error: RuleError) -> tuple[Any, Any, Any, Any]:
    return error.seat, error.card, error.row, error.phase


CASES: list[tuple[str, Callable[[], object], type[RuleError], tuple[Any, Any, Any, Any]]] = [
    ("players", lambda: Game(11), PlayerCountError, (None, None, None, None)),
    ("seat", lambda: example_game().play(7, 14), SeatError, (7, None, None, None)),
    ("seat-type", lambda: example_game().hand("a"), SeatError, ("a", None, None, None)),  # type: ignore[arg-type]
    ("phase", lambda: Game(2).play(0, 1), WrongPhaseError, (None, None, None, Phase.DEALING)),
    (
        "phase-row",
        lambda: waiting_for_row().play(1, 26),
        WrongPhaseError,
        (1, None, None, Phase.CHOOSING_ROW),
    ),
    (
        "game-over",
        lambda: over().choose_row(0, 1),
        GameOverError,
        (None, None, None, Phase.GAME_OVER),
    ),
    ("not-in-hand", lambda: example_game().play(2, 14), CardNotInHandError, (2, 14, None, None)),
    ("already-chosen", lambda: chosen_twice(), CardAlreadyChosenError, (1, 26, None, None)),
    ("no-card", lambda: example_game().retract(3), NoCardChosenError, (3, None, None, None)),
    (
        "no-row-pending",
        lambda: example_game().choose_row(2, 1),
        NoRowChoicePendingError,
        (2, None, 1, Phase.CHOOSING_CARDS),
    ),
    (
        "no-row-needed",
        lambda: example_game().play_turn([14, 15, 44, 61], 2),
        NoRowChoicePendingError,
        (None, None, 2, None),
    ),
    (
        "not-yours",
        lambda: waiting_for_row().choose_row(3, 1),
        NotYourDecisionError,
        (3, 3, 1, None),
    ),
    ("row", lambda: waiting_for_row().choose_row(0, -1), RowIndexError, (0, 3, -1, None)),
    (
        "row-turn",
        lambda: example_game().play_turn([14, 9, 44, 61], 4),
        RowIndexError,
        (1, 9, 4, None),
    ),
    (
        "row-missing",
        lambda: example_game().play_turn([14, 9, 44, 61]),
        RowChoiceMissingError,
        (1, 9, None, None),
    ),
    ("deal-size", lambda: deal(hand=[1, 2]), InvalidDealError, (1, None, None, None)),
    (
        "deal-card",
        lambda: deal(hand=[*range(60, 69), 105]),
        InvalidDealError,
        (1, 105, None, None),
    ),
    (
        "deal-repeat",
        lambda: deal(hand=[*range(60, 69), 12]),
        InvalidDealError,
        (None, 12, None, None),
    ),
    (
        "position-hand",
        lambda: Game.from_position(ROWS, [[1, 2], [3]]),
        InvalidPositionError,
        (1, None, None, None),
    ),
    (
        "position-row",
        lambda: Game.from_position([[12, 11], [37], [43], [58]], [[1], [3]]),
        InvalidPositionError,
        (None, None, 0, None),
    ),
    (
        "position-card",
        lambda: Game.from_position(ROWS, [[1], [37]]),
        InvalidPositionError,
        (None, 37, None, None),
    ),
    (
        "core-not-in-hand",
        lambda: RoundState(ROWS, HANDS).resolve_turn([14, 15, 45, 61]),
        CardNotInHandError,
        (2, 45, None, None),
    ),
    (
        "core-row",
        lambda: RoundState(ROWS, HANDS).resolve_turn([14, 9, 44, 61], -1),
        RowIndexError,
        (1, 9, -1, None),
    ),
    (
        "core-row-missing",
        lambda: RoundState(ROWS, HANDS).resolve_turn([14, 9, 44, 61]),
        RowChoiceMissingError,
        (1, 9, None, None),
    ),
    (
        "core-no-row-needed",
        lambda: RoundState(ROWS, HANDS).resolve_turn([14, 15, 44, 61], 0),
        NoRowChoicePendingError,
        (None, None, 0, None),
    ),
    ("turn-size", lambda: example_game().play_turn([14, 15]), TurnSizeError, (None,) * 4),
    (
        "core-turn-size",
        lambda: RoundState(ROWS, HANDS).resolve_turn([14, 15, 44], None),
        TurnSizeError,
        (None,) * 4,
    ),
]


def chosen_twice() -> None:
    game = example_game()
    game.play(1, 15)
    game.play(1, 26)


def deal(hand: list[int]) -> None:
    Game(2).apply_deal(ROWS, [list(range(1, 11)), hand])


@pytest.mark.parametrize(
    ("action", "error", "expected"), [case[1:] for case in CASES], ids=[case[0] for case in CASES]
)
def test_the_error_names_what_is_wrong(
    action: Callable[[], object], error: type[RuleError], expected: tuple[Any, Any, Any, Any]
) -> None:
    with pytest.raises(error) as caught:
        action()
    assert type(caught.value) is error
    assert fields(caught.value) == expected
    assert str(caught.value)  # the message is still there


def test_every_error_type_is_covered() -> None:
    import nimmt.engine.errors as module

    types = {
        value
        for value in vars(module).values()
        if isinstance(value, type) and issubclass(value, RuleError) and value is not RuleError
    }
    assert types <= {case[2] for case in CASES}


def test_messages_number_seats_from_0_as_the_fields_do() -> None:
    with pytest.raises(CardNotInHandError) as caught:
        example_game().play(1, 3)
    assert caught.value.seat == 1 and "seat 1's hand" in str(caught.value)
    with pytest.raises(NotYourDecisionError) as refused:
        waiting_for_row().choose_row(2, 0)
    assert str(refused.value) == "seat 0 chooses the row, not seat 2"
    with pytest.raises(TurnSizeError, match="2 cards given for a turn of 4 seats"):
        example_game().play_turn([14, 15])
    assert issubclass(TurnSizeError, ValueError)
