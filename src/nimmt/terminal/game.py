"""The game loop of ``nimmt play``: :class:`TerminalGame` deals, asks the person for a card or a
row through an injected asker, lets each bot decide from its own seat's view, and tells what the
person's seat may see through the :class:`~nimmt.terminal.narrate.Narrator`."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from contextlib import AbstractContextManager, nullcontext
from typing import TYPE_CHECKING

from rich.console import Console
from rich.rule import Rule
from rich.text import Text

from nimmt.engine import (
    GAME_END_THRESHOLD,
    HAND_SIZE,
    NUM_ROWS,
    Game,
    Phase,
    SeatView,
    total_bullheads,
)
from nimmt.terminal.coach import Analyzer, advice_text, analyzer
from nimmt.terminal.narrate import Narrator
from nimmt.terminal.prompts import Asker, Question, QuestionKind
from nimmt.terminal.settings import PERSON_SEAT, PlaySettings, bot_kinds_for, bot_names
from nimmt.terminal.tables import cards_text, rows_table, score_sheet

if TYPE_CHECKING:
    from nimmt.bots import Bot

LAST_ROUND_NOTICE_FROM = 45
"""A round starts with "This may be the last round" when someone has this many bullheads or
more: 22 short of passing 66, which one bad round often brings (two full rows can)."""

HELP_COMMAND, SHEET_COMMAND, LOG_COMMAND = "?", "s", "l"
"""What the card prompt takes besides a card's number; each shows something and asks again."""


def card_prompt_help(example: int) -> str:
    """The card prompt's help; ``example`` is a card the person may play now (one of theirs)."""
    return f"""\
At the card prompt, type:
  {example:<3}  the number of one of your cards, to play it
  {SHEET_COMMAND}    the score sheet so far
  {LOG_COMMAND}    this round's log: the cards revealed, where each went, who took a row
  {HELP_COMMAND}    this help
Cards go lowest first, each after the highest row end below it; the 6th card in a row takes \
the five, and a card lower than every row takes a row its player chooses.
Ctrl-C ends the game (the record, if you asked for one, is saved)."""


class TerminalGame:
    """One game: the person in seat 0 answers prompts, the bots decide from their own views.

    ``ask`` gets every :class:`Question`; ``sleep`` paces the account (``delay`` seconds per
    step); ``analyze`` is the coach's analysis when ``settings.coach`` is on (by default
    :func:`nimmt.bots.analysis.analyze`). Call :meth:`play`; it returns when the game is over
    and lets :class:`EOFError` and :class:`KeyboardInterrupt` from the asker pass, leaving
    :attr:`game` as it was.
    """

    def __init__(
        self,
        settings: PlaySettings,
        *,
        console: Console,
        ask: Asker,
        sleep: Callable[[float], None] = time.sleep,
        analyze: Analyzer | None = None,
    ) -> None:
        from nimmt.bots import make_bot  # here, so that `nimmt replay` starts without the bots

        kinds = bot_kinds_for(settings.players, settings.bots)
        self.settings = settings
        self.console = console
        self.ask = ask
        self.sleep = sleep
        self.seed = (
            settings.seed if settings.seed is not None else random.SystemRandom().randrange(10**6)
        )
        # One master generator splits into independent streams, so the deal does not depend on
        # how many random numbers a bot draws, and the same seed replays the same game.
        master = random.Random(self.seed)
        self.deal_rng = random.Random(master.getrandbits(64))
        self.bot_kinds = kinds
        self.bots: dict[int, Bot] = {
            seat: make_bot(kind, random.Random(master.getrandbits(64)))
            for seat, kind in enumerate(kinds, start=1)
        }
        self.names: tuple[str, ...] = (settings.name, *bot_names(settings.name, settings.players))
        self.game = Game(settings.players)
        self._seen = 0
        self._narrator = Narrator(console, self.names, self._pause)
        self._analyze: Analyzer | None = None
        if settings.coach:
            self._analyze = analyze if analyze is not None else analyzer()

    # -------------------------------------------------------------- the loop

    def play(self) -> None:
        self._introduce()
        game = self.game
        if game.phase is not Phase.DEALING and game.event_count == 0:
            # A game set up mid-round (Game.from_position): no deal to tell the rows from.
            self._narrator.resume(game.view(PERSON_SEAT).rows)
        while game.phase is not Phase.GAME_OVER:
            if game.phase is Phase.DEALING:
                game.deal(self.deal_rng)
            elif game.phase is Phase.CHOOSING_CARDS:
                self._play_turn()
            else:
                self._choose_row()
            self._tell_new_events()

    def _play_turn(self) -> None:
        view = self.game.view(PERSON_SEAT)
        self._show_table(view)
        card = self._ask_card(view)
        self.game.play(PERSON_SEAT, card)
        with self._thinking("The others choose their cards…"):
            for seat, bot in self.bots.items():
                self.game.play(seat, bot.choose_card(self.game.view(seat)))

    def _choose_row(self) -> None:
        pending = self.game.pending_row_choice
        assert pending is not None
        if pending.seat == PERSON_SEAT:
            row = self._ask_row(self.game.view(PERSON_SEAT))
        else:
            with self._thinking(f"{self.names[pending.seat]} chooses a row…"):
                row = self.bots[pending.seat].choose_row(self.game.view(pending.seat))
        self.game.choose_row(pending.seat, row)

    def _tell_new_events(self) -> None:
        for event in self.game.events_for(PERSON_SEAT, self._seen):
            self._narrator.tell(event)
        self._seen = self.game.event_count

    def _thinking(self, message: str) -> AbstractContextManager[object]:
        """A spinner while slow bots think, on a real terminal only (never in a transcript)."""
        if self.console.is_terminal and not self.console.is_dumb_terminal:
            return self.console.status(Text(message, style="dim"), spinner="dots")
        return nullcontext()

    def _pause(self) -> None:
        if self.settings.delay > 0:
            self.sleep(self.settings.delay)

    # ------------------------------------------------------------ the screen

    def _introduce(self) -> None:
        opponents = ", ".join(
            f"{self.names[seat]} ({kind})" for seat, kind in enumerate(self.bot_kinds, start=1)
        )
        self.console.print(Text("6 nimmt!", style="bold magenta"), Text(f"  seed {self.seed}"))
        self.console.print(Text(f"{self.names[PERSON_SEAT]} against {opponents}."))
        self.console.print(
            Text(
                f"Take as few bullheads as you can; the game ends once someone has more than "
                f"{GAME_END_THRESHOLD}.\nCards read number·bullheads: 55·7 is the worst. "
                f"At the card prompt, {HELP_COMMAND} tells what you can type.",
                style="dim",
            )
        )

    def _show_table(self, view: SeatView) -> None:
        self.console.print()
        self.console.print(
            Rule(Text(f"Round {view.round} · turn {view.turn + 1} of {HAND_SIZE}"), style="dim")
        )
        if view.turn == 0:
            self._announce_last_round(view)
        self.console.print(rows_table(view.rows))
        scores = Text("Bullheads this round (total): ", style="dim")
        scores.append(
            Text(" · ").join(
                Text(f"{name} {view.penalties[seat]} ({view.totals[seat] + view.penalties[seat]})")
                for seat, name in enumerate(self.names)
            )
        )
        self.console.print(scores)
        self.console.print(Text.assemble(Text("Your hand:  ", style="bold"), cards_text(view.hand)))

    def _announce_last_round(self, view: SeatView) -> None:
        """Say at a round's start that it may be the game's last (:data:`LAST_ROUND_NOTICE_FROM`),
        naming who is close to 66, the highest total first."""
        close = sorted(
            (seat for seat, total in enumerate(view.totals) if total >= LAST_ROUND_NOTICE_FROM),
            key=lambda seat: (-view.totals[seat], seat),
        )
        if not close:
            return
        said = [
            f"you have {view.totals[seat]}"
            if seat == PERSON_SEAT
            else f"{self.names[seat]} has {view.totals[seat]}"
            for seat in close
        ]
        listed = said[0] if len(said) == 1 else f"{', '.join(said[:-1])} and {said[-1]}"
        self.console.print(
            Text(f"This may be the last round: {listed}.", style="bold yellow"), soft_wrap=True
        )

    def _show_sheet(self, view: SeatView) -> None:
        totals = [total + taken for total, taken in zip(view.totals, view.penalties, strict=True)]
        self.console.print(
            score_sheet(self.names, totals, view.score_sheet, in_play=view.penalties)
        )

    def _show_log(self, view: SeatView) -> None:
        log = self._narrator.log
        if not log:
            self.console.print(Text(f"Round {view.round} has just begun: no card played yet."))
            return
        self.console.print(Text(f"Round {view.round} so far:", style="bold"))
        for line in log:
            self.console.print(line)

    # ----------------------------------------------------------- the prompts

    def _coach(self, view: SeatView) -> None:
        """Show the coach's advice for the person's decision, from the person's view only."""
        if self._analyze is None:
            return
        kind = "row" if view.must_choose_row else "card"
        # A seed of its own for each decision: the same game gets the same advice.
        seed = random.Random(f"{self.seed}:{view.round}:{view.turn}:{kind}").getrandbits(32)
        with self._thinking("The coach thinks…"):
            advice = self._analyze(view, seed)
        self.console.print(advice_text(advice))

    def _ask_card(self, view: SeatView) -> int:
        hand = view.legal_cards()
        self._coach(view)
        question = Question(QuestionKind.CARD, "Your card: ", hand)
        commands = {
            HELP_COMMAND: lambda: self.console.print(Text(card_prompt_help(hand[0]))),
            SHEET_COMMAND: lambda: self._show_sheet(view),
            LOG_COMMAND: lambda: self._show_log(view),
        }
        while True:
            answer = self.ask(question).strip()
            command = commands.get(answer.lower())
            if command is not None:
                command()
                continue
            if not answer:
                self._explain("Type the number of one of your cards.")
                continue
            typed = answer.lstrip("#")
            if not (typed.isascii() and typed.isdecimal()):  # not "1_7", "+17" or "١٧"
                self._explain(
                    f"{answer!r} is not a card number: type one of your cards' numbers, "
                    f"or {HELP_COMMAND} for help."
                )
                continue
            card = int(typed)
            if card in hand:
                return card
            self._explain(
                f"{card} is not in your hand. Your cards: {' '.join(str(c) for c in hand)}."
            )

    def _ask_row(self, view: SeatView) -> int:
        pending = view.pending_row_choice
        assert pending is not None
        self.console.print(rows_table(view.rows))
        costs = Text("What each row costs you, in bullheads:  ", style="dim")
        costs.append(
            Text(" · ").join(
                Text(f"row {index + 1} → {total_bullheads(row)}")
                for index, row in enumerate(view.rows)
            )
        )
        self.console.print(costs)
        self._coach(view)
        choices = tuple(range(1, NUM_ROWS + 1))
        question = Question(QuestionKind.ROW, f"Row to take (1-{NUM_ROWS}): ", choices)
        while True:
            answer = self.ask(question).strip()
            if not answer:
                self._explain(f"Type the number of the row you take, 1 to {NUM_ROWS}.")
                continue
            if not (answer.isascii() and answer.isdecimal()):
                self._explain(f"{answer!r} is not a row number: type 1, 2, 3 or 4.")
                continue
            number = int(answer)
            if number in choices:
                return number - 1
            self._explain(f"There is no row {number}: the rows are numbered 1 to {NUM_ROWS}.")

    def _explain(self, message: str) -> None:
        self.console.print(Text(message, style="yellow"))
