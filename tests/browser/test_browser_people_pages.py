"""The profile and group pages as a group sees them after an evening, in de, fr and en, on
phones (360 to 430 px wide) and desktops: the standings table fits with all its columns (short
titles with a key on phones), the rating plot has axis titles, a legend and a table of its
figures, numbers and plurals follow the page's language, a deleted member is "a former player"
in the page's language, the evening names its guest and bot winners as such, axe-core finds no
serious violation, and the felt covers the whole page however long it is.

One group for the module, through the HTTP API: Ana, Ben and Dee with profiles, two games with
real cards (Ana, Ben, Dee and the guest Cy; then Ana, Ben and Cy), then Dee deletes her profile.
"""

from __future__ import annotations

import base64
import json
import re
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from tests.browser.browser_helpers import Server
from tests.browser.test_browser_group_evening import enter_real_game
from tests.browser.test_browser_pages import DESKTOPS, PHONES, axe_violations, check

pytestmark = [pytest.mark.browser, pytest.mark.slow]

LOCALES = {"de": "de-DE", "fr": "fr-FR", "en": "en-US"}
FORMER = {"de": "ein ehemaliger Mitspieler", "fr": "un ancien joueur", "en": "a former player"}
GUEST = {"de": "dem Gast Cy", "fr": "l’invité Cy", "en": "the guest Cy"}


def call(server: Server, method: str, path: str, body: Any = None, secret: str = "") -> Any:
    headers = {"Content-Type": "application/json"}
    if secret:
        headers["Authorization"] = f"Bearer {secret}"
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(server.base_url + path, data, headers, method=method)
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


@pytest.fixture(scope="module")
def evening(server: Server) -> Iterator[dict[str, Any]]:
    made = {
        name: call(server, "POST", "/api/profile", {"name": name, "emoji": "🦊", "colour": colour})
        for name, colour in (("Ana", "#1f5a45"), ("Ben", "#8c3fa8"), ("Dee", "#2e6fb7"))
    }
    ana = made["Ana"]["secret"]
    group = call(server, "POST", "/api/groups", {"name": "Thursdays at Ana's"}, ana)["group"]
    invite = call(server, "POST", f"/api/groups/{group['code']}/invite", None, ana)["invite"]
    for name in ("Ben", "Dee"):
        call(server, "POST", "/api/groups/join", {"invite": invite}, made[name]["secret"])
    member = {name: {"profile": made[name]["profile"]["id"]} for name in made}
    for players in (
        [member["Ana"], member["Ben"], member["Dee"], {"name": "Cy"}],
        [member["Ana"], member["Ben"], {"name": "Cy"}],
    ):
        path = f"/api/groups/{group['code']}/assisted"
        real = call(server, "POST", path, {"players": players}, ana)
        enter_real_game(server, real["code"], real["token"], len(players))
    call(server, "DELETE", "/api/profile", None, made["Dee"]["secret"])
    page = call(server, "GET", f"/api/groups/{group['code']}", None, ana)
    yield {"secret": ana, "code": group["code"], "page": page}


def open_as_ana(new_page: Any, evening: dict[str, Any], lang: str, path: str) -> Any:
    page = new_page(locale=LOCALES[lang])
    page.context.add_init_script(
        f"localStorage.setItem('nimmt.profile', {json.dumps(evening['secret'])})"
    )
    page.goto(path)
    return page


def open_group(new_page: Any, evening: dict[str, Any], lang: str) -> Any:
    page = open_as_ana(new_page, evening, lang, f"/g/{evening['code']}")
    page.locator("#rating-plot svg").wait_for()
    return page


@pytest.mark.parametrize("lang", list(LOCALES))
def test_the_group_page_fits_every_phone_and_passes_axe(
    new_page: Any, evening: dict[str, Any], lang: str
) -> None:
    page = open_group(new_page, evening, lang)
    cells = [".standings thead th", ".standings tbody td", ".standings tbody th"]
    plot = ["#rating-plot svg", ".plot-legend li", ".evening"]
    # Every column of every line inside the window and its scrolling box: nothing cut off.
    check(page, f"group {lang}", cells + plot, PHONES + DESKTOPS, down=False)
    page.set_viewport_size({"width": 360, "height": 640})
    assert axe_violations(page) == []
    # On a phone the short titles show, each with its whole title and a key under the table.
    short = page.locator(".standings thead abbr.col-short")
    assert short.count() == 5
    assert short.first.is_visible()
    assert page.locator(".standings-key").is_visible()
    for title in short.all():
        assert title.get_attribute("title")
    heights = page.eval_on_selector_all(
        ".standings thead th", "(ths) => ths.map((th) => th.getBoundingClientRect().height)"
    )
    assert max(heights) < 40, f"a column title wraps on a phone: {heights}"
    region = page.locator(".table-scroll")
    assert region.get_attribute("tabindex") == "0" and region.get_attribute("aria-label")


@pytest.mark.parametrize("lang", list(LOCALES))
def test_the_group_page_speaks_the_pages_language(
    new_page: Any, evening: dict[str, Any], lang: str
) -> None:
    page = open_group(new_page, evening, lang)
    body = page.inner_text("body")
    assert "a former player" not in body or lang == "en"
    assert FORMER[lang] in page.inner_text("#recent")
    # Decimals with the language's separator; the CSV's figures stay with dots (server side).
    rating = next(line for line in evening["page"]["standings"] if line["name"] == "Ana")
    per_round = f"{rating['bullheads_per_round']:.2f}"
    shown = per_round.replace(".", ",") if lang in ("de", "fr") else per_round
    assert shown in page.inner_text(".standings tbody")
    # The evening: members first, the guest said to be one; a winner's count has its plural.
    line = page.inner_text(".evening")
    guest_wins = sum(
        p["wins"] for e in evening["page"]["evenings"] for p in e["players"] if p["name"] == "Cy"
    )
    if guest_wins:
        assert GUEST[lang] in line
    assert not re.search(r"\b1 (wins|Siege|victoires)\b", line), line
    # The plot: axis titles, a legend with the members who played, its figures as a table.
    figure = page.locator("#rating-plot")
    assert page.locator("#rating-plot figcaption").inner_text()
    assert page.locator("#rating-plot .y-axis").inner_text()
    assert page.locator("#rating-plot .x-axis").inner_text()
    legend = page.locator(".plot-legend li").all_inner_texts()
    assert sorted(text.strip() for text in legend) == ["Ana", "Ben"]
    table = figure.locator("table")
    assert table.locator("tbody tr").count() == 2  # one line a rated game
    assert table.locator("thead th").all_inner_texts()[1:] != []
    ticks = page.locator("#rating-plot svg text").all_text_contents()
    assert "1" in ticks and "2" in ticks  # the games across


def test_the_profile_page_counts_in_the_right_plural_and_passes_axe(
    new_page: Any, evening: dict[str, Any], server: Server
) -> None:
    history = call(server, "GET", "/api/profile/history", None, evening["secret"])
    totals = history["totals"]
    page = open_as_ana(new_page, evening, "de", "/me")
    page.locator("#history li").first.wait_for()
    figures = page.inner_text(".history-figures")

    def de(count: int, one: str, many: str) -> str:
        return f"{count} {one if count == 1 else many}"

    assert figures.startswith(de(totals["games"], "Partie", "Partien") + " · ")
    assert de(totals["clean_rounds"], "Runde ohne", "Runden ohne") in figures
    assert de(totals["rows_taken"], "Reihe genommen", "Reihen genommen") in figures
    assert f"{totals['bullheads_per_round']:.2f}".replace(".", ",") in figures
    assert "a former player" not in page.inner_text("body")
    check(page, "profile de", ["#history li", ".history-figures"], PHONES[:2] + DESKTOPS[:1], False)
    page.set_viewport_size({"width": 390, "height": 844})
    assert axe_violations(page) == []


PIXELS = """async ([png, points]) => {
  const image = new Image();
  image.src = `data:image/png;base64,${png}`;
  await image.decode();
  const canvas = document.createElement("canvas");
  canvas.width = image.width; canvas.height = image.height;
  const context = canvas.getContext("2d");
  context.drawImage(image, 0, 0);
  const at = ([x, y]) => context.getImageData(x, Math.min(y, image.height - 1), 1, 1).data;
  return points.map((point) => [...at(point)]);
}"""


@pytest.mark.parametrize("path", ["/me", "group"])
def test_the_felt_covers_the_whole_long_page(
    new_page: Any, evening: dict[str, Any], path: str
) -> None:
    target = f"/g/{evening['code']}" if path == "group" else path
    page = open_as_ana(new_page, evening, "en", target)
    page.locator("#history li, #rating-plot svg").first.wait_for()
    page.set_viewport_size({"width": 1280, "height": 600})
    height = page.evaluate("document.documentElement.scrollHeight")
    assert height > 1200, "the page is not long enough to test"
    png = base64.b64encode(page.screenshot(full_page=True)).decode()
    # The left margin beside the panels, at the top, the middle and the very bottom.
    found = page.evaluate(PIXELS, [png, [[8, 80], [8, height // 2], [8, height - 4]]])
    for red, green, blue, _alpha in found:
        assert green > red + 15 and green > blue and green < 140, f"not the felt: {found}"
