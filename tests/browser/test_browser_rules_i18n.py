"""The rules pages in German, French and English, and the interface's languages: the browser's
language is followed, the switch changes every text and is remembered."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect
from tests.browser.browser_helpers import Server

pytestmark = pytest.mark.browser

RULES = {
    "de": (
        "6 nimmt! — Spielregeln",
        "Wer wählt die Reihe für eine zu kleine Karte?",
        "Genau 66 beendet das Spiel nicht",
    ),
    "fr": (
        "6 qui prend ! — Règles du jeu",
        "Qui choisit la rangée pour une carte trop petite ?",
        "Exactement 66 ne termine pas la partie",
    ),
    "en": (
        "6 nimmt! — Rules of the game",
        "Who chooses the row for a card that is too low?",
        "Exactly 66 does not end the game",
    ),
}


@pytest.mark.parametrize("lang", ["de", "fr", "en"])
def test_rules_page(server: Server, new_page: Any, lang: str) -> None:
    title, faq, end_rule = RULES[lang]
    page = new_page(viewport={"width": 390, "height": 844})
    response = page.goto(f"/rules/{lang}")
    assert response is not None and response.status == 200
    expect(page.locator("html")).to_have_attribute("lang", lang)
    expect(page.locator("h1")).to_have_text(title)
    expect(page.locator(".brand")).to_have_accessible_name(
        "6 qui prend !" if lang == "fr" else "6 nimmt!"
    )
    expect(page.locator("summary").first).to_have_text(faq)
    expect(page.locator("main")).to_contain_text(end_rule)
    # The bullhead table: 55, the other multiples of 11, of 10, of 5, and the rest.
    values = page.locator(".bullhead-table tbody td:nth-child(2)").all_inner_texts()
    assert values == ["7", "5", "3", "2", "1"]
    # The rules page's example, drawn as cards: its last rows.
    example = page.locator(".example-rows").last
    rows = [
        example.locator(f".row >> nth={row}")
        .locator(".card")
        .evaluate_all("els => els.map(e => Number(e.querySelector('.num').textContent))")
        for row in range(4)
    ]
    assert rows == [[30, 36], [3, 9], [43, 44], [58, 61, 68, 83]]
    # Readable on a phone without sideways scrolling.
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    # Links to the other languages.
    for other in {"de", "fr", "en"} - {lang}:
        expect(page.locator(f'.site-nav a[hreflang="{other}"]')).to_have_attribute(
            "href", f"/rules/{other}"
        )
    other = "en" if lang != "en" else "de"
    page.locator(f'.site-nav a[hreflang="{other}"]').click()
    expect(page.locator("h1")).to_have_text(RULES[other][0])


def test_language_follows_the_browser_and_the_switch_is_remembered(
    server: Server, new_page: Any
) -> None:
    page = new_page(locale="de-DE")
    page.goto("/")
    expect(page.locator("html")).to_have_attribute("lang", "de")
    expect(page.locator("#create-form h2")).to_have_text("Neuer Tisch")
    expect(page.locator("#rules-link")).to_have_attribute("href", "/rules/de")

    page.select_option("#lang-select", "fr")
    expect(page.locator("html")).to_have_attribute("lang", "fr")
    expect(page.locator("#create-form h2")).to_have_text("Nouvelle table")
    expect(page.locator("#rules-link")).to_have_text("Règles")
    expect(page.locator("#rules-link")).to_have_attribute("href", "/rules/fr")
    expect(page.locator("#lang-select")).to_be_focused()
    # The French header names the game as French players know it.
    expect(page.locator(".brand")).to_have_accessible_name("6 qui prend !")
    expect(page.locator('.brand [data-i18n="app.brand"]')).to_have_text("qui prend !")

    page.reload()
    expect(page.locator("#create-form h2")).to_have_text("Nouvelle table")

    # The table page speaks the chosen language too, its sentences whole.
    page.fill("#player-name", "Zoé")
    page.click("#create-table")
    page.wait_for_url(re.compile(r"/t/[A-HJ-NP-Z2-9]{6}$"))
    expect(page.locator("#status")).to_have_text(
        "En attente des joueurs : 1 personne sur 2 est assise."
    )
    page.select_option("#lang-select", "en")
    expect(page.locator("#status")).to_have_text("Waiting for players: 1 of 2 people has sat down.")
    page.select_option("#lang-select", "de")
    expect(page.locator("#status")).to_have_text("Warten auf Mitspielende: 1 von 2 Personen sitzt.")
    expect(page.locator(".seat.me .badge")).to_have_text("du")


def test_an_unknown_table_in_french(server: Server, new_page: Any) -> None:
    page = new_page(locale="fr-FR")
    page.goto("/t/ABCDEF")
    expect(page.locator("h1")).to_have_text("Table introuvable")
