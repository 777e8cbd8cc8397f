"""The review of a finished game: every decision one player made in a record, scored by the coach.

:func:`review` is what ``nimmt analyze RECORD --seat NAME --json`` prints (docs/formats.md,
section 4) and what the web table's ``GET /api/tables/{code}/analysis`` answers: each decision's
seat view is rebuilt by replaying the record through the engine, so the analysis of a past
decision (:func:`nimmt.bots.analyze`) sees exactly what the player saw then.

It reads records (:mod:`nimmt.records`) and asks the bots' search, so it sits above both.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from nimmt.bots.analysis import DEFAULT_SAMPLES, analyze
from nimmt.engine import Game, SeatView
from nimmt.records import RecordError, parse_record, replay_record

REVIEW_DIGITS = 2
"""Decimals of the bullhead figures in a review."""


@dataclass(frozen=True, slots=True)
class PastDecision:
    """A decision a player made in a recorded game, and the view they made it from."""

    round: int
    """1-based."""
    turn: int
    """1-based: the turn whose card was chosen, or in which the row was taken."""
    kind: Literal["card", "row"]
    chosen: int
    """The card played, or the row taken (0-based, as in the engine)."""
    view: SeatView


def past_decisions(record: Mapping[str, Any] | str, seat: int) -> list[PastDecision]:
    """Every decision ``seat`` made in ``record`` with more than one legal choice, in order.

    The record is checked first (:class:`~nimmt.records.RecordError` if it is not valid, or has
    no seat ``seat``), then replayed card by card, so that each decision's view is the one the
    engine showed the seat.
    """
    data = parse_record(record) if isinstance(record, str) else record
    players = replay_record(data).players
    if isinstance(seat, bool) or not 0 <= seat < len(players):
        raise RecordError(f"the record has no seat {seat} (seats 0 to {len(players) - 1})")
    return list(_replay_decisions(data, len(players), seat))


def _replay_decisions(data: Mapping[str, Any], players: int, seat: int) -> Iterator[PastDecision]:
    """The decisions of ``seat`` in a record already checked by ``replay_record``."""
    game = Game(players)
    for round_index, entry in enumerate(data["rounds"]):
        game.apply_deal(entry["rows"], entry["hands"])
        for turn_index, turn in enumerate(entry.get("turns") or []):
            cards = turn["cards"]
            view = game.view(seat)
            if len(view.legal_cards()) > 1:
                yield PastDecision(round_index + 1, turn_index + 1, "card", cards[seat], view)
            for player, card in enumerate(cards):
                game.play(player, card)
            pending = game.pending_row_choice
            if pending is not None:
                if pending.seat == seat:
                    view = game.view(seat)
                    yield PastDecision(round_index + 1, turn_index + 1, "row", turn["row"], view)
                game.choose_row(pending.seat, turn["row"])


def review(
    record: Mapping[str, Any] | str,
    seat: int,
    *,
    samples: int = DEFAULT_SAMPLES,
    seed: int = 0,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """The JSON object of ``nimmt analyze --json`` for ``seat``'s decisions in ``record``
    (docs/formats.md, section 4): every decision with its candidates' expected bullheads, the
    chosen one's loss against the best, and the total loss. Rows are 1-based here, as people
    count them. ``progress(done, total)`` is called after each decision.
    Raises :class:`~nimmt.records.RecordError` for an invalid record or seat.
    """
    data = parse_record(record) if isinstance(record, str) else record
    decisions = past_decisions(data, seat)
    shown: list[dict[str, Any]] = []
    for index, decision in enumerate(decisions):
        analysis = analyze(
            decision.view,
            samples=samples,
            seed=_decision_seed(seed, decision.round, decision.turn, decision.kind),
        )
        shift = 1 if decision.kind == "row" else 0
        expected = {c.choice: round(c.expected, REVIEW_DIGITS) for c in analysis.candidates}
        loss = round(expected[decision.chosen] - expected[analysis.best], REVIEW_DIGITS)
        shown.append(
            {
                "round": decision.round,
                "turn": decision.turn,
                "kind": decision.kind,
                "chosen": decision.chosen + shift,
                "best": analysis.best + shift,
                "loss": loss,
                "candidates": [
                    {"choice": choice + shift, "expected": value}
                    for choice, value in expected.items()
                ],
            }
        )
        if progress is not None:
            progress(index + 1, len(decisions))
    total = round(sum(entry["loss"] for entry in shown), REVIEW_DIGITS)
    return {
        "seat": seat,
        "name": data["players"][seat],
        "decisions": shown,
        "total_loss": total,
    }


def _decision_seed(seed: int, round_number: int, turn: int, kind: str) -> int:
    """A seed of its own for each decision, so that one decision's analysis does not depend on
    which others were analyzed before it."""
    return random.Random(f"{seed}/{round_number}/{turn}/{kind}").getrandbits(63)
