"""A table's state as one server process holds it: its seats, the engine's game, the version
counter, who is listening; and the table-level rules around the engine (codes, names, tokens).

A table's game is rebuilt by :meth:`LiveTable.replay`, which feeds stored actions through the
engine: at load, after a refused write, and to show an earlier game's record.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import secrets
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from nimmt.bots import Bot
from nimmt.engine import Game, Phase
from nimmt.server.errors import ServiceError
from nimmt.server.serialize import TableEvent
from nimmt.server.storage import ActionRecord, SeatRecord, TableStatus

CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
"""Table codes avoid 0/O and 1/I, which people misread when they pass a code on."""
CODE_LENGTH = 6
NAME_MAX = 24
MIN_SEATS, MAX_SEATS = 2, 10


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def normalize_code(code: str) -> str | None:
    """The code in capitals, or ``None`` when it cannot be a table code at all."""
    code = code.strip().upper()
    if len(code) != CODE_LENGTH or any(char not in CODE_ALPHABET for char in code):
        return None
    return code


def clean_name(name: object) -> str:
    """A display name, trimmed; :class:`ServiceError` ``bad_name`` when unusable."""
    if not isinstance(name, str):
        raise ServiceError("bad_name", "The name must be text.", 422)
    cleaned = " ".join(name.split())
    if not cleaned:
        raise ServiceError("bad_name", "Please give a name.", 422)
    if len(cleaned) > NAME_MAX:
        raise ServiceError("bad_name", f"A name has at most {NAME_MAX} characters.", 422)
    if any(unicodedata.category(char).startswith("C") for char in cleaned):
        raise ServiceError("bad_name", "A name cannot hold control characters.", 422)
    return cleaned


def bot_display_name(bot: str, seat: int) -> str:
    return f"Bot {seat + 1} ({bot})"


@dataclass(frozen=True, slots=True)
class SeatSpec:
    """One seat asked for when creating a table."""

    kind: str
    bot: str | None = None


class Connection:
    """One socket's end as the service sees it: which seat it holds (``None``: spectator) and a
    queue the transport drains. Sending never blocks, so a slow client cannot stall a table."""

    def __init__(self, code: str, token: str | None, seat: int | None) -> None:
        self.code = code
        self.token = token
        self.seat = seat
        self.queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()

    def send(self, message: dict[str, Any]) -> None:
        self.queue.put_nowait(message)


@dataclass(eq=False)
class LiveTable:
    """A table in memory: the seats, the engine's game, and who is listening."""

    code: str
    created_at: datetime
    seats: list[SeatRecord]
    game_number: int = 1
    game: Game = field(init=False)
    version: int = 0
    decision_version: int = 0
    """The version at which the current decision began (a deal, a reveal, a resolved turn, a
    rematch): an action made on an older state is stale. Other seats' face-down choices do not
    start a decision, because play is simultaneous."""
    decision_key: tuple[Any, ...] = ()
    events_seen: int = 0
    pending_events: list[TableEvent] = field(default_factory=list)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    connections: set[Connection] = field(default_factory=set)
    bots: dict[int, Bot] = field(default_factory=dict)
    bot_tasks: dict[int, asyncio.Task[None]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.game = Game(len(self.seats))
        self.decision_key = self._key()

    @property
    def full(self) -> bool:
        """Every human seat is taken (no cards are dealt before)."""
        return all(seat.kind == "bot" or seat.token_hash is not None for seat in self.seats)

    @property
    def finished(self) -> bool:
        return self.game.phase is Phase.GAME_OVER

    @property
    def phase(self) -> str:
        return self.game.phase.value if self.full else "waiting"

    def names(self) -> list[str | None]:
        return [seat.name for seat in self.seats]

    def seat_of_token(self, token: str) -> int | None:
        digest = hash_token(token)
        for seat in self.seats:
            if seat.token_hash is not None and hmac.compare_digest(seat.token_hash, digest):
                return seat.seat
        return None

    def status(self) -> TableStatus:
        return TableStatus(
            self.version, self.game_number, self.phase, self.game.round, self.finished
        )

    def _key(self) -> tuple[Any, ...]:
        game = self.game
        return (self.game_number, game.round, game.turn, game.phase, game.pending_row_choice)

    def note_change(self) -> None:
        """Collect the engine's new events and see whether a new decision began."""
        events = self.game.events
        self.pending_events.extend(events[self.events_seen :])
        self.events_seen = len(events)
        key = self._key()
        if key != self.decision_key:
            self.decision_key = key
            self.decision_version = self.version

    def replay(self, actions: Iterable[ActionRecord], version: int) -> None:
        """Rebuild the current game from its stored ``actions`` (nobody hears of their events)
        and set the table at ``version``."""
        self.game = Game(len(self.seats))
        self.events_seen = 0
        self.version = 0
        self.decision_version = 0
        self.decision_key = ()
        for action in actions:
            self.version = action.seq
            apply_to_game(self.game, action)
            self.note_change()
        self.version = version
        self.pending_events.clear()


def apply_to_game(game: Game, action: ActionRecord) -> None:
    """Apply a stored game action to ``game`` (raises the engine's ``RuleError`` if illegal)."""
    if action.kind == "deal":
        assert action.data is not None
        game.deal_cards(action.data["rows"], action.data["hands"])
    elif action.kind == "play":
        assert action.seat is not None and action.card is not None
        game.play(action.seat, action.card, replace=True)
    elif action.kind == "retract":
        assert action.seat is not None
        game.retract(action.seat)
    elif action.kind == "choose_row":
        assert action.seat is not None and action.row is not None
        game.choose_row(action.seat, action.row)
    elif action.kind not in ("join", "leave", "rematch"):  # seat and table changes: no move
        raise ValueError(f"unknown stored action {action.kind!r}")


def new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
