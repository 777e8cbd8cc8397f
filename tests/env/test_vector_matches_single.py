"""The vector environment, game for game against the single one on the engine.

Sub-environment ``i`` of a :class:`VectorEnv` reset with ``seed`` must play exactly what a
:class:`ClassicEnv` reset with ``seed + i`` plays for the same actions: the same observations,
masks, rewards and terminations at every step, through the autoreset that starts the next
episode (the single environment is then reset without a seed, as its generator goes on).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from nimmt.env import ClassicEnv, VectorEnv

CASES = [
    pytest.param({"opponents": "greedy"}, 4, id="greedy-4"),
    pytest.param({"opponents": "random"}, 4, id="random-4"),
    pytest.param({"opponents": ["random", "greedy"]}, 3, id="mixed-3"),
    pytest.param({"opponents": "random", "players": 2}, 2, id="random-2"),
    pytest.param({"opponents": ["greedy", "random"] * 4 + ["random"]}, 10, id="mixed-10"),
    pytest.param({"opponents": "random", "reward": "relative"}, 4, id="relative-4"),
    pytest.param(
        {"opponents": ["random", "greedy", "random"], "episode": "game"},
        4,
        id="game-4",
        marks=pytest.mark.slow,
    ),
]


@pytest.mark.parametrize(("options", "players"), CASES)
def test_every_step_matches_the_engine(options: dict[str, Any], players: int) -> None:
    envs = 12
    steps = 70 if options.get("episode") != "game" else 260
    seed = 1000 + players
    vector = VectorEnv(num_envs=envs, **options)
    singles = [ClassicEnv(**options) for _ in range(envs)]
    assert vector.players == players == singles[0].players
    obs, info = vector.reset(seed=seed)
    for index, single in enumerate(singles):
        single_obs, single_info = single.reset(seed=seed + index)
        np.testing.assert_array_equal(obs[index], single_obs)
        np.testing.assert_array_equal(info["action_mask"][index], single_info["action_mask"])
    chooser = np.random.default_rng(seed)
    finished = np.zeros(envs, dtype=bool)
    episodes = rows_chosen = 0
    for _ in range(steps):
        masks = info["action_mask"]
        actions = np.array(
            [chooser.choice(np.flatnonzero(mask)) if mask.any() else 0 for mask in masks]
        )
        rows_chosen += int((actions >= 104).sum())
        obs, rewards, terminated, truncated, info = vector.step(actions)
        assert not truncated.any()
        for index, single in enumerate(singles):
            if finished[index]:
                single_obs, single_info = single.reset()
                single_reward, single_done = 0.0, False
            else:
                single_obs, single_reward, single_done, _, single_info = single.step(
                    int(actions[index])
                )
            np.testing.assert_array_equal(obs[index], single_obs)
            np.testing.assert_array_equal(info["action_mask"][index], single_info["action_mask"])
            assert rewards[index] == single_reward
            assert terminated[index] == single_done
        episodes += int(terminated.sum())
        finished = terminated
    assert episodes >= envs  # the comparison went through autoresets
    assert rows_chosen > 0  # and through the learning seat's own row choices


def test_a_vector_episode_scores_as_the_engine_does() -> None:
    """Over a round, the rewards add up to minus the bullheads the engine gave seat 0."""
    vector = VectorEnv(num_envs=5, opponents="greedy")
    single = ClassicEnv(opponents="greedy")
    _, info = vector.reset(seed=7)
    totals = np.zeros(5)
    done = np.zeros(5, dtype=bool)
    while not done.all():
        actions = info["action_mask"].argmax(axis=1)
        _, rewards, terminated, _, info = vector.step(actions)
        totals += np.where(done, 0, rewards)
        done |= terminated
    for index in range(5):
        single.reset(seed=7 + index)
        finished = False
        while not finished:
            _, _, finished, _, _ = single.step(int(single.action_masks().argmax()))
        assert totals[index] == -single.game.totals[0]
