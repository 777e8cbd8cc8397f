"""The coach's brain: every choice of one decision scored in the seat's own expected bullheads.

:func:`analyze` takes one seat's :class:`~nimmt.engine.SeatView` (nothing else: the coach sees
what a bot sees) at a decision, either a card to play or a row to take, and returns an
:class:`Analysis`: for every legal choice, the bullheads the seat can expect to take from this
decision to the end of the round if it makes that choice.

The search is ``hard``'s (:mod:`nimmt.bots.levels`): ``samples`` deals of the cards the seat has
not seen, sampled uniformly, and every candidate tried in the *same* deals; the other seats'
cards of this turn, and every later turn of the round (the seat's own included), are played by
the softmin rollout policy. Two things differ from ``hard``:

- a candidate is scored by the seat's **own** bullheads, not relative to the other seats', since
  that is what a person asks a coach ("what will this card cost me?");
- the rollout noise is shared too: in each sampled deal every candidate's rollout draws the same
  random numbers for the same card slots, so the candidates differ only by the choice itself as
  far as the rules allow. That pairs the comparison more tightly (a smaller standard error for the
  same number of deals) without changing what is estimated.

``extra`` is a candidate's expected bullheads minus the best candidate's, and ``stderr`` its
standard error, paired over the deals (the standard deviation of the per-deal difference divided
by the square root of ``samples``). ``confidence`` is the share of sampled deals in which the best
candidate took no more bullheads than the runner-up (the candidate with the next-lowest expected),
1.0 when there is only one candidate: near 1 the advice is clear, near 0.5 the two are a toss-up.

The review of a whole game record, decision by decision, is :mod:`nimmt.review`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt

from nimmt.bots.batchsim import (
    EMPTY,
    Batch,
    IntArray,
    batch_from_rows,
    gumbel_noise,
    placement_costs,
    play_out,
    resolve_turn,
    sample_hands,
    take_cards,
)
from nimmt.bots.montecarlo import table_order
from nimmt.engine import NUM_ROWS, Phase, SeatView

DEFAULT_SAMPLES = 1024
"""Sampled deals per analysis: ``hard``'s number at 4 seats."""
TEMPERATURE = 1.0
"""The softmin rollout policy's temperature, in bullheads (``hard``'s)."""


class NoDecisionError(ValueError):
    """The view is not at a decision of its seat: no card to choose, no row to take."""


@dataclass(frozen=True, slots=True)
class Candidate:
    """One legal choice of a decision and what it is expected to cost."""

    choice: int
    """A card (1 to 104), or a row (0 to 3, 0-based as in the engine)."""
    expected: float
    """The seat's own expected bullheads from this decision to the end of the round."""
    extra: float
    """``expected`` minus the best candidate's (0.0 for the best)."""
    stderr: float
    """Standard error of ``extra``, paired over the same sampled deals (0.0 for the best)."""


@dataclass(frozen=True, slots=True)
class Analysis:
    """Every legal choice of one decision, scored on the same sampled deals."""

    kind: Literal["card", "row"]
    best: int
    """The choice with the lowest ``expected`` (the lowest choice on ties)."""
    candidates: tuple[Candidate, ...]
    """Every legal choice, ascending by choice."""
    samples: int
    confidence: float
    """The share of sampled deals in which ``best`` took no more bullheads than the runner-up
    (1.0 with a single candidate)."""

    def candidate(self, choice: int) -> Candidate:
        """The candidate for ``choice`` (``KeyError`` if it is not a legal choice)."""
        for candidate in self.candidates:
            if candidate.choice == choice:
                return candidate
        raise KeyError(choice)


def analyze(view: SeatView, *, samples: int = DEFAULT_SAMPLES, seed: int = 0) -> Analysis:
    """Score every legal choice of ``view``'s seat at its decision (see the module's docstring).

    The decision is the row to take when ``view.must_choose_row``, else the card to play: every
    card of the hand while cards are being chosen (a card already chosen face down can still be
    changed, so the whole hand is scored). The same ``seed`` gives the same analysis.
    :class:`NoDecisionError` when the seat has nothing to decide (a spectator, a seat waiting for
    someone else's row choice, no cards left).

    At the round's last turn a row choice has nothing uncertain left: each row costs exactly
    its bullheads.

    >>> from nimmt.engine import Game
    >>> game = Game.from_position(rows=[[5, 6], [20, 21, 22], [55], [70, 77]], hands=[[2], [50]])
    >>> game.play(0, 2)
    >>> game.play(1, 50)
    >>> analysis = analyze(game.view(0), samples=16)
    >>> analysis.kind, analysis.best, [candidate.expected for candidate in analysis.candidates]
    ('row', 0, [3.0, 9.0, 7.0, 8.0])
    """
    if samples < 1:
        raise ValueError(f"an analysis needs at least one sampled deal, not {samples}")
    if view.seat is None:
        raise NoDecisionError("a spectator has no decision to analyze")
    rng = np.random.default_rng(seed)
    if view.must_choose_row:
        return _summarize("row", tuple(range(NUM_ROWS)), _row_costs(view, samples, rng), samples)
    if view.phase is not Phase.CHOOSING_CARDS or not view.hand:
        raise NoDecisionError("this seat has no card to choose and no row to take now")
    hand = view.hand
    return _summarize("card", hand, _card_costs(view, hand, samples, rng), samples)


# ------------------------------------------------------------------------------- the search


class _PairedSoftmin:
    """``hard``'s softmin rollout policy, with the same noise in every candidate's copy of a
    sampled deal: the batch holds ``copies`` blocks of ``samples`` rounds, block ``c`` being
    candidate ``c``, and round ``i`` of every block draws the noise of round ``i`` of the first.
    """

    def __init__(self, copies: int, samples: int, rng: np.random.Generator) -> None:
        self._copies = copies
        self._samples = samples
        self._rng = rng

    def __call__(self, batch: Batch) -> IntArray:
        hands = batch.hands
        noise = gumbel_noise(self._rng, (self._samples, *hands.shape[1:]))
        key = placement_costs(batch).astype(np.float32) * np.float32(1 / TEMPERATURE)
        key -= np.tile(noise, (self._copies, 1, 1))
        key[hands == EMPTY] = np.inf
        choice: IntArray = key.argmin(axis=-1)
        return choice


def _unseen(view: SeatView) -> tuple[int, ...]:
    """The cards the seat cannot see. The rows' cards are on the table for everyone: in a dealt
    round they were all seen already, in a game set up from a position they may not be."""
    on_rows = {card for row in view.rows for card in row}
    return tuple(card for card in view.unseen_cards() if card not in on_rows)


def _deals(
    view: SeatView, own: tuple[int, ...], samples: int, rng: np.random.Generator
) -> IntArray:
    """``(samples, P, H)``: the seat's cards ``own`` (seat 0 of a batch) and sampled hands of
    the same size for the others, in table order."""
    others = sample_hands(_unseen(view), view.players - 1, len(own), samples, rng)
    mine = np.broadcast_to(np.asarray(own, dtype=np.int64), (samples, 1, len(own)))
    return np.concatenate([mine, others], axis=1)


def _card_costs(
    view: SeatView, hand: tuple[int, ...], samples: int, rng: np.random.Generator
) -> npt.NDArray[np.int64]:
    """``(len(hand), samples)``: the seat's bullheads to the end of the round, per candidate
    card (slot ``c`` of its hand) and sampled deal."""
    count = len(hand)
    deals = _deals(view, hand, samples, rng)
    batch = batch_from_rows(view.rows, np.tile(deals, (count, 1, 1)))
    policy = _PairedSoftmin(count, samples, rng)
    slots = policy(batch)
    slots[:, 0] = np.repeat(np.arange(count), samples)
    resolve_turn(batch, take_cards(batch, slots))
    play_out(batch, count - 1, policy)
    costs: npt.NDArray[np.int64] = batch.penalties[:, 0].reshape(count, samples)
    return costs


def _row_costs(view: SeatView, samples: int, rng: np.random.Generator) -> npt.NDArray[np.int64]:
    """``(4, samples)``: the seat's bullheads to the end of the round, per row taken and
    sampled deal (the turn finishes, then the rest of the round is played out)."""
    revealed = view.revealed
    assert revealed is not None and view.seat is not None
    rest = view.hand  # the revealed card is no longer in the hand
    deals = _deals(view, rest, samples, rng)
    batch = batch_from_rows(view.rows, np.tile(deals, (NUM_ROWS, 1, 1)))
    turn = np.asarray([revealed[seat] for seat in table_order(view)], dtype=np.int64)
    cards = np.broadcast_to(turn, (batch.size, view.players)).copy()
    resolve_turn(batch, cards, np.repeat(np.arange(NUM_ROWS), samples))
    play_out(batch, len(rest), _PairedSoftmin(NUM_ROWS, samples, rng))
    costs: npt.NDArray[np.int64] = batch.penalties[:, 0].reshape(NUM_ROWS, samples)
    return costs


def _summarize(
    kind: Literal["card", "row"],
    choices: tuple[int, ...],
    costs: npt.NDArray[np.int64],
    samples: int,
) -> Analysis:
    expected = costs.mean(axis=1)
    order = np.argsort(expected, kind="stable")  # ties: the lowest choice first
    best = int(order[0])
    differences = (costs - costs[best]).astype(np.float64)
    if samples > 1:
        errors = differences.std(axis=1, ddof=1) / np.sqrt(samples)
    else:
        errors = np.zeros(len(choices))
    if len(choices) > 1:
        runner_up = int(order[1])
        confidence = float(np.mean(costs[best] <= costs[runner_up]))
    else:
        confidence = 1.0
    candidates = tuple(
        Candidate(
            choice=choice,
            expected=float(expected[index]),
            extra=float(expected[index] - expected[best]),
            stderr=float(errors[index]),
        )
        for index, choice in enumerate(choices)
    )
    return Analysis(kind, choices[best], candidates, samples, confidence)
