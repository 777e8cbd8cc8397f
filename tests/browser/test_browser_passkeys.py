"""Passkeys in a real browser, with Chromium's virtual authenticator (the DevTools protocol's
``WebAuthn`` domain) standing in for a phone's: Ana adds a passkey on her computer at
``http://localhost`` (a secure context without TLS), and on another browser that holds the same
passkey (copied into its own virtual authenticator) she signs in with it, without a link. Under
an address (127.0.0.1) the page offers no passkey and says why. axe finds no serious violation
on the profile page with its passkey section, signed in or not."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect
from tests.browser.browser_helpers import Server
from tests.browser.test_browser_home import make_profile
from tests.browser.test_browser_pages import axe_violations

pytestmark = pytest.mark.browser

AUTHENTICATOR = {
    "protocol": "ctap2",
    "transport": "internal",
    "hasResidentKey": True,
    "hasUserVerification": True,
    "isUserVerified": True,
    "automaticPresenceSimulation": True,
}


def localhost(server: Server) -> str:
    return f"http://localhost:{urlsplit(server.base_url).port}"


def virtual_authenticator(page: Any) -> tuple[Any, str]:
    cdp = page.context.new_cdp_session(page)
    cdp.send("WebAuthn.enable", {"enableUI": False})
    made = cdp.send("WebAuthn.addVirtualAuthenticator", {"options": AUTHENTICATOR})
    return cdp, made["authenticatorId"]


def test_a_passkey_made_on_one_browser_signs_in_another(
    new_page: Callable[..., Any], server: Server, tmp_path: Path
) -> None:
    site = localhost(server)
    ana = new_page()
    cdp, authenticator = virtual_authenticator(ana)
    ana.goto(f"{site}/me")
    expect(ana.locator("#passkey-signin-button")).to_be_visible()
    assert axe_violations(ana) == []
    ana.screenshot(path=str(tmp_path / "profile-signin-en-desktop.png"), full_page=True)
    make_profile(ana, "Ana")
    expect(ana.locator("#passkeys")).to_contain_text("No passkey yet.")
    ana.fill("#passkey-name", "Laptop")
    ana.get_by_role("button", name="Add a passkey").click()
    expect(ana.locator("#passkey-list")).to_contain_text("Laptop")
    expect(ana.locator("#passkey-list")).to_contain_text("not used yet")
    assert axe_violations(ana) == []
    ana.screenshot(path=str(tmp_path / "profile-passkeys-en-desktop.png"), full_page=True)

    stored = cdp.send("WebAuthn.getCredentials", {"authenticatorId": authenticator})
    [credential] = stored["credentials"]
    assert credential["rpId"] == "localhost", sorted(credential)
    assert credential["isResidentCredential"] is True  # discoverable: no name asked at sign-in

    # Another browser holding the same passkey (as a synced passkey would be), no link needed.
    phone = new_page(viewport={"width": 390, "height": 844}, locale="fr-FR")
    other, other_authenticator = virtual_authenticator(phone)
    other.send(
        "WebAuthn.addCredential",
        {"authenticatorId": other_authenticator, "credential": credential},
    )
    phone.goto(f"{site}/me")
    phone.get_by_role("button", name="Se connecter avec une clé d’accès").click()
    phone.wait_for_selector("#history")
    assert "Ana" in phone.inner_text("h1")
    expect(phone.locator("#passkey-list")).to_contain_text("Laptop")
    expect(phone.locator("#passkey-list")).not_to_contain_text("pas encore utilisée")
    assert phone.locator(".profile-page .panel").filter(has_text="Cet appareil").count() == 1
    phone.screenshot(path=str(tmp_path / "profile-passkeys-fr-phone.png"), full_page=True)

    # Both browsers are now devices of the profile, each with its own secret.
    ana.reload()
    expect(ana.locator("#passkey-list")).not_to_contain_text("not used yet")
    devices = ana.locator(".profile-page .panel").filter(has_text="Use on another device")
    expect(devices.locator("li")).to_have_count(2)

    # Removed, the passkey signs in nobody any more.
    ana.once("dialog", lambda dialog: dialog.accept())
    ana.get_by_role("button", name="Remove the passkey Laptop").click()
    expect(ana.locator("#passkeys")).to_contain_text("No passkey yet.")
    third = new_page()
    again, again_authenticator = virtual_authenticator(third)
    again.send(
        "WebAuthn.addCredential",
        {"authenticatorId": again_authenticator, "credential": credential},
    )
    third.goto(f"{site}/me")
    third.get_by_role("button", name="Sign in with a passkey").click()
    expect(third.locator(".form-error")).to_contain_text("belongs to no profile here")
    expect(third.locator("#profile-create")).to_be_visible()


def test_under_an_address_no_passkey_is_offered(
    new_page: Callable[..., Any], server: Server
) -> None:
    page = new_page()
    page.goto(f"{server.base_url}/me")  # http://127.0.0.1:PORT
    expect(page.locator("#passkeys-unavailable")).to_contain_text("served by its name over HTTPS")
    expect(page.locator("#passkey-signin-button")).to_have_count(0)
    make_profile(page, "Cleo")
    expect(page.locator("#passkeys #passkeys-unavailable")).to_be_visible()
    expect(page.get_by_role("button", name="Add a passkey")).to_have_count(0)


def test_the_start_page_signs_in_with_a_passkey(
    new_page: Callable[..., Any], server: Server
) -> None:
    site = localhost(server)
    ana = new_page()
    cdp, authenticator = virtual_authenticator(ana)
    ana.goto(f"{site}/")
    expect(ana.locator("#start-passkey-button")).to_be_visible()
    ana.goto(f"{site}/me")
    make_profile(ana, "Dora")
    ana.fill("#passkey-name", "Laptop")
    ana.get_by_role("button", name="Add a passkey").click()
    expect(ana.locator("#passkey-list")).to_contain_text("Laptop")
    ana.goto(f"{site}/")  # signed in here: nothing to offer
    expect(ana.locator("#player-name")).to_be_visible()
    expect(ana.locator("#start-passkey")).to_have_count(0)
    [credential] = cdp.send("WebAuthn.getCredentials", {"authenticatorId": authenticator})[
        "credentials"
    ]

    # Another browser holding the passkey signs in from the start page, in German.
    phone = new_page(viewport={"width": 390, "height": 844}, locale="de-DE")
    other, other_authenticator = virtual_authenticator(phone)
    other.send(
        "WebAuthn.addCredential", {"authenticatorId": other_authenticator, "credential": credential}
    )
    phone.goto(f"{site}/")
    phone.get_by_role("button", name="Mit Passkey anmelden").click()
    expect(phone.locator("#start-signed-in")).to_contain_text("Angemeldet als Dora")
    expect(phone.locator("#player-name")).to_have_value("Dora")
    expect(phone.locator("#start-passkey-button")).to_have_count(0)
    assert axe_violations(phone) == []
    phone.goto(f"{site}/me")
    phone.wait_for_selector("#history")
    assert "Dora" in phone.inner_text("h1")

    # Under an address (no passkey can work there) the start page offers none.
    plain = new_page()
    plain.goto(f"{server.base_url}/")
    expect(plain.locator("#player-name")).to_be_visible()
    expect(plain.locator("#start-passkey")).to_have_count(0)
