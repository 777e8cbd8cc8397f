"""The table fits the window: at 2, 4, 6 and 10 seats and at six window sizes (two laptops, a
large screen, a phone upright and sideways, a small phone) the four rows, their totals, the
status line and every card of the hand lie inside the window, nothing needs scrolling, no card
is too small to read, and the hand, the rows, the status line, the players, the revealed cards,
the last-turn strip and the score sheet never cover one another. Each revealed card shows its
player's name inside the window (on a phone held sideways too), every line of the last-turn
strip stays in its place (ten of them once beside a 1280x800 hand) and on a phone shows whole,
inside the window, the strip scrolling neither sideways nor down, every bot's name reads
"Bot N" in full however narrow its seat (never "Bot…"), and any name or state that an ellipsis
may cut short has a tooltip that holds it whole.

One table per seat count (one person and greedy bots, the fixed deal of the test server), one
page resized through the six sizes: once while the person chooses a card, once while they must
choose a row (the revealed cards then stand by the rows), once the turn after (the last-turn strip
full), and at 4 and 10 seats with the score sheet open after the round, at rest and caught at the
first frame of its entrance; the sheet gives the players their place back once play goes on."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect
from tests.browser.browser_helpers import UNTITLED, Server

pytestmark = pytest.mark.browser

SIZES = [(1280, 800), (1366, 768), (1920, 1080), (390, 844), (844, 390), (360, 640)]
"""Two laptops, a large screen, a phone upright and sideways, and a small phone."""
PHONE_WIDTH = 1000
"""Narrower windows than this (phones upright and sideways) show the whole last turn at once."""
MIN_CARD_WIDTH = 26
"""Narrower than this, a card's number is too small to read without zooming."""

MEASURE = """() => {
  const box = (el) => {
    const r = el.getBoundingClientRect();
    return { left: r.left, top: r.top, right: r.right, bottom: r.bottom, width: r.width };
  };
  const shown = (el) => el.getClientRects().length && getComputedStyle(el).visibility !== "hidden";
  const all = (selector) => [...document.querySelectorAll(selector)].filter(shown).map(box);
  const hand = document.querySelector(".hand");
  return {
    rows: all(".row"),
    totals: all(".row-side"),
    slots: all(".row .slot"),
    status: all("#status"),
    hand: all(".hand .card"),
    handBox: hand ? box(hand) : null,
    seats: all(".seat"),
    reveal: all(".reveal:not([hidden]) .reveal-item"),
    revealNames: all(".reveal:not([hidden]) .reveal-name"),
    // Each line of the last-turn strip as far as it shows: clipped by the strip when it scrolls.
    lastItems: [...document.querySelectorAll("#last-turn .last-item")].filter(shown).map((el) => {
      const strip = el.closest("#last-turn");
      const r = box(el);
      if (getComputedStyle(strip).overflowY === "visible") return r;
      const c = box(strip);
      return { left: Math.max(r.left, c.left), top: Math.max(r.top, c.top),
               right: Math.min(r.right, c.right), bottom: Math.min(r.bottom, c.bottom),
               width: r.width };
    }).filter((r) => r.bottom - r.top > 1 && r.right - r.left > 1),
    // A bot's "Bot 2" cut short ("Bot…"): its text wider than its box.
    cutNames: [...document.querySelectorAll(".seat .name-main")].filter(shown)
      .filter((el) => el.scrollWidth > el.clientWidth + 1).map((el) => el.textContent),
    // The same lines whole, not clipped: on a phone every one must show in full.
    lastWhole: all("#last-turn .last-item"),
    sheet: all(".table-page > .sheet"),
    lastTurn: all("#last-turn"),
    lastScrolls: [...document.querySelectorAll("#last-turn")].filter(shown)
      .filter((el) => el.scrollWidth > el.clientWidth + 1 || el.scrollHeight > el.clientHeight + 1)
      .length > 0,
    page: {
      width: document.documentElement.scrollWidth,
      height: document.documentElement.scrollHeight,
    },
  };
}"""

Box = dict[str, float]


def overlaps(a: Box, b: Box) -> bool:
    """More than a pixel of `a` lies on `b` (borders may touch)."""
    across = min(a["right"], b["right"]) - max(a["left"], b["left"])
    down = min(a["bottom"], b["bottom"]) - max(a["top"], b["top"])
    return across > 1 and down > 1


def inside(item: Box, width: int, height: int) -> bool:
    return (
        item["left"] >= -0.5
        and item["top"] >= -0.5
        and item["right"] <= width + 0.5
        and item["bottom"] <= height + 0.5
    )


def layout_problems(boxes: dict[str, Any], width: int, height: int) -> list[str]:
    problems = []
    if len(boxes["rows"]) != 4 or len(boxes["totals"]) != 4 or len(boxes["status"]) != 1:
        problems.append(f"{len(boxes['rows'])} rows, {len(boxes['totals'])} totals drawn")
    if not boxes["hand"]:
        problems.append("no hand drawn")
    if boxes["page"]["width"] > width + 1 or boxes["page"]["height"] > height + 1:
        problems.append(f"the page scrolls: {boxes['page']}")
    # Small phones (360x640) show the revealed cards without names: the seats show the cards.
    small = width <= 600 and height <= 740
    if not small and len(boxes["revealNames"]) != len(boxes["reveal"]):
        problems.append(f"{len(boxes['reveal'])} revealed cards, {len(boxes['revealNames'])} names")
    if boxes["cutNames"]:
        problems.append(f"names cut short: {boxes['cutNames']}")
    groups_inside = ["rows", "totals", "status", "hand", "seats", "reveal", "revealNames"]
    groups_inside += ["lastTurn", "lastItems"]
    if width < PHONE_WIDTH:
        # A phone: the last-turn strip neither scrolls nor cuts a line off (its lines once ran
        # off the right edge of a phone, one line scrolling sideways).
        groups_inside.append("lastWhole")
        if boxes["lastScrolls"]:
            problems.append("the last-turn strip scrolls")
    for group in groups_inside:
        for index, item in enumerate(boxes[group]):
            if not inside(item, width, height):
                problems.append(f"{group}[{index}] outside the window: {item}")
    hand_box = boxes["handBox"]
    for index, card in enumerate(boxes["hand"]):
        if card["left"] < hand_box["left"] - 0.5 or card["right"] > hand_box["right"] + 0.5:
            problems.append(f"hand card {index} is scrolled out of the hand")
        if card["width"] < MIN_CARD_WIDTH:
            problems.append(f"hand card {index} is {card['width']:.0f}px wide")
    if boxes["slots"] and min(slot["width"] for slot in boxes["slots"]) < MIN_CARD_WIDTH:
        problems.append(f"row cards are {boxes['slots'][0]['width']:.0f}px wide")
    groups = ["hand", "rows", "status", "seats", "reveal", "sheet", "lastItems"]
    for first, name in enumerate(groups):
        for other in groups[first + 1 :]:
            for a in boxes[name]:
                for b in boxes[other]:
                    if overlaps(a, b):
                        problems.append(f"{name} {a} overlaps {other} {b}")
    return problems


def check_every_size(page: Any, when: str) -> list[str]:
    problems = []
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        boxes = page.evaluate(MEASURE)
        found = layout_problems(boxes, width, height)
        # A name or state cut short ("Anasta…") can still be read whole, in its tooltip.
        found += [f"no tooltip for {text}" for text in page.evaluate(UNTITLED)]
        problems += [f"{when} at {width}x{height}: {p}" for p in found]
    return problems


def open_table(server: Server, new_page: Any, seats: int) -> Any:
    """Ana and ``seats - 1`` greedy bots; Ana's page, her hand dealt."""
    bots = [{"kind": "bot", "bot": "greedy"}] * (seats - 1)
    made = server.api("POST", "/api/tables", {"seats": [{"kind": "human"}, *bots], "name": "Ana"})
    page = new_page()
    page.add_init_script(f"localStorage.setItem('nimmt.token.{made['code']}', '{made['token']}')")
    page.goto(made["url"])
    expect(page.locator(".hand .card")).to_have_count(10)
    expect(page.locator(".seat")).to_have_count(seats)
    return page


def play_lowest_until_row_choice(page: Any, turns: int) -> bool:
    """Ana plays her lowest card (the sheet stays open beside the table) until a row is hers to
    choose; False if that did not happen within ``turns`` turns."""
    for _ in range(turns):
        page.wait_for_function(
            "() => document.querySelector('.rows.choosing')"
            " || document.querySelector('.hand:not(.idle) .card:not(.lifted)')"
        )
        if page.locator(".rows.choosing").count():
            return True
        before = page.evaluate("document.querySelector('.table-info').textContent")
        page.locator(".hand:not(.idle) .card").first.click()
        page.wait_for_function(
            "(before) => document.querySelector('.rows.choosing')"
            " || document.querySelector('.table-info').textContent !== before",
            arg=before,
        )
    return bool(page.locator(".rows.choosing").count())


def take_first_row(page: Any) -> None:
    page.locator('.row[data-row="0"]').click()
    expect(page.locator(".rows.choosing")).to_have_count(0)


@pytest.mark.parametrize("seats", [2, 4, 6, 10])
def test_the_table_fits_every_window(server: Server, new_page: Any, seats: int) -> None:
    page = open_table(server, new_page, seats)
    problems = check_every_size(page, "choosing a card")

    page.set_viewport_size({"width": 1280, "height": 800})
    assert play_lowest_until_row_choice(page, turns=30), "no row choice came"
    expect(page.locator(".reveal:not([hidden]) .reveal-item")).to_have_count(seats)
    problems += check_every_size(page, "choosing a row")

    # The turn after: the last-turn strip lists every player's card beside the rows.
    page.set_viewport_size({"width": 1280, "height": 800})
    take_first_row(page)
    expect(page.locator("#last-turn .last-item")).to_have_count(seats)
    expect(page.locator(".hand:not(.idle)")).to_have_count(1)
    problems += check_every_size(page, "the turn after")

    if seats not in (4, 10):
        # The sheet takes the players' place at every seat count: a short one (4 seats) and a
        # long one (10) cover it, and playing a round more at every count costs a minute.
        assert not problems, "\n".join(problems)
        return
    page.set_viewport_size({"width": 1280, "height": 800})
    for _ in range(12):
        if page.locator(".table-page > .sheet").count():
            break
        if play_lowest_until_row_choice(page, turns=1):
            take_first_row(page)
    expect(page.locator(".table-page > .sheet")).to_be_visible()
    problems += check_every_size(page, "with the score sheet")

    # Play goes on: the sheet gives the players their place back.
    page.set_viewport_size({"width": 1280, "height": 800})
    if play_lowest_until_row_choice(page, turns=1):  # her card played, and maybe a row to take
        expect(page.locator(".table-page > .sheet")).to_have_count(0)
        take_first_row(page)
    expect(page.locator(".table-page > .sheet")).to_have_count(0)
    expect(page.locator(".seat")).to_have_count(seats)

    # The sheet comes in with a short animation each time it opens; caught at its first frame
    # (the page's clock of animations stopped through the DevTools protocol) it must fit too.
    # A slide down once pushed the page past a phone held sideways while the sheet came in.
    # Every bot has chosen: nothing redraws the page (and the sheet at rest) while it is measured.
    expect(page.locator(".seat.state-chosen")).to_have_count(seats - 1)
    devtools = page.context.new_cdp_session(page)
    devtools.send("Animation.enable")
    devtools.send("Animation.setPlaybackRate", {"playbackRate": 0})
    page.locator('[data-focus="open-sheet"]').click()
    expect(page.locator(".table-page > .sheet")).to_have_count(1)
    coming_in = "document.querySelector('.table-page > .sheet').getAnimations().length"
    assert page.evaluate(coming_in) == 1, "the sheet's entrance is not caught"
    problems += check_every_size(page, "while the score sheet comes in")
    assert page.evaluate(coming_in) == 1, "the sheet was drawn again at rest while measured"
    devtools.send("Animation.setPlaybackRate", {"playbackRate": 1})
    assert not problems, "\n".join(problems)


JOIN_FORM = """() => {
  const box = (el) => {
    const r = el.getBoundingClientRect();
    return { left: r.left, top: r.top, right: r.right, bottom: r.bottom, width: r.width };
  };
  const shown = (el) => el.getClientRects().length && getComputedStyle(el).visibility !== "hidden";
  const all = (selector) => [...document.querySelectorAll(selector)].filter(shown).map(box);
  // What is drawn on top at the middle of the name field and of the button.
  const onTop = (selector) => {
    const el = document.querySelector(selector);
    const r = el.getBoundingClientRect();
    const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    return el.contains(top);
  };
  return {
    panel: all(".hand-area"),
    board: all(".row, .row .slot, .board > .invite, .board > .status"),
    fieldOnTop: onTop("#seat-name") && onTop("#take-seat"),
    pageWidth: document.documentElement.scrollWidth,
  };
}"""
"""The panel to take a free seat, the rows (and their slots), the invitation and the status
line, and whether the name field and the button are drawn on top of everything."""


def test_the_free_seat_panel_and_the_board_never_overlap(server: Server, new_page: Any) -> None:
    # An invited friend opens the link, no seat taken yet: on phones the rows once lay under the
    # panel, their dashed sixth slots drawn across the name field and the button.
    seats = [{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "bot": "greedy"}]
    made = server.api("POST", "/api/tables", {"seats": seats, "name": "Ana"})
    page = new_page()
    page.goto(made["url"])
    expect(page.locator("#take-seat")).to_be_visible()
    problems = []
    for width, height in [(360, 640), (390, 844), (844, 390), (1280, 800)]:
        page.set_viewport_size({"width": width, "height": height})
        boxes = page.evaluate(JOIN_FORM)
        at = f"{width}x{height}"
        if len(boxes["panel"]) != 1 or len(boxes["board"]) < 4:
            problems.append(f"{at}: no panel or no rows: {boxes}")
            continue
        panel = boxes["panel"][0]
        problems += [
            f"{at}: {b} lies under the panel {panel}" for b in boxes["board"] if overlaps(b, panel)
        ]
        if not boxes["fieldOnTop"]:
            problems.append(f"{at}: something is drawn over the name field or the button")
        if boxes["pageWidth"] > width + 1:
            problems.append(f"{at}: the page scrolls sideways")
    assert not problems, "\n".join(problems)
