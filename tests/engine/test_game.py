"""The game's flow and its refusals: each illegal action raises a precise error, changes nothing."""

from __future__ import annotations

import random
from typing import Any

import pytest
from tests.engine.engine_helpers import ROWS, deal_or_choose_row, example_game

from nimmt.engine import (
    CardAlreadyChosenError,
    CardChosen,
    CardNotInHandError,
    CardsRevealed,
    ChoiceWithdrawn,
    Game,
    GameOverError,
    HandDealt,
    InvalidDealError,
    NoCardChosenError,
    NoRowChoicePendingError,
    NotYourDecisionError,
    Phase,
    PlayerCountError,
    RowChoiceMissingError,
    RowIndexError,
    RuleError,
    SeatError,
    WrongPhaseError,
)


def snapshot(game: Game) -> Any:
    """Everything observable about a game, to compare before and after a refused action."""
    views = [game.view(seat) for seat in range(game.players)] + [game.view(None)]
    history = [(log.rows, log.hands, list(log.turns), log.penalties) for log in game.history]
    return views, history, game.events, game.phase, game.round_state().hands


def assert_refused(game: Game, error: type[RuleError], action: Any) -> None:
    before = snapshot(game)
    with pytest.raises(error):
        action()
    assert snapshot(game) == before


@pytest.mark.parametrize("players", [0, 1, 11, -2])
def test_wrong_player_count(players: int) -> None:
    with pytest.raises(PlayerCountError, match="2 to 10 players"):
        Game(players)


@pytest.mark.parametrize("players", ["4", 4.0, True, None])
def test_player_count_must_be_a_whole_number(players: Any) -> None:
    with pytest.raises(PlayerCountError):
        Game(players)


def test_card_not_in_hand() -> None:
    game = example_game()
    assert_refused(game, CardNotInHandError, lambda: game.play(0, 15))
    assert_refused(game, CardNotInHandError, lambda: game.play(0, 105))
    assert_refused(game, CardNotInHandError, lambda: game.play(0, "14"))  # type: ignore[arg-type]
    assert_refused(game, CardNotInHandError, lambda: game.play(0, True))  # seat 0 holds 1
    assert_refused(game, CardNotInHandError, lambda: game.play_turn([True, 15, 44, 61]))


def test_second_card_in_a_turn() -> None:
    game = example_game()
    game.play(0, 14)
    assert_refused(game, CardAlreadyChosenError, lambda: game.play(0, 21))


def test_a_choice_can_be_exchanged_until_all_have_chosen() -> None:
    game = example_game()
    game.play(0, 14)
    assert_refused(game, CardAlreadyChosenError, lambda: game.play(0, 14, replace=True))
    assert_refused(game, CardNotInHandError, lambda: game.play(0, 15, replace=True))
    game.play(0, 21, replace=True)
    assert game.view(0).chosen_card == 21
    assert game.events[-2:] == (ChoiceWithdrawn(0), CardChosen(0))


def test_a_choice_can_be_taken_back_until_all_have_chosen() -> None:
    game = example_game()
    game.play(0, 14)
    game.retract(0)
    assert_refused(game, NoCardChosenError, lambda: game.retract(0))
    game.play(0, 21)
    for seat, card in [(1, 15), (2, 44), (3, 61)]:
        game.play(seat, card)
    assert game.rows == ((12, 15, 21), (37,), (43, 44), (58, 61))


def test_nothing_is_revealed_until_all_have_chosen() -> None:
    game = example_game()
    game.play(2, 44)
    game.play(0, 14)
    game.play(1, 15)
    for seat in (1, 3):
        view = game.view(seat)
        assert 44 not in view.seen_cards() and 14 not in view.seen_cards()
        assert view.has_chosen == (True, True, True, False)
        assert view.revealed is None
    assert game.rows == ((12,), (37,), (43,), (58,))
    for event in game.events_for(3):
        assert not isinstance(event, CardsRevealed)
        assert not (isinstance(event, HandDealt) and event.seat != 3)
    game.play(3, 61)
    revealed = [event for event in game.events_for(3) if isinstance(event, CardsRevealed)]
    assert revealed == [CardsRevealed(1, 1, (14, 15, 44, 61))]


def test_row_choice_when_none_is_pending() -> None:
    game = example_game()
    assert_refused(game, NoRowChoicePendingError, lambda: game.choose_row(0, 1))


def _game_waiting_for_a_row() -> Game:
    game = example_game()
    game.play_turn([14, 15, 44, 61])
    game.play_turn([21, 26, 30, 36])
    for seat, card in enumerate([3, 9, 68, 83]):
        game.play(seat, card)
    return game


def test_row_choice_by_the_wrong_player() -> None:
    game = _game_waiting_for_a_row()
    assert game.phase is Phase.CHOOSING_ROW
    assert_refused(game, NotYourDecisionError, lambda: game.choose_row(1, 1))


@pytest.mark.parametrize("row", [-1, 4, 7, "1", None, True])
def test_row_index_out_of_range(row: Any) -> None:
    game = _game_waiting_for_a_row()
    assert_refused(game, RowIndexError, lambda: game.choose_row(0, row))


def test_a_card_while_a_row_is_awaited() -> None:
    game = _game_waiting_for_a_row()
    assert_refused(game, WrongPhaseError, lambda: game.play(0, 1))
    assert_refused(game, WrongPhaseError, lambda: game.play_turn([1, 100, 90, 80]))


def test_a_waiting_row_choice_reveals_the_turn_to_everyone() -> None:
    game = _game_waiting_for_a_row()
    for seat in (None, 0, 1, 2, 3):
        view = game.view(seat)
        assert view.revealed == (3, 9, 68, 83)
        assert view.pending_row_choice is not None
        assert view.pending_row_choice.seat == 0
        assert view.must_choose_row == (seat == 0)
        assert view.played == ((14, 15, 44, 61), (21, 26, 30, 36))


@pytest.mark.parametrize("seat", [-1, 4, "0", None])
def test_no_such_seat(seat: Any) -> None:
    game = example_game()
    assert_refused(game, SeatError, lambda: game.play(seat, 14))


def test_a_joint_turn_needs_the_row_exactly_when_a_card_is_too_low() -> None:
    game = example_game()
    assert_refused(game, NoRowChoicePendingError, lambda: game.play_turn([14, 15, 44, 61], 1))
    game.play_turn([14, 15, 44, 61])
    game.play_turn([21, 26, 30, 36])
    assert_refused(game, RowChoiceMissingError, lambda: game.play_turn([3, 9, 68, 83]))
    assert_refused(game, RowIndexError, lambda: game.play_turn([3, 9, 68, 83], 4))


def test_deal_only_between_rounds_and_only_legal_deals() -> None:
    game = example_game()
    assert_refused(game, WrongPhaseError, lambda: game.deal(1))
    fresh = Game(2)
    with pytest.raises(InvalidDealError, match="more than once"):
        fresh.apply_deal(ROWS, [list(range(1, 11)), list(range(10, 20))])
    with pytest.raises(InvalidDealError, match="4 rows"):
        fresh.apply_deal(ROWS[:3], [list(range(1, 11)), list(range(60, 70))])
    with pytest.raises(InvalidDealError, match="instead of 10"):
        fresh.apply_deal(ROWS, [list(range(1, 10)), list(range(60, 70))])
    with pytest.raises(InvalidDealError, match="no card"):
        fresh.apply_deal(ROWS, [list(range(1, 11)), list(range(96, 106))])
    assert fresh.phase is Phase.DEALING and fresh.history == []


def _play_until_over(game: Game, rng: random.Random) -> None:
    while game.phase is not Phase.GAME_OVER:
        if not deal_or_choose_row(game, rng):
            for seat in game.waiting_for():
                game.play(seat, rng.choice(game.legal_cards(seat)))


def test_every_action_after_the_game_ended() -> None:
    game = Game(3)
    _play_until_over(game, random.Random(5))
    outcome = game.outcome
    assert outcome is not None and max(outcome.totals) > 66
    assert_refused(game, GameOverError, lambda: game.play(0, 1))
    assert_refused(game, GameOverError, lambda: game.choose_row(0, 1))
    assert_refused(game, GameOverError, lambda: game.deal(1))
    assert_refused(game, GameOverError, lambda: game.retract(0))
    assert_refused(game, GameOverError, lambda: game.play_turn([1, 2, 3]))


def test_events_tell_who_has_chosen_but_never_the_card() -> None:
    game = example_game()
    game.play(1, 15)
    last = game.events[-1]
    assert last == CardChosen(1)
    assert not hasattr(last, "card")


def test_events_after_a_count_are_the_tail_of_all_events() -> None:
    game = example_game()
    seen = game.event_count
    game.play(1, 15)
    game.play(0, 14)
    assert game.events_after(seen) == tuple(game.events[seen:])
    assert game.events_after(seen)[0] == CardChosen(1)
    assert game.events_after(game.event_count) == ()
