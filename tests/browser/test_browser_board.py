"""The board view for a TV: the rows, the names and who is still thinking, a QR code of the
table's link, a whole game followed to its final sheet, and never a hand in what its socket
receives."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from typing import Any

import pytest
from playwright.sync_api import expect
from tests.browser.browser_helpers import Server

pytestmark = pytest.mark.browser

SEATS = [{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "bot": "greedy"}]


def test_the_board_shows_rows_names_and_a_qr_code_and_receives_no_hand(
    server: Server, new_page: Any
) -> None:
    made = server.api("POST", "/api/tables", {"seats": SEATS, "name": "Ana"})
    code = made["code"]
    page = new_page(viewport={"width": 1920, "height": 1080})
    frames: list[str] = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda frame: frames.append(frame)))
    page.goto(f"/t/{code}/board")

    # Before the deal: the seats, the free one inviting through the QR code.
    expect(page.locator(".board-page .seat")).to_have_count(3)
    expect(page.locator(".board-join")).to_contain_text("Scan to join: 1 seat is free")
    expect(page.locator(".board-join")).to_contain_text(f"/t/{code}")
    qr = page.locator(".board-join img")
    expect(qr).to_have_attribute("src", f"/t/{code}/qr.svg")
    page.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=qr.element_handle())
    expect(page.locator(".site-header")).to_be_hidden()

    # Ben sits down: the cards are dealt; both people are thinking, the rows are out.
    ben = server.api("POST", f"/api/tables/{code}/join", {"name": "Ben"})["token"]
    expect(page.locator(".board-page .rows .row")).to_have_count(4)
    expect(page.locator(".board-page .rows .slot .card")).to_have_count(4)
    for name in ("Ana", "Ben", "Bot 3 (greedy)"):
        expect(page.locator(".board-page .seat-name-text", has_text=name)).to_have_count(1)
    # (Neither has a page open: the board says so, and marks them as still to choose.)
    for seat in (0, 1):
        expect(page.locator(f'.board-page .seat[data-seat="{seat}"]')).to_have_class(
            re.compile(r"\bstate-thinking\b")
        )
    expect(page.locator(".board-join")).to_contain_text("Scan to follow the game on your phone")
    expect(page.locator(".hand, .hand-area")).to_have_count(0)

    # Both seats played to the end by bots from outside: the board follows to the final sheet.
    players = [
        subprocess.Popen(
            [
                sys.executable,
                "-c",
                "from nimmt.cli import main; main()",
                "bot",
                f"{server.base_url}/t/{code}",
                "--bot",
                "greedy",
                "--token",
                token,
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        for token in (made["token"], ben)
    ]
    try:
        for player in players:
            assert player.wait(timeout=120) == 0
    finally:
        for player in players:
            if player.poll() is None:
                player.kill()
    expect(page.locator(".board-sheet")).to_contain_text("Game over", timeout=60_000)
    expect(page.locator(".board-sheet .winners")).to_contain_text("win")

    messages = [json.loads(frame) for frame in frames]
    states = [m for m in messages if m["type"] == "state"]
    changes = [m for m in messages if m["type"] == "change"]
    # The page asks for events=changes: a change's events come in its change message, with
    # only what changed of the view (a spectator's own part never changes: no hand ever).
    told = ("events", "state", "change")
    events = [e for m in messages if m["type"] in told for e in m.get("events", [])]
    assert states and changes and any(e["type"] == "cards_revealed" for e in events)
    assert all(m["you"]["seat"] is None for m in states)
    assert all(m["view"]["hand"] == [] and m["view"]["legal_cards"] == [] for m in states)
    assert all(m["view"]["chosen_card"] is None for m in states)
    own = ("hand", "legal_cards", "chosen_card", "must_choose_row")
    assert not [m for m in changes if any(key in m.get("view", {}) for key in own)]
    assert not [e for e in events if e["type"] == "hand_dealt" or "hand" in e or "hands" in e]
