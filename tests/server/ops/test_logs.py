"""The log lines (``NIMMT_LOG_FORMAT``): one JSON object a line with ``ts``, ``level``, ``msg``,
the table and the request id where known; a bug's traceback inside the line, an outage's
failure without one; the plain format with a timestamp too. (A real ``nimmt serve`` writing
JSON, uvicorn's lines included, is in test_outage.py.)"""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Callable

import pytest
from starlette.testclient import TestClient
from tests.server.server_helpers import create_table

from nimmt.server.errors import ServiceError
from nimmt.server.logs import JsonFormatter, PlainFormatter, uvicorn_log_config
from nimmt.server.storage import StorageError


def emit(log_format: str, build: Callable[[logging.Logger], None]) -> list[str]:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter() if log_format == "json" else PlainFormatter())
    logger = logging.getLogger("test.logs.emit")
    logger.addHandler(handler)
    logger.propagate = False
    try:
        build(logger)
    finally:
        logger.removeHandler(handler)
    return stream.getvalue().splitlines()


def test_a_json_line_holds_a_bug_s_traceback_in_one_line() -> None:
    def log_a_bug(logger: logging.Logger) -> None:
        try:
            raise KeyError("seat")
        except KeyError:
            logger.exception("table ABCDEF: something broke")

    (line,) = emit("json", log_a_bug)
    entry = json.loads(line)
    assert entry["level"] == "error" and entry["msg"] == "table ABCDEF: something broke"
    assert entry["table"] == "ABCDEF"
    assert entry["error"] == "KeyError: 'seat'"
    assert "Traceback" in entry["exc"]
    assert entry["ts"].endswith("+00:00")


@pytest.mark.parametrize("log_format", ["json", "plain"])
def test_an_outage_is_one_line_without_a_traceback(log_format: str) -> None:
    def log_an_outage(logger: logging.Logger) -> None:
        try:
            try:
                raise StorageError("the database failed: connection refused\n  (details)")
            except StorageError as error:
                raise ServiceError("storage_error", "cannot reach it", 503) from error
        except ServiceError:
            logger.exception("housekeeping failed; trying again")

    lines = emit(log_format, log_an_outage)
    assert len(lines) == 1, lines
    assert "Traceback" not in lines[0]
    if log_format == "json":
        entry = json.loads(lines[0])
        assert "exc" not in entry and entry["error"].startswith("ServiceError")
    else:
        assert lines[0][:4].isdigit()  # a timestamp first
        assert "housekeeping failed; trying again (ServiceError: cannot reach it)" in lines[0]


def test_a_request_s_lines_carry_its_id_and_table(
    make_client: Callable[..., TestClient],
) -> None:
    client = make_client()
    code, _token = create_table(client, [{"kind": "human"}, {"kind": "bot", "bot": "greedy"}])
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter())
    logger = logging.getLogger("nimmt.server.app")
    logger.addHandler(handler)
    try:
        # Any line logged while a request is handled: here the storage failure's warning.
        service = client.app.state.service  # type: ignore[attr-defined]

        def failing(*_args: object) -> None:
            raise StorageError("the database failed: gone")

        original = service.storage.table_version
        service.storage.table_version = failing
        try:
            answer = client.get(f"/api/tables/{code}", headers={"X-Request-ID": "abc-123"})
        finally:
            service.storage.table_version = original
    finally:
        logger.removeHandler(handler)
    assert answer.status_code == 503 and answer.json()["error"]["code"] == "storage_error"
    assert answer.headers["x-request-id"] == "abc-123"
    (line,) = stream.getvalue().splitlines()
    entry = json.loads(line)
    assert entry["request_id"] == "abc-123" and entry["table"] == code
    assert entry["level"] == "warning" and "gone" in entry["msg"]
    # A request id that could forge log fields is replaced by one of the server's.
    fresh = client.get("/healthz", headers={"X-Request-ID": 'x" "level": "error'})
    assert fresh.headers["x-request-id"].isalnum()


def test_uvicorn_is_configured_in_the_same_format() -> None:
    config = uvicorn_log_config("json")
    assert config["formatters"]["nimmt"]["log_format"] == "json"
    for name in ("uvicorn", "uvicorn.access"):
        assert config["loggers"][name]["handlers"] == ["stderr"]
    assert config["root"]["handlers"] == ["stderr"]
