"""``Game.from_position``: a game set up mid-round plays on exactly as the dealt game would."""

from __future__ import annotations

import doctest
import random
from pathlib import Path
from typing import Any

import pytest

from nimmt.engine import (
    HAND_SIZE,
    CardChosen,
    Game,
    InvalidDealError,
    InvalidPositionError,
    Phase,
    PlayerCountError,
    RowChoiceRequired,
)

BY_CARD = (CardChosen, RowChoiceRequired)


def random_turn(game: Game, rng: random.Random) -> tuple[list[int], int | None]:
    cards = [rng.choice(game.legal_cards(seat)) for seat in range(game.players)]
    row = rng.randrange(4) if game.round_state().needs_row_choice(cards) else None
    return cards, row


@pytest.mark.parametrize("seed", range(40))
def test_a_position_plays_on_like_the_dealt_game(seed: int) -> None:
    rng = random.Random(seed)
    players = rng.randint(2, 10)
    dealt = Game(players)
    dealt.deal(rng)
    played: list[list[int]] = []
    for _ in range(rng.randrange(HAND_SIZE)):
        cards, row = random_turn(dealt, rng)
        dealt.play_turn(cards, row)
        played.append(cards)
    state = dealt.round_state()
    position = Game.from_position(
        state.rows,
        state.hands,
        totals=dealt.totals,
        round=dealt.round,
        played=played,
        penalties=state.penalties,
    )
    assert position.rows == dealt.rows
    assert position.turn == dealt.turn
    assert position.round == dealt.round
    assert position.penalties == dealt.penalties
    assert [position.hand(seat) for seat in range(players)] == [
        dealt.hand(seat) for seat in range(players)
    ]
    since = dealt.event_count
    while dealt.phase is Phase.CHOOSING_CARDS:
        cards, row = random_turn(dealt, rng)
        dealt.play_turn(cards, row)
        # the other game is driven card by card, as a third party would
        for seat, card in enumerate(cards):
            position.play(seat, card)
        if row is not None:
            assert isinstance(position.events[-1], RowChoiceRequired)
            position.choose_row(position.events[-1].seat, row)
        assert position.rows == dealt.rows
        assert position.penalties == dealt.penalties
    assert position.phase is dealt.phase
    assert position.totals == dealt.totals
    assert position.history[-1].penalties == dealt.history[-1].penalties
    # the same events from the position on, but for what only a turn played card by card tells
    assert [e for e in position.events if not isinstance(e, BY_CARD)] == [
        e for e in dealt.events[since:] if not isinstance(e, BY_CARD)
    ]


def test_the_docs_example_position() -> None:
    game = Game.from_position(
        rows=[[12, 14], [37], [43, 44, 50, 51, 52], [58]],
        hands=[[3, 60], [53, 70]],
        totals=[10, 20],
        round=3,
    )
    assert (game.round, game.turn, game.phase) == (3, 8, Phase.CHOOSING_CARDS)
    game.play(1, 53)
    game.play(0, 3)
    game.choose_row(0, 0)
    assert game.rows == ((3,), (37,), (53,), (58,))
    assert game.penalties == (2, 11)


ROWS = [[12], [37], [43], [58]]
HANDS = [[1, 2], [3, 4]]

INVALID: list[tuple[str, dict[str, Any], type[Exception], str]] = [
    ("one-player", {"hands": [[1]]}, PlayerCountError, "2 to 10 players"),
    ("three-rows", {"rows": ROWS[:3]}, InvalidPositionError, "3 rows given: the table has 4"),
    ("empty-row", {"rows": [[], [37], [43], [58]]}, InvalidPositionError, "row 0 has 0 cards"),
    (
        "six-card-row",
        {"rows": [[5, 6, 7, 8, 9, 10], [37], [43], [58]]},
        InvalidPositionError,
        "row 0 has 6 cards: a row holds 1 to 5",
    ),
    (
        "falling-row",
        {"rows": [[12, 11], [37], [43], [58]]},
        InvalidPositionError,
        "row 0 is [12, 11]: a row's cards rise",
    ),
    (
        "no-card",
        {"rows": [[12], [37], [43], [105]]},
        InvalidPositionError,
        "row 3: there is no card 105",
    ),
    (
        "bool-card",
        {"hands": [[True, 2], [3, 4]]},
        InvalidPositionError,
        "seat 0's hand: True is not a card",
    ),
    (
        "uneven-hands",
        {"hands": [[1, 2], [3]]},
        InvalidPositionError,
        "seat 1 holds 1 cards and seat 0 2",
    ),
    ("empty-hands", {"hands": [[], []]}, InvalidPositionError, "hands of 0 cards"),
    (
        "big-hands",
        {"hands": [list(range(60, 71)), list(range(71, 82))]},
        InvalidPositionError,
        "hands of 11 cards",
    ),
    (
        "repeat",
        {"hands": [[1, 2], [3, 37]]},
        InvalidPositionError,
        "card 37 appears more than once",
    ),
    (
        "repeat-played",
        {"played": [[5, 1]]},
        InvalidPositionError,
        "card 1 appears more than once",
    ),
    (
        "too-many-turns",
        {"played": [[60 + turn, 80 + turn] for turn in range(9)]},
        InvalidPositionError,
        "9 turns played and 2 cards in each hand: a round has 10 turns",
    ),
    (
        "row-card-never-played",
        {
            "rows": [[12, 20], [37], [43], [58]],
            "hands": [[1], [3]],
            "played": [[60 + turn, 80 + turn] for turn in range(9)],
        },
        InvalidPositionError,
        "row 0: card 20 was not played this round, so it can only start its row",
    ),
    (
        "short-turn",
        {"played": [[5]]},
        InvalidPositionError,
        "played turn 1 has 1 cards for 2 players",
    ),
    ("totals-count", {"totals": [1]}, InvalidPositionError, "1 totals given for 2 players"),
    ("negative-total", {"totals": [0, -1]}, InvalidPositionError, "totals: seat 1 has -1"),
    ("game-over", {"totals": [67, 0]}, InvalidPositionError, "a total of 67 is above 66"),
    ("round-zero", {"round": 0}, InvalidPositionError, "the round must be 1 or more, not 0"),
    ("penalties", {"penalties": [0, 1.5]}, InvalidPositionError, "penalties: seat 1 has 1.5"),
]


@pytest.mark.parametrize(
    ("changes", "error", "message"),
    [case[1:] for case in INVALID],
    ids=[case[0] for case in INVALID],
)
def test_an_invalid_position_is_refused(
    changes: dict[str, Any], error: type[Exception], message: str
) -> None:
    arguments: dict[str, Any] = {"rows": ROWS, "hands": HANDS, **changes}
    with pytest.raises(error, match=None) as caught:
        Game.from_position(**arguments)
    assert message in str(caught.value)


def test_a_position_error_is_a_deal_error() -> None:
    assert issubclass(InvalidPositionError, InvalidDealError)


def test_the_docs_examples_run() -> None:
    path = Path(__file__).parents[2] / "docs" / "engine.md"
    result = doctest.testfile(str(path), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 8
    assert result.failed == 0


def test_a_game_from_a_position_has_no_record() -> None:
    from nimmt.records import to_record

    game = Game.from_position(rows=ROWS, hands=HANDS)
    with pytest.raises(ValueError, match="set up from a position has no complete record"):
        to_record(game, ["a", "b"])


def test_a_seat_has_seen_the_cards_on_the_rows_of_a_position() -> None:
    rows = [[12, 14, 15], [37], [43, 44], [58, 61]]
    game = Game.from_position(rows=rows, hands=[[1, 70], [2, 80]])
    view = game.view(0)
    on_rows = {card for row in rows for card in row}
    assert on_rows <= view.seen_cards()
    assert not on_rows & set(view.unseen_cards())
    assert 80 in view.unseen_cards()  # the other seat's hand stays unseen
