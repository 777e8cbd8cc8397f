"""The ``Host`` rule (``NIMMT_ALLOWED_HOSTS``), on every HTTP request and socket.

DNS rebinding: a page at ``evil.example`` has its name re-pointed to the address of a nimmt on
the visitor's LAN (or their own machine); the browser then sends that page's requests and
sockets there, same-origin as far as it knows, with ``Host: evil.example`` (and ``Origin`` too, so
the Origin rule alone does not catch it). A server answers only names it was told are its own:

- an address as the host (``127.0.0.1``, ``192.168.1.5``, ``[::1]``): nobody can rebind those;
- ``localhost`` and names under ``.localhost``;
- the names in ``allowed_hosts`` (``nimmt.example.org``, or ``*.example.org`` for every name
  under it, or ``*`` for any), and the hosts of ``allowed_origins``.

A request with another ``Host`` is answered 400 ``bad_host``; a socket is closed (4400) before it
is accepted.
"""

from __future__ import annotations

import ipaddress
import json
from collections.abc import Iterable
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Receive, Scope, Send

from nimmt.server.metrics import HOSTS_REFUSED

CLOSE_BAD_HOST = 4400


def host_name(header: str) -> str | None:
    """The name (or address) of a ``Host`` header, without its port, in lower case; ``None``
    when it is not a host at all."""
    header = header.strip().lower()
    if not header or any(char in header for char in "/?#@ \t\\"):
        return None
    if header.startswith("["):  # [::1]:8000
        end = header.find("]")
        return header[1:end] if end > 0 else None
    name, _, port = header.partition(":")
    if port and not port.isdigit():
        return None
    return name.rstrip(".") or None


def _is_address(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


class HostRule:
    """Which ``Host`` names this server answers (see the module)."""

    def __init__(self, allowed_hosts: Iterable[str], allowed_origins: Iterable[str] = ()) -> None:
        names = {name.strip().lower().rstrip(".") for name in allowed_hosts if name.strip()}
        for origin in allowed_origins:
            hostname = urlsplit(origin.strip()).hostname
            if hostname:
                names.add(hostname.lower())
        self.any = "*" in names
        self.suffixes = tuple(name[1:] for name in names if name.startswith("*."))
        self.names = frozenset(name for name in names if not name.startswith("*"))

    def allows(self, header: str | None) -> bool:
        if self.any:
            return True
        if header is None:
            return False
        name = host_name(header)
        if name is None:
            return False
        if _is_address(name) or name == "localhost" or name.endswith(".localhost"):
            return True
        return name in self.names or name.endswith(self.suffixes)


class HostCheck:
    """Plain ASGI: refuses HTTP requests and sockets whose ``Host`` the rule does not allow."""

    def __init__(self, app: ASGIApp, rule: HostRule) -> None:
        self.app = app
        self.rule = rule

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        hosts = [value for name, value in scope.get("headers", ()) if name == b"host"]
        # Exactly one Host (RFC 9112): with two, a proxy and this server could read different.
        host = hosts[0].decode("latin-1") if len(hosts) == 1 else None
        if self.rule.allows(host):
            await self.app(scope, receive, send)
            return
        HOSTS_REFUSED.inc()
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": CLOSE_BAD_HOST, "reason": "bad_host"})
            return
        body = json.dumps(
            {
                "error": {
                    "code": "bad_host",
                    "message": "This server does not answer to that host name.",
                }
            }
        ).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 400,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})
