"""The socket's sender (``routers.socket._pump``) against a stand-in for the WebSocket: what a
connection queued goes out in order, and a client whose send never completes (it stopped
reading and its buffer is full) is closed with 4408 once the send timeout passes, not waited
for forever."""

from __future__ import annotations

import asyncio
import gc
import weakref
from typing import Any

import pytest
from starlette.websockets import WebSocketState

from nimmt.server.metrics import SLOW_CONSUMER_CLOSES
from nimmt.server.routers import socket as socket_router
from nimmt.server.table import Connection


class FakeSocket:
    """Sends go to ``sent``; with ``stuck`` a send waits until cancelled, with ``pause`` it
    takes that many seconds."""

    def __init__(self, *, stuck: bool = False, pause: float = 0.0) -> None:
        self.client_state = WebSocketState.CONNECTED
        self.sent: list[str] = []
        self.closed: list[int] = []
        self.stuck = stuck
        self.pause = pause
        self.waiting = False

    async def send_text(self, text: str) -> None:
        if self.stuck:
            self.waiting = True
            await asyncio.Event().wait()
        if self.pause:
            await asyncio.sleep(self.pause)
        self.sent.append(text)

    async def close(self, code: int = 1000, reason: str | None = None) -> None:
        self.closed.append(code)


class NoService:
    async def fresh_state(self, connection: Connection) -> dict[str, Any] | None:
        return {"type": "state", "version": 99}


def test_queued_messages_go_out_in_order_and_a_later_one_wakes_the_sender() -> None:
    async def scenario() -> list[str]:
        socket, connection = FakeSocket(), Connection("AAAAAA", None, None)
        connection.send({"type": "state", "version": 1})
        connection.send({"type": "state", "version": 2})
        pump = asyncio.create_task(socket_router._pump(socket, connection, NoService()))  # type: ignore[arg-type]
        while len(socket.sent) < 2:
            await asyncio.sleep(0)
        connection.send({"type": "state", "version": 3})
        while len(socket.sent) < 3:
            await asyncio.sleep(0)
        pump.cancel()
        with pytest.raises(asyncio.CancelledError):
            await pump
        return socket.sent

    sent = asyncio.run(scenario())
    assert sent == [f'{{"type":"state","version":{n}}}' for n in (1, 2, 3)]


def test_a_client_whose_send_never_completes_is_closed_as_too_slow(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(socket_router, "SEND_TIMEOUT", 0.05)
    before = SLOW_CONSUMER_CLOSES._value.get()

    async def scenario() -> FakeSocket:
        socket, connection = FakeSocket(stuck=True), Connection("AAAAAA", None, None)
        connection.send({"type": "state", "version": 1})
        await asyncio.wait_for(
            socket_router._pump(socket, connection, NoService()),  # type: ignore[arg-type]
            10,  # a guard against a hung test: the pump itself must end after 0.05 s
        )
        return socket

    socket = asyncio.run(scenario())
    assert socket.closed == [socket_router.CLOSE_TOO_SLOW]
    assert SLOW_CONSUMER_CLOSES._value.get() == before + 1


def test_a_sender_cancelled_from_outside_is_cancelled_not_closed_as_slow() -> None:
    async def scenario() -> FakeSocket:
        socket, connection = FakeSocket(stuck=True), Connection("AAAAAA", None, None)
        connection.send({"type": "state", "version": 1})
        pump = asyncio.create_task(socket_router._pump(socket, connection, NoService()))  # type: ignore[arg-type]
        while not socket.waiting:
            await asyncio.sleep(0)
        pump.cancel()
        with pytest.raises(asyncio.CancelledError):
            await pump
        return socket

    assert asyncio.run(scenario()).closed == []


def _pumped(connection: Connection) -> list[str]:
    """What the sender sends of what ``connection`` queued (then it is stopped)."""

    async def scenario() -> list[str]:
        socket = FakeSocket()
        pump = asyncio.create_task(socket_router._pump(socket, connection, NoService()))  # type: ignore[arg-type]
        while not socket.sent:
            await asyncio.sleep(0)
        await asyncio.sleep(0)
        pump.cancel()
        with pytest.raises(asyncio.CancelledError):
            await pump
        return socket.sent

    return asyncio.run(scenario())


def overflowed(connection: Connection) -> None:
    for number in range(connection.max_queue + 1):
        connection.send({"type": "change", "version": number})


def test_an_overflowed_queue_is_sent_a_fresh_state() -> None:
    connection = Connection("AAAAAA", None, None, max_queue=2, changes=True)
    overflowed(connection)
    assert _pumped(connection) == ['{"type":"state","version":99}']


def test_a_whole_state_queued_after_the_overflow_is_the_resync() -> None:
    # The publisher sends an overflowed `changes` socket a whole state next (it holds no base):
    # that one brings the client up to date, and no second whole state is made for it.
    connection = Connection("AAAAAA", None, None, max_queue=4, changes=True)
    overflowed(connection)
    connection.send({"type": "state", "version": 7})
    connection.send({"type": "change", "version": 8, "view": {"turn": 2}})
    assert _pumped(connection) == ['{"type":"state","version":8,"view":{"turn":2}}']


def test_only_the_socket_that_does_not_read_is_closed(monkeypatch: pytest.MonkeyPatch) -> None:
    # One sweep watches every socket's sends: the stuck one is closed, the reading one (each
    # send takes a little while, so the sweep finds it sending) goes on. The timeout is 60
    # times a send's pause: a busy machine that stalls this process for a moment must not
    # make the reading socket look stuck.
    monkeypatch.setattr(socket_router, "SEND_TIMEOUT", 0.25)

    async def scenario() -> tuple[FakeSocket, FakeSocket, bool]:
        stuck, reading = FakeSocket(stuck=True), FakeSocket(pause=0.004)
        stuck_connection = Connection("AAAAAA", None, None)
        reading_connection = Connection("AAAAAA", None, None)
        stuck_connection.send({"type": "state", "version": 1})
        stuck_pump = asyncio.create_task(socket_router._pump(stuck, stuck_connection, NoService()))  # type: ignore[arg-type]
        reading_pump = asyncio.create_task(
            socket_router._pump(reading, reading_connection, NoService())  # type: ignore[arg-type]
        )
        version = 0
        while not stuck_pump.done():
            version += 1
            reading_connection.send({"type": "state", "version": version})
            await asyncio.sleep(0.005)
        reading_connection.send({"type": "state", "version": version + 1})
        while len(reading.sent) < version + 1 and not reading_pump.done():
            await asyncio.sleep(0)
        assert not reading_pump.done(), "the socket that reads was closed"
        watch = socket_router.SendWatch.of(asyncio.get_running_loop())
        reading_pump.cancel()
        with pytest.raises(asyncio.CancelledError):
            await reading_pump
        sweeper = watch.sweeper
        assert sweeper is not None and watch.pumps == 0 and not watch.since
        await asyncio.wait_for(sweeper, 10)  # with no pump left the sweep ends
        return stuck, reading, watch.sweeper is None

    stuck, reading, swept = asyncio.run(scenario())
    assert stuck.closed == [socket_router.CLOSE_TOO_SLOW]
    assert reading.closed == []
    assert len(reading.sent) >= 2
    assert swept


def test_a_loop_that_is_gone_leaves_no_watch_behind() -> None:
    async def scenario() -> weakref.ref[asyncio.AbstractEventLoop]:
        connection = Connection("AAAAAA", None, None)
        pump = asyncio.create_task(socket_router._pump(FakeSocket(), connection, NoService()))  # type: ignore[arg-type]
        await asyncio.sleep(0)
        assert socket_router.SendWatch.of(asyncio.get_running_loop()).pumps == 1
        pump.cancel()
        with pytest.raises(asyncio.CancelledError):
            await pump
        return weakref.ref(asyncio.get_running_loop())

    loop = asyncio.run(scenario())
    gc.collect()
    assert loop() is None
