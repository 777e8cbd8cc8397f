"""The talk at the table in real browsers: Ana and Ben chat and react at their table (markup
stays text, a reaction shows by its sender's seat), a spectator reads along but cannot write
until Ana, who opened the table, allows it, Ben mutes Ana, the sounds' toggle is remembered, and
"your turn" shows in the tab's title. The table page with the talk open has no serious axe
violation and fits a phone (390x844) without scrolling sideways."""

from __future__ import annotations

import contextlib
import json
import time
from typing import Any

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
from playwright.sync_api import expect
from tests.browser.browser_helpers import Server
from tests.browser.test_browser_pages import AXE, axe_violations, layout_problems

pytestmark = pytest.mark.browser


def seated_page(new_page: Any, code: str, token: str | None, **options: Any) -> Any:
    page = new_page(**options)
    if token is not None:
        page.add_init_script(f"localStorage.setItem('nimmt.token.{code}', {json.dumps(token)})")
    page.goto(f"/t/{code}")
    expect(page.locator(".rows")).to_be_visible()
    return page


def open_talk(page: Any) -> None:
    page.locator("#talk-toggle").click()
    expect(page.locator("#talk-panel")).to_be_visible()


def say(page: Any, text: str) -> None:
    page.locator("#talk-input").fill(text)
    page.locator("#talk-input").press("Enter")
    expect(page.locator("#talk-input")).to_have_value("")  # taken by the server


def test_two_people_chat_and_react_and_a_spectator_writes_only_when_allowed(
    server: Server, new_page: Any
) -> None:
    if not AXE.exists():
        pytest.skip(f"{AXE} is missing: run npm ci")
    seats = [{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "bot": "greedy"}]
    made = server.api("POST", "/api/tables", {"seats": seats, "name": "Ana"})
    code = made["code"]
    ben_token = server.api("POST", f"/api/tables/{code}/join", {"name": "Ben"})["token"]
    ana = seated_page(new_page, code, made["token"])
    ben = seated_page(new_page, code, ben_token)
    watcher = seated_page(new_page, code, None)
    expect(ana.locator(".hand .card")).to_have_count(10)

    # Ana writes; markup stays the characters she typed.
    open_talk(ana)
    say(ana, "<b>Hello</b> Ben, good luck!")
    expect(ben.locator("#talk-toggle")).to_contain_text("1")  # unread while closed
    expect(ben.locator('.seat[data-seat="0"] .talk-bubble')).to_have_text(
        "<b>Hello</b> Ben, good luck!"
    )
    # The bubble leaves the seat's state readable: it covers at most its lowest 4 px.
    state = ben.locator('.seat[data-seat="0"] .seat-state').bounding_box()
    bubble = ben.locator('.seat[data-seat="0"] .talk-bubble').bounding_box()
    assert state and bubble and bubble["y"] >= state["y"] + state["height"] - 4, (state, bubble)
    open_talk(ben)
    line = ben.locator(".talk-line").filter(has_text="Hello")
    expect(line.locator(".talk-name")).to_have_text("Ana")
    expect(line.locator(".talk-text")).to_have_text("<b>Hello</b> Ben, good luck!")
    assert ben.locator(".talk-lines b").count() == 0
    expect(ben.locator("#talk-toggle")).not_to_contain_text("1")

    # Ben reacts: everyone sees it by Ben's seat, and in the talk.
    ben.locator('.talk-reaction[data-reaction="well_played"]').click()
    expect(ana.locator('.seat[data-seat="1"] .talk-bubble')).to_have_text("Well played")
    expect(ana.locator(".talk-line.react .talk-text")).to_have_text("Well played")
    ben.locator('.talk-reaction[data-reaction="bull"]').click()
    expect(watcher.locator('.seat[data-seat="1"] .talk-bubble')).to_have_text("🐮")

    # The spectator reads along but cannot write (nor react) by default.
    open_talk(watcher)
    expect(watcher.locator(".talk-line")).to_have_count(3)
    expect(watcher.locator("#talk-input")).to_be_hidden()
    expect(watcher.locator(".talk-reactions")).to_be_hidden()
    expect(watcher.locator(".talk-note")).to_be_visible()
    expect(ben.locator("#talk-spectators")).to_have_count(0)  # only Ana may allow it

    # Ana allows it: the spectator writes, and the others read it.
    ana.locator(".talk-settings summary").click()
    ana.locator("#talk-spectators").check()
    expect(watcher.locator("#talk-input")).to_be_visible()
    say(watcher, "Hi from the rail")
    expect(ana.locator(".talk-line").filter(has_text="Hi from the rail")).to_have_count(1)
    expect(ana.locator(".talk-line").filter(has_text="Hi from the rail").locator(".talk-name"))\
        .to_have_text("Spectator")  # fmt: skip

    # Ben mutes Ana: her lines leave his page, and what she says next never reaches him.
    ben.locator(".talk-line").filter(has_text="Hello").get_by_role("button", name="Mute Ana")\
        .click()  # fmt: skip
    expect(ben.locator(".talk-line").filter(has_text="Hello")).to_have_count(0)
    say(ana, "Ben cannot read this")
    expect(watcher.locator(".talk-line").filter(has_text="Ben cannot read this")).to_have_count(1)
    say(watcher, "but the rail can")
    expect(ben.locator(".talk-line").filter(has_text="but the rail can")).to_have_count(1)
    assert ben.locator(".talk-line").filter(has_text="Ben cannot read this").count() == 0

    # A line too long cannot be typed; the server's refusal of an empty one never happens.
    assert ana.locator("#talk-input").get_attribute("maxlength") == "200"

    # Sounds are off until turned on, and the choice is remembered.
    expect(ana.locator("#talk-sounds")).not_to_be_checked()
    ana.locator("#talk-sounds").check()
    assert ana.evaluate("localStorage.getItem('nimmt.sounds')") == "on"
    # Ana has a card to choose: the tab says it.
    assert "Your turn" in ana.title()

    problems = [f"talk open: {v}" for v in axe_violations(ana)]
    phone = [(390, 844)]
    problems += layout_problems(ana, "talk open", ["#talk-panel", "#talk-input"], phone)
    problems += layout_problems(watcher, "talk, spectator", ["#talk-panel"], phone)
    assert not problems, "\n".join(problems)

    ana.reload()
    expect(ana.locator(".rows")).to_be_visible()
    open_talk(ana)
    expect(ana.locator(".talk-line").filter(has_text="but the rail can")).to_have_count(1)
    ana.locator(".talk-settings summary").click()
    expect(ana.locator("#talk-sounds")).to_be_checked()
    expect(ana.locator("#talk-spectators")).to_be_checked()


ALERT_STUBS = """
window.__tones = 0;
window.__notes = [];
window.__hidden = false;
Object.defineProperty(document, "hidden", { configurable: true, get: () => window.__hidden });
const create = AudioContext.prototype.createOscillator;
AudioContext.prototype.createOscillator = function () {
  window.__tones += 1;
  return create.call(this);
};
window.Notification = class {
  static permission = "default";
  static async requestPermission() { window.Notification.permission = "granted"; return "granted"; }
  constructor(title, options) { window.__notes.push([title, options.body]); }
  close() {}
};
"""


def test_sounds_stay_off_until_turned_on_and_a_hidden_tab_is_told_its_turn(
    server: Server, new_page: Any
) -> None:
    made = server.api(
        "POST",
        "/api/tables",
        {"seats": [{"kind": "human"}, {"kind": "bot", "bot": "greedy"}], "name": "Ana"},
    )
    ana = new_page()
    ana.add_init_script(ALERT_STUBS)
    ana.add_init_script(
        f"localStorage.setItem('nimmt.token.{made['code']}', {json.dumps(made['token'])})"
    )
    ana.goto(made["url"])
    expect(ana.locator(".hand .card")).to_have_count(10)

    def play_a_card(cards_left: int) -> None:
        """Ana plays her first card (taking row 1 if she must), until her next decision."""
        ana.locator(".hand:not(.idle) .card").first.click()
        deadline = time.monotonic() + 60
        while not (
            ana.locator(".hand .card").count() == cards_left
            and ana.locator(".hand:not(.idle) .card").count()
        ):
            assert time.monotonic() < deadline, "the turn did not end"
            if ana.locator(".rows.choosing").count():
                with contextlib.suppress(PlaywrightTimeoutError):
                    ana.locator('.row[data-row="0"]').click(timeout=1000)
            time.sleep(0.05)  # a poll of the page, not a timing assertion

    play_a_card(9)  # a turn drawn with sounds off: not a tone
    assert ana.evaluate("window.__tones") == 0
    assert "Your turn" in ana.title()

    open_talk(ana)
    ana.locator(".talk-settings summary").click()
    ana.locator("#talk-sounds").check()
    ana.locator("#talk-notify").check()  # the browser is asked, and allows it
    expect(ana.locator("#talk-notify")).to_be_checked()
    assert ana.evaluate("localStorage.getItem('nimmt.notify')") == "on"
    tones = ana.evaluate("window.__tones")
    assert tones > 0  # turning sounds on plays the turn's tone once
    ana.locator("#talk-close").click()

    ana.evaluate("window.__hidden = true")
    play_a_card(8)
    assert ana.evaluate("window.__tones") > tones  # the cards placed, and the new turn
    notes = ana.evaluate("window.__notes")
    assert notes and notes[-1] == ["Your turn", f"Table {made['code']} is waiting for you."]


def test_a_spectator_who_writes_is_never_taken_for_a_seated_person(
    server: Server, new_page: Any
) -> None:
    """A spectator's browser may remember any name, a seated person's too (Ana watching from her
    phone, or someone pretending): their lines say they are watching."""
    seats = [{"kind": "human"}, {"kind": "bot", "bot": "greedy"}]
    made = server.api("POST", "/api/tables", {"seats": seats, "name": "Ana"})
    code = made["code"]
    ana = seated_page(new_page, code, made["token"])
    watcher = new_page(locale="de-DE")
    watcher.add_init_script("localStorage.setItem('nimmt.name', 'Ana')")
    watcher.goto(f"/t/{code}")
    open_talk(ana)
    ana.locator(".talk-settings summary").click()
    ana.locator("#talk-spectators").check()
    assert "null" not in ana.locator(".talk-settings").inner_text()  # the parts not shown
    open_talk(watcher)
    watcher.locator(".talk-settings summary").click()
    assert "null" not in watcher.locator(".talk-settings").inner_text()
    expect(watcher.locator("#talk-input")).to_be_visible()
    say(watcher, "I will take the 55")
    line = ana.locator(".talk-line").filter(has_text="I will take the 55")
    expect(line.locator(".talk-name")).to_have_text("Ana (watching)")
    say(ana, "No, I will")
    line = watcher.locator(".talk-line").filter(has_text="No, I will")
    expect(line.locator(".talk-name")).to_have_text("Ana")
