"""The hot core: one round's mutable state and the resolution of a turn.

This is the code every game runs, from the web table to the bots' simulations and the
benchmark: :class:`~nimmt.engine.game.Game` validates actions and turns the placements returned
here into events, so validation, views and events stay off this path.

Rules implemented here (the rules page, "A turn"): the cards of a turn are placed lowest first; each
goes after the row whose last card is the highest card lower than it; a sixth card takes the
five cards of its row and starts it anew; a card lower than every row end takes the row its
player chose and starts it anew. A taken row is restarted in the same place.
"""

from __future__ import annotations

import random
from bisect import bisect_left
from collections.abc import Sequence
from typing import NamedTuple

from nimmt.engine import errors
from nimmt.engine.cards import DECK, HAND_SIZE, HIGHEST_CARD, NUM_ROWS, ROW_LIMIT, total_bullheads


class Placement(NamedTuple):
    """Where one card of a turn went, and what its player took doing so."""

    seat: int
    card: int
    row: int
    taken: tuple[int, ...]
    """The cards the player took (empty when the card was simply added to its row)."""
    too_low: bool
    """True when the card was below every row and its player chose the row to take."""
    bullheads: int
    """The bullheads on ``taken``."""


def draw_deal(rng: random.Random, players: int) -> tuple[list[list[int]], list[list[int]]]:
    """Shuffle all 104 cards and deal ``players`` hands of ten plus four row cards.

    Drawing ``10 * players + 4`` cards uniformly without replacement is the same as shuffling the
    whole deck and dealing from the top; the rest of the deck stays unseen.
    """
    drawn = rng.sample(DECK, HAND_SIZE * players + NUM_ROWS)
    hands = [drawn[i * HAND_SIZE : (i + 1) * HAND_SIZE] for i in range(players)]
    rows = [[card] for card in drawn[-NUM_ROWS:]]
    return rows, hands


def target_row(rows: Sequence[Sequence[int]], card: int) -> int:
    """The row ``card`` goes after: the one whose last card is the highest below it; -1 when
    ``card`` is below every row end (its player then chooses the row to take)."""
    best = -1
    best_end = 0
    for index, row in enumerate(rows):
        end = row[-1]
        if best_end < end < card:
            best_end = end
            best = index
    return best


class RoundState:
    """A round in progress: rows, hands, what each player took, and the turn number.

    Mutable, for speed; :meth:`copy` is cheap so that search can branch. The rows and hands
    given are copied (the caller's lists are never changed), and :meth:`resolve_turn` checks its
    cards and row choice before it changes anything. Hands keep the order they were dealt in.
    Besides the rows it keeps their ends sorted, with a table from each end card to its row, so
    that finding a card's row is one bisection.
    """

    __slots__ = ("_ends", "_row_of_end", "hands", "penalties", "piles", "rows", "turn")

    def __init__(self, rows: list[list[int]], hands: list[list[int]]) -> None:
        self.rows = [list(row) for row in rows]
        self.hands = [list(hand) for hand in hands]
        self.penalties = [0] * len(hands)
        self.piles: list[list[int]] = [[] for _ in hands]
        self.turn = 0
        self._ends = sorted(row[-1] for row in rows)
        self._row_of_end = [0] * (HIGHEST_CARD + 1)
        for index, row in enumerate(rows):
            self._row_of_end[row[-1]] = index

    def copy(self) -> RoundState:
        clone = RoundState.__new__(RoundState)
        clone.rows = [list(row) for row in self.rows]
        clone.hands = [list(hand) for hand in self.hands]
        clone.penalties = list(self.penalties)
        clone.piles = [list(pile) for pile in self.piles]
        clone.turn = self.turn
        clone._ends = list(self._ends)
        clone._row_of_end = list(self._row_of_end)
        return clone

    @property
    def finished(self) -> bool:
        return self.turn >= HAND_SIZE

    def needs_row_choice(self, cards: Sequence[int]) -> bool:
        """True when the lowest of the turn's ``cards`` is below every row end."""
        return min(cards) < self._ends[0]

    def resolve_turn(
        self,
        cards: Sequence[int],
        row_choice: int | None = None,
        log: list[Placement] | None = None,
    ) -> None:
        """Play one turn: ``cards[seat]`` is the card each seat chose (each must be in its hand).

        ``row_choice`` is the row (0 to 3) the owner of the lowest card takes when that card is
        below every row end, and must be ``None`` otherwise. When ``log`` is given, the placements
        are appended to it, lowest card first (search and benchmarks skip that work).

        Everything is checked before anything changes: a card not in its seat's hand
        (:class:`~nimmt.engine.errors.CardNotInHandError`), a missing row choice
        (:class:`~nimmt.engine.errors.RowChoiceMissingError`), one given when none is needed
        (:class:`~nimmt.engine.errors.NoRowChoicePendingError`) or a row outside 0 to 3
        (:class:`~nimmt.engine.errors.RowIndexError`) leave the round as it was.
        """
        rows = self.rows
        hands = self.hands
        ends = self._ends
        if len(cards) != len(hands):
            raise errors.TurnSizeError(
                f"{len(cards)} cards given for a turn of {len(hands)} seats: one per seat"
            )
        for seat, card in enumerate(cards):
            # ``True in [1]`` and ``1.0 in [1]`` hold in Python: only an int is a card.
            if card not in hands[seat] or card.__class__ is not int:
                raise errors.CardNotInHandError(
                    f"{card!r} is not in seat {seat}'s hand", seat=seat, card=card
                )
        order = sorted(cards)
        low = order[0]
        if low < ends[0]:
            if row_choice is None:
                raise errors.RowChoiceMissingError(
                    f"{low} is below every row: its player must choose a row",
                    seat=cards.index(low),
                    card=low,
                )
            if row_choice.__class__ is not int or not 0 <= row_choice < NUM_ROWS:
                raise errors.RowIndexError(
                    f"there is no row {row_choice!r}: rows are numbered 0 to 3",
                    seat=cards.index(low),
                    card=low,
                    row=row_choice,
                )
        elif row_choice is not None:
            raise errors.NoRowChoicePendingError(
                f"no card is below every row, so no row is chosen (got row {row_choice!r})",
                row=row_choice,
            )
        row_of_end = self._row_of_end
        find = bisect_left  # a local name: this loop is the hottest code in the project
        for card in order:
            seat = cards.index(card)
            hands[seat].remove(card)
            position = find(ends, card)
            if position == 0:
                # Below every row: only the turn's lowest card can be here (checked above, with
                # its row choice). Its row restarts with the lowest end of all, so the sorted
                # ends stay sorted.
                assert row_choice is not None
                taken = rows[row_choice]
                rows[row_choice] = [card]
                ends.remove(taken[-1])
                ends.insert(0, card)
                row_of_end[card] = row_choice
                heads = self._take(seat, taken)
                if log is not None:
                    log.append(Placement(seat, card, row_choice, tuple(taken), True, heads))
                continue
            # The card replaces the highest end below it; no end lies between the two, so the
            # sorted ends stay sorted.
            index = row_of_end[ends[position - 1]]
            ends[position - 1] = card
            row_of_end[card] = index
            row = rows[index]
            if len(row) == ROW_LIMIT:
                rows[index] = [card]
                heads = self._take(seat, row)
                if log is not None:
                    log.append(Placement(seat, card, index, tuple(row), False, heads))
            else:
                row.append(card)
                if log is not None:
                    log.append(Placement(seat, card, index, (), False, 0))
        self.turn += 1

    def _take(self, seat: int, cards: list[int]) -> int:
        """``seat`` takes ``cards``; returns their bullheads."""
        heads = total_bullheads(cards)
        self.piles[seat].extend(cards)
        self.penalties[seat] += heads
        return heads
