"""Train a linear policy to beat ``random`` opponents on the vector environment (NumPy only).

The policy scores each legal action ``a`` with ``w . phi(s, a)``, a handful of features read
from the observation (``docs/env.md`` gives its layout): for a card, where it would go on the rows
as they are (below every row, the bullheads that would cost, how full its row is, how far it is
from its row's last card and how many unseen cards lie in between); for a row, its bullheads and
length. It plays ``softmax`` of those scores and learns ``w`` by REINFORCE (the policy gradient
with the batch's mean return as baseline), on the ``relative`` reward: minus its bullheads less
the opponents' mean, so a positive mean reward means it beats them. It prints the learning curve
as a table (episodes: rounds played; mean reward and bullheads of the episodes in each block):

    .venv/bin/python docs/examples/train_linear.py --seconds 120
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
import numpy.typing as npt

from nimmt.env import VectorEnv
from nimmt.env.encoding import ROW_BULLHEADS, ROW_END, ROW_LENGTH, SEEN, Layout

Array = npt.NDArray[np.float64]
FEATURES = 9
CARD_NUMBERS = np.arange(1, 105, dtype=np.float64)


def action_features(obs: npt.NDArray[np.float32]) -> Array:
    """``(N, 108, FEATURES)``: the features of every action in every observation."""
    size = obs.shape[0]
    ends = obs[:, ROW_END].astype(np.float64)
    lengths = obs[:, ROW_LENGTH].astype(np.float64)
    heads = obs[:, ROW_BULLHEADS].astype(np.float64)
    unseen = 1.0 - obs[:, SEEN].astype(np.float64)
    # unseen_below[n, c] = unseen cards numbered below c + 1.
    unseen_below = np.concatenate([np.zeros((size, 1)), np.cumsum(unseen, axis=1)], axis=1)
    below_card = ends[:, None, :] < CARD_NUMBERS[None, :, None]  # (N, 104, 4)
    target = np.where(below_card, ends[:, None, :], -1).argmax(axis=2)  # (N, 104)
    too_low = ~below_card.any(axis=2)
    rows = np.arange(size)[:, None]
    target_end = ends[rows, target]
    target_length = lengths[rows, target]
    target_heads = heads[rows, target]
    cost = np.where(
        too_low, heads.min(axis=1)[:, None], np.where(target_length == 5, target_heads, 0)
    )
    between = (
        unseen_below[rows, CARD_NUMBERS.astype(int) - 1]
        - unseen_below[rows, target_end.astype(int)]
    )
    features = np.zeros((size, 108, FEATURES))
    cards = features[:, :104]
    cards[..., 0] = 1.0
    cards[..., 1] = too_low
    cards[..., 2] = cost / 5
    cards[..., 3] = np.where(too_low, 0, target_length / 5)
    cards[..., 4] = np.where(too_low, 0, (CARD_NUMBERS - target_end) / 104)
    cards[..., 5] = np.where(too_low, 0, np.minimum(between, 10) / 10)
    cards[..., 6] = CARD_NUMBERS / 104
    features[:, 104:, 7] = heads / 5
    features[:, 104:, 8] = lengths / 5
    return features


def policy(features: Array, mask: npt.NDArray[np.int8], weights: Array) -> Array:
    """``(N, 108)``: the probability of each action (0 where illegal)."""
    scores = np.where(mask == 1, features @ weights, -np.inf)
    scores[~mask.any(axis=1)] = 0.0  # the step that starts a new episode: any action will do
    scores -= scores.max(axis=1, keepdims=True)
    exp = np.exp(scores)
    result: Array = exp / exp.sum(axis=1, keepdims=True)
    return result


def train(
    seconds: float, num_envs: int, seed: int, block: int, rate: float
) -> list[dict[str, float]]:
    envs = VectorEnv(num_envs=num_envs, opponents="random", reward="relative")
    layout = Layout(envs.players)
    rng = np.random.default_rng(seed)
    weights = np.zeros(FEATURES)
    obs, info = envs.reset(seed=seed)
    curve: list[dict[str, float]] = []
    episodes, block_rewards, block_heads = 0, [], []
    episode_reward = np.zeros(num_envs)
    start = time.perf_counter()
    horizon = 22  # two rounds per update, a step per row choice included
    while time.perf_counter() - start < seconds:
        grads, rewards, alive, dones = [], [], [], []
        for _ in range(horizon):
            mask = info["action_mask"]
            playing = mask.any(axis=1)  # false on the step that starts a new episode
            features = action_features(obs)
            probs = policy(features, mask, weights)
            probs[~playing] = 1.0 / 108
            actions = (probs.cumsum(axis=1) > rng.random((num_envs, 1))).argmax(axis=1)
            chosen = features[np.arange(num_envs), actions]
            expected = np.einsum("na,naf->nf", probs, features)
            obs, reward, terminated, _, info = envs.step(actions)
            grads.append(np.where(playing[:, None], chosen - expected, 0))
            rewards.append(reward)
            alive.append(playing)
            dones.append(terminated)
            episode_reward += reward
            for env in np.flatnonzero(terminated):
                block_rewards.append(episode_reward[env])
                block_heads.append(obs[env, layout.totals][0])
                episode_reward[env] = 0
                episodes += 1
                if episodes % block == 0:
                    curve.append(
                        {
                            "episodes": episodes,
                            "seconds": round(time.perf_counter() - start, 1),
                            "mean_reward": round(float(np.mean(block_rewards)), 3),
                            "mean_bullheads": round(float(np.mean(block_heads)), 3),
                        }
                    )
                    block_rewards, block_heads = [], []
        # Returns to the end of each episode, then one policy-gradient step.
        returns = np.zeros((horizon, num_envs))
        running = np.zeros(num_envs)
        for step in reversed(range(horizon)):
            running = np.where(dones[step], 0, running) + rewards[step]
            returns[step] = running
        live = np.array(alive)
        advantage = (returns - returns[live].mean()) / (returns[live].std() + 1e-8)
        gradient = np.einsum("tn,tnf->f", advantage * live, np.array(grads)) / live.sum()
        weights += rate * gradient
    return curve


def greedy_actions(features: Array, mask: npt.NDArray[np.int8]) -> npt.NDArray[np.int64]:
    """The ``greedy`` bot's rule in the same seat: the cheapest card, the lowest on ties; the
    cheapest row, the first on ties."""
    key = np.round(features[..., 2] * 5) * 128 + np.round(features[..., 6] * 104)
    key[:, 104:] = np.round(features[:, 104:, 7] * 5) * 128 + np.arange(4)
    result: npt.NDArray[np.int64] = np.where(mask == 1, key, np.inf).argmin(axis=1)
    return result


def evaluate(rule: str, episodes: int, num_envs: int, seed: int) -> float:
    """The mean reward of ``rule`` (``uniform``: random legal actions; ``greedy``) over about
    ``episodes`` rounds against the same ``random`` opponents."""
    envs = VectorEnv(num_envs=num_envs, opponents="random", reward="relative")
    rng = np.random.default_rng(seed)
    obs, info = envs.reset(seed=seed)
    total, done = 0.0, 0
    while done < episodes:
        mask = info["action_mask"]
        if rule == "greedy":
            actions = greedy_actions(action_features(obs), mask)
        else:
            actions = (rng.random(mask.shape) * mask).argmax(axis=1)
        obs, reward, terminated, _, info = envs.step(actions)
        total += float(reward.sum())
        done += int(terminated.sum())
    return total / done


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=120.0)
    parser.add_argument("--num-envs", type=int, default=256)
    parser.add_argument("--block", type=int, default=5000, help="episodes per line of the curve")
    parser.add_argument("--rate", type=float, default=2.0, help="learning rate")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="one JSON line per block")
    parser.add_argument(
        "--reference", action="store_true", help="also measure random legal play and greedy"
    )
    args = parser.parse_args()
    if args.reference:
        for rule in ("uniform", "greedy"):
            mean = evaluate(rule, args.block, args.num_envs, args.seed + 1)
            print(json.dumps({"reference": rule, "mean_reward": round(mean, 3)}))
    curve = train(args.seconds, args.num_envs, args.seed, args.block, args.rate)
    if args.json:
        for line in curve:
            print(json.dumps(line))
        return
    print("| episodes | seconds | mean reward | mean bullheads |")
    print("|---:|---:|---:|---:|")
    for line in curve:
        print(
            f"| {line['episodes']:,} | {line['seconds']} | {line['mean_reward']:+.2f} "
            f"| {line['mean_bullheads']:.2f} |"
        )


if __name__ == "__main__":
    main()
