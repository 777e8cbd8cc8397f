"""Program bots (``cmd:COMMAND``) in process: what they are sent, and that they are stopped.

The command line's failures and exit statuses are in tests/cli/test_cli_external_bots.py; here
the requests a program receives are read back from its log and checked against the game.
"""

from __future__ import annotations

import json
import random
import shlex
import sys
import uuid
from pathlib import Path
from typing import Any

import psutil  # type: ignore[import-untyped]  # no stubs among the dependencies
import pytest

from nimmt.arena import play_deal
from nimmt.bots import UnknownBotError, make_bot
from nimmt.bots.external import ProgramBot, ProgramBotError, ProgramScope, view_to_json
from nimmt.engine import Game, draw_deal

FAKE_BOT = Path(__file__).parent / "programs" / "fake_bot.py"
VIEW_KEYS = {
    "seat",
    "players",
    "round",
    "turn",
    "hand",
    "rows",
    "played",
    "revealed",
    "penalties",
    "totals",
    "round_rows",
    "seen",
}


def command(mode: str, *extra: str) -> str:
    words = [sys.executable, str(FAKE_BOT), mode, uuid.uuid4().hex, *extra]
    return "cmd:" + shlex.join(words)


def our_children() -> list[psutil.Process]:
    """The bot programs these tests started that still run (other tests in the same worker may
    leave processes of their own, such as a server or a pool, which are none of our business)."""
    programs = []
    for child in psutil.Process().children(recursive=True):
        try:
            if child.status() != psutil.STATUS_ZOMBIE and str(FAKE_BOT) in child.cmdline():
                programs.append(child)
        except psutil.NoSuchProcess:
            continue
    return programs


def cards_sent(request: dict[str, Any]) -> set[int]:
    """Every card in a request (the other fields of a view are seats, counts and scores)."""
    view = request["view"]
    cards = set(view["hand"]) | set(view["revealed"] or ())
    cards |= set(view["round_rows"]) | set(view["seen"])
    for line in (*view["rows"], *view["played"]):
        cards.update(line)
    if request["type"] == "row":
        cards.add(request["card"])
    return cards


def test_a_program_sees_only_its_own_seat(tmp_path: Path) -> None:
    log = tmp_path / "requests.jsonl"
    rows, hands = draw_deal(random.Random(12), 4)
    with ProgramBot(command("good", str(log))) as program:
        bots = [make_bot("greedy", 1), program, make_bot("random", 2), make_bot("greedy", 3)]
        play = play_deal(bots, rows, hands)
    requests = [json.loads(line) for line in log.read_text().splitlines()]
    assert [request["id"] for request in requests] == list(range(1, len(requests) + 1))
    assert requests[-1] == {"type": "bye", "id": len(requests)}
    decisions = requests[:-1]
    turns = play.game.history[-1].turns
    kinds = [request["type"] for request in decisions]
    assert kinds.count("card") == 10
    assert kinds.count("row") >= 1  # this deal asks the lowest-card program for a row
    assert kinds.count("row") == sum(
        1 for turn in turns if turn.row is not None and min(turn.cards) == turn.cards[1]
    )
    for request in decisions:
        view = request["view"]
        assert set(view) == VIEW_KEYS
        assert (view["seat"], view["players"], view["round"]) == (1, 4, 1)
        done = view["turn"] - 1
        assert view["played"] == [list(turn.cards) for turn in turns[:done]]
        # In a row request this turn's card is revealed, no longer in the hand.
        gone = turns[: done + 1] if request["type"] == "row" else turns[:done]
        assert view["hand"] == sorted(set(hands[1]) - {turn.cards[1] for turn in gone})
        assert view["totals"] == [0, 0, 0, 0]
        assert view["round_rows"] == [row[0] for row in rows]
        # Seen: the hand as dealt, the starting rows and every card revealed so far.
        revealed = {card for turn in turns[:done] for card in turn.cards}
        if request["type"] == "row":
            revealed |= set(turns[done].cards)
        assert view["seen"] == sorted(set(hands[1]) | set(view["round_rows"]) | revealed)
        shown_now = set(view["revealed"] or ())
        if request["type"] == "card":
            assert view["revealed"] is None and "card" not in request
        else:
            assert view["revealed"] == list(turns[done].cards)
            assert request["card"] == turns[done].cards[1] == min(turns[done].cards)
        # No card another seat still holds appears anywhere in what the program was sent.
        hidden = {
            card
            for seat in (0, 2, 3)
            for card in set(hands[seat]) - {turn.cards[seat] for turn in turns[:done]}
            if card not in shown_now
        }
        assert cards_sent(request).isdisjoint(hidden)
    assert our_children() == []


def test_view_to_json_counts_turns_from_one_and_shows_no_reveal_while_choosing() -> None:
    game = Game(3)
    game.deal(5)
    view = view_to_json(game.view(2))
    assert (view["turn"], view["revealed"], view["seat"]) == (1, None, 2)
    assert len(view["hand"]) == 10 and view["played"] == ()
    assert view["penalties"] == (0, 0, 0)


def test_make_bot_starts_no_program_until_the_first_decision() -> None:
    bot = make_bot(command("crash_at_start"))
    assert bot.name.startswith("cmd:") and our_children() == []
    with pytest.raises(UnknownBotError, match="no program 'surely-not-a-program'"):
        make_bot("cmd:surely-not-a-program")
    with pytest.raises(UnknownBotError, match="needs a command"):
        make_bot("cmd:   ")


def test_a_failure_names_the_bot_and_seat_and_leaves_no_process() -> None:
    name = command("hang_with_child")
    game = Game(2)
    game.deal(3)
    with ProgramBot(name, move_time=0.5) as bot, pytest.raises(ProgramBotError) as caught:
        bot.choose_card(game.view(1))
    assert (caught.value.bot, caught.value.seat) == (name, 1)
    what = "did not answer a card request within 0.5 seconds"
    assert (caught.value.what, str(caught.value)) == (what, f"bot {name} (seat 1) {what}")
    assert our_children() == []


def test_a_scope_gives_its_limit_and_stops_every_program_started_in_it() -> None:
    game = Game(3)
    game.deal(4)
    with ProgramScope(move_time=7.5):
        bots: list[Any] = [make_bot(command("ignore_bye")) for _ in range(2)]
        assert [bot.move_time for bot in bots] == [7.5, 7.5]
        for seat, bot in enumerate(bots, start=1):
            assert bot.choose_card(game.view(seat)) == min(game.view(seat).hand)
        assert len(our_children()) == 2
    assert our_children() == []


def test_a_scope_left_by_an_exception_kills_its_programs_at_once() -> None:
    game = Game(2)
    game.deal(4)
    with pytest.raises(KeyboardInterrupt), ProgramScope():
        make_bot(command("good")).choose_card(game.view(0))
        raise KeyboardInterrupt
    assert our_children() == []


def first_card(mode: str, move_time: float = 10.0) -> int:
    game = Game(2)
    game.deal(6)
    with ProgramBot(command(mode), move_time=move_time) as bot:
        return bot.choose_card(game.view(0))


def test_an_answer_may_echo_its_request_id() -> None:
    game = Game(2)
    game.deal(6)
    with ProgramBot(command("echo_id")) as bot:
        for _ in range(3):  # three requests, ids 1, 2 and 3, each answer echoing its own
            assert bot.choose_card(game.view(0)) == min(game.view(0).hand)
    assert our_children() == []


def test_a_late_extra_line_is_not_taken_for_the_next_answer() -> None:
    game = Game(2)
    game.deal(6)
    with ProgramBot(command("late_extra")) as bot:
        bot.choose_card(game.view(0))
        with pytest.raises(ProgramBotError) as caught:
            bot.choose_card(game.view(0))
    assert caught.value.what.startswith('wrote a line nobody asked for: \'{"card": ')
    assert "has id 2" in caught.value.what
    assert our_children() == []


def test_a_start_up_banner_is_called_what_it_is() -> None:
    with pytest.raises(ProgramBotError) as caught:
        first_card("banner")
    what = caught.value.what
    assert what.startswith("answered 'fake bot 1.0 ready' to a card request, which is not JSON")
    assert "a start-up banner or debugging output belongs on standard error" in what
    game = Game(2)
    game.deal(6)
    with ProgramBot(command("garbage_later"), move_time=10) as bot:
        bot.choose_card(game.view(0))  # later lines get no hint: the program has answered
        with pytest.raises(ProgramBotError) as caught:
            bot.choose_card(game.view(0))
    assert "which is not JSON" in caught.value.what and "banner" not in caught.value.what
    assert our_children() == []
