"""A card's worth read from its holder's features (:mod:`nimmt.bots.worthfit`)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from nimmt.bots import UnknownBotError, make_bot
from nimmt.bots.batchsim import EMPTY, batch_from_rows, greedy_policy
from nimmt.bots.levelk import judged_worths, level2_logits
from nimmt.bots.strong import parse_strong
from nimmt.bots.worthfit import (
    FEATURES,
    as_document,
    expanded,
    fit,
    for_seats,
    predicted_worths,
    read_coefficients,
    shipped_coefficients,
    worth_features,
)
from nimmt.engine import Game

ROWS = [[5], [30], [60], [90]]


def test_each_card_is_described_by_what_its_own_seat_sees() -> None:
    hands = np.array([[[3, 31, 33, 61, EMPTY], [10, 20, 95, 96, 97]]])
    features = worth_features(batch_from_rows(ROWS, hands))
    assert features.shape == (1, 2, 5, FEATURES)
    assert not features[0, 0, 4].any()  # an empty slot
    # 31 and 33 lie in the same stretch (above 30, below 60): 31 has one card above it there,
    # 33 one below; the stretch holds two of the seat's four cards.
    stretch = features[0, 0, :, 33:38]  # after the model's 16, the rows' 12 and the counts' 5
    assert stretch[1].tolist() == stretch[2].tolist() == [0, 0, 1, 0, 0]
    assert features[0, 0, 0, 28:33].tolist() == [0.1, 0, 0.2, 0.1, 0]  # 3 | - | 31 33 | 61 | -
    below, above = features[0, 0, 1:3, -4], features[0, 0, 1:3, -3]
    assert below.tolist() == [0, 0.1] and above.tolist() == [0.1, 0]
    # Another seat's cards change nothing of this seat's features.
    changed = hands.copy()
    changed[0, 1] = [11, 21, 31 + 1, 40, 50]
    again = worth_features(batch_from_rows(ROWS, changed))
    assert np.array_equal(again[0, 0], features[0, 0])


def test_the_fit_reads_differences_within_a_hand_and_ignores_each_hand_s_constant() -> None:
    rng = np.random.default_rng(1)
    features = rng.normal(size=(600, FEATURES))
    truth = rng.normal(size=expanded(features[:1]).shape[1])
    groups = np.repeat(np.arange(100), 6)
    constants = rng.normal(scale=5, size=100)[groups]
    worths = expanded(features) @ truth + constants
    coefficients = fit(features, worths, groups, 1e-9)
    read = expanded(features) @ coefficients
    within = (read - worths).reshape(100, 6)
    # Off by one constant per hand, and by nothing else.
    assert np.allclose(within - within[:, :1], 0, atol=1e-6)


def test_predicted_worths_are_zero_in_empty_slots_and_seat_0_is_not_judged() -> None:
    coefficients = shipped_coefficients()
    hands = np.array([[[3, 31, EMPTY], [10, 62, EMPTY], [50, 97, EMPTY]]])
    batch = batch_from_rows(ROWS, hands)
    worths = predicted_worths(batch, coefficients)
    assert worths.shape == (1, 3, 3)
    assert not worths[:, :, 2].any()
    judged = judged_worths(ROWS, hands, 4, greedy_policy, None, None, coefficients)
    assert not judged[:, 0].any()
    assert np.allclose(judged[:, 1:], worths[:, 1:])


def test_learned_worths_lower_the_others_scores_as_played_out_ones_do() -> None:
    hands = np.array([[[3, 31, 44], [10, 62, 70], [50, 97, 99]]])
    coefficients = shipped_coefficients()
    game = Game.from_position(rows=ROWS, hands=[[int(c) for c in hand] for hand in hands[0]])
    logits = np.zeros(hands.shape)
    scores = level2_logits(game.view(0), hands, 1, 0.5, greedy_policy, logits, None, coefficients)
    worths = predicted_worths(batch_from_rows(ROWS, hands), coefficients)
    assert np.allclose(scores[:, 1:], -0.5 * worths[:, 1:])


def test_each_table_size_is_read_by_the_coefficients_fitted_nearest_it() -> None:
    coefficients = {3: np.zeros(946), 5: np.ones(946), 10: np.full(946, 2.0)}
    assert [for_seats(coefficients, seats)[0] for seats in (2, 3, 4, 5, 7, 8, 10)] == [
        0,
        0,
        0,  # 4 lies between 3 and 5: the smaller
        1,
        1,
        2,
        2,
    ]
    shipped = shipped_coefficients()
    assert sorted(shipped) == [3, 4, 5, 10]
    hands = np.array([[[3, 31, 44]] * 10])
    batch = batch_from_rows(ROWS, hands)
    assert np.allclose(predicted_worths(batch, shipped), predicted_worths(batch, {10: shipped[10]}))


def test_the_shipped_coefficients_read_a_sixth_card_as_costly() -> None:
    # Rows of five: a card that must take its row is worth far more (worse) to its holder than
    # one that goes safely onto a short row.
    rows = [[1, 2, 3, 4, 5], [30], [60], [90]]
    hands = np.array([[[EMPTY] * 3, [6, 31, 61]]])
    worths = predicted_worths(batch_from_rows(rows, hands), shipped_coefficients())[0, 1]
    assert worths[0] > worths[1] + 1 and worths[0] > worths[2] + 1


def test_coefficients_are_checked_when_the_bot_is_named(tmp_path: Path) -> None:
    short = tmp_path / "short.json"
    short.write_text(json.dumps(as_document({4: np.zeros(3)})))
    with pytest.raises(ValueError, match="3 coefficients for 4 seats"):
        read_coefficients(short)
    with pytest.raises(ValueError, match="level2_worth"):
        parse_strong(f"level2=0.4,level2_worth={short}")
    with pytest.raises(UnknownBotError):
        make_bot("strong:level2=0.4,level2_worth=nothing_such.json")
    fine = tmp_path / "fine.json"
    fine.write_text(json.dumps(as_document(shipped_coefficients())))
    assert parse_strong(f"level2=0.4,level2_worth={fine}").level2_worth == str(fine)


def test_a_strong_bot_with_learned_worths_plays_legal_cards() -> None:
    name = "strong:level2=0.4,level2_adapt=1,level2_zero=0.5,level2_worth=worth_coefficients.json"
    bot = make_bot(name, 3)
    game = Game(4)
    game.deal(7)
    for _ in range(4):  # from the second turn on, the others' plays are judged too
        card = bot.choose_card(game.view(0))
        assert card in game.view(0).legal_cards()
        cards = [card, *(game.view(seat).legal_cards()[0] for seat in (1, 2, 3))]
        below = min(cards) < min(row[-1] for row in game.rows)
        game.play_turn(cards, 0 if below else None)
