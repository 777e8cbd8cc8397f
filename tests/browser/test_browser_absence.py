"""An absent player in real browsers (issue 19): three people at a table, one closes the page;
once the table's delay has passed the two others see it, one proposes that a bot plays the seat,
nothing happens until the second agrees, and then the bot plays it. When she opens the table
again she decides again, from her next decision on: the table waits for her card. The page with
the proposal shown has no serious axe violation, and its drop-down of bots is styled like the
app's other fields."""

from __future__ import annotations

import contextlib
import time
from typing import Any

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
from playwright.sync_api import expect
from tests.browser.browser_helpers import Server
from tests.browser.test_browser_pages import AXE, axe_violations
from tests.waiting import wait_until

pytestmark = pytest.mark.browser


PHONE_ROOM = """() => {
  const box = (el) => el.getBoundingClientRect();
  const rows = [...document.querySelectorAll('.row[data-row]')].map(box);
  const hand = box(document.querySelector('.hand'));
  const panel = box(document.querySelector('#absence'));
  const apart = (a, b) =>
    a.right <= b.left || b.right <= a.left || a.bottom <= b.top || b.bottom <= a.top;
  return {
    rowsEnd: Math.max(...rows.map((r) => r.bottom)),
    handTop: hand.top,
    panelApart: [hand, ...rows].every((other) => apart(panel, other)),
    panelEnd: panel.bottom,
    pageHeight: document.documentElement.scrollHeight,
  };
}"""
"""Where the rows end and the hand begins, whether the absence panel covers neither, where it
ends, and how tall the page is."""


def take_seat(page: Any, code: str, name: str) -> None:
    page.goto(f"/t/{code}")
    page.fill("#seat-name", name)
    page.click("#take-seat")


def test_the_table_hands_an_absent_seat_to_a_bot_only_when_all_agree(
    server: Server, new_page: Any
) -> None:
    # A short delay (the table's setting) so that the test need not wait two minutes.
    made = server.api("POST", "/api/tables", {"seats": [{"kind": "human"}] * 3, "away_seconds": 2})
    code = made["code"]
    ana, ben, cal = new_page(), new_page(), new_page()
    ana_context = ana.context
    for page, name in ((ana, "Ana"), (ben, "Ben"), (cal, "Cal")):
        take_seat(page, code, name)
    for page in (ana, ben, cal):
        expect(page.locator(".hand .card")).to_have_count(10, timeout=20000)

    ana.close()  # Ana leaves without a word
    for page in (ben, cal):
        expect(page.locator("#absence")).to_contain_text(
            "Ana has been away for less than a minute."
        )
    # The bot's drop-down looks like every field of the app (white, rounded, padded), not the
    # browser's bare control.
    look = ben.locator("#absence-bot-0").evaluate(
        "(el) => { const s = getComputedStyle(el);"
        " return [s.backgroundColor, s.borderTopLeftRadius, s.paddingLeft, s.borderTopColor]; }"
    )
    assert look == ["rgb(255, 255, 255)", "8px", "10px", "rgb(185, 195, 189)"], look
    ben.click('[data-focus="absence-propose-0"]')
    rest = " that a bot (medium) plays for Ana until they return."
    rest += " It happens only when everyone present agrees."
    expect(ben.locator("#absence-proposal")).to_have_text("You propose" + rest)
    expect(cal.locator("#absence-proposal")).to_have_text("Ben proposes" + rest)
    expect(ben.locator("#absence")).to_contain_text("Waiting for: Cal.")
    # On phones, upright or sideways, and on a desktop, the panel with its longest text leaves
    # the four rows in sight above the hand and covers neither (it scrolls inside instead),
    # and the page itself does not scroll.
    desktop = cal.viewport_size
    for width, height in ((360, 640), (390, 844), (844, 390), (1280, 800)):
        cal.set_viewport_size({"width": width, "height": height})
        expect(cal.locator("#absence-proposal")).to_be_visible()
        room = cal.evaluate(PHONE_ROOM)
        assert room["rowsEnd"] <= room["handTop"] and room["panelApart"], (width, room)
        assert room["panelEnd"] <= height and room["pageHeight"] <= height, (width, room)
    assert desktop is not None
    cal.set_viewport_size(desktop)

    # Ben and Cal choose their cards: Ana's seat waits, nobody chooses for her.
    for page in (ben, cal):
        page.locator(".hand .card").last.click()  # no row to choose: the turn goes on
        expect(page.locator(".hand .card.lifted")).to_have_count(1)
    summary = server.api("GET", f"/api/tables/{code}")
    assert summary["absence"]["stand_ins"] == []
    assert summary["absence"]["proposal"]["agreed"] == [1]
    if AXE.exists():
        assert axe_violations(cal) == []

    cal.click('[data-focus="absence-agree"]')
    for page in (ben, cal):
        expect(page.locator("#absence")).to_contain_text(
            "A bot (medium) plays for Ana until they return."
        )
    # The bot plays Ana's seat: the turn is revealed and the next one begins.
    for page in (ben, cal):
        expect(page.locator(".hand .card")).to_have_count(9, timeout=20000)

    def handed_over() -> bool:
        absence = server.api("GET", f"/api/tables/{code}")["absence"]
        return bool(absence["stand_ins"] == [{"seat": 0, "bot": "medium"}])

    wait_until(handed_over, message="the handover is not in the summary")

    # Ana comes back (her browser kept the seat's token). The others hear it, and so does she,
    # by name; from her next decision on the table waits for her, not for the bot (a card the
    # bot had already chosen for her in this turn stands; a row choice of Cal's may come first).
    ana = ana_context.new_page()
    ana.goto(f"/t/{code}")
    expect(ana.locator("#notice")).to_contain_text("You are back: you decide again")
    back = server.api("GET", f"/api/tables/{code}")
    if 0 in back["absence"]["card_stands"] and back["phase"] == "choosing_cards":
        # The bot had chosen her card of this turn: it stands, and the page says so.
        expect(ana.locator("#status")).to_contain_text("it stands")
        expect(ana.locator("#absence-title")).to_have_text("You are back")
        expect(ana.locator(".hand.idle")).to_have_count(1)
    for page in (ben, cal):
        expect(page.locator("#notice")).to_contain_text("Ana is back and plays again.")
    deadline = time.monotonic() + 60
    while not ana.locator(".hand:not(.idle) .card").count():
        assert time.monotonic() < deadline, "Ana was never asked for a card again"
        for page in (ben, cal):
            with contextlib.suppress(PlaywrightTimeoutError):
                if page.locator(".rows.choosing").count():
                    page.locator('.row[data-row="0"]').click(timeout=1000)
                elif (
                    page.locator(".hand:not(.idle) .card").count()
                    and not page.locator(".hand .card.lifted").count()
                ):
                    page.locator(".hand:not(.idle) .card").last.click(timeout=1000)
        time.sleep(0.05)  # a poll of the pages, not a timing assertion
    assert server.api("GET", f"/api/tables/{code}")["absence"]["stand_ins"] == []
    first = ana.locator(".hand:not(.idle) .card").first
    card = first.get_attribute("data-card")
    first.click()
    # Her card is taken: lifted while the others choose, or gone from her hand at once when Ben
    # and Cal had already chosen (the turn is then revealed). Never left as it was.
    expect(ana.locator(f'.hand .card[data-card="{card}"]:not(.lifted)')).to_have_count(0)
