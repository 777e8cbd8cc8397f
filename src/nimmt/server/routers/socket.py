"""The table socket ``/ws/{code}?token=...&since=...`` (docs/protocol.md section 3): it parses
each message, hands it to the game service, and pumps the service's messages to the client.

Limits: each socket may send ``socket_rate`` messages per second on average (bursts up to
``socket_burst``); beyond that a message is refused with ``rate_limited`` and not handled. A
client that does not read what it is sent falls behind: its queue is bounded
(:class:`~nimmt.server.table.Connection`), it is sent a fresh ``state`` in place of what it missed,
and if it keeps falling behind, or one send waits longer than ``SEND_TIMEOUT`` seconds, it is
closed with code 4408 (it may reconnect).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import math
import time
import weakref
from collections.abc import Mapping
from typing import Any

import orjson
from fastapi import APIRouter, WebSocket
from starlette.websockets import WebSocketState

from nimmt.server.absence import STEPS as HANDOVER_STEPS
from nimmt.server.actions import SEAT_ACTIONS, ActionKind
from nimmt.server.book import DELETED_REASON, TableDeleted, first_line
from nimmt.server.errors import ServiceError, quoted
from nimmt.server.metrics import RATE_LIMITED as RATE_LIMITED_MESSAGES
from nimmt.server.metrics import SLOW_CONSUMER_CLOSES
from nimmt.server.publisher import merge_queued
from nimmt.server.routers.deps import get_service
from nimmt.server.security import CLOSE_FORBIDDEN_ORIGIN, forbidden_origin_message, origin_allowed
from nimmt.server.serialize import encode, error_message
from nimmt.server.service import GameService
from nimmt.server.settings import Settings
from nimmt.server.table import GONE, RESYNC, TOO_SLOW, Connection
from nimmt.server.talk import TALK_TYPES

router = APIRouter()
log = logging.getLogger(__name__)

ASSIST_ACTIONS = {
    "assist_rows": ActionKind.ROWS,
    "assist_turn": ActionKind.TURN,
    "assist_row": ActionKind.ROW,
    "assist_undo": ActionKind.UNDO,
}
"""The entries at an assisted table (a game played with real cards), by message type."""
CLOSE_TABLE_NOT_FOUND = 4404
CLOSE_TOO_SLOW = 4408
CLOSE_TRY_AGAIN = 1013
"""The database cannot be reached now: the client may reconnect a little later."""
SEND_TIMEOUT = 20.0
"""Seconds one message may take to go out before the client counts as not reading."""
MAX_REQUEST_ID_LENGTH = 64


class RateLimit:
    """A token bucket: ``rate`` messages per second on average, bursts of up to ``burst``."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = float(burst)
        self.stamp = time.monotonic()

    def allow(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False


@router.websocket("/ws/{code}")
async def table_socket(
    websocket: WebSocket,
    code: str,
    token: str | None = None,
    since: str | None = None,
    events: str | None = None,
) -> None:
    settings: Settings = websocket.app.state.settings
    if not origin_allowed(websocket.scope, settings.allowed_origins):
        await websocket.accept()
        await websocket.send_text(json.dumps(forbidden_origin_message()))
        await websocket.close(code=CLOSE_FORBIDDEN_ORIGIN)
        return
    service = get_service(websocket)
    await websocket.accept()
    try:
        connection = await service.connect(
            code,
            token or None,
            _version(since),
            inline=events == "inline",
            changes=events == "changes",
        )
    except ServiceError as error:
        await websocket.send_json(error_message(error))
        unavailable = error.code == "storage_error"
        if unavailable:
            log.warning("socket at table %s: database unavailable: %s", code, first_line(error))
        await websocket.close(
            code=CLOSE_TRY_AGAIN if unavailable else CLOSE_TABLE_NOT_FOUND,
            reason=DELETED_REASON if isinstance(error, TableDeleted) else None,
        )
        return
    limit = RateLimit(settings.socket_rate, settings.socket_burst)
    sender = asyncio.create_task(_pump(websocket, connection, service))
    try:
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                break
            if not limit.allow():  # refused, not handled: nothing changes
                RATE_LIMITED_MESSAGES.inc()
                request_id = _request_id_of(message, settings.max_message_bytes)
                connection.send(error_message(RATE_LIMITED, request_id))
                continue
            text = message.get("text")
            # A character is at most 4 bytes of UTF-8: a short text needs no counting.
            if text is None or 4 * len(text) > settings.max_message_bytes:
                raw: bytes = (message.get("bytes") or b"") if text is None else text.encode()
                if len(raw) > settings.max_message_bytes:  # refused unread: nothing changes
                    connection.send(error_message(_too_large(settings.max_message_bytes)))
                    continue
                if text is None:
                    text = raw.decode("utf-8", "replace")
            await handle_message(service, connection, text)
    finally:
        await service.disconnect(connection)
        sender.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await sender


RATE_LIMITED = ServiceError("rate_limited", "Too many messages: slow down, then try again.")


def _version(since: str | None) -> int | None:
    """``since`` from the socket's URL: a version, or nothing when it is not a number."""
    if since is None or not since.isdigit() or len(since) > 12:
        return None
    return int(since)


class SendWatch:
    """One sweep for every socket of an event loop in place of a timer per send: a pump notes
    when it starts sending a batch (:meth:`sending`) and when it is done (:meth:`sent`); every
    ``SEND_TIMEOUT / 20`` seconds the sweep cancels each pump whose batch has taken longer than
    ``SEND_TIMEOUT`` (:meth:`expired` then says so to the pump). A send rarely waits (only while
    the client's socket buffer is full), so a timer per batch was made and cancelled at nearly
    every frame: about 3% of the event loop's time at 400 tables."""

    def __init__(self) -> None:
        self.since: dict[asyncio.Task[None], float] = {}
        self.cancelled: set[asyncio.Task[None]] = set()
        self.pumps = 0
        self.sweeper: asyncio.Task[None] | None = None

    @classmethod
    def of(cls, loop: asyncio.AbstractEventLoop) -> SendWatch:
        """The loop's watch (it holds no reference to the loop: a closed loop is forgotten)."""
        watch = _WATCHES.get(loop)
        if watch is None:
            watch = _WATCHES[loop] = cls()
        return watch

    def join(self) -> None:
        """A pump starts: the sweep runs while there is one."""
        self.pumps += 1
        if self.sweeper is None:
            self.sweeper = asyncio.create_task(self._sweep())

    def leave(self, task: asyncio.Task[None]) -> None:
        self.pumps -= 1
        self.since.pop(task, None)
        self.cancelled.discard(task)

    def sending(self, task: asyncio.Task[None]) -> None:
        self.since[task] = time.monotonic()

    def sent(self, task: asyncio.Task[None]) -> None:
        del self.since[task]

    def expired(self, task: asyncio.Task[None]) -> bool:
        """``task`` was cancelled by the sweep (not from outside); it is forgotten."""
        if task in self.cancelled:
            self.cancelled.discard(task)
            return True
        return False

    async def _sweep(self) -> None:
        try:
            while self.pumps:
                await asyncio.sleep(SEND_TIMEOUT / 20)
                now = time.monotonic()
                for task, since in list(self.since.items()):
                    if now - since >= SEND_TIMEOUT and task not in self.cancelled:
                        self.cancelled.add(task)
                        task.cancel()
        finally:
            self.sweeper = None


_WATCHES: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, SendWatch] = (
    weakref.WeakKeyDictionary()
)


async def _pump(websocket: WebSocket, connection: Connection, service: GameService) -> None:
    """Send what the service queued for this connection, in order; a fresh ``state`` where the
    queue overflowed; close a client that does not read. What queued up meanwhile (a change's
    ``events`` and ``state``) goes out in one go, under one send timeout (:class:`SendWatch`)."""
    task = asyncio.current_task()
    assert task is not None
    watch = SendWatch.of(asyncio.get_running_loop())
    watch.join()
    try:
        await _pump_batches(websocket, connection, service, task, watch)
    finally:
        watch.leave(task)


async def _pump_batches(
    websocket: WebSocket,
    connection: Connection,
    service: GameService,
    task: asyncio.Task[None],
    watch: SendWatch,
) -> None:
    while True:
        while not connection.outbox:
            await connection.queued()
        # The batch and its frames die here, not at the next batch: a socket waits for most
        # of its life, and what its sender's frame holds meanwhile the collector looks at.
        texts, close = await _texts(connection, service, connection.take())
        if websocket.client_state is not WebSocketState.CONNECTED:
            return
        watch.sending(task)
        try:
            for text in texts:
                await websocket.send_text(text)
        except asyncio.CancelledError:
            if not watch.expired(task):
                raise
            task.uncancel()
            close = CLOSE_TOO_SLOW
        finally:
            watch.sent(task)
        if close is not None:
            await _close(websocket, close)
            return


async def _texts(
    connection: Connection, service: GameService, batch: list[dict[str, Any]]
) -> tuple[list[str], int | None]:
    """The JSON texts to send for what was queued (a run of changes merged into one), a fresh
    ``state`` where the queue overflowed; the code to close the connection with after them
    (``None``: it stays open)."""
    if connection.changes and len(batch) > 1:
        batch = merge_queued(batch)
    texts: list[str] = []
    for index, message in enumerate(batch):
        if message is TOO_SLOW:
            return texts, CLOSE_TOO_SLOW
        if message is GONE:
            return texts, CLOSE_TABLE_NOT_FOUND
        if message is RESYNC:
            if any(later.get("type") == "state" for later in batch[index + 1 :]):
                continue  # a whole state made since the overflow follows: it is the resync
            fresh = await service.fresh_state(connection)
            if fresh is None:
                continue
            message = fresh
        texts.append(encode(message))
    return texts, None


async def _close(websocket: WebSocket, code: int) -> None:
    """Close the socket with ``code`` once what was queued is sent: a client that does not read
    (counted, with the reason ``slow_consumer``), or one whose table was deleted (the reason
    ``table_deleted``)."""
    reason = DELETED_REASON
    if code == CLOSE_TOO_SLOW:
        SLOW_CONSUMER_CLOSES.inc()
        reason = "slow_consumer"
    with contextlib.suppress(Exception):
        await asyncio.wait_for(websocket.close(code=code, reason=reason), 2)


def _too_large(limit: int) -> ServiceError:
    return ServiceError("too_large", f"A message may be at most {limit} bytes long.")


def _request_id_of(message: Mapping[str, Any], limit: int) -> str | int | float | None:
    """The ``request_id`` of a message that is refused, so that the client can tell which one
    was: read only from a message within the size limit that is a JSON object, else ``None``."""
    raw: str | bytes = message.get("text") or message.get("bytes") or b""
    if isinstance(raw, str) and 4 * len(raw) > limit:  # a short text needs no counting
        raw = raw.encode()
    if len(raw) > limit:  # too large to read: its refusal names no request
        return None
    try:
        data = orjson.loads(raw)
    except ValueError:
        return None
    return clean_request_id(data.get("request_id")) if isinstance(data, dict) else None


def clean_request_id(value: object) -> str | int | float | None:
    """The ``request_id`` echoed in answers: a string of at most 64 characters or a finite
    number; anything else counts as no request id (``None``)."""
    if isinstance(value, str):
        return value if len(value) <= MAX_REQUEST_ID_LENGTH else None
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float) and math.isfinite(value):
        return value
    return None


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


async def _assist(
    service: GameService,
    connection: Connection,
    entry: ActionKind,
    data: dict[str, Any],
    version: Any,
) -> None:
    """An entry at an assisted table: ``cards`` (a list of card numbers) for ``rows`` and
    ``turn``, ``row`` (0 to 3) for ``row``, nothing for ``undo``."""
    cards = data.get("cards")
    row = data.get("row")
    carries_cards = entry in (ActionKind.ROWS, ActionKind.TURN)
    if carries_cards and (
        not isinstance(cards, list) or len(cards) > 16 or not all(_is_int(card) for card in cards)
    ):
        raise ServiceError("malformed", '"cards" must be a list of card numbers.')
    if entry is ActionKind.ROW and not _is_int(row):
        raise ServiceError("malformed", 'A row choice needs "row": 0 to 3.')
    await service.assist(
        connection.code,
        connection.token,
        entry,
        cards=cards if carries_cards else None,
        row=row if entry is ActionKind.ROW else None,
        version=version,
    )


async def handle_message(service: GameService, connection: Connection, text: str) -> None:
    """One client message; a refusal is answered with an ``error`` and changes nothing."""
    request_id: Any = None
    kind: object = None
    try:
        try:
            # orjson refuses NaN and Infinity (not JSON), nesting deeper than 1024 and numbers
            # outside 64 bits.
            data = orjson.loads(text)
        except ValueError:
            raise ServiceError("malformed", "That message is not JSON.") from None
        if not isinstance(data, dict):
            raise ServiceError("malformed", "A message is a JSON object with a type.")
        request_id = clean_request_id(data.get("request_id"))
        kind = data.get("type")
        if not isinstance(kind, str):
            raise ServiceError("malformed", 'A message needs a "type".')
        if kind == "ping":
            connection.send({"type": "pong", "request_id": request_id})
            return
        if kind == "coach":  # answered to this connection alone, when the coach is done
            await service.ask_coach(connection, request_id)
            return
        if kind in TALK_TYPES:  # the table talk (server/talk.py): no version, no game change
            await service.talk.handle(connection, kind, data, request_id)
            return
        version = data.get("version")
        if version is not None and not _is_int(version):
            raise ServiceError("malformed", '"version" must be a whole number.')
        if kind in ASSIST_ACTIONS:
            await _assist(service, connection, ASSIST_ACTIONS[kind], data, version)
            return
        if kind in HANDOVER_STEPS:  # an absent player's seat (docs/protocol.md)
            await service.handover(
                connection.code, connection.token, kind, seat=data.get("seat"), bot=data.get("bot")
            )
            return
        if kind not in SEAT_ACTIONS:
            raise ServiceError("unknown_type", f"There is no message type {quoted(kind)}.")
        action = ActionKind(kind)
        card = data.get("card")
        row = data.get("row")
        if action is ActionKind.PLAY and not _is_int(card):
            raise ServiceError("malformed", 'A play needs "card": a card number.')
        if action is ActionKind.CHOOSE_ROW and not _is_int(row):
            raise ServiceError("malformed", 'A row choice needs "row": 0 to 3.')
        bot = data.get("bot")
        if action is ActionKind.LEAVE and bot is not None and not isinstance(bot, str):
            raise ServiceError("malformed", '"bot" must be a bot name.')
        agree = data.get("agree", True)
        if action is ActionKind.REMATCH and not isinstance(agree, bool):
            raise ServiceError("malformed", '"agree" must be true or false.')
        await service.act(
            connection.code,
            connection.token,
            action,
            card=card if action is ActionKind.PLAY else None,
            row=row if action is ActionKind.CHOOSE_ROW else None,
            version=version,
            bot=bot if action is ActionKind.LEAVE else None,
            agree=agree if action is ActionKind.REMATCH else True,
        )
    except ServiceError as error:
        if error.code == "storage_error":
            log.warning("table %s: %s not stored: %s", connection.code, kind, first_line(error))
        connection.send(error_message(error, request_id))
    except Exception:
        # A bug must not cost the player the connection: tell them, log it, go on.
        log.exception("message at table %s failed", connection.code)
        connection.send(
            error_message(
                ServiceError("internal_error", "Something went wrong on the server."), request_id
            )
        )
