"""Steps per second of the single and the vector ``nimmt/Classic-v0`` environments.

The learning seat takes uniformly random legal actions against ``greedy`` opponents (option
``--opponents``); each environment runs for about S seconds. A step of the vector environment
counts as ``num_envs`` environment steps. Then the vector environment again, in the same run,
against ``random``, ``greedy`` and self-play opponents: every opponent a snapshot of a policy
network (:class:`nimmt.env.policies.SnapshotPolicy`, ``--hidden`` units, drawing its choices
from its softmax as a learner's league does; one callback for the three seats). Needs the ``ai``
extra:

    python bench/env.py --players 4 --num-envs 256 --seconds 5 --json

prints one JSON line: ``{"players", "opponents", "num_envs", "single_steps_per_s",
"vector_steps_per_s", "speedup", "hidden", "vector_random_steps_per_s",
"vector_greedy_steps_per_s", "vector_selfplay_steps_per_s", "selfplay_vs_greedy"}`` (the last:
self-play's steps per second over ``greedy``'s).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from typing import Any

# One BLAS thread: the matrices are small, and more threads only wait for each other (and
# take CPU time from the other processes) on a busy machine.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np

from nimmt.bots.saved import Network
from nimmt.env import ClassicEnv, VectorEnv
from nimmt.env.policies import SnapshotPolicy


def single_steps_per_s(players: int, opponents: str, seconds: float, seed: int) -> float:
    """Steps per second of one :class:`ClassicEnv` (resets included in the time)."""
    env = ClassicEnv(opponents=opponents, players=players)
    rng = np.random.default_rng(seed)
    _, info = env.reset(seed=seed)
    steps = 0
    start = time.perf_counter()
    while True:
        action = int((rng.random(108) * info["action_mask"]).argmax())
        _, _, terminated, _, info = env.step(action)
        steps += 1
        if terminated:
            _, info = env.reset()
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return steps / elapsed


def snapshot(hidden: int, seed: int) -> SnapshotPolicy:
    """A snapshot of a network of random weights, sampling its choices (as in a league)."""
    network = Network.initial(hidden, np.random.default_rng(seed), scale=1.0)
    return SnapshotPolicy(network, rng=np.random.default_rng(seed + 1), name="snapshot")


def vector_steps_per_s(
    players: int, opponents: Any, num_envs: int, seconds: float, seed: int
) -> float:
    """Environment steps per second of one :class:`VectorEnv` of ``num_envs`` games."""
    envs = VectorEnv(num_envs=num_envs, opponents=opponents, players=players)
    rng = np.random.default_rng(seed)
    _, info = envs.reset(seed=seed)
    steps = 0
    start = time.perf_counter()
    while True:
        actions = (rng.random((num_envs, 108)) * info["action_mask"]).argmax(axis=1)
        _, _, _, _, info = envs.step(actions)
        steps += num_envs
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return steps / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--opponents", default="greedy", choices=["greedy", "random"])
    parser.add_argument("--num-envs", type=int, default=256)
    parser.add_argument("--seconds", type=float, default=5.0, help="per environment")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--hidden", type=int, default=16, help="units of the snapshots' network")
    parser.add_argument("--json", action="store_true", help="one JSON line")
    args = parser.parse_args()
    single = single_steps_per_s(args.players, args.opponents, args.seconds, args.seed)
    vector = vector_steps_per_s(
        args.players, args.opponents, args.num_envs, args.seconds, args.seed
    )
    by_kind = {
        kind: vector_steps_per_s(args.players, opponents, args.num_envs, args.seconds, args.seed)
        for kind, opponents in (
            ("random", "random"),
            ("greedy", "greedy"),
            ("selfplay", snapshot(args.hidden, args.seed)),
        )
    }
    figures: dict[str, Any] = {
        "players": args.players,
        "opponents": args.opponents,
        "num_envs": args.num_envs,
        "single_steps_per_s": round(single, 1),
        "vector_steps_per_s": round(vector, 1),
        "speedup": round(vector / single, 2),
        "hidden": args.hidden,
        **{f"vector_{kind}_steps_per_s": round(rate, 1) for kind, rate in by_kind.items()},
        "selfplay_vs_greedy": round(by_kind["selfplay"] / by_kind["greedy"], 3),
    }
    if args.json:
        print(json.dumps(figures))
    else:
        print(
            f"{args.players} players against {args.opponents}: single {single:,.0f} steps/s, "
            f"vector of {args.num_envs} {vector:,.0f} steps/s ({vector / single:.1f}x)"
        )
        print(
            "vector against random {random:,.0f}, greedy {greedy:,.0f}, self-play snapshots "
            "{selfplay:,.0f} steps/s".format(**by_kind)
        )


if __name__ == "__main__":
    main()
