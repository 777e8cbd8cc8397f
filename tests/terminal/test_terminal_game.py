"""`nimmt play`'s game loop played in-process: scripted answers through the injected asker.

The asker sees each prompt's legal answers (:class:`nimmt.terminal.Question`), as a person sees
the hand and the rows; the tests check what reaches the screen and what reaches the engine.
"""

from __future__ import annotations

import io
import os
import random
import re
import select
from collections.abc import Callable
from pathlib import Path

import pytest
from rich.console import Console

from nimmt.engine import Phase, SeatView, total_bullheads
from nimmt.records import replay_record
from nimmt.terminal import (
    EXIT_INTERRUPTED,
    PERSON_SEAT,
    PlaySettings,
    Question,
    QuestionKind,
    TerminalGame,
    discard_typeahead,
    run,
)


def make_console() -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, width=110, color_system=None, force_terminal=False), out


def play_scripted(
    settings: PlaySettings, ask: Callable[[Question], str]
) -> tuple[TerminalGame, str]:
    console, out = make_console()
    session = TerminalGame(settings, console=console, ask=ask)
    session.play()
    return session, out.getvalue()


def random_asker(seed: int) -> Callable[[Question], str]:
    rng = random.Random(seed)
    return lambda question: str(rng.choice(question.choices))


def test_a_whole_game_is_played_to_the_end_through_the_prompts() -> None:
    asked: list[Question] = []
    choose = random_asker(5)

    def ask(question: Question) -> str:
        asked.append(question)
        return choose(question)

    session, text = play_scripted(PlaySettings(players=4, bots=("greedy",), seed=11), ask)
    game = session.game
    assert game.phase is Phase.GAME_OVER
    outcome = game.outcome
    assert outcome is not None and max(outcome.totals) > 66
    # One card prompt per turn of every round: the person was asked for every card played.
    card_prompts = [q for q in asked if q.kind is QuestionKind.CARD]
    assert len(card_prompts) == 10 * len(game.history)
    assert text.count("Score sheet") == len(game.history)
    best = min(outcome.totals)
    winners = [session.names[seat] for seat in outcome.winners]
    assert all(name in text.rsplit("Game over", 1)[1] for name in winners)
    assert f"with {best} bullhead" in text


def test_card_prompt_offers_the_persons_hand_and_the_screen_shows_it_sorted() -> None:
    def ask(question: Question) -> str:
        if question.kind is QuestionKind.CARD:
            assert list(question.choices) == sorted(question.choices)
            assert len(question.choices) == 10 - session.game.turn
            assert question.choices == session.game.hand(PERSON_SEAT)
        return str(question.choices[-1])

    console, out = make_console()
    session = TerminalGame(PlaySettings(players=3, seed=2), console=console, ask=ask)
    session.play()
    first_hand = session.game.history[0].hands[PERSON_SEAT]
    shown = re.search(r"Your hand:(.*)", out.getvalue())
    assert shown is not None
    assert [int(card) for card in re.findall(r"(\d+)·\d", shown.group(1))] == sorted(first_hand)


def test_nothing_of_a_bots_hand_is_shown_before_it_is_revealed() -> None:
    console, out = make_console()
    screens: list[str] = []

    def ask(question: Question) -> str:
        screens.append(out.getvalue())
        return str(question.choices[0])

    session = TerminalGame(PlaySettings(players=5, seed=8), console=console, ask=ask)
    session.play()
    first_screen = screens[0]
    log = session.game.history[0]
    for seat in range(1, 5):
        for card in log.hands[seat]:
            assert not re.search(rf"(?<!\d){card}·", first_screen), card


def test_bots_decide_from_their_own_view_only() -> None:
    console, _ = make_console()
    session = TerminalGame(PlaySettings(players=4, seed=4), console=console, ask=random_asker(1))
    seen: list[tuple[int, int | None]] = []
    for seat, bot in session.bots.items():
        choose_card, choose_row = bot.choose_card, bot.choose_row

        def spy_card(
            view: SeatView, seat: int = seat, inner: Callable[[SeatView], int] = choose_card
        ) -> int:
            seen.append((seat, view.seat))
            assert set(view.hand) == set(session.game.hand(seat))
            return inner(view)

        def spy_row(
            view: SeatView, seat: int = seat, inner: Callable[[SeatView], int] = choose_row
        ) -> int:
            seen.append((seat, view.seat))
            return inner(view)

        bot.choose_card = spy_card  # type: ignore[method-assign]
        bot.choose_row = spy_row  # type: ignore[method-assign]
    session.play()
    assert seen and all(seat == view_seat for seat, view_seat in seen)


def test_bad_input_is_explained_and_asked_again_without_changing_anything() -> None:
    wrong = iter(["", "abc", "105", "1_7"])
    asked: list[Question] = []

    def ask(question: Question) -> str:
        asked.append(question)
        if len(asked) <= 5:
            # Nothing is chosen while the person keeps giving wrong answers.
            assert session.game.view(PERSON_SEAT).chosen_card is None
            assert session.game.turn == 0
        if len(asked) == 5:
            not_in_hand = next(c for c in range(1, 105) if c not in question.choices)
            return str(not_in_hand)
        if len(asked) < 5:
            return next(wrong)
        return str(question.choices[0])

    console, out = make_console()
    session = TerminalGame(PlaySettings(players=3, seed=6), console=console, ask=ask)
    session.play()
    text = out.getvalue()
    assert asked[0] == asked[4]  # the same prompt, again and again
    assert "Type the number of one of your cards." in text
    assert "'abc' is not a card number" in text
    assert "105 is not in your hand" in text
    assert "'1_7' is not a card number" in text  # int() would have read 17
    assert session.game.history[0].turns[0].cards[PERSON_SEAT] == asked[0].choices[0]


class ExpensiveRowPlayer:
    """Plays its lowest card (to meet row choices often) and answers a row prompt first with
    wrong rows, then with the *most* expensive row, which no automatic choice would take."""

    def __init__(self) -> None:
        self.session: TerminalGame | None = None
        self.row_prompts = 0
        self.chosen: list[tuple[int, int, int]] = []

    def __call__(self, question: Question) -> str:
        if question.kind is QuestionKind.CARD:
            return str(question.choices[0])
        assert self.session is not None
        game = self.session.game
        view = game.view(PERSON_SEAT)
        pending = view.pending_row_choice
        assert pending is not None and pending.seat == PERSON_SEAT
        assert pending.card < min(row[-1] for row in view.rows)
        assert question.choices == (1, 2, 3, 4)
        self.row_prompts += 1
        if self.row_prompts == 1:
            return "7"
        if self.row_prompts == 2:
            return "row"
        costs = [total_bullheads(row) for row in view.rows]
        row = max(range(4), key=lambda index: (costs[index], index))
        self.chosen.append((game.round, game.turn, row))
        return str(row + 1)


def test_row_prompt_appears_for_a_too_low_card_and_the_chosen_row_is_taken() -> None:
    player = ExpensiveRowPlayer()
    console, out = make_console()
    session = TerminalGame(PlaySettings(players=4, seed=3), console=console, ask=player)
    player.session = session
    session.play()
    text = out.getvalue()
    assert player.chosen, "the lowest-card player never had to choose a row"
    assert "There is no row 7: the rows are numbered 1 to 4." in text
    assert "'row' is not a row number" in text
    for round_number, turn_index, row in player.chosen:
        assert session.game.history[round_number - 1].turns[turn_index].row == row
    assert "you choose the row you take" in text
    assert "You take row" in text


def test_same_seed_same_game_and_another_seed_another() -> None:
    def transcript(seed: int) -> str:
        return play_scripted(PlaySettings(players=3, seed=seed), random_asker(0))[1]

    assert transcript(9) == transcript(9)
    assert transcript(9) != transcript(10)


def test_the_account_is_paced_by_the_delay() -> None:
    pauses: list[float] = []
    console, _ = make_console()
    session = TerminalGame(
        PlaySettings(players=3, seed=1, delay=0.25),
        console=console,
        ask=random_asker(2),
        sleep=pauses.append,
    )
    session.play()
    turns = sum(len(log.turns) for log in session.game.history)
    # A pause after each reveal and before each of the three cards is told.
    assert pauses == [0.25] * (turns * 4)
    no_pauses: list[float] = []
    TerminalGame(
        PlaySettings(players=3, seed=1),
        console=console,
        ask=random_asker(2),
        sleep=no_pauses.append,
    ).play()
    assert no_pauses == []


def run_with(settings: PlaySettings, ask: Callable[[Question], str]) -> tuple[int, str, str]:
    console, out = make_console()
    err_console, err = make_console()
    status = run(settings, console=console, err_console=err_console, ask=ask)
    return status, out.getvalue(), err.getvalue()


def test_record_of_a_finished_game_replays_to_the_same_totals(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    status, text, err = run_with(
        PlaySettings(players=4, seed=12, record=path, name="Zoe"), random_asker(3)
    )
    assert (status, err) == (0, "")
    assert f"The record is in {path}" in text
    replayed = replay_record(path.read_text(encoding="utf-8"))
    assert replayed.finished
    assert replayed.players[0] == "Zoe" and len(set(replayed.players)) == 4
    # The totals on the last score sheet shown are the replayed record's totals.
    sheet = text.rsplit("Score sheet", 1)[1].splitlines()
    for seat, name in enumerate(replayed.players):
        line = next(line for line in sheet if line.strip().startswith(name))
        numbers = re.findall(r"\d+", re.split("[✗★]", line)[0])
        assert numbers[-1] == str(replayed.totals[seat])


def interrupt_after(count: int, error: type[BaseException]) -> Callable[[Question], str]:
    asked = [0]
    choose = random_asker(4)

    def ask(question: Question) -> str:
        asked[0] += 1
        if asked[0] > count:
            raise error
        return choose(question)

    return ask


def test_ctrl_c_ends_cleanly_and_saves_the_game_in_progress(tmp_path: Path) -> None:
    path = tmp_path / "partial.json"
    status, _, err = run_with(
        PlaySettings(players=3, seed=5, record=path), interrupt_after(3, KeyboardInterrupt)
    )
    assert status == EXIT_INTERRUPTED == 130
    assert err.strip() == f"Game interrupted; the record is in {path}."
    replayed = replay_record(path.read_text(encoding="utf-8"))
    assert not replayed.finished
    assert len(replayed.rounds) == 1 and not replayed.rounds[0].complete


def test_ctrl_c_at_a_row_prompt_saves_a_record_without_the_undecided_turn(
    tmp_path: Path,
) -> None:
    path = tmp_path / "partial.json"

    def ask(question: Question) -> str:
        if question.kind is QuestionKind.ROW:
            raise KeyboardInterrupt
        return str(question.choices[0])

    status, _, err = run_with(PlaySettings(players=4, seed=3, record=path), ask)
    assert status == 130 and err.count("\n") == 1
    replay_record(path.read_text(encoding="utf-8"))  # valid: raises RecordError otherwise


def test_end_of_input_ends_with_one_error_line(tmp_path: Path) -> None:
    status, _, err = run_with(PlaySettings(players=3, seed=5), interrupt_after(0, EOFError))
    assert status == 1
    assert err == "error: input ended before the game was over\n"


@pytest.mark.parametrize("kinds", [("random",), ("random", "greedy", "random")])
def test_bot_kinds_one_for_all_or_one_per_seat(kinds: tuple[str, ...]) -> None:
    console, _ = make_console()
    session = TerminalGame(
        PlaySettings(players=4, bots=kinds, seed=1), console=console, ask=random_asker(0)
    )
    expected = kinds * 3 if len(kinds) == 1 else kinds
    assert tuple(bot.name for bot in session.bots.values()) == expected


def test_a_name_is_shown_as_typed_never_read_as_markup() -> None:
    session, text = play_scripted(
        PlaySettings(players=2, seed=1, name="[red]Zed[/]"), random_asker(0)
    )
    assert "[red]Zed[/] against Ada" in text
    rounds = len(session.game.history)
    # Once in the introduction, on the scores line of every turn, on every score sheet.
    assert text.count("[red]Zed[/]") == 1 + 10 * rounds + rounds


def test_typeahead_is_discarded_on_a_terminal_only() -> None:
    """Keys typed during the account are dropped before a prompt; piped answers are kept."""

    def readable(fd: int) -> bool:
        return bool(select.select([fd], [], [], 0.2)[0])

    master, slave = os.openpty()
    with open(slave, encoding="utf-8", closefd=True) as terminal:
        os.write(master, b"42\n")
        assert readable(slave)
        discard_typeahead(terminal)
        assert not readable(slave)
    os.close(master)
    read_end, write_end = os.pipe()
    with open(read_end, encoding="utf-8") as pipe:
        os.write(write_end, b"42\n")
        os.close(write_end)
        discard_typeahead(pipe)
        assert pipe.readline() == "42\n"
