"""A card's worth to its holder, read from features instead of played out.

:func:`nimmt.bots.levelk.card_worths` judges each card of a hand by the mean of many
model-played futures: sharp at 128 futures and more, but far too dear to do for every card of
every other seat at every decision. Here the same worth is predicted from what the holder sees:
the card's place on the rows (the learned model's features), the rows themselves, and how the
rest of its hand lies against them. The predictor is ridge regression on those features and
their pairwise products, fitted to worths played out over many futures, one set of
coefficients for each table size it was fitted at (``bench/worth_fit.py``).
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from nimmt.bots.batchsim import EMPTY, Batch
from nimmt.bots.policy import FEATURE_NAMES, card_features
from nimmt.engine import HAND_SIZE, NUM_ROWS

FloatArray = npt.NDArray[np.float64]

BINS = NUM_ROWS + 1
"""Where a card lies against the sorted row ends: below every row, or above the k-th end."""
FEATURES = len(FEATURE_NAMES) + 3 * NUM_ROWS + 2 * BINS + 4
"""How many features :func:`worth_features` gives a card."""


def worth_features(batch: Batch) -> FloatArray:
    """``(B, P, H, F)``: what each seat sees of each of its cards (zeros for an empty slot):
    the model's features of the card, the rows sorted by their ends, how many of the seat's
    cards lie in each stretch between the row ends, which stretch the card lies in, how many
    of the seat's cards lie below and above it there, how many cards the seat holds and how
    many seats play."""
    size, seats, width = batch.hands.shape
    hands = batch.hands
    held = hands != EMPTY
    order = np.argsort(batch.ends, axis=1)
    ends = np.take_along_axis(batch.ends, order, axis=1)
    lengths = np.take_along_axis(batch.lengths, order, axis=1)
    heads = np.take_along_axis(batch.heads, order, axis=1)
    position = np.zeros(hands.shape, dtype=np.int64)
    for row in range(NUM_ROWS):
        position += hands > ends[:, row, None, None]
    in_bin = (position[..., None] == np.arange(BINS)) & held[..., None]  # (B, P, H, BINS)
    counts = in_bin.sum(axis=2)  # (B, P, BINS)
    same = (position[..., :, None] == position[..., None, :]) & held[..., None, :]
    below = (same & (hands[..., None, :] < hands[..., :, None])).sum(axis=-1)
    above = (same & (hands[..., None, :] > hands[..., :, None])).sum(axis=-1)
    in_hand = held.sum(axis=2)  # (B, P)
    shape = (size, seats, width)
    rows = np.concatenate([ends / 104, lengths / 5, heads / 10], axis=1)  # (B, 3 * rows)
    columns = [
        card_features(batch).astype(np.float64),
        np.broadcast_to(rows[:, None, None, :], (*shape, rows.shape[1])),
        np.broadcast_to(counts[:, :, None, :] / HAND_SIZE, (*shape, BINS)),
        in_bin.astype(np.float64),
        (below / HAND_SIZE)[..., None],
        (above / HAND_SIZE)[..., None],
        np.broadcast_to((in_hand / HAND_SIZE)[:, :, None, None], (*shape, 1)),
        np.full((*shape, 1), seats / 10),
    ]
    features = np.concatenate(columns, axis=-1)
    features[~held] = 0
    return features


def expanded(features: FloatArray) -> FloatArray:
    """``(..., 1 + F + F (F + 1) / 2)``: a constant, the features and their pairwise products
    (each square once)."""
    count = features.shape[-1]
    first, second = np.triu_indices(count)
    ones = np.ones((*features.shape[:-1], 1))
    return np.concatenate([ones, features, features[..., first] * features[..., second]], axis=-1)


def fit(
    features: FloatArray, worths: FloatArray, groups: npt.NDArray[np.int64], l2: float
) -> FloatArray:
    """Ridge regression of ``worths`` ``(N,)`` on :func:`expanded` ``features`` ``(N, F)``,
    within each hand: ``groups`` ``(N,)`` numbers the hand each card was judged in, and only
    the differences between one hand's cards are fitted (a hand's card is drawn by its worth
    against the others', so a constant per hand means nothing). The coefficients; the
    constant's is 0."""
    centred = within_hands(expanded(features), groups)
    targets = within_hands(worths, groups)
    gram = centred.T @ centred + l2 * np.eye(centred.shape[1])
    coefficients: FloatArray = np.linalg.solve(gram, centred.T @ targets).astype(np.float64)
    return coefficients


def within_hands(values: FloatArray, groups: npt.NDArray[np.int64]) -> FloatArray:
    """``values`` (``(N,)`` or ``(N, K)``) less the mean of the hand each belongs to
    (``groups``, ``(N,)``: a hand's number; numbers no value holds are allowed)."""
    count = int(groups.max()) + 1
    sizes = np.maximum(np.bincount(groups, minlength=count), 1)
    sums = np.zeros((count, *values.shape[1:]))
    np.add.at(sums, groups, values)
    centred: FloatArray = values - (sums / sizes.reshape(-1, *[1] * (values.ndim - 1)))[groups]
    return centred


Coefficients = dict[int, FloatArray]
"""Fitted coefficients by the number of seats they were fitted at."""


def for_seats(coefficients: Coefficients, seats: int) -> FloatArray:
    """The coefficients fitted at the table size nearest ``seats`` (the smaller of two)."""
    return coefficients[min(coefficients, key=lambda fitted: (abs(fitted - seats), fitted))]


def predicted_worths(batch: Batch, coefficients: Coefficients) -> FloatArray:
    """``(B, P, H)``: each card's worth to its seat as the fitted ``coefficients`` read it
    (those of the nearest table size; 0 for an empty slot)."""
    chosen = for_seats(coefficients, batch.seats)
    worths: FloatArray = expanded(worth_features(batch)) @ chosen
    worths[batch.hands == EMPTY] = 0.0
    return worths


def as_document(coefficients: Coefficients, **about: Any) -> dict[str, Any]:
    """What ``bench/worth_fit.py`` writes: the coefficients by table size and how they were
    fitted."""
    return {
        "coefficients": {
            str(seats): [float(value) for value in values]
            for seats, values in sorted(coefficients.items())
        },
        **about,
    }


SHIPPED_COEFFICIENTS = "worth_coefficients.json"
"""The coefficients shipped with the package (``docs/bots.md`` says how they were fitted)."""


@cache
def shipped_coefficients(name: str = SHIPPED_COEFFICIENTS) -> Coefficients:
    """The coefficients of the file ``name`` shipped with the package, or when ``name`` is a
    path (it holds a ``/``) of that file."""
    if "/" in name:
        return read_coefficients(Path(name))
    return parse_coefficients(resources.files("nimmt.bots").joinpath(name).read_text(), name)


def read_coefficients(path: Path) -> Coefficients:
    """The coefficients of a file :func:`as_document` wrote, checked against the features."""
    return parse_coefficients(path.read_text(), str(path))


def parse_coefficients(text: str, name: str) -> Coefficients:
    """The coefficients of ``text`` (a document of :func:`as_document`), checked."""
    document = json.loads(text)
    expected = expanded(np.zeros((1, FEATURES))).shape[1]
    coefficients: Coefficients = {}
    for seats, values in dict(document["coefficients"]).items():
        array = np.asarray(values, dtype=np.float64)
        if array.shape != (expected,):
            raise ValueError(
                f"{name} holds {array.size} coefficients for {seats} seats, not {expected}"
            )
        coefficients[int(seats)] = array
    if not coefficients:
        raise ValueError(f"{name} holds no coefficients")
    return coefficients
