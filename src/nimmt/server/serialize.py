"""JSON for the socket: a seat's view and the engine's events, exactly as docs/protocol.md says.

Only :class:`~nimmt.engine.SeatView` objects and events that passed
:meth:`~nimmt.engine.Game.events_for` come in here, so nothing a seat may not see can go out.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from typing import Any

from nimmt.engine import Event, Phase, SeatView

WAITING = "waiting"
"""The phase shown while human seats are still free (no cards are dealt before)."""


@dataclasses.dataclass(frozen=True, slots=True)
class RematchStarted:
    """A new game began at the same table with the same seats (a server event, not the
    engine's: the engine knows one game only)."""

    game: int


TableEvent = Event | RematchStarted


def _plain(value: Any) -> Any:
    """Tuples to lists, recursively, for JSON."""
    if isinstance(value, tuple | list):
        return [_plain(item) for item in value]
    return value


def event_type(event: TableEvent) -> str:
    """The event's type on the wire: its class name in snake_case (``CardsRevealed`` ->
    ``cards_revealed``)."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", type(event).__name__).lower()


def event_to_json(event: TableEvent) -> dict[str, Any]:
    data: dict[str, Any] = {"type": event_type(event)}
    for field in dataclasses.fields(event):
        data[field.name] = _plain(getattr(event, field.name))
    return data


def view_to_json(
    view: SeatView, names: Sequence[str | None], waiting_for: Sequence[int], *, seated: bool
) -> dict[str, Any]:
    """The ``view`` object of a ``state`` message.

    ``seated`` is False while human seats are still free: the phase then reads ``waiting``.
    ``waiting_for`` comes from :meth:`~nimmt.engine.Game.waiting_for` (public knowledge).
    """
    pending = view.pending_row_choice
    outcome = view.outcome
    return {
        "phase": view.phase.value if seated or view.phase is not Phase.DEALING else WAITING,
        "round": view.round,
        "turn": view.turn,
        "names": list(names),
        "rows": _plain(view.rows),
        "hand": list(view.hand),
        "legal_cards": list(view.legal_cards()),
        "chosen_card": view.chosen_card,
        "has_chosen": list(view.has_chosen),
        "waiting_for": list(waiting_for),
        "revealed": _plain(view.revealed) if view.revealed is not None else None,
        "pending_row_choice": (
            {"seat": pending.seat, "card": pending.card} if pending is not None else None
        ),
        "must_choose_row": view.must_choose_row,
        "round_rows": list(view.round_rows),
        "played": _plain(view.played),
        "penalties": list(view.penalties),
        "totals": list(view.totals),
        "score_sheet": _plain(view.score_sheet),
        "outcome": (
            {"totals": list(outcome.totals), "winners": list(outcome.winners)}
            if outcome is not None
            else None
        ),
    }
