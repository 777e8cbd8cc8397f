"""Every way a caller can break the rules, as a precise exception type.

All are ``ValueError`` subclasses under :class:`RuleError`, in the manner of python-chess's
``IllegalMoveError``: the edge (CLI, server) turns them into one clear message. A rejected
action never changes the game.

Besides its message, each error carries what it is about as fields, ``None`` where they do not
apply: ``seat`` (0-based), ``card``, ``row`` (as given, which may be no row at all) and ``phase``
(the game's phase when the action was refused, where the phase is what is wrong).
"""

from __future__ import annotations

from typing import Any

from nimmt.engine.views import Phase


class RuleError(ValueError):
    """An action the rules of classic 6 nimmt! do not allow at this point of the game."""

    seat: int | None
    card: Any
    """The card as given: usually an ``int``, but a refused card may be anything."""
    row: Any
    """The row as given (a refused row may be no int at all)."""
    phase: Phase | None

    def __init__(
        self,
        message: str,
        *,
        seat: int | None = None,
        card: Any = None,
        row: Any = None,
        phase: Phase | None = None,
    ) -> None:
        super().__init__(message)
        self.seat = seat
        self.card = card
        self.row = row
        self.phase = phase


class PlayerCountError(RuleError):
    """The game is for 2 to 10 players."""


class SeatError(RuleError):
    """A seat number that is not at this table."""


class WrongPhaseError(RuleError):
    """The action does not fit the game's phase (for instance a card while a row is chosen)."""


class GameOverError(WrongPhaseError):
    """Any action after the game has ended."""


class CardNotInHandError(RuleError):
    """The card is not in that player's hand (or is no card at all)."""


class CardAlreadyChosenError(RuleError):
    """The player has already chosen a card this turn."""


class NoCardChosenError(RuleError):
    """There is no chosen card to take back."""


class NoRowChoicePendingError(RuleError):
    """A row choice was made when nobody has to choose a row."""


class NotYourDecisionError(RuleError):
    """A row choice by a player other than the one whose card is below every row."""


class RowIndexError(RuleError):
    """A row number outside 0 to 3."""


class InvalidDealError(RuleError):
    """Dealt cards that are not a legal deal (wrong counts, repeats, numbers outside 1 to 104)."""


class RowChoiceMissingError(RuleError):
    """A turn whose lowest card is below every row, given without the row its player takes."""


class TurnSizeError(RuleError):
    """A whole turn (:meth:`~nimmt.engine.game.Game.play_turn`) given with a number of cards
    other than one per seat."""


class InvalidPositionError(InvalidDealError):
    """A position to set a game up from (:meth:`~nimmt.engine.game.Game.from_position`) that no
    game of classic 6 nimmt! can reach: wrong sizes, repeated cards, numbers outside 1 to 104."""
