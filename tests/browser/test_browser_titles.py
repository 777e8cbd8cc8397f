"""Every page of the app names itself in the tab, in the reader's language: the start page, a
table (with "Your turn" in front while a card waits), its TV board and replay, a group by its
own name, the profile, a table or page that does not exist; and the title follows the language
when the reader switches it."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import expect
from tests.browser.browser_helpers import Server
from tests.browser.test_browser_people_pages import call

pytestmark = pytest.mark.browser


def test_each_page_has_its_own_title(server: Server, new_page: Callable[..., Any]) -> None:
    made = server.api(
        "POST",
        "/api/tables",
        {"seats": [{"kind": "human"}, {"kind": "bot", "bot": "greedy"}], "name": "Ana"},
    )
    code = made["code"]
    profile = call(
        server, "POST", "/api/profile", {"name": "Ana", "emoji": "🦊", "colour": "#1f5a45"}
    )
    group = call(server, "POST", "/api/groups", {"name": "Thursdays"}, profile["secret"])
    page = new_page()
    page.context.add_init_script(f"localStorage.setItem('nimmt.profile', {profile['secret']!r})")
    titles = {
        "/": "6 nimmt! — play online",
        f"/t/{code}/board": f"TV board · table {code} · 6 nimmt!",
        "/replay": "Replay a game · 6 nimmt!",
        f"/t/{code}/replay?game=1": "This game is still being played · 6 nimmt!",
        "/me": "Your profile · 6 nimmt!",
        f"/g/{group['group']['code']}": "Thursdays · 6 nimmt!",
        "/t/ZZZZZZ": "Table not found · 6 nimmt!",
        "/nowhere": "Page not found · 6 nimmt!",
    }
    for path, title in titles.items():
        page.goto(path)
        expect(page).to_have_title(title)

    # Her own seat: the table's code, and "Your turn" while her card is to be chosen.
    page.add_init_script(f"localStorage.setItem('nimmt.token.{code}', {made['token']!r})")
    page.goto(f"/t/{code}")
    expect(page.locator(".hand .card")).to_have_count(10)
    expect(page).to_have_title(f"Your turn · Table {code} · 6 nimmt!")
    # The reader switches to French: the page's part, "your turn" and the game's name with it.
    page.select_option("#lang-select", "fr")
    expect(page.locator("html")).to_have_attribute("lang", "fr")
    expect(page).to_have_title(f"À vous de jouer · Table {code} · 6 qui prend\u202f!")


def test_titles_in_german(server: Server, new_page: Callable[..., Any]) -> None:
    code = server.api("POST", "/api/tables", {"seats": [{"kind": "human"}, {"kind": "human"}]})[
        "code"
    ]
    page = new_page(locale="de-DE")
    for path, title in {
        "/": "6 nimmt! — online spielen",
        f"/t/{code}": f"Tisch {code} · 6 nimmt!",
        f"/t/{code}/replay?game=1": "Diese Partie läuft noch · 6 nimmt!",
    }.items():
        page.goto(path)
        expect(page).to_have_title(title)
