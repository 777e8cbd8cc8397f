"""Reinforcement-learning environments for classic 6 nimmt! (``docs/env.md``).

Importing this package registers ``nimmt/Classic-v0`` with Gymnasium:

- :class:`ClassicEnv` (``gymnasium.make("nimmt/Classic-v0", opponents="greedy")``): one learning
  seat against bots, on the real engine;
- :class:`VectorEnv` (``gymnasium.make_vec("nimmt/Classic-v0", num_envs=256,
  vectorization_mode="vector_entry_point")``): many such games stepped together in NumPy;
- :func:`parallel_env`: a PettingZoo ``ParallelEnv`` in which every seat is an agent.

It needs the optional dependencies of the ``ai`` extra (``pip install 'nimmt[ai]'``); the rest of
nimmt works without them.
"""

from __future__ import annotations

try:
    import gymnasium
    import pettingzoo  # type: ignore[import-untyped]  # noqa: F401 (only checked for here)
except ImportError:  # pragma: no cover - exercised in a subprocess by the tests
    raise ImportError(
        "nimmt.env needs gymnasium and pettingzoo: install the ai extra, "
        "e.g. pip install 'nimmt[ai]' (or uv sync --extra ai)"
    ) from None

from nimmt.env.classic import ClassicEnv
from nimmt.env.encoding import NUM_ACTIONS, ROW_ACTION, Layout, encode_view, observation_space
from nimmt.env.parallel import NimmtParallelEnv, parallel_env
from nimmt.env.table import EnvConfigError, IllegalActionError
from nimmt.env.vector import VectorEnv

ENV_ID = "nimmt/Classic-v0"

if ENV_ID not in gymnasium.registry:
    gymnasium.register(
        id=ENV_ID,
        entry_point="nimmt.env.classic:ClassicEnv",
        vector_entry_point="nimmt.env.vector:VectorEnv",
    )

__all__ = [
    "ENV_ID",
    "NUM_ACTIONS",
    "ROW_ACTION",
    "ClassicEnv",
    "EnvConfigError",
    "IllegalActionError",
    "Layout",
    "NimmtParallelEnv",
    "VectorEnv",
    "encode_view",
    "observation_space",
    "parallel_env",
]
