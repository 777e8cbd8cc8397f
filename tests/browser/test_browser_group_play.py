"""A group's page as its members use it between evenings: the owner opens a table for the group
with the options any table has (the bots' level, the coach, the delay before an absent
person's seat may go to a bot), revokes the invite (offered only while one works), and leaves
the group, after which the members left behind manage its invite."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import expect
from tests.browser.browser_helpers import Server
from tests.browser.test_browser_people_pages import call

pytestmark = pytest.mark.browser


def signed_in(new_page: Callable[..., Any], secret: str, **options: Any) -> Any:
    page = new_page(**options)
    page.context.add_init_script(f"localStorage.setItem('nimmt.profile', {secret!r})")
    return page


def test_a_table_for_the_group_with_its_options_and_a_member_who_leaves(
    server: Server, new_page: Callable[..., Any]
) -> None:
    made = {
        name: call(
            server, "POST", "/api/profile", {"name": name, "emoji": "🦊", "colour": "#1f5a45"}
        )
        for name in ("Ana", "Ben")
    }
    ana, ben = made["Ana"]["secret"], made["Ben"]["secret"]
    group = call(server, "POST", "/api/groups", {"name": "Thursdays"}, ana)["group"]["code"]
    invite = call(server, "POST", f"/api/groups/{group}/invite", None, ana)["invite"]
    call(server, "POST", "/api/groups/join", {"invite": invite}, ben)

    # Ana, in German: two people, one hard bot, the coach allowed, five minutes' delay.
    page = signed_in(new_page, ana, locale="de-DE")
    page.goto(f"/g/{group}")
    # Too many seats: said beside the button, where she is looking, not at the page's top.
    page.fill("#group-people", "8")
    page.fill("#group-bots", "5")
    page.get_by_role("button", name="Tisch für die Gruppe eröffnen").click()
    expect(page.locator("#play .form-error")).to_contain_text("2 bis 10 Plätze")
    expect(page.locator("#play .form-error")).to_be_in_viewport()
    page.fill("#group-people", "2")
    page.fill("#group-bots", "1")
    page.select_option("#group-level", "hard")
    expect(page.locator("#group-level option:checked")).to_have_text("schwer")
    page.check("#group-coach")
    page.select_option("#group-away", "300")
    page.get_by_role("button", name="Tisch für die Gruppe eröffnen").click()
    page.wait_for_url("**/t/*")
    code = page.url.rsplit("/", 1)[1]
    table = server.api("GET", f"/api/tables/{code}")
    assert [seat["kind"] for seat in table["seats"]] == ["human", "human", "bot"]
    assert table["seats"][2]["bot"] == "hard"
    assert table["coach"] is True
    assert table["absence"]["away_seconds"] == 300

    # Ana revokes the invite: there is none left to revoke.
    page.goto(f"/g/{group}")
    page.get_by_role("button", name="Einladung widerrufen").click()
    expect(page.locator("#revoke-invite")).to_have_count(0)
    assert call(server, "GET", f"/api/groups/{group}", None, ana)["group"]["invite_open"] is False

    # Ana leaves the group (she confirms); Ben, left behind, may now invite.
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_role("button", name="Gruppe verlassen").click()
    page.wait_for_url("**/me")
    expect(page.locator("#history")).to_be_visible()
    expect(page.get_by_role("link", name="Thursdays")).to_have_count(0)
    ben_page = signed_in(new_page, ben)
    ben_page.goto(f"/g/{group}")
    expect(ben_page.locator("#members li")).to_have_count(1)
    expect(ben_page.locator("#revoke-invite")).to_have_count(0)
    ben_page.get_by_role("button", name="New invite link").click()
    expect(ben_page.locator("#invite-link")).to_be_visible()
    expect(ben_page.locator("#revoke-invite")).to_be_visible()
    assert "/g/join?token=" in ben_page.input_value("#invite-link")
