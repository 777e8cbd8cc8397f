"""The vector environment's own behaviour (its games are checked against the engine in
``test_vector_matches_single.py``)."""

from __future__ import annotations

import subprocess
import sys

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

from nimmt.env import ENV_ID, EnvConfigError, IllegalActionError, VectorEnv


def test_make_vec_builds_the_numpy_vector_environment() -> None:
    envs = gymnasium.make_vec(ENV_ID, num_envs=3, opponents="random", players=5)
    assert isinstance(envs.unwrapped, VectorEnv)
    assert envs.metadata["autoreset_mode"] is AutoresetMode.NEXT_STEP
    obs, info = envs.reset(seed=4)
    assert obs.shape == (3, 222 + 3 * 5) and obs.dtype == np.float32
    assert envs.observation_space.contains(obs)
    assert info["action_mask"].shape == (3, 108)
    assert (info["action_mask"].sum(axis=1) == 10).all()


def test_seeds_give_the_same_games_and_different_envs_differ() -> None:
    first, _ = VectorEnv(num_envs=4).reset(seed=[8, 9, 10, 11])
    second, _ = VectorEnv(num_envs=4).reset(seed=8)
    np.testing.assert_array_equal(first, second)
    assert len({row.tobytes() for row in first}) == 4


def test_an_illegal_action_plays_the_first_legal_one() -> None:
    envs = VectorEnv(num_envs=2, opponents="greedy")
    _, info = envs.reset(seed=1)
    lowest = info["action_mask"].argmax(axis=1)
    illegal = np.flatnonzero(info["action_mask"][0] == 0)[-1]
    reference = VectorEnv(num_envs=2, opponents="greedy")
    reference.reset(seed=1)
    obs, rewards, _, _, info = envs.step(np.array([illegal, lowest[1]]))
    expected, expected_rewards, *_ = reference.step(lowest)
    np.testing.assert_array_equal(obs, expected)
    np.testing.assert_array_equal(rewards, expected_rewards)
    assert list(info["illegal_action"]) == [True, False]


def test_raise_refuses_an_illegal_action_and_changes_nothing() -> None:
    envs = VectorEnv(num_envs=2, illegal_action="raise")
    before, _ = envs.reset(seed=3)
    mask = envs.action_masks()
    illegal = int(np.flatnonzero(mask[1] == 0)[0])
    with pytest.raises(IllegalActionError, match=f"environment 1: play card {illegal + 1} is not"):
        envs.step(np.array([mask[0].argmax(), illegal]))
    np.testing.assert_array_equal(envs._observations(), before)


@pytest.mark.parametrize("actions", [[0], [0.5, 1.5], [[0, 1], [2, 3]]])
def test_actions_of_the_wrong_shape_or_type_are_refused(actions: object) -> None:
    envs = VectorEnv(num_envs=2)
    envs.reset(seed=3)
    with pytest.raises(IllegalActionError, match="actions must be 2 whole numbers"):
        envs.step(np.array(actions))


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"opponents": "hard"}, "only random and greedy opponents, not 'hard'"),
        ({"num_envs": 0}, "num_envs must be a whole number of 1 or more"),
        ({"players": 1}, "2 to 10 players, not 1"),
    ],
)
def test_bad_options_are_refused_clearly(options: dict[str, object], message: str) -> None:
    with pytest.raises(EnvConfigError, match=message):
        VectorEnv(**options)  # type: ignore[arg-type]


def test_a_position_is_refused_with_the_way_to_play_one() -> None:
    with pytest.raises(EnvConfigError, match="use ClassicEnv for a position"):
        VectorEnv(num_envs=2).reset(options={"position": {}})


def test_nimmt_works_without_the_ai_extra_and_nimmt_env_says_what_is_missing() -> None:
    script = (
        "import sys\n"
        "sys.modules['gymnasium'] = None\n"
        "sys.modules['pettingzoo'] = None\n"
        "import nimmt.engine, nimmt.bots, nimmt.arena, nimmt.cli\n"
        "try:\n"
        "    import nimmt.env\n"
        "except ImportError as error:\n"
        "    print(error)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == (
        "nimmt.env needs gymnasium and pettingzoo: install the ai extra, "
        "e.g. pip install 'nimmt[ai]' (or uv sync --extra ai)"
    )


@pytest.mark.parametrize("players", [2, 10])
def test_whole_games_stay_in_the_observation_space(players: int) -> None:
    envs = VectorEnv(num_envs=16, opponents="random", players=players, episode="game")
    rng = np.random.default_rng(players)
    obs, info = envs.reset(seed=players)
    layout = envs.layout
    games = 0
    while games < 16:
        assert envs.observation_space.contains(obs)
        hands = obs[:, :104].sum(axis=1)
        assert (
            (hands == 10 - obs[:, layout.turn] - obs[:, layout.must_take_row])
            | ~info["action_mask"].any(axis=1)
        ).all()
        actions = (rng.random((16, 108)) * info["action_mask"]).argmax(axis=1)
        obs, _, terminated, _, info = envs.step(actions)
        over = obs[terminated][:, layout.totals].max(axis=1)
        assert (over > 66).all()
        games += int(terminated.sum())
