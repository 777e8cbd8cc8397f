"""Names with emoji in the browser, counted as the server counts them (grapheme clusters), and a
full table that offers to watch instead."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect
from tests.browser.browser_helpers import Server

pytestmark = pytest.mark.browser

FAMILY = "\U0001f469\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466"  # 👩‍👩‍👧‍👦: 11 UTF-16 units
FLAG_FR = "\U0001f1eb\U0001f1f7"
THUMB_MEDIUM = "\U0001f44d\U0001f3fd"


def test_the_start_form_counts_an_emoji_as_one_character(server: Server, new_page: Any) -> None:
    page = new_page()
    page.goto("/")
    expect(page.locator("#seat-0")).to_be_visible()
    # 25 families: one too many; the page says so itself, and no table is made.
    page.fill("#player-name", FAMILY * 25)
    page.click("#create-table")
    expect(page.locator("#create-form .form-error")).to_have_text(
        "A name has at most 24 characters (an emoji counts as one)."
    )
    assert page.url.endswith("/")
    # The browser and the server agree: 24 families (264 UTF-16 units) is a name.
    name = FAMILY * 22 + FLAG_FR + THUMB_MEDIUM
    page.fill("#player-name", name)
    assert page.input_value("#player-name") == name  # nothing cut off by a maxlength
    page.click("#create-table")
    page.wait_for_url(re.compile(r"/t/[A-HJ-NP-Z2-9]{6}$"))
    code = page.url.rsplit("/", 1)[1]
    expect(page.locator(".seat.me .seat-name-text")).to_have_text(name)
    assert server.api("GET", f"/api/tables/{code}")["seats"][0]["name"] == name

    # The seat form at the table counts the same way.
    guest = new_page()
    guest.goto(f"/t/{code}")
    guest.fill("#seat-name", THUMB_MEDIUM * 25)
    guest.click("#take-seat")
    expect(guest.locator(".take-seat .form-error")).to_have_text(
        "A name has at most 24 characters (an emoji counts as one)."
    )
    guest.fill("#seat-name", THUMB_MEDIUM * 24)
    guest.click("#take-seat")
    expect(guest.locator(".seat.me .seat-name-text")).to_have_text(THUMB_MEDIUM * 24)


def test_a_full_table_offers_to_watch_instead(server: Server, new_page: Any) -> None:
    made = server.api(
        "POST",
        "/api/tables",
        {"seats": [{"kind": "human"}, {"kind": "bot", "bot": "greedy"}], "name": "Ana"},
    )
    page = new_page()
    page.goto("/")
    page.fill("#player-name", "Ben")
    page.fill("#join-code", made["code"])
    page.click("#join-table")
    expect(page.locator("#join-form .form-error")).to_have_text(
        "This table is full: every seat is taken."
    )
    watch = page.locator("#watch-instead")
    expect(watch).to_be_focused()
    watch.click()
    page.wait_for_url(f"**/t/{made['code']}")
    expect(page.locator(".hand-area")).to_have_text("You are watching this table.")
    expect(page.locator(".rows .row")).to_have_count(4)
