"""The vectorized search core plays exactly the rules and the ``greedy`` policy of the engine."""

from __future__ import annotations

import random

import numpy as np
import pytest

from nimmt.bots.batchsim import batch_from_rows, play_out, resolve_turn, sample_hands
from nimmt.bots.simple import cheapest_row, greedy_card
from nimmt.engine import draw_deal
from nimmt.engine.core import RoundState


def engine_greedy_round(rows: list[list[int]], hands: list[list[int]]) -> list[int]:
    state = RoundState([list(row) for row in rows], [list(hand) for hand in hands])
    while not state.finished:
        cards = [greedy_card(state.rows, hand) for hand in state.hands]
        row = cheapest_row(state.rows) if state.needs_row_choice(cards) else None
        state.resolve_turn(cards, row)
    return state.penalties


@pytest.mark.parametrize("players", [2, 4, 7, 10])
def test_batched_greedy_rounds_match_the_engine(players: int) -> None:
    deals = [draw_deal(random.Random(seed), players) for seed in range(60)]
    # All deals in one batch would need the same rows; one batch per deal, several copies each.
    for rows, hands in deals:
        batch = batch_from_rows(rows, np.array([hands, hands]))
        play_out(batch, 10)
        expected = engine_greedy_round(rows, hands)
        assert batch.penalties.tolist() == [expected, expected]
        assert (batch.hands == 0).all()


def test_resolve_turn_follows_the_worked_example() -> None:
    # The rules page's example: (12)(37)(43)(58); 14 15 44 61; 21 26 30 36; 3 9 68 83 (row 2).
    batch = batch_from_rows([[12], [37], [43], [58]], np.zeros((1, 4, 0), dtype=np.int64))
    resolve_turn(batch, np.array([[14, 15, 44, 61]]))
    resolve_turn(batch, np.array([[21, 26, 30, 36]]))
    assert batch.penalties.tolist() == [[0, 0, 6, 0]]
    resolve_turn(batch, np.array([[3, 9, 68, 83]]), low_row=np.array([1]))
    assert batch.penalties.tolist() == [[1, 0, 6, 0]]
    assert batch.ends.tolist() == [[36, 9, 44, 83]]
    assert batch.lengths.tolist() == [[2, 2, 2, 4]]


def test_sampled_hands_are_disjoint_draws_from_the_unseen_cards() -> None:
    unseen = list(range(30, 70))
    hands = sample_hands(unseen, others=3, hand_size=7, samples=50, rng=np.random.default_rng(1))
    assert hands.shape == (50, 3, 7)
    for deal in hands:
        cards = deal.ravel().tolist()
        assert len(set(cards)) == len(cards)
        assert set(cards) <= set(unseen)
    # Not the same deal every time: the draws are random.
    assert len({tuple(deal.ravel().tolist()) for deal in hands}) > 1


def test_sampling_more_cards_than_unseen_is_refused() -> None:
    with pytest.raises(ValueError, match="unseen"):
        sample_hands([1, 2, 3], others=2, hand_size=2, samples=1, rng=np.random.default_rng(0))
