"""What one seat, or a spectator, may see: the one place where hidden information is filtered.

:func:`~nimmt.engine.game.Game.view` builds a :class:`SeatView`; the terminal, the web server and
every bot get only that. A view holds the seat's own hand and its own face-down card, never
another seat's, and never a card of the current turn before all have been revealed.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import NamedTuple

from nimmt.engine.cards import DECK


class Phase(enum.Enum):
    """Where the game stands."""

    DEALING = "dealing"
    """Waiting for the deal of a new round (chance is its own step)."""
    CHOOSING_CARDS = "choosing_cards"
    """Every player chooses a card, face down, in any order."""
    CHOOSING_ROW = "choosing_row"
    """The turn's lowest card is below every row: its player chooses the row to take."""
    GAME_OVER = "game_over"


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a finished game ended: the totals and every seat with the lowest one."""

    totals: tuple[int, ...]
    winners: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class PendingRowChoice:
    """Whose card is below every row, and which card it is."""

    seat: int
    card: int


@dataclass(frozen=True, slots=True)
class OwnCards:
    """The part of a seat's :class:`SeatView` that is its own
    (:meth:`~nimmt.engine.Game.own_cards`); the rest of its view is what a spectator sees
    (``view(None)``). A server with many listeners builds that rest once per change and only
    this for each seat. The fields mean what the view's fields and methods of the same names
    mean."""

    seat: int | None
    hand: tuple[int, ...]
    legal_cards: tuple[int, ...]
    chosen_card: int | None
    must_choose_row: bool


def own_part(
    seat: int | None,
    phase: Phase,
    hand: tuple[int, ...],
    chosen_card: int | None,
    pending: PendingRowChoice | None,
) -> OwnCards:
    """A seat's own part of its view, from what it holds and where the game stands: the one
    rule for what it may play (its hand, while cards are chosen and it has not chosen yet) and
    whether the table waits for its row choice."""
    return OwnCards(
        seat=seat,
        hand=hand,
        legal_cards=hand if _may_play(phase, chosen_card) else (),
        chosen_card=chosen_card,
        must_choose_row=_must_choose(pending, seat),
    )


def _may_play(phase: Phase, chosen_card: int | None) -> bool:
    return phase is Phase.CHOOSING_CARDS and chosen_card is None


def _must_choose(pending: PendingRowChoice | None, seat: int | None) -> bool:
    return pending is not None and pending.seat == seat


class BoardParts(NamedTuple):
    """What every view of one moment shares but the seats' own cards and who has chosen: see
    :class:`SeatView`'s fields of the same names."""

    round: int
    turn: int
    rows: tuple[tuple[int, ...], ...]
    round_rows: tuple[int, ...]
    played: tuple[tuple[int, ...], ...]
    penalties: tuple[int, ...]
    totals: tuple[int, ...]
    score_sheet: tuple[tuple[int, ...], ...]
    outcome: Outcome | None
    chosen_rows: tuple[int | None, ...]
    position_rows: tuple[tuple[int, ...], ...]


@dataclass(frozen=True, slots=True)
class SeatView:
    """The game as ``seat`` sees it (``seat`` is ``None`` for a spectator)."""

    seat: int | None
    players: int
    phase: Phase
    round: int
    """1-based number of the current round (0 before the first deal)."""
    turn: int
    """Turns completed in the current round (0 to 10)."""
    rows: tuple[tuple[int, ...], ...]
    hand: tuple[int, ...]
    """The seat's own cards, sorted (empty for a spectator)."""
    chosen_card: int | None
    """The seat's own face-down card this turn, if it has chosen one."""
    has_chosen: tuple[bool, ...]
    """For every seat, whether it has chosen its card this turn (never which)."""
    revealed: tuple[int, ...] | None
    """The turn's cards by seat once all are revealed and a row choice is awaited."""
    pending_row_choice: PendingRowChoice | None
    round_rows: tuple[int, ...]
    """The four cards that started this round's rows."""
    played: tuple[tuple[int, ...], ...]
    """The cards revealed in each completed turn of this round, by seat."""
    penalties: tuple[int, ...]
    """Bullheads each seat has taken in this round so far."""
    totals: tuple[int, ...]
    """Totals of the completed rounds (the score sheet)."""
    score_sheet: tuple[tuple[int, ...], ...]
    """Each completed round's penalties, by seat."""
    outcome: Outcome | None
    chosen_rows: tuple[int | None, ...] = ()
    """For each turn of :attr:`played`: the row its lowest card's player chose to take (that
    card was below every row), else ``None``. Public, like the turn itself: with
    :attr:`round_rows` and :attr:`played` it tells where every card of the round went."""
    position_rows: tuple[tuple[int, ...], ...] = ()
    """In a round set up mid-way (:meth:`~nimmt.engine.Game.from_position`): the rows it was set
    up with, which every seat saw, though no starter or reveal names most of their cards; else
    empty."""

    def own_cards(self) -> OwnCards:
        """The part of this view that is the seat's own (a spectator's holds no cards)."""
        return own_part(self.seat, self.phase, self.hand, self.chosen_card, self.pending_row_choice)

    def legal_cards(self) -> tuple[int, ...]:
        """The cards this seat may play now (none if it has chosen or it is not its move)."""
        return self.hand if _may_play(self.phase, self.chosen_card) else ()

    @property
    def must_choose_row(self) -> bool:
        """True when the table waits for this seat to choose a row to take."""
        return _must_choose(self.pending_row_choice, self.seat)

    def seen_cards(self) -> frozenset[int]:
        """Every card this seat has seen this round: its hand, the rows (with their starters), all
        reveals. In a round set up from a position the rows it was set up with count too, taken
        since or not: no starter or reveal of this view names their cards."""
        seen = set(self.hand)
        seen.update(self.round_rows)
        for row in self.position_rows:
            seen.update(row)
        for row in self.rows:
            seen.update(row)
        for cards in self.played:
            seen.update(cards)
        if self.revealed is not None:
            seen.update(self.revealed)
        if self.chosen_card is not None:
            seen.add(self.chosen_card)
        return frozenset(seen)

    def unseen_cards(self) -> tuple[int, ...]:
        """The cards this seat has not seen: others' hands and the undealt rest, mixed."""
        seen = self.seen_cards()
        return tuple(card for card in DECK if card not in seen)
