"""A group's tables open now, on its page: the table one member opens for the group is listed on
another member's page (who sits there, its free seat, waiting for people), fits a phone and a
desktop and passes axe, and its Join link takes that member to the seat; back on the page, the
table is in play and its link leads back to it. A table opened while the page is shown appears on
Refresh."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import expect
from tests.browser.browser_helpers import Server
from tests.browser.test_browser_group_play import signed_in
from tests.browser.test_browser_pages import axe_violations, check
from tests.browser.test_browser_people_pages import call

pytestmark = pytest.mark.browser

HUMAN = {"kind": "human"}


def test_a_member_finds_the_table_another_opened_and_joins_it(
    server: Server, new_page: Callable[..., Any]
) -> None:
    secrets = {
        name: call(
            server, "POST", "/api/profile", {"name": name, "emoji": "🦊", "colour": "#1f5a45"}
        )["secret"]
        for name in ("Ana", "Ben")
    }
    ana, ben = secrets["Ana"], secrets["Ben"]
    group = call(server, "POST", "/api/groups", {"name": "Thursdays"}, ana)["group"]["code"]
    invite = call(server, "POST", f"/api/groups/{group}/invite", None, ana)["invite"]
    call(server, "POST", "/api/groups/join", {"invite": invite}, ben)
    seats = [HUMAN, HUMAN, {"kind": "bot", "bot": "greedy"}]
    code = call(server, "POST", f"/api/groups/{group}/tables", {"seats": seats}, ana)["code"]

    page = signed_in(new_page, ben)
    page.goto(f"/g/{group}")
    line = page.locator(f'#open-now li[data-code="{code}"]')
    expect(line).to_contain_text("Ana")
    expect(line).to_contain_text("1 seat free")
    expect(line).to_contain_text("waiting for players")
    expect(line).to_contain_text(re.compile(r"opened \d{1,2}:\d{2}"))  # today: the time alone
    check(page, "open tables", ["#open-now li", "#open-now .button"], [(360, 640), (1280, 800)])
    assert axe_violations(page) == []  # at 360 x 640, where check left the window

    # A table opened meanwhile appears on Refresh, without the page being loaded again.
    later = call(server, "POST", f"/api/groups/{group}/tables", {"seats": seats}, ana)["code"]
    page.evaluate("document.querySelector('h1').dataset.loadedOnce = 'yes'")
    page.click("#refresh-open")
    expect(page.locator(f'#open-now li[data-code="{later}"]')).to_contain_text("1 seat free")
    assert page.evaluate("document.querySelector('h1').dataset.loadedOnce") == "yes"
    expect(page.locator("#open-now li").first).to_have_attribute("data-code", later)  # newest

    line.get_by_role("link", name="Join").click()
    page.wait_for_url(f"**/t/{code}")
    page.fill("#seat-name", "Ben")
    page.click("#take-seat")
    expect(page.locator(".hand .card")).to_have_count(10)

    page.goto(f"/g/{group}")
    expect(line).to_contain_text("Ana and Ben")
    expect(line).to_contain_text("full")
    expect(line).to_contain_text("in play")
    expect(line.get_by_role("link", name="Back to the table")).to_have_attribute(
        "href", f"/t/{code}"
    )
