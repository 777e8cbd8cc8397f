"""A turn as it feels: once the last card of a turn is chosen nobody reads "Thinking…" any more,
and a card tapped while the turn is still being shown is not lost: the animation hurries to its
end and the card is played for the next turn. The page runs at the slowest speed (1x), where a
turn at six seats takes seconds to show."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect
from tests.browser.browser_helpers import Server

pytestmark = pytest.mark.browser

THINKING_WHILE_REVEALED = """() => {
  if (!document.querySelector('.reveal:not([hidden]) .reveal-item')) return null;
  return [...document.querySelectorAll('.seat')]
    .filter((seat) => seat.matches('.state-thinking') || /Thinking/.test(seat.textContent))
    .map((seat) => seat.dataset.seat);
}"""

TAP_DURING_ANIMATION = """(card) => {
  // The card of the turn being shown fades in the hand until the next state is drawn.
  if (!document.querySelector('.hand .card.played')) return false;
  document.querySelector(`.hand .card[data-card="${card}"]`).click();
  return true;
}"""


def hand_cards(page: Any) -> list[int]:
    cards = page.locator(".hand .card").evaluate_all("els => els.map(e => Number(e.dataset.card))")
    return [int(card) for card in cards]


def test_a_revealed_turn_has_nobody_thinking_and_a_tap_during_it_is_played_next(
    server: Server, new_page: Any
) -> None:
    bots = [{"kind": "bot", "bot": "greedy"}] * 5
    made = server.api("POST", "/api/tables", {"seats": [{"kind": "human"}, *bots], "name": "Ana"})
    page = new_page()
    page.add_init_script(
        f"localStorage.setItem('nimmt.token.{made['code']}', '{made['token']}');"
        "localStorage.setItem('nimmt.speed', '1');"
    )
    page.goto(made["url"])
    expect(page.locator(".hand .card")).to_have_count(10)
    # The bots have chosen at once: Ana's card completes the turn. High cards take no row.
    *_, second, first = hand_cards(page)
    expect(page.locator(".seat.state-chosen")).to_have_count(5)
    page.locator(f'.hand .card[data-card="{first}"]').click()

    thinking = page.wait_for_function(THINKING_WHILE_REVEALED).json_value()
    assert thinking == [], f"seats {thinking} still read 'Thinking' during the reveal"

    assert page.wait_for_function(TAP_DURING_ANIMATION, arg=second).json_value()
    # The tap was taken: the card is played in turn 2 and shown among that turn's cards.
    expect(page.locator(f'.reveal-item.mine[data-card="{second}"]')).to_have_count(1)
    expect(page.locator(".table-info")).to_contain_text("turn 3 of 10")
    assert first not in hand_cards(page) and second not in hand_cards(page)
