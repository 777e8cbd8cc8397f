"""A whole game of classic 6 nimmt! in the terminal: one person against bots, drawn with Rich.

:class:`TerminalGame` runs the game loop. Its input and output are injected (a Rich
:class:`~rich.console.Console` and an *asker*, a function that receives a :class:`Question` and
returns the typed answer), so a test can script a whole game; :func:`run` adds what the command
line needs around it: the record file, and a clean end on Ctrl-C or end of input.

Rules it carries out (the rules page, ``/rules/en``): everyone chooses a card face down, the person
through a prompt and each bot from its own seat's view only; the cards are revealed together and
told lowest first, card by card; when the person's card is below every row the person chooses the
row to take (rows numbered 1 to 4 with their cost) and the program never chooses for them; after
every round the score sheet is shown, and at the end every player with the lowest total wins.

Hidden information: the person's screen is drawn only from ``game.view(person)`` and the events
that seat may see (:meth:`~nimmt.engine.Game.events_for`); a bot gets only ``game.view(its seat)``.
"""

from __future__ import annotations

import random
import sys
import time
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext, suppress
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from rich import box
from rich.console import Console
from rich.rule import Rule
from rich.table import Table
from rich.text import Text

from nimmt.engine import (
    BULLHEADS,
    GAME_END_THRESHOLD,
    HAND_SIZE,
    NUM_ROWS,
    ROW_LIMIT,
    CardPlaced,
    CardsRevealed,
    Event,
    Game,
    GameOver,
    Phase,
    RoundDealt,
    RoundScored,
    RowChoiceRequired,
    RowTaken,
    SeatView,
    total_bullheads,
)

if TYPE_CHECKING:
    from nimmt.bots import Bot

PERSON_SEAT = 0
"""The person always sits in seat 0; the bots take the seats after it."""

BOT_PERSONAS: tuple[str, ...] = ("Ada", "Ben", "Cleo", "Dan", "Eli", "Fay", "Gus", "Hana", "Ivo")
"""Names for the bots' seats, so the account reads like a table of people."""

DEFAULT_DELAY = 0.6
"""Seconds between two steps of the card-by-card account, when the output is a terminal."""

CARD_STYLES: dict[int, str] = {
    1: "",
    2: "cyan",
    3: "bold yellow",
    5: "bold red",
    7: "bold white on magenta",
}
"""One style per bullhead value, differing in lightness too; 55 (seven heads) stands out."""


class QuestionKind(Enum):
    CARD = "card"
    ROW = "row"


@dataclass(frozen=True, slots=True)
class Question:
    """A prompt put to the person: what is asked, the prompt text, and the answers accepted.

    ``choices`` are the numbers as the person types them: card numbers for a card, 1 to 4 for a
    row. An asker must return a string (any string: a wrong one is explained and asked again),
    raise :class:`EOFError` when input has ended, or :class:`KeyboardInterrupt` on Ctrl-C.
    """

    kind: QuestionKind
    text: str
    choices: tuple[int, ...]


Asker = Callable[[Question], str]


def discard_typeahead(stream: IO[str]) -> None:
    """Forget what was typed while the turn was being told, so that a key pressed during the
    account is not taken as the answer to the next prompt. Only a terminal is flushed: piped
    input is an answer written in advance, and is kept."""
    try:
        if not stream.isatty():
            return
        import termios
    except (ImportError, ValueError):  # no termios (Windows), or a closed stream
        return
    with suppress(termios.error, OSError):
        termios.tcflush(stream.fileno(), termios.TCIFLUSH)


def console_asker(console: Console) -> Asker:
    """The asker that reads a line from standard input after printing the prompt on ``console``.

    When standard input is not a terminal (a pipe), the answer is not echoed by a terminal, so it
    is printed after the prompt: the transcript then reads like a session at the keyboard.
    On a terminal, keys typed before the prompt appears are discarded (:func:`discard_typeahead`).
    """
    echo = not sys.stdin.isatty()

    def ask(question: Question) -> str:
        discard_typeahead(sys.stdin)
        answer = console.input(Text(question.text, style="bold"))
        if echo:
            console.print(answer, markup=False, highlight=False)
        return answer

    return ask


@dataclass(frozen=True, slots=True)
class PlaySettings:
    """Everything ``nimmt play`` is told: who plays, how the deal is drawn, how fast it is told."""

    players: int = 4
    bots: tuple[str, ...] = ("greedy",)
    """One kind for every bot seat, or one kind per bot seat (``players - 1`` of them)."""
    name: str = "You"
    seed: int | None = None
    """``None``: a fresh random seed, shown to the person so the game can be played again."""
    delay: float = 0.0
    record: Path | None = None


def bot_kinds_for(players: int, kinds: Sequence[str]) -> tuple[str, ...]:
    """The bot kind of every bot seat: one kind repeated, or exactly one per bot seat."""
    seats = players - 1
    if len(kinds) == 1:
        return tuple(kinds) * seats
    if len(kinds) != seats:
        raise ValueError(
            f"{len(kinds)} bot kinds given for {seats} bot seats: "
            "give one kind for all of them, or one per bot seat"
        )
    return tuple(kinds)


def bot_names(person: str, players: int) -> tuple[str, ...]:
    """Distinct names for the bot seats, none equal to the person's name."""
    taken = person.casefold()
    names = [name for name in BOT_PERSONAS if name.casefold() != taken]
    return tuple(names[: players - 1])


def card_text(card: int) -> Text:
    """A card as ``37·1``: its number and bullheads, styled by the bullhead value."""
    heads = BULLHEADS[card]
    return Text(f"{card}·{heads}", style=CARD_STYLES[heads])


def cards_text(cards: Sequence[int], separator: str = "  ") -> Text:
    return Text(separator).join(card_text(card) for card in cards)


def plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


@dataclass(slots=True)
class Narrator:
    """Tells the events the person's seat may see, card by card, keeping its own copy of the
    rows (built from the events alone) to say how full each row has become.

    ``person`` is the seat told as "you"; ``None`` tells every seat by name (a replay).
    """

    console: Console
    names: tuple[str, ...]
    pause: Callable[[], None]
    person: int | None = PERSON_SEAT
    rows: list[list[int]] = field(default_factory=list)
    taken: RowTaken | None = None
    sheet: list[tuple[int, ...]] = field(default_factory=list)

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
            self.console.print(
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

    def _reveal(self, event: CardsRevealed) -> None:
        order = sorted(range(len(event.cards)), key=lambda seat: event.cards[seat])
        line = Text(f"Turn {event.turn}, cards revealed, lowest first:  ", style="bold")
        line.append(
            Text("  ").join(
                Text.assemble(card_text(event.cards[seat]), f" {self.who(seat)}") for seat in order
            )
        )
        self.console.print()
        self.console.print(line)
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
        self.console.print(line)

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


def score_sheet(
    names: Sequence[str], totals: Sequence[int], rounds: Sequence[Sequence[int]]
) -> Table:
    """The score sheet: one line per player, one column per round, the totals; the lowest
    total is starred and a total above 66 (the end of the game) is marked."""
    table = Table(title="Score sheet", box=box.SIMPLE_HEAVY, title_style="bold")
    table.add_column("Player")
    for number in range(1, len(rounds) + 1):
        table.add_column(f"R{number}", justify="right")
    table.add_column("Total", justify="right", style="bold")
    table.add_column("")
    best = min(totals)
    for seat, name in enumerate(names):
        total = totals[seat]
        if total > GAME_END_THRESHOLD:
            mark = Text("✗ over 66", style="bold red")
        elif total == best:
            mark = Text("★ lowest", style="bold green")
        else:
            mark = Text("")
        # Names go in as Text: a name like "[b]x" must not be read as console markup.
        table.add_row(Text(name), *(str(penalties[seat]) for penalties in rounds), str(total), mark)
    return table


def rows_table(rows: Sequence[Sequence[int]]) -> Table:
    """The four rows: five places each, the sixth place as the warning it is, each row's
    bullheads and card count; a full row is marked (the next card there is the sixth)."""
    table = Table(box=box.SIMPLE, show_edge=False, pad_edge=False, header_style="dim")
    table.add_column("Row", justify="right")
    for place in range(1, ROW_LIMIT + 1):
        table.add_column(str(place), justify="right", min_width=5)
    table.add_column("6th", justify="center")
    table.add_column("Bullheads", justify="right")
    table.add_column("Cards")
    for index, row in enumerate(rows):
        places = [card_text(card) for card in row]
        places += [Text("·", style="dim")] * (ROW_LIMIT - len(row))
        full = len(row) >= ROW_LIMIT
        sixth = Text("takes", style="bold red") if full else Text("·", style="dim")
        heads = total_bullheads(row)
        count = Text(f"{len(row)}/{ROW_LIMIT}")
        if full:
            count.append(" full", style="bold red")
        label = Text(f"{index + 1}", style="bold")
        table.add_row(label, *places, sixth, Text(str(heads), style="bold"), count)
    return table


class TerminalGame:
    """One game: the person in seat 0 answers prompts, the bots decide from their own views.

    ``ask`` gets every :class:`Question`; ``sleep`` paces the account (``delay`` seconds per
    step). Call :meth:`play`; it returns when the game is over and lets :class:`EOFError` and
    :class:`KeyboardInterrupt` from the asker pass, leaving :attr:`game` as it was.
    """

    def __init__(
        self,
        settings: PlaySettings,
        *,
        console: Console,
        ask: Asker,
        sleep: Callable[[float], None] = time.sleep,
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

    # -------------------------------------------------------------- the loop

    def play(self) -> None:
        self._introduce()
        game = self.game
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
                f"{GAME_END_THRESHOLD}.\nCards read number·bullheads: 55·7 is the worst.",
                style="dim",
            )
        )

    def _show_table(self, view: SeatView) -> None:
        self.console.print()
        self.console.print(
            Rule(Text(f"Round {view.round} · turn {view.turn + 1} of {HAND_SIZE}"), style="dim")
        )
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

    # ----------------------------------------------------------- the prompts

    def _ask_card(self, view: SeatView) -> int:
        hand = view.legal_cards()
        question = Question(QuestionKind.CARD, "Your card: ", hand)
        while True:
            answer = self.ask(question).strip()
            if not answer:
                self._explain("Type the number of one of your cards.")
                continue
            try:
                card = int(answer.lstrip("#"))
            except ValueError:
                self._explain(f"{answer!r} is not a card number: type one of your cards' numbers.")
                continue
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
        choices = tuple(range(1, NUM_ROWS + 1))
        question = Question(QuestionKind.ROW, f"Row to take (1-{NUM_ROWS}): ", choices)
        while True:
            answer = self.ask(question).strip()
            if not answer:
                self._explain(f"Type the number of the row you take, 1 to {NUM_ROWS}.")
                continue
            try:
                number = int(answer)
            except ValueError:
                self._explain(f"{answer!r} is not a row number: type 1, 2, 3 or 4.")
                continue
            if number in choices:
                return number - 1
            self._explain(f"There is no row {number}: the rows are numbered 1 to {NUM_ROWS}.")

    def _explain(self, message: str) -> None:
        self.console.print(Text(message, style="yellow"))


class Ending(Enum):
    """How a session in the terminal ended."""

    FINISHED = "finished"
    INPUT_ENDED = "input ended"
    INTERRUPTED = "interrupted"


EXIT_INTERRUPTED = 130
"""The exit status of a program stopped by Ctrl-C (128 + SIGINT), as shells report it."""


def record_meta(session: TerminalGame) -> dict[str, Any]:
    """What a record of a terminal game says beyond the rules: enough to play it again."""
    return {
        "program": "nimmt play",
        "seed": session.seed,
        "person_seat": PERSON_SEAT,
        "bots": list(session.bot_kinds),
    }


def save_record(session: TerminalGame, path: Path) -> None:
    """Write the game (finished or in progress) as a record to ``path``."""
    from nimmt.records import dump_record, to_record

    record = to_record(session.game, list(session.names), record_meta(session))
    path.write_text(dump_record(record), encoding="utf-8")


def run(
    settings: PlaySettings,
    *,
    console: Console,
    err_console: Console,
    ask: Asker | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> int:
    """Play a game, save its record if asked, and return the exit status.

    Ctrl-C (status 130) or the end of input (status 1) stop the game cleanly with one line on
    ``err_console``; the record, if asked for, then holds the game in progress.
    """
    session = TerminalGame(
        settings, console=console, ask=ask or console_asker(console), sleep=sleep
    )
    try:
        session.play()
        ending = Ending.FINISHED
    except KeyboardInterrupt:
        ending = Ending.INTERRUPTED
    except EOFError:
        ending = Ending.INPUT_ENDED
    if ending is not Ending.FINISHED:
        console.print()  # the prompt's line was left open
    note, record_failed = "", False
    if settings.record is not None:
        try:
            save_record(session, settings.record)
            note = f"the record is in {settings.record}"
        except OSError as error:
            note = f"the record could not be written to {settings.record}: {error.strerror}"
            record_failed = True

    def say(line: str) -> None:
        err_console.print(line, markup=False, highlight=False, soft_wrap=True)

    if ending is Ending.INTERRUPTED:
        say(f"Game interrupted; {note}." if note else "Game interrupted.")
        return EXIT_INTERRUPTED
    if ending is Ending.INPUT_ENDED:
        say(f"error: input ended before the game was over{'; ' + note if note else ''}")
        return 1
    if record_failed:
        say(f"error: {note}")
        return 1
    if note:
        console.print(Text(f"The record is in {settings.record}.", style="dim"))
    return 0
