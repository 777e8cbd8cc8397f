"""The account of a game in sentences: :class:`Narrator` tells the events one seat may see, card
by card ("Ben's 26·1 goes to row 1 (5 cards, full)."), the person as "you", and a replay with
every seat by name."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from rich.console import Console
from rich.text import Text

from nimmt.engine import (
    GAME_END_THRESHOLD,
    ROW_LIMIT,
    CardPlaced,
    CardsRevealed,
    Event,
    GameOver,
    RoundDealt,
    RoundScored,
    RowChoiceRequired,
    RowTaken,
)
from nimmt.terminal.settings import PERSON_SEAT
from nimmt.terminal.tables import card_text, cards_text, plural, score_sheet


@dataclass(slots=True)
class Narrator:
    """Tells the events the person's seat may see, card by card, keeping its own copy of the
    rows (built from the events alone) to say how full each row has become.

    ``person`` is the seat told as "you"; ``None`` tells every seat by name (a replay).
    :attr:`log` keeps the current round's lines (reveals, row choices, where each card went), so
    the person can read the round again (``l`` at the card prompt).
    """

    console: Console
    names: tuple[str, ...]
    pause: Callable[[], None]
    person: int | None = PERSON_SEAT
    rows: list[list[int]] = field(default_factory=list)
    taken: RowTaken | None = None
    sheet: list[tuple[int, ...]] = field(default_factory=list)
    log: list[Text] = field(default_factory=list)

    def who(self, seat: int) -> str:
        return "You" if seat == self.person else self.names[seat]

    def whose(self, seat: int) -> str:
        return "Your" if seat == self.person else f"{self.names[seat]}'s"

    def tell(self, event: Event) -> None:
        if isinstance(event, RoundDealt):
            self.start_round(event.rows)
            if event.round > 1:
                self.console.print(Text(f"Round {event.round}: new cards are dealt.", "bold"))
        elif isinstance(event, CardsRevealed):
            self._reveal(event)
        elif isinstance(event, RowChoiceRequired):
            self._say(
                Text.assemble(
                    f"{self.whose(event.seat)} ",
                    card_text(event.card),
                    " is lower than every row: ",
                    "you choose the row you take."
                    if event.seat == self.person
                    else f"{self.who(event.seat)} chooses a row to take.",
                )
            )
        elif isinstance(event, RowTaken):
            self.taken = event
        elif isinstance(event, CardPlaced):
            self.pause()
            self._placed(event)
        elif isinstance(event, RoundScored):
            self.sheet.append(event.penalties)
            self.console.print()
            self.console.print(score_sheet(self.names, event.totals, self.sheet))
        elif isinstance(event, GameOver):
            self._game_over(event)

    def start_round(self, rows: Sequence[int]) -> None:
        """Begin a round on these four row cards (without announcing it)."""
        self.rows = [[card] for card in rows]
        self.log = []

    def resume(self, rows: Sequence[Sequence[int]]) -> None:
        """Follow a round already under way (a game set up mid-round) from the rows on the table."""
        self.rows = [list(row) for row in rows]
        self.log = []

    def _say(self, line: Text) -> None:
        """Print a line of the round's account and keep it in the round's log."""
        self.console.print(line)
        self.log.append(line)

    def _reveal(self, event: CardsRevealed) -> None:
        order = sorted(range(len(event.cards)), key=lambda seat: event.cards[seat])
        line = Text(f"Turn {event.turn}, cards revealed, lowest first:  ", style="bold")
        line.append(
            Text("  ").join(
                Text.assemble(card_text(event.cards[seat]), f" {self.who(seat)}") for seat in order
            )
        )
        self.console.print()
        self._say(line)
        self.pause()

    def _placed(self, event: CardPlaced) -> None:
        taken, self.taken = self.taken, None
        person = event.seat == self.person
        line = Text("  ")
        if taken is not None:
            # The row's old cards are the player's penalty; the card restarts the row.
            penalty = Text.assemble(
                cards_text(taken.cards, " "),
                (f" ({plural(taken.bullheads, 'bullhead')})", "bold red"),
                f"; {event.card} starts the row.",
            )
            if taken.chosen:
                verb = "take" if person else "takes"
                line.append(f"{self.who(event.seat)} {verb} row {taken.row + 1}: ")
            else:
                line.append(f"{self.whose(event.seat)} ")
                line.append(card_text(event.card))
                line.append(f" is the 6th card in row {event.row + 1}: ")
                line.append("you take " if person else f"{self.who(event.seat)} takes ")
            line.append(penalty)
            self.rows[event.row] = [event.card]
        else:
            self.rows[event.row].append(event.card)
            count = len(self.rows[event.row])
            line.append(f"{self.whose(event.seat)} ")
            line.append(card_text(event.card))
            line.append(f" goes to row {event.row + 1} ({count} cards")
            if count == ROW_LIMIT:
                line.append(", full", style="bold red")
            line.append(").")
        self._say(line)

    def _game_over(self, event: GameOver) -> None:
        over = [seat for seat, total in enumerate(event.totals) if total > GAME_END_THRESHOLD]
        said = [
            f"{'you' if seat == self.person else self.names[seat]} ({event.totals[seat]})"
            for seat in over
        ]
        listed = said[0] if len(said) == 1 else f"{', '.join(said[:-1])} and {said[-1]}"
        self.console.print()
        self.console.print(
            Text(f"Game over: more than {GAME_END_THRESHOLD} bullheads for {listed}.", style="bold")
        )
        best = event.totals[event.winners[0]]
        winners = [self.names[seat] for seat in event.winners]
        if len(winners) == 1:
            text = f"The winner is {winners[0]}, with {plural(best, 'bullhead')}."
        else:
            text = (
                f"Joint winners: {', '.join(winners[:-1])} and {winners[-1]}, "
                f"with {plural(best, 'bullhead')} each."
            )
        if self.person in event.winners:
            text += " Well played!"
        self.console.print(Text(text, style="bold green"))
