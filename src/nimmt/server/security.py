"""What keeps the server in one piece facing the open internet (docs/protocol.md, "Limits and
security"): security headers on every HTTP answer, a limit on request bodies, the WebSocket
``Origin`` rule and the per-address quota for creating tables.

The two middlewares are plain ASGI (not Starlette's ``BaseHTTPMiddleware``, which gets in the way
of websockets and streamed answers); :func:`protect` wraps the whole app in them, outside the
error handlers, so that a 404 or a 500 carries the headers too.
"""

from __future__ import annotations

import json
import math
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from nimmt.server.errors import ServiceError

CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'; "
    "object-src 'none'"
)
"""Only the server's own files run or style the pages (no inline script or style anywhere);
``connect-src 'self'`` also admits the same origin's ``ws:``/``wss:`` sockets."""

SECURITY_HEADERS: tuple[tuple[bytes, bytes], ...] = (
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),  # a table's URL is nobody else's business
    (b"x-frame-options", b"DENY"),
)

CLOSE_FORBIDDEN_ORIGIN = 4403


class SecurityHeaders:
    """Adds :data:`SECURITY_HEADERS` to every HTTP answer (replacing any the app set)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                ours = {name for name, _value in SECURITY_HEADERS}
                headers = [
                    (name, value)
                    for name, value in message.get("headers", ())
                    if name.lower() not in ours
                ]
                message = {**message, "headers": [*headers, *SECURITY_HEADERS]}
            await send(message)

        await self.app(scope, receive, send_with_headers)


class BodyLimit:
    """Refuses HTTP request bodies over ``max_bytes`` with 413 ``too_large``, without reading
    them whole: a ``Content-Length`` over the limit is refused before a byte of the body is read;
    otherwise (chunked bodies, or a length that lies) the body is read chunk by chunk, only up to
    the limit, before the app sees it. Every route's body is small JSON, so holding up to
    ``max_bytes`` of it in memory costs nothing. ``larger`` gives some paths a limit of their
    own (a game record sent to the replay viewer)."""

    def __init__(
        self, app: ASGIApp, max_bytes: int, larger: Mapping[str, int] | None = None
    ) -> None:
        self.app = app
        self.max_bytes = max_bytes
        self.larger = dict(larger or {})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.larger.get(scope.get("path", ""), self.max_bytes)
        if self._declared_length(scope) > limit:
            await self._refuse(send, limit)
            return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":  # the client went away
                await self.app(scope, _replay([message], receive), send)
                return
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                await self._refuse(send, limit)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = {"type": "http.request", "body": b"".join(chunks), "more_body": False}
        await self.app(scope, _replay([body], receive), send)

    @staticmethod
    def _declared_length(scope: Scope) -> int:
        for name, value in scope.get("headers", ()):
            if name.lower() == b"content-length":
                try:
                    return int(value)
                except ValueError:
                    return 0  # the HTTP server refuses these itself; counting still applies
        return 0

    async def _refuse(self, send: Send, limit: int) -> None:
        body = json.dumps(
            {
                "error": {
                    "code": "too_large",
                    "message": f"The request body is larger than {limit} bytes.",
                }
            }
        ).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 413,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"connection", b"close"),  # the rest of the body is not read
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})


def _replay(messages: list[Message], receive: Receive) -> Receive:
    """A ``receive`` that hands out ``messages`` first, then what the client sends next."""
    pending = list(messages)

    async def replay() -> Message:
        if pending:
            return pending.pop(0)
        return await receive()

    return replay


def protect(
    app: ASGIApp, *, max_body_bytes: int, larger_bodies: Mapping[str, int] | None = None
) -> ASGIApp:
    """``app`` behind the body limit and the security headers (the headers outermost, so that
    the limit's 413 carries them as well)."""
    return SecurityHeaders(BodyLimit(app, max_body_bytes, larger_bodies))


# ------------------------------------------------------------------------ the socket's origin

_DEFAULT_PORTS = {"http": 80, "ws": 80, "https": 443, "wss": 443}
_SOCKET_SCHEME = {"http": "ws", "https": "wss", "ws": "ws", "wss": "wss"}


def _origin_key(scheme: str, netloc: str) -> tuple[str, str, int] | None:
    """``(socket scheme, host, port)`` of an origin, ``http`` and ``ws`` alike; ``None`` if it
    is not an http(s)/ws(s) origin."""
    scheme = scheme.lower()
    if scheme not in _SOCKET_SCHEME:
        return None
    try:
        parts = urlsplit(f"//{netloc}")
        port = parts.port
    except ValueError:
        return None
    if not parts.hostname:
        return None
    return _SOCKET_SCHEME[scheme], parts.hostname.lower(), port or _DEFAULT_PORTS[scheme]


def parse_origin(origin: str) -> tuple[str, str, int] | None:
    """The comparable form of an ``Origin`` header or a configured origin (``None`` for
    ``null`` and anything else that is not an http(s)/ws(s) origin)."""
    scheme, separator, rest = origin.strip().partition("://")
    if not separator or "/" in rest.rstrip("/"):
        return None
    return _origin_key(scheme, rest.rstrip("/"))


def origin_allowed(scope: Scope, allowed_origins: Iterable[str]) -> bool:
    """Whether a socket's handshake may go on: no ``Origin`` header (not a browser), the
    server's own origin (the scheme of the socket, the ``Host`` header the browser sent), or
    one of ``allowed_origins``. A page elsewhere cannot play with a visitor's seat tokens."""
    headers = {name.lower(): value for name, value in scope.get("headers", ())}
    raw = headers.get(b"origin")
    if raw is None:
        return True
    origin = parse_origin(raw.decode("latin-1"))
    if origin is None:
        return False
    host = headers.get(b"host", b"").decode("latin-1")
    if origin == _origin_key(scope.get("scheme", "ws"), host):
        return True
    return any(origin == parse_origin(allowed) for allowed in allowed_origins)


def forbidden_origin_message() -> dict[str, object]:
    """The ``error`` a refused socket receives before it is closed with 4403."""
    return {
        "type": "error",
        "code": "forbidden_origin",
        "message": "Sockets from pages of another site are not accepted.",
        "request_id": None,
    }


# -------------------------------------------------------------------- the creation quota


class QuotaExceededError(ServiceError):
    """429 ``quota_exceeded``; ``retry_after`` whole seconds until one more creation fits."""

    def __init__(self, retry_after: int) -> None:
        super().__init__(
            "quota_exceeded",
            f"Too many new tables from your address; try again in {retry_after} seconds.",
            429,
        )
        self.retry_after = retry_after


class CreationQuota:
    """At most ``limit`` creations per ``window`` seconds for each key (a client address): a
    sliding window of the times of the creations that went through.

    The counts live in this process's memory only: several server processes each count on their
    own, and a restart forgets them. Keys without a creation in the window are dropped (all of them
    once per window), so the memory held stays proportional to the recent creations.
    """

    def __init__(
        self, limit: int, window: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.limit = limit
        self.window = window
        self._clock = clock
        self._times: dict[str, deque[float]] = {}
        self._swept = clock()

    def acquire(self, key: str) -> float:
        """Count one creation for ``key`` now and return its timestamp (for :meth:`release`);
        :class:`QuotaExceededError` (nothing counted) when ``key`` is at the limit."""
        now = self._clock()
        if now - self._swept >= self.window:
            self._swept = now
            for other in list(self._times):
                self._forget(other, now)
        times = self._forget(key, now)
        if len(times) >= self.limit:
            retry_after = max(1, math.ceil(times[0] + self.window - now))
            raise QuotaExceededError(retry_after)
        times.append(now)
        self._times[key] = times
        return now

    def release(self, key: str, stamp: float) -> None:
        """Give back a creation counted by :meth:`acquire` that did not happen after all."""
        times = self._times.get(key)
        if times is not None and stamp in times:
            times.remove(stamp)
            if not times:
                del self._times[key]

    def _forget(self, key: str, now: float) -> deque[float]:
        """``key``'s creations still in the window (the key is dropped if there are none)."""
        times = self._times.pop(key, deque())
        while times and times[0] <= now - self.window:
            times.popleft()
        if times:
            self._times[key] = times
        return times
