"""``nimmt/Classic-v0``: Gymnasium's own checks, the encoding, rewards, row choices, refusals."""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from nimmt.engine import InvalidPositionError, total_bullheads
from nimmt.env import (
    ENV_ID,
    ROW_ACTION,
    ClassicEnv,
    EnvConfigError,
    IllegalActionError,
    Layout,
    encode_view,
)
from nimmt.env.encoding import HAND, ROW_BULLHEADS, ROW_END, ROW_LENGTH, SEEN

# Seat 0 holds 3 (below every row) and 60; seat 1 holds 53 (a sixth card) and 70 (free).
BELOW_EVERY_ROW: dict[str, Any] = {
    "rows": [[12, 14], [37], [43, 44, 50, 51, 52], [58]],
    "hands": [[3, 60], [53, 70]],
    "totals": [10, 20],
    "round": 3,
}


def play_episode(env: ClassicEnv, seed: int) -> tuple[float, int]:
    """Play the lowest legal action until the episode ends: (rewards added up, steps)."""
    _, info = env.reset(seed=seed)
    total, steps, done = 0.0, 0, False
    while not done:
        _, reward, done, truncated, info = env.step(int(info["action_mask"].argmax()))
        assert not truncated
        total += reward
        steps += 1
    return total, steps


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"opponents": "random", "players": 10},
        {"opponents": ["random"], "episode": "game", "reward": "relative"},
    ],
)
def test_passes_gymnasiums_checker(options: dict[str, Any]) -> None:
    check_env(gymnasium.make(ENV_ID, **options).unwrapped)


def test_registered_under_its_id_with_the_options() -> None:
    env = gymnasium.make(ENV_ID, opponents=["greedy", "random"])
    assert isinstance(env.unwrapped, ClassicEnv)
    assert env.unwrapped.players == 3
    assert env.observation_space.shape == (222 + 3 * 3,)
    assert env.action_space == gymnasium.spaces.Discrete(108)


def test_a_seed_fixes_the_deal_and_the_random_opponents() -> None:
    env = ClassicEnv(opponents="random")
    first = play_episode(env, 5)
    again = play_episode(env, 5)
    assert first == again
    hands = {tuple(ClassicEnv().reset(seed=seed)[0][HAND]) for seed in range(5)}
    assert len(hands) == 5


@pytest.mark.parametrize("opponents", ["greedy", "random", "easy"])
def test_a_round_rewards_minus_the_bullheads_seat_0_took(opponents: str) -> None:
    env = ClassicEnv(opponents=opponents)
    total, steps = play_episode(env, 3)
    game = env.game
    assert total == -game.totals[0]
    assert steps >= 10  # ten cards, and a step per row seat 0 had to take
    assert game.round == 1 and len(game.history[0].turns) == 10


def test_relative_reward_is_minus_own_bullheads_less_the_others_mean() -> None:
    env = ClassicEnv(opponents="random", reward="relative")
    total, _ = play_episode(env, 11)
    totals = env.game.totals
    assert total == pytest.approx(-(totals[0] - sum(totals[1:]) / 3))


def test_a_game_episode_ends_when_someone_passes_66() -> None:
    env = ClassicEnv(opponents="random", episode="game")
    total, steps = play_episode(env, 2)
    game = env.game
    assert game.outcome is not None and max(game.totals) > 66
    assert total == -game.totals[0]
    assert steps >= 10 * game.round


def test_the_row_choice_is_a_step_of_its_own() -> None:
    env = ClassicEnv(opponents="greedy", players=2)
    obs, info = env.reset(options={"position": BELOW_EVERY_ROW})
    layout = Layout(2)
    assert list(np.flatnonzero(info["action_mask"])) == [2, 59]  # cards 3 and 60
    obs, reward, done, _, info = env.step(2)  # card 3; greedy plays 70, which costs nothing
    assert (reward, done) == (0.0, False)
    assert obs[layout.must_take_row] == 1
    assert list(obs[layout.revealed]) == [3, 70]
    assert list(np.flatnonzero(info["action_mask"])) == [104, 105, 106, 107]
    assert obs[HAND].sum() == 1  # 3 is on the table, no longer in the hand
    obs, reward, done, _, info = env.step(ROW_ACTION)  # take row 0: 12 and 14
    assert reward == -total_bullheads([12, 14])
    assert obs[layout.must_take_row] == 0 and list(obs[layout.revealed]) == [0, 0]
    assert env.game.rows == ((3,), (37,), (43, 44, 50, 51, 52), (58, 70))


def test_the_observation_is_the_documented_encoding() -> None:
    env = ClassicEnv(opponents="greedy", players=2)
    obs, _ = env.reset(options={"position": BELOW_EVERY_ROW})
    layout = Layout(2)
    assert obs.shape == (layout.size,) == (228,)
    assert list(np.flatnonzero(obs[HAND]) + 1) == [3, 60]
    on_rows = [12, 14, 37, 43, 44, 50, 51, 52, 58]
    assert list(np.flatnonzero(obs[SEEN]) + 1) == sorted([3, 60, *on_rows])
    assert list(obs[ROW_END]) == [14, 37, 52, 58]
    assert list(obs[ROW_LENGTH]) == [2, 1, 5, 1]
    assert list(obs[ROW_BULLHEADS]) == [2, 1, 11, 1]  # 44 carries 5, 50 carries 3
    assert list(obs[layout.penalties]) == [0, 0]
    assert list(obs[layout.totals]) == [10, 20]
    assert obs[layout.turn] == 8
    assert env.observation_space.contains(obs)


def test_an_opponents_hand_never_reaches_the_observation() -> None:
    other = {**BELOW_EVERY_ROW, "hands": [[3, 60], [53, 71]]}  # 71 instead of 70
    first, second = ClassicEnv(players=2), ClassicEnv(players=2)
    np.testing.assert_array_equal(
        first.reset(options={"position": BELOW_EVERY_ROW})[0],
        second.reset(options={"position": other})[0],
    )


def test_an_opponent_below_every_row_takes_its_row_within_the_step() -> None:
    position = {"rows": [[12], [37], [43], [58]], "hands": [[60, 61], [3, 4]]}
    env = ClassicEnv(opponents="greedy", players=2)
    env.reset(options={"position": position})
    obs, reward, _, _, _ = env.step(59)  # 60; greedy plays 3 and takes the first cheapest row
    assert reward == 0.0
    assert obs[Layout(2).must_take_row] == 0
    assert list(obs[Layout(2).penalties]) == [0, 1]
    assert env.game.rows == ((3,), (37,), (43,), (58, 60))


def test_an_illegal_action_plays_the_first_legal_one_and_says_so() -> None:
    env = ClassicEnv(opponents="greedy", players=2)
    env.reset(options={"position": BELOW_EVERY_ROW})
    _, _, _, _, info = env.step(103)  # card 104 is not in the hand: card 3 is played
    assert info["illegal_action"] is True
    assert env.view().must_choose_row
    _, _, _, _, info = env.step(0)  # a card while a row must be taken: row 0
    assert info["illegal_action"] is True
    assert env.game.rows[0] == (3,)


@pytest.mark.parametrize("action", [103, 104, -1, 108, 2.5, "x"])
def test_raise_refuses_an_illegal_action_and_changes_nothing(action: Any) -> None:
    env = ClassicEnv(opponents="greedy", players=2, illegal_action="raise")
    obs, _ = env.reset(options={"position": BELOW_EVERY_ROW})
    with pytest.raises(
        IllegalActionError, match="is not legal now: play a card of the hand: 3, 60"
    ):
        env.step(action)
    np.testing.assert_array_equal(encode_view(env.view()), obs)
    assert env.game.event_count == 0


def test_a_step_after_the_end_or_before_a_reset_is_refused() -> None:
    env = ClassicEnv()
    with pytest.raises(IllegalActionError, match="call reset"):
        env.step(0)
    play_episode(env, 1)
    with pytest.raises(IllegalActionError, match="the episode is over"):
        env.step(0)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"opponents": "nobody"}, "unknown bot 'nobody'"),
        ({"opponents": "greedy", "players": 11}, "2 to 10 players, not 11"),
        ({"opponents": []}, "2 to 10 players, not 1"),
        ({"opponents": ["greedy"], "players": 3}, "1 opponents given for 3 players"),
        ({"episode": "match"}, "episode must be one of 'round', 'game'"),
        ({"reward": "score"}, "reward must be one of"),
        ({"illegal_action": "ignore"}, "illegal_action must be one of"),
        ({"render_mode": "human"}, "render_mode must be one of 'ansi'"),
    ],
)
def test_bad_options_are_refused_clearly(options: dict[str, Any], message: str) -> None:
    with pytest.raises(EnvConfigError, match=message):
        ClassicEnv(**options)


def test_a_bad_position_is_refused_and_the_game_goes_on() -> None:
    env = ClassicEnv(players=2)
    obs, _ = env.reset(options={"position": BELOW_EVERY_ROW})
    with pytest.raises(InvalidPositionError, match="card 37 appears more than once"):
        env.reset(options={"position": {**BELOW_EVERY_ROW, "hands": [[3, 37], [53, 70]]}})
    with pytest.raises(EnvConfigError, match="the position has 3 seats, the environment 2"):
        env.reset(
            options={"position": {**BELOW_EVERY_ROW, "hands": [[3], [53], [70]], "totals": None}}
        )
    np.testing.assert_array_equal(encode_view(env.view()), obs)


def test_ansi_render_shows_the_rows_and_the_hand() -> None:
    env = ClassicEnv(players=2, render_mode="ansi")
    env.reset(options={"position": BELOW_EVERY_ROW})
    text = env.render()
    assert text is not None
    assert "row 2: [43, 44, 50, 51, 52]" in text and "hand: [3, 60]" in text
