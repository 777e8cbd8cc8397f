"""The server's refusals: :class:`ServiceError` with a code from docs/protocol.md, the code for
each of the rules engine's refusals, and for the other refusals of the modules below the server
(:data:`REFUSALS`)."""

from __future__ import annotations

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


def rule_error(error: RuleError) -> ServiceError:
    """The protocol's error code and a plain sentence for an engine refusal (the card refused is
    the error's own ``card``)."""
    if isinstance(error, GameOverError):
        return ServiceError("game_over", "The game is over.", 409)
    if isinstance(error, CardNotInHandError):
        return ServiceError("card_not_in_hand", f"{error.card} is not in your hand.", 409)
    if isinstance(error, CardAlreadyChosenError):
        return ServiceError("already_chosen", "You have already chosen this card.", 409)
    if isinstance(error, NoCardChosenError):
        return ServiceError("no_card_chosen", "You have no card chosen to take back.", 409)
    if isinstance(error, NoRowChoicePendingError):
        return ServiceError("no_row_choice_pending", "Nobody has to choose a row now.", 409)
    if isinstance(error, NotYourDecisionError):
        return ServiceError("not_your_decision", "Another player chooses the row.", 409)
    if isinstance(error, RowIndexError):
        return ServiceError("bad_row", "Rows are numbered 0 to 3.", 422)
    if isinstance(error, WrongPhaseError):
        return ServiceError("wrong_phase", f"Not now: {error}.", 409)
    return ServiceError("illegal_action", f"Not allowed: {error}.", 409)


REFUSALS: dict[type[Exception], tuple[str, int]] = {
    BadNameError: ("bad_name", 422),
}
"""The protocol's code and HTTP status for each refusal of a module below the server, told in
its own words (:meth:`ServiceError.refusing`; a rules engine refusal has :func:`rule_error`)."""
