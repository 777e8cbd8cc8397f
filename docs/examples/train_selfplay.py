"""Train a small policy by self-play on the vector environment, save it, seat it in the arena.

The policy is the network of ``nimmt.bots.saved`` (a score for each legal card or row, from a
few features of the observation, through one hidden layer of rectified linear units). It learns by
REINFORCE (the policy gradient, each turn's mean return as baseline, Adam steps) on the
``relative`` reward, 256 rounds at a time, against a league: one ``greedy`` opponent and two
seats played by the learner's own earlier snapshots (:class:`nimmt.env.policies.SnapshotPolicy`,
drawing their choices from their softmax), a new snapshot joining the league every few updates.
Every ``--eval-every`` updates it plays its best-scored choices against three ``greedy`` bots on
the same 1,024 deals and prints a line of the learning curve. At the end it saves the policy:

    .venv/bin/python docs/examples/train_selfplay.py --seconds 180 --out selfplay.npz
    nimmt arena policy:selfplay.npz greedy greedy greedy --deals 500

NumPy only; ``--seconds`` counts this process's CPU time, so a busy machine trains as far in
more time.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# One BLAS thread: the matrices are small, and more threads only wait for each other (and
# take CPU time from the other processes) on a busy machine.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np
import numpy.typing as npt

from nimmt.bots.saved import Network, candidate_features
from nimmt.env import VectorEnv
from nimmt.env.policies import SnapshotPolicy, decisions, greedy

Array = npt.NDArray[np.float64]
HORIZON = 22
"""Steps per update: two rounds of 10 cards, a row choice or two, the autoreset step."""
EVAL_DEALS = 1024


class League:
    """An opponent seat played by one of the learner's snapshots, drawn anew at every update:
    the latest with probability one half, else any earlier one."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng = rng
        self.pool: list[SnapshotPolicy] = []
        self.current: SnapshotPolicy | None = None
        self.name = "league"

    def draw(self) -> None:
        latest = self.rng.random() < 0.5 or len(self.pool) == 1
        self.current = self.pool[-1] if latest else self.pool[self.rng.integers(len(self.pool))]

    def __call__(self, observations: npt.NDArray[np.float32], masks: Any) -> Any:
        assert self.current is not None
        return self.current(observations, masks)


@dataclass
class Adam:
    """Adam's steps (ascent) on a network's arrays."""

    rate: float
    moments: dict[str, tuple[Array, Array]] = field(default_factory=dict)
    steps: int = 0

    def step(self, network: Network, gradients: dict[str, Array]) -> None:
        self.steps += 1
        for name, gradient in gradients.items():
            first, second = self.moments.get(name, (np.zeros_like(gradient),) * 2)
            first = 0.9 * first + 0.1 * gradient
            second = 0.999 * second + 0.001 * gradient**2
            self.moments[name] = (first, second)
            unbiased = first / (1 - 0.9**self.steps)
            scale = np.sqrt(second / (1 - 0.999**self.steps)) + 1e-8
            getattr(network, name)[...] += self.rate * unbiased / scale


def probabilities(network: Network, features: Array, legal: npt.NDArray[np.bool_]) -> Array:
    """``(N, 14)``: the softmax of the scores over the legal candidates."""
    scores = np.where(legal, network.scores(features), -np.inf)
    scores[~legal.any(axis=1)] = 0.0
    scores -= scores.max(axis=1, keepdims=True)
    exp = np.exp(scores)
    result: Array = exp / exp.sum(axis=1, keepdims=True)
    return result


def gradients(network: Network, features: Array, weights: Array) -> dict[str, Array]:
    """The gradient of ``sum(weights * scores)`` over the candidates ``(M, 14, F)``."""
    before = features @ network.w1 + network.b1
    hidden = np.maximum(before, 0)
    back = weights[..., None] * network.w2 * (before > 0)
    return {
        "linear": np.einsum("mc,mcf->f", weights, features),
        "w2": np.einsum("mc,mch->h", weights, hidden),
        "b1": back.sum(axis=(0, 1)),
        "w1": np.einsum("mcf,mch->fh", features, back),
    }


def evaluate(
    network: Network | None, num_envs: int, seed: int, deals: int = EVAL_DEALS
) -> dict[str, float]:
    """The best-scored choices of ``network`` (``None``: the ``greedy`` rule) against three
    ``greedy`` bots on ``deals`` deals from ``seed``, the same number in every environment:
    mean bullheads and mean relative reward per round."""
    policy = SnapshotPolicy(network) if network is not None else greedy
    envs = VectorEnv(num_envs=num_envs, opponents="greedy", reward="relative")
    quota = -(-deals // num_envs)
    obs, info = envs.reset(seed=seed)
    heads, relative = [], []
    episode = np.zeros(num_envs)
    counted = np.zeros(num_envs, dtype=np.int64)
    done = np.zeros(num_envs, dtype=bool)
    while (counted < quota).any():
        mask = info["action_mask"]
        actions = np.where(mask.any(axis=1), policy(obs, mask), 0)
        obs, reward, terminated, _, info = envs.step(actions)
        episode += np.where(done, 0, reward)
        for env in np.flatnonzero(terminated & (counted < quota)):
            heads.append(obs[env, envs.layout.totals][0])
            relative.append(episode[env])
            counted[env] += 1
        episode[terminated] = 0
        done = terminated
    return {
        "mean_bullheads": round(float(np.mean(heads)), 3),
        "mean_reward": round(float(np.mean(relative)), 3),
    }


def train(
    seconds: float,
    *,
    iterations: int | None = None,
    num_envs: int = 256,
    hidden: int = 16,
    rate: float = 0.01,
    seed: int = 1,
    snapshot_every: int = 10,
    eval_every: int = 25,
    eval_envs: int = 256,
    eval_deals: int = EVAL_DEALS,
) -> tuple[Network, list[dict[str, float]]]:
    """Train for ``seconds`` of this process's CPU time (or ``iterations`` updates, whichever
    ends first; the evaluations are counted in); returns the network and the learning curve
    (one entry per evaluation)."""
    rng = np.random.default_rng(seed)
    network = Network.initial(hidden, rng)
    leagues = [League(np.random.default_rng(seed + 1)), League(np.random.default_rng(seed + 2))]
    for league in leagues:
        league.pool.append(SnapshotPolicy(network, rng=rng))
        league.draw()
    envs = VectorEnv(
        num_envs=num_envs, opponents=["greedy", *leagues], reward="relative", players=4
    )
    optimizer = Adam(rate)
    obs, info = envs.reset(seed=seed)
    curve: list[dict[str, float]] = []
    start, cpu_start = time.perf_counter(), time.process_time()
    played = 0
    recent_rewards: list[float] = []
    episode = np.zeros(num_envs)
    update = 0

    def note() -> None:
        point: dict[str, float] = {
            "iteration": update,
            "rounds": played,
            "cpu_seconds": round(time.process_time() - cpu_start, 1),
            "seconds": round(time.perf_counter() - start, 1),
            "train_reward": round(float(np.mean(recent_rewards)), 3) if recent_rewards else 0.0,
        }
        point.update(evaluate(network, eval_envs, 10_000, eval_deals))
        curve.append(point)

    note()
    while time.process_time() - cpu_start < seconds and (iterations is None or update < iterations):
        steps: list[tuple[Array, npt.NDArray[np.bool_], Array, Array]] = []
        rewards, dones, live, turns = [], [], [], []
        for _ in range(HORIZON):
            mask = info["action_mask"]
            playing = mask.any(axis=1)
            found = decisions(obs, mask)
            features = candidate_features(found)
            probs = probabilities(network, features, found.legal)
            chosen = (probs.cumsum(axis=1) > rng.random((num_envs, 1))).argmax(axis=1)
            actions = np.where(playing, found.actions(chosen), 0)
            steps.append((features, found.legal, probs, chosen.astype(np.float64)))
            turns.append(obs[:, envs.layout.turn].astype(np.int64))
            obs, reward, terminated, _, info = envs.step(actions)
            rewards.append(reward)
            dones.append(terminated)
            live.append(playing)
            episode += reward
            for env in np.flatnonzero(terminated):
                recent_rewards.append(float(episode[env]))
                episode[env] = 0
            played += int(terminated.sum())
        returns = np.zeros((HORIZON, num_envs))
        running = np.zeros(num_envs)
        for step in reversed(range(HORIZON)):
            running = np.where(dones[step], 0, running) + rewards[step]
            returns[step] = running
        alive = np.array(live)
        advantage = np.zeros_like(returns)
        turn = np.array(turns)
        for t in range(11):  # each turn's mean return as its baseline
            where = alive & (turn == t)
            if where.any():
                advantage[where] = returns[where] - returns[where].mean()
        advantage /= advantage[alive].std() + 1e-8
        features = np.concatenate([each[0] for each in steps])
        probs = np.concatenate([each[2] for each in steps])
        chosen = np.concatenate([each[3] for each in steps]).astype(np.int64)
        weights = -probs
        weights[np.arange(chosen.size), chosen] += 1
        weights *= (advantage * alive).reshape(-1)[:, None] / alive.sum()
        optimizer.step(network, gradients(network, features, weights))
        update += 1
        if update % snapshot_every == 0:
            for league in leagues:
                league.pool.append(SnapshotPolicy(network, rng=rng))
        for league in leagues:
            league.draw()
        if update % eval_every == 0:
            note()
            recent_rewards = []
    if curve[-1]["iteration"] != update:
        note()
    network.info = {
        "trained_by": "docs/examples/train_selfplay.py",
        "iterations": update,
        "rounds": played,
        "seed": seed,
        "cpu_seconds": round(time.process_time() - cpu_start, 1),
        "opponents": "greedy and two seats of its own snapshots",
    }
    return network, curve


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=180.0, help="CPU seconds to train")
    parser.add_argument("--iterations", type=int, default=None, help="stop after N updates")
    parser.add_argument("--num-envs", type=int, default=256)
    parser.add_argument("--hidden", type=int, default=16, help="hidden units")
    parser.add_argument("--rate", type=float, default=0.01, help="Adam's step size")
    parser.add_argument("--eval-every", type=int, default=25, help="updates per curve line")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, default=Path("selfplay.npz"), help="policy file")
    parser.add_argument("--json", action="store_true", help="one JSON line per curve entry")
    parser.add_argument(
        "--reference", action="store_true", help="first measure greedy in the learner's seat"
    )
    args = parser.parse_args()
    if args.reference:
        print(json.dumps({"reference": "greedy", **evaluate(None, 256, 10_000)}))
    network, curve = train(
        args.seconds,
        iterations=args.iterations,
        num_envs=args.num_envs,
        hidden=args.hidden,
        rate=args.rate,
        seed=args.seed,
        eval_every=args.eval_every,
    )
    path = network.save(args.out)
    if args.json:
        for point in curve:
            print(json.dumps(point))
        print(json.dumps({"saved": str(path)}))
        return
    print("| updates | rounds | CPU s | training reward | vs 3 greedy: bullheads | reward |")
    print("|---:|---:|---:|---:|---:|---:|")
    for point in curve:
        print(
            f"| {point['iteration']:,} | {point['rounds']:,} | {point['cpu_seconds']} "
            f"| {point['train_reward']:+.2f} | {point['mean_bullheads']:.2f} "
            f"| {point['mean_reward']:+.2f} |"
        )
    print(f"saved {path}: nimmt arena policy:{path} greedy greedy greedy")


if __name__ == "__main__":
    main()
