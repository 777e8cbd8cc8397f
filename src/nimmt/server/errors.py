"""The server's refusals: :class:`ServiceError` with a code from docs/protocol.md, the code for
each of the rules engine's refusals, and for the other refusals of the modules below the server
(:data:`REFUSALS`)."""

from __future__ import annotations

import json
from typing import Any

from nimmt.engine import (
    CardAlreadyChosenError,
    CardNotInHandError,
    GameOverError,
    NoCardChosenError,
    NoRowChoicePendingError,
    NotYourDecisionError,
    RowIndexError,
    RuleError,
    WrongPhaseError,
)
from nimmt.names import BadNameError
from nimmt.server.standins import CardStandsError

SHOWN_MAX = 16
"""The most characters of a client's value that an error message echoes."""


def shown(value: object, limit: int = SHOWN_MAX) -> str:
    """``value``, sent by a client, as an error message may echo it: a string as it is, any
    other JSON value as JSON; cut to its first ``limit`` characters (then ``…``), and every
    character that does not show (a control character, a line break) as ``?``, so that the
    message stays one short line."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    cut = "".join(char if char.isprintable() else "?" for char in text[:limit])
    return cut + "…" if len(text) > limit else cut


def quoted(value: object, limit: int = SHOWN_MAX) -> str:
    """``value`` :func:`shown`, in double quotes when it is a string (a name the client gave,
    not a number or another JSON value)."""
    return f'"{shown(value, limit)}"' if isinstance(value, str) else shown(value, limit)


class ServiceError(Exception):
    """An action or request refused with a code from docs/protocol.md; nothing changed."""

    def __init__(
        self, code: str, message: str, status: int = 400, details: dict[str, Any] | None = None
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status
        self.details = details
        """What fills in the translated sentence (a card, a row), sent along when set."""

    @classmethod
    def refusing(cls, error: Exception) -> ServiceError:
        """The error for ``error``, one of :data:`REFUSALS`' kinds: its code and status, and its
        message as a sentence (a capital first, a final stop)."""
        for kind in type(error).__mro__:
            if kind in REFUSALS:
                code, status = REFUSALS[kind]
                message = str(error)
                return cls(code, message[:1].upper() + message[1:] + ".", status)
        raise TypeError(f"no protocol code for {type(error).__name__}") from error


RULE_REFUSALS: dict[type[RuleError], tuple[str, int, str]] = {
    GameOverError: ("game_over", 409, "The game is over."),
    CardNotInHandError: ("card_not_in_hand", 409, "{card} is not in your hand."),
    CardAlreadyChosenError: ("already_chosen", 409, "You have already chosen this card."),
    NoCardChosenError: ("no_card_chosen", 409, "You have no card chosen to take back."),
    NoRowChoicePendingError: ("no_row_choice_pending", 409, "Nobody has to choose a row now."),
    NotYourDecisionError: ("not_your_decision", 409, "Another player chooses the row."),
    RowIndexError: ("bad_row", 422, "Rows are numbered 0 to 3."),
    WrongPhaseError: ("wrong_phase", 409, "Not now: {error}."),
    CardStandsError: (
        "card_stands",
        409,
        "The card the bot chose for you this turn stands; you decide again from the next turn.",
    ),
    RuleError: ("illegal_action", 409, "Not allowed: {error}."),
}
"""The protocol's code, HTTP status and sentence for each of the rules engine's refusals; the
most specific kind of an error counts (a :class:`GameOverError` is also a wrong phase). In the
sentence, ``{card}`` is the card refused and ``{error}`` the engine's own words."""


def rule_error(error: RuleError) -> ServiceError:
    """The protocol's error for an engine refusal (:data:`RULE_REFUSALS`)."""
    for kind in type(error).__mro__:
        if kind in RULE_REFUSALS:
            code, status, sentence = RULE_REFUSALS[kind]
            card = getattr(error, "card", None)
            return ServiceError(code, sentence.format(card=card, error=error), status)
    raise TypeError(f"{type(error).__name__} is not a rules engine refusal") from error


REFUSALS: dict[type[Exception], tuple[str, int]] = {
    BadNameError: ("bad_name", 422),
}
"""The protocol's code and HTTP status for each refusal of a module below the server, told in
its own words (:meth:`ServiceError.refusing`; a rules engine refusal has :func:`rule_error`)."""
