"""Opponents that are policies (``nimmt.env.policies``): what they are given, that a snapshot
stays as frozen as its weights, the built-in bots as policies, and the refusals. (Their games are
checked against the engine in ``test_vector_matches_single.py``.)"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from nimmt.bots.saved import Decisions, Network
from nimmt.engine import Phase
from nimmt.env import ClassicEnv, EnvConfigError, IllegalActionError, VectorEnv
from nimmt.env.encoding import CARDS, HAND, ROW_ACTION, ROW_END, SEEN
from nimmt.env.policies import RandomPolicy, SnapshotPolicy, decisions, greedy

Obs = npt.NDArray[np.float32]


class Recorder:
    """A policy that keeps every observation, mask and answer it gives."""

    def __init__(self, policy: Any) -> None:
        self.policy = policy
        self.calls: list[tuple[Obs, Any, Any]] = []

    def __call__(self, observations: Obs, masks: Any) -> Any:
        actions = np.asarray(self.policy(observations, masks))
        self.calls.append((observations.copy(), masks.copy(), actions))
        return actions


def network(seed: int) -> Network:
    return Network.initial(8, np.random.default_rng(seed), scale=1.0)


def play(envs: VectorEnv, steps: int, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    _, info = envs.reset(seed=seed)
    for _ in range(steps):
        actions = (rng.random(info["action_mask"].shape) * info["action_mask"]).argmax(axis=1)
        _, _, _, _, info = envs.step(actions)


def test_a_policy_is_given_its_own_seats_observations_and_masks() -> None:
    recorder = Recorder(SnapshotPolicy(network(1)))
    envs = VectorEnv(num_envs=16, opponents=[recorder, "greedy", recorder])
    layout = envs.layout
    play(envs, 60)
    card_rows = row_rows = 0
    for obs, masks, actions in recorder.calls:
        rows = masks[:, ROW_ACTION:].any(axis=1)
        choosing = obs[:, layout.must_take_row] == 1
        np.testing.assert_array_equal(rows, choosing)
        assert ((masks[:, ROW_ACTION:] == 1) == rows[:, None]).all()  # all four rows, or none
        hand = obs[:, HAND] == 1
        np.testing.assert_array_equal(masks[~rows, :CARDS] == 1, hand[~rows])  # its own hand
        assert not masks[rows, :CARDS].any()
        assert (obs[:, SEEN][hand] == 1).all()  # it has seen its own cards
        turn = obs[:, layout.turn]
        np.testing.assert_array_equal(hand.sum(axis=1), 10 - turn - rows)
        revealed = obs[:, layout.revealed]
        assert (revealed[~rows] == 0).all()
        own = revealed[rows, 0]  # its own card first: the lowest, below every row
        assert (own == revealed[rows].min(axis=1)).all()
        assert (own < obs[rows][:, ROW_END].min(axis=1)).all()
        assert ((actions >= ROW_ACTION) == rows).all()
        card_rows += int((~rows).sum())
        row_rows += int(rows.sum())
    assert len(recorder.calls) >= 60  # one call a step for both seats, and the row choices
    assert card_rows >= 60 * 16 and row_rows > 0


def test_a_snapshot_plays_its_frozen_weights() -> None:
    learner = network(2)
    snapshot = SnapshotPolicy(learner)
    frozen = learner.copy()
    learner.w1 += 3.0  # the learner goes on training
    learner.linear[:] = np.random.default_rng(0).normal(0, 5, learner.linear.shape)
    env = ClassicEnv(opponents=[snapshot, snapshot, snapshot])
    env.reset(seed=4)
    moved = 0
    while env.game.phase is not Phase.DEALING:
        views = [env.game.view(seat) for seat in (1, 2, 3)]
        frozen_cards = [int(frozen.choose(Decisions.from_views([v]))[0]) for v in views]
        learner_cards = [int(learner.choose(Decisions.from_views([v]))[0]) for v in views]
        env.step(int(env.action_masks().argmax()))
        if env.game.pending_row_choice is not None:
            env.step(int(env.action_masks().argmax()))
        cards = env.game.history[-1].turns[-1].cards
        hands = [view.hand for view in views]
        assert [hands[i][frozen_cards[i]] for i in range(3)] == list(cards[1:])
        moved += sum(a != b for a, b in zip(frozen_cards, learner_cards, strict=True))
    assert moved > 0  # the learner's new weights would have played otherwise


def test_the_observations_give_the_decisions_the_views_give() -> None:
    env = ClassicEnv(opponents="random", players=5)
    rng = np.random.default_rng(3)
    obs, info = env.reset(seed=3)
    checked = 0
    for _ in range(200):
        mask = info["action_mask"]
        ours = decisions(obs[None], mask[None])
        theirs = Decisions.from_views([env.view()])
        for name in ("hands", "seen", "ends", "lengths", "heads", "legal"):
            np.testing.assert_array_equal(getattr(ours, name), getattr(theirs, name), name)
        checked += int(theirs.legal[0, 10:].any())
        obs, _, done, _, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        if done:
            obs, info = env.reset()
    assert checked > 0  # row choices among them


def test_greedy_as_a_policy_plays_as_the_built_in_greedy() -> None:
    built_in = VectorEnv(num_envs=16, opponents="greedy", players=5)
    policy = VectorEnv(num_envs=16, opponents=greedy, players=5)
    rng = np.random.default_rng(1)
    first, info = built_in.reset(seed=9)
    second, _ = policy.reset(seed=9)
    for _ in range(50):
        np.testing.assert_array_equal(first, second)
        actions = (rng.random((16, 108)) * info["action_mask"]).argmax(axis=1)
        first, rewards, *_, info = built_in.step(actions)
        second, other_rewards, *_ = policy.step(actions)
        np.testing.assert_array_equal(rewards, other_rewards)


def test_random_as_a_policy_plays_legal_moves() -> None:
    recorder = Recorder(RandomPolicy(np.random.default_rng(0)))
    play(VectorEnv(num_envs=8, opponents=recorder), 40)
    for _, masks, actions in recorder.calls:
        assert (masks[np.arange(actions.size), actions] == 1).all()
    assert len({int(a) for _, _, actions in recorder.calls for a in actions}) > 20


def test_a_policy_that_plays_an_illegal_action_is_named() -> None:
    def lowest_action(observations: Obs, masks: Any) -> Any:
        return np.zeros(len(masks), dtype=np.int64)  # card 1, which few hands hold

    envs = VectorEnv(num_envs=4, opponents=["greedy", lowest_action])
    envs.reset(seed=2)
    with pytest.raises(IllegalActionError, match=r"'lowest_action' chose play card 1 in env"):
        envs.step(envs.action_masks().argmax(axis=1))
    single = ClassicEnv(opponents=["greedy", lowest_action])
    single.reset(seed=2)
    with pytest.raises(IllegalActionError, match=r"'lowest_action' of seat 2 chose play card 1"):
        single.step(int(single.action_masks().argmax()))


def test_a_policy_that_answers_the_wrong_shape_is_refused() -> None:
    envs = VectorEnv(num_envs=4, opponents=lambda obs, masks: masks.argmax(axis=1)[:2])
    envs.reset(seed=2)
    with pytest.raises(IllegalActionError, match="must return 12 whole numbers"):
        envs.step(envs.action_masks().argmax(axis=1))


def test_bad_policy_opponents_are_refused_at_once(tmp_path: Path) -> None:
    with pytest.raises(EnvConfigError, match=r"opponent 'policy:nowhere\.npz': no policy file"):
        VectorEnv(num_envs=2, opponents="policy:nowhere.npz")
    with pytest.raises(EnvConfigError, match=r"opponent 'policy:nowhere\.npz': no policy file"):
        ClassicEnv(opponents=["greedy", "policy:nowhere.npz"])
    with pytest.raises(EnvConfigError, match="a bot name such as 'greedy' or a policy, not 3"):
        VectorEnv(num_envs=2, opponents=["greedy", 3])  # type: ignore[list-item]
    path = network(0).save(tmp_path / "p.npz")
    envs = VectorEnv(num_envs=2, opponents=[f"policy:{path}", f"policy:{path}", "random"])
    assert envs.opponent_names == (f"policy:{path}", f"policy:{path}", "random")
    assert envs.opponents[0] is envs.opponents[1]  # one file, one policy, asked once a step
