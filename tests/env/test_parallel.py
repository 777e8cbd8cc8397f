"""The PettingZoo environment: its API test, the row choice step, and each agent's own view."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from pettingzoo.test import parallel_api_test  # type: ignore[import-untyped]

from nimmt.env import EnvConfigError, IllegalActionError, Layout, parallel_env

POSITION: dict[str, Any] = {
    "rows": [[12, 14], [37], [43, 44, 50, 51, 52], [58]],
    "hands": [[3, 60], [53, 70], [20, 90]],
    "totals": [10, 20, 0],
}


@pytest.mark.parametrize(
    "options",
    [{"players": 2}, {"players": 4}, {"players": 10}, {"players": 3, "episode": "game"}],
)
def test_passes_pettingzoos_parallel_api_test(options: dict[str, Any]) -> None:
    parallel_api_test(parallel_env(**options), num_cycles=1000)


def test_another_seats_hand_never_reaches_an_observation() -> None:
    """Two games that differ only in player_1's hand look the same to player_0 and player_2."""
    other = {**POSITION, "hands": [[3, 60], [53, 71], [20, 90]]}  # 71 instead of 70
    first, second = parallel_env(players=3), parallel_env(players=3)
    observations = [first.reset(options={"position": POSITION})[0]]
    observations.append(second.reset(options={"position": other})[0])
    actions = {"player_0": 59, "player_1": 52, "player_2": 19}  # 60, 53 and 20: 71 stays hidden
    observations += [first.step(actions)[0], second.step(actions)[0]]
    for one, two in [(observations[0], observations[1]), (observations[2], observations[3])]:
        for agent in ("player_0", "player_2"):
            np.testing.assert_array_equal(one[agent]["observation"], two[agent]["observation"])
            np.testing.assert_array_equal(one[agent]["action_mask"], two[agent]["action_mask"])
        assert not np.array_equal(one["player_1"]["observation"], two["player_1"]["observation"])


def test_the_owner_of_a_card_below_every_row_chooses_alone() -> None:
    env = parallel_env(players=3)
    env.reset(options={"position": POSITION})
    observations, rewards, *_ = env.step({"player_0": 2, "player_1": 69, "player_2": 89})
    assert set(rewards.values()) == {0.0}
    assert list(np.flatnonzero(observations["player_0"]["action_mask"])) == [104, 105, 106, 107]
    for agent in ("player_1", "player_2"):
        assert not observations[agent]["action_mask"].any()
        assert observations[agent]["observation"][Layout(3).must_take_row] == 0
    # Only player_0's action counts; the others' are ignored (and may be left out).
    observations, rewards, terminations, *_ = env.step({"player_0": 106, "player_1": 0})
    assert rewards == {"player_0": -11.0, "player_1": 0.0, "player_2": 0.0}  # row 2: 11 heads
    assert env.game.rows == ((12, 14), (37,), (3,), (58, 70, 90))
    assert terminations == dict.fromkeys(env.possible_agents, False)
    assert all(observations[agent]["action_mask"].sum() == 1 for agent in env.agents)


def test_a_round_rewards_each_agent_minus_its_bullheads() -> None:
    env = parallel_env(players=4)
    observations, _ = env.reset(seed=9)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    while env.agents:
        actions = {
            agent: int(observations[agent]["action_mask"].argmax())
            for agent in env.agents
            if observations[agent]["action_mask"].any()
        }
        observations, rewards, *_ = env.step(actions)
        for agent, reward in rewards.items():
            totals[agent] += reward
    assert [-totals[agent] for agent in env.possible_agents] == list(env.game.totals)
    assert sum(env.game.totals) > 0


def test_a_missing_card_is_refused_and_changes_nothing() -> None:
    env = parallel_env(players=3, illegal_action="raise")
    env.reset(options={"position": POSITION})
    with pytest.raises(IllegalActionError, match="no action given for player_2"):
        env.step({"player_0": 2, "player_1": 69})
    with pytest.raises(IllegalActionError, match=r"player_1 \(play card 1\) is not legal now"):
        env.step({"player_0": 2, "player_1": 0, "player_2": 19})
    with pytest.raises(EnvConfigError, match="there is no agent 'player_7'"):
        env.step({"player_7": 2})
    assert env.game.event_count == 0 and env.game.waiting_for() == (0, 1, 2)


def test_bad_player_counts_are_refused() -> None:
    with pytest.raises(EnvConfigError, match="2 to 10 players, not 11"):
        parallel_env(players=11)
