"""Slow and many clients against a real ``nimmt serve`` that may hold only 256 files (as under
``ulimit -n 256``): 300 connections that send a header line now and then do not stop
``/healthz`` from answering, each is closed after the header timeout, and the ``Host`` rule holds
on a real socket too."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import resource
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest
import websockets
from tests.server.server_helpers import FAST_ENV, NIMMT, Served, stop_server, wait_ready

from throwaway import free_port

SLOW_CLIENTS = 300
FILE_LIMIT = 256


def _low_file_limit() -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (FILE_LIMIT, FILE_LIMIT))


def serve_with_few_files(tmp_path: Path, **env: str) -> Served:
    port = free_port()
    log = tmp_path / "serve.log"
    environment = {**os.environ, **FAST_ENV, "NIMMT_HEADER_TIMEOUT": "3", **env}
    command = [str(NIMMT), "serve", "--port", str(port), "--db", f"sqlite:///{tmp_path}/t.db"]
    with log.open("ab") as out:
        process = subprocess.Popen(
            command, stdout=out, stderr=subprocess.STDOUT, env=environment,
            preexec_fn=_low_file_limit,
        )  # fmt: skip
    served = Served(process, port, log)
    wait_ready(served)
    return served


def healthz(port: int) -> int:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=10) as answer:
        assert json.loads(answer.read()) == {"status": "ok"}
        return int(answer.status)


async def slow_client(port: int, closed: list[float], started: asyncio.Event) -> None:
    """A request whose headers come one line every second, until the server closes it."""
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
    except OSError:
        closed.append(time.monotonic())  # not even let in: as good as closed
        return
    started.set()
    try:
        writer.write(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        for line in range(120):
            await writer.drain()
            with contextlib.suppress(TimeoutError):
                if await asyncio.wait_for(reader.read(1024), 1.0) == b"":
                    break
            writer.write(f"X-Slow-{line}: still here\r\n".encode())
    except OSError:
        pass
    closed.append(time.monotonic())
    writer.close()


@pytest.mark.slow
def test_300_slow_clients_under_a_256_file_limit(tmp_path: Path) -> None:
    served = serve_with_few_files(tmp_path)
    try:
        pid_files = Path(f"/proc/{served.process.pid}/limits").read_text()
        assert f"Max open files            {FILE_LIMIT}" in pid_files

        async def scenario() -> tuple[list[float], list[int]]:
            closed: list[float] = []
            started = asyncio.Event()
            clients = [
                asyncio.create_task(slow_client(served.port, closed, started))
                for _ in range(SLOW_CLIENTS)
            ]
            await started.wait()
            await asyncio.sleep(1)  # let them all be connected and sending slowly
            answers = [await asyncio.to_thread(healthz, served.port) for _ in range(5)]
            await asyncio.wait_for(asyncio.gather(*clients), 90)
            return closed, answers

        closed, answers = asyncio.run(scenario())
        assert answers == [200] * 5
        assert len(closed) == SLOW_CLIENTS  # every one closed by the server, none held
        assert healthz(served.port) == 200
        assert "Traceback" not in served.log.read_text()
    finally:
        stop_server(served)


def test_the_host_rule_on_a_real_socket(tmp_path: Path) -> None:
    served = serve_with_few_files(tmp_path, NIMMT_ALLOWED_HOSTS="nimmt.example.org")

    async def try_socket(host: str) -> int | None:
        # The name in the URL (so in Host), the connection to the server's address.
        url = f"ws://{host}:{served.port}/ws/ABCDEF"
        origin = websockets.Origin(f"http://{host}:{served.port}")
        try:
            async with websockets.connect(
                url, origin=origin, proxy=None, host="127.0.0.1", port=served.port
            ) as ws:
                while True:
                    await ws.recv()
        except websockets.InvalidStatus as refused:
            return refused.response.status_code
        except websockets.ConnectionClosed as closed:
            return closed.rcvd.code if closed.rcvd is not None else None
        return None

    try:
        # The shape of DNS rebinding: Host and Origin both the attacker's name.
        assert asyncio.run(try_socket("evil.example")) == 403
        # An allowed name passes the Host rule (and then hears there is no such table).
        assert asyncio.run(try_socket("nimmt.example.org")) == 4404
        request = urllib.request.Request(
            f"http://127.0.0.1:{served.port}/api/tables", headers={"Host": "evil.example"}
        )
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=10)
        assert refused.value.code == 400
        assert json.loads(refused.value.read())["error"]["code"] == "bad_host"
    finally:
        stop_server(served)


def _raw_request(port: int, request: bytes) -> bytes:
    """``request`` written in one go on a fresh connection; what the server answers, whole."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as connection:
        connection.sendall(request)
        answer = b""
        while chunk := connection.recv(65536):
            answer += chunk
    return answer


def test_the_header_limit_counts_headers_not_the_body_read_with_them(tmp_path: Path) -> None:
    served = serve_with_few_files(tmp_path)
    host = f"127.0.0.1:{served.port}"
    try:
        # A record of 40 KB (under the replay's 256 KiB) sent with its headers in one write:
        # the server reads it, finds it no game record, and says so.
        body = json.dumps({"format": "6nimmt-record", "padding": "x" * 40_000}).encode()
        head = (
            f"POST /api/replay HTTP/1.1\r\nHost: {host}\r\nOrigin: http://{host}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
            "Connection: close\r\n\r\n"
        )
        answer = _raw_request(served.port, head.encode() + body)
        status_line, _, rest = answer.partition(b"\r\n")
        assert status_line == b"HTTP/1.1 422 Unprocessable Entity"
        assert json.loads(rest.partition(b"\r\n\r\n")[2])["error"]["code"] == "bad_record"
        # Headers themselves over 32 KiB are still refused.
        flood = f"GET /healthz HTTP/1.1\r\nHost: {host}\r\nX-Pad: {'y' * 40_000}\r\n\r\n"
        assert _raw_request(served.port, flood.encode()).startswith(b"HTTP/1.1 431 ")
        assert healthz(served.port) == 200
        assert "Traceback" not in served.log.read_text()
    finally:
        stop_server(served)
