"""Saved policies: a small NumPy network that scores each legal choice, its ``.npz`` file, and
the ``policy:PATH`` bot that plays one (``docs/bots.md``, ``docs/env.md``).

A decision has 14 *candidates*: the 10 slots of the hand (its cards in rising order, empty slots
after them) and the 4 rows. Each candidate is described by :data:`FEATURE_NAMES`: for a card,
the features of :func:`nimmt.bots.policy.card_features` (where it would go on the rows as they
are) and four that count cards (the unseen cards between its row's last card and it, whether
that many could fill its row, the unseen cards below it, the seat's own cards between its row's
last card and it); for a row, its bullheads, its length and whether it is the cheapest. The
network scores a candidate ``x`` as ``x . linear + max(x W1 + b1, 0) . w2``; a seat plays the
legal candidate with the highest score (the lowest card, the first row on ties), or, when
sampling, draws it from the softmax of the scores.

Everything is computed from what a seat sees (its hand, the cards it has seen, the rows), on
whole batches at once: a :class:`~nimmt.engine.SeatView` for the bot, and the observations of
``nimmt.env`` for its vector environment (:mod:`nimmt.env.policies`), which give the same
numbers.

The file is an ``.npz`` archive (``numpy.savez``, read with ``allow_pickle=False``) holding a
header, ``format`` (``"nimmt-policy"``), ``version`` (1), ``features`` (the names above, in
order) and ``info`` (a JSON object: how it was trained), and the arrays ``linear`` ``(F,)``,
``w1`` ``(F, H)``, ``b1`` ``(H,)``, ``w2`` ``(H,)``.
"""

from __future__ import annotations

import json
import zipfile
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from nimmt.bots.batchsim import EMPTY, Batch, gumbel_noise
from nimmt.bots.policy import FEATURE_NAMES as CARD_FEATURE_NAMES
from nimmt.bots.policy import card_features
from nimmt.engine import BULLHEADS, DECK, HAND_SIZE, NUM_ROWS, ROW_LIMIT, SeatView

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]
FloatArray = npt.NDArray[np.float64]

FORMAT = "nimmt-policy"
VERSION = 1
PREFIX = "policy:"
"""A bot name ``policy:PATH`` plays the policy saved at ``PATH``."""

FEATURE_NAMES: tuple[str, ...] = (
    *CARD_FEATURE_NAMES,
    "unseen_between",
    "may_fill_row",
    "unseen_below",
    "own_between",
    "row",
    "row_heads",
    "row_length",
    "row_cheapest",
)
"""The features of a candidate, in the order of the weights."""
FEATURES = len(FEATURE_NAMES)
CANDIDATES = HAND_SIZE + NUM_ROWS
"""A decision's candidates: the 10 slots of the hand, then the 4 rows."""
ROW_CANDIDATE = HAND_SIZE
"""The first row candidate: ``ROW_CANDIDATE + r`` takes row ``r``."""

_HEADS = np.asarray(BULLHEADS, dtype=np.int64)
_CARDS = len(DECK)


class PolicyFileError(ValueError):
    """A policy file that cannot be read: missing, not a policy, another version, bad shapes."""


@dataclass(slots=True)
class Decisions:
    """``N`` decisions as seats see them: what the features and the legal candidates need."""

    hands: IntArray
    """``(N, 10)``: each seat's cards in rising order, :data:`EMPTY` after them."""
    seen: BoolArray
    """``(N, 105)``: ``seen[n, c]`` when seat ``n`` has seen card ``c`` this round."""
    ends: IntArray
    """``(N, 4)``: the last card of each row."""
    lengths: IntArray
    """``(N, 4)``: how many cards each row holds."""
    heads: IntArray
    """``(N, 4)``: the bullheads each row would cost if taken."""
    legal: BoolArray
    """``(N, 14)``: the legal candidates (hand slots, then rows)."""

    @classmethod
    def from_views(cls, views: list[SeatView]) -> Decisions:
        """The decisions of seats whose views these are."""
        size = len(views)
        hands = np.zeros((size, HAND_SIZE), dtype=np.int64)
        seen = np.zeros((size, _CARDS + 1), dtype=bool)
        ends = np.zeros((size, NUM_ROWS), dtype=np.int64)
        lengths = np.zeros((size, NUM_ROWS), dtype=np.int64)
        heads = np.zeros((size, NUM_ROWS), dtype=np.int64)
        legal = np.zeros((size, CANDIDATES), dtype=bool)
        for index, view in enumerate(views):
            hands[index, : len(view.hand)] = view.hand
            seen[index, list(view.seen_cards())] = True
            for row, cards in enumerate(view.rows):
                ends[index, row] = cards[-1]
                lengths[index, row] = len(cards)
                heads[index, row] = int(_HEADS[list(cards)].sum())
            if view.must_choose_row:
                legal[index, ROW_CANDIDATE:] = True
            else:
                playable = set(view.legal_cards())
                legal[index, :HAND_SIZE] = [card in playable for card in hands[index]]
        return cls(hands, seen, ends, lengths, heads, legal)

    def actions(self, candidates: IntArray) -> IntArray:
        """The environments' action numbers of ``candidates`` ``(N,)``: card ``c`` is action
        ``c - 1``, row ``r`` action ``104 + r``."""
        rows = np.arange(candidates.size)
        slot = np.minimum(candidates, HAND_SIZE - 1)
        cards = self.hands[rows, slot] - 1
        result: IntArray = np.where(
            candidates >= ROW_CANDIDATE, _CARDS + candidates - ROW_CANDIDATE, cards
        )
        return result


def candidate_features(decisions: Decisions) -> npt.NDArray[np.float32]:
    """``(N, 14, F)``: the features of every candidate of every decision (see the module)."""
    hands = decisions.hands
    size = hands.shape[0]
    index = np.arange(size)[:, None]
    batch = Batch(
        decisions.ends,
        decisions.lengths,
        decisions.heads,
        hands[:, None, :],
        np.zeros((size, 1), dtype=np.int64),
    )
    features = np.zeros((size, CANDIDATES, FEATURES), dtype=np.float32)
    card_block = len(CARD_FEATURE_NAMES)
    features[:, :HAND_SIZE, :card_block] = card_features(batch)[:, 0]
    order = np.argsort(decisions.ends, axis=1)
    ends = np.zeros((size, NUM_ROWS + 1), dtype=np.int64)
    ends[:, 1:] = np.take_along_axis(decisions.ends, order, axis=1)
    lengths = np.zeros((size, NUM_ROWS + 1), dtype=np.int64)
    lengths[:, 1:] = np.take_along_axis(decisions.lengths, order, axis=1)
    position = (hands[:, :, None] > ends[:, None, 1:]).sum(axis=2)  # 0: below every row
    low = position == 0
    target_end = ends[index, position]  # 0 for a low card
    target_length = lengths[index, position]
    unseen = ~decisions.seen
    unseen[:, EMPTY] = False
    below: IntArray = np.cumsum(unseen, axis=1) - unseen  # below[n, c]: unseen under c
    between = np.where(low, 0, below[index, hands] - below[index, target_end])
    own = (hands[:, None, :] > target_end[:, :, None]) & (hands[:, None, :] < hands[:, :, None])
    cards = features[:, :HAND_SIZE]
    cards[..., card_block] = np.minimum(between, 10) / 10
    cards[..., card_block + 1] = ~low & (between >= ROW_LIMIT - target_length)
    cards[..., card_block + 2] = np.minimum(below[index, hands], 20) / 20
    cards[..., card_block + 3] = own.sum(axis=2) / 5
    cards[hands == EMPTY] = 0
    rows = features[:, ROW_CANDIDATE:]
    rows[..., card_block + 4] = 1
    rows[..., card_block + 5] = decisions.heads / 10
    rows[..., card_block + 6] = decisions.lengths / ROW_LIMIT
    rows[..., card_block + 7] = decisions.heads == decisions.heads.min(axis=1, keepdims=True)
    return features


@dataclass(slots=True)
class Network:
    """The weights of a policy (see the module): ``x . linear + max(x W1 + b1, 0) . w2``."""

    linear: FloatArray
    w1: FloatArray
    b1: FloatArray
    w2: FloatArray
    info: dict[str, Any] = field(default_factory=dict)
    """How it was trained (saved in the file's ``info``)."""

    @classmethod
    def initial(cls, hidden: int, rng: np.random.Generator, scale: float = 0.3) -> Network:
        """A network of ``hidden`` units with small random weights (and no linear part)."""
        return cls(
            linear=np.zeros(FEATURES),
            w1=rng.normal(0, scale, (FEATURES, hidden)),
            b1=np.zeros(hidden),
            w2=rng.normal(0, scale, hidden) / np.sqrt(hidden),
        )

    def copy(self) -> Network:
        """A frozen copy: later changes to this network leave it as it is."""
        return Network(
            self.linear.copy(), self.w1.copy(), self.b1.copy(), self.w2.copy(), dict(self.info)
        )

    def scores(self, features: npt.NDArray[np.floating[Any]]) -> FloatArray:
        """``(...)``: the score of every candidate of ``features`` ``(..., F)``, rounded so
        that a batch and a single decision give the same choices."""
        flat = features.reshape(-1, features.shape[-1]).astype(np.float64)
        hidden = np.maximum(flat @ self.w1 + self.b1, 0)
        scores = np.round(flat @ self.linear + hidden @ self.w2, 9)
        result: FloatArray = scores.reshape(features.shape[:-1])
        return result

    def choose(
        self,
        decisions: Decisions,
        rng: np.random.Generator | None = None,
        temperature: float = 1.0,
    ) -> IntArray:
        """``(N,)``: each decision's candidate: the best-scored legal one, or with ``rng`` one
        drawn from the softmax of the scores divided by ``temperature``."""
        legal = decisions.legal
        scores = np.full(legal.shape, -np.inf)
        scores[legal] = self.scores(candidate_features(decisions)[legal])  # legal ones only
        if rng is not None:
            scores = scores / temperature + gumbel_noise(rng, legal.shape, np.float64)
        chosen: IntArray = scores.argmax(axis=1)
        return chosen

    def save(self, path: str | Path) -> Path:
        """Write the policy file (see the module); returns its path."""
        target = Path(path)
        with target.open("wb") as out:
            np.savez(
                out,
                format=np.array(FORMAT),
                version=np.array(VERSION),
                features=np.array(FEATURE_NAMES),
                info=np.array(json.dumps(self.info, sort_keys=True)),
                linear=self.linear.astype(np.float64),
                w1=self.w1.astype(np.float64),
                b1=self.b1.astype(np.float64),
                w2=self.w2.astype(np.float64),
            )
        return target


def load_policy(path: str | Path) -> Network:
    """The policy saved at ``path`` (kept in memory until the file changes), or a
    :class:`PolicyFileError` that says what is wrong with the file."""
    target = Path(path).expanduser()
    try:
        stat = target.resolve().stat()
    except OSError:
        raise PolicyFileError(f"no policy file at {str(path)!r}") from None
    if not target.is_file():
        raise PolicyFileError(f"{str(path)!r} is not a file")
    return _load(str(target.resolve()), stat.st_mtime_ns, stat.st_size).copy()


@lru_cache(maxsize=32)
def _load(path: str, mtime: int, size: int) -> Network:
    del mtime, size  # the cache's key only: a changed file is read again
    try:
        with np.load(path, allow_pickle=False) as archive:
            arrays = {name: archive[name] for name in archive.files}
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as error:
        raise PolicyFileError(f"{path!r} is not a policy file (.npz): {error}") from None
    header = arrays.get("format")
    if header is None or header.shape != () or str(header) != FORMAT:
        raise PolicyFileError(f"{path!r} is not a nimmt policy: no {FORMAT!r} header")
    version = arrays.get("version")
    if version is None or version.shape != () or int(version) != VERSION:
        raise PolicyFileError(
            f"{path!r} is a policy of version {version}; this nimmt reads version {VERSION}"
        )
    names = arrays.get("features")
    if names is None or tuple(str(name) for name in names) != FEATURE_NAMES:
        raise PolicyFileError(f"{path!r} was saved with other features than this nimmt's")
    weights = {}
    for name in ("linear", "w1", "b1", "w2"):
        array = arrays.get(name)
        if array is None or not np.issubdtype(array.dtype, np.floating):
            raise PolicyFileError(f"{path!r} has no array {name!r} of numbers")
        if not np.isfinite(array).all():
            raise PolicyFileError(f"{path!r}: {name!r} holds a value that is not finite")
        weights[name] = array.astype(np.float64)
    hidden = weights["b1"].shape[0] if weights["b1"].ndim == 1 else -1
    expected = {
        "linear": (FEATURES,),
        "w1": (FEATURES, hidden),
        "b1": (hidden,),
        "w2": (hidden,),
    }
    for name, shape in expected.items():
        if weights[name].shape != shape or hidden < 1:
            raise PolicyFileError(
                f"{path!r}: {name!r} has the shape {weights[name].shape}, not {shape}"
            )
    try:
        info = json.loads(str(arrays.get("info", "{}")))
    except ValueError:
        info = {}
    return Network(**weights, info=info if isinstance(info, dict) else {})


def is_policy(name: str) -> bool:
    """Whether a bot name is a ``policy:PATH`` name."""
    return name.strip()[: len(PREFIX)].lower() == PREFIX


def policy_path(name: str) -> str:
    """The ``PATH`` of a ``policy:PATH`` name."""
    return name.strip()[len(PREFIX) :].strip()


class PolicyBot:
    """The ``policy:PATH`` bot: the best-scored legal choice of the saved policy, for cards and
    rows alike (it draws nothing at random)."""

    def __init__(self, name: str, network: Network | None = None) -> None:
        self.name = name
        self.network = network if network is not None else load_policy(policy_path(name))

    def choose_card(self, view: SeatView) -> int:
        decisions = Decisions.from_views([view])
        slot = int(self.network.choose(decisions)[0])
        return int(decisions.hands[0, slot])

    def choose_row(self, view: SeatView) -> int:
        decisions = Decisions.from_views([view])
        return int(self.network.choose(decisions)[0]) - ROW_CANDIDATE


__all__ = [
    "CANDIDATES",
    "FEATURE_NAMES",
    "Decisions",
    "Network",
    "PolicyBot",
    "PolicyFileError",
    "candidate_features",
    "is_policy",
    "load_policy",
]
