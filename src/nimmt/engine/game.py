"""A whole game of classic 6 nimmt! for 2 to 10 players, with every rule checked.

:class:`Game` is the rules engine's public face. Its transitions are verbs: :meth:`Game.deal`
(chance, an explicit step with an injected RNG; :meth:`Game.apply_deal` for a given deal),
:meth:`Game.play` (one hidden card from one seat, in any order), :meth:`Game.choose_row` (the
pending decision of the one player whose card is below every row) and :meth:`Game.play_turn` (a
whole turn as one joint action, for records and search). Its queries are nouns:
:meth:`Game.view`, :attr:`Game.outcome`, :meth:`Game.legal_cards`.

Rules (the rules page, ``/rules/en``): nothing is revealed until every player has chosen; the cards
then resolve lowest first (see :mod:`nimmt.engine.core`); a card below every row pauses the turn
until its player chooses the row to take, before any other card of the turn is placed; after ten
turns the round's bullheads are added to the totals; the game ends after a round in which someone
has more than 66 (exactly 66 plays on), and every player with the lowest total wins.

>>> game = Game(2)
>>> game.apply_deal(rows=[[12], [37], [43], [58]],
...                 hands=[list(range(1, 11)), list(range(60, 70))])
>>> game.play(1, 61)
>>> game.play(0, 3)
>>> game.phase, game.pending_row_choice
(<Phase.CHOOSING_ROW: 'choosing_row'>, PendingRowChoice(seat=0, card=3))
>>> game.choose_row(0, 1)
>>> game.rows
((12,), (3,), (43,), (58, 61))
>>> game.penalties
(1, 0)
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from nimmt.engine import errors
from nimmt.engine.cards import (
    GAME_END_THRESHOLD,
    HAND_SIZE,
    HIGHEST_CARD,
    LOWEST_CARD,
    MAX_PLAYERS,
    MIN_PLAYERS,
    NUM_ROWS,
)
from nimmt.engine.core import Placement, RoundState, draw_deal
from nimmt.engine.events import (
    CardChosen,
    CardPlaced,
    CardsRevealed,
    ChoiceWithdrawn,
    Event,
    GameOver,
    HandDealt,
    RoundDealt,
    RoundScored,
    RowChoiceRequired,
    RowTaken,
    visible_to,
)
from nimmt.engine.position import check_position
from nimmt.engine.views import (
    BoardParts,
    Outcome,
    OwnCards,
    PendingRowChoice,
    Phase,
    SeatView,
    own_part,
)


@dataclass(frozen=True, slots=True)
class Turn:
    """One resolved (or row-pending) turn: the card of each seat, and the row chosen if any."""

    cards: tuple[int, ...]
    row: int | None = None


@dataclass(slots=True)
class RoundLog:
    """What a round was dealt and what was played in it: the stuff of a game record."""

    rows: tuple[int, ...]
    hands: tuple[tuple[int, ...], ...]
    turns: list[Turn] = field(default_factory=list)
    penalties: tuple[int, ...] | None = None
    """Set once the round is complete and scored."""
    position: tuple[tuple[int, ...], ...] | None = None
    """For a round set up mid-way by :meth:`Game.from_position`: the rows it was set up with.
    ``rows`` is then empty (the round's first cards are not known), ``hands`` holds the hands
    as they were then, and ``turns`` the turns given as played (their rows are not known)."""


class Game:
    """A game of classic 6 nimmt! (see the module docstring)."""

    __slots__ = (
        "_board",
        "_chosen",
        "_events",
        "_own",
        "_pending",
        "_phase",
        "_revealed",
        "_rounds_before",
        "_state",
        "_totals",
        "history",
        "players",
    )

    def __init__(self, players: int) -> None:
        if isinstance(players, bool) or not isinstance(players, int):
            raise errors.PlayerCountError("the number of players must be a whole number")
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise errors.PlayerCountError(
                f"classic 6 nimmt! is for {MIN_PLAYERS} to {MAX_PLAYERS} players, not {players}"
            )
        self.players = players
        self.history: list[RoundLog] = []
        self._phase = Phase.DEALING
        self._totals = [0] * players
        self._state: RoundState | None = None
        self._chosen: list[int | None] = [None] * players
        self._revealed: tuple[int, ...] | None = None
        self._pending: PendingRowChoice | None = None
        self._events: list[Event] = []
        self._rounds_before = 0
        # The views' shared parts and each seat's own, kept with what they were made from.
        self._board: tuple[tuple[Any, ...], BoardParts] | None = None
        self._own: list[tuple[tuple[Any, ...], OwnCards] | None] = [None] * players

    @classmethod
    def from_position(
        cls,
        rows: Sequence[Sequence[int]],
        hands: Sequence[Sequence[int]],
        *,
        totals: Sequence[int] | None = None,
        round: int = 1,
        played: Sequence[Sequence[int]] = (),
        penalties: Sequence[int] | None = None,
    ) -> Game:
        """A game set up in the middle of a round, waiting for every seat's next card.

        ``rows``: the 4 rows on the table (1 to 5 cards each, rising); ``hands``: each seat's
        cards (2 to 10 seats, all hands of the same size, 1 to 10 cards); ``totals``: the
        bullheads of the rounds before this one (none above 66, or the game would be over);
        ``round``: this round's number (1 or more); ``played``: the turns already played this
        round, each one card per seat (at most ``10 - hand size`` of them); ``penalties``: the
        bullheads taken in this round so far. All cards, on the rows, in the hands and played,
        must be numbers from 1 to 104, each held once: the rows and the hands share no card, nor the
        played cards and the hands, while a played card may lie on a row (when every turn of the
        round is given, every row card but a row's first must be a played card). A position that
        breaks any of these raises :class:`~nimmt.engine.errors.InvalidPositionError` (or
        :class:`~nimmt.engine.errors.PlayerCountError`) naming what is wrong.
        The round then ends, and is scored, when the hands are empty.
        """
        game = cls(len(hands))
        players = game.players
        totals_list, penalties_list = check_position(
            players, rows, hands, totals=totals, round=round, played=played, penalties=penalties
        )
        size = len(hands[0])
        state = RoundState([list(row) for row in rows], [list(hand) for hand in hands])
        state.turn = HAND_SIZE - size
        state.penalties = penalties_list
        game._state = state
        game._totals = totals_list
        game._rounds_before = round - 1
        game.history.append(
            RoundLog(
                (),
                tuple((*(turn[seat] for turn in played), *hands[seat]) for seat in range(players)),
                [Turn(tuple(turn)) for turn in played],
                position=tuple(tuple(row) for row in rows),
            )
        )
        game._phase = Phase.CHOOSING_CARDS
        return game

    # ----------------------------------------------------------------- queries

    @property
    def phase(self) -> Phase:
        return self._phase

    @property
    def round(self) -> int:
        """1-based number of the current round; 0 before the first deal."""
        return self._rounds_before + len(self.history)

    @property
    def turn(self) -> int:
        """Turns completed in the current round."""
        return self._state.turn if self._state is not None else 0

    @property
    def rows(self) -> tuple[tuple[int, ...], ...]:
        if self._state is None:
            return ()
        return tuple(tuple(row) for row in self._state.rows)

    @property
    def totals(self) -> tuple[int, ...]:
        """Totals of the completed rounds."""
        return tuple(self._totals)

    @property
    def penalties(self) -> tuple[int, ...]:
        """Bullheads taken by each seat in the current round so far."""
        if self._state is None or self._phase is Phase.DEALING:
            return (0,) * self.players
        return tuple(self._state.penalties)

    @property
    def pending_row_choice(self) -> PendingRowChoice | None:
        return self._pending

    @property
    def outcome(self) -> Outcome | None:
        """How the game ended, or ``None`` while it goes on."""
        if self._phase is not Phase.GAME_OVER:
            return None
        best = min(self._totals)
        winners = tuple(seat for seat, total in enumerate(self._totals) if total == best)
        return Outcome(self.totals, winners)

    @property
    def events(self) -> Sequence[Event]:
        """Every event so far, unfiltered: pass them through :meth:`events_for` for a seat."""
        return tuple(self._events)

    def events_after(self, count: int) -> tuple[Event, ...]:
        """The events after the first ``count``, unfiltered (without copying those before)."""
        return tuple(self._events[count:])

    @property
    def event_count(self) -> int:
        return len(self._events)

    def events_for(self, seat: int | None, since: int = 0) -> list[Event]:
        """The events from index ``since`` on that ``seat`` (``None``: a spectator) may see."""
        return [event for event in self._events[since:] if visible_to(event, seat)]

    def waiting_for(self) -> tuple[int, ...]:
        """The seats the game waits for: those yet to choose a card, or the one to choose a row."""
        if self._phase is Phase.CHOOSING_CARDS:
            return tuple(seat for seat, card in enumerate(self._chosen) if card is None)
        if self._pending is not None:
            return (self._pending.seat,)
        return ()

    def hand(self, seat: int) -> tuple[int, ...]:
        """``seat``'s cards, sorted: a card chosen face down is still in the hand, a revealed
        card awaiting a row choice is not."""
        self._check_seat(seat)
        if self._state is None or self._phase is Phase.DEALING:
            return ()
        hand = self._state.hands[seat]
        if self._revealed is not None:
            hand = [card for card in hand if card != self._revealed[seat]]
        return tuple(sorted(hand))

    def legal_cards(self, seat: int) -> tuple[int, ...]:
        """The cards ``seat`` may play now."""
        self._check_seat(seat)
        if self._phase is not Phase.CHOOSING_CARDS or self._chosen[seat] is not None:
            return ()
        return self.hand(seat)

    def view(self, seat: int | None) -> SeatView:
        """What ``seat`` may see (``None``: a spectator, who sees no hand)."""
        if seat is not None:
            self._check_seat(seat)
        board = self._board_now()
        return SeatView(
            seat=seat,
            players=self.players,
            phase=self._phase,
            round=board.round,
            turn=board.turn,
            rows=board.rows,
            hand=self.hand(seat) if seat is not None else (),
            chosen_card=self._chosen[seat] if seat is not None else None,
            has_chosen=tuple(card is not None for card in self._chosen),
            revealed=self._revealed,
            pending_row_choice=self._pending,
            round_rows=board.round_rows,
            played=board.played,
            penalties=board.penalties,
            totals=board.totals,
            score_sheet=board.score_sheet,
            outcome=board.outcome,
            chosen_rows=board.chosen_rows,
            position_rows=board.position_rows,
        )

    def _board_now(self) -> BoardParts:
        """What every view shares but who has chosen: the same objects until a turn is revealed
        or resolved, or a round dealt or scored (most changes are a card chosen face down)."""
        made_from = (self._phase, self._state, self.turn, self._revealed, len(self.history))
        known = self._board
        if known is not None and known[0] == made_from:
            return known[1]
        log = self.history[-1] if self.history else None
        turns = list(log.turns) if log is not None else []
        if self._revealed is not None and turns:
            turns.pop()  # the turn awaiting a row choice is shown as ``revealed``
        board = BoardParts(
            round=self.round,
            turn=self.turn,
            rows=self.rows,
            round_rows=log.rows if log is not None else (),
            played=tuple(turn.cards for turn in turns),
            penalties=self.penalties,
            totals=self.totals,
            score_sheet=tuple(
                entry.penalties for entry in self.history if entry.penalties is not None
            ),
            outcome=self.outcome,
            chosen_rows=tuple(turn.row for turn in turns),
            position_rows=log.position if log is not None and log.position is not None else (),
        )
        self._board = (made_from, board)
        return board

    def own_cards(self, seat: int) -> OwnCards:
        """What of ``seat``'s :meth:`view` is its own (its hand, its face-down card, whether
        it may play or must choose a row); the rest of that view is ``view(None)``'s. The same
        (immutable) object while none of it changes (most changes leave most seats' as it was)."""
        self._check_seat(seat)
        # A hand changes only with the round's state, the turn and the cards revealed.
        chosen = self._chosen[seat]
        made_from = (self._phase, chosen, self._pending, self._revealed, self._state, self.turn)
        known = self._own[seat]
        if known is not None and known[0] == made_from:
            return known[1]
        own = own_part(seat, self._phase, self.hand(seat), chosen, self._pending)
        self._own[seat] = (made_from, own)
        return own

    def round_state(self) -> RoundState:
        """A copy of the current round's full state (every hand): for the engine's own callers
        that are entitled to it, such as records and the arena's referee; never for a bot."""
        if self._state is None:
            raise errors.WrongPhaseError("no round has been dealt yet", phase=self._phase)
        return self._state.copy()

    # ------------------------------------------------------------- transitions

    def deal(self, rng: random.Random | int) -> None:
        """Deal a new round from all 104 cards, shuffled by ``rng`` (a ``Random`` or a seed):
        :func:`~nimmt.engine.core.draw_deal` draws it, :meth:`apply_deal` applies it."""
        self._check_phase(Phase.DEALING, "a round can be dealt only between rounds")
        generator = rng if isinstance(rng, random.Random) else random.Random(rng)
        rows, hands = draw_deal(generator, self.players)
        self._start_round(rows, hands)

    def apply_deal(self, rows: Sequence[Sequence[int]], hands: Sequence[Sequence[int]]) -> None:
        """Start a round with a given deal (from a record, or drawn elsewhere): four one-card
        rows and ten cards for each seat."""
        self._check_phase(Phase.DEALING, "a round can be dealt only between rounds")
        if len(rows) != NUM_ROWS or any(len(row) != 1 for row in rows):
            raise errors.InvalidDealError("a round starts with 4 rows of one card each")
        if len(hands) != self.players:
            raise errors.InvalidDealError(f"{len(hands)} hands dealt for {self.players} players")
        for seat, hand in enumerate(hands):
            if len(hand) != HAND_SIZE:
                raise errors.InvalidDealError(
                    f"seat {seat} was dealt {len(hand)} cards instead of {HAND_SIZE}",
                    seat=seat,
                )
        owners: list[tuple[int | None, object]] = [(None, row[0]) for row in rows]
        owners += [(seat, card) for seat, hand in enumerate(hands) for card in hand]
        for owner, card in owners:
            if isinstance(card, bool) or not isinstance(card, int):
                raise errors.InvalidDealError(
                    f"{card!r} is not a card number", seat=owner, card=card
                )
            if not LOWEST_CARD <= card <= HIGHEST_CARD:
                raise errors.InvalidDealError(
                    f"there is no card {card}: cards are 1 to 104", seat=owner, card=card
                )
        cards = [row[0] for row in rows] + [card for hand in hands for card in hand]
        if len(set(cards)) != len(cards):
            repeated = sorted({card for card in cards if cards.count(card) > 1})
            raise errors.InvalidDealError(
                f"card {repeated[0]} is dealt more than once", card=repeated[0]
            )
        self._start_round([[row[0]] for row in rows], [list(hand) for hand in hands])

    def play(self, seat: int, card: int, *, replace: bool = False) -> None:
        """``seat`` chooses ``card`` face down; once every seat has chosen, the turn resolves.

        With ``replace``, a card already chosen this turn is exchanged for ``card`` (a change of
        mind before the last player has chosen); everything is checked before anything changes.
        """
        self._check_can_choose(seat)
        assert self._state is not None
        chosen = self._chosen[seat]
        if chosen is not None and (not replace or card == chosen):
            raise errors.CardAlreadyChosenError(
                f"seat {seat} has already chosen "
                + (f"{card} this turn" if card == chosen else "a card this turn"),
                seat=seat,
                card=card,
            )
        self._check_in_hand(seat, card)
        if chosen is not None:
            self._events.append(ChoiceWithdrawn(seat))
        self._chosen[seat] = card
        self._events.append(CardChosen(seat))
        if None not in self._chosen:
            cards = tuple(chosen for chosen in self._chosen if chosen is not None)
            self._reveal(cards, row=None)

    def retract(self, seat: int) -> None:
        """``seat`` takes back its face-down card, to choose again (before all have chosen)."""
        self._check_can_choose(seat)
        if self._chosen[seat] is None:
            raise errors.NoCardChosenError(
                f"seat {seat} has no card chosen to take back", seat=seat
            )
        self._chosen[seat] = None
        self._events.append(ChoiceWithdrawn(seat))

    def choose_row(self, seat: int, row: int) -> None:
        """The player whose card is below every row takes ``row`` (0 to 3)."""
        if self._phase is Phase.GAME_OVER:
            raise errors.GameOverError("the game is over", phase=self._phase)
        pending = self._pending
        if pending is None:
            raise errors.NoRowChoicePendingError(
                "nobody has to choose a row now", seat=seat, row=row, phase=self._phase
            )
        self._check_seat(seat)
        if seat != pending.seat:
            raise errors.NotYourDecisionError(
                f"seat {pending.seat} chooses the row, not seat {seat}",
                seat=seat,
                card=pending.card,
                row=row,
            )
        self._check_row(row, seat, pending.card)
        revealed = self._revealed
        assert revealed is not None
        self.history[-1].turns[-1] = Turn(revealed, row)
        self._resolve(revealed, row)

    def play_turn(self, cards: Sequence[int], row: int | None = None) -> None:
        """A whole turn as one joint action: ``cards[seat]`` for every seat, and the row taken by
        the owner of the lowest card when it is below every row (``None`` otherwise)."""
        if self._phase is Phase.GAME_OVER:
            raise errors.GameOverError("the game is over", phase=self._phase)
        self._check_phase(Phase.CHOOSING_CARDS, "a turn can be played only when cards are chosen")
        if any(chosen is not None for chosen in self._chosen):
            seat = next(seat for seat, card in enumerate(self._chosen) if card is not None)
            raise errors.CardAlreadyChosenError(
                "some players have already chosen a card", seat=seat
            )
        if len(cards) != self.players:
            raise errors.TurnSizeError(
                f"{len(cards)} cards given for a turn of {self.players} seats: one per seat"
            )
        state = self._state
        assert state is not None
        for seat, card in enumerate(cards):
            self._check_in_hand(seat, card)
        if state.needs_row_choice(cards):
            low = min(cards)
            if row is None:
                raise errors.RowChoiceMissingError(
                    f"{low} is below every row: its player must choose a row",
                    seat=list(cards).index(low),
                    card=low,
                )
            self._check_row(row, list(cards).index(low), low)
        elif row is not None:
            raise errors.NoRowChoicePendingError(
                f"no card is below every row, so no row is chosen (got row {row})", row=row
            )
        for seat in range(self.players):
            self._events.append(CardChosen(seat))
        self._reveal(tuple(cards), row)

    # -------------------------------------------------------------- internals

    def _start_round(self, rows: list[list[int]], hands: list[list[int]]) -> None:
        self._state = RoundState(rows, hands)
        log = RoundLog(tuple(row[0] for row in rows), tuple(tuple(hand) for hand in hands))
        self.history.append(log)
        self._phase = Phase.CHOOSING_CARDS
        self._chosen = [None] * self.players
        self._events.append(RoundDealt(self.round, log.rows))
        for seat, hand in enumerate(log.hands):
            self._events.append(HandDealt(self.round, seat, tuple(sorted(hand))))

    def _reveal(self, cards: tuple[int, ...], row: int | None) -> None:
        state = self._state
        assert state is not None
        self._events.append(CardsRevealed(self.round, state.turn + 1, cards))
        self.history[-1].turns.append(Turn(cards, row))
        if row is None and state.needs_row_choice(cards):
            low = min(cards)
            self._pending = PendingRowChoice(cards.index(low), low)
            self._revealed = cards
            self._phase = Phase.CHOOSING_ROW
            self._events.append(RowChoiceRequired(self._pending.seat, low))
            return
        self._resolve(cards, row)

    def _resolve(self, cards: tuple[int, ...], row: int | None) -> None:
        state = self._state
        assert state is not None
        placements: list[Placement] = []
        state.resolve_turn(cards, row, placements)
        for placement in placements:
            if placement.taken:
                self._events.append(
                    RowTaken(
                        placement.seat,
                        placement.row,
                        placement.taken,
                        placement.bullheads,
                        placement.too_low,
                    )
                )
            self._events.append(CardPlaced(placement.seat, placement.card, placement.row))
        self._chosen = [None] * self.players
        self._revealed = None
        self._pending = None
        self._phase = Phase.CHOOSING_CARDS
        if state.turn == HAND_SIZE:
            self._score_round()

    def _score_round(self) -> None:
        state = self._state
        assert state is not None
        penalties = tuple(state.penalties)
        for seat, penalty in enumerate(penalties):
            self._totals[seat] += penalty
        self.history[-1].penalties = penalties
        self._events.append(RoundScored(self.round, penalties, self.totals))
        if max(self._totals) > GAME_END_THRESHOLD:
            self._phase = Phase.GAME_OVER
            outcome = self.outcome
            assert outcome is not None
            self._events.append(GameOver(outcome.totals, outcome.winners))
        else:
            self._phase = Phase.DEALING

    def _check_seat(self, seat: int) -> None:
        if isinstance(seat, bool) or not isinstance(seat, int):
            raise errors.SeatError(f"{seat!r} is not a seat number", seat=seat)
        if not 0 <= seat < self.players:
            raise errors.SeatError(
                f"there is no seat {seat} at a table of {self.players}", seat=seat
            )

    def _check_in_hand(self, seat: int, card: int) -> None:
        assert self._state is not None
        # ``True in [1]`` holds in Python: a bool is never a card.
        if (
            isinstance(card, bool)
            or not isinstance(card, int)
            or card not in self._state.hands[seat]
        ):
            raise errors.CardNotInHandError(
                f"{card!r} is not in seat {seat}'s hand", seat=seat, card=card
            )

    def _check_row(self, row: int, seat: int, card: int) -> None:
        """``row`` is a row number, chosen by ``seat`` for ``card`` (below every row)."""
        if isinstance(row, bool) or not isinstance(row, int) or not 0 <= row < NUM_ROWS:
            raise errors.RowIndexError(
                f"there is no row {row!r}: rows are numbered 0 to 3", seat=seat, card=card, row=row
            )

    def _check_phase(self, phase: Phase, message: str) -> None:
        if self._phase is Phase.GAME_OVER:
            raise errors.GameOverError("the game is over", phase=self._phase)
        if self._phase is not phase:
            raise errors.WrongPhaseError(message, phase=self._phase)

    def _check_can_choose(self, seat: int) -> None:
        if self._phase is Phase.CHOOSING_ROW:
            assert self._pending is not None
            self._check_seat(seat)
            raise errors.WrongPhaseError(
                f"the table waits for seat {self._pending.seat} to choose a row",
                seat=seat,
                phase=self._phase,
            )
        self._check_phase(Phase.CHOOSING_CARDS, "no round is being played: deal first")
        self._check_seat(seat)
