"""The exact endgame solver agrees with a brute force played through the rules engine."""

from __future__ import annotations

import itertools
import random

import numpy as np
import numpy.typing as npt
import pytest

from nimmt.bots.batchsim import batch_from_rows
from nimmt.bots.endgame import choice_values, leaves_per_deal
from nimmt.bots.policy import FEATURE_NAMES, card_features, shipped_weights
from nimmt.bots.simple import cheapest_row
from nimmt.engine import Game, Phase

Rows = tuple[tuple[int, ...], ...]
Weights = npt.NDArray[np.float32]


def model_probabilities(rows: Rows, hand: tuple[int, ...], weights: Weights) -> list[float]:
    """The model's probability of each card of ``hand`` on ``rows``, from its features."""
    batch = batch_from_rows(rows, np.asarray([[hand]], dtype=np.int64))
    scores = card_features(batch)[0, 0].astype(np.float64) @ weights.astype(np.float64)
    scores = np.exp(scores - scores.max())
    return [float(value) for value in scores / scores.sum()]


def brute_force(
    rows: Rows, hands: list[tuple[int, ...]], penalties: list[int], weights: Weights
) -> list[float]:
    """For each card of seat 0: its bullheads minus the others' mean at the end of the round,
    when the others play by the model and seat 0 its best card at every later turn (a card
    below every row takes the cheapest row), every turn played by the engine."""
    players = len(hands)
    probabilities = [model_probabilities(rows, hand, weights) for hand in hands]
    values = []
    for mine in hands[0]:
        expected = 0.0
        for others in itertools.product(*hands[1:]):
            weight = 1.0
            for seat, card in enumerate(others, start=1):
                weight *= probabilities[seat][hands[seat].index(card)]
            game = Game.from_position(rows, hands, penalties=penalties)
            cards = [mine, *others]
            low = min(cards) < min(row[-1] for row in game.rows)
            game.play_turn(cards, cheapest_row(game.rows) if low else None)
            if game.phase is Phase.CHOOSING_CARDS:
                after = [game.hand(seat) for seat in range(players)]
                value = min(brute_force(game.rows, after, list(game.penalties), weights))
            else:
                taken = game.history[-1].penalties
                assert taken is not None
                value = taken[0] - sum(taken[1:]) / (players - 1)
            expected += weight * value
        values.append(expected)
    return values


def random_position(
    rng: random.Random, players: int, cards: int
) -> tuple[Rows, list[tuple[int, ...]]]:
    """Rows of random lengths and ``cards`` random cards per seat, all distinct."""
    deck = rng.sample(range(1, 105), 104)
    starts = sorted(deck[:4])
    rest = sorted(deck[4 : 4 + 8])
    rows = []
    for start in starts:
        length = rng.randint(1, 5)
        above = [card for card in rest if card > start][: length - 1]
        rows.append((start, *above))
        rest = [card for card in rest if card not in above]
    used = {card for row in rows for card in row}
    pool = [card for card in deck if card not in used]
    hands = [tuple(sorted(pool[seat * cards : (seat + 1) * cards])) for seat in range(players)]
    return tuple(rows), hands


@pytest.mark.parametrize(("players", "cards"), [(2, 3), (3, 2), (3, 3), (4, 2)])
def test_solver_agrees_with_brute_force(players: int, cards: int) -> None:
    rng = random.Random(players * 10 + cards)
    generator = np.random.default_rng(cards)
    for trial in range(4):
        rows, hands = random_position(rng, players, cards)
        weights = (
            shipped_weights()
            if trial % 2 == 0
            else generator.normal(size=len(FEATURE_NAMES)).astype(np.float32)
        )
        batch = batch_from_rows(rows, np.asarray([hands], dtype=np.int64))
        solved = choice_values(batch, weights)[0]
        expected = brute_force(rows, hands, [0] * players, weights)
        assert solved == pytest.approx(expected, abs=1e-3)


def test_leaves_per_deal_counts_the_joint_choices() -> None:
    # 3 cards, 4 seats: 3**4 joint choices now, then 2**4, then the forced last turn.
    assert leaves_per_deal(3, 4) == 81 * 16
    assert leaves_per_deal(2, 10) == 1024
