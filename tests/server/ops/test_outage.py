"""A database outage, as an operator sees it: a real ``nimmt serve`` on a throwaway PostgreSQL
that is stopped mid-test. Every route that reads or writes the database answers 503
``storage_error`` (never 500), each failure is one JSON log line and no traceback, ``/readyz``
says the database fails while ``/healthz`` still answers, and all is well once it is back."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from tests.server.server_helpers import http, start_server, stop_server

import throwaway

SEATS = [{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "bot": "greedy"}]


def request(
    method: str, url: str, body: dict[str, Any] | None = None, request_id: str | None = None
) -> tuple[int, Any]:
    """One request: its status and JSON answer (errors too)."""
    headers = {"Content-Type": "application/json"}
    if request_id is not None:
        headers["X-Request-ID"] = request_id
    data = json.dumps(body).encode() if body is not None else None
    prepared = urllib.request.Request(url, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(prepared, timeout=30) as answer:
            return answer.status, json.loads(answer.read() or b"null")
    except urllib.error.HTTPError as error:
        text = error.read()
        try:
            return error.code, json.loads(text)
        except ValueError:
            return error.code, text.decode()


def log_lines(log: Path) -> list[dict[str, Any]]:
    """The server's log as JSON objects (every line must be one); its own start-up line aside."""
    entries = []
    for line in log.read_text().splitlines():
        if line.startswith("nimmt: serving on"):
            continue
        entry = json.loads(line)
        assert {"ts", "level", "msg"} <= entry.keys(), line
        entries.append(entry)
    return entries


def test_every_database_route_answers_503_while_postgresql_is_down(
    postgres_cluster: throwaway.Postgres, tmp_path: Path
) -> None:
    log = tmp_path / "serve.log"
    served = start_server(
        postgres_cluster.url, log, env={"NIMMT_LOG_FORMAT": "json", "NIMMT_BOT_PROCESSES": "0"}
    )
    try:
        base = served.http
        created = http("POST", f"{base}/api/tables", {"seats": SEATS, "name": "Ana"})
        code, token = created["code"], created["token"]
        assert request("GET", f"{base}/readyz")[0] == 200
        routes: list[tuple[str, str, dict[str, Any] | None]] = [
            ("GET", "/api/tables", None),
            ("GET", f"/api/tables/{code}", None),
            ("POST", "/api/tables", {"seats": SEATS, "name": "Cleo"}),
            ("POST", f"/api/tables/{code}/join", {"name": "Ben"}),
            ("GET", f"/api/tables/{code}/record", None),
            ("POST", f"/api/tables/{code}/leave", {"token": token}),
            ("POST", "/api/assisted", {"names": ["Ana", "Ben"]}),
            ("GET", "/api/tables/ZZZZZZ", None),  # a table this process does not hold
            ("GET", f"/t/{code}", None),
        ]
        before = len(log_lines(log))

        postgres_cluster.stop()
        try:
            status, answer = request("GET", f"{base}/readyz")
            assert (status, answer) == (503, {"status": "unready", "failing": ["database"]})
            assert request("GET", f"{base}/healthz") == (200, {"status": "ok"})
            for number, (method, path, body) in enumerate(routes):
                status, answer = request(method, base + path, body, request_id=f"outage-{number}")
                assert status == 503, (path, status, answer)
                assert answer["error"]["code"] == "storage_error", (path, answer)
        finally:
            postgres_cluster.start()

        entries = log_lines(log)[before:]
        assert not any("Traceback" in json.dumps(entry) for entry in entries)
        for number, (_method, path, _body) in enumerate(routes):
            failures = [
                entry
                for entry in entries
                if entry.get("request_id") == f"outage-{number}"
                and entry["level"] in ("warning", "error")
            ]
            assert len(failures) == 1, (path, failures)
        assert any(entry.get("table") == code for entry in entries)

        # Back: ready again (once the failed writes are some seconds old: readiness.py), and
        # the table answers as it was.
        deadline = time.monotonic() + 60
        while request("GET", f"{base}/readyz")[0] != 200:
            assert time.monotonic() < deadline, "never ready again"
            time.sleep(0.5)
        assert request("GET", f"{base}/api/tables/{code}")[0] == 200
        assert request("GET", f"{base}/api/tables")[0] == 200
    finally:
        stop_server(served)
