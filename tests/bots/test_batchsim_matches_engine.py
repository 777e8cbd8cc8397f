"""The bots' vectorized rules simulation (:mod:`nimmt.bots.batchsim`) against the engine.

:mod:`nimmt.bots.batchsim` is a second implementation of a turn, in numpy, that the Monte Carlo
bots use to play many sampled rounds at once. The engine (:class:`~nimmt.engine.core.RoundState`
behind :class:`~nimmt.engine.Game`) is the reference. Here both are given the same rows, the same
cards and the same row choices, and must agree after every turn.

A batch keeps each row as its last card, its length and its bullheads (not its cards), so the
rows are compared as exactly that: for every row, in place, the engine's ``row[-1]``,
``len(row)`` and ``total_bullheads(row)`` against the batch's ``ends``, ``lengths`` and
``heads``; every seat's penalty and hand are compared as they are.
"""

from __future__ import annotations

import importlib.util
import random
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nimmt.bots.batchsim import EMPTY, Batch, batch_from_rows, resolve_turn, take_cards
from nimmt.bots.simple import cheapest_row
from nimmt.engine import Game, draw_deal
from nimmt.engine.cards import DECK, NUM_ROWS, ROW_LIMIT, total_bullheads
from nimmt.engine.core import RoundState


def _load_rule_scenarios() -> ModuleType:
    """``tests/engine/test_rules.py``, imported by path: the test directories are not packages,
    so its scenarios cannot be imported by name from here. A private module name keeps pytest's
    own import of it (for its tests) separate."""
    path = Path(__file__).resolve().parents[1] / "engine" / "test_rules.py"
    name = "_search_rule_scenarios"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


SCENARIOS = _load_rule_scenarios().SCENARIOS

PLAYER_COUNTS = range(2, 11)
ROUNDS_PER_COUNT = 34
"""34 rounds of 10 turns for each of 2 to 10 players: 3,060 turns."""


def assert_same_rows(batch: Batch, index: int, rows: list[list[int]], context: str) -> None:
    """Round ``index`` of ``batch`` has ``rows``, row by row in place."""
    expected = [[row[-1], len(row), total_bullheads(row)] for row in rows]
    actual = [
        [int(batch.ends[index, row]), int(batch.lengths[index, row]), int(batch.heads[index, row])]
        for row in range(NUM_ROWS)
    ]
    assert actual == expected, f"{context}: rows {rows} as [end, length, bullheads]"


def batch_of_states(states: list[RoundState], hand_slots: int) -> Batch:
    """One batch holding several different rounds (``batch_from_rows`` gives every round the
    same rows), with each seat's hand padded with :data:`EMPTY` to ``hand_slots``."""
    seats = len(states[0].hands)
    hands = np.full((len(states), seats, hand_slots), EMPTY, dtype=np.int64)
    for index, state in enumerate(states):
        for seat, hand in enumerate(state.hands):
            hands[index, seat, : len(hand)] = hand
    return Batch(
        ends=np.array([[row[-1] for row in state.rows] for state in states], dtype=np.int64),
        lengths=np.array([[len(row) for row in state.rows] for state in states], dtype=np.int64),
        heads=np.array(
            [[total_bullheads(row) for row in state.rows] for state in states], dtype=np.int64
        ),
        hands=hands,
        penalties=np.array([state.penalties for state in states], dtype=np.int64),
    )


# ------------------------------------------------------------------- the rule scenarios


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda scenario: scenario.name)
def test_rule_scenario_in_the_batch(scenario: Any) -> None:
    rows: list[list[int]] = scenario.rows
    cards: list[int] = scenario.cards
    row_choice: int | None = scenario.row_choice
    # Two copies of the round: the batch's rounds must not disturb each other.
    batch = batch_from_rows(rows, np.zeros((2, len(cards), 0), dtype=np.int64))
    low_row = np.array([row_choice, row_choice]) if row_choice is not None else None
    resolve_turn(batch, np.array([cards, cards]), low_row)

    engine = RoundState([list(row) for row in rows], [[card] for card in cards])
    engine.resolve_turn(cards, row_choice)
    assert engine.rows == scenario.expected_rows
    for index in range(2):
        assert_same_rows(batch, index, scenario.expected_rows, "after the turn")
        assert batch.penalties[index].tolist() == scenario.expected_penalties


def test_every_rule_scenario_is_replayed() -> None:
    assert len(SCENARIOS) >= 10
    assert any(scenario.row_choice is not None for scenario in SCENARIOS)


# ------------------------------------------------------- seeded random rounds, every turn


def play_random_rounds(players: int, seed: int, low_row_given: bool) -> tuple[int, int, int]:
    """Play ``ROUNDS_PER_COUNT`` dealt rounds in one batch and in as many engine games, with
    random cards from random hands and, when ``low_row_given``, a random row for a card below
    every row (else both take the cheapest row, the first on ties). Compares every turn;
    returns (turns, row choices, row choices that were not the cheapest row)."""
    deal_rng = random.Random(seed)
    rng = np.random.default_rng(seed)
    games = []
    for _ in range(ROUNDS_PER_COUNT):
        rows, hands = draw_deal(deal_rng, players)
        game = Game(players)
        game.apply_deal(rows, hands)
        games.append(game)
    batch = batch_of_states([game.round_state() for game in games], hand_slots=10)
    turns = choices = not_cheapest = 0
    for turn in range(10):
        # A random non-empty slot of every hand (a played card leaves an EMPTY slot behind).
        weights = np.where(batch.hands == EMPTY, -1.0, rng.random(batch.hands.shape))
        cards = take_cards(batch, weights.argmax(axis=-1))
        low_rows = rng.integers(0, NUM_ROWS, size=batch.size)
        resolve_turn(batch, cards, low_rows if low_row_given else None)
        for index, game in enumerate(games):
            played = [int(card) for card in cards[index]]
            context = f"{players} players, seed {seed}, round {index}, turn {turn + 1}: {played}"
            row: int | None = None
            if game.round_state().needs_row_choice(played):
                row = int(low_rows[index]) if low_row_given else cheapest_row(game.rows)
                choices += 1
                not_cheapest += row != cheapest_row(game.rows)
            game.play_turn(played, row)
            turns += 1
            state = game.round_state()
            assert_same_rows(batch, index, state.rows, context)
            assert batch.penalties[index].tolist() == state.penalties, context
            for seat in range(players):
                in_hand = sorted(int(card) for card in batch.hands[index, seat] if card != EMPTY)
                assert in_hand == sorted(state.hands[seat]), context
    return turns, choices, not_cheapest


def test_thousands_of_random_turns_with_random_row_choices() -> None:
    turns = choices = not_cheapest = 0
    for players in PLAYER_COUNTS:
        played, chosen, other = play_random_rounds(players, seed=players, low_row_given=True)
        turns += played
        choices += chosen
        not_cheapest += other
    assert turns == len(PLAYER_COUNTS) * ROUNDS_PER_COUNT * 10 == 3060
    # The comparison must have exercised the row choice, and not only its cheapest row.
    assert choices > 300
    assert not_cheapest > 200


def test_random_turns_without_a_row_take_the_cheapest_row_first_on_ties() -> None:
    turns = choices = 0
    for players in PLAYER_COUNTS:
        played, chosen, _ = play_random_rounds(players, seed=100 + players, low_row_given=False)
        turns += played
        choices += chosen
    assert turns == 3060
    assert choices > 300


# ---------------------------------------------------------- any rows, as a property test


@st.composite
def turn_on_any_rows(draw: st.DrawFn) -> tuple[list[list[int]], list[int], int]:
    """Four rows of 1 to 5 cards (increasing, as rows always are), 2 to 10 cards played from
    the rest of the deck, and a row to take if the lowest is below every row."""
    deck = draw(st.permutations(DECK))
    lengths = draw(st.lists(st.integers(1, ROW_LIMIT), min_size=NUM_ROWS, max_size=NUM_ROWS))
    players = draw(st.integers(2, 10))
    rows = []
    start = 0
    for length in lengths:
        rows.append(sorted(deck[start : start + length]))
        start += length
    cards = list(deck[start : start + players])
    return rows, cards, draw(st.integers(0, NUM_ROWS - 1))


@settings(max_examples=300, deadline=None)
@given(turn_on_any_rows())
def test_one_turn_on_any_rows_matches_the_engine(
    turn: tuple[list[list[int]], list[int], int],
) -> None:
    rows, cards, row_choice = turn
    engine = RoundState([list(row) for row in rows], [[card] for card in cards])
    needs_choice = engine.needs_row_choice(cards)
    engine.resolve_turn(cards, row_choice if needs_choice else None)
    batch = batch_from_rows(rows, np.zeros((1, len(cards), 0), dtype=np.int64))
    resolve_turn(batch, np.array([cards]), np.array([row_choice]))
    assert_same_rows(batch, 0, engine.rows, f"{rows} then {cards}, row {row_choice}")
    assert batch.penalties[0].tolist() == engine.penalties

    # Without a row given, the batch takes the cheapest row, the first on ties.
    cheapest = RoundState([list(row) for row in rows], [[card] for card in cards])
    cheapest.resolve_turn(cards, cheapest_row(rows) if needs_choice else None)
    batch = batch_from_rows(rows, np.zeros((1, len(cards), 0), dtype=np.int64))
    resolve_turn(batch, np.array([cards]))
    assert_same_rows(batch, 0, cheapest.rows, f"{rows} then {cards}, cheapest row")
    assert batch.penalties[0].tolist() == cheapest.penalties
