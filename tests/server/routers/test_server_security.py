"""The server facing the open internet, through the real app: security headers on every answer,
the body and socket message limits, the socket's Origin rule, the creation quota, and the
requests that once ended as a 500 (a NUL in a path, a database refusing a new table, socket
messages a JSON parser chokes on)."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient, WebSocketTestSession
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from starlette.websockets import WebSocketDisconnect
from tests.server.server_helpers import create_table, join, receive_until, snapshot

from nimmt.server import Settings, create_app
from nimmt.server.security import (
    CONTENT_SECURITY_POLICY,
    BodyLimit,
    CreationQuota,
    QuotaExceededError,
)
from nimmt.server.storage import MemoryStorage, TableRecord

HUMAN = {"kind": "human"}
TWO_HUMANS = {"seats": [HUMAN, HUMAN]}

MakeClient = Callable[..., TestClient]


@pytest.fixture
def client(make_client: MakeClient) -> TestClient:
    return make_client()


def strict_json(text: str) -> Any:
    """``text`` parsed as strict JSON: NaN and Infinity are errors, as in every browser."""

    def refuse(name: str) -> None:
        raise AssertionError(f"{name} in {text!r}")

    return json.loads(text, parse_constant=refuse)


def error_code(answer: Any) -> str:
    body = answer.json()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message"}, body
    code: str = body["error"]["code"]
    return code


# ---------------------------------------------------------------------------- headers


def assert_security_headers(answer: Any) -> None:
    assert answer.headers["content-security-policy"] == CONTENT_SECURITY_POLICY
    assert answer.headers["x-content-type-options"] == "nosniff"
    assert answer.headers["referrer-policy"] == "no-referrer"
    assert answer.headers["x-frame-options"] == "DENY"


def test_every_answer_has_the_security_headers(client: TestClient) -> None:
    code, _token = create_table(client, [HUMAN, HUMAN])
    for path, status in [
        ("/", 200),
        (f"/t/{code}", 200),
        ("/static/app.js", 200),
        ("/static/style.css", 200),
        ("/rules/en", 200),
        ("/api/tables", 200),
        (f"/api/tables/{code}", 200),
        ("/healthz", 200),
        ("/no/such/page", 404),
        ("/t/ZZZZZZ", 404),
        ("/api/nothing", 404),
        ("/api/tables/ZZZZZZ", 404),
    ]:
        answer = client.get(path, follow_redirects=False)
        assert answer.status_code == status, path
        assert_security_headers(answer)
    policy = CONTENT_SECURITY_POLICY
    for directive in (
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "frame-ancestors 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "object-src 'none'",
    ):
        assert directive in policy
    assert "unsafe" not in policy
    assert_security_headers(client.post("/api/tables", json={"seats": "two"}))  # 422
    assert_security_headers(client.get("/rules", follow_redirects=False))  # 307


def test_an_unexpected_error_is_a_500_with_the_headers_and_no_traceback(
    make_client: MakeClient, caplog: pytest.LogCaptureFixture
) -> None:
    class BrokenStorage(MemoryStorage):
        def load_table(self, code: str) -> TableRecord | None:
            raise ZeroDivisionError("a bug")

    client = make_client(storage=BrokenStorage())
    with caplog.at_level(logging.ERROR):
        # The client raises what reaches the server (uvicorn, which would log the bug again
        # and drop the connection): the whole 500 went out, so nothing does.
        answer = client.get("/api/tables/ABCDEF")
    assert answer.status_code == 500 and error_code(answer) == "internal_error"
    assert "ZeroDivisionError" not in answer.text and "a bug" not in answer.text
    assert_security_headers(answer)
    logged = [record for record in caplog.records if record.exc_info]
    assert [record.getMessage() for record in logged] == ["unexpected error on /api/tables/ABCDEF"]
    assert client.get("/api/tables").status_code == 200  # and it goes on serving


def test_no_page_of_the_client_has_inline_script_or_style(client: TestClient) -> None:
    """The policy admits no inline script or style: the pages must not need any."""
    for path in ("/", "/rules/en", "/rules/de", "/rules/fr", "/no/such/page"):
        page = client.get(path).text.lower()
        assert "<style" not in page and "style=" not in page, path
        for script in page.split("<script")[1:]:
            assert "src=" in script.split(">")[0], path
        assert " onclick=" not in page and " onload=" not in page, path


def test_the_built_in_404_page_has_no_inline_style(make_client: MakeClient, tmp_path: Any) -> None:
    client = make_client(web_dir=tmp_path)  # no client app at all
    answer = client.get("/anything")
    assert answer.status_code == 404 and "Nothing here" in answer.text
    assert "<style" not in answer.text and "style=" not in answer.text
    assert_security_headers(answer)


# ---------------------------------------------------------------------------- bodies


def test_a_body_over_the_limit_is_refused_and_creates_nothing(client: TestClient) -> None:
    body = json.dumps({**TWO_HUMANS, "name": "Ana", "padding": "x" * 20 * 1024})
    answer = client.post("/api/tables", content=body, headers={"content-type": "application/json"})
    assert answer.status_code == 413 and error_code(answer) == "too_large"
    assert_security_headers(answer)
    assert client.get("/api/tables").json()["tables"] == []
    # A body just within the limit goes on to the route as before.
    small = client.post("/api/tables", json={**TWO_HUMANS, "name": "Ana"})
    assert small.status_code == 201


@pytest.mark.parametrize(
    "body",
    [b"{bad", b'{"name": "\xff\xfe"}', b'{"seats":' + b"[" * 5000 + b"]" * 5000 + b"}"],
    ids=["not JSON", "not UTF-8", "nested too deeply"],
)
def test_a_body_that_is_not_readable_json_is_422_and_creates_nothing(
    client: TestClient, body: bytes
) -> None:
    answer = client.post("/api/tables", content=body, headers={"content-type": "application/json"})
    assert answer.status_code == 422 and error_code(answer) == "bad_request"
    assert client.get("/api/tables").json()["tables"] == []


def test_a_chunked_body_over_the_limit_is_refused(
    client: TestClient,
) -> None:
    def chunks() -> Iterator[bytes]:
        for _ in range(1000):
            yield b" " * 1024

    answer = client.post(
        "/api/tables", content=chunks(), headers={"content-type": "application/json"}
    )
    assert "content-length" not in answer.request.headers
    assert answer.status_code == 413 and error_code(answer) == "too_large"
    assert client.get("/api/tables").json()["tables"] == []


def test_the_body_limit_stops_reading_at_the_limit() -> None:
    """The TestClient sends a body whole: here the middleware gets it chunk by chunk."""
    chunks_read = 0
    reached_app = False
    sent: list[Message] = []

    async def receive() -> Message:
        nonlocal chunks_read
        chunks_read += 1
        return {"type": "http.request", "body": b"x" * 1024, "more_body": True}  # endless

    async def send(message: Message) -> None:
        sent.append(message)

    async def app(scope: Scope, receive: Receive, send: Send) -> None:
        nonlocal reached_app
        reached_app = True

    scope = {"type": "http", "method": "POST", "path": "/api/tables", "headers": []}
    asyncio.run(BodyLimit(app, 16 * 1024)(scope, receive, send))
    assert chunks_read == 17 and not reached_app
    assert sent[0]["status"] == 413
    assert json.loads(sent[1]["body"])["error"]["code"] == "too_large"

    # A Content-Length over the limit: refused before a byte is read.
    chunks_read = 0
    declared = {**scope, "headers": [(b"content-length", b"1000000")]}
    asyncio.run(BodyLimit(app, 16 * 1024)(declared, receive, send))
    assert chunks_read == 0 and not reached_app and sent[2]["status"] == 413


def test_a_chunked_body_within_the_limit_is_read_whole(client: TestClient) -> None:
    body = json.dumps({**TWO_HUMANS, "name": "Ana"}).encode()

    def chunks() -> Iterator[bytes]:
        for start in range(0, len(body), 7):
            yield body[start : start + 7]

    answer = client.post(
        "/api/tables", content=chunks(), headers={"content-type": "application/json"}
    )
    assert answer.status_code == 201 and answer.json()["seat"] == 0


def test_the_body_limit_is_a_setting(make_client: MakeClient) -> None:
    client = make_client(max_body_bytes=100)
    answer = client.post("/api/tables", json={**TWO_HUMANS, "name": "A" * 100})
    assert answer.status_code == 413 and error_code(answer) == "too_large"


# ---------------------------------------------------------------------------- origins


def forbidden(client: TestClient, code: str, origin: str) -> None:
    with client.websocket_connect(f"/ws/{code}", headers={"origin": origin}) as ws:
        error = strict_json(ws.receive_text())
        assert error["type"] == "error" and error["code"] == "forbidden_origin", error
        assert error["request_id"] is None and error["message"]
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_text()
        assert closed.value.code == 4403


def welcomed(client: TestClient, code: str, origin: str | None) -> None:
    headers = {} if origin is None else {"origin": origin}
    with client.websocket_connect(f"/ws/{code}", headers=headers) as ws:
        assert ws.receive_json()["type"] == "state"


def test_a_socket_from_another_site_is_refused(client: TestClient) -> None:
    code, _token = create_table(client, [HUMAN, HUMAN])
    # The TestClient's server is http://testserver; its sockets are ws://testserver.
    forbidden(client, code, "https://evil.example")
    forbidden(client, code, "http://testserver.evil.example")
    forbidden(client, code, "http://testserver:8080")
    forbidden(client, code, "https://testserver")  # another scheme is another origin
    forbidden(client, code, "null")
    forbidden(client, code, "garbage")
    welcomed(client, code, "http://testserver")
    welcomed(client, code, "http://TestServer:80")
    welcomed(client, code, None)  # not a browser: no Origin header


def test_allowed_origins_may_open_sockets(make_client: MakeClient, monkeypatch: Any) -> None:
    monkeypatch.setenv(
        "NIMMT_ALLOWED_ORIGINS", "https://nimmt.example.org, https://play.example.org:8443"
    )
    client = make_client()
    code, _token = create_table(client, [HUMAN, HUMAN])
    welcomed(client, code, "https://nimmt.example.org")
    welcomed(client, code, "https://play.example.org:8443")
    welcomed(client, code, "http://testserver")
    forbidden(client, code, "http://nimmt.example.org")
    forbidden(client, code, "https://play.example.org")


def test_allowed_origins_from_the_environment_are_a_comma_separated_list(
    monkeypatch: Any,
) -> None:
    monkeypatch.setenv("NIMMT_ALLOWED_ORIGINS", " https://a.example ,https://b.example:8443,")
    assert Settings().allowed_origins == ["https://a.example", "https://b.example:8443"]
    monkeypatch.delenv("NIMMT_ALLOWED_ORIGINS")
    assert Settings().allowed_origins == []


# ------------------------------------------------------------------- paths, storage


@pytest.mark.parametrize(
    "path", ["/static/x%00.png", "/static/%00", "/static/" + "x" * 5000, "/static/a/../../x"]
)
def test_a_path_the_file_system_refuses_is_the_404_page(client: TestClient, path: str) -> None:
    answer = client.get(path)
    assert answer.status_code == 404
    assert answer.headers["content-type"].startswith("text/html")
    assert "Traceback" not in answer.text
    assert_security_headers(answer)


class RefusingStorage(MemoryStorage):
    """A database that will not store a new table."""

    def create_table(self, table: TableRecord) -> None:
        raise RuntimeError("the disk is full")


def test_a_database_refusing_a_new_table_is_a_503(make_client: MakeClient) -> None:
    client = make_client(storage=RefusingStorage())
    for body in (TWO_HUMANS, {**TWO_HUMANS, "name": "Ana"}):
        answer = client.post("/api/tables", json=body)
        assert answer.status_code == 503 and error_code(answer) == "storage_error"
        assert "disk is full" not in answer.text
    assert client.get("/api/tables").json()["tables"] == []


class RefusingAppends(MemoryStorage):
    """A database that stores new tables but no change to them."""

    def append(self, *args: Any, **kwargs: Any) -> None:
        raise RuntimeError("the disk is full")


def test_a_database_refusing_a_join_is_a_503(make_client: MakeClient) -> None:
    client = make_client(storage=RefusingAppends())
    answer = client.post("/api/tables", json=TWO_HUMANS)
    assert answer.status_code == 201
    code = answer.json()["code"]
    joined = client.post(f"/api/tables/{code}/join", json={"name": "Ben"})
    assert joined.status_code == 503 and error_code(joined) == "storage_error"
    assert not any(seat["occupied"] for seat in client.get(f"/api/tables/{code}").json()["seats"])


# --------------------------------------------------------------------------- the socket


@pytest.fixture
def seated(client: TestClient) -> Iterator[tuple[TestClient, str, WebSocketTestSession]]:
    """Ana and Ben at a dealt table; Ana's socket, her first state read."""
    code, ana = create_table(client, [HUMAN, HUMAN], "Ana")
    join(client, code, "Ben")
    with client.websocket_connect(f"/ws/{code}?token={ana}") as ws:
        receive_until(ws, lambda m: m["type"] == "state" and m["view"]["phase"] != "waiting")
        yield client, code, ws


def answer_to(ws: WebSocketTestSession, text: str) -> Any:
    """Send raw ``text``, then a ping; the error that came before the pong (strict JSON)."""
    ws.send_text(text)
    ws.send_text('{"type": "ping", "request_id": "after"}')
    answers = []
    while True:
        message = strict_json(ws.receive_text())
        if message["type"] == "pong":
            assert message["request_id"] == "after"
            break
        answers.append(message)
    errors = [message for message in answers if message["type"] == "error"]
    assert len(errors) == 1, answers
    return errors[0]


def test_deeply_nested_json_is_malformed(
    seated: tuple[TestClient, str, WebSocketTestSession],
) -> None:
    client, code, ws = seated
    before = snapshot(client, code)
    for text in ("[" * 4000, "[" * 2000 + "]" * 2000, '{"a":' * 600 + "1" + "}" * 600):
        error = answer_to(ws, text)
        assert error["code"] == "malformed" and error["request_id"] is None
    assert snapshot(client, code) == before


def test_deeply_nested_json_is_malformed_with_a_larger_message_limit(
    make_client: MakeClient,
) -> None:
    client = make_client(max_message_bytes=1_000_000)
    code, ana = create_table(client, [HUMAN, HUMAN], "Ana")
    with client.websocket_connect(f"/ws/{code}?token={ana}") as ws:
        assert ws.receive_json()["type"] == "state"
        assert answer_to(ws, "[" * 100_000)["code"] == "malformed"


def test_nan_and_infinity_are_malformed(
    seated: tuple[TestClient, str, WebSocketTestSession],
) -> None:
    client, code, ws = seated
    before = snapshot(client, code)
    for constant in ("NaN", "Infinity", "-Infinity"):
        error = answer_to(ws, f'{{"type": "play", "card": 5, "request_id": {constant}}}')
        assert error["code"] == "malformed" and error["request_id"] is None
        error = answer_to(ws, f'{{"type": "play", "card": {constant}}}')
        assert error["code"] == "malformed"
    assert snapshot(client, code) == before


@pytest.mark.parametrize(
    ("request_id", "echoed"),
    [
        ('"abc"', "abc"),
        ('"' + "r" * 64 + '"', "r" * 64),
        ('"' + "r" * 65 + '"', None),
        ("7", 7),
        ("-2.5", -2.5),
        ("true", None),
        ("null", None),
        ('{"a": 1}', None),
        ("[1]", None),
    ],
)
def test_a_request_id_is_echoed_only_when_it_is_a_short_string_or_a_finite_number(
    seated: tuple[TestClient, str, WebSocketTestSession], request_id: str, echoed: object
) -> None:
    _client, _code, ws = seated
    error = answer_to(ws, f'{{"type": "cheat", "request_id": {request_id}}}')
    assert error["code"] == "unknown_type" and error["request_id"] == echoed


def test_a_number_beyond_a_double_makes_the_message_malformed(
    seated: tuple[TestClient, str, WebSocketTestSession],
) -> None:
    _client, _code, ws = seated
    error = answer_to(ws, '{"type": "ping", "request_id": 1e999}')
    assert error["code"] == "malformed" and error["request_id"] is None


def test_a_socket_message_over_the_limit_is_too_large(
    seated: tuple[TestClient, str, WebSocketTestSession],
) -> None:
    client, code, ws = seated
    before = snapshot(client, code)
    hand = before["views"][1]["hand"]
    padded = json.dumps({"type": "play", "card": hand[0], "padding": "x" * 4096})
    error = answer_to(ws, padded)
    assert error["code"] == "too_large" and error["request_id"] is None
    ws.send_bytes(padded.encode())
    ws.send_text('{"type": "ping"}')
    assert strict_json(ws.receive_text())["code"] == "too_large"
    assert strict_json(ws.receive_text())["type"] == "pong"
    assert snapshot(client, code) == before
    # The same action within the limit is taken.
    ws.send_json({"type": "play", "card": hand[0]})
    state = receive_until(ws, lambda m: m["type"] == "state" and m["view"]["chosen_card"])
    assert state["view"]["chosen_card"] == hand[0]


def test_the_socket_message_limit_counts_bytes_not_characters(make_client: MakeClient) -> None:
    client = make_client(max_message_bytes=100)
    code, _token = create_table(client, [HUMAN, HUMAN])
    with client.websocket_connect(f"/ws/{code}") as ws:
        assert ws.receive_json()["type"] == "state"
        text = json.dumps({"type": "ping", "request_id": "ü" * 40}, ensure_ascii=False)
        assert len(text) < 100 < len(text.encode())
        assert answer_to(ws, text)["code"] == "too_large"


# ---------------------------------------------------------------------------- the quota


class ClientFromHeader:
    """Test wiring: the client address of each request from its ``x-test-client`` header (as a
    trusted proxy's forwarded address would be), so one TestClient can be several people."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            for name, value in scope["headers"]:
                if name == b"x-test-client":
                    scope = {**scope, "client": (value.decode(), 1234)}
        await self.app(scope, receive, send)


@pytest.fixture
def crowd() -> Iterator[TestClient]:
    app = create_app(
        Settings(bot_delay=0.0, db="sqlite://", allowed_hosts=["testserver"]),
        storage=MemoryStorage(),
    )
    with TestClient(ClientFromHeader(app)) as client:
        yield client


def create_from(client: TestClient, address: str) -> Any:
    return client.post("/api/tables", json=TWO_HUMANS, headers={"x-test-client": address})


def test_one_address_may_create_20_tables_per_window(crowd: TestClient) -> None:
    for _ in range(20):
        assert create_from(crowd, "1.2.3.4").status_code == 201
    refused = create_from(crowd, "1.2.3.4")
    assert refused.status_code == 429 and error_code(refused) == "quota_exceeded"
    assert 1 <= int(refused.headers["retry-after"]) <= 600
    assert_security_headers(refused)
    assert len(crowd.get("/api/tables").json()["tables"]) == 20
    # Somebody else is not held up.
    assert create_from(crowd, "5.6.7.8").status_code == 201


def test_refused_tables_do_not_count(crowd: TestClient) -> None:
    for _ in range(25):
        answer = crowd.post(
            "/api/tables", json={"seats": [HUMAN]}, headers={"x-test-client": "1.2.3.4"}
        )
        assert answer.status_code == 422
    assert create_from(crowd, "1.2.3.4").status_code == 201


def test_the_quota_is_a_setting_keyed_on_the_client_address(make_client: MakeClient) -> None:
    client = make_client(create_quota=2)
    assert client.post("/api/tables", json=TWO_HUMANS).status_code == 201
    assert client.post("/api/tables", json=TWO_HUMANS).status_code == 201
    assert client.post("/api/tables", json=TWO_HUMANS).status_code == 429
    quota: CreationQuota = client.app.state.create_quota  # type: ignore[attr-defined]
    assert set(quota._times) == {"testclient"}  # the TestClient's address


def test_the_window_slides() -> None:
    now = [1000.0]
    quota = CreationQuota(limit=3, window=60, clock=lambda: now[0])
    for second in (0, 10, 20):
        now[0] = 1000.0 + second
        quota.acquire("a")
    now[0] = 1030.0
    with pytest.raises(QuotaExceededError) as refused:
        quota.acquire("a")
    assert refused.value.retry_after == 30  # the first creation leaves the window at 1060
    assert refused.value.status == 429 and refused.value.code == "quota_exceeded"
    quota.acquire("b")
    now[0] = 1060.0
    quota.acquire("a")  # the first one has left the window
    with pytest.raises(QuotaExceededError) as refused:
        quota.acquire("a")
    assert refused.value.retry_after == 10
    stamp = quota.acquire("c")
    quota.release("c", stamp)
    now[0] = 2000.0
    quota.acquire("d")  # a sweep: every key without a creation in the window is forgotten
    assert set(quota._times) == {"d"}
