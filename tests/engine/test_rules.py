"""Every rule of a turn as a data-driven scenario: rows, cards, row choice -> rows, penalties.

Each scenario sets up the rows (as they may stand mid-round), gives each seat one card, and says
what the rows and each seat's penalty must be after the turn. They run through the resolution core
and, where the rows are one card each, through :class:`Game` as well.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from nimmt.engine import Game, Phase, RowTaken
from nimmt.engine.core import RoundState


@dataclass(frozen=True)
class Scenario:
    name: str
    rows: list[list[int]]
    cards: list[int]
    expected_rows: list[list[int]]
    expected_penalties: list[int]
    row_choice: int | None = None


SCENARIOS = [
    Scenario(
        "worked example, turn 1: each card after the next lower row end",
        rows=[[12], [37], [43], [58]],
        cards=[14, 15, 44, 61],
        expected_rows=[[12, 14, 15], [37], [43, 44], [58, 61]],
        expected_penalties=[0, 0, 0, 0],
    ),
    Scenario(
        "worked example, turn 2: the sixth card takes five and the next card follows it",
        rows=[[12, 14, 15], [37], [43, 44], [58, 61]],
        cards=[21, 26, 30, 36],
        expected_rows=[[30, 36], [37], [43, 44], [58, 61]],
        expected_penalties=[0, 0, 6, 0],
    ),
    Scenario(
        "worked example, turn 3: a card below every row takes the row its player chose",
        rows=[[30, 36], [37], [43, 44], [58, 61]],
        cards=[3, 9, 68, 83],
        row_choice=1,
        expected_rows=[[30, 36], [3, 9], [43, 44], [58, 61, 68, 83]],
        expected_penalties=[1, 0, 0, 0],
    ),
    Scenario(
        "the player may take an expensive row; nothing chooses the cheapest for them",
        rows=[[30, 36], [37], [43, 44], [55, 61]],
        cards=[3, 70],
        row_choice=3,
        expected_rows=[[30, 36], [37], [43, 44, 70], [3]],
        expected_penalties=[8, 0],
    ),
    Scenario(
        "placement follows the highest lower end, whatever the difference",
        rows=[[10], [90], [50], [30]],
        cards=[95, 49, 31],
        expected_rows=[[10], [90, 95], [50], [30, 31, 49]],
        expected_penalties=[0, 0, 0],
    ),
    Scenario(
        "a sixth card: the five cards' bullheads are the penalty",
        rows=[[1, 2, 3, 4, 5], [20], [30], [40]],
        cards=[6, 50],
        expected_rows=[[6], [20], [30], [40, 50]],
        expected_penalties=[6, 0],
    ),
    Scenario(
        "several takes in one turn, each row restarted in its own place",
        rows=[[1, 2, 3, 4, 6], [20, 21, 22, 23, 24], [50], [60, 61, 62, 63, 64]],
        cards=[7, 25, 51, 65],
        expected_rows=[[7], [25], [50, 51], [65]],
        expected_penalties=[5, 11, 0, 7],
    ),
    Scenario(
        "a card below every row with the lowest rows full: the rest still resolve in order",
        rows=[[10, 11, 12, 13, 14], [40], [60], [80]],
        cards=[2, 15, 16],
        row_choice=0,
        expected_rows=[[2, 15, 16], [40], [60], [80]],
        expected_penalties=[11, 0, 0],
    ),
    Scenario(
        "a too-low card restarts a row that the next card then fills to the sixth",
        rows=[[20], [30, 31, 32, 33, 34], [50], [70]],
        cards=[5, 35, 6],
        row_choice=0,
        expected_rows=[[5, 6], [35], [50], [70]],
        expected_penalties=[3, 11, 0],
    ),
    Scenario(
        "ten players, the whole table in one turn",
        rows=[[5], [25], [45], [65]],
        cards=[6, 7, 8, 9, 10, 26, 27, 46, 66, 67],
        expected_rows=[[10], [25, 26, 27], [45, 46], [65, 66, 67]],
        expected_penalties=[0, 0, 0, 0, 6, 0, 0, 0, 0, 0],
    ),
]


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda scenario: scenario.name)
def test_turn_scenario_in_the_core(scenario: Scenario) -> None:
    state = RoundState([list(row) for row in scenario.rows], [[card] for card in scenario.cards])
    assert state.needs_row_choice(scenario.cards) == (scenario.row_choice is not None)
    state.resolve_turn(scenario.cards, scenario.row_choice)
    assert state.rows == scenario.expected_rows
    assert state.penalties == scenario.expected_penalties
    taken = sorted(card for pile in state.piles for card in pile)
    on_table = sorted(card for row in state.rows for card in row)
    assert sorted(taken + on_table) == sorted(
        [card for row in scenario.rows for card in row] + scenario.cards
    )


def _filler(used: set[int], count: int) -> list[int]:
    """High cards not used by a scenario, to fill hands to ten."""
    cards = [card for card in range(104, 0, -1) if card not in used][:count]
    used.update(cards)
    return cards


@pytest.mark.parametrize(
    "scenario",
    [scenario for scenario in SCENARIOS if all(len(row) == 1 for row in scenario.rows)],
    ids=lambda scenario: scenario.name,
)
def test_turn_scenario_through_the_game(scenario: Scenario) -> None:
    used = {row[0] for row in scenario.rows} | set(scenario.cards)
    hands = [[card, *_filler(used, 9)] for card in scenario.cards]
    game = Game(len(scenario.cards))
    game.apply_deal(scenario.rows, hands)
    # Players choose in any order: the last seat first.
    for seat in reversed(range(len(scenario.cards))):
        game.play(seat, scenario.cards[seat])
    if scenario.row_choice is not None:
        assert game.phase is Phase.CHOOSING_ROW
        assert game.rows == tuple(tuple(row) for row in scenario.rows), "nothing placed yet"
        low = min(scenario.cards)
        assert game.pending_row_choice is not None
        assert game.pending_row_choice.card == low
        game.choose_row(scenario.cards.index(low), scenario.row_choice)
    assert game.phase is Phase.CHOOSING_CARDS
    assert game.rows == tuple(tuple(row) for row in scenario.expected_rows)
    assert game.penalties == tuple(scenario.expected_penalties)


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda scenario: scenario.name)
def test_turn_scenario_from_a_position(scenario: Scenario) -> None:
    """Every scenario, rows as they stand mid-round, set up with ``Game.from_position``."""
    used = {card for row in scenario.rows for card in row} | set(scenario.cards)
    hands = [[card, *_filler(used, 1)] for card in scenario.cards]  # the round goes on after it
    game = Game.from_position(rows=scenario.rows, hands=hands)
    game.play_turn(scenario.cards, scenario.row_choice)
    events = game.events
    assert game.rows == tuple(tuple(row) for row in scenario.expected_rows)
    assert game.penalties == tuple(scenario.expected_penalties)
    taken = sum(len(event.cards) for event in events if isinstance(event, RowTaken))
    assert taken == sum(len(row) for row in scenario.rows) + len(scenario.cards) - sum(
        len(row) for row in scenario.expected_rows
    )


def test_worked_example_as_one_game() -> None:
    game = Game(4)
    game.apply_deal(
        [[12], [37], [43], [58]],
        [
            [14, 21, 3, 1, 2, 4, 5, 6, 7, 8],
            [15, 26, 9, 100, 101, 102, 103, 104, 99, 98],
            [44, 30, 68, 90, 91, 92, 93, 94, 95, 96],
            [61, 36, 83, 80, 81, 82, 84, 85, 86, 87],
        ],
    )
    game.play_turn([14, 15, 44, 61])
    assert game.rows == ((12, 14, 15), (37,), (43, 44), (58, 61))
    game.play_turn([21, 26, 30, 36])
    # mypy keeps game.rows as narrowed by the assert before, whatever play_turn did since.
    assert game.rows == ((30, 36), (37,), (43, 44), (58, 61))  # type: ignore[comparison-overlap]
    for seat, card in enumerate([3, 9, 68, 83]):
        game.play(seat, card)
    assert game.waiting_for() == (0,)
    game.choose_row(0, 1)
    assert game.rows == ((30, 36), (3, 9), (43, 44), (58, 61, 68, 83))  # type: ignore[comparison-overlap]
    assert game.penalties == (1, 0, 6, 0)
