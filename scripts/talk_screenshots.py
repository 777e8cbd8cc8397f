"""Regenerate docs/screenshots/talk_{de,fr,en}_{desktop,phone}.png: the web table with its talk
open, in each language, on a desktop and on a phone held upright (390x844).

Like ``scripts/screenshots.py`` (whose devices and server start it shares), it starts its own
``nimmt serve`` on a free port with a throw-away database. At each table Ana and Ben (and a
bot) exchange a few lines and reactions; the screenshot is Ana's page, with Ben's last reaction
by his seat.

    uv run python scripts/talk_screenshots.py [--out docs/screenshots]

Emoji come out in colour where a colour emoji font is installed (on Debian:
``apt-get install fonts-noto-color-emoji``), in black and white otherwise.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import urllib.request
from pathlib import Path
from typing import Any

# The shared helpers: tests.waiting, the browser tests' server start, throwaway's free port.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "browser"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
from browser_helpers import CHROMIUM, CHROMIUM_ARGS, start_server, stop_server
from playwright.sync_api import sync_playwright
from screenshots import DESKTOP, PHONE, settle

from throwaway import free_port

LOCALES = {"de": "de-DE", "fr": "fr-FR", "en": "en-US"}
TALK = {
    "de": ["Viel Glück euch allen!", "Die 55 kriege bestimmt ich …", "Nächste Runde zahle ich."],
    "fr": ["Bonne chance à tous\u202f!", "Le 55, c’est pour moi, je le sens…", "Je me rattrape."],
    "en": ["Good luck, everyone!", "That 55 has my name on it…", "Next round is mine."],
}


def api(base: str, path: str, body: dict[str, Any]) -> Any:
    request = urllib.request.Request(
        base + path, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.loads(answer.read())


def table_page(browser: Any, base: str, device: dict[str, Any], lang: str, code: str,
               token: str, name: str) -> Any:  # fmt: skip
    context = browser.new_context(base_url=base, locale=LOCALES[lang], **device)
    context.add_init_script(
        f"localStorage.setItem('nimmt.token.{code}', {json.dumps(token)});"
        f"localStorage.setItem('nimmt.name', {json.dumps(name)});"
    )
    page = context.new_page()
    page.goto(f"/t/{code}")
    page.locator(".hand .card").first.wait_for()
    page.locator("#talk-toggle").click()
    page.locator("#talk-panel").wait_for()
    return page


def say(page: Any, text: str) -> None:
    page.locator("#talk-input").fill(text)
    page.locator("#talk-input").press("Enter")
    page.locator(".talk-line", has_text=text).first.wait_for()


def shot(browser: Any, base: str, out: Path, lang: str, device: dict[str, Any], kind: str) -> Path:
    seats = [{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "bot": "medium"}]
    made = api(base, "/api/tables", {"seats": seats, "name": "Ana"})
    code = made["code"]
    ben_token = api(base, f"/api/tables/{code}/join", {"name": "Ben"})["token"]
    ana = table_page(browser, base, device, lang, code, made["token"], "Ana")
    ben = table_page(browser, base, DESKTOP, lang, code, ben_token, "Ben")
    first, second, third = TALK[lang]
    say(ben, first)
    ana.locator('.talk-reaction[data-reaction="thanks"]').click()
    say(ana, second)
    ben.locator('.talk-reaction[data-reaction="laugh"]').click()
    say(ben, third)
    ben.locator('.talk-reaction[data-reaction="well_played"]').click()
    ana.locator('.seat[data-seat="1"] .talk-bubble.react').wait_for()
    ana.locator("#talk-input").fill("😂")
    settle(ana)
    path = out / f"talk_{lang}_{kind}.png"
    ana.screenshot(path=path)
    for page in (ana, ben):
        page.context.close()
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("docs/screenshots"))
    out: Path = parser.parse_args().out
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as db_dir, sync_playwright() as playwright:
        work = Path(db_dir)
        server, base = start_server(work / "talk.db", work / "server.log", port=free_port())
        try:
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            for lang in LOCALES:
                for device, kind in ((DESKTOP, "desktop"), (PHONE, "phone")):
                    print(shot(browser, base, out, lang, device, kind))
            browser.close()
        finally:
            stop_server(server)


if __name__ == "__main__":
    main()
