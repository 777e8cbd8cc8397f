"""The talk at a table: quick reactions of the seated players and a short text chat, kept with
the table (never in the game record) and told to every listener, in every process.

A line is stored first (``storage.talk``), then sent to this process's listeners, then told to
the other processes through the bus (:meth:`~nimmt.server.bus.Bus.publish_talk`); while the bus
is down they read the new lines from the database instead. Talk is no change of the game: it
takes no version and no table lock, and nothing of a hand is ever in it (a line carries who
spoke, when, and what they wrote or which reaction they chose).

The rules here: the seated people write and react; spectators read everything (talk is public
at the table) and write only when the table's creator allows it (the person holding the seat of
the table's first join). Text only: control characters are dropped, the text is normalised
(NFC) and kept to :data:`MAX_LENGTH` characters; it is never HTML (clients set it as text).
Each speaker may say :data:`RATE_COUNT` things per :data:`RATE_SECONDS`, counted over every
process when a bus (Redis) is configured (:meth:`~nimmt.server.bus.RedisBus.take_talk_turn`), in
this process alone otherwise or while Redis cannot be reached. Each listener may mute another
speaker: a muted speaker's lines are never sent to that listener.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import re
import secrets
import time
import unicodedata
import weakref
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from nimmt import names
from nimmt.server.actions import ActionKind
from nimmt.server.book import TableBook
from nimmt.server.errors import ServiceError, quoted
from nimmt.server.serialize import iso
from nimmt.server.storage.talk import TalkLine
from nimmt.server.table import Connection, LiveTable, hash_token

log = logging.getLogger(__name__)

MAX_LENGTH = 200
"""The most characters a chat line may have (after cleaning)."""
RATE_COUNT, RATE_SECONDS = 5, 10.0
"""A speaker may say (or react) this many times per this many seconds."""
BACKLOG = 50
"""How many recent lines a (re)connecting listener is sent."""
MAX_MUTED = 100
POLL_SECONDS = 1.0
"""While the bus is down, how often the tables held here look for lines said elsewhere."""
REACTIONS = (
    "thumbs_up",
    "laugh",
    "wow",
    "grimace",
    "bull",
    "well_played",
    "ouch",
    "oops",
    "good_luck",
    "thanks",
)
"""The quick reactions, by key: five emoji and five short phrases (clients translate them)."""
TALK_TYPES = ("talk_hello", "say", "react", "mute", "talk_settings")
"""The socket's message types handled here."""

_DROPPED = re.compile("[\u202a-\u202e\u2066-\u2069\u200e\u200f\ufeff\ufff9-\ufffb]")
"""Format characters that turn text around or hide in it (bidirectional overrides and
isolates, marks, the byte order mark); joiners and variation selectors stay (emoji need them)."""
_SPACES = re.compile(r"[ \t\n\r\f\v\u2028\u2029\x85]+")


def clean_text(text: object) -> str:
    """``text`` as a chat line: NFC, control and hiding characters dropped, runs of spaces and
    line breaks as one space, trimmed; ``talk_empty`` or ``talk_too_long`` when it cannot be
    one."""
    if not isinstance(text, str):
        raise ServiceError("malformed", 'A chat line needs "text": a string.')
    if len(text) > 4 * MAX_LENGTH:
        raise _too_long()
    text = unicodedata.normalize("NFC", text)
    text = _DROPPED.sub("", text)
    text = _SPACES.sub(" ", text)
    text = "".join(char for char in text if unicodedata.category(char) not in ("Cc", "Cs"))
    text = text.strip()
    if not text:
        raise ServiceError("talk_empty", "There is nothing to send.", 422)
    if len(text) > MAX_LENGTH:
        raise _too_long()
    return text


def _too_long() -> ServiceError:
    return ServiceError(
        "talk_too_long",
        f"A chat line may be at most {MAX_LENGTH} characters long.",
        422,
        {"max": MAX_LENGTH},
    )


def _too_fast(wait: float) -> ServiceError:
    """The refusal of a line said too soon; ``wait``: seconds until one may be said."""
    retry = max(1, round(wait + 0.5))
    return ServiceError(
        "talk_too_fast",
        f"At most {RATE_COUNT} messages per {RATE_SECONDS:g} seconds: wait {retry} s.",
        429,
        {"limit": RATE_COUNT, "seconds": RATE_SECONDS, "retry_after": retry},
    )


def speaker_key(kind: str, secret: str) -> str:
    """The public key of a speaker: a seat's token or a spectator's browser, hashed so that it
    reveals neither (``p...``: a seat's person, ``w...``: a spectator)."""
    digest = hashlib.sha256(f"nimmt-talk:{kind}:{secret}".encode("utf-8", "surrogatepass"))
    return kind + digest.hexdigest()[:15]


def line_json(line: TalkLine) -> dict[str, Any]:
    """A line on the wire (and on the bus)."""
    return {
        "id": line.id,
        "at": iso(line.at),
        "kind": line.kind,
        "seat": line.seat,
        "speaker": line.speaker,
        "name": line.name,
        "text": line.text,
    }


@dataclass(eq=False)
class Listener:
    """What the talk knows of one socket: whom it muted, and who it is when it watches."""

    watcher: str = field(default_factory=lambda: speaker_key("w", secrets.token_hex(16)))
    name: str = ""
    muted: set[str] = field(default_factory=set)


class TableTalk:
    """The talk at the tables of ``book``; ``clock`` (seconds, monotonic) times the rate
    limit."""

    def __init__(self, book: TableBook, *, clock: Callable[[], float] = time.monotonic) -> None:
        self.book = book
        self.store = book.storage.talk
        self.clock = clock
        self._listeners: weakref.WeakKeyDictionary[Connection, Listener] = (
            weakref.WeakKeyDictionary()
        )
        self._said: dict[tuple[str, str], deque[float]] = {}
        self._creators: dict[str, str] = {}
        self._seen: dict[str, dict[int, None]] = {}
        """The ids of the lines sent here lately, by table (a line comes once)."""
        self._spectators: dict[str, bool] = {}
        book.bus.listen_talk(self.on_bus)

    def start(self) -> None:
        """With several processes: look for lines said elsewhere while the bus is down."""
        if self.book.shared:
            self.book.spawn(self._poll(), "talk poll")

    # ---------------------------------------------------------------- the socket

    async def handle(
        self, connection: Connection, kind: str, data: dict[str, Any], request_id: Any
    ) -> None:
        """One of :data:`TALK_TYPES` from ``connection``; a refusal raises
        :class:`ServiceError` (the socket answers it) and changes nothing."""
        if kind == "talk_hello":
            await self.hello(connection, data.get("muted"), data.get("watcher"), data.get("name"))
        elif kind == "say":
            await self.say(connection, data.get("text"), request_id)
        elif kind == "react":
            await self.react(connection, data.get("reaction"), request_id)
        elif kind == "mute":
            speaker, muted = data.get("speaker"), data.get("muted", True)
            if not isinstance(speaker, str) or not isinstance(muted, bool):
                raise ServiceError("malformed", 'A mute needs "speaker" and "muted": true/false.')
            self.mute(connection, speaker, muted)
        else:
            allowed = data.get("spectators_write")
            if not isinstance(allowed, bool):
                raise ServiceError("malformed", '"spectators_write" must be true or false.')
            await self.set_spectators(connection, allowed)

    def listener(self, connection: Connection) -> Listener:
        known = self._listeners.get(connection)
        if known is None:
            known = self._listeners[connection] = Listener()
        return known

    def speaker_of(self, connection: Connection) -> str:
        """Who ``connection`` speaks as: its seat's person, or the spectator it is."""
        if connection.seat is not None and connection.token:
            return speaker_key("p", connection.token)
        return self.listener(connection).watcher

    async def hello(
        self, connection: Connection, muted: object, watcher: object, name: object
    ) -> None:
        """A listener says whom it muted (a list of speakers), which browser it watches from
        (a secret of its own, so that others can mute it across reconnections) and, for a
        spectator, its name; it is sent the recent talk (``talk_history``)."""
        table = await self.book.load(connection.code)
        listener = self.listener(connection)
        if isinstance(muted, list):
            listener.muted = {key for key in muted if isinstance(key, str) and len(key) <= 32}
            listener.muted = set(sorted(listener.muted)[:MAX_MUTED])
        if isinstance(watcher, str) and 16 <= len(watcher) <= 64:
            listener.watcher = speaker_key("w", watcher)
        if name is not None:
            try:
                listener.name = names.clean_name(name)
            except names.BadNameError:
                listener.name = ""
        lines = await self.book.read(self.store.recent_lines, table.code, BACKLOG)
        allowed = await self.book.read(self.store.spectators_may_write, table.code)
        self._spectators[table.code] = allowed
        seen = self._seen.setdefault(table.code, {})
        for line in lines:
            seen[line.id] = None
        manage = await self.is_creator(table, connection)
        connection.send(
            {
                "type": "talk_history",
                "lines": [line_json(line) for line in lines if line.speaker not in listener.muted],
                "you": self.speaker_of(connection),
                "muted": sorted(listener.muted),
                "spectators_write": allowed,
                "may_write": not table.assisted and (connection.seat is not None or allowed),
                "may_manage": manage,
                "reactions": list(REACTIONS),
                "max_length": MAX_LENGTH,
            }
        )

    async def say(self, connection: Connection, text: object, request_id: Any = None) -> None:
        """A chat line from ``connection``: stored, then told to every listener who has not
        muted its speaker, here and in the other processes."""
        table = await self.book.load(connection.code)
        seat = connection.seat
        if table.assisted:
            raise ServiceError("talk_not_allowed", "There is no chat at a real-cards game.", 403)
        if seat is None:
            allowed = await self.book.read(self.store.spectators_may_write, table.code)
            self._spectators[table.code] = allowed
            if not allowed:
                raise ServiceError(
                    "talk_not_allowed", "Spectators may not write at this table.", 403
                )
        cleaned = clean_text(text)
        await self._store(table, connection, "say", cleaned, request_id)

    async def react(self, connection: Connection, reaction: object, request_id: Any = None) -> None:
        """A quick reaction from a seated person, shown by their seat to everyone."""
        table = await self.book.load(connection.code)
        if reaction not in REACTIONS:
            raise ServiceError("unknown_reaction", f"There is no reaction {quoted(reaction)}.", 422)
        if connection.seat is None or table.assisted:
            raise ServiceError("not_seated", "Only the players react: take a seat first.", 403)
        assert isinstance(reaction, str)
        await self._store(table, connection, "react", reaction, request_id)

    async def _store(
        self, table: LiveTable, connection: Connection, kind: str, text: str, request_id: Any
    ) -> None:
        speaker = self.speaker_of(connection)
        await self._check_rate(table.code, speaker)
        seat = connection.seat
        listener = self.listener(connection)
        name = (table.seats[seat].name or "") if seat is not None else listener.name
        try:
            line = await self.book.read(
                self.store.add_line, table.code, at=self.book.clock(), kind=kind, seat=seat,
                speaker=speaker, name=name, text=text,
            )  # fmt: skip
        except KeyError:
            raise ServiceError("table_not_found", f"There is no table {table.code}.", 404) from None
        self.deliver(table, line, connection, request_id)
        await self.book.bus.publish_talk(table.code, {"line": line_json(line)})

    async def _check_rate(self, code: str, speaker: str) -> None:
        """At most :data:`RATE_COUNT` lines per :data:`RATE_SECONDS` from one speaker: over
        every process when the bus can count them, else in this process."""
        take = getattr(self.book.bus, "take_talk_turn", None)
        if take is not None and self.book.shared and self.book.bus.healthy:
            try:
                wait = await take(f"{code}:{speaker}", RATE_COUNT, RATE_SECONDS)
            except Exception as error:
                log.warning("talk: the bus cannot count the rate (%s); counting here", error)
            else:
                if wait is not None:
                    raise _too_fast(wait)
                return
        now = self.clock()
        said = self._said.setdefault((code, speaker), deque())
        while said and now - said[0] >= RATE_SECONDS:
            said.popleft()
        if len(said) >= RATE_COUNT:
            raise _too_fast(RATE_SECONDS - (now - said[0]))
        said.append(now)
        if len(self._said) > 10_000:  # forget the speakers who stopped talking
            for key in [key for key, times in self._said.items() if not times]:
                del self._said[key]

    def mute(self, connection: Connection, speaker: str, muted: bool) -> None:
        """``connection`` no longer hears ``speaker`` (or hears them again); it is told the
        speakers it muted (``talk_muted``)."""
        listener = self.listener(connection)
        if muted and speaker != self.speaker_of(connection):
            if len(listener.muted) >= MAX_MUTED:
                raise ServiceError("talk_mute_limit", f"At most {MAX_MUTED} people muted.", 422)
            listener.muted.add(speaker[:32])
        else:
            listener.muted.discard(speaker)
        connection.send({"type": "talk_muted", "muted": sorted(listener.muted)})

    async def set_spectators(self, connection: Connection, allowed: bool) -> None:
        """The creator lets the spectators write (or not); every listener is told."""
        table = await self.book.load(connection.code)
        if not await self.is_creator(table, connection):
            raise ServiceError(
                "not_creator", "Only the person who opened the table may change this.", 403
            )
        try:
            await self.book.read(self.store.set_spectators_may_write, table.code, allowed)
        except KeyError:
            raise ServiceError("table_not_found", f"There is no table {table.code}.", 404) from None
        self._tell_settings(table, allowed)
        await self.book.bus.publish_talk(table.code, {"spectators_write": allowed})

    async def is_creator(self, table: LiveTable, connection: Connection) -> bool:
        """Whether ``connection`` holds the seat its table's first join took, with the token of
        that join: the person who opened the table."""
        token = connection.token
        if not token or table.assisted or table.seat_of_token(token) is None:
            return False
        creator = self._creators.get(table.code)
        if creator is None:
            actions = await self.book.read(self.book.storage.load_actions, table.code, 1)
            join = next((a for a in actions if a.kind == ActionKind.JOIN and a.data), None)
            found = join.data.get("token_hash") if join is not None and join.data else None
            if not isinstance(found, str):
                return False
            creator = self._creators[table.code] = found
        return creator == hash_token(token)

    # ------------------------------------------------------------- the listeners

    def deliver(
        self,
        table: LiveTable,
        line: TalkLine,
        origin: Connection | None = None,
        request_id: Any = None,
    ) -> None:
        """Send ``line`` to every listener of ``table`` that has not muted its speaker (once:
        a line already sent here is not sent again)."""
        seen = self._seen.setdefault(table.code, {})
        if line.id in seen:
            return
        seen[line.id] = None
        while len(seen) > 4 * BACKLOG:
            del seen[next(iter(seen))]
        shared = {"type": "talk", "line": line_json(line)}
        for connection in list(table.connections):
            if line.speaker in self.listener(connection).muted:
                continue
            if connection is origin and request_id is not None:
                connection.send({**shared, "request_id": request_id})
            else:
                connection.send(shared)

    def _tell_settings(self, table: LiveTable, allowed: bool) -> None:
        self._spectators[table.code] = allowed
        for connection in list(table.connections):
            connection.send({"type": "talk_settings", "spectators_write": allowed})

    async def on_bus(self, code: str, message: dict[str, Any]) -> None:
        """Another process stored a line or changed the setting of table ``code``."""
        table = self.book.tables.get(code)
        if table is None:
            return
        allowed = message.get("spectators_write")
        if isinstance(allowed, bool):
            self._tell_settings(table, allowed)
            return
        line = _line_from(code, message.get("line"))
        if line is not None:
            self.deliver(table, line)
        else:
            log.warning("table %s: a talk message from the bus is not readable", code)

    async def _poll(self) -> None:
        """While the bus is down (and once more when it is back), the tables held here with
        listeners read the lines said in other processes."""
        was_down = False
        while not self.book.closed:
            await asyncio.sleep(POLL_SECONDS)
            down = not self.book.bus.healthy
            if not (down or was_down):
                continue
            was_down = down
            try:
                await self.catch_up()
            except Exception:
                log.exception("the talk's poll failed; trying again")

    async def catch_up(self) -> None:
        """Send the lines stored since the newest one sent here, and a changed setting, for
        every table held here with listeners."""
        for table in list(self.book.tables.values()):
            if not table.connections:
                continue
            seen = self._seen.get(table.code, {})
            after = max(seen, default=0)
            for line in await self.book.read(self.store.lines_after, table.code, after, BACKLOG):
                self.deliver(table, line)
            allowed = await self.book.read(self.store.spectators_may_write, table.code)
            if allowed != self._spectators.get(table.code, False):
                self._tell_settings(table, allowed)


def _line_from(code: str, data: object) -> TalkLine | None:
    """The line of :func:`line_json`, read back from the bus; ``None`` if it is not one."""
    if not isinstance(data, dict):
        return None
    try:
        at = datetime.fromisoformat(str(data["at"]).replace("Z", "+00:00"))
        seat = data["seat"]
        line = TalkLine(
            int(data["id"]), code, at, str(data["kind"]), seat if isinstance(seat, int) else None,
            str(data["speaker"]), str(data["name"]), str(data["text"]),
        )  # fmt: skip
    except (KeyError, TypeError, ValueError):
        return None
    return line
