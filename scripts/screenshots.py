"""Regenerate docs/screenshots/*.png: the start page and the web table (desktop and phone
portrait) during a turn, at a row choice, and with the score sheet, plus a rules page.

It starts its own ``nimmt serve`` (fixed deal seed, bots without delay) on a free port with a
throw-away database, and drives two people (Ana on a desktop, Ben on a phone) through Debian's
Chromium. Each person plays their lowest card, which soon makes one of them choose a row.

    uv run python scripts/screenshots.py [--out docs/screenshots] [--game-over]
"""

from __future__ import annotations

import argparse
import contextlib
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

# The browser tests' own way to start a server and launch Chromium, shared, not copied.
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "browser"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
from browser_helpers import (
    CHROMIUM,
    CHROMIUM_ARGS,
    start_server,
    stop_server,
)
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
from playwright.sync_api import sync_playwright

from throwaway import free_port

DESKTOP = {"viewport": {"width": 1280, "height": 860}}
PHONE = {
    "viewport": {"width": 390, "height": 844},
    "device_scale_factor": 2,
    "is_mobile": True,
    "has_touch": True,
}


def settle(page: Any) -> None:
    """Wait until the page has drawn the last state (no animation running)."""
    page.wait_for_timeout(400)


def play_until(
    pages: dict[str, Any], stop: Any, limit: float = 180.0, choose_rows: bool = True
) -> None:
    """Both people play their lowest card (and take the first row when they must choose one)
    until ``stop()`` is true."""
    deadline = time.monotonic() + limit
    while not stop():
        if time.monotonic() > deadline:
            raise SystemExit("error: the game did not get where the screenshots need it")
        for page in pages.values():
            if page.locator(".sheet").count():
                continue
            if page.locator(".rows.choosing").count():
                if choose_rows:
                    with contextlib.suppress(PlaywrightTimeoutError):
                        page.locator('.row[data-row="0"]').click(timeout=1000)
                continue
            if (
                page.locator(".hand:not(.idle) .card").count()
                and not page.locator(".hand .card.lifted").count()
            ):
                with contextlib.suppress(PlaywrightTimeoutError):
                    page.locator(".hand:not(.idle) .card").first.click(timeout=1000)
        time.sleep(0.05)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("docs/screenshots"))
    parser.add_argument("--game-over", action="store_true", help="also play to the end")
    options = parser.parse_args()
    out: Path = options.out
    out.mkdir(parents=True, exist_ok=True)

    with tempfile.TemporaryDirectory() as db_dir, sync_playwright() as playwright:
        work = Path(db_dir)
        server, base = start_server(work / "shots.db", work / "server.log", port=free_port())
        try:
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)

            def context(device: dict[str, Any], locale: str, speed: str = "2") -> Any:
                made = browser.new_context(base_url=base, locale=locale, **device)
                made.add_init_script(f"localStorage.setItem('nimmt.speed', '{speed}')")
                return made.new_page()

            start = context(DESKTOP, "en-US")
            start.goto("/")
            start.fill("#player-name", "Ana")
            settle(start)
            start.screenshot(path=out / "start_desktop.png")
            phone_start = context(PHONE, "de-DE")
            phone_start.goto("/")
            settle(phone_start)
            phone_start.screenshot(path=out / "start_phone.png")

            # Ana opens a table for two people and two bots; the lobby shows the link.
            ana = start
            ana.select_option("#seat-2", "medium")
            ana.select_option("#seat-3", "greedy")
            ana.click("#create-table")
            ana.wait_for_url(re.compile(r"/t/\w{6}$"))
            code = ana.url.rsplit("/", 1)[1]
            settle(ana)
            ana.screenshot(path=out / "table_waiting_desktop.png")

            ben = context(PHONE, "de-DE")
            ben.goto(f"/t/{code}")
            ben.fill("#seat-name", "Ben")
            ben.click("#take-seat")
            for page in (ana, ben):
                page.locator(".hand .card").first.wait_for()
            pages = {"Ana": ana, "Ben": ben}

            # A turn: one turn played, then Ana has chosen and Ben is still thinking.
            play_until(pages, lambda: "turn 2" in ana.locator(".table-info").inner_text())
            ana.locator(".hand .card").nth(2).click()
            ana.locator(".hand .card.lifted").wait_for()
            settle(ana)
            settle(ben)
            ana.screenshot(path=out / "table_turn_desktop.png")
            ben.screenshot(path=out / "table_turn_phone.png")

            # A row choice: the person whose card is too low, and the other who waits.
            play_until(
                pages,
                lambda: (
                    any(p.locator(".rows.choosing").count() for p in pages.values())
                    or ana.locator(".sheet").count() > 0
                ),
                choose_rows=False,
            )
            settle(ana)
            settle(ben)
            ana.screenshot(path=out / "table_row_choice_desktop.png")
            ben.screenshot(path=out / "table_row_choice_phone.png")
            for page in pages.values():
                if page.locator(".rows.choosing").count():
                    page.locator('.row[data-row="0"]').click()

            # The score sheet after round 1.
            play_until(pages, lambda: all(p.locator(".sheet").count() for p in pages.values()))
            settle(ana)
            settle(ben)
            ana.screenshot(path=out / "score_sheet_desktop.png")
            ben.screenshot(path=out / "score_sheet_phone.png")

            if options.game_over:
                for page in pages.values():
                    page.evaluate("localStorage.setItem('nimmt.speed', '4')")

                def over() -> bool:
                    for page in pages.values():
                        if page.locator("#sheet-continue").count():
                            page.locator("#sheet-continue").click()
                        if page.locator(".rows.choosing").count():
                            page.locator('.row[data-row="0"]').click()
                    return all(p.locator("#rematch").count() for p in pages.values())

                play_until(pages, over, limit=600)
                settle(ana)
                ana.screenshot(path=out / "game_over_desktop.png")
                ben.screenshot(path=out / "game_over_phone.png")

            rules = context(PHONE, "fr-FR")
            rules.goto("/rules/fr#exemple")
            settle(rules)
            rules.screenshot(path=out / "rules_phone.png")
            browser.close()
        finally:
            stop_server(server)
    for shot in sorted(out.glob("*.png")):
        print(shot)


if __name__ == "__main__":
    main()
