"""The compiled turns (:mod:`nimmt.bots.kernels`) against the numpy batch simulation.

``greedy``'s compiled turns must leave every array of a batch exactly as the numpy turns do
(so ``mc:N`` plays the same games either way); the learned model's compiled turns, given the
same uniform draws, may differ only where two noisy scores are within rounding of each other.
"""

from __future__ import annotations

import copy
import random
from typing import Any

import numpy as np
import pytest

from nimmt.bots.batchsim import (
    Batch,
    CompiledGreedy,
    batch_from_rows,
    greedy_policy,
    play_out,
    resolve_turn,
    sample_hands,
    take_cards,
)
from nimmt.bots.policy import ModelPolicy, shipped_weights
from nimmt.engine import HAND_SIZE, draw_deal


def _batch(players: int, seed: int, size: int = 256) -> Batch:
    """``size`` deals to ``players`` seats around one deal's rows (some rows made long, so that
    sixth cards and low cards both happen)."""
    rows, _ = draw_deal(random.Random(seed), players)
    unseen = [card for card in range(1, 105) if [card] not in rows]
    rng = np.random.default_rng(seed)
    deals = sample_hands(unseen, players, HAND_SIZE, size, rng)
    batch = batch_from_rows(rows, deals)
    batch.lengths[:, seed % 4] = 5  # a full row: the next card there takes it
    return batch


def _numpy_turn(batch: Batch, policy: object) -> None:
    resolve_turn(batch, take_cards(batch, policy(batch)))  # type: ignore[operator]


def _arrays(batch: Batch) -> list[np.ndarray]:
    return [batch.ends, batch.lengths, batch.heads, batch.hands, batch.penalties]


@pytest.mark.parametrize("players", [2, 4, 7, 10])
def test_greedy_turns_compiled_leave_every_array_as_numpy_does(players: int) -> None:
    for seed in range(3):
        compiled = _batch(players, seed)
        reference = copy.deepcopy(compiled)
        play_out(compiled, HAND_SIZE, CompiledGreedy())
        for _ in range(HAND_SIZE):
            _numpy_turn(reference, greedy_policy)
        for got, expected in zip(_arrays(compiled), _arrays(reference), strict=True):
            np.testing.assert_array_equal(got, expected)
        assert reference.penalties.sum() > 0  # rows were taken: the test sees the scoring


def _share_of_rounds_agreeing(players: int, **settings: Any) -> float:
    """Three seeds of 512 rounds played out by the compiled and the numpy turns of
    ``ModelPolicy(**settings)`` with the same draws: the share of rounds that agree seat by seat
    and card by card (a near tie of two noisy scores may flip a choice)."""
    rounds = 0
    same = 0
    for seed in range(3):
        compiled = _batch(players, seed, size=512)
        reference = copy.deepcopy(compiled)
        fast = ModelPolicy(np.random.default_rng(seed), compiled=True, **settings)
        slow = ModelPolicy(np.random.default_rng(seed), **settings)
        play_out(compiled, HAND_SIZE, fast)
        for _ in range(HAND_SIZE):
            _numpy_turn(reference, slow)
        agree = (compiled.penalties == reference.penalties).all(axis=1) & (
            compiled.ends == reference.ends
        ).all(axis=1)
        rounds += agree.size
        same += int(agree.sum())
        assert (compiled.hands == 0).all()
    return same / rounds


@pytest.mark.parametrize("players", [3, 5, 10])
def test_model_turns_compiled_choose_as_numpy_with_the_same_draws(players: int) -> None:
    assert _share_of_rounds_agreeing(players, temperature=0.8) >= 0.995


def test_own_weights_compiled_choose_as_numpy_and_only_for_the_deciding_seat() -> None:
    own = shipped_weights() * np.float32(-0.5)  # a seat that plays nothing like the others
    assert _share_of_rounds_agreeing(4, own_weights=own) >= 0.995
    for seed in range(3):
        batch = _batch(4, seed)
        # The others' choices are the plain model's with the same draws; seat 0's are not.
        first = ModelPolicy(np.random.default_rng(seed), own_weights=own)(batch)
        plain = ModelPolicy(np.random.default_rng(seed))(batch)
        np.testing.assert_array_equal(first[:, 1:], plain[:, 1:])
        assert (first[:, 0] != plain[:, 0]).mean() > 0.3


def test_a_policy_without_a_compiled_turn_plays_through_numpy() -> None:
    batch = _batch(4, 1)
    reference = copy.deepcopy(batch)
    policy = ModelPolicy(np.random.default_rng(5))
    assert policy.compiled_turn is None
    play_out(batch, 3, policy)
    other = ModelPolicy(np.random.default_rng(5))
    for _ in range(3):
        _numpy_turn(reference, other)
    for got, expected in zip(_arrays(batch), _arrays(reference), strict=True):
        np.testing.assert_array_equal(got, expected)
