"""A learned model of how a strong player chooses its card, for the rollouts of ``hard``.

The model is a conditional logit: every card of a hand gets a score, a weighted sum of features
that describe where the card would go on the rows as they are (below every row or after which row
end, how far above that end, how long and how costly that row is, ...), and a seat plays card ``c``
with probability proportional to ``exp(score(c))``. ``hard-v1``'s rollouts used one feature only
(``-greedy cost``, weight 1: the softmin policy); the weights here were fitted to the card
choices of the search itself in self-play (``scripts/train_policy.py``; ``docs/bots.md`` gives the
commands), so the rollouts predict what a searching opponent plays rather than a noisy ``greedy``.

Everything is computed on a whole :class:`~nimmt.bots.batchsim.Batch` at once, as the rest of the
batch simulation is.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from nimmt.bots.batchsim import EMPTY, Batch, IntArray, gumbel_noise
from nimmt.engine import BULLHEADS, HAND_SIZE, NUM_ROWS, ROW_LIMIT

FloatArray = npt.NDArray[np.float32]

HAND_WIDTH = HAND_SIZE
"""Slots of a hand array in the training data (a round's hand never holds more cards)."""

FEATURE_NAMES: tuple[str, ...] = (
    "cost",
    "low",
    "low_card",
    "sixth",
    "gap",
    "gap_squared",
    "gap_by_length",
    "length_2",
    "length_3",
    "length_4",
    "target_heads",
    "target_heads_by_length",
    "card",
    "card_squared",
    "card_heads",
    "cost_by_hand",
)
"""The features of a card, in the order of the weights (see :func:`card_features`)."""

_CARD_HEADS = np.asarray(BULLHEADS, dtype=np.float32) / 7
"""A card's bullheads by card number, scaled (``EMPTY`` has none)."""
_CARD_VALUE = np.arange(len(BULLHEADS), dtype=np.float32) / 104
"""A card's number, scaled."""


def card_features(batch: Batch) -> FloatArray:
    """``(B, P, H, F)``: the features of every card in every hand of the batch (zeros for an
    empty slot), in the order of :data:`FEATURE_NAMES`.

    A card's *target* is the row it would join if it were the only card played (the row whose end
    is the highest one below it); a card below every row has none and costs the cheapest row.
    """
    size = batch.size
    hands = batch.hands
    order = np.argsort(batch.ends, axis=1)
    ends = np.take_along_axis(batch.ends, order, axis=1)
    lengths = np.take_along_axis(batch.lengths, order, axis=1)
    heads = np.take_along_axis(batch.heads, order, axis=1)
    position = (hands > ends[:, 0, None, None]).astype(np.int64)
    for row in range(1, NUM_ROWS):
        position += hands > ends[:, row, None, None]
    low = position == 0
    # Index of the target among the sorted rows (row 0 for a low card; masked below).
    target = np.maximum(position - 1, 0) + (np.arange(size) * NUM_ROWS)[:, None, None]
    target_end = ends.ravel()[target]
    target_length = np.where(low, 0, lengths.ravel()[target])
    target_heads = np.where(low, 0, heads.ravel()[target]).astype(np.float32)
    sixth = target_length == ROW_LIMIT
    cheapest = heads.min(axis=1)[:, None, None]
    cost = np.where(low, cheapest, np.where(sixth, target_heads, 0)).astype(np.float32)
    gap = np.where(low, 0, np.minimum(hands - target_end, 40)).astype(np.float32) / 10
    length = target_length.astype(np.float32)
    card = hands.astype(np.float32) / 104
    cards_in_hand = (hands != EMPTY).sum(axis=-1, keepdims=True).astype(np.float32)
    columns = [
        cost,
        low,
        np.where(low, card, 0),
        sixth,
        gap,
        gap * gap,
        gap * length / 4,
        target_length == 2,
        target_length == 3,
        target_length == 4,
        target_heads / 10,
        target_heads * length / 40,
        card,
        card * card,
        _CARD_HEADS[hands],
        cost * cards_in_hand / HAND_SIZE,
    ]
    features = np.stack([np.asarray(column, dtype=np.float32) for column in columns], axis=-1)
    features[hands == EMPTY] = 0
    return features


def card_logits(batch: Batch, weights: npt.NDArray[np.float32]) -> FloatArray:
    """``(B, P, H)``: ``card_features(batch) @ weights``, without building the features.

    The features of a card split into a part that depends on the card alone, a part that
    depends on its target row alone and the terms in its gap to that row's end; the first two
    are small tables (by card number, by round and sorted row) gathered once per card. Empty
    slots get arbitrary scores (the caller masks them).
    """
    w = dict(zip(FEATURE_NAMES, (float(value) for value in weights), strict=True))
    size = batch.size
    hands = batch.hands
    order = np.argsort(batch.ends, axis=1)
    ends = np.take_along_axis(batch.ends, order, axis=1)
    lengths = np.take_along_axis(batch.lengths, order, axis=1).astype(np.float32)
    heads = np.take_along_axis(batch.heads, order, axis=1).astype(np.float32)
    # Every seat of a batch holds as many cards as every other.
    in_hand = float((hands[0, 0] != EMPTY).sum()) / HAND_SIZE
    cost_weight = w["cost"] + w["cost_by_hand"] * in_hand
    # By target: column 0 is "below every row", column k the k-th lowest row end.
    by_target = np.empty((size, NUM_ROWS + 1), dtype=np.float32)
    by_target[:, 0] = w["low"] + cost_weight * heads.min(axis=1)
    sixth = lengths == ROW_LIMIT
    by_target[:, 1:] = (
        np.where(sixth, w["sixth"] + cost_weight * heads, 0)
        + np.where(lengths == 2, w["length_2"], 0)
        + np.where(lengths == 3, w["length_3"], 0)
        + np.where(lengths == 4, w["length_4"], 0)
        + heads * (w["target_heads"] / 10 + w["target_heads_by_length"] / 40 * lengths)
    )
    gap_slope = np.zeros((size, NUM_ROWS + 1), dtype=np.float32)
    gap_slope[:, 1:] = w["gap"] + w["gap_by_length"] / 4 * lengths
    by_card = (
        w["card"] * _CARD_VALUE + w["card_squared"] * _CARD_VALUE**2 + w["card_heads"] * _CARD_HEADS
    ).astype(np.float32)
    low_by_card = (by_card + w["low_card"] * _CARD_VALUE).astype(np.float32)
    position = (hands > ends[:, 0, None, None]).astype(np.int64)
    for row in range(1, NUM_ROWS):
        position += hands > ends[:, row, None, None]
    offset = (np.arange(size) * (NUM_ROWS + 1))[:, None, None]
    flat = position + offset
    padded_ends = np.zeros((size, NUM_ROWS + 1), dtype=np.int64)
    padded_ends[:, 1:] = ends
    gap = np.minimum(hands - padded_ends.ravel()[flat], 40).astype(np.float32) / 10
    low = position == 0
    gap[low] = 0
    logits: FloatArray = by_target.ravel()[flat] + gap * (
        gap_slope.ravel()[flat] + w["gap_squared"] * gap
    )
    logits += np.where(low, low_by_card[hands], by_card[hands])
    return logits


def fit_weights(
    features: npt.NDArray[np.floating[Any]],
    mask: npt.NDArray[np.bool_],
    chosen: IntArray,
    l2: float = 1.0,
    steps: int = 50,
) -> tuple[npt.NDArray[np.float64], float]:
    """Maximum-likelihood weights of the model for decisions ``features`` ``(N, H, F)`` (the
    features of each decision's cards), ``mask`` ``(N, H)`` (which slots hold a card) and
    ``chosen`` ``(N,)`` (the slot played), with an L2 penalty ``l2``; and the mean
    log-probability of the chosen cards under those weights.

    Newton's method: the penalized log-likelihood of a conditional logit is concave, so it
    converges from zero weights in a few steps.
    """
    data = features.astype(np.float64)
    count, _, width = data.shape
    rows = np.arange(count)
    weights = np.zeros(width)

    def probabilities(values: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        logits = np.where(mask, data @ values, -np.inf)
        logits -= logits.max(axis=1, keepdims=True)
        result: npt.NDArray[np.float64] = np.exp(logits)
        result /= result.sum(axis=1, keepdims=True)
        return result

    for _ in range(steps):
        probability = probabilities(weights)
        mean = np.einsum("nh,nhf->nf", probability, data)
        gradient = (data[rows, chosen] - mean).sum(axis=0) - l2 * weights
        centred = data - mean[:, None, :]
        hessian = np.einsum("nh,nhf,nhg->fg", probability, centred, centred)
        delta = np.linalg.solve(hessian + l2 * np.eye(width), gradient)
        weights += delta
        if np.abs(delta).max() < 1e-7:
            break
    loglik = float(np.log(probabilities(weights)[rows, chosen]).mean())
    return weights, loglik


SHIPPED_WEIGHTS = "policy_weights.json"
"""The weights ``hard-v2`` plays with, in the package."""


@cache
def shipped_weights(name: str = SHIPPED_WEIGHTS) -> npt.NDArray[np.float32]:
    """Weights of the model: the file ``name`` shipped with the package, or when ``name`` is a
    path (it holds a ``/``) that file, as ``scripts/train_policy.py fit`` writes it."""
    if "/" in name:
        text = Path(name).read_text()
    else:
        text = resources.files("nimmt.bots").joinpath(name).read_text()
    document = json.loads(text)
    if tuple(document["features"]) != FEATURE_NAMES:
        raise ValueError(f"{name} does not match the model's features")
    return np.asarray(document["weights"], dtype=np.float32)


class ModelPolicy:
    """Rollout policy: each seat draws a card from the learned model, its scores divided by
    ``temperature`` (1 is the fitted model; lower plays closer to the model's favourite).

    ``own_temperature`` is seat 0's (the deciding seat's) instead, when given: a search may
    play its own later cards more firmly than it expects the others to play theirs.
    ``own_weights``, when given, score seat 0's cards instead of ``weights``: a search may play
    its own later cards by another policy than the one it expects of the others (experiments:
    ``strong:own_weights``)."""

    def __init__(
        self,
        rng: np.random.Generator,
        temperature: float = 1.0,
        weights: npt.NDArray[np.float32] | None = None,
        *,
        compiled: bool = False,
        own_temperature: float | None = None,
        own_weights: npt.NDArray[np.float32] | None = None,
    ) -> None:
        self.weights = (shipped_weights() if weights is None else weights) / np.float32(temperature)
        self._own_weights = None if own_weights is None else own_weights / np.float32(temperature)
        """Seat 0's weights, when they are not everyone's."""
        self._kernel_weights = (
            self.weights
            if self._own_weights is None
            else np.stack([self._own_weights, self.weights])
        )
        """What the compiled turns score with: everyone's weights, or seat 0's then the others'."""
        self._rng = rng
        # Seat 0's scores divided by its own temperature draw the same card as the others'
        # scaling with its noise scaled by own / temperature (Gumbel-max is scale-free).
        self._own_noise_scale = (
            None
            if own_temperature is None or own_temperature == temperature
            else np.float32(own_temperature / temperature)
        )
        self.compiled_turn: Callable[[Batch], None] | None = self._turn if compiled else None
        """With ``compiled``: the rollouts' turns in one compiled call each
        (:func:`nimmt.bots.kernels.model_turn`), with the same draws as :meth:`__call__`."""

    def _noise(self, shape: tuple[int, ...]) -> FloatArray:
        """Gumbel noise for every card slot (Gumbel-max: the argmax of the scores plus it is a
        draw from the model)."""
        noise: FloatArray = gumbel_noise(self._rng, shape)
        if self._own_noise_scale is not None:
            noise[:, 0] *= self._own_noise_scale
        return noise

    def _turn(self, batch: Batch) -> None:
        from nimmt.bots import kernels  # numba loads only when a search first needs it

        noise = self._noise(batch.hands.shape)
        kernels.model_turn(
            batch.ends,
            batch.lengths,
            batch.heads,
            batch.hands,
            batch.penalties,
            self._kernel_weights,
            noise,
        )

    def __call__(self, batch: Batch) -> IntArray:
        hands = batch.hands
        noise = self._noise(hands.shape)
        if self.compiled_turn is not None:
            from nimmt.bots import kernels

            return kernels.model_choices(
                batch.ends, batch.lengths, batch.heads, hands, self._kernel_weights, noise
            )
        key = card_logits(batch, self.weights) + noise
        if self._own_weights is not None:
            key[:, 0] = card_logits(batch, self._own_weights)[:, 0] + noise[:, 0]
        key[hands == EMPTY] = -np.inf
        choice: IntArray = key.argmax(axis=-1)
        return choice
