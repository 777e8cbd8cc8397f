"""Everything that happens in a game, as small immutable events.

The terminal and the web table animate these; they pass through :func:`visible_to`, the same
per-seat filter as the views, so a private event (a dealt hand) reaches only its own seat. No
event ever carries a card before it is revealed: :class:`CardChosen` says only *who* has chosen.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class RoundDealt:
    """A new round: the four face-up cards that start the rows, in row order."""

    round: int
    rows: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class HandDealt:
    """The ten cards dealt to one seat (private to that seat)."""

    round: int
    seat: int
    cards: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class CardChosen:
    """A seat has chosen its card for the turn, face down (the card is not told)."""

    seat: int


@dataclass(frozen=True, slots=True)
class ChoiceWithdrawn:
    """A seat took its face-down card back to choose again."""

    seat: int


@dataclass(frozen=True, slots=True)
class CardsRevealed:
    """All chosen cards are turned over at once: ``cards[seat]``."""

    round: int
    turn: int
    cards: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class RowChoiceRequired:
    """``card`` is below every row: the table waits for ``seat`` to choose the row to take."""

    seat: int
    card: int


@dataclass(frozen=True, slots=True)
class RowTaken:
    """``seat`` took the cards of ``row`` (a sixth card, or a card below every row)."""

    seat: int
    row: int
    cards: tuple[int, ...]
    bullheads: int
    chosen: bool
    """True when the player chose the row for a card below every row; False for a sixth card."""


@dataclass(frozen=True, slots=True)
class CardPlaced:
    """``card`` of ``seat`` now ends ``row`` (after any :class:`RowTaken` for it)."""

    seat: int
    card: int
    row: int


@dataclass(frozen=True, slots=True)
class RoundScored:
    """The round's bullheads are added to the score sheet."""

    round: int
    penalties: tuple[int, ...]
    totals: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class GameOver:
    """Someone has more than 66: every seat with the lowest total wins."""

    totals: tuple[int, ...]
    winners: tuple[int, ...]


Event = (
    RoundDealt
    | HandDealt
    | CardChosen
    | ChoiceWithdrawn
    | CardsRevealed
    | RowChoiceRequired
    | RowTaken
    | CardPlaced
    | RoundScored
    | GameOver
)


def visible_to(event: Event, seat: int | None) -> bool:
    """Whether ``seat`` (``None`` for a spectator) may see ``event``."""
    if isinstance(event, HandDealt):
        return event.seat == seat
    return True
