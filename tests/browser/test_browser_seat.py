"""A person's seat in the browser: choosing by keyboard, changing and taking back a card, a reload
that returns to the same seat with nothing lost, spectators, and readable errors."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect
from tests.browser.browser_helpers import Server, open_table_as

pytestmark = pytest.mark.browser


def hand_of(page: Any) -> list[int]:
    cards = page.locator(".hand .card")
    return [int(value) for value in cards.evaluate_all("els => els.map(e => e.dataset.card)")]


def ana_at_a_table(server: Server, new_page: Any) -> tuple[Any, str]:
    """Ana opens a table for two people and a bot; Ben takes the other seat through the API, so
    the table waits for Ben's card while Ana acts."""
    ana = new_page()
    code = open_table_as(ana, "Ana")
    server.api("POST", f"/api/tables/{code}/join", {"name": "Ben"})
    expect(ana.locator(".hand .card")).to_have_count(10)
    return ana, code


def test_keyboard_choice_change_take_back_and_reload_keep_the_seat(
    server: Server, new_page: Any
) -> None:
    ana, code = ana_at_a_table(server, new_page)
    hand = hand_of(ana)
    assert hand == sorted(hand)
    expect(ana.locator("#status")).to_have_text("Choose a card.")

    # Keyboard: arrows move along the hand, typing a number jumps to that card, Enter plays it.
    ana.locator('.hand [tabindex="0"]').focus()
    ana.keyboard.press("ArrowRight")
    expect(ana.locator(f'.hand .card[data-card="{hand[1]}"]')).to_be_focused()
    target = hand[6]
    ana.keyboard.type(str(target))
    expect(ana.locator(f'.hand .card[data-card="{target}"]')).to_be_focused()
    ana.keyboard.press("Enter")
    lifted = ana.locator(".hand .card.lifted")
    expect(lifted).to_have_attribute("data-card", str(target))
    expect(ana.locator("#status")).to_have_text(
        f"You play {target}. You can change it until everyone has chosen. Waiting for Ben."
    )
    expect(ana.locator(".seat.me .seat-card .card.back")).to_have_count(1)
    expect(ana.locator(f'.hand .card[data-card="{target}"]')).to_be_focused()

    # A reload returns to the same seat, with the same hand and the card still chosen.
    ana.reload()
    expect(ana.locator(".seat.me")).to_contain_text("Ana")
    expect(ana.locator(".hand .card")).to_have_count(10)
    assert hand_of(ana) == hand
    expect(ana.locator(".hand .card.lifted")).to_have_attribute("data-card", str(target))

    # Tapping another card changes the choice; tapping the chosen card takes it back.
    ana.locator(f'.hand .card[data-card="{hand[0]}"]').click()
    expect(ana.locator(".hand .card.lifted")).to_have_attribute("data-card", str(hand[0]))
    ana.reload()
    expect(ana.locator(".hand .card.lifted")).to_have_attribute("data-card", str(hand[0]))
    ana.locator(f'.hand .card[data-card="{hand[0]}"]').click()
    expect(ana.locator(".hand .card.lifted")).to_have_count(0)
    expect(ana.locator("#status")).to_have_text("Choose a card.")
    ana.reload()
    expect(ana.locator(".hand .card")).to_have_count(10)
    expect(ana.locator(".hand .card.lifted")).to_have_count(0)

    # A second browser without the token only watches: no hand, and the table is full.
    guest = new_page()
    guest.goto(f"/t/{code}")
    expect(guest.locator(".hand-area")).to_have_text("You are watching this table.")
    expect(guest.locator(".seat")).to_have_count(3)
    expect(guest.locator(".seat.me")).to_have_count(0)
    expect(guest.locator(".hand .card")).to_have_count(0)


def test_errors_are_readable_sentences(server: Server, new_page: Any) -> None:
    page = new_page()
    page.goto("/t/ZZZZZZ")
    expect(page.locator("h1")).to_have_text("Table not found")
    expect(page.locator("main")).to_contain_text("There is no table with this code.")

    # A name the server refuses is refused with its reason, not the general rule: the name is
    # taken at the table, or holds an invisible character (here a zero-width space).
    made = server.api("POST", "/api/tables", {"seats": [{"kind": "human"}] * 2, "name": "Cleo"})
    page.goto("/")
    page.fill("#player-name", "cleo")
    page.fill("#join-code", made["code"])
    page.click("#join-table")
    expect(page.locator("#join-form .form-error")).to_have_text(
        "The name cleo is already at this table: choose another."
    )
    page.fill("#player-name", "Da\u200bn")
    page.click("#join-table")
    expect(page.locator("#join-form .form-error")).to_have_text(
        "A name cannot hold control characters."
    )
    page.fill("#join-code", "K7Q")
    page.click("#join-table")
    expect(page.locator("#join-form .form-error")).to_have_text(
        "A table code has 6 letters and digits, like K7QX2M."
    )
    # The open tables list shows the table that waits for a person, with a way to join.
    expect(page.locator(f'.table-item[data-code="{made["code"]}"]')).to_contain_text("Cleo")


def test_a_pasted_code_or_link_joins_the_table(server: Server, new_page: Any) -> None:
    # The field once took six characters: " Q3LGKA" pasted became " Q3LGK", and the table's whole
    # link was refused.
    seats = [{"kind": "human"}] * 3
    made = server.api("POST", "/api/tables", {"seats": seats, "name": "Cleo"})
    code = made["code"]
    for name, pasted in (("Dan", f" {code}"), ("Eve", f"{server.base_url}/t/{code}")):
        page = new_page()
        page.goto("/")
        page.fill("#player-name", name)
        page.fill("#join-code", pasted)
        expect(page.locator("#join-code")).to_have_value(code)
        page.click("#join-table")
        page.wait_for_url(f"**/t/{code}")
        expect(page.locator(".seat.me")).to_contain_text(name)
