"""``hard`` (learned-model rollouts, exact endgame) and the frozen ``hard-v1``."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from nimmt.bots import BOT_NAMES, GreedyBot, Limit, UnknownBotError, make_bot, strong
from nimmt.bots.batchsim import EMPTY, Batch, batch_from_rows, sample_hands
from nimmt.bots.belief import belief
from nimmt.bots.montecarlo import card_scores
from nimmt.bots.policy import (
    FEATURE_NAMES,
    ModelPolicy,
    card_features,
    card_logits,
    fit_weights,
    shipped_weights,
)
from nimmt.bots.strong import StrongBot, StrongSettings
from nimmt.engine import Game, Phase, SeatView


def random_batch(seed: int, played: int) -> tuple[object, np.ndarray]:
    """A batch of 40 sampled 4-seat rounds on a dealt game's rows, ``played`` slots emptied."""
    rng = np.random.default_rng(seed)
    game = Game(4)
    game.deal(seed)
    hands = sample_hands(list(range(1, 105)), 4, 10, 40, rng)
    hands[:, :, :played] = EMPTY
    return batch_from_rows(game.rows, hands), hands


@pytest.mark.parametrize("played", [0, 3, 8])
def test_the_fast_scores_are_the_features_times_the_weights(played: int) -> None:
    for seed in range(5):
        batch, hands = random_batch(seed, played)
        weights = np.random.default_rng(seed).normal(size=len(FEATURE_NAMES)).astype(np.float32)
        expected = card_features(batch) @ weights  # type: ignore[arg-type]
        fast = card_logits(batch, weights)  # type: ignore[arg-type]
        real = hands != EMPTY
        assert np.allclose(fast[real], expected[real], atol=1e-4)


def test_the_model_policy_plays_only_cards_in_hand() -> None:
    batch, hands = random_batch(3, 4)
    policy = ModelPolicy(np.random.default_rng(1))
    for _ in range(5):
        slots = policy(batch)  # type: ignore[arg-type]
        chosen = np.take_along_axis(hands, slots[..., None], axis=-1)
        assert (chosen != EMPTY).all()


def test_the_shipped_weights_name_the_models_features() -> None:
    document = json.loads(resources.files("nimmt.bots").joinpath("policy_weights.json").read_text())
    assert tuple(document["features"]) == FEATURE_NAMES
    assert shipped_weights().shape == (len(FEATURE_NAMES),)
    # A card that takes a row must look worse to the model than one that does not.
    assert shipped_weights()[FEATURE_NAMES.index("cost")] < 0


def last_two_cards_view() -> SeatView:
    """Seat 0 holds 55 and 95 for the last two turns: 55 would be the sixth card of a row of 15
    bullheads, 95 lands safely on a short row."""
    game = Game.from_position(
        rows=[[10, 11, 12, 13, 33], [60], [70], [90]],
        hands=[[55, 95], [61, 71], [62, 72], [63, 73]],
    )
    return game.view(0)


def test_hard_solves_the_last_turns_exactly_and_avoids_the_sixth_card() -> None:
    view = last_two_cards_view()
    bot = make_bot("hard", 1)
    assert isinstance(bot, StrongBot)
    assert bot.exact_deals(2, 4) > 0
    assert bot.exact_deals(2, 10) == 0  # too many joint choices: rolled out instead
    assert bot.choose_card(view) == 95


def test_hard_v1_is_the_former_hard_frozen_and_not_offered() -> None:
    assert "hard-v1" not in BOT_NAMES and "hard" in BOT_NAMES
    game = Game(4)
    game.deal(11)
    view = game.view(2)
    for seed in range(2):
        frozen = make_bot("hard-v1", seed).choose_card(view)
        assert make_bot("hard-v1", seed).choose_card(view) == frozen
        # The same search as ``search:samples=1024`` (softmin rollouts), draw for draw.
        assert make_bot("search:samples=1024", seed).choose_card(view) == frozen
    assert make_bot(" Hard-V1 ", 1).name == "hard-v1"


def test_hard_v2_is_frozen_for_the_arena_and_hard_is_its_search_compiled() -> None:
    assert "hard-v2" not in BOT_NAMES
    game = Game(4)
    game.deal(13)
    view = game.view(1)
    bot = make_bot("hard-v2", 3)
    assert isinstance(bot, StrongBot) and bot.settings == StrongSettings(core="numpy")
    hard = make_bot("hard", 3)
    assert isinstance(hard, StrongBot) and hard.settings == StrongSettings(core="numba")
    # The same draws in either core: the same card, barring a near tie of two noisy scores.
    assert bot.choose_card(view) == hard.choose_card(view)


def test_hard_is_deterministic_given_a_seed() -> None:
    game = Game(4)
    game.deal(12)
    view = game.view(1)
    for seed in range(2):
        assert make_bot("hard", seed).choose_card(view) == make_bot("hard", seed).choose_card(view)


@pytest.mark.parametrize(
    ("players", "name"),
    [
        (2, "strong:samples=16,core=numpy"),
        (4, "strong:samples=16,core=numba"),
        # (A full refinement stage at 10 seats in numpy costs half a minute; legality needs none.)
        (10, "strong:samples=16,more=16,row_samples=64,core=numpy"),
        # The others' cards of this turn by their worth (nimmt.bots.levelk).
        (4, "strong:samples=64,more=64,core=numba,level2=0.4,level2_deals=8,level2_rollouts=4"),
        # ... with each other seat's weight judged from its plays (level2_adapt).
        (
            3,
            "strong:samples=32,more=32,core=numba,level2=0.4,level2_deals=4,level2_rollouts=2,"
            "level2_adapt=1,level2_hands=4,level2_futures=2",
        ),
        # ... from a prior leaning to the model alone (level2_zero).
        (
            4,
            "strong:samples=32,more=32,core=numba,level2=0.4,level2_deals=4,level2_rollouts=2,"
            "level2_adapt=1,level2_zero=0.8,level2_hands=4,level2_futures=2",
        ),
    ],
)
def test_a_small_strong_search_plays_legal_rounds(players: int, name: str) -> None:
    game = Game(players)
    game.deal(players)
    bots = [make_bot(name, seat) for seat in range(players)]
    while game.phase in (Phase.CHOOSING_CARDS, Phase.CHOOSING_ROW):
        pending = game.pending_row_choice
        if pending is not None:
            row = bots[pending.seat].choose_row(game.view(pending.seat))
            assert row in range(4)
            game.choose_row(pending.seat, row)
            continue
        for seat in game.waiting_for():
            view = game.view(seat)
            card = bots[seat].choose_card(view)
            assert card in view.legal_cards()
            game.play(seat, card)
            if game.phase is not Phase.CHOOSING_CARDS:
                break
    assert game.history[-1].penalties is not None


def test_a_weights_file_of_the_fit_s_format_replaces_the_shipped_one(tmp_path: Path) -> None:
    document = json.loads(resources.files("nimmt.bots").joinpath("policy_weights.json").read_text())
    document["weights"] = [0.0] * len(FEATURE_NAMES)
    path = tmp_path / "flat.json"
    path.write_text(json.dumps(document))
    np.testing.assert_array_equal(shipped_weights(str(path)), np.zeros(len(FEATURE_NAMES)))
    bot = make_bot(f"strong:weights={path},samples=16", 1)
    game = Game(4)
    game.deal(4)
    assert bot.choose_card(game.view(0)) in game.view(0).hand
    document["features"] = ["cost"]
    path.write_text(json.dumps(document))
    shipped_weights.cache_clear()
    with pytest.raises(UnknownBotError, match="does not match"):
        make_bot(f"strong:weights={path}", 1)


def test_the_own_temperature_changes_only_the_deciding_seat_s_draws() -> None:
    batch, hands = random_batch(3, 2)
    assert isinstance(batch, Batch)
    same = ModelPolicy(np.random.default_rng(1), own_temperature=1.0)(batch)
    np.testing.assert_array_equal(same, ModelPolicy(np.random.default_rng(1))(batch))
    firm = ModelPolicy(np.random.default_rng(1), own_temperature=1e-6)(batch)
    np.testing.assert_array_equal(firm[:, 1:], same[:, 1:])
    # Near zero, seat 0 always plays the model's favourite card.
    logits = card_logits(batch, shipped_weights())
    logits[hands == EMPTY] = -np.inf
    np.testing.assert_array_equal(firm[:, 0], logits[:, 0].argmax(axis=-1))
    assert (same[:, 0] != firm[:, 0]).any()


def test_strong_settings_parse_and_bad_ones_are_refused() -> None:
    bot = make_bot("strong:samples=64,policy=softmin,endgame=0", 1)
    assert isinstance(bot, StrongBot)
    assert bot.settings == StrongSettings(samples=64, policy="softmin", endgame=0)
    assert make_bot("strong:core=numba", 1).settings.core == "numba"  # type: ignore[attr-defined]
    assert make_bot("strong:adapt=2", 1).settings.adapt == 2.0  # type: ignore[attr-defined]
    assert make_bot("hard-v2", 1).settings.adapt == 0.0  # type: ignore[attr-defined]
    assert make_bot("hard", 1).settings.weights == "policy_weights.json"  # type: ignore[attr-defined]
    own = make_bot("strong:own_temperature=0.5", 1).settings  # type: ignore[attr-defined]
    assert own.own_temperature == 0.5 and own.temperature == 1.0
    bad = ("strong:samples=0", "strong:policy=oracle", "strong:depth=3", "strong:samples=x")
    refused = ("strong:core=cuda", "strong:adapt=0.5", "strong:adapt=-1")
    assert make_bot("hard", 1).settings.own_weights == ""  # type: ignore[attr-defined]
    files = ("strong:weights=/no/such.json", "strong:own_weights=/no/such.json", "strong:weights=")
    for name in (*bad, *refused, "strong:own_temperature=-1", *files):
        with pytest.raises(UnknownBotError, match="unknown bot"):
            make_bot(name, 1)


def test_fitting_recovers_the_weights_that_made_the_choices() -> None:
    # Choices drawn from a known model on random positions: the fitted model must come close
    # to it and explain the choices better than zero weights (uniform play) do.
    rng = np.random.default_rng(5)
    truth = np.zeros(len(FEATURE_NAMES))
    truth[FEATURE_NAMES.index("cost")] = -0.8
    truth[FEATURE_NAMES.index("gap")] = -0.5
    truth[FEATURE_NAMES.index("card")] = 1.5
    features, masks, chosen = [], [], []
    for seed in range(300):
        batch, hands = random_batch(seed, seed % 8)
        feature = card_features(batch)[:, 0].astype(np.float64)  # type: ignore[arg-type]
        mask = hands[:, 0] != EMPTY
        scores = np.where(mask, feature @ truth, -np.inf)
        gumbel = -np.log(-np.log(rng.random(scores.shape)))
        features.append(feature)
        masks.append(mask)
        chosen.append((scores + gumbel).argmax(axis=1))
    data, mask, choice = np.concatenate(features), np.concatenate(masks), np.concatenate(chosen)
    weights, loglik = fit_weights(data, mask, choice, l2=0.1)
    assert loglik > float(np.mean(-np.log(mask.sum(axis=1))))
    for name in ("cost", "gap", "card"):
        index = FEATURE_NAMES.index(name)
        assert weights[index] == pytest.approx(truth[index], abs=0.35)


def test_scoring_some_cards_gives_them_the_scores_of_scoring_all() -> None:
    # Greedy rollouts draw nothing, so the same seed gives the same sampled deals: the scores of
    # a subset of the cards must be exactly those cards' scores in the full evaluation.
    game = Game(4)
    game.deal(21)
    view = game.view(2)
    hand, every = card_scores(view, 64, np.random.default_rng(5))
    slots = [7, 0, 4]
    same_hand, some = card_scores(view, 64, np.random.default_rng(5), slots=slots)
    assert same_hand == hand
    assert np.array_equal(some, every[slots])


@pytest.mark.parametrize(
    ("budget", "expected"),
    [
        # Every card once, then the three best so far on fresh deals, then the two best of those.
        (None, [10, 3, 2]),
        # No time left after the first look: every card once, and no more deals.
        (1e-9, [10]),
    ],
)
def test_hard_gives_more_deals_only_to_the_close_cards_while_it_has_time(
    monkeypatch: pytest.MonkeyPatch, budget: float | None, expected: list[int]
) -> None:
    game = Game(4)
    game.deal(22)
    view = game.view(0)
    tried: list[int] = []

    def counting(*args: Any, slots: Any = None, **options: Any) -> Any:
        tried.append(len(view.hand) if slots is None else len(slots))
        options["slots"] = slots  # in **options: beside *args, mypy would see it given twice
        return card_scores(*args, **options)

    monkeypatch.setattr(strong, "card_scores", counting)
    bot = make_bot("hard", 3)
    assert isinstance(bot, StrongBot)
    assert (bot.settings.keep, bot.settings.stages, bot.settings.budget) == (3, 2, 0)
    player = bot if budget is None else make_bot("hard", 3, limit=Limit(seconds=budget))
    assert isinstance(player, StrongBot) and bot.settings.budget == 0
    assert player.choose_card(view) in view.hand
    assert tried == expected


def test_only_hard_takes_a_budget() -> None:
    greedy = make_bot("greedy", 1, limit=Limit(seconds=1.0))
    assert isinstance(greedy, GreedyBot)


def test_hard_uses_beliefs_from_four_seats_and_once_a_turn_was_played(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    used: list[tuple[int, int]] = []
    original = belief  # what strong calls (from nimmt.bots.belief)

    def recording(view: SeatView, *args: Any) -> Any:
        used.append((view.players, view.turn))
        return original(view, *args)

    monkeypatch.setattr(strong, "belief", recording)
    for players in (3, 4):
        game = Game(players)
        game.deal(24)
        for _ in range(2):
            make_bot("strong:samples=32,more=32", 5).choose_card(game.view(0))
            cards = [min(game.view(seat).hand) for seat in range(players)]
            below = min(cards) < min(row[-1] for row in game.rows)
            game.play_turn(cards, 0 if below else None)
    assert used == [(4, 1)]


def test_a_limit_is_taken_at_construction_and_must_be_positive() -> None:
    limited = make_bot("strong:samples=16", 1, limit=Limit(seconds=0.5))
    assert isinstance(limited, StrongBot) and limited.settings.budget == 0.5
    unlimited = make_bot("strong:budget=2.0", 1, limit=Limit())
    assert isinstance(unlimited, StrongBot) and unlimited.settings.budget == 2.0
    with pytest.raises(ValueError):
        Limit(seconds=0)


def test_adapt_reaches_the_beliefs_and_plays_legal_cards(monkeypatch: pytest.MonkeyPatch) -> None:
    adapts: list[float] = []
    original = belief

    def recording(view: SeatView, *args: Any) -> Any:
        adapts.append(args[-1])
        return original(view, *args)

    monkeypatch.setattr(strong, "belief", recording)
    game = Game(4)
    game.deal(31)
    cards = [min(game.view(seat).hand) for seat in range(4)]
    game.play_turn(cards, 0 if min(cards) < min(row[-1] for row in game.rows) else None)
    for name in ("strong:samples=32,more=32,adapt=3", "strong:samples=32,more=32"):
        view = game.view(0)
        assert make_bot(name, 2).choose_card(view) in view.legal_cards()
    assert adapts == [3.0, 0.0]
