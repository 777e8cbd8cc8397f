"""Profiles and groups as new users meet them in a real browser: Ana makes a profile in one
step and opens a group, moves her profile to a second device by the one-time link, and Ben
joins the group by its invite (making his profile on the way). Screenshots of the profile and
group pages land in the test's folder."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import expect
from tests.waiting import wait_until

PHONE = {"width": 390, "height": 844}


def make_profile(page: Any, name: str) -> None:
    page.fill("#profile-name", name)
    page.get_by_role("button", name="🦊").click()
    page.get_by_role("button", name="Make my profile").click()
    page.wait_for_selector("#history")


def test_two_people_a_group_and_a_device_link(new_page: Callable[..., Any], tmp_path: Path) -> None:
    ana = new_page()
    ana.goto("/me")
    make_profile(ana, "Ana")
    assert ana.locator(".history-figures").count() == 0  # no row of zeros before a first game
    assert "No finished game yet." in ana.inner_text("#history")
    ana.screenshot(path=str(tmp_path / "profile-en-desktop.png"), full_page=True)
    ana.fill("#group-name", "Thursdays at Ana's")
    ana.get_by_role("button", name="Open a group").click()
    ana.wait_for_url("**/g/*")
    ana.get_by_role("button", name="New invite link").click()
    invite = ana.input_value("#invite-link")
    assert "/g/join?token=" in invite

    # Ana's phone, signed in by the link from her first device.
    ana.goto("/me")
    ana.get_by_role("button", name="Use on another device").click()
    link = ana.input_value(".device-link .link-field")
    assert (
        ana.locator(".device-link img")
        .get_attribute("src", timeout=5000)
        .startswith("data:image/svg+xml")
    )
    phone = new_page(viewport=PHONE)
    phone.goto(link)
    phone.wait_for_selector("#history")
    assert "Ana" in phone.inner_text("h1")
    assert phone.url.endswith("/me")  # the used-up link is not kept in the address bar
    phone.screenshot(path=str(tmp_path / "profile-en-phone.png"), full_page=True)

    # Ben follows the invite, makes his profile on the way, and lands in the group.
    ben = new_page(locale="de-DE")
    ben.goto(invite)
    ben.get_by_role("link", name="Zu meinem Profil").click()
    ben.fill("#profile-name", "Ben")
    ben.get_by_role("button", name="Profil anlegen").click()
    ben.wait_for_url("**/g/*")
    ben.goto(ben.url)  # the group page, now as a member
    ben.wait_for_selector("#members")
    members = ben.inner_text("#members")
    assert "Ana" in members and "Ben" in members
    ben.screenshot(path=str(tmp_path / "group-de-desktop.png"), full_page=True)
    phone.goto(ben.url)
    phone.wait_for_selector("#standings")
    assert "Ben" in phone.inner_text("#standings")
    phone.screenshot(path=str(tmp_path / "group-en-phone.png"), full_page=True)


def test_a_device_signed_out_or_a_profile_deleted_leaves_the_page_signed_out(
    new_page: Callable[..., Any],
) -> None:
    """After "Sign out" for this device, or deleting the profile, the page shows what a
    browser without a profile sees, not the profile that is gone."""
    for button in ("Sign out", "Delete my profile"):
        page = new_page()
        page.goto("/me")
        make_profile(page, "Zed")
        page.once("dialog", lambda dialog: dialog.accept())
        page.get_by_role("button", name=button).click()
        page.wait_for_selector("#profile-create")
        assert page.locator("#history").count() == 0
        assert page.evaluate("localStorage.getItem('nimmt.profile')") is None


def test_a_refusal_shows_where_it_was_asked_for(new_page: Callable[..., Any]) -> None:
    """On a phone the groups' form is below the avatars: its refusal shows beside it, not at
    the top of the page, out of sight."""
    page = new_page(viewport=PHONE)
    page.goto("/me")
    make_profile(page, "Zed")
    page.fill("#group-name", "Odd\u202ename")  # a character that turns text: refused
    page.get_by_role("button", name="Open a group").click()
    error = page.locator(".panel:has(#group-name) .form-error")
    expect(error).to_be_visible()
    expect(error).to_be_in_viewport()
    assert page.locator(".profile-page > .form-error").count() == 0


def test_the_start_page_s_drop_down_looks_like_its_other_fields(
    new_page: Callable[..., Any],
) -> None:
    page = new_page()
    page.goto("/")
    style = (
        "(el) => { const s = getComputedStyle(el);"
        " return [s.backgroundColor, s.borderTopLeftRadius, s.paddingLeft]; }"
    )

    def looks() -> tuple[list[str], list[str]] | None:
        # The page draws itself again as what it asked for comes: a field read just then is
        # gone (its style empty), so read both once the page stands.
        try:
            look = page.locator("#away-minutes").evaluate(style)
            field = page.locator("#player-name").evaluate(style)
        except PlaywrightError:
            return None
        return None if "" in look + field else (look, field)

    found = wait_until(looks)
    assert found is not None
    look, field = found
    assert look == field == ["rgb(255, 255, 255)", "10px", "12px"], (look, field)
