"""The others' cards judged by their worth (:mod:`nimmt.bots.levelk`), against the engine."""

from __future__ import annotations

import numpy as np
import pytest

from nimmt.bots import UnknownBotError, levelk, make_bot
from nimmt.bots.batchsim import (
    EMPTY,
    batch_from_rows,
    greedy_policy,
    relative_scores,
    sample_hands,
)
from nimmt.bots.belief import rows_before_each_turn
from nimmt.bots.levelk import (
    WEIGHT_GRID,
    card_scores_against,
    card_worths,
    draw_weights,
    level2_logits,
    redealt,
    turn_evidence,
    weight_posterior,
    weight_prior,
)
from nimmt.bots.montecarlo import table_order
from nimmt.bots.policy import card_logits, shipped_weights
from nimmt.bots.simple import GreedyBot
from nimmt.bots.strong import StrongBot
from nimmt.engine import Game, Phase


def dealt(seed: int, seats: int, cards: int, count: int) -> tuple[list[list[int]], np.ndarray]:
    """A dealt game's rows and ``count`` deals of ``cards`` cards to ``seats`` seats."""
    game = Game(seats)
    game.deal(seed)
    on_rows = {card for row in game.rows for card in row}
    unseen = [card for card in range(1, 105) if card not in on_rows]
    hands = sample_hands(unseen, seats, cards, count, np.random.default_rng(seed))
    return [list(row) for row in game.rows], hands


def position(rows: list[list[int]], hands: np.ndarray) -> Game:
    """A game waiting for the first card of ``hands`` (one per seat) on ``rows``."""
    return Game.from_position(rows=rows, hands=[[int(c) for c in hand] for hand in hands])


def relative_by_engine(rows: list[list[int]], hands: np.ndarray, seat: int, card: int) -> float:
    """``seat``'s bullheads minus the others' mean when it plays ``card`` now and every other
    card of the round is ``greedy``'s, played by the engine."""
    game = position(rows, hands)
    greedy = GreedyBot()
    turn = [
        card if who == seat else greedy.choose_card(game.view(who)) for who in range(len(hands))
    ]
    penalties = play_round(game, turn)
    others = [value for who, value in enumerate(penalties) if who != seat]
    return penalties[seat] - sum(others) / len(others)


@pytest.mark.parametrize(("seed", "seats", "cards"), [(1, 4, 3), (2, 3, 4), (3, 6, 2)])
def test_a_card_s_worth_is_its_holder_s_relative_score_over_the_futures(
    seed: int, seats: int, cards: int
) -> None:
    rows, deals = dealt(seed, seats, cards, 3)
    # greedy is deterministic: every future of a card is the same round, played by the engine.
    worths = card_worths(rows, deals, 2, greedy_policy)
    assert worths.shape == deals.shape
    assert np.all(worths[:, 0] == 0)  # the deciding seat's own cards are not judged
    for deal in range(len(deals)):
        for seat in range(1, seats):
            for slot in range(cards):
                expected = relative_by_engine(rows, deals[deal], seat, int(deals[deal, seat, slot]))
                assert worths[deal, seat, slot] == pytest.approx(expected)


def test_redealing_keeps_the_holder_s_hand_and_deals_the_rest_of_the_pool() -> None:
    rows, deals = dealt(6, 4, 3, 5)
    pool = [card for card in range(1, 105) if all(card not in row for row in rows)]
    hands = redealt(deals, 7, pool, np.random.default_rng(1))
    assert hands.shape == (3, 5, 7, 4, 3)
    for holder in range(1, 4):
        for deal in range(5):
            for future in hands[holder - 1, deal]:
                assert list(future[holder]) == list(deals[deal, holder])
                cards = future.ravel()
                assert len(set(cards)) == cards.size and set(cards) <= set(pool)
    # The others' hands differ from future to future: they are drawn, not copied.
    assert len({tuple(hands[0, 0, future, 0]) for future in range(7)}) > 1


def test_with_two_seats_redealing_changes_no_worth() -> None:
    # With one other seat, the pool less the holder's hand is that seat's hand: the same deal.
    rows, deals = dealt(7, 2, 4, 3)
    for deal in deals:
        pool = sorted(int(card) for card in deal.ravel())
        kept = card_worths(rows, deal[None], 2, greedy_policy)
        redrawn = card_worths(rows, deal[None], 2, greedy_policy, pool, np.random.default_rng(2))
        assert np.allclose(kept, redrawn)


def test_the_others_scores_fall_with_a_card_s_worth_and_empty_slots_are_never_drawn() -> None:
    rows, deals = dealt(4, 4, 3, 2)
    deals[:, :, 2] = EMPTY  # two cards left in every hand
    logits = np.zeros(deals.shape)
    view = position(rows, deals[0, :, :2]).view(0)  # only its rows are used
    worths = card_worths(rows, deals, 1, greedy_policy)
    scores = level2_logits(view, deals, 1, 0.5, greedy_policy, logits)
    assert np.all(np.isneginf(scores[:, :, 2]))
    assert np.allclose(scores[:, :, :2], -0.5 * worths[:, :, :2])
    unchanged = level2_logits(view, deals, 1, 0.0, greedy_policy, logits + 1)
    assert np.allclose(unchanged[:, :, :2], 1)


def test_cards_are_tried_against_the_others_drawn_from_their_scores() -> None:
    rows, deals = dealt(5, 4, 3, 2)
    view = position(rows, deals[0]).view(0)
    # Scores that leave each other seat one card (slot 1): every future is then a fixed round.
    scores = np.full(deals.shape, -np.inf)
    scores[:, :, 1] = 0.0
    scores[:, 0, :] = 0.0
    rng = np.random.default_rng(0)
    means = card_scores_against(view, deals, scores, 3, rng, greedy_policy, [0, 2], relative_scores)
    for index, slot in enumerate((0, 2)):
        expected = []
        for deal in deals:
            # Seat 0 plays ``slot``, the others their slot-1 card, then greedy: as the engine.
            hands = [[int(c) for c in hand] for hand in deal]
            game = position(rows, deal)
            turn = [hands[0][slot]] + [hand[1] for hand in hands[1:]]
            penalties = play_round(game, turn)
            expected.append(penalties[0] - sum(penalties[1:]) / 3)
        assert means[index] == pytest.approx(np.mean(expected))


def play_round(game: Game, first_turn: list[int]) -> list[int]:
    """The round played by the engine: ``first_turn`` now, then ``greedy`` everywhere."""
    greedy = GreedyBot()
    turn: list[int] | None = first_turn
    while game.phase in (Phase.CHOOSING_CARDS, Phase.CHOOSING_ROW):
        pending = game.pending_row_choice
        if pending is not None:
            game.choose_row(pending.seat, greedy.choose_row(game.view(pending.seat)))
            continue
        for who in game.waiting_for():
            game.play(who, turn[who] if turn else greedy.choose_card(game.view(who)))
            if game.phase is not Phase.CHOOSING_CARDS:
                break
        turn = None
    penalties = game.history[-1].penalties
    assert penalties is not None
    return list(penalties)


def test_a_level2_search_replays_its_seed() -> None:
    # Its legal rounds: test_strong.py's test_a_small_strong_search_plays_legal_rounds.
    name = "strong:samples=64,more=64,core=numba,level2=0.4,level2_deals=8,level2_rollouts=4"
    game = Game(4)
    game.deal(21)
    bot = make_bot(name, 1)
    assert isinstance(bot, StrongBot) and bot.settings.level2 == 0.4
    assert bot.settings.level2_deals == 8 and bot.settings.level2_rollouts == 4
    for seat in range(4):
        card = make_bot(name, seat).choose_card(game.view(seat))
        assert card in game.view(seat).legal_cards()
        assert make_bot(name, seat).choose_card(game.view(seat)) == card


def test_each_seat_s_weight_is_drawn_from_its_posterior() -> None:
    rng = np.random.default_rng(3)
    # Seat 1's plays favour the third weight by far; seat 2's say nothing.
    evidence = np.zeros((2, len(WEIGHT_GRID)))
    evidence[0, 2] = 50.0
    weights = draw_weights(evidence, 4000, rng)
    assert weights.shape == (4000, 3, 1)
    assert np.all(weights[:, 0] == 0)  # the deciding seat's own cards are never lowered
    assert np.all(weights[:, 1] == WEIGHT_GRID[2])
    drawn, counts = np.unique(weights[:, 2], return_counts=True)
    assert list(drawn) == list(WEIGHT_GRID)  # a uniform posterior: every weight, about as often
    assert counts.min() > 4000 / len(WEIGHT_GRID) * 0.8
    # Evidence of e (one nat) for a weight makes it e times as likely as the others.
    evidence = np.zeros((1, len(WEIGHT_GRID)))
    evidence[0, 0] = 1.0
    share = (draw_weights(evidence, 20000, rng)[:, 1, 0] == 0).mean()
    assert share == pytest.approx(np.e / (np.e + len(WEIGHT_GRID) - 1), abs=0.02)


def test_a_prior_leaning_to_the_model_alone_weighs_in_the_posterior() -> None:
    assert np.all(weight_prior() == 0)  # uniform, as before
    prior = np.exp(weight_prior(0.7))
    assert prior[0] == pytest.approx(0.7) and prior.sum() == pytest.approx(1.0)
    assert np.allclose(prior[1:], 0.3 / (len(WEIGHT_GRID) - 1))
    # No evidence: the posterior is the prior; evidence of one nat for the third weight
    # multiplies its share by e.
    nothing = np.zeros((2, len(WEIGHT_GRID)))
    assert np.allclose(weight_posterior(nothing, 0.7), prior)
    evidence = nothing.copy()
    evidence[1, 2] = 1.0
    posterior = weight_posterior(evidence, 0.7)[1]
    expected = prior * np.where(np.arange(len(WEIGHT_GRID)) == 2, np.e, 1.0)
    assert np.allclose(posterior, expected / expected.sum())
    share = (draw_weights(nothing, 20000, np.random.default_rng(5), 0.7)[:, 1:, 0] == 0).mean()
    assert share == pytest.approx(0.7, abs=0.02)
    for bad in (0.0, 1.0, -0.1):
        with pytest.raises(ValueError, match="between 0 and 1"):
            weight_prior(bad)


def played_game(seed: int, seats: int, turns: int) -> Game:
    """A dealt game after ``turns`` turns of ``greedy`` (no row to choose in them)."""
    game = Game(seats)
    game.deal(seed)
    greedy = GreedyBot()
    for _ in range(turns):
        for who in game.waiting_for():
            game.play(who, greedy.choose_card(game.view(who)))
        assert game.pending_row_choice is None
    return game


def test_a_past_play_s_evidence_at_weight_0_is_the_model_s_chance_of_it() -> None:
    game = played_game(5, 4, 3)
    view = game.view(2)
    order = table_order(view)
    history = rows_before_each_turn(view)
    assert history is not None and len(history) == 3
    weights = shipped_weights()
    for turn in range(3):
        evidence = turn_evidence(
            view, order, turn, history[turn], 6, 2, greedy_policy, weights, np.random.default_rng(9)
        )
        assert evidence.shape == (3, len(WEIGHT_GRID)) and np.all(np.isfinite(evidence))
        # The same hands, drawn as turn_evidence draws them: each other seat's cards of that
        # turn and later, and as many as it holds now from what seat 2 has not seen.
        hidden = sample_hands(view.unseen_cards(), 3, len(view.hand), 6, np.random.default_rng(9))
        for index, seat in enumerate(order[1:]):
            chances = []
            for sample in range(6):
                hand = [int(card) for card in hidden[sample, index]]
                hand += [cards[seat] for cards in view.played[turn:]]
                hands = np.array([hand] * 4)[None]  # only seat 1's cards are judged here
                logits = card_logits(batch_from_rows(history[turn], hands), weights)[0, 1]
                logits = logits.astype(np.float64) - logits.max()
                played = hand.index(view.played[turn][seat])
                chances.append(np.exp(logits[played]) / np.exp(logits).sum())
            assert evidence[index, 0] == pytest.approx(np.log(np.mean(chances)), abs=1e-5)


def test_adaptive_weights_judge_each_past_play_once_a_round(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    name = (
        "strong:samples=32,more=32,core=numba,level2=0.4,level2_deals=4,level2_rollouts=2,"
        "level2_adapt=1,level2_hands=4,level2_futures=2"
    )
    judged: list[int] = []
    original = levelk.turn_evidence

    def counted(*args: object, **kwargs: object) -> np.ndarray:
        judged.append(args[2])  # type: ignore[arg-type]
        return original(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr("nimmt.bots.strong.turn_evidence", counted)
    bot = make_bot(name, 4)
    assert isinstance(bot, StrongBot) and bot.settings.level2_adapt == 1
    game = played_game(8, 4, 2)
    first = bot.choose_card(game.view(0))
    assert sorted(judged) == [0, 1]
    bot.choose_card(game.view(0))  # the same turn again: nothing judged anew
    assert sorted(judged) == [0, 1]
    for who in game.waiting_for():
        game.play(who, first if who == 0 else GreedyBot().choose_card(game.view(who)))
    pending = game.pending_row_choice
    if pending is not None:  # (in this deal seat 0's card is below every row)
        game.choose_row(pending.seat, bot.choose_row(game.view(pending.seat)))
    assert game.turn == 3
    bot.choose_card(game.view(0))
    assert sorted(judged) == [0, 1, 2]
    # The same seed judges and chooses alike.
    assert make_bot(name, 4).choose_card(played_game(8, 4, 2).view(0)) == first


@pytest.mark.parametrize(
    "name",
    [
        "strong:level2=-1",
        "strong:level2_deals=0",
        "strong:level2_rollouts=0",
        "strong:level2_adapt=2",
        "strong:level2_zero=1",
        "strong:level2_zero=-0.5",
        "strong:level2_hands=0",
        "strong:level2_futures=0",
    ],
)
def test_bad_level2_settings_are_refused(name: str) -> None:
    with pytest.raises(UnknownBotError, match="unknown bot"):
        make_bot(name, 1)
