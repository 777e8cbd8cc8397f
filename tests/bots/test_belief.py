"""Beliefs about hidden hands: deals weighted by the model's likelihood of the plays seen."""

from __future__ import annotations

import math

import numpy as np
import pytest

from nimmt.bots import make_bot
from nimmt.bots.batchsim import batch_from_rows, sample_hands
from nimmt.bots.belief import (
    MIX_GRID,
    adaptive_log_likelihood,
    belief,
    model_shares,
    play_log_likelihood,
    rows_before_each_turn,
    turn_log_probabilities,
)
from nimmt.bots.montecarlo import table_order
from nimmt.bots.policy import HAND_WIDTH, card_features, shipped_weights
from nimmt.engine import Game, Phase


def play_turns(seed: int, players: int, turns: int) -> tuple[Game, list[list[list[int]]]]:
    """A dealt round played ``turns`` turns by ``greedy``, and the rows before each turn."""
    game = Game(players)
    game.deal(seed)
    bots = [make_bot("greedy", seat) for seat in range(players)]
    before: list[list[list[int]]] = []
    while game.view(0).turn < turns:
        if game.phase is Phase.CHOOSING_ROW:
            pending = game.pending_row_choice
            assert pending is not None
            game.choose_row(pending.seat, bots[pending.seat].choose_row(game.view(pending.seat)))
            continue
        if not any(game.view(0).has_chosen):
            before.append([list(row) for row in game.rows])
        for seat in game.waiting_for():
            game.play(seat, bots[seat].choose_card(game.view(seat)))
            if game.phase is not Phase.CHOOSING_CARDS:
                break
    return game, before


def test_the_rows_of_every_past_turn_are_replayed_from_the_view() -> None:
    for seed in range(8):
        game, before = play_turns(seed, 5, 7)
        assert rows_before_each_turn(game.view(2)) == before


def test_the_likelihood_is_the_models_probability_of_every_play_seen() -> None:
    weights = shipped_weights()
    for seed in range(4):
        game, before = play_turns(seed, 4, 4)
        view = game.view(1)
        order = table_order(view)
        true_hands = np.asarray([[game.view(seat).hand] for seat in order[1:]])
        others = true_hands.reshape(1, len(order) - 1, -1)
        got = play_log_likelihood(view, others, order, weights)[0]
        expected = 0.0
        for turn, rows in enumerate(before):
            for seat in order[1:]:
                hand = [*game.view(seat).hand, *(cards[seat] for cards in view.played[turn:])]
                hands = np.zeros((1, 1, HAND_WIDTH), dtype=np.int64)
                hands[0, 0, : len(hand)] = sorted(hand)
                scores = card_features(batch_from_rows(rows, hands))[0, 0] @ weights
                scores = scores[: len(hand)].astype(np.float64)
                played = sorted(hand).index(view.played[turn][seat])
                expected += scores[played] - math.log(np.exp(scores).sum())
        assert got == pytest.approx(expected, abs=1e-3)


def test_without_strength_the_deals_are_equally_likely_and_every_deal_is_legal() -> None:
    game, _ = play_turns(3, 4, 3)
    view = game.view(0)
    order = table_order(view)
    unseen = set(view.unseen_cards())
    rng = np.random.default_rng(1)
    for strength in (0.0, 2.0):
        beliefs = belief(view, order, len(view.hand), 200, rng, shipped_weights(), strength)
        assert beliefs.pool.shape == (200, 3, len(view.hand))
        assert beliefs.probability.sum() == pytest.approx(1.0)
        if strength == 0:
            assert np.allclose(beliefs.probability, 1 / 200)
        for deal in beliefs.draw(300, rng):
            cards = deal.ravel().tolist()
            assert len(set(cards)) == len(cards) and set(cards) <= unseen


def test_beliefs_favour_the_deals_that_explain_the_plays() -> None:
    # The deals drawn explain the plays seen better, on average, than uniform ones do.
    weights = shipped_weights()
    for seed in range(3):
        game, _ = play_turns(seed, 4, 5)
        view = game.view(0)
        order = table_order(view)
        rng = np.random.default_rng(seed)
        beliefs = belief(view, order, len(view.hand), 2000, rng, weights, 1.0)
        drawn = beliefs.draw(400, rng)
        assert (
            play_log_likelihood(view, drawn, order, weights).mean()
            > play_log_likelihood(view, beliefs.pool, order, weights).mean()
        )


def test_the_model_share_is_the_priors_mean_when_the_model_says_nothing() -> None:
    # The model giving every play the uniform chance: every share explains the plays alike,
    # so the share is the prior's mean over the grid (1/2 for a uniform prior).
    sizes = np.asarray([4.0, 3.0, 2.0])
    uniform = np.broadcast_to(-np.log(sizes), (50, 2, 3)).copy()
    assert model_shares(uniform, sizes, 1.0) == pytest.approx([0.5, 0.5])
    grid = MIX_GRID
    leaning = (grid * grid**2).sum() / (grid**2).sum()
    assert model_shares(uniform, sizes, 3.0) == pytest.approx([leaning, leaning])


def test_the_model_share_follows_how_well_the_model_predicted_each_seat() -> None:
    sizes = np.asarray([5.0, 4.0, 3.0, 2.0])
    log_probabilities = np.empty((40, 3, 4))
    log_probabilities[:, 0] = 0.0  # seat 0: the model was sure of every play
    log_probabilities[:, 1] = -np.log(sizes)  # seat 1: no better than uniform
    log_probabilities[:, 2] = -30.0  # seat 2: every play was one the model all but excluded
    shares = model_shares(log_probabilities, sizes, 1.0)
    assert shares[0] > 0.75 and shares[1] == pytest.approx(0.5) and shares[2] < 0.15
    # The evidence is the chance of the plays averaged over the deals: share 1 explains
    # seat 0's plays with certainty, share m with prod(m + (1 - m) / n) (exactly, on the grid).
    evidence = np.prod(MIX_GRID[:, None] + (1 - MIX_GRID[:, None]) / sizes, axis=1)
    assert shares[0] == pytest.approx((MIX_GRID * evidence).sum() / evidence.sum())


def test_adaptive_likelihood_is_each_seats_mixture_of_the_model_and_uniform_play() -> None:
    weights = shipped_weights()
    game, _ = play_turns(5, 4, 4)
    view = game.view(0)
    order = table_order(view)
    rng = np.random.default_rng(2)
    pool = sample_hands(view.unseen_cards(), 3, len(view.hand), 300, rng)
    total, shares = adaptive_log_likelihood(view, pool, order, weights, 1.0)
    assert shares.shape == (3,) and ((shares > 0) & (shares < 1)).all()
    turns = turn_log_probabilities(view, pool, order, weights)
    assert len(turns) == len(view.played) > 1
    expected = np.zeros(300)
    for turn, log_probability in enumerate(turns):
        size = len(view.hand) + len(turns) - turn
        expected += np.log(shares * np.exp(log_probability) + (1 - shares) / size).sum(axis=1)
    assert np.allclose(total, expected)
    assert np.allclose(
        sum(log_probability.sum(axis=1) for log_probability in turns),
        play_log_likelihood(view, pool, order, weights),
    )


def test_adaptive_beliefs_weigh_the_deals_less_sharply_than_the_model_alone() -> None:
    # A mixture with uniform play spreads the weights: the pool's weights are more even.
    game, _ = play_turns(2, 4, 6)
    view = game.view(0)
    order = table_order(view)

    def spread(adapt: float) -> float:
        rng = np.random.default_rng(7)
        beliefs = belief(view, order, len(view.hand), 2000, rng, shipped_weights(), 2.0, adapt)
        return float(1 / (beliefs.probability**2).sum())  # the effective number of deals

    assert spread(1.0) > spread(0.0)
