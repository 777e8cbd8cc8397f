"""``nimmt assist`` in the terminal: the questions, the answers and what is told between them.

:class:`AssistSession` asks for what the people at a real table reveal, hands each answer to
:class:`~nimmt.assist.Assistant` (which keeps the rules) and tells what happened as
``nimmt play`` does (:class:`~nimmt.terminal.narrate.Narrator`). Every prompt also takes
``u`` (take back the last entry: again and again, across a row choice and a finished turn or
round, as the web assistant's undo) and ``?`` (what can be typed at that prompt).
"""

from __future__ import annotations

import io
from collections.abc import Callable

from rich.console import Console

from nimmt.assist import Assistant, InputRejected, Undone
from nimmt.engine import DECK, NUM_ROWS, Phase, total_bullheads
from nimmt.terminal.narrate import Narrator
from nimmt.terminal.tables import rows_table

Ask = Callable[[str], str]
"""Puts a question and returns the answer line; raises :class:`EOFError` when input has ended."""

UNDO_COMMAND, HELP_COMMAND = "u", "?"
"""What every prompt takes besides the numbers asked for."""
ROWS_EXAMPLE = (12, 37, 43, 58)
"""The rows prompt's example: any four different cards start a round."""
HINT = (
    f"At any prompt, {HELP_COMMAND} says what you can type "
    f"and {UNDO_COMMAND} takes back the last entry."
)


class AssistSession:
    """The question-and-answer loop: asks through ``ask``, tells on ``console``, reports a
    rejected answer with ``reject`` (one line) and asks the same question again."""

    def __init__(
        self,
        assistant: Assistant,
        console: Console,
        ask: Ask,
        reject: Callable[[str], None],
    ) -> None:
        self.assistant = assistant
        self.console = console
        self.ask = ask
        self.reject = reject
        self.narrator = Narrator(console, assistant.names, pause=lambda: None, person=None)
        self.told = 0

    def run(self) -> None:
        """Ask until the game is over; :class:`EOFError` passes (the game stays as entered)."""
        assistant = self.assistant
        self.console.print(HINT, markup=False, style="dim")
        while assistant.phase is not Phase.GAME_OVER:
            game = assistant.game
            if assistant.phase is Phase.DEALING:
                self.console.rule(f"[bold]Round {game.round + 1}")
                self._answer(
                    f"Round {game.round + 1}, the {NUM_ROWS} starting row cards: ",
                    assistant.enter_rows,
                )
            elif assistant.phase is Phase.CHOOSING_CARDS:
                self._show_rows()
                names = " ".join(assistant.names)
                self._answer(
                    f"Turn {game.turn + 1}, the cards revealed ({names}): ", assistant.enter_cards
                )
            else:
                pending = game.pending_row_choice
                assert pending is not None
                self._show_rows()
                self._answer(
                    f"{assistant.names[pending.seat]}, which row do you take (1 to {NUM_ROWS})? ",
                    assistant.enter_row,
                )
            self._tell()
        outcome = assistant.game.outcome
        assert outcome is not None
        winners = ", ".join(assistant.names[seat] for seat in outcome.winners)
        totals = ", ".join(
            f"{name} {total}" for name, total in zip(assistant.names, outcome.totals, strict=True)
        )
        self.console.print(f"Winners: {winners}", markup=False)
        self.console.print(f"Totals: {totals}", markup=False)

    def _answer(self, question: str, enter: Callable[[str], None]) -> None:
        """Ask until an answer is entered or an entry is taken back (the caller then asks what
        the game needs now)."""
        while True:
            line = self.ask(question)
            command = line.strip().lower()
            if command == HELP_COMMAND:
                self.console.print(self.help_text(), markup=False)
                continue
            if command == UNDO_COMMAND:
                try:
                    undone = self.assistant.undo()
                except InputRejected as error:
                    self.reject(str(error))
                    continue
                self._undone(undone)
                return
            try:
                enter(line)
            except InputRejected as error:
                self.reject(str(error))
            else:
                return

    def help_text(self) -> str:
        """What can be typed at the prompt the game is at, with an example that is legal now."""
        assistant = self.assistant
        notes = ["Numbers are separated by spaces or commas. Ctrl-D stops the game here."]
        if assistant.phase is Phase.DEALING:
            example = " ".join(map(str, ROWS_EXAMPLE))
            what = f"the {NUM_ROWS} starting row cards of round {assistant.game.round + 1}"
        elif assistant.phase is Phase.CHOOSING_CARDS:
            seen = assistant.seen()
            unseen = [card for card in DECK if card not in seen]
            example = " ".join(str(card) for card in unseen[: assistant.players])
            what = f"the cards revealed, in player order ({', '.join(assistant.names)})"
        else:
            pending = assistant.game.pending_row_choice
            assert pending is not None
            example = "1"
            what = f"the row {assistant.names[pending.seat]} takes, 1 to {NUM_ROWS}"
            costs = " · ".join(
                f"row {index + 1} → {total_bullheads(row)}"
                for index, row in enumerate(assistant.game.rows)
            )
            notes.insert(0, f"Bullheads in each row: {costs}.")
        width = max(len(example), len(UNDO_COMMAND))
        lines = ["At this prompt, type:", f"  {example:<{width}}  {what}"]
        if assistant.can_undo:
            lines.append(
                f"  {UNDO_COMMAND:<{width}}  take back the last entry (again to go further back)"
            )
        lines.append(f"  {HELP_COMMAND:<{width}}  this help")
        lines += notes
        return "\n".join(lines)

    def _undone(self, undone: Undone) -> None:
        """Say what was taken back, and follow the game rebuilt without it."""
        numbers = " ".join(map(str, undone.numbers))
        if undone.kind == "rows":
            said = f"the starting row cards of round {undone.round} ({numbers})"
        elif undone.kind == "row":
            pending = self.assistant.game.pending_row_choice
            assert pending is not None
            said = (
                f"{self.assistant.names[pending.seat]}'s choice of row {numbers} "
                f"in round {undone.round}, turn {undone.turn}"
            )
        else:
            said = f"the cards of round {undone.round}, turn {undone.turn} ({numbers})"
        self.console.print(f"Taken back: {said}.", markup=False, style="yellow")
        # The game is rebuilt: its events start over. The narrator follows them silently, so
        # that its rows and score sheet are those of the game as it now stands.
        narrator = Narrator(
            Console(file=io.StringIO()), self.assistant.names, pause=lambda: None, person=None
        )
        for event in self.assistant.game.events:
            narrator.tell(event)
        narrator.console = self.console
        self.narrator = narrator
        self.told = len(self.assistant.game.events)

    def _tell(self) -> None:
        events = self.assistant.game.events
        for event in events[self.told :]:
            self.narrator.tell(event)
        self.told = len(events)

    def _show_rows(self) -> None:
        self.console.print(rows_table(self.assistant.game.rows))
