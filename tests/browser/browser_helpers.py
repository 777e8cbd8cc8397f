"""Helpers shared by the browser tests: the running server's address and its JSON API."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from tests.waiting import wait_until

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
"""Debian's Chromium as root on a machine whose only network is the package registries."""
DEAL_SEED = 11
"""With this seed, two people who always play their lowest card meet a row choice in round 1."""


def start_server(db: Path, log: Path, port: int) -> tuple[subprocess.Popen[bytes], str]:
    """Start ``nimmt serve`` (bots without delay, the fixed deal seed) and wait for /healthz."""
    env = {**os.environ, "NIMMT_BOT_DELAY": "0", "NIMMT_DEAL_SEED": str(DEAL_SEED)}
    # One server serves every browser test of a worker, all from one address: the quota of
    # tables per address (tested in the server's own tests) must not end the suite's run.
    env["NIMMT_CREATE_QUOTA"] = "100000"
    command = [sys.executable, "-c", "from nimmt.cli import main; main()", "serve"]
    command += ["--port", str(port), "--db", f"sqlite:///{db}"]
    with log.open("ab") as output:
        process = subprocess.Popen(command, env=env, stdout=output, stderr=subprocess.STDOUT)
    base_url = f"http://127.0.0.1:{port}"

    def healthy() -> bool:
        if process.poll() is not None:
            raise RuntimeError(f"nimmt serve exited with status {process.returncode}: see {log}")
        try:
            with urllib.request.urlopen(base_url + "/healthz", timeout=2) as response:
                return bool(json.loads(response.read()) == {"status": "ok"})
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            return False

    try:
        wait_until(healthy, timeout=60, interval=0.2, message="nimmt serve did not answer /healthz")
    except AssertionError:
        process.kill()
        raise
    return process, base_url


def stop_server(process: subprocess.Popen[bytes]) -> None:
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


class Server:
    """A running ``nimmt serve`` and small helpers to talk to its JSON API."""

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url

    def api(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            self.base_url + path,
            data=data,
            method=method,
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.loads(response.read())


def open_table_as(page: Any, name: str) -> str:
    """``name`` opens a table for two people and a greedy bot from the start page; its code."""
    page.goto("/")
    page.fill("#player-name", name)
    page.click("#remove-seat")
    page.select_option("#seat-2", "greedy")
    page.click("#create-table")
    page.wait_for_url(re.compile(r"/t/[A-HJ-NP-Z2-9]{6}$"))
    code: str = page.url.rsplit("/", 1)[1]
    return code


def play_to_the_end(
    server: Server, new_page: Any, done: str, name: str = "Ana", **page_options: Any
) -> tuple[Any, str]:
    """Ana (or ``name``) against three greedy bots, playing her lowest card and taking the
    dearest row, until ``done`` (a selector) shows: the game is over after a few rounds, with
    costly decisions. Her page (``new_page(**page_options)``) and the table's code."""
    import contextlib

    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
    from playwright.sync_api import expect

    made = server.api(
        "POST",
        "/api/tables",
        {"seats": [{"kind": "human"}] + [{"kind": "bot", "bot": "greedy"}] * 3, "name": name},
    )
    code = made["code"]
    ana = new_page(**page_options)
    ana.goto("/")
    ana.evaluate(f"localStorage.setItem('nimmt.token.{code}', {json.dumps(made['token'])})")
    ana.goto(f"/t/{code}")
    expect(ana.locator(".hand .card")).to_have_count(10)

    # A game takes about a minute on an idle machine, two and more on a busy shared one.
    deadline = time.monotonic() + 300
    while not ana.locator(done).count():
        assert time.monotonic() < deadline, "the game did not end within 300 s"
        with contextlib.suppress(PlaywrightTimeoutError):
            if ana.locator("#sheet-continue").count():
                ana.locator("#sheet-continue").click(timeout=1000)
            elif ana.locator(".rows.choosing").count():
                totals = ana.locator(".rows.choosing .row-total-number").all_inner_texts()
                if len(totals) == 4:  # else the page redrew between the look and the read
                    dearest = max(range(4), key=lambda row: int(totals[row]))
                    ana.locator(f'.row[data-row="{dearest}"]').click(timeout=1000)
            elif (
                ana.locator(".hand:not(.idle) .card").count()
                and not ana.locator(".hand .card.lifted").count()
            ):
                ana.locator(".hand:not(.idle) .card").first.click(timeout=1000)
        time.sleep(0.05)  # a poll of the page, not a timing assertion
    return ana, code


UNTITLED = """() => [...document.querySelectorAll("body *")].filter((el) => {
  // Every text that can be cut short with an ellipsis has a tooltip (its own title, or its
  // label's around it) to read it whole; unless it cannot be pointed at (a passing speech
  // bubble, whose words the talk's log keeps).
  const style = getComputedStyle(el);
  if (style.textOverflow !== "ellipsis" || !el.textContent.trim()) return false;
  if (style.pointerEvents === "none" || !el.getClientRects().length) return false;
  return !el.closest("[title]")?.title;
}).map((el) => `${el.className}: ${el.textContent.trim()}`)"""
"""The elements whose text an ellipsis may cut short and no tooltip holds (none, on any page)."""
