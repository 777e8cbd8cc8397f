"""Opponents that are policies: batched callbacks over observations and action masks.

A *policy* is any callable ``policy(observations, masks) -> actions``: ``observations`` is an
``(N, size)`` ``float32`` array of observations (``docs/env.md``, each from its own seat's view),
``masks`` the ``(N, 108)`` ``int8`` legal-action masks, and it returns ``N`` legal actions (card
``c`` is action ``c - 1``, row ``r`` action ``104 + r``). Both environments seat one as an
opponent (``opponents=[policy, "greedy", ...]``); a row choice goes through the same callback,
its mask holding only the four row actions. The vector environment calls it once per step for
every sub-environment (and every seat) it plays, so it should work on whole arrays.

This module has the policies nimmt ships: :class:`SnapshotPolicy` (a saved or frozen
:class:`~nimmt.bots.saved.Network`: the ``policy:PATH`` bot, or a learner's earlier snapshot),
:func:`greedy` and :class:`RandomPolicy`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from nimmt.bots.batchsim import Batch, greedy_policy
from nimmt.bots.saved import CANDIDATES, ROW_CANDIDATE, Decisions, Network, load_policy
from nimmt.engine import HAND_SIZE
from nimmt.env.encoding import (
    CARDS,
    HAND,
    ROW_ACTION,
    ROW_BULLHEADS,
    ROW_END,
    ROW_LENGTH,
    SEEN,
    MaskArray,
)

IntArray = npt.NDArray[np.int64]
Policy = Callable[[npt.NDArray[np.float32], MaskArray], Any]
"""``policy(observations (N, size), masks (N, 108)) -> actions (N,)``."""


def decisions(observations: npt.NDArray[np.float32], masks: MaskArray) -> Decisions:
    """The :class:`~nimmt.bots.saved.Decisions` of ``observations`` and their ``masks``: the same
    numbers :meth:`~nimmt.bots.saved.Decisions.from_views` reads from the seats' views."""
    size = observations.shape[0]
    held = observations[:, HAND] == 1
    owner, card = np.nonzero(held)  # row by row, cards rising
    slot = np.cumsum(held, axis=1)[owner, card] - 1
    hands = np.zeros((size, HAND_SIZE), dtype=np.int64)
    hands[owner, slot] = card + 1
    seen = np.zeros((size, CARDS + 1), dtype=bool)
    seen[:, 1:] = observations[:, SEEN] == 1
    legal = np.zeros((size, CANDIDATES), dtype=bool)
    rows = np.arange(size)[:, None]
    legal[:, :HAND_SIZE] = (hands > 0) & (masks[rows, np.maximum(hands - 1, 0)] == 1)
    legal[:, ROW_CANDIDATE:] = masks[:, ROW_ACTION:] == 1
    return Decisions(
        hands=hands,
        seen=seen,
        ends=observations[:, ROW_END].astype(np.int64),
        lengths=observations[:, ROW_LENGTH].astype(np.int64),
        heads=observations[:, ROW_BULLHEADS].astype(np.int64),
        legal=legal,
    )


class SnapshotPolicy:
    """A policy playing a frozen :class:`~nimmt.bots.saved.Network` (copied when made, so a
    learner that goes on training leaves it as it was): the best-scored legal action, as the
    ``policy:PATH`` bot plays, or, with ``rng``, one drawn from the softmax of the scores over
    ``temperature``."""

    def __init__(
        self,
        network: Network,
        *,
        rng: np.random.Generator | None = None,
        temperature: float = 1.0,
        name: str = "snapshot",
    ) -> None:
        self.network = network.copy()
        self.rng = rng
        self.temperature = temperature
        self.name = name

    @classmethod
    def from_file(cls, path: str | Path, **options: Any) -> SnapshotPolicy:
        """The policy saved at ``path`` (:func:`nimmt.bots.saved.load_policy`)."""
        options.setdefault("name", f"policy:{path}")
        return cls(load_policy(path), **options)

    def __call__(self, observations: npt.NDArray[np.float32], masks: MaskArray) -> IntArray:
        found = decisions(observations, masks)
        return found.actions(self.network.choose(found, self.rng, self.temperature))


def greedy(observations: npt.NDArray[np.float32], masks: MaskArray) -> IntArray:
    """The ``greedy`` bot as a policy: the cheapest card on the rows as they are (the lowest on
    ties), the cheapest row (the first on ties)."""
    found = decisions(observations, masks)
    size = found.hands.shape[0]
    batch = Batch(
        found.ends,
        found.lengths,
        found.heads,
        np.where(found.legal[:, None, :HAND_SIZE], found.hands[:, None, :], 0),
        np.zeros((size, 1), dtype=np.int64),
    )
    slots = greedy_policy(batch)[:, 0]
    rows = found.heads.argmin(axis=1) + ROW_CANDIDATE
    choosing_row = found.legal[:, ROW_CANDIDATE:].any(axis=1)
    return found.actions(np.where(choosing_row, rows, slots))


class RandomPolicy:
    """The ``random`` bot as a policy: a uniformly random legal action, from ``rng``."""

    name = "random"

    def __init__(self, rng: np.random.Generator | None = None) -> None:
        self.rng = rng if rng is not None else np.random.default_rng()

    def __call__(self, observations: npt.NDArray[np.float32], masks: MaskArray) -> IntArray:
        del observations
        keys = self.rng.random(masks.shape) * (masks == 1)
        result: IntArray = keys.argmax(axis=1)
        return result


def policy_name(policy: object) -> str:
    """The name an opponent policy goes by: its ``name`` attribute, else its function name."""
    name = getattr(policy, "name", None) or getattr(policy, "__name__", None)
    return str(name) if name else type(policy).__name__


__all__ = [
    "Policy",
    "RandomPolicy",
    "SnapshotPolicy",
    "decisions",
    "greedy",
    "policy_name",
]
