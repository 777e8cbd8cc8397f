"""The coach of ``nimmt play --coach``: before the person chooses a card or a row, what each
choice is expected to cost, the best one marked. It only shows: the person still types the
choice, and nothing is chosen or played for them.

The figures come from :func:`nimmt.bots.analysis.analyze`, given the person's own seat view and
nothing else (the coach knows what a bot in that seat would know). The analysis is seen here
through the small read-only shape below, so that the terminal depends on what it shows only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from rich.text import Text

from nimmt.engine import SeatView
from nimmt.terminal.tables import card_text


class Scored(Protocol):
    """One choice as the analysis scores it."""

    @property
    def choice(self) -> int:
        """A card (1 to 104) or a row (0 to 3)."""

    @property
    def expected(self) -> float:
        """The seat's expected bullheads from this choice to the round's end."""

    @property
    def extra(self) -> float:
        """``expected`` beyond the best choice's (0 for the best)."""


class Advice(Protocol):
    """An analysis of one decision: every legal choice scored on the same sampled deals."""

    @property
    def kind(self) -> str:
        """``"card"`` or ``"row"``."""

    @property
    def best(self) -> int: ...

    @property
    def candidates(self) -> Sequence[Scored]:
        """Every legal choice, ascending."""

    @property
    def samples(self) -> int: ...

    @property
    def confidence(self) -> float:
        """The share of sampled deals in which the best did no worse than the runner-up."""


Analyzer = Callable[[SeatView, int], Advice]
"""Scores the decision of a seat view, drawing its samples from the given seed."""


def analyzer() -> Analyzer:
    """The coach's analysis (imported on first use: only ``--coach`` needs the search)."""
    from nimmt.bots.analysis import analyze

    return lambda view, seed: analyze(view, seed=seed)


def advice_text(advice: Advice) -> Text:
    """The coach's lines: each choice with the bullheads it is expected to cost beyond the best
    (``+2.4``), the best starred, then the best's own expectation and how clear the advice is."""
    cards = advice.kind == "card"
    line = Text("Coach: ", style="bold cyan")
    line.append(
        "extra bullheads each card is expected to cost you, beyond the best ★"
        if cards
        else "extra bullheads each row is expected to cost you, beyond the best ★"
    )
    choices = Text("  ")
    for index, candidate in enumerate(advice.candidates):
        if index:
            choices.append("  ")
        choices.append(_choice(candidate.choice, cards))
        if candidate.choice == advice.best:
            choices.append(" ★", style="bold green")
        else:
            choices.append(f" +{candidate.extra:.1f}", style="cyan")
    best = next(c for c in advice.candidates if c.choice == advice.best)
    said = f"card {best.choice}" if cards else f"row {best.choice + 1}"
    summary = Text(
        f"  ★ {said}: {best.expected:.1f} bullheads expected to the round's end",
        style="dim",
    )
    if len(advice.candidates) > 1:
        runner_up = min(
            (c for c in advice.candidates if c.choice != advice.best),
            key=lambda c: (c.expected, c.choice),
        )
        other = f"card {runner_up.choice}" if cards else f"row {runner_up.choice + 1}"
        summary.append(
            f"; no worse than {other} in {advice.confidence:.0%} of {advice.samples} sampled deals"
        )
    summary.append(". You choose.")
    return Text("\n").join([line, choices, summary])


def _choice(choice: int, cards: bool) -> Text:
    return card_text(choice) if cards else Text(f"row {choice + 1}")
