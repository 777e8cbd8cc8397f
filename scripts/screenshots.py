"""Regenerate docs/screenshots/*.png: the start page and the web table (desktop and phone
portrait) during a turn, at a row choice, and with the score sheet, a hand with the coach's
figures, plus a rules page; a table of ten held sideways on a phone (in French) at a row choice,
and the TV board at ten seats; the assistant for a game with real cards (desktop and phone) while
a turn is typed in and when a player must name the row they take; the replay viewer (desktop
and phone) and the board view on a TV.

It starts its own ``nimmt serve`` (fixed deal seed, bots without delay) on a free port with a
throw-away database, and drives two people (Ana on a desktop, Ben on a phone) through Debian's
Chromium. Each person plays their lowest card. With the fixed deal Ben, in the third seat, holds
the 1, below every row: he must choose a row in the first turn (if the deal ever stops bringing
him that choice, the script ends with an error rather than shoot another moment).

    uv run python scripts/screenshots.py [--out docs/screenshots] [--game-over] [--only NAME ...]

``--only table_row_choice_desktop table_row_choice_phone`` writes just those shots and stops
once they are taken (the game is still played up to them).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import re
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

# The browser tests' own way to start a server and launch Chromium, shared, not copied.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # browser_helpers imports tests.*
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
TV = {"viewport": {"width": 1920, "height": 1080}}
SIDEWAYS = {
    "viewport": {"width": 844, "height": 390},
    "device_scale_factor": 2,
    "is_mobile": True,
    "has_touch": True,
}
PHONE = {
    "viewport": {"width": 390, "height": 844},
    "device_scale_factor": 2,
    "is_mobile": True,
    "has_touch": True,
}


# The shots still to write with ``--only`` (file names without .png); None: write all.
WANTED: set[str] | None = None


class AllTaken(Exception):
    """Every shot asked for with ``--only`` is written: the rest of the run is not needed."""


def shoot(page: Any, path: Path) -> None:
    """Write ``page``'s screenshot to ``path`` unless ``--only`` leaves it out."""
    if WANTED is not None and path.stem not in WANTED:
        return
    page.screenshot(path=path)
    if WANTED is not None:
        WANTED.discard(path.stem)
        if not WANTED:
            raise AllTaken


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


ASSIST_NAMES = ("Ana", "Ben", "Cleo", "Dan")
ASSIST_ROWS = (12, 27, 45, 66)
ASSIST_TURNS = ((14, 29, 50, 70), (16, 33, 52, 91))


def type_cards(page: Any, cards: tuple[int, ...]) -> None:
    """As a person types them: 1 to 10 need Space to be complete, the others move on alone."""
    for card in cards:
        page.keyboard.type(str(card))
        if card <= 10:
            page.keyboard.press("Space")


def assist_shots(page: Any, out: Path, device: str) -> None:
    """A game with real cards started on ``page``: two turns placed, the third being typed (on
    the phone with a card refused because it is on the table already), then a 5 that is below
    every row, so its player is asked which row they take."""
    page.goto("/")
    page.click("#add-real-name")
    for index, name in enumerate(ASSIST_NAMES):
        page.fill(f"#real-name-{index}", name)
    page.click("#start-real-cards")
    page.locator('.assist-entry[data-entry="rows/0/0"]').wait_for()
    type_cards(page, ASSIST_ROWS)
    page.keyboard.press("Enter")
    for turn, cards in enumerate(ASSIST_TURNS):
        page.locator(f'.assist-entry[data-entry="cards/1/{turn}"]').wait_for()
        type_cards(page, cards)
        page.keyboard.press("Enter")
    page.locator('.assist-entry[data-entry="cards/1/2"]').wait_for()
    type_cards(page, (18, 35, 55))
    if device == "phone":
        type_cards(page, (45,))  # on a row already: refused in place
    # The board follows once the second turn's cards have reached their rows.
    page.locator(".assist-board .row-slots .card", has_text="91").wait_for()
    page.locator(".assist-board .reveal").wait_for(state="hidden")
    settle(page)
    shoot(page, out / f"assist_turn_{device}.png")
    page.locator(".assist-field").nth(3).fill("")
    page.locator(".assist-field").nth(3).focus()
    type_cards(page, (93,))
    page.keyboard.press("Enter")
    page.locator('.assist-entry[data-entry="cards/1/3"]').wait_for()
    type_cards(page, (5, 40, 60, 95))
    page.keyboard.press("Enter")
    page.locator(".assist-board .rows.choosing").wait_for()
    settle(page)
    shoot(page, out / f"assist_row_{device}.png")


def coach_table(page: Any, name: str) -> None:
    """``name`` opens a table allowing the coach, against three bots, and turns the coach on;
    returns once every card of the hand shows its figure."""
    page.goto("/")
    page.fill("#player-name", name)
    page.select_option("#seat-1", "medium")
    page.check("#allow-coach")
    page.click("#create-table")
    page.wait_for_url(re.compile(r"/t/\w{6}$"))
    page.locator(".hand .card").first.wait_for()
    page.keyboard.press("c")
    page.locator(".hand .card .coach-note.best").wait_for(timeout=60_000)
    settle(page)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("docs/screenshots"))
    parser.add_argument("--game-over", action="store_true", help="also play to the end")
    parser.add_argument("--only", nargs="+", metavar="NAME", help="write only these shots")
    options = parser.parse_args()
    global WANTED
    if options.only:
        WANTED = {name.removesuffix(".png") for name in options.only}
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
            shoot(start, out / "start_desktop.png")
            phone_start = context(PHONE, "de-DE")
            phone_start.goto("/")
            settle(phone_start)
            shoot(phone_start, out / "start_phone.png")

            # Ana opens a table for two people and two bots; the lobby shows the link.
            ana = start
            # Ben takes the third seat: with the fixed deal its lowest card is below every row.
            ana.select_option("#seat-1", "medium")
            ana.select_option("#seat-2", "human")
            ana.select_option("#seat-3", "greedy")
            ana.click("#create-table")
            ana.wait_for_url(re.compile(r"/t/\w{6}$"))
            code = ana.url.rsplit("/", 1)[1]
            settle(ana)
            shoot(ana, out / "table_waiting_desktop.png")

            ben = context(PHONE, "de-DE")
            ben.goto(f"/t/{code}")
            ben.fill("#seat-name", "Ben")
            ben.click("#take-seat")
            for page in (ana, ben):
                page.locator(".hand .card").first.wait_for()
            pages = {"Ana": ana, "Ben": ben}

            # A row choice: Ben's lowest card (the 1 of this deal, in the third seat) is below
            # every row in the first turn, so he must choose; Ana waits.
            play_until(
                pages,
                lambda: (
                    any(p.locator(".rows.choosing").count() for p in pages.values())
                    or any(p.locator(".sheet").count() for p in pages.values())
                ),
                choose_rows=False,
            )
            if not ben.locator(".rows.choosing").count():
                raise SystemExit("error: the deal did not bring Ben a row choice; no screenshot")
            for page in pages.values():  # "Ben took a seat" gone from the top of the page
                page.locator("#notice .notice-line").first.wait_for(state="detached")
            settle(ana)
            settle(ben)
            shoot(ana, out / "table_row_choice_desktop.png")
            shoot(ben, out / "table_row_choice_phone.png")
            ben.locator('.row[data-row="0"]').click()

            # A turn: one turn played, then Ana has chosen and Ben is still thinking.
            play_until(pages, lambda: "turn 2" in ana.locator(".table-info").inner_text())
            ana.locator(".hand .card").nth(2).click()
            ana.locator(".hand .card.lifted").wait_for()
            settle(ana)
            settle(ben)
            shoot(ana, out / "table_turn_desktop.png")
            shoot(ben, out / "table_turn_phone.png")

            # The score sheet after round 1.
            play_until(pages, lambda: all(p.locator(".sheet").count() for p in pages.values()))
            settle(ana)
            settle(ben)
            shoot(ana, out / "score_sheet_desktop.png")
            shoot(ben, out / "score_sheet_phone.png")

            # The board on a TV between rounds: the rows of round 2, the sheet beside them.
            tv = context(TV, "en-US")
            tv.goto(f"/t/{code}/board")
            tv.locator(".board-page .rows").wait_for()
            tv.locator(".board-join img").evaluate("img => img.decode()")
            settle(tv)
            shoot(tv, out / "board_tv.png")

            ten_shots(base, out, context)

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
                for page in pages.values():  # the coach's review of the game, once loaded
                    loading = page.locator(".coach-review-loading")
                    loading.wait_for(state="detached", timeout=300_000)
                settle(ana)
                shoot(ana, out / "game_over_desktop.png")
                shoot(ben, out / "game_over_phone.png")

            for device, locale, name in ((DESKTOP, "en-US", "desktop"), (PHONE, "de-DE", "phone")):
                assist_shots(context(device, locale), out, name)

            # The coach: a hand with each card's expected extra bullheads, the best marked.
            coach = context(DESKTOP, "en-US")
            coach_table(coach, "Ana")
            shoot(coach, out / "coach_desktop.png")
            coach_phone = context(PHONE, "fr-FR")
            coach_table(coach_phone, "Ben")
            shoot(coach_phone, out / "coach_phone.png")

            rules = context(PHONE, "fr-FR")
            rules.goto("/rules/fr#exemple")
            settle(rules)
            shoot(rules, out / "rules_phone.png")
            replay_shots(base, out, context)
            browser.close()
        except AllTaken:
            pass
        finally:
            stop_server(server)
    if WANTED:
        raise SystemExit(f"error: no such shot: {', '.join(sorted(WANTED))}")
    for shot in sorted(out.glob("*.png")):
        print(shot)


def create_table(base: str, seats: list[dict[str, str]], name: str | None = None) -> Any:
    """A table made through the JSON API: its code, url and the first seat's token."""
    body: dict[str, Any] = {"seats": seats} | ({"name": name} if name else {})
    request = urllib.request.Request(
        f"{base}/api/tables",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.loads(answer.read())


def ten_shots(base: str, out: Path, context: Any) -> None:
    """Ana and nine bots: her phone held sideways (in French) when she must choose a row, the
    revealed cards beside the rows with their players' names; the TV board of that table."""
    made = create_table(base, [{"kind": "human"}] + [{"kind": "bot", "bot": "greedy"}] * 9, "Ana")
    side = context(SIDEWAYS, "fr-FR")
    side.add_init_script(f"localStorage.setItem('nimmt.token.{made['code']}', '{made['token']}')")
    side.goto(made["url"])
    side.locator(".hand .card").first.wait_for()
    play_until({"Ana": side}, lambda: side.locator(".rows.choosing").count() > 0, choose_rows=False)
    settle(side)
    shoot(side, out / "table_ten_sideways_phone.png")
    tv = context(TV, "en-US")
    tv.goto(f"/t/{made['code']}/board")
    tv.locator(".board-page .seat").nth(9).wait_for()
    tv.locator(".board-join img").evaluate("img => img.decode()")
    settle(tv)
    shoot(tv, out / "board_tv_ten.png")


def replay_shots(base: str, out: Path, context: Any) -> None:
    """A game of Ana (played by ``nimmt bot``) and three bots, finished, then replayed at a turn
    where a row was taken: on a desktop in English, on a phone in German."""
    seats = [
        {"kind": "human"},
        *({"kind": "bot", "bot": bot} for bot in ("medium", "greedy", "easy")),
    ]
    request = urllib.request.Request(
        f"{base}/api/tables",
        data=json.dumps({"seats": seats}).encode(),
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        code = json.loads(answer.read())["code"]
    subprocess.run(
        [sys.executable, "-c", "from nimmt.cli import main; main()", "bot", f"{base}/t/{code}",
         "--bot", "greedy", "--name", "Ana"],
        check=True, capture_output=True, timeout=300,
    )  # fmt: skip
    with urllib.request.urlopen(f"{base}/api/tables/{code}/replay", timeout=10) as answer:
        steps = json.loads(answer.read())["steps"]
    taken = next(
        step for step in steps
        if step["kind"] == "turn" and step["turn"] > 2
        and any(event["type"] == "row_taken" for event in step["events"])
    )  # fmt: skip
    link = f"/t/{code}/replay#r{taken['round']}t{taken['turn']}"
    for device, locale, name in (
        (DESKTOP, "en-US", "replay_desktop"),
        (PHONE, "de-DE", "replay_phone"),
    ):
        page = context(device, locale)
        page.goto(link)
        page.locator(".replay-lines").wait_for()
        settle(page)
        shoot(page, out / f"{name}.png")


if __name__ == "__main__":
    main()
