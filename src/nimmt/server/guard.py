"""Slow and many clients, at the connection (``nimmt serve`` hands :class:`GuardedHttp` to
uvicorn as its HTTP protocol).

- **Header timeout**: a client has ``header_timeout`` seconds to send its request line and
  headers, for the first request and for each next one on a kept-alive connection; then it is
  closed. A slow-loris client (a header line every few seconds) no longer holds a connection for
  as long as it likes.
- **Connection caps**: at most ``max_connections`` per process (lowered to fit the process's
  file limit, :func:`raise_file_limit`) and ``max_connections_per_address`` per client address.
  A new connection over a cap pushes out the oldest connection (of that address, for the
  address's cap) that is still sending its headers: someone who sent nothing useful yet goes
  first, so that ``/healthz`` and real players still get in while slow clients pile up. When
  every connection is busy, the new one is answered 503 and closed.
- **Header size**: request line and headers over :data:`MAX_HEADER_BYTES` are answered 431.

Sockets (after their upgrade) count against the caps until they close; they are never pushed
out.
"""

from __future__ import annotations

import asyncio
import logging
import resource
from collections import OrderedDict
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from nimmt.server.metrics import CONNECTIONS_CLOSED
from nimmt.server.settings import Settings

log = logging.getLogger(__name__)

FILES_RESERVED = 96
"""Files a process keeps for itself besides client connections: the listening socket, the
database's files and connections, the worker processes' pipes, the logs."""
FILE_LIMIT_WANTED = 65_536
"""The soft file limit asked for at start (up to the hard limit)."""
MAX_HEADER_BYTES = 32 * 1024
"""Request line and headers together: generous for browsers, small for abusers."""
TOO_LARGE = (
    b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-length: 0\r\n"
    b"connection: close\r\n\r\n"
)
BUSY = (
    b"HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain; charset=utf-8\r\n"
    b"content-length: 21\r\nconnection: close\r\nretry-after: 5\r\n\r\nToo many connections."
)


def raise_file_limit(wanted: int = FILE_LIMIT_WANTED) -> int:
    """Raise this process's soft limit of open files towards ``wanted`` (never above the hard
    limit, which only the system may raise); the soft limit now."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if target > soft:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError) as error:
            log.warning("cannot raise the open-files limit to %s: %s", target, error)
    return soft


def connection_cap(wanted: int, file_limit: int) -> int:
    """``wanted`` connections, or fewer when the file limit leaves no room for them.

    >>> connection_cap(2000, 1024)
    928
    >>> connection_cap(2000, 65536)
    2000
    >>> connection_cap(2000, 100)
    8
    """
    return max(8, min(wanted, file_limit - FILES_RESERVED))


class ConnectionGuard:
    """The connections of one process: who may come in, who is pushed out."""

    def __init__(self, max_connections: int, per_address: int, header_timeout: float) -> None:
        self.max_connections = max_connections
        self.per_address = per_address
        self.header_timeout = header_timeout
        self.open: dict[asyncio.BaseTransport, str] = {}
        """Every connection counted, with its client address."""
        self.by_address: dict[str, set[asyncio.BaseTransport]] = {}
        self.waiting: OrderedDict[asyncio.BaseTransport, None] = OrderedDict()
        """Connections still sending their headers, oldest first."""

    def admit(self, transport: asyncio.BaseTransport, address: str) -> bool:
        """Count a new connection, pushing out a slow one if a cap is reached; ``False`` when
        it cannot come in."""
        mine = self.by_address.setdefault(address, set())
        if len(mine) >= self.per_address:
            self._prune(mine)
            if len(mine) >= self.per_address and not self._push_out(mine):
                return False
        if len(self.open) >= self.max_connections:
            self._prune(set(self.open))
            if len(self.open) >= self.max_connections and not self._push_out(None):
                return False
        self.open[transport] = address
        mine.add(transport)
        return True

    def sending_headers(self, transport: asyncio.BaseTransport) -> None:
        self.waiting[transport] = None
        self.waiting.move_to_end(transport)

    def headers_done(self, transport: asyncio.BaseTransport) -> None:
        self.waiting.pop(transport, None)

    def release(self, transport: asyncio.BaseTransport) -> None:
        self.waiting.pop(transport, None)
        address = self.open.pop(transport, None)
        if address is not None:
            mine = self.by_address.get(address)
            if mine is not None:
                mine.discard(transport)
                if not mine:
                    del self.by_address[address]

    def _prune(self, transports: set[asyncio.BaseTransport]) -> None:
        """Forget the connections that closed without telling (sockets after their upgrade)."""
        for transport in transports:
            if transport.is_closing():
                self.release(transport)

    def _push_out(self, among: set[asyncio.BaseTransport] | None) -> bool:
        """Close the oldest connection still sending its headers (of ``among``, when given)."""
        for transport in self.waiting:
            if among is None or transport in among:
                CONNECTIONS_CLOSED.labels("pushed_out").inc()
                self.release(transport)
                transport.close()
                return True
        return False


_guard: ConnectionGuard | None = None


def configure(settings: Settings) -> ConnectionGuard:
    """The guard of this process, from ``settings``, the file limit raised first."""
    global _guard
    files = raise_file_limit()
    cap = connection_cap(settings.max_connections, files)
    if cap < settings.max_connections:
        log.warning(
            "at most %s connections: the process may open only %s files (LimitNOFILE)", cap, files
        )
    _guard = ConnectionGuard(cap, settings.max_connections_per_address, settings.header_timeout)
    return _guard


def guard() -> ConnectionGuard:
    """The guard, configured from the environment the first time (each of several processes
    builds its own)."""
    return _guard if _guard is not None else configure(Settings())


class GuardedHttp(HttpToolsProtocol):
    """uvicorn's HTTP protocol with the header timeout and the connection caps (see the
    module)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.guard = guard()
        self._header_timer: asyncio.TimerHandle | None = None
        self._header_bytes = 0
        self._header_tail = b""
        """The last bytes of the headers so far: where a read's first bytes may end them."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        address = self.client[0] if self.client else "unknown"
        if not self.guard.admit(transport, address):
            CONNECTIONS_CLOSED.labels("over_capacity").inc()
            transport.write(BUSY)
            transport.close()
            return
        self._await_headers()

    def _await_headers(self) -> None:
        self._cancel_header_timer()
        self._header_bytes = 0
        self._header_tail = b""
        self.guard.sending_headers(self.transport)
        self._header_timer = self.loop.call_later(self.guard.header_timeout, self._too_slow)

    def _cancel_header_timer(self) -> None:
        if self._header_timer is not None:
            self._header_timer.cancel()
            self._header_timer = None

    def _too_slow(self) -> None:
        self._header_timer = None
        busy = self.cycle is not None and not self.cycle.response_complete
        if not busy and not self.transport.is_closing():
            CONNECTIONS_CLOSED.labels("slow_headers").inc()
            self.guard.release(self.transport)
            self.transport.close()

    def data_received(self, data: bytes) -> None:
        if self._header_timer is not None:  # still in the request line and headers
            if self._header_bytes + len(data) > MAX_HEADER_BYTES and not self._headers_end_in(data):
                self._cancel_header_timer()
                CONNECTIONS_CLOSED.labels("headers_too_large").inc()
                self.guard.release(self.transport)
                self.transport.write(TOO_LARGE)
                self.transport.close()
                return
            self._header_bytes += len(data)
            self._header_tail = (self._header_tail + data[-3:])[-3:]
        super().data_received(data)

    def _headers_end_in(self, data: bytes) -> bool:
        """The headers end in ``data`` within :data:`MAX_HEADER_BYTES`: a read may hold the
        end of the headers and a body, whose bytes are not the headers' (the body's limit is
        the app's :class:`~nimmt.server.security.BodyLimit`)."""
        seen = self._header_tail + data
        end = seen.find(b"\r\n\r\n")
        if end < 0:
            return False
        return self._header_bytes + end + 4 - len(self._header_tail) <= MAX_HEADER_BYTES

    def on_headers_complete(self) -> None:
        self._cancel_header_timer()
        self.guard.headers_done(self.transport)
        super().on_headers_complete()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing() and not self.pipeline:
            self._await_headers()  # the next request on this connection gets as long

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_header_timer()
        self.guard.release(self.transport)
        super().connection_lost(exc)
