"""The coach in the browser: a table whose creator allowed it shows so to every seat and
spectator; a seated person who turns it on sees each card's expected extra bullheads (the best
card marked) and, at a row choice, each row's, exactly as the server's coach answered, while the
table waits for them: the coach never chooses or plays. After the game, the sheet lists the
person's three costliest decisions from the game's analysis, linked to the replay at that turn.
A table without the coach shows no toggle."""

from __future__ import annotations

import contextlib
import json
import re
import time
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
from playwright.sync_api import expect
from tests.browser.browser_helpers import Server, play_to_the_end
from websockets.sync.client import connect

pytestmark = pytest.mark.browser


def socket_url(server: Server, code: str, token: str | None = None) -> str:
    url = server.base_url.replace("http://", "ws://") + f"/ws/{code}"
    return f"{url}?token={token}" if token else url


def spectator_view(server: Server, code: str) -> dict[str, Any]:
    with connect(socket_url(server, code)) as socket:
        while True:
            message: dict[str, Any] = json.loads(socket.recv(timeout=10))
            if message["type"] == "state":
                return message


def ask_coach(server: Server, code: str, token: str) -> dict[str, Any]:
    """The server coach's answer for the seat of ``token`` now (a second, independent channel)."""
    with connect(socket_url(server, code, token)) as socket:
        socket.send(json.dumps({"type": "coach", "request_id": "check"}))
        while True:
            message: dict[str, Any] = json.loads(socket.recv(timeout=60))
            if message["type"] in ("coach", "error") and message.get("request_id") == "check":
                return message


def one_decimal(value: float) -> str:
    """A figure as the page shows it (Intl rounds half away from zero: 1.25 is "1.3")."""
    return str(Decimal(str(max(0.0, value))).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))


def extra_text(extra: float) -> str:
    return f"+{one_decimal(extra)}"


def expect_figures(page: Any, answer: dict[str, Any], selector: str, key: str) -> None:
    """Every choice shows the answer's figure, the best one marked "best" and named so."""
    for candidate in answer["candidates"]:
        choice = candidate["choice"]
        note = page.locator(f'{selector}[data-{key}="{choice}"] .coach-note')
        if choice == answer["best"]:
            expect(note).to_have_text("best")
            expect(note).to_have_class(re.compile(r"\bbest\b"))
        else:
            expect(note).to_have_text(extra_text(candidate["extra"]))
    expect(page.locator(f"{selector} .coach-note.best")).to_have_count(1)


def test_the_coach_scores_every_card_and_row_and_never_plays(server: Server, new_page: Any) -> None:
    # Ana allows the coach for a table of two people and two greedy bots.
    ana = new_page()
    ana.goto("/")
    ana.fill("#player-name", "Ana")
    ana.select_option("#seat-2", "greedy")
    ana.select_option("#seat-3", "greedy")
    expect(ana.locator("#allow-coach")).not_to_be_checked()
    ana.check("#allow-coach")
    ana.click("#create-table")
    ana.wait_for_url(re.compile(r"/t/[A-HJ-NP-Z2-9]{6}$"))
    code = ana.url.rsplit("/", 1)[1]
    ana_token = ana.evaluate(f"localStorage.getItem('nimmt.token.{code}')")
    ben = new_page()
    ben.goto(f"/t/{code}")
    ben.fill("#seat-name", "Ben")
    ben.click("#take-seat")
    watcher = new_page(locale="de-DE")
    watcher.goto(f"/t/{code}")
    for page in (ana, ben):
        expect(page.locator(".hand .card")).to_have_count(10)

    # Fairness is visible: every seat and the spectator see that the coach is allowed; only the
    # seated have a toggle, and it starts off.
    expect(ana.locator("#coach-badge")).to_contain_text("Coach allowed")
    expect(ben.locator("#coach-badge")).to_contain_text("Coach allowed")
    expect(watcher.locator("#coach-badge")).to_contain_text("Coach erlaubt")
    expect(watcher.locator("#coach-toggle")).to_have_count(0)
    for page in (ana, ben):
        expect(page.locator("#coach-toggle")).to_have_attribute("aria-pressed", "false")
    expect(ana.locator(".coach-note")).to_have_count(0)

    # Ana turns the coach on by its key; the focus stays where it was.
    ana.locator(".hand .card").nth(3).focus()
    ana.keyboard.press("c")
    expect(ana.locator("#coach-toggle")).to_have_attribute("aria-pressed", "true")
    expect(ana.locator(".hand .card .coach-note")).to_have_count(10)
    assert ana.evaluate("document.activeElement.dataset.focus") == ana.locator(".hand .card").nth(
        3
    ).get_attribute("data-focus")
    expect(ana.locator("#coach-thinking")).to_have_class(re.compile(r"\bidle\b"))
    expect(ana.locator("#coach-thinking")).to_have_text("")
    # The figures are the server coach's for this very decision, and in the card's name.
    answer = ask_coach(server, code, ana_token)
    assert answer["type"] == "coach" and answer["kind"] == "card"
    expect_figures(ana, answer, ".hand .card", "card")
    best = ana.locator(f'.hand .card[data-card="{answer["best"]}"]')
    expect(best).to_have_accessible_name(re.compile(r"Coach: the best card.*confidence"))
    worst = max(answer["candidates"], key=lambda candidate: candidate["extra"])
    expect(ana.locator(f'.hand .card[data-card="{worst["choice"]}"]')).to_have_accessible_name(
        re.compile(rf"Coach: about {re.escape(one_decimal(worst['extra']))} bullheads more than"),
    )
    # Nothing was chosen for her: the turn waits for Ana, as the server and her page say.
    expect(ana.locator(".hand .card.lifted")).to_have_count(0)
    expect(ana.locator(".hand .card[aria-pressed=true]")).to_have_count(0)
    view = spectator_view(server, code)["view"]
    assert view["phase"] == "choosing_cards" and view["has_chosen"][0] is False
    # Ben did not turn it on: he sees no figures, and the toggle is remembered per table.
    expect(ben.locator(".coach-note")).to_have_count(0)
    ana.reload()
    expect(ana.locator("#coach-toggle")).to_have_attribute("aria-pressed", "true")
    expect(ana.locator(".hand .card .coach-note")).to_have_count(10)
    ben.locator("#coach-toggle").click()
    expect(ben.locator(".hand .card .coach-note")).to_have_count(10)
    expect(ben.locator(".hand .card .coach-note.best")).to_have_count(1)

    # Both play their lowest card each turn until one of them must take a row: that person's
    # rows carry the coach's figures, the others' page shows none.
    pages = {"Ana": ana, "Ben": ben}
    tokens = {"Ana": ana_token, "Ben": ben.evaluate(f"localStorage.getItem('nimmt.token.{code}')")}
    deadline = time.monotonic() + 120
    checked_row = False
    while not checked_row:
        assert time.monotonic() < deadline, "no row choice within 120 s"
        for name, page in pages.items():
            if page.locator(".sheet").count():
                with contextlib.suppress(PlaywrightTimeoutError):
                    page.locator("#sheet-continue").click(timeout=1000)
                continue
            if page.locator(".rows.choosing").count():
                expect(page.locator(".rows.choosing .row .coach-note")).to_have_count(4)
                answer = ask_coach(server, code, tokens[name])
                assert answer["type"] == "coach" and answer["kind"] == "row"
                expect_figures(page, answer, ".rows.choosing .row", "row")
                best_row = page.locator(f'.row[data-row="{answer["best"]}"]')
                expect(best_row).to_have_accessible_name(re.compile(r"Coach: the best row"))
                other = ben if page is ana else ana
                expect(other.locator(".rows .coach-note")).to_have_count(0)
                # The coach chose nothing: the table still waits for this person.
                view = spectator_view(server, code)["view"]
                assert view["phase"] == "choosing_row"
                page.locator('.row[data-row="0"]').click()
                expect(page.locator(".rows.choosing")).to_have_count(0)
                checked_row = True
                break
            if (
                page.locator(".hand:not(.idle) .card").count()
                and not page.locator(".hand .card.lifted").count()
            ):
                with contextlib.suppress(PlaywrightTimeoutError):
                    page.locator(".hand:not(.idle) .card").first.click(timeout=1000)
        time.sleep(0.05)


def test_a_table_without_the_coach_shows_no_toggle_nor_badge(server: Server, new_page: Any) -> None:
    made = server.api(
        "POST",
        "/api/tables",
        {"seats": [{"kind": "human"}, {"kind": "bot", "bot": "greedy"}], "name": "Ana"},
    )
    ana = new_page()
    ana.goto("/")
    ana.evaluate(f"localStorage.setItem('nimmt.token.{made['code']}', {json.dumps(made['token'])})")
    ana.goto(f"/t/{made['code']}")
    expect(ana.locator(".hand .card")).to_have_count(10)
    expect(ana.locator("#coach-toggle")).to_have_count(0)
    expect(ana.locator("#coach-badge")).to_have_count(0)
    ana.keyboard.press("c")
    expect(ana.locator(".coach-note")).to_have_count(0)


def test_the_game_over_sheet_shows_the_three_costliest_decisions(
    server: Server, new_page: Any
) -> None:
    ana, code = play_to_the_end(server, new_page, ".sheet.final")

    review = ana.locator(".sheet #coach-review")
    expect(review.locator("h3")).to_have_text("Your three costliest decisions")
    items = review.locator(".coach-review-item")
    expect(items.first).to_be_visible(timeout=60_000)
    # The same decisions as the server's analysis: the biggest losses first.
    analysis = server.api("GET", f"/api/tables/{code}/analysis?seat=0")
    costly = [d for d in analysis["decisions"] if d["loss"] > 0]
    costly.sort(key=lambda d: -d["loss"])  # a stable sort keeps the earlier first on a tie
    expected = costly[:3]
    assert expected, "dearest rows and lowest cards cost nothing?"
    expect(items).to_have_count(len(expected))
    for index, decision in enumerate(expected):
        item = items.nth(index)
        where = f"Round {decision['round']}, turn {decision['turn']}: "
        if decision["kind"] == "card":
            what = f"you played {decision['chosen']}; {decision['best']} was better"
        else:
            what = f"you took row {decision['chosen']}; row {decision['best']} was better"
        expect(item).to_contain_text(
            where + what + f", about {one_decimal(decision['loss'])} bullheads"
        )
        link = item.locator("a")
        expect(link).to_have_attribute(
            "href",
            f"/t/{code}/replay?game=1#r{decision['round']}t{decision['turn']}",
        )
    # The link opens the replay viewer at that very turn.
    first = expected[0]
    items.first.locator("a").click()
    expect(ana.locator("#replay-position")).to_have_text(
        f"Round {first['round']} · turn {first['turn']} of 10"
    )
