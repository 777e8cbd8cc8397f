"""The ``Host`` rule (``NIMMT_ALLOWED_HOSTS``): addresses and localhost always, other names only
when configured; through the app, on HTTP and on sockets."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from nimmt.server.hosts import HostRule, host_name


@pytest.mark.parametrize(
    ("header", "allowed"),
    [
        ("127.0.0.1:8000", True),
        ("192.168.1.5", True),
        ("[::1]:8000", True),
        ("localhost:8000", True),
        ("app.localhost", True),
        ("nimmt.example.org", True),
        ("NIMMT.example.org.:443", True),
        ("a.games.example", True),
        ("games.example", False),
        ("evil.example", False),
        ("evil.example@127.0.0.1", False),
        ("", False),
        (None, False),
    ],
)
def test_which_hosts_are_answered(header: str | None, allowed: bool) -> None:
    rule = HostRule(["nimmt.example.org", "*.games.example"])
    assert rule.allows(header) is allowed


def test_an_allowed_origin_s_host_is_allowed_and_a_star_allows_all() -> None:
    assert HostRule([], ["https://play.example.net"]).allows("play.example.net")
    assert HostRule(["*"]).allows("anything.example")
    assert host_name("Example.ORG:8080") == "example.org"
    assert host_name("example.org:http") is None


def test_the_app_refuses_another_host(make_client: Callable[..., TestClient]) -> None:
    client = make_client()
    answer = client.get("/api/bots", headers={"host": "evil.example"})
    assert answer.status_code == 400
    assert answer.json()["error"]["code"] == "bad_host"
    assert answer.headers["x-content-type-options"] == "nosniff"
    assert client.get("/api/bots", headers={"host": "localhost:8000"}).status_code == 200
    with (
        pytest.raises(WebSocketDisconnect) as refused,
        client.websocket_connect("/ws/ABCDEF", headers={"host": "evil.example"}),
    ):
        pass
    assert refused.value.code == 4400
