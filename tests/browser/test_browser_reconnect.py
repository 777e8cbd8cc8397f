"""Losing the connection: a quiet banner, automatic reconnection with the stored token once the
server is back, and a card chosen while the connection was down is not lost."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect
from tests.browser.browser_helpers import start_server, stop_server

from throwaway import free_port

pytestmark = pytest.mark.browser


def test_the_page_reconnects_by_itself_and_keeps_the_choice(browser: Any, tmp_path: Path) -> None:
    port = free_port()
    db, log = tmp_path / "games.db", tmp_path / "server.log"
    process, base_url = start_server(db, log, port)
    context = browser.new_context(base_url=base_url, locale="en-US")
    try:
        context.add_init_script("localStorage.setItem('nimmt.speed', '4')")
        page = context.new_page()
        page.goto("/")
        page.fill("#player-name", "Ana")
        page.click("#remove-seat")
        page.click("#remove-seat")
        page.select_option("#seat-1", "greedy")
        page.click("#create-table")
        page.wait_for_url(re.compile(r"/t/\w{6}$"))
        expect(page.locator(".hand .card")).to_have_count(10)
        expect(page.locator("#banner")).to_be_hidden()

        # The server goes away: a quiet banner, and the table stays on screen.
        stop_server(process)
        expect(page.locator("#banner")).to_have_text("Connection lost. Reconnecting…")
        expect(page.locator(".hand .card")).to_have_count(10)
        card = page.locator(".hand .card").first.get_attribute("data-card")
        page.locator(".hand .card").first.click()
        expect(page.locator(".hand .card.lifted")).to_have_attribute("data-card", str(card))

        # The same server comes back on the same port and database: the page reconnects with
        # its token, sends the card chosen meanwhile, and the turn is played.
        process, _ = start_server(db, log, port)
        expect(page.locator("#banner")).to_be_hidden(timeout=15000)
        # The deal may make that card the lowest of all: its player then takes a row.
        page.wait_for_function(
            "() => document.querySelector('.rows.choosing')"
            " || document.querySelector('.table-info').textContent.includes('turn 2')"
        )
        if page.locator(".rows.choosing").count():
            page.locator('.row[data-row="0"]').click()
        expect(page.locator(".table-info")).to_have_text("Round 1 · turn 2 of 10")
        expect(page.locator(".hand .card")).to_have_count(9)
        expect(page.locator(f'.hand .card[data-card="{card}"]')).to_have_count(0)
        expect(page.locator(".seat.me")).to_contain_text("Ana")
    finally:
        context.close()
        stop_server(process)
