"""Leaving a seat in the browser: during a game a bot of the person's choice takes the seat over
and the game goes on; before the first deal the seat is simply freed. Everyone at the table is
told, and the page of the person who left becomes a spectator's page without the token."""

from __future__ import annotations

import time
from typing import Any

import pytest
from playwright.sync_api import expect
from tests.browser.browser_helpers import Server, open_table_as

pytestmark = pytest.mark.browser


def open_table(new_page: Any) -> tuple[Any, str]:
    """Ana opens a table for two people and a greedy bot; nobody else has sat down yet."""
    ana = new_page()
    code = open_table_as(ana, "Ana")
    expect(ana.locator("#status")).to_have_text("Waiting for players: 1 of 2 people has sat down.")
    return ana, code


def token_of(page: Any, code: str) -> Any:
    return page.evaluate(f"localStorage.getItem('nimmt.token.{code}')")


def test_leaving_during_the_game_hands_the_seat_to_the_chosen_bot(
    server: Server, new_page: Any
) -> None:
    ana, code = open_table(new_page)
    ben = new_page()
    ben.goto(f"/t/{code}")
    ben.fill("#seat-name", "Ben")
    ben.click("#take-seat")
    # The first deal of a freshly started server can take a few seconds (its bot workers start).
    for page in (ana, ben):
        expect(page.locator(".hand .card")).to_have_count(10, timeout=20000)
    expect(ana.locator("#notice")).to_contain_text("Ben took a seat.")
    assert token_of(ben, code)

    # Ben leaves: the dialog says that a bot takes over and offers the levels, medium first.
    ben.click("#leave-seat")
    dialog = ben.locator("#leave-dialog")
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text("a bot takes over your seat")
    expect(ben.locator("#leave-bot")).to_have_value("medium")
    ben.select_option("#leave-bot", "easy")
    ben.click("#leave-confirm")
    expect(dialog).to_be_hidden()

    # Both pages tell it; Ben's page now only watches, and has forgotten the token.
    expect(ana.locator("#notice")).to_contain_text("Ben left; a bot (easy) plays for them.")
    expect(ana.locator("#announcer")).to_contain_text("Ben left; a bot (easy) plays for them.")
    expect(ben.locator("#notice")).to_contain_text(
        "You left your seat; a bot (easy) plays for you."
    )
    expect(ben.locator(".hand .card")).to_have_count(0)
    expect(ben.locator(".seat.me")).to_have_count(0)
    expect(ben.locator("#leave-seat")).to_have_count(0)
    expect(ben.locator(".hand-area")).to_have_text("You are watching this table.")
    assert token_of(ben, code) is None
    expect(ana.locator('.seat[data-seat="1"] .badge.bot')).to_have_count(1)

    summary = server.api("GET", f"/api/tables/{code}")
    assert summary["seats"][1]["kind"] == "bot"
    assert summary["seats"][1]["bot"] == "easy"
    assert summary["seats"][0]["kind"] == "human"

    # Ana plays on: her card, the two bots' cards, and the turn resolves (with a row choice if
    # her card is the lowest).
    first = ana.locator(".hand .card").first.get_attribute("data-card")
    ana.locator(".hand .card").first.click()
    deadline = time.monotonic() + 30
    while ana.locator(".table-info").inner_text() != "Round 1 · turn 2 of 10":
        assert time.monotonic() < deadline, "the turn did not resolve within 30 s"
        if ana.locator(".rows.choosing").count():
            ana.locator('[data-focus="row-0"]').click()
            expect(ana.locator(".rows.choosing")).to_have_count(0)
        ana.wait_for_timeout(100)
    expect(ana.locator(".hand .card")).to_have_count(9)
    expect(ana.locator(f'.hand .card[data-card="{first}"]')).to_have_count(0)
    expect(ben.locator(".table-info")).to_have_text("Round 1 · turn 2 of 10")
    expect(ben.locator(".hand .card")).to_have_count(0)

    # Ben's page comes back as a spectator after a reload: no seat, no hand.
    ben.reload()
    expect(ben.locator(".seat")).to_have_count(3)
    expect(ben.locator(".seat.me")).to_have_count(0)
    expect(ben.locator(".hand-area")).to_have_text("You are watching this table.")


def test_leaving_before_the_first_deal_frees_the_seat(server: Server, new_page: Any) -> None:
    ana, code = open_table(new_page)
    guest = new_page()
    guest.goto(f"/t/{code}")
    expect(guest.locator("#take-seat")).to_be_visible()

    # By keyboard: the dialog opens, says the seat is only freed, and Escape keeps the seat.
    ana.locator("#leave-seat").focus()
    ana.keyboard.press("Enter")
    dialog = ana.locator("#leave-dialog")
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text("your seat simply becomes free again")
    expect(ana.locator("#leave-bot")).to_be_hidden()
    expect(ana.locator("#leave-cancel")).to_be_focused()
    ana.keyboard.press("Escape")
    expect(dialog).to_be_hidden()
    expect(ana.locator(".seat.me")).to_have_count(1)
    assert server.api("GET", f"/api/tables/{code}")["seats"][0]["occupied"] is True

    ana.click("#leave-seat")
    expect(ana.locator("#leave-confirm")).to_have_text("Free my seat")
    ana.click("#leave-confirm")
    expect(guest.locator("#notice")).to_contain_text("Ana left the table.")
    expect(ana.locator("#notice")).to_contain_text("You left your seat.")
    expect(ana.locator(".seat.me")).to_have_count(0)
    assert token_of(ana, code) is None

    summary = server.api("GET", f"/api/tables/{code}")
    assert summary["phase"] == "waiting"
    assert summary["seats"][0]["kind"] == "human"
    assert summary["seats"][0]["occupied"] is False
    assert summary["seats"][0]["name"] is None

    # The freed seat is offered again, through the usual way to take a seat.
    expect(ana.locator("#take-seat")).to_be_visible()
    ana.click("#take-seat")  # the name field is filled with the remembered name
    expect(ana.locator(".seat.me")).to_contain_text("Ana")
    expect(guest.locator("#notice")).to_contain_text("Ana took a seat.")
    assert token_of(ana, code)
