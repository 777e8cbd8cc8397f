"""The server's words for each engine refusal, exactly: the card comes from the error itself."""

from __future__ import annotations

import pytest

from nimmt.engine import (
    CardAlreadyChosenError,
    CardNotInHandError,
    GameOverError,
    NoCardChosenError,
    NoRowChoicePendingError,
    NotYourDecisionError,
    Phase,
    RowIndexError,
    RuleError,
    SeatError,
    WrongPhaseError,
)
from nimmt.server.errors import rule_error

CASES = [
    (
        GameOverError("the game is over", phase=Phase.GAME_OVER),
        "game_over",
        "The game is over.",
        409,
    ),
    (
        CardNotInHandError("55 is not in player 2's hand", seat=1, card=55),
        "card_not_in_hand",
        "55 is not in your hand.",
        409,
    ),
    (
        CardAlreadyChosenError("x", seat=0, card=3),
        "already_chosen",
        "You have already chosen this card.",
        409,
    ),
    (
        NoCardChosenError("x", seat=0),
        "no_card_chosen",
        "You have no card chosen to take back.",
        409,
    ),
    (
        NoRowChoicePendingError("x"),
        "no_row_choice_pending",
        "Nobody has to choose a row now.",
        409,
    ),
    (NotYourDecisionError("x"), "not_your_decision", "Another player chooses the row.", 409),
    (RowIndexError("x", row=4), "bad_row", "Rows are numbered 0 to 3.", 422),
    (
        WrongPhaseError("no round is being played: deal first", phase=Phase.DEALING),
        "wrong_phase",
        "Not now: no round is being played: deal first.",
        409,
    ),
    (
        SeatError("there is no seat 7", seat=7),
        "illegal_action",
        "Not allowed: there is no seat 7.",
        409,
    ),
]


@pytest.mark.parametrize(("error", "code", "message", "status"), CASES)
def test_each_refusal_has_its_code_and_words(
    error: RuleError, code: str, message: str, status: int
) -> None:
    refusal = rule_error(error)
    assert (refusal.code, refusal.message, refusal.status) == (code, message, status)
