"""The wire shapes of docs/protocol.md: a seat's view, the engine's events, ``state`` and
``events`` messages, a table's summary and its line in the open-tables list (and on its group's
page), errors.

Only :class:`~nimmt.engine.SeatView` and :class:`~nimmt.engine.OwnCards` objects and events
that passed :meth:`~nimmt.engine.Game.events_for` come in here, so nothing a seat may not see can
go out.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import orjson

from nimmt.engine import OwnCards, Phase, SeatView, visible_to
from nimmt.server.events import TABLE_EVENTS, TableEvent

if TYPE_CHECKING:
    from nimmt.server.errors import ServiceError
    from nimmt.server.storage import GroupTable, OpenTable
    from nimmt.server.table import LiveTable

WAITING = "waiting"
"""The phase shown while human seats are still free (no cards are dealt before)."""


# The dicts built here hold tuples where the wire has arrays: JSON writes both alike, and not
# copying every row and hand for every listener is what keeps a busy server fast.


class Frame(dict[str, Any]):
    """A message that may go to several listeners as it is (a change told to every spectator,
    or events every seat may see): its JSON is written once, when a transport first asks for
    :attr:`text`, and shared. Nobody changes a frame once it is made."""

    __slots__ = ("_text",)

    def __init__(self, message: dict[str, Any]) -> None:
        super().__init__(message)
        self._text: str | None = None

    @property
    def text(self) -> str:
        if self._text is None:
            self._text = orjson.dumps(self).decode()
        return self._text


def encode(message: dict[str, Any]) -> str:
    """A message's JSON text, as its socket sends it (a :class:`Frame`'s is written once).

    orjson writes strict JSON (no NaN can come out), and fast: every state goes out here.
    """
    if isinstance(message, Frame):
        return message.text
    return orjson.dumps(message).decode()


_WIRE_TYPES: dict[type, tuple[str, tuple[str, ...]]] = {}


def _wire_type(kind: type) -> tuple[str, tuple[str, ...]]:
    """An event class's name on the wire (its class name in snake_case: ``CardsRevealed`` ->
    ``cards_revealed``) and its fields (worked out once per class)."""
    known = _WIRE_TYPES.get(kind)
    if known is None:
        name = re.sub(r"(?<!^)(?=[A-Z])", "_", kind.__name__).lower()
        known = _WIRE_TYPES[kind] = (name, tuple(field.name for field in dataclasses.fields(kind)))
    return known


def event_to_json(event: TableEvent) -> dict[str, Any]:
    name, fields = _wire_type(type(event))
    data: dict[str, Any] = {"type": name}
    for field in fields:
        data[field] = getattr(event, field)
    return data


def view_to_json(
    view: SeatView, names: Sequence[str | None], waiting_for: Sequence[int], *, seated: bool
) -> dict[str, Any]:
    """The ``view`` object of a ``state`` message.

    ``seated`` is False while human seats are still free: the phase then reads ``waiting``.
    ``waiting_for`` comes from :meth:`~nimmt.engine.Game.waiting_for` (public knowledge).
    """
    own = own_view_json(view.own_cards())
    return {**public_view_json(view, names, waiting_for, seated=seated), **own}


def own_view_json(own: OwnCards) -> dict[str, Any]:
    """The part of a ``view`` object that is the seat's own (:meth:`~nimmt.engine.Game.
    own_cards`, or a whole view's): its cards, its face-down card, whether the table waits for
    its row choice. A spectator's view has no cards."""
    return {
        "hand": own.hand,
        "legal_cards": own.legal_cards,
        "chosen_card": own.chosen_card,
        "must_choose_row": own.must_choose_row,
    }


def public_view_json(
    view: SeatView, names: Sequence[str | None], waiting_for: Sequence[int], *, seated: bool
) -> dict[str, Any]:
    """The part of a ``view`` object every listener of the table sees alike (the rest is
    :func:`own_view_json`): built once per change and shared by every seat's message."""
    pending = view.pending_row_choice
    outcome = view.outcome
    return {
        "phase": view.phase.value if seated or view.phase is not Phase.DEALING else WAITING,
        "round": view.round,
        "turn": view.turn,
        "names": list(names),
        "rows": view.rows,
        "has_chosen": view.has_chosen,
        "waiting_for": waiting_for,
        "revealed": view.revealed,
        "pending_row_choice": (
            {"seat": pending.seat, "card": pending.card} if pending is not None else None
        ),
        "round_rows": view.round_rows,
        "played": view.played,
        "chosen_rows": view.chosen_rows,
        "penalties": view.penalties,
        "totals": view.totals,
        "score_sheet": view.score_sheet,
        "outcome": (
            {"totals": list(outcome.totals), "winners": list(outcome.winners)}
            if outcome is not None
            else None
        ),
    }


def iso(moment: datetime) -> str:
    """ISO 8601 in UTC with a ``Z``, as every timestamp on the wire."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def state_message(
    table: LiveTable, seat: int | None, table_summary: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The ``state`` message for one listener (``seat`` ``None``: a spectator); the table's
    ``table_summary`` may be given when it was built already for the other listeners."""
    view = table.game.view(seat)
    return {
        "type": "state",
        "version": table.version,
        "you": {"seat": seat},
        "table": table_summary if table_summary is not None else summary(table),
        "view": view_to_json(view, table.names(), table.game.waiting_for(), seated=table.full),
    }


def events_message(
    events: Iterable[TableEvent], version: int, seat: int | None
) -> dict[str, Any] | None:
    """The ``events`` message with what ``seat`` may see of ``events``; ``None`` if nothing."""
    visible = [
        event_to_json(event)
        for event in events
        if isinstance(event, TABLE_EVENTS) or visible_to(event, seat)
    ]
    if not visible:
        return None
    return {"type": "events", "version": version, "events": visible}


def summary(table: LiveTable) -> dict[str, Any]:
    """The public summary of a table (``GET /api/tables/{code}``, and in every ``state``)."""
    return {
        "code": table.code,
        "url": f"/t/{table.code}",
        "game": table.game_number,
        "seats": _seats(table),
        "phase": table.phase,
        "round": table.game.round,
        "finished": table.finished,
        "rematch": (
            {"ready": sorted(table.rematch_ready), "needed": table.people_seats()}
            if table.finished
            else None
        ),
        "created_at": _created_at(table),
        "assisted": table.assisted,
        "coach": table.coach,
        "absence": table.absence_summary(),
    }


def _created_at(table: LiveTable) -> str:
    text = table.created_text
    if text is None:
        text = table.created_text = iso(table.created_at)
    return text


def _seats(table: LiveTable) -> list[dict[str, Any]]:
    """The summary's ``seats``: the same list while neither the seats nor who is connected
    change (they seldom do: a table's summary is made after every change)."""
    made_from = (tuple(table.seats), frozenset(table.connected_seats()))
    known = table.seats_told
    if known is not None and known[0] == made_from:
        return known[1]
    seats, connected = made_from
    shown = [
        {
            "seat": seat.seat,
            "kind": seat.kind,
            "name": seat.name,
            "bot": seat.bot,
            "bot_name": _bot_name(seat.seat, seat.bot, seat.name),
            "occupied": seat.kind != "human" or seat.token_hash is not None,
            "connected": seat.kind != "human" or seat.seat in connected,
        }
        for seat in seats
    ]
    table.seats_told = (made_from, shown)
    return shown


def bot_display_name(bot: str, seat: int) -> str:
    """A bot seat's name as the server stores it (in English; clients translate it from
    ``bot_name`` in the table's summary)."""
    return f"Bot {seat + 1} ({bot})"


def _bot_name(seat: int, bot: str | None, name: str | None) -> dict[str, Any] | None:
    """The parts of a bot seat's own name (``Bot 3 (greedy)``), so that a client can say it in
    its reader's language: ``None`` for a person's seat, or a person's name a bot plays on."""
    if bot is None or name != bot_display_name(bot, seat):
        return None
    return {"bot": bot, "number": seat + 1}


def open_table_entry(entry: OpenTable) -> dict[str, Any]:
    """A table's line in the open-tables list (``GET /api/tables``), from storage."""
    return {
        "code": entry.code,
        "seats": entry.seats,
        "free_seats": entry.free_seats,
        "humans": list(entry.humans),
        "phase": entry.phase,
        "round": entry.round,
        "created_at": iso(entry.created_at),
    }


def group_table_entry(entry: GroupTable) -> dict[str, Any]:
    """An open table's line on its group's page (``GET /api/groups/{code}``, ``open``), from
    storage: what the lobby shows of it, with its link, its game's number, whether it is played
    with real cards, and whether it waits for people or is in play."""
    return {
        "code": entry.code,
        "url": f"/t/{entry.code}",
        "real_cards": entry.real_cards,
        "seats": entry.seats,
        "free_seats": entry.free_seats,
        "players": list(entry.players),
        "state": "waiting" if entry.phase == WAITING else "playing",
        "phase": entry.phase,
        "round": entry.round,
        "game": entry.game,
        "created_at": iso(entry.created_at),
    }


def error_message(error: ServiceError, request_id: Any = None) -> dict[str, Any]:
    """The socket's ``error`` message for a refused action."""
    message = {
        "type": "error",
        "code": error.code,
        "message": error.message,
        "request_id": request_id,
    }
    if error.details:
        message["details"] = error.details
    return message
