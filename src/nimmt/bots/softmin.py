"""The softmin rollout policy: a noisy ``greedy`` for the seats whose choice a search cannot know.

``hard-v1``'s rollouts (:class:`~nimmt.bots.levels.SearchBot`) follow it, and ``hard``'s
(:class:`~nimmt.bots.strong.StrongBot`) with ``policy=softmin``.
"""

from __future__ import annotations

import numpy as np

from nimmt.bots.batchsim import EMPTY, Batch, IntArray, gumbel_noise, placement_costs


class SoftminPolicy:
    """A noisy ``greedy``: each seat plays a card with probability proportional to
    ``exp(-cost / temperature)``, the cost being ``greedy``'s placement cost.

    In a rollout this stands for opponents whose exact choice is unknown: a single fixed
    tie-break (``greedy``'s lowest card) makes every sampled future alike and lets the search
    exploit a behaviour that real opponents do not have.
    """

    def __init__(self, temperature: float, rng: np.random.Generator) -> None:
        self.temperature = temperature
        self._rng = rng

    def __call__(self, batch: Batch) -> IntArray:
        hands = batch.hands
        # Gumbel-max sampling: the argmin of cost / T minus Gumbel noise is a softmin draw.
        noise = gumbel_noise(self._rng, hands.shape)
        key = placement_costs(batch).astype(np.float32) * np.float32(1 / self.temperature)
        key -= noise
        key[hands == EMPTY] = np.inf
        choice: IntArray = key.argmin(axis=-1)
        return choice
