"""The vector environment, game for game against the single one on the engine.

Sub-environment ``i`` of a :class:`VectorEnv` reset with ``seed`` must play exactly what a
:class:`ClassicEnv` reset with ``seed + i`` plays for the same actions: the same observations,
masks, rewards and terminations at every step, through the autoreset that starts the next
episode (the single environment is then reset without a seed, as its generator goes on). With
opponents that are policies too: the vector environment asks each policy once a step for every
sub-environment and seat it plays, the single one once per seat and decision.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from nimmt.bots.saved import Network
from nimmt.env import ClassicEnv, VectorEnv
from nimmt.env.encoding import ROW_ACTION
from nimmt.env.policies import SnapshotPolicy, greedy


class Counted:
    """A policy that counts the card and row decisions it is asked for."""

    def __init__(self, policy: Any) -> None:
        self.policy = policy
        self.cards = self.rows = 0

    def __call__(self, observations: npt.NDArray[np.float32], masks: Any) -> Any:
        rows = masks[:, ROW_ACTION:].any(axis=1)
        self.rows += int(rows.sum())
        self.cards += int((~rows).sum())
        return self.policy(observations, masks)


SNAPSHOT = SnapshotPolicy(Network.initial(8, np.random.default_rng(11), scale=1.0))
OTHER = SnapshotPolicy(Network.initial(8, np.random.default_rng(12), scale=1.0))

CASES = [
    pytest.param({"opponents": "greedy"}, 4, id="greedy-4"),
    pytest.param({"opponents": "random"}, 4, id="random-4"),
    pytest.param({"opponents": ["random", "greedy"]}, 3, id="mixed-3"),
    pytest.param({"opponents": "random", "players": 2}, 2, id="random-2"),
    pytest.param({"opponents": ["greedy", "random"] * 4 + ["random"]}, 10, id="mixed-10"),
    pytest.param({"opponents": "random", "reward": "relative"}, 4, id="relative-4"),
    pytest.param({"opponents": SNAPSHOT}, 4, id="snapshot-4"),
    pytest.param({"opponents": [SNAPSHOT, "random", OTHER, SNAPSHOT, greedy]}, 6, id="league-6"),
    pytest.param({"opponents": [greedy, SNAPSHOT], "reward": "relative"}, 3, id="policies-3"),
    pytest.param(
        {"opponents": ["random", "greedy", "random"], "episode": "game"},
        4,
        id="game-4",
        marks=pytest.mark.slow,
    ),
]


@pytest.mark.parametrize(("options", "players"), CASES)
def test_every_step_matches_the_engine(options: dict[str, Any], players: int) -> None:
    steps = 70 if options.get("episode") != "game" else 260
    compare(options, players, steps, VectorEnv(num_envs=12, **options))


def test_a_policy_file_plays_the_same_in_both(tmp_path: Path) -> None:
    path = Network.initial(8, np.random.default_rng(5), scale=1.0).save(tmp_path / "p.npz")
    options = {"opponents": [f"policy:{path}", "greedy", f"policy:{path}"]}
    counted = Counted(SnapshotPolicy.from_file(path))
    compare(options, 4, 70, VectorEnv(num_envs=12, opponents=[counted, "greedy", counted]))
    assert counted.cards > 0 and counted.rows > 0  # its row choices were compared too


def compare(options: dict[str, Any], players: int, steps: int, vector: VectorEnv) -> None:
    envs = vector.num_envs
    seed = 1000 + players
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
