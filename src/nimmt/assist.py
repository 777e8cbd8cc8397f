"""The assistant for a game played with a physical deck (``nimmt assist``).

People deal real cards and enter them as they are revealed: each round's four starting row cards,
then each turn the card every player turned over, and, when the turn's lowest card is below every
row, the row its owner takes. The assistant never chooses that row: it asks.

The rules are the engine's: :class:`Assistant` keeps only what was entered (each round's row cards,
its turns, and a turn waiting for a row choice) and rebuilds a :class:`~nimmt.engine.Game` from it
after every answer. The engine needs each round's hands at the deal; with real cards they are
known only once the round is over, so a hand is the cards its player played that round. In a
round still going, the cards not played yet are unknown: the hands are completed with cards not
seen in that round (lowest first), and the record says so in ``meta``. Rebuilding a game of a few
hundred cards takes well under a millisecond, and it keeps every rule, every event told and the
record in the engine's hands.

The questions and answers in the terminal are :mod:`nimmt.terminal.assist`; the web table's
assistant is :mod:`nimmt.server.assisted`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from nimmt.engine import DECK, HAND_SIZE, NUM_ROWS, Game, Phase, Turn

PROGRAM = "nimmt assist"
ROWS_WANTED = f"the {NUM_ROWS} starting row cards"
FILLED_NOTE = (
    "the hands of the last round hold the cards played so far, completed with cards not seen "
    "in that round: the real hands were not known"
)


class InputRejected(ValueError):
    """An answer the assistant cannot accept; its message says why (nothing was changed).

    ``code`` names the reason for programs (the web assistant translates it), and ``card``,
    ``row`` (1-based, as shown) and ``expected`` (how many numbers were wanted) fill it in."""

    def __init__(
        self,
        message: str,
        code: str = "bad_answer",
        *,
        card: int | None = None,
        row: int | None = None,
        expected: int | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.card = card
        self.row = row
        self.expected = expected


@dataclass(slots=True)
class EnteredRound:
    """One round as entered: its starting row cards and the turns resolved so far."""

    rows: tuple[int, ...]
    turns: list[Turn] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Undone:
    """The entry :meth:`Assistant.undo` took back: its ``kind`` (``"rows"``, ``"turn"`` or
    ``"row"``), its ``round`` (1-based) and ``turn`` (1-based; 0 for a round's rows), and the
    ``numbers`` entered (the cards, or the row as shown, 1 to 4)."""

    kind: str
    round: int
    turn: int
    numbers: tuple[int, ...]


def parse_numbers(line: str, count: int, what: str) -> list[int]:
    """``count`` whole numbers separated by spaces or commas, or :class:`InputRejected`."""
    words = line.replace(",", " ").split()
    if not words:
        raise InputRejected(f"expected {what}, got an empty line", "empty_answer", expected=count)
    numbers: list[int] = []
    for word in words:
        if not word.isdecimal() or not word.isascii():
            raise InputRejected(f"{word!r} is not a number", "not_a_number")
        numbers.append(int(word))
    _check_count(numbers, count, what)
    return numbers


def _check_count(numbers: Sequence[int], count: int, what: str) -> None:
    if len(numbers) != count:
        raise InputRejected(
            f"expected {what}, got {len(numbers)} numbers", "wrong_count", expected=count
        )


def _check_cards(cards: Sequence[int]) -> None:
    for card in cards:
        if not 1 <= card <= len(DECK):
            raise InputRejected(
                f"there is no card {card}: cards are 1 to {len(DECK)}", "card_out_of_range",
                card=card,
            )  # fmt: skip
    for card in cards:
        if cards.count(card) > 1:
            raise InputRejected(f"card {card} is entered twice", "card_twice", card=card)


class Assistant:
    """The game as entered so far (see the module docstring)."""

    def __init__(self, names: Sequence[str]) -> None:
        self.names = tuple(names)
        self.rounds: list[EnteredRound] = []
        self.pending: tuple[int, ...] | None = None
        """A revealed turn waiting for its lowest card's owner to choose a row."""
        self.game = self._build()

    # ----------------------------------------------------------------- queries

    @property
    def players(self) -> int:
        return len(self.names)

    @property
    def phase(self) -> Phase:
        return self.game.phase

    @property
    def can_undo(self) -> bool:
        """Is there an entry to take back (see :meth:`undo`)?"""
        return bool(self.rounds)

    def seen(self) -> set[int]:
        """The cards seen this round: its starting row cards and every card played."""
        if not self.rounds:
            return set()
        current = self.rounds[-1]
        cards = set(current.rows)
        for turn in current.turns:
            cards.update(turn.cards)
        if self.pending is not None:
            cards.update(self.pending)
        return cards

    # ------------------------------------------------------------- answers

    def enter_rows(self, line: str) -> None:
        """A new round's four starting row cards."""
        self._check_phase(Phase.DEALING)
        self.start_round(parse_numbers(line, NUM_ROWS, ROWS_WANTED))

    def enter_cards(self, line: str) -> None:
        """The cards revealed in a turn, in player order."""
        self._check_phase(Phase.CHOOSING_CARDS)
        self.reveal(parse_numbers(line, self.players, self._cards_wanted()))

    def enter_row(self, line: str) -> None:
        """The row (1 to 4, as shown) the owner of the pending too-low card takes."""
        self._check_phase(Phase.CHOOSING_ROW)
        (row,) = parse_numbers(line, 1, f"a row number from 1 to {NUM_ROWS}")
        self.take_row(row - 1)

    def _cards_wanted(self) -> str:
        return f"{self.players} cards, one per player"

    def _check_phase(self, phase: Phase) -> None:
        if self.phase is phase:
            return
        if self.phase is Phase.GAME_OVER:
            raise InputRejected("the game is over", "game_over")
        if phase is Phase.DEALING:
            raise InputRejected("a round is being played: no new rows now", "rows_not_now")
        if phase is Phase.CHOOSING_ROW:
            raise InputRejected("nobody has to choose a row now", "no_row_choice_pending")
        raise InputRejected("no turn is being played now", "turn_not_now")

    def start_round(self, rows: Sequence[int]) -> None:
        """A new round's four starting row cards, as numbers."""
        self._check_phase(Phase.DEALING)
        _check_count(rows, NUM_ROWS, ROWS_WANTED)
        _check_cards(rows)
        self.rounds.append(EnteredRound(tuple(rows)))
        self.game = self._build()

    def reveal(self, cards: Sequence[int]) -> None:
        """The cards revealed in a turn, as numbers in player order."""
        self._check_phase(Phase.CHOOSING_CARDS)
        _check_count(cards, self.players, self._cards_wanted())
        _check_cards(cards)
        seen = self.seen()
        for card in cards:
            if card in seen:
                raise InputRejected(
                    f"card {card} has already been seen this round", "card_seen", card=card
                )
        self.pending = tuple(cards)
        game = self._build()
        if game.pending_row_choice is None:  # the engine resolved the turn: no row to choose
            self.rounds[-1].turns.append(Turn(self.pending))
            self.pending = None
            game = self._build()
        self.game = game

    def take_row(self, row: int) -> None:
        """The row (0 to 3: the first row is 0) the owner of the pending too-low card takes."""
        self._check_phase(Phase.CHOOSING_ROW)
        assert self.pending is not None
        if not 0 <= row < NUM_ROWS:
            raise InputRejected(
                f"there is no row {row + 1}: rows are 1 to {NUM_ROWS}", "row_out_of_range",
                row=row + 1,
            )  # fmt: skip
        self.rounds[-1].turns.append(Turn(self.pending, row))
        self.pending = None
        self.game = self._build()

    def undo(self) -> Undone:
        """Take back the last entry still standing (several undos go back several entries):
        a turn's cards, a row choice (the turn then waits for it again) or a round's row cards;
        :class:`InputRejected` when nothing has been entered."""
        if self.pending is not None:  # a turn waiting for its row choice: take its cards back
            cards, self.pending = self.pending, None
            undone = Undone("turn", len(self.rounds), len(self.rounds[-1].turns) + 1, cards)
        elif self.rounds and self.rounds[-1].turns:
            turn = self.rounds[-1].turns.pop()
            number = len(self.rounds[-1].turns) + 1
            if turn.row is not None:  # the row choice goes; the turn waits for it again
                self.pending = turn.cards
                undone = Undone("row", len(self.rounds), number, (turn.row + 1,))
            else:
                undone = Undone("turn", len(self.rounds), number, turn.cards)
        elif self.rounds:
            entry = self.rounds.pop()
            undone = Undone("rows", len(self.rounds) + 1, 0, entry.rows)
        else:
            raise InputRejected("there is nothing to undo", "nothing_to_undo")
        self.game = self._build()
        return undone

    # -------------------------------------------------------------- building

    def _hands(self, entry: EnteredRound, pending: tuple[int, ...] | None) -> list[list[int]]:
        turns = [turn.cards for turn in entry.turns]
        if pending is not None:
            turns.append(pending)
        hands = [[cards[seat] for cards in turns] for seat in range(self.players)]
        seen = set(entry.rows).union(*turns)
        unseen = (card for card in DECK if card not in seen)
        for hand in hands:
            hand.extend(next(unseen) for _ in range(HAND_SIZE - len(hand)))
        return hands

    def _build(self) -> Game:
        """The game through the engine, from what was entered."""
        game = Game(self.players)
        for index, entry in enumerate(self.rounds):
            last = index == len(self.rounds) - 1
            pending = self.pending if last else None
            game.apply_deal([[card] for card in entry.rows], self._hands(entry, pending))
            # Card by card, then the row: the events are those of the turn told while it
            # waited for the row choice, so what was told stays a prefix of the events.
            turns = [(turn.cards, turn.row) for turn in entry.turns]
            if pending is not None:
                turns.append((pending, None))
            for cards, row in turns:
                for seat, card in enumerate(cards):
                    game.play(seat, card)
                choice = game.pending_row_choice
                if choice is not None and row is not None:
                    game.choose_row(choice.seat, row)
        return game

    def record(self) -> dict[str, Any]:
        """The game record so far (docs/formats.md section 1); a turn still waiting for its row
        choice is left out."""
        from nimmt.records import to_record

        meta: dict[str, Any] = {"program": PROGRAM}
        if self.phase in (Phase.CHOOSING_CARDS, Phase.CHOOSING_ROW):  # a round still going
            meta["hands"] = FILLED_NOTE
        return to_record(self.game, list(self.names), meta)
