"""``nimmt assist`` in the terminal: the questions, the answers and what is told between them.

:class:`AssistSession` asks for what the people at a real table reveal, hands each answer to
:class:`~nimmt.assist.Assistant` (which keeps the rules) and tells what happened as
``nimmt play`` does (:class:`~nimmt.terminal.narrate.Narrator`).
"""

from __future__ import annotations

from collections.abc import Callable

from rich.console import Console

from nimmt.assist import Assistant, InputRejected
from nimmt.engine import NUM_ROWS, Phase
from nimmt.terminal.narrate import Narrator
from nimmt.terminal.tables import rows_table

Ask = Callable[[str], str]
"""Puts a question and returns the answer line; raises :class:`EOFError` when input has ended."""


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
        while True:
            line = self.ask(question)
            try:
                enter(line)
            except InputRejected as error:
                self.reject(str(error))
            else:
                return

    def _tell(self) -> None:
        events = self.assistant.game.events
        for event in events[self.told :]:
            self.narrator.tell(event)
        self.told = len(events)

    def _show_rows(self) -> None:
        self.console.print(rows_table(self.assistant.game.rows))
