"""Fixtures of the browser tests: the real ``nimmt serve`` in a subprocess, and Debian's Chromium
driven through Playwright's sync API (which cannot run inside an asyncio loop, hence the
subprocess rather than an in-process app).

The server runs with ``NIMMT_BOT_DELAY=0`` (bots answer at once) and a fixed ``NIMMT_DEAL_SEED``
(the test-only option of the server's settings), so every game these tests play is the same.
Pages start with the animation speed at 4x (``nimmt.speed`` in localStorage), the fastest a
person can choose, so the card-by-card resolution is still drawn but quickly.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_helpers import Server

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
DEAL_SEED = 11
"""With this seed, two people who always play their lowest card meet a row choice in round 1."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    if CHROMIUM.exists():
        return
    skip = pytest.mark.skip(
        reason=f"{CHROMIUM} is missing: install Debian's Chromium (apt-get install chromium) "
        "to run the browser tests; scripts/test.sh does this itself"
    )
    for item in items:
        if item.get_closest_marker("browser") is not None:
            item.add_marker(skip)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is missing")
    port = _free_port()
    db = tmp_path_factory.mktemp("browser-db") / "games.db"
    env = {**os.environ, "NIMMT_BOT_DELAY": "0", "NIMMT_DEAL_SEED": str(DEAL_SEED)}
    log = (tmp_path_factory.mktemp("browser-log") / "server.log").open("w")
    command = [sys.executable, "-c", "from nimmt.cli import main; main()", "serve"]
    command += ["--port", str(port), "--db", f"sqlite:///{db}"]
    process = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT)
    base_url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        if process.poll() is not None:
            raise RuntimeError(f"nimmt serve exited with status {process.returncode}")
        try:
            with urllib.request.urlopen(base_url + "/healthz", timeout=2) as response:
                if json.loads(response.read()) == {"status": "ok"}:
                    break
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        if time.monotonic() > deadline:
            process.kill()
            raise RuntimeError("nimmt serve did not answer /healthz within 60 s")
        time.sleep(0.2)
    yield Server(base_url)
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
    log.close()


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def new_page(browser: Any, server: Server) -> Iterator[Callable[..., Any]]:
    """``new_page(locale="en-US", **context_options)``: a page in a fresh browser context (its
    own localStorage: one person), fast animations, and page errors collected to fail the test."""
    contexts: list[Any] = []
    errors: list[str] = []

    def make(locale: str = "en-US", **options: Any) -> Any:
        options.setdefault("viewport", {"width": 1280, "height": 900})
        context = browser.new_context(locale=locale, base_url=server.base_url, **options)
        context.add_init_script("localStorage.setItem('nimmt.speed', '4')")
        context.set_default_timeout(15000)
        contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        return page

    yield make
    for context in contexts:
        context.close()
    assert errors == [], f"JavaScript errors in the page: {errors}"
