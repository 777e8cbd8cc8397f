"""The message bus between server processes: "table K7QX2M is now at version 42".

The database is the source of truth: every accepted change is stored there first. The bus then
tells the other processes that hold that table: the new version and the stored action itself, so
that a process that is exactly one version behind applies it at once, without asking the database.
A process that is further behind, or gets a message it cannot read, catches up from the database.
A lost or late bus message therefore costs latency, never correctness: while the bus is down the
processes poll the database for the tables they hold (:meth:`GameService._poll_versions`), and
when it comes back they catch up every table at once.

:class:`LocalBus` is the bus of a single process (nothing to tell); :class:`RedisBus` uses Redis
pub/sub, one channel per table.

The table talk (:mod:`nimmt.server.talk`) travels on the same channels: a chat line or a
setting, stored first like every change, then told to the other processes
(:meth:`Bus.publish_talk`); a process that missed it (the bus was down) reads it from the
database.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
from collections.abc import Awaitable, Callable
from typing import Any, Protocol
from urllib.parse import urlsplit

import orjson

from nimmt.server.storage import ActionRecord

log = logging.getLogger(__name__)

CHANNEL_PREFIX = "nimmt:table:"
RECONNECT_SECONDS = (0.2, 0.5, 1.0, 2.0)
TALK_RATE_PREFIX = "nimmt:talk-rate:"
"""The key of a speaker's recent lines at a table (:meth:`RedisBus.take_talk_turn`)."""
_TALK_TURN = """
local key, limit, window, member = KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3]
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
if redis.call('ZCARD', key) >= limit then
  local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
  return window - (now - tonumber(oldest[2]))
end
redis.call('ZADD', key, now, member)
redis.call('PEXPIRE', key, window)
return -1
"""
"""One speaker's turn, atomically: the lines of the last ``window`` milliseconds (a sorted set
scored by Redis's own clock, so every process counts alike), refused at ``limit``; the
milliseconds until the oldest one leaves the window, or -1 when the turn was taken."""

OnChange = Callable[[str, int, ActionRecord | None], Awaitable[None]]
OnResync = Callable[[], Awaitable[None]]
OnTalk = Callable[[str, dict[str, Any]], Awaitable[None]]
"""Another process stored something said at table ``code`` (the talk's own message)."""
TALK = "talk"
"""In place of a version, marks a bus message that carries the table talk."""
OnPresence = Callable[[str, str, list[int]], Awaitable[None]]
"""Another process (its sender id) says which seats of a table are connected to it."""
PRESENCE = "presence"


def shown_url(url: str) -> str:
    """A Redis URL as a log line or an error may show it: without its password.

    >>> shown_url("redis://:s3cret@cache.example:6380/0")
    'redis://***@cache.example:6380/0'
    >>> shown_url("redis://127.0.0.1:6379/0")
    'redis://127.0.0.1:6379/0'
    """
    parts = urlsplit(url)
    if parts.password is None:
        return url
    return parts._replace(netloc=f"***@{parts.hostname}:{parts.port or 6379}").geturl()


class Bus(Protocol):
    @property
    def healthy(self) -> bool:
        """Messages are flowing; when False, the service polls the database."""
        ...

    async def start(self, on_change: OnChange, on_resync: OnResync) -> None: ...

    async def publish(self, code: str, action: ActionRecord) -> None: ...

    async def announce(self, code: str, version: int) -> None:
        """Tell the others that table ``code`` is stored at ``version`` (no action: a process
        behind it reads the database)."""
        ...

    def listen_talk(self, on_talk: OnTalk) -> None:
        """Hand the table talk that other processes publish to ``on_talk``."""
        ...

    async def publish_talk(self, code: str, message: dict[str, Any]) -> None: ...

    async def subscribe(self, code: str) -> None: ...

    async def unsubscribe(self, code: str) -> None: ...

    async def close(self) -> None: ...


class LocalBus:
    """One process: every socket of every table is here, nothing to tell anyone."""

    healthy = True

    async def start(self, on_change: OnChange, on_resync: OnResync) -> None:
        pass

    async def publish(self, code: str, action: ActionRecord) -> None:
        pass

    async def announce(self, code: str, version: int) -> None:
        pass

    def listen_talk(self, on_talk: OnTalk) -> None:
        pass

    async def publish_talk(self, code: str, message: dict[str, Any]) -> None:
        pass

    async def subscribe(self, code: str) -> None:
        pass

    async def unsubscribe(self, code: str) -> None:
        pass

    async def close(self) -> None:
        pass


class RedisBus:
    """Redis pub/sub: channel ``nimmt:table:{code}``, message ``"{sender} {version} {action}"``
    (the action as JSON, see :func:`encode_action`; none, only the version, when announced by
    :meth:`announce`); the table talk as ``"{sender} talk {json}"``.

    A process subscribes to the tables it holds in memory. A message from itself is ignored. If
    Redis goes away, publishing fails quietly (the change is stored; the others will poll), the
    listener reconnects with growing pauses and, once back, re-subscribes and asks the service
    to resynchronize every table (``on_resync``), which then announces each table's version.
    """

    def __init__(self, url: str) -> None:
        import redis.asyncio as aioredis

        self.url = url
        self.sender = f"{os.getpid()}-{secrets.token_hex(4)}"
        self._client: Any = aioredis.from_url(
            url, socket_connect_timeout=2, socket_timeout=5, health_check_interval=15
        )
        self._pubsub: Any = None
        self._channels: set[str] = set()
        self._listener: asyncio.Task[None] | None = None
        self._healthy = False
        self._on_change: OnChange | None = None
        self._on_resync: OnResync | None = None
        self._on_talk: OnTalk | None = None
        self._talk_turn: Any = self._client.register_script(_TALK_TURN)
        self._turns = 0
        self.on_presence: OnPresence | None = None
        """Told the seats connected to another process (``"{sender} presence [seats]"``; a
        process that does not know the message ignores it: its version is not a number)."""

    @property
    def healthy(self) -> bool:
        return self._healthy

    async def start(self, on_change: OnChange, on_resync: OnResync) -> None:
        self._on_change, self._on_resync = on_change, on_resync
        await self._connect()  # fails loudly at start-up: a wrong --bus is a setup error
        self._listener = asyncio.create_task(self._listen(), name="bus listener")

    async def _connect(self) -> None:
        pubsub = self._client.pubsub(ignore_subscribe_messages=True)
        await pubsub.ping()
        if self._channels:
            await pubsub.subscribe(*self._channels)
        else:
            # A connection with no channel cannot read messages; a private channel keeps it open.
            await pubsub.subscribe(f"{CHANNEL_PREFIX}~{self.sender}")
        self._pubsub = pubsub
        self._healthy = True

    async def _listen(self) -> None:
        attempt = 0
        while True:
            try:
                if self._pubsub is None:
                    await self._connect()
                    attempt = 0
                    log.warning("bus: connected again; resynchronizing every table")
                    if self._on_resync is not None:
                        await self._on_resync()
                message = await self._pubsub.get_message(timeout=1.0)
                if message is not None:
                    await self._deliver(message)
            except asyncio.CancelledError:
                raise
            except Exception as error:
                if self._healthy:
                    log.error("bus: lost the connection to %s (%s); polling meanwhile",
                              shown_url(self.url),
                              error)  # fmt: skip
                self._healthy = False
                await self._drop_pubsub()
                await asyncio.sleep(RECONNECT_SECONDS[min(attempt, len(RECONNECT_SECONDS) - 1)])
                attempt += 1

    async def _deliver(self, message: dict[str, Any]) -> None:
        if message.get("type") != "message" or self._on_change is None:
            return
        channel = message["channel"]
        channel = channel.decode() if isinstance(channel, bytes) else str(channel)
        data = message["data"]
        text = data.decode() if isinstance(data, bytes) else str(data)
        sender, _, rest = text.partition(" ")
        version, _, payload = rest.partition(" ")
        if sender == self.sender:
            return
        if version == TALK:
            talk = decode_talk(payload)
            if talk is not None and self._on_talk is not None:
                await self._on_talk(channel.removeprefix(CHANNEL_PREFIX), talk)
            return
        if version == PRESENCE:
            seats = _seats(payload)
            if seats is not None and self.on_presence is not None:
                await self.on_presence(channel.removeprefix(CHANNEL_PREFIX), sender, seats)
            return
        if not version.isdigit():
            return
        await self._on_change(
            channel.removeprefix(CHANNEL_PREFIX), int(version), decode_action(payload)
        )

    async def _drop_pubsub(self) -> None:
        pubsub, self._pubsub = self._pubsub, None
        if pubsub is not None:
            with contextlib.suppress(Exception):
                await pubsub.aclose()

    async def publish(self, code: str, action: ActionRecord) -> None:
        await self._publish_change(code, action.seq, encode_action(action))

    async def announce(self, code: str, version: int) -> None:
        await self._publish_change(code, version, "")

    async def _publish_change(self, code: str, version: int, payload: str) -> None:
        if not self._healthy:
            return
        message = f"{self.sender} {version} {payload}"
        # A second try: after Redis came back, the first command on a pooled connection from
        # before fails ("Connection closed by server") and the next one gets a fresh connection.
        for attempt in range(2):
            try:
                await self._client.publish(CHANNEL_PREFIX + code, message)
                return
            except Exception as error:
                if attempt == 0:
                    continue
                log.error("bus: could not publish %s@%s (%s)", code, version, error)
        # The change is stored; the others poll meanwhile. Dropping the listener's connection
        # makes it reconnect, which alone sets the bus healthy again (else this process would
        # never publish again).
        self._healthy = False
        await self._drop_pubsub()

    def listen_talk(self, on_talk: OnTalk) -> None:
        self._on_talk = on_talk

    async def publish_talk(self, code: str, message: dict[str, Any]) -> None:
        """Tell the others what was said (stored already: a process that misses it reads it
        from the database when the bus is down)."""
        if not self._healthy:
            return
        text = f"{self.sender} {TALK} {orjson.dumps(message).decode()}"
        for attempt in range(2):  # a second try on a fresh connection, as in publish
            try:
                await self._client.publish(CHANNEL_PREFIX + code, text)
                return
            except Exception as error:
                if attempt == 1:
                    log.error("bus: could not publish the talk of %s (%s)", code, error)

    async def take_talk_turn(self, key: str, limit: int, seconds: float) -> float | None:
        """Count one line of speaker ``key`` (a table and a speaker) over every process: at
        most ``limit`` per ``seconds``. ``None`` when it may be said, else the seconds until
        it may; a Redis that cannot be reached raises (the caller counts by itself then)."""
        self._turns += 1
        member = f"{self.sender}:{self._turns}"
        window = max(1, round(seconds * 1000))
        wait = await self._talk_turn(keys=[TALK_RATE_PREFIX + key], args=[limit, window, member])
        return None if int(wait) < 0 else int(wait) / 1000

    async def publish_presence(self, code: str, seats: list[int]) -> None:
        """Tell the others which seats of table ``code`` are connected here (best effort: a
        lost message is repeated a few seconds later)."""
        if not self._healthy:
            return
        with contextlib.suppress(Exception):
            await self._client.publish(
                CHANNEL_PREFIX + code, f"{self.sender} {PRESENCE} {orjson.dumps(seats).decode()}"
            )

    async def subscribe(self, code: str) -> None:
        channel = CHANNEL_PREFIX + code
        if channel in self._channels:
            return
        self._channels.add(channel)
        if self._pubsub is not None:
            with contextlib.suppress(Exception):
                await self._pubsub.subscribe(channel)

    async def unsubscribe(self, code: str) -> None:
        channel = CHANNEL_PREFIX + code
        self._channels.discard(channel)
        if self._pubsub is not None:
            with contextlib.suppress(Exception):
                await self._pubsub.unsubscribe(channel)

    async def close(self) -> None:
        if self._listener is not None:
            self._listener.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._listener
        await self._drop_pubsub()
        with contextlib.suppress(Exception):
            await self._client.aclose()


def encode_action(action: ActionRecord) -> str:
    """A stored action as one line of JSON (a deal holds every hand: the bus is as private as
    the database)."""
    return orjson.dumps(
        [action.seq, action.game, action.kind, action.seat, action.card, action.row, action.data]
    ).decode()


def decode_action(payload: str) -> ActionRecord | None:
    """The action of :func:`encode_action`, or ``None`` when ``payload`` is not one (the
    receiver then reads the database)."""
    try:
        seq, game, kind, seat, card, row, data = orjson.loads(payload)
    except (ValueError, TypeError):
        return None
    if not (isinstance(seq, int) and isinstance(game, int) and isinstance(kind, str)):
        return None
    if data is not None and not isinstance(data, dict):
        return None
    return ActionRecord(seq, game, kind, seat, card, row, data)


def decode_talk(payload: str) -> dict[str, Any] | None:
    """The talk message of :meth:`RedisBus.publish_talk`, or ``None`` when ``payload`` is not
    one."""
    try:
        message = orjson.loads(payload)
    except (ValueError, TypeError):
        return None
    return message if isinstance(message, dict) else None


def _seats(payload: str) -> list[int] | None:
    """The seats of a presence message, or ``None`` when ``payload`` is not a list of them."""
    try:
        seats = orjson.loads(payload)
    except ValueError:
        return None
    if not isinstance(seats, list) or not all(
        isinstance(seat, int) and not isinstance(seat, bool) for seat in seats
    ):
        return None
    return seats
