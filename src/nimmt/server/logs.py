"""The server's log lines: plain text or one JSON object a line (``NIMMT_LOG_FORMAT=json``).

Every line has a timestamp, a level and a message, and says which table and which request it
concerns where that is known: :class:`RequestContext` gives each HTTP request and socket a
request id (the client's ``X-Request-ID`` when it sends a short one, else a fresh one, echoed in
the answer) and notes the table code of its path; every line logged while it is handled carries
both, uvicorn's own lines too (:func:`uvicorn_log_config` formats them the same way).

A database outage is not a bug: its failures are logged as one line without the traceback,
whatever logged them (:func:`outage_error`). In JSON mode no line ever spans several lines: a
real bug's traceback goes in the ``exc`` field, one JSON string.
"""

from __future__ import annotations

import contextvars
import json
import logging
import re
import secrets
import traceback
from datetime import UTC, datetime
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from nimmt.server.errors import ServiceError
from nimmt.server.storage import StorageError

REQUEST_ID: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "nimmt_request_id", default=None
)
TABLE: contextvars.ContextVar[str | None] = contextvars.ContextVar("nimmt_table", default=None)

TABLE_IN_PATH = re.compile(r"^/(?:api/tables|ws|t|tv|api/assisted)/([A-Za-z0-9]{4,8})(?:/|$)")
TABLE_IN_MESSAGE = re.compile(r"\btable ([A-Z0-9]{4,8})\b")
"""The project's own lines name their table as ``table CODE``."""
GOOD_REQUEST_ID = re.compile(r"^[A-Za-z0-9._:-]{1,64}$")
PLAIN_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
FORMATS = ("plain", "json")


def outage_error(error: BaseException | None) -> BaseException | None:
    """The database failure behind ``error`` (itself or a cause), if it is one."""
    seen = 0
    while error is not None and seen < 10:
        if isinstance(error, StorageError):
            return error
        if isinstance(error, ServiceError) and error.code == "storage_error":
            return error
        if type(error).__module__.startswith(("sqlalchemy", "psycopg", "sqlite3")):
            return error
        error = error.__cause__ or error.__context__
        seen += 1
    return None


def _one_line(error: BaseException) -> str:
    text = str(error).strip() or type(error).__name__
    return f"{type(error).__name__}: {text.splitlines()[0][:300]}"


def table_of(record: logging.LogRecord) -> str | None:
    """The table a line concerns: given (``extra={"table": ...}``), the one being handled, or
    the one its message names."""
    given = getattr(record, "table", None)
    if isinstance(given, str):
        return given
    current = TABLE.get()
    if current is not None:
        return current
    found = TABLE_IN_MESSAGE.search(record.getMessage())
    return found.group(1) if found else None


class PlainFormatter(logging.Formatter):
    """``2026-01-31 12:00:00,123 INFO nimmt.server.book: message [table ABCD] [req 1f2e]``; an
    outage's failure without its traceback."""

    def __init__(self) -> None:
        super().__init__(PLAIN_FORMAT)

    def format(self, record: logging.LogRecord) -> str:
        outage = outage_error(record.exc_info[1]) if record.exc_info else None
        if outage is not None:
            record = logging.makeLogRecord(
                {**record.__dict__, "exc_info": None, "exc_text": None,
                 "msg": f"{record.getMessage()} ({_one_line(outage)})", "args": ()}
            )  # fmt: skip
        line = super().format(record)
        request = REQUEST_ID.get()
        table = table_of(record)
        if table is not None and f"table {table}" not in line:
            line += f" [table {table}]"
        if request is not None:
            line += f" [req {request}]"
        return line


class JsonFormatter(logging.Formatter):
    """One JSON object a line: ``ts`` (UTC, ISO 8601), ``level``, ``msg``, ``logger``, and
    ``table``, ``request_id``, ``exc`` where there is one."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "msg": record.getMessage(),
            "logger": record.name,
        }
        table = table_of(record)
        if table is not None:
            entry["table"] = table
        request = REQUEST_ID.get()
        if request is not None:
            entry["request_id"] = request
        if record.exc_info and record.exc_info[1] is not None:
            outage = outage_error(record.exc_info[1])
            if outage is not None:
                entry["error"] = _one_line(outage)
            else:
                entry["error"] = _one_line(record.exc_info[1])
                entry["exc"] = "".join(traceback.format_exception(*record.exc_info))
        return json.dumps(entry, ensure_ascii=False, default=str)


def formatter(log_format: str) -> logging.Formatter:
    return JsonFormatter() if log_format == "json" else PlainFormatter()


def uvicorn_log_config(log_format: str, level: str = "INFO") -> dict[str, Any]:
    """A :func:`logging.config.dictConfig` for ``uvicorn.run(log_config=...)``: uvicorn's lines
    and the server's own, all on standard error in ``log_format``."""
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"nimmt": {"()": formatter, "log_format": log_format}},
        "handlers": {
            "stderr": {
                "class": "logging.StreamHandler",
                "formatter": "nimmt",
                "stream": "ext://sys.stderr",
            }
        },
        "loggers": {
            "uvicorn": {"handlers": ["stderr"], "level": level, "propagate": False},
            "uvicorn.error": {"level": level},
            "uvicorn.access": {"handlers": ["stderr"], "level": level, "propagate": False},
        },
        "root": {"handlers": ["stderr"], "level": level},
    }


class RequestContext:
    """Plain ASGI: each HTTP request and socket gets a request id (echoed as ``X-Request-ID``)
    and notes its table code, for every line logged while it is handled."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        request_id = None
        for name, value in scope.get("headers", ()):
            if name == b"x-request-id":
                text = value.decode("latin-1")
                request_id = text if GOOD_REQUEST_ID.match(text) else None
        request_id = request_id or secrets.token_hex(6)
        found = TABLE_IN_PATH.match(scope.get("path", ""))
        request_token = REQUEST_ID.set(request_id)
        table_token = TABLE.set(found.group(1).upper() if found else None)
        header = (b"x-request-id", request_id.encode())
        answered = False

        async def send_with_id(message: Message) -> None:
            nonlocal answered
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", ()), header]}
            await send(message)
            if message["type"] == "http.response.body" and not message.get("more_body"):
                answered = True

        try:
            # A socket's frames go out as they are (its handshake carries no request id).
            await self.app(scope, receive, send_with_id if scope["type"] == "http" else send)
        except Exception:
            if not answered:
                raise
            # A bug after its whole answer went out: the app's handler logged it and answered
            # 500 (Starlette raises it again all the same). Raised on, uvicorn would log it a
            # second time and drop the connection that a client may keep using.
        finally:
            REQUEST_ID.reset(request_token)
            TABLE.reset(table_token)
