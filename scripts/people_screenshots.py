"""Regenerate docs/screenshots/profile_*.png and group_*.png: a person's profile page (with their
history, one game with the coach's review) and a group's page (a table open now, standings,
rating plot, recent games, the evening), in de, fr and en, on a phone (390×844) and a desktop
(1280×800).

It starts its own ``nimmt serve`` (fixed deal seed, bots without delay) on a free port with a
throw-away database. Ana and Ben make profiles and a group through the HTTP API; the group plays
one online game (Ana, Ben and a greedy bot, their moves sent on their seat sockets) and two games
with real cards (Ana, Ben and the guest Cy, entered on the assistant's socket); the coach
reviews Ana's online game, and Ben opens the next table (open on the group's page). Then each
page is opened as Ana in Chromium and photographed whole.

    uv run python scripts/people_screenshots.py [--out docs/screenshots]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import threading
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

# The browser tests' own way to start a server and launch Chromium, shared, not copied.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "browser"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
from browser_helpers import CHROMIUM, CHROMIUM_ARGS, start_server, stop_server
from playwright.sync_api import sync_playwright
from tests.server.server_helpers import play_served_seat
from websockets.sync.client import connect

from nimmt.engine import Game, Phase, draw_deal
from throwaway import free_port

DEVICES: dict[str, dict[str, Any]] = {
    "phone": {
        "viewport": {"width": 390, "height": 844},
        "device_scale_factor": 2,
        "is_mobile": True,
        "has_touch": True,
    },
    "desktop": {"viewport": {"width": 1280, "height": 800}},
}
LOCALES = {"de": "de-DE", "fr": "fr-FR", "en": "en-US"}


class Api:
    def __init__(self, base: str) -> None:
        self.base = base

    def __call__(self, method: str, path: str, body: Any = None, secret: str = "") -> Any:
        headers = {"Content-Type": "application/json"}
        if secret:
            headers["Authorization"] = f"Bearer {secret}"
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data, headers, method=method)
        with urllib.request.urlopen(request, timeout=300) as response:
            return json.loads(response.read())


def socket_url(base: str, code: str, token: str) -> str:
    return base.replace("http://", "ws://") + f"/ws/{code}?token={token}"


def play_seat(base: str, code: str, token: str, pick: Callable[[list[int]], int]) -> None:
    """One person: ``pick`` of the legal cards each turn, the cheapest row when asked."""
    play_served_seat(socket_url(base, code, token), pick, timeout=120)


def real_cards_entries(seed: int, players: int) -> list[dict[str, Any]]:
    """A whole game through the engine with random legal cards, as the assistant's entries."""
    rng = random.Random(seed)
    game = Game(players)
    entries: list[dict[str, Any]] = []
    while game.phase is not Phase.GAME_OVER:
        rows, hands = draw_deal(rng, players)
        game.apply_deal(rows, hands)
        entries.append({"type": "assist_rows", "cards": [row[0] for row in rows]})
        while game.phase is Phase.CHOOSING_CARDS:
            cards = [rng.choice(game.hand(seat)) for seat in range(players)]
            entries.append({"type": "assist_turn", "cards": cards})
            row = None
            if game.round_state().needs_row_choice(cards):
                row = rng.randrange(4)
                entries.append({"type": "assist_row", "row": row})
            game.play_turn(cards, row)
    return entries


def enter(base: str, code: str, token: str, entries: list[dict[str, Any]]) -> None:
    with connect(socket_url(base, code, token)) as socket:
        version = -1
        for entry in entries:
            socket.send(json.dumps(entry))
            while True:
                message = json.loads(socket.recv(timeout=60))
                if message["type"] == "error":
                    raise SystemExit(f"error: the entry {entry} was refused: {message}")
                if message["type"] == "state" and message["version"] > version:
                    version = message["version"]
                    break


def evening(api: Api, base: str) -> tuple[str, str]:
    """The group's evening as described in the module; Ana's secret and the group's code."""
    ana = api("POST", "/api/profile", {"name": "Ana", "emoji": "🦊", "colour": "#1f5a45"})
    ben = api("POST", "/api/profile", {"name": "Ben", "emoji": "🐮", "colour": "#8c3fa8"})
    ana_secret, ben_secret = ana["secret"], ben["secret"]
    group = api("POST", "/api/groups", {"name": "Thursdays at Ana's"}, ana_secret)["group"]
    invite = api("POST", f"/api/groups/{group['code']}/invite", None, ana_secret)["invite"]
    api("POST", "/api/groups/join", {"invite": invite}, ben_secret)

    seats = [{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "bot": "greedy"}]
    made = api("POST", f"/api/groups/{group['code']}/tables", {"seats": seats}, ana_secret)
    joined = api("POST", f"/api/tables/{made['code']}/join", {"name": "Ben"}, ben_secret)
    players = [
        threading.Thread(target=play_seat, args=(base, made["code"], made["token"], min)),
        threading.Thread(target=play_seat, args=(base, made["code"], joined["token"], max)),
    ]
    for thread in players:
        thread.start()
    for thread in players:
        thread.join()

    members = [{"profile": ana["profile"]["id"]}, {"profile": ben["profile"]["id"]}, {"name": "Cy"}]
    for seed in (3, 8):
        real = api(
            "POST", f"/api/groups/{group['code']}/assisted", {"players": members}, ana_secret
        )
        enter(base, real["code"], real["token"], real_cards_entries(seed, 3))
    api("GET", f"/api/tables/{made['code']}/analysis?seat=0")  # the coach reviews Ana's game
    # Ben opens the next table, which the group's page lists as open, waiting for people.
    seats = [{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "bot": "medium"}]
    api("POST", f"/api/groups/{group['code']}/tables", {"seats": seats}, ben_secret)
    return ana_secret, group["code"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("docs/screenshots"))
    out: Path = parser.parse_args().out
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as db_dir, sync_playwright() as playwright:
        work = Path(db_dir)
        # Entries come as fast as the server answers: past the sockets' limit for people.
        os.environ.update({"NIMMT_SOCKET_RATE": "10000", "NIMMT_SOCKET_BURST": "10000"})
        server, base = start_server(work / "shots.db", work / "server.log", port=free_port())
        try:
            secret, group = evening(Api(base), base)
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            for lang, locale in LOCALES.items():
                for device, options in DEVICES.items():
                    context = browser.new_context(base_url=base, locale=locale, **options)
                    context.add_init_script(
                        f"localStorage.setItem('nimmt.profile', {json.dumps(secret)})"
                    )
                    page = context.new_page()
                    page.goto("/me")
                    page.locator("#history li").first.wait_for(timeout=30000)
                    page.wait_for_timeout(300)
                    page.screenshot(path=out / f"profile_{lang}_{device}.png", full_page=True)
                    page.goto(f"/g/{group}")
                    page.locator("#standings svg").wait_for(timeout=30000)
                    page.wait_for_timeout(300)
                    page.screenshot(path=out / f"group_{lang}_{device}.png", full_page=True)
                    context.close()
            browser.close()
        finally:
            stop_server(server)


if __name__ == "__main__":
    main()
