"""A table's state as one server process holds it: its seats, the engine's game, the version
counter, who is listening; and the table-level rules around the engine (codes, names, tokens).

A table's game is rebuilt by :meth:`LiveTable.replay`, which feeds stored actions through the
engine: at load, after a refused write, and to show an earlier game's record.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import hmac
import secrets
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, ClassVar

from nimmt import names
from nimmt.engine import Game, OwnCards, Phase
from nimmt.server import standins
from nimmt.server.actions import SEAT_CHANGES, STAND_IN_KINDS, ActionKind
from nimmt.server.errors import ServiceError
from nimmt.server.events import (
    PlayerJoined,
    RematchStarted,
    RematchVote,
    SeatLeft,
    TableEvent,
)
from nimmt.server.standins import CardStandsError, Presence, StandIns
from nimmt.server.storage import ActionRecord, SeatRecord, TableStatus

CODE_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
"""Table codes avoid 0/O and 1/I, which people misread when they pass a code on."""
CODE_LENGTH = 6
TOKEN_DIGESTS = 8192
"""Digests of tokens kept for :func:`hash_token` (a busy server has a few thousand sockets)."""
MIN_SEATS, MAX_SEATS = 2, 10


@functools.lru_cache(maxsize=TOKEN_DIGESTS)
def hash_token(token: str) -> str:
    """A token's digest, as stored for its seat (a socket's every action asks again: the
    digests of the tokens in use are kept)."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


def normalize_code(code: str) -> str | None:
    """The code in capitals, or ``None`` when it cannot be a table code at all."""
    code = code.strip().upper()
    if len(code) != CODE_LENGTH or any(char not in CODE_ALPHABET for char in code):
        return None
    return code


def clean_name(name: object) -> str:
    """``name`` as a display name by :func:`nimmt.names.clean_name`; :class:`ServiceError`
    ``bad_name`` when the rule refuses it."""
    try:
        return names.clean_name(name)
    except names.BadNameError as error:
        raise ServiceError.refusing(error) from None


@dataclass(frozen=True, slots=True)
class SeatSpec:
    """One seat asked for when creating a table."""

    kind: str
    bot: str | None = None


RESYNC: dict[str, Any] = {"type": "resync"}
"""Put in a connection's queue in place of what it could not keep: the transport sends a fresh
``state`` instead (never sent as such)."""
TOO_SLOW: dict[str, Any] = {"type": "too_slow"}
"""Put in a connection's queue when it kept falling behind: the transport closes it."""
GONE: dict[str, Any] = {"type": "gone"}
"""Put last in a connection's queue when its table was deleted: the transport sends what is
queued before it, then closes the socket as it closes one to an unknown table."""


@dataclass(slots=True, eq=False)
class Told:
    """The state a ``changes`` listener holds: the parts of its last ``state`` (or of the
    state its last ``change`` made), each the very object it was built from. Made with each
    whole ``state`` and moved on in place by each ``change`` (:meth:`move`): a listener's
    ``Told`` lives as long as its socket, where one made per change lived until the next and
    was one more object for the garbage collector to look at, for every listener of every
    change."""

    seat: int | None
    version: int
    table: dict[str, Any]
    public: dict[str, Any]
    own: dict[str, Any]

    def move(
        self, version: int, table: dict[str, Any], public: dict[str, Any], own: dict[str, Any]
    ) -> None:
        """The listener was told up to ``version``, these parts."""
        self.version = version
        self.table = table
        self.public = public
        self.own = own


class Connection:
    """One socket's end as the service sees it: which seat it holds (``None``: spectator) and a
    bounded outbox the transport drains. Sending never blocks, so a slow client cannot stall a
    table; a client that falls ``max_queue`` messages behind loses them and is sent a fresh
    ``state`` instead (:data:`RESYNC`), and one that keeps falling behind is closed
    (:data:`TOO_SLOW`).

    The outbox is a plain deque and one waiting future (not an :class:`asyncio.Queue`): every
    change of a busy table passes here once per listener."""

    def __init__(
        self,
        code: str,
        token: str | None,
        seat: int | None,
        *,
        max_queue: int = 64,
        inline: bool = False,
        changes: bool = False,
    ) -> None:
        self.code = code
        self.token = token
        self.seat = seat
        self.inline = inline or changes
        """It is told a change as one ``state`` holding the events (``events=inline``)."""
        self.changes = changes
        """It is told a change as one ``change`` holding the events and only what changed of
        the table and the view (``events=changes``)."""
        self.told: Told | None = None
        """What its client holds once it has applied every message queued so far (``changes``
        only): the base of the next ``change``. ``None``: the next message must be whole."""
        self.max_queue = max_queue
        self.outbox: deque[dict[str, Any]] = deque()
        self.overflows = 0
        self.ended = False
        """Its table is gone: the transport closes it after what is queued (:meth:`end`)."""
        self._waiter: asyncio.Future[None] | None = None

    @property
    def too_slow(self) -> bool:
        return self.overflows >= OVERFLOWS_BEFORE_CLOSE

    def end(self, goodbye: dict[str, Any]) -> None:
        """Send ``goodbye``, the last message: the transport then closes the socket (its table
        is gone)."""
        self.send(goodbye)
        self.send(GONE)
        self.ended = True

    def send(self, message: dict[str, Any]) -> None:
        if self.too_slow or self.ended:
            return  # being closed: nothing more for it
        if len(self.outbox) >= self.max_queue:
            self.outbox.clear()
            self.overflows += 1
            self.told = None  # what it was told is dropped: the next message is whole again
            self.outbox.append(TOO_SLOW if self.too_slow else RESYNC)
        else:
            self.outbox.append(message)
        waiter = self._waiter
        if waiter is not None:
            self._waiter = None
            if not waiter.done():
                waiter.set_result(None)

    def take(self) -> list[dict[str, Any]]:
        """Everything queued for this connection, in order (nothing left queued)."""
        taken = list(self.outbox)
        self.outbox.clear()
        return taken

    def queued(self) -> asyncio.Future[None]:
        """Done once something is queued: its sender awaits it while :attr:`outbox` is empty,
        then :meth:`take` s. A future rather than a coroutine: a socket's sender waits for
        most of its life, and what it waits in lives as long (a coroutine per wait was one
        more object for the garbage collector to look at, per frame of every socket)."""
        waiter = self._waiter
        if waiter is None or waiter.done():
            waiter = self._waiter = asyncio.get_running_loop().create_future()
        return waiter


OVERFLOWS_BEFORE_CLOSE = 3
"""A connection whose queue overflowed this often is closed (it reconnects and resyncs)."""

HISTORY = 400
"""How many versions of events a table keeps, so that a reconnecting client gets what it missed
(a whole round of ten people is about 130 versions)."""


class TableLock(asyncio.Lock):
    """A table's lock: whoever changes the table holds it from the check to the broadcast. The
    news of changes made under it (:attr:`news`) is told as the holder lets go, once for all of
    them: a person's card and what follows by itself (the turn revealed, the bot's next card,
    the next deal) reach each listener as one message instead of one each."""

    def __init__(self) -> None:
        super().__init__()
        self.news = False
        """Changes made under the lock are not yet told."""
        self.tell: Callable[[], None] | None = None
        """Tells the table's listeners its news (the book sets it)."""

    def release(self) -> None:
        if self.news:
            self.news = False
            if self.tell is not None:
                self.tell()
        super().release()


@dataclass(eq=False)
class LiveTable:
    """A table in memory: the seats, the engine's game, and who is listening."""

    assisted: ClassVar[bool] = False
    """A game played with real cards (:class:`nimmt.server.assisted.AssistedTable`)."""
    code: str
    created_at: datetime
    seats: list[SeatRecord]
    """Replaced by a new list when a seat changes, never changed in place: :attr:`full` and
    :attr:`has_people` are worked out once per list."""
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
    history: deque[tuple[int, list[TableEvent]]] = field(
        default_factory=lambda: deque(maxlen=HISTORY)
    )
    """``(version, events)`` of the latest changes of the current game, oldest first."""
    last_active_at: datetime | None = None
    """When a person last acted here (joins included); bots and deals do not count."""
    lock: TableLock = field(default_factory=TableLock)
    connections: set[Connection] = field(default_factory=set)
    bot_tasks: dict[int, asyncio.Task[None]] = field(default_factory=dict)
    rematch_votes: set[int] = field(default_factory=set)
    """After game over: the seats whose person agreed to play again (stored ``rematch_vote``
    actions, so a restart keeps them)."""
    gone: bool = False
    """The table was deleted from the database under this process (:meth:`nimmt.server.book.
    TableBook.forget`): nothing more happens here."""
    needs_restore: bool = False
    """A change was applied here but could not be stored, nor the table rebuilt (the database
    was away): it must be rebuilt before anything else happens."""
    coach: bool = False
    """The table's creator allowed the coach for every seat."""
    away_seconds: int = 120
    """How long a person must have been disconnected before the others may propose that a bot
    plays for them (the creator's setting)."""
    stand_ins: StandIns = field(default_factory=StandIns)
    """The table's agreements about absent people's seats (stored ``handover``/``return``)."""
    presence: Presence = field(default_factory=Presence)
    """Who is connected, as this process knows it (never stored)."""
    shown: dict[str | int, dict[str, Any]] = field(default_factory=dict)
    """The parts of the last news told here (``"table"``: the summary, ``"public"``: the view's
    public part, a seat: its own part), kept so that the next news reuses each value that did
    not change (:func:`nimmt.server.publisher.News`)."""
    seats_at_end: list[SeatRecord] | None = None
    """:attr:`seats` as the current game ended (``None`` while it runs): its record names
    whoever played it, also after one of them has left the table."""
    created_text: str | None = None
    """:attr:`created_at` as the wire writes it, once (every summary holds it)."""
    seats_told: tuple[Any, list[dict[str, Any]]] | None = None
    """The summary's ``seats`` as told last, with the seats and connections it was made from
    (:func:`nimmt.server.serialize.summary`)."""
    own_told: dict[int, OwnCards] = field(default_factory=dict)
    """Each seat's own part as the engine gave it when :attr:`shown` took that seat's part:
    while the engine gives the same object (:meth:`~nimmt.engine.Game.own_cards`), what is
    told is the same."""
    _facts: tuple[list[SeatRecord], bool, bool] | None = field(default=None, init=False, repr=False)
    """The seats :meth:`_seat_facts` looked at last, and what it found."""

    def __post_init__(self) -> None:
        self.game = Game(len(self.seats))
        self.decision_key = self._key()

    @property
    def full(self) -> bool:
        """Every human seat is taken (no cards are dealt before)."""
        return self._seat_facts()[1]

    @property
    def has_people(self) -> bool:
        """Somebody still plays here; a table everybody left stops (its bots wait)."""
        return self._seat_facts()[2]

    def _seat_facts(self) -> tuple[list[SeatRecord], bool, bool]:
        """The seats with :attr:`full` and :attr:`has_people`, worked out once for each list
        of seats (both are asked several times after every change; the seats rarely change)."""
        facts = self._facts
        seats = self.seats
        if facts is None or facts[0] is not seats:
            facts = self._facts = (
                seats,
                all(seat.kind == "bot" or seat.token_hash is not None for seat in seats),
                any(seat.kind == "human" for seat in seats),
            )
        return facts

    @property
    def finished(self) -> bool:
        return self.game.phase is Phase.GAME_OVER

    @property
    def phase(self) -> str:
        return self.game.phase.value if self.full else "waiting"

    def people_seats(self) -> list[int]:
        """The seats a person holds and decides at now: they decide together whether to play
        again. A seat a bot stands in for, its person absent, is not among them: the stand-in
        agrees for them (and keeps their seat in the new game until they return)."""
        return standins.deciding_people(self.seats, self.stand_ins)

    @property
    def rematch_ready(self) -> set[int]:
        """The people seated who agreed to play again."""
        return self.rematch_votes & set(self.people_seats())

    @property
    def rematch_agreed(self) -> bool:
        """Every person seated agreed to play again (and somebody is seated)."""
        people = set(self.people_seats())
        return self.finished and bool(people) and people <= self.rematch_votes

    def bot_for(self, seat: int) -> str | None:
        """The bot that decides for ``seat``: a bot seat's, or the one standing in for an absent
        person the table agreed on; ``None`` when a person decides there."""
        return self.seats[seat].bot or self.stand_ins.bots.get(seat)

    def here(self) -> set[int]:
        """The seats connected to this process."""
        return {c.seat for c in self.connections if c.seat is not None}

    def connected_seats(self) -> set[int]:
        """The seats connected anywhere, as this process knows it."""
        return self.here() | self.presence.remote_seats(self.presence.clock())

    def absent_seats(self) -> dict[int, float]:
        """The people away everywhere for the table's delay or longer: seat -> seconds."""
        return standins.absent_seats(
            self.seats, self.stand_ins, self.presence, self.here(), self.away_seconds
        )

    def handover_needed(self) -> list[int]:
        """Who must agree to the open handover proposal (:mod:`nimmt.server.absence`)."""
        return standins.handover_needed(self.seats, self.stand_ins, self.absent_seats())

    def absence_summary(self) -> dict[str, Any] | None:
        """The summary's ``absence`` object; ``None`` at a table played with real cards."""
        if self.assisted:
            return None
        return standins.absence_summary(
            self.seats, self.stand_ins, self.presence, self.here(), self.away_seconds, self.game
        )

    def names(self) -> list[str | None]:
        return [seat.name for seat in self.seats]

    def seat_of_token(self, token: str) -> int | None:
        digest = hash_token(token)
        for seat in self.seats:
            if seat.token_hash is not None and hmac.compare_digest(seat.token_hash, digest):
                return seat.seat
        return None

    def knows_token(self, token: str) -> bool:
        """``token`` belongs here (it holds a seat, or it enters an assisted table's cards)."""
        return self.seat_of_token(token) is not None

    def status(self, last_active_at: datetime | None = None) -> TableStatus:
        """What listings need to know of the table now (``last_active_at``: a person just
        acted then; ``None``: the stored moment stays)."""
        return TableStatus(
            self.version,
            self.game_number,
            self.phase,
            self.game.round,
            self.finished,
            last_active_at,
        )

    def _key(self) -> tuple[Any, ...]:
        game = self.game
        return (self.game_number, game.round, game.turn, game.phase, game.pending_row_choice)

    def apply(self, action: ActionRecord) -> None:
        """Apply one action (new, stored, or caught up from another process) at its version:
        the engine's move, or the seat or table change. Its events join :attr:`pending_events`
        and the history. An illegal move raises the engine's ``RuleError`` and changes nothing."""
        if action.kind == ActionKind.REMATCH:
            self.game_number = action.game
            self.game = Game(len(self.seats))
            self.seats_at_end = None
            self.events_seen = 0
            self.history.clear()
            self.rematch_votes.clear()
            self.stand_ins.clear()
            for seat, bot in carried_stand_ins(action.data):
                # Still absent: the stand-in plays on in the new game, until its person returns.
                self.stand_ins.bots[seat] = bot
                self.stand_ins.history.append({"seat": seat, "bot": bot, "round": 1, "turn": 0})
            self.pending_events.append(RematchStarted(action.game))
        elif action.kind == ActionKind.REMATCH_VOTE:
            assert action.seat is not None
            agree = bool((action.data or {}).get("agree", True))
            if agree:
                self.rematch_votes.add(action.seat)
            else:
                self.rematch_votes.discard(action.seat)
            ready = tuple(sorted(self.rematch_ready))
            self.pending_events.append(RematchVote(action.seat, agree, ready))
        elif action.kind in SEAT_CHANGES:
            self._change_seat(action)
        elif action.kind in STAND_IN_KINDS:
            self.pending_events.extend(self.stand_ins.apply(action, self.game))
        else:
            if (
                action.kind in (ActionKind.PLAY, ActionKind.RETRACT)
                and action.seat is not None
                and self.stand_ins.card_stands(action.seat, self.game)
            ):
                raise CardStandsError("the card a bot chose for this seat this turn stands")
            apply_to_game(self.game, action)
        self.version = action.seq
        self.note_change()

    def _change_seat(self, action: ActionRecord) -> None:
        assert action.seat is not None
        data = action.data or {}
        old = self.seats[action.seat]
        if action.kind == ActionKind.JOIN:
            name = str(data.get("name"))
            new = replace(old, name=name, token_hash=data.get("token_hash", old.token_hash))
            self.pending_events.append(PlayerJoined(action.seat, name))
        else:
            bot = data.get("bot")
            if bot is None:  # before the first deal: the seat is free again
                new = SeatRecord(action.seat, "human")
            else:
                new = SeatRecord(action.seat, "bot", str(bot), old.name)
            self.pending_events.append(SeatLeft(action.seat, old.name or "", bot))
            self.rematch_votes.discard(action.seat)  # a newcomer decides for themselves
            self.pending_events.extend(self.stand_ins.seat_left(action.seat))
        seats = list(self.seats)
        seats[action.seat] = new
        self.seats = seats

    def note_change(self) -> None:
        """Collect the engine's new events and see whether a new decision began."""
        game = self.game
        self.pending_events.extend(game.events_after(self.events_seen))
        self.events_seen = game.event_count
        self.history.append((self.version, list(self.pending_events)))
        if self.seats_at_end is None and game.phase is Phase.GAME_OVER:
            self.seats_at_end = self.seats
        key = self._key()
        if key != self.decision_key:
            self.decision_key = key
            self.decision_version = self.version

    def take_events(self) -> list[TableEvent]:
        events, self.pending_events = self.pending_events, []
        return events

    def events_since(self, version: int) -> list[TableEvent] | None:
        """Every event after ``version`` of the current game, or ``None`` when they are no
        longer kept (or ``version`` is not one of this table's)."""
        if version == self.version:
            return []
        if not self.history or not self.history[0][0] - 1 <= version < self.version:
            return None
        return [event for seen, events in self.history if seen > version for event in events]

    def replay(self, actions: Iterable[ActionRecord], version: int) -> None:
        """Rebuild the current game from its stored ``actions`` (nobody hears of their events)
        and set the table at ``version``. The seats are left as they are (the stored ones)."""
        seats = list(self.seats)
        self.game = Game(len(self.seats))
        self.seats_at_end = None
        self.events_seen = 0
        self.version = 0
        self.decision_version = 0
        self.decision_key = ()
        self.history.clear()
        self.rematch_votes.clear()
        self.stand_ins.clear()
        for action in actions:
            self.apply(action)
            self.pending_events.clear()
        self.seats = seats
        self.version = version


def carried_stand_ins(data: Any) -> list[tuple[int, str]]:
    """The ``(seat, bot)`` pairs a ``rematch`` action carries into the new game: the bots that
    stood in for absent people when it started (``{"stand_ins": [[seat, bot], ...]}``)."""
    pairs = (data or {}).get("stand_ins") or []
    return [(int(seat), str(bot)) for seat, bot in pairs]


def apply_to_game(game: Game, action: ActionRecord) -> None:
    """Apply a stored game action to ``game`` (raises the engine's ``RuleError`` if illegal)."""
    if action.kind == ActionKind.DEAL:
        assert action.data is not None
        game.apply_deal(action.data["rows"], action.data["hands"])
    elif action.kind == ActionKind.PLAY:
        assert action.seat is not None and action.card is not None
        game.play(action.seat, action.card, replace=True)
    elif action.kind == ActionKind.RETRACT:
        assert action.seat is not None
        game.retract(action.seat)
    elif action.kind == ActionKind.CHOOSE_ROW:
        assert action.seat is not None and action.row is not None
        game.choose_row(action.seat, action.row)
    else:
        raise ValueError(f"unknown stored action {action.kind!r}")


def new_code() -> str:
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
