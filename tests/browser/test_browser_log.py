"""The game log and the last-turn strip in the browser: what a turn did (lowest card first,
where each card went, who took what), kept after the animation, rebuilt after a reload, the
same for a spectator; the log opens by button or the L key beside the rows on a wide screen and
over the table on a phone (Escape closes it, focus goes back). And a rematch by agreement of
two people, with the first game's record still downloadable."""

from __future__ import annotations

import contextlib
import json
import re
import time
from typing import Any

import pytest
from playwright.sync_api import expect
from tests.browser.browser_helpers import Server
from websockets.sync.client import connect

from nimmt.engine import total_bullheads

pytestmark = pytest.mark.browser

GREEDY = {"kind": "bot", "bot": "greedy"}


def spectator_view(server: Server, code: str) -> dict[str, Any]:
    url = server.base_url.replace("http://", "ws://") + f"/ws/{code}"
    with connect(url) as socket:
        while True:
            message: dict[str, Any] = json.loads(socket.recv(timeout=10))
            if message["type"] == "state":
                view: dict[str, Any] = message["view"]
                return view


def seat_page(new_page: Any, code: str, token: str, **options: Any) -> Any:
    page = new_page(**options)
    page.goto("/")
    page.evaluate(f"localStorage.setItem('nimmt.token.{code}', {json.dumps(token)})")
    page.goto(f"/t/{code}")
    return page


def expected_lines(view: dict[str, Any], turn: int, names: list[str]) -> list[str]:
    """The log's sentences for one turn, worked out here from what the server tells a spectator
    (the round's first cards, the turns, the rows chosen): the rules again, apart from the page."""
    rows = [[card] for card in view["round_rows"]]
    lines = []
    for index, cards in enumerate(view["played"][:turn]):
        for card, seat in sorted((card, seat) for seat, card in enumerate(cards)):
            below = [at for at, row in enumerate(rows) if row[-1] < card]
            taken = None
            if not below:
                at = view["chosen_rows"][index]
                taken, why = rows[at], "is lower than every row; row {row} chosen and taken"
            else:
                at = max(below, key=lambda candidate: rows[candidate][-1])
                if len(rows[at]) == 5:
                    taken, why = rows[at], "is the sixth card of row {row} and takes it"
            if taken is not None:
                count = total_bullheads(taken)
                heads = "bullhead" if count == 1 else "bullheads"
                said = why.format(row=at + 1)
                line = f"{names[seat]}: {card} {said}: {count} {heads}"
                rows[at] = [card]
            else:
                line = f"{names[seat]}: {card} goes to row {at + 1}"
                rows[at].append(card)
            if index == turn - 1:
                lines.append(line)
    return lines


def test_the_log_and_the_last_turn(server: Server, new_page: Any) -> None:
    made = server.api(
        "POST", "/api/tables", {"seats": [{"kind": "human"}, GREEDY, GREEDY], "name": "Ana"}
    )
    code = made["code"]
    ana = seat_page(new_page, code, made["token"])
    expect(ana.locator(".hand .card")).to_have_count(10)
    expect(ana.locator("#last-turn")).to_have_count(0)  # nothing played yet
    ana.keyboard.press("l")
    expect(ana.locator("#game-log")).to_contain_text("Nothing has been played yet in this game.")
    expect(ana.locator("#game-log-title")).to_be_focused()
    ana.keyboard.press("Escape")
    expect(ana.locator("#game-log")).to_have_count(0)
    expect(ana.locator("#open-log")).to_be_focused()

    # With the test server's deals, Ana's lowest card is lower than every row: she takes row 1.
    ana.locator(".hand .card").first.click()
    expect(ana.locator(".rows.choosing")).to_have_count(1)
    expect(ana.locator("#last-turn")).to_have_count(0)  # the turn is not over
    ana.locator('.row[data-row="0"]').click()
    strip = ana.locator("#last-turn")
    expect(strip.locator(".last-turn-title")).to_have_text("Last turn (round 1, turn 1)")
    view = spectator_view(server, code)
    names = ["You", "Bot 2 (greedy)", "Bot 3 (greedy)"]
    lines = expected_lines(view, 1, names)
    cards = sorted(view["played"][0])
    assert view["chosen_rows"][0] == 0 and "row 1 chosen and taken" in lines[0]
    expect(strip.locator(".last-item .mini-card")).to_have_text([str(card) for card in cards])
    expect(strip.locator(".last-item .visually-hidden")).to_have_text(lines)
    # The strip stays once the animation is over and the next turn is being chosen.
    expect(ana.locator("#status")).to_have_text("Choose a card.")
    expect(strip).to_be_visible()

    # The log, by its button: beside the rows at 1280 px, nothing of the rows under it.
    ana.locator("#open-log").click()
    log = ana.locator("#game-log")
    expect(log.locator(".log-round-title")).to_have_text(["Round 1"])
    expect(log.locator(".log-turn-title")).to_have_text(["Turn 1"])
    expect(log.locator(".log-text")).to_have_text(lines)
    rows = ana.locator(".rows").bounding_box()
    drawer = log.bounding_box()
    assert rows is not None and drawer is not None
    assert rows["x"] + rows["width"] <= drawer["x"], (rows, drawer)
    # It follows the table: the next turn comes in on top while it is open.
    ana.locator(".hand:not(.idle) .card").first.click()
    expect(log.locator(".log-turn-title")).to_have_text(["Turn 2", "Turn 1"])
    ana.locator("#close-log").click()
    expect(ana.locator("#game-log")).to_have_count(0)

    # A reload rebuilds the round's log from the state alone.
    view = spectator_view(server, code)
    ana.reload()
    expect(ana.locator(".hand .card")).to_have_count(8)
    ana.locator("#open-log").click()
    expect(ana.locator("#game-log .log-turn-title")).to_have_text(["Turn 2", "Turn 1"])
    expect(ana.locator("#game-log .log-turn").nth(1).locator(".log-text")).to_have_text(lines)

    # A spectator on a phone: the same log, over the table; Escape closes it.
    guest = new_page(viewport={"width": 390, "height": 844})
    guest.goto(f"/t/{code}")
    expect(guest.locator("#last-turn .last-turn-title")).to_have_text("Last turn (round 1, turn 2)")
    guest.locator("#open-log").click()
    guest_lines = [line.replace("You:", "Ana:", 1) for line in lines]
    expect(guest.locator("#game-log .log-turn").nth(1).locator(".log-text")).to_have_text(
        guest_lines
    )
    box = guest.locator("#game-log").bounding_box()
    rows = guest.locator(".rows").bounding_box()
    assert box is not None and rows is not None
    assert box["x"] < rows["x"] + rows["width"] and box["height"] >= 800  # over the table
    guest.keyboard.press("Escape")
    expect(guest.locator("#game-log")).to_have_count(0)
    expect(guest.locator("#open-log")).to_be_focused()


def play_everyone(server: Server, code: str, tokens: list[str]) -> None:
    """Play every person's seat over the socket (lowest card, cheapest row) to game over."""
    base = server.base_url.replace("http://", "ws://")
    acted: dict[int, tuple[Any, ...]] = {}
    deadline = time.monotonic() + 120
    with contextlib.ExitStack() as stack:
        sockets = [stack.enter_context(connect(f"{base}/ws/{code}?token={t}")) for t in tokens]
        over: set[int] = set()
        while len(over) < len(sockets):
            assert time.monotonic() < deadline, "the game did not end within 120 s"
            for seat, socket in enumerate(sockets):
                try:
                    message = json.loads(socket.recv(timeout=0.05))
                except TimeoutError:
                    continue
                if message["type"] != "state":
                    continue
                view = message["view"]
                if view["phase"] == "game_over":
                    over.add(seat)
                    continue
                key = (view["round"], view["turn"], view["phase"])
                if acted.get(seat) == key:
                    continue
                if view["legal_cards"]:
                    acted[seat] = key
                    socket.send(json.dumps({"type": "play", "card": view["legal_cards"][0]}))
                elif view["must_choose_row"]:
                    acted[seat] = key
                    costs = [total_bullheads(row) for row in view["rows"]]
                    socket.send(json.dumps({"type": "choose_row", "row": costs.index(min(costs))}))


def test_a_rematch_needs_everyone(server: Server, new_page: Any) -> None:
    made = server.api(
        "POST",
        "/api/tables",
        {"seats": [{"kind": "human"}, {"kind": "human"}, GREEDY], "name": "Ana"},
    )
    code = made["code"]
    ben = server.api("POST", f"/api/tables/{code}/join", {"name": "Ben"})
    play_everyone(server, code, [made["token"], ben["token"]])

    ana = seat_page(new_page, code, made["token"])
    ben_page = seat_page(new_page, code, ben["token"], locale="de-DE")
    sheet = ana.locator(".sheet")  # opened by itself: the game is over
    expect(sheet.locator("#sheet-title")).to_have_text("Game over")
    expect(sheet.locator("#rematch-status")).to_have_text("0 of 2 ready to play again")
    expect(sheet.locator("#download-record")).to_have_attribute(
        "href", f"/api/tables/{code}/record?game=1"
    )
    ben_sheet = ben_page.locator(".sheet")
    # Ben's page holds the table before Ana agrees (a page that connected only after her vote
    # would get the whole state, without the vote's notice).
    expect(ben_sheet.locator("#rematch-status")).to_have_text("0 von 2 bereit für eine neue Partie")
    sheet.locator("#rematch").click()
    # The notice first: it stays for a few seconds only.
    expect(ben_page.locator("#notice")).to_contain_text("Ana möchte noch eine Partie spielen.")
    expect(sheet.locator("#rematch-status")).to_have_text("1 of 2 ready to play again: you")
    expect(sheet.locator("#rematch-withdraw")).to_be_focused()
    expect(ben_sheet.locator("#rematch-status")).to_have_text(
        "1 von 2 bereit für eine neue Partie: Ana"
    )
    # Ana takes it back, then agrees again; only Ben's agreement starts the game.
    sheet.locator("#rematch-withdraw").click()
    expect(ben_sheet.locator("#rematch-status")).to_have_text("0 von 2 bereit für eine neue Partie")
    sheet.locator("#rematch").click()
    expect(ben_sheet.locator("#rematch-status")).to_have_text(
        "1 von 2 bereit für eine neue Partie: Ana"
    )
    expect(ana.locator(".hand .card")).to_have_count(0)
    ben_sheet.locator("#rematch").click()
    for page in (ana, ben_page):
        expect(page.locator(".sheet")).to_have_count(0)
        expect(page.locator(".hand .card")).to_have_count(10)
    # The bot's seat is named in German on Ben's page; the first game's record is in the log.
    expect(ben_page.locator(".seat-name-text")).to_have_text(["Ana", "Ben", "Bot 3 (gierig)"])
    ana.locator("#open-log").click()
    link = ana.locator("#game-log .log-records a")
    expect(link).to_have_text("Record of game 1")
    record = ana.request.get(link.get_attribute("href") or "").json()
    assert record["meta"]["game"] == 1
    assert re.fullmatch(r"nimmt-[A-Z0-9]{6}-1\.json", link.get_attribute("download") or "")


LAST_TURN_LABELS = """() => [...document.querySelectorAll('#last-turn .last-item')].map((item) => {
  const shown = (el) => el.getClientRects().length > 0;
  const box = (el) => el.getBoundingClientRect();
  const strip = box(item.closest('#last-turn'));
  const name = item.querySelector('.last-name');
  // Where the card went: the sentence on a wide screen, the tiny "+7" or "→ 2" on a phone.
  const where = [...item.querySelectorAll('.last-where, .last-tiny')].find(shown);
  const whole = (el) => {
    const r = box(el);
    const outer = box(item);
    return el.scrollWidth <= el.clientWidth + 1 && r.right <= outer.right + 0.5
      && r.right <= strip.right + 0.5 && r.left >= strip.left - 0.5;
  };
  return {
    card: item.dataset.card,
    name: shown(name) ? { text: name.textContent, width: box(name).width } : null,
    where: where ? { text: where.textContent, whole: whole(where) } : null,
  };
})"""
"""Each line of the last-turn strip: its name's width (null when not shown) and whether its
outcome, with the points of a row taken, shows whole inside the line and the strip."""


@pytest.mark.parametrize("locale", ["fr-FR", "de-DE"])
def test_the_last_turn_keeps_names_and_points_whole(
    server: Server, new_page: Any, locale: str
) -> None:
    # French and German say "ramassez la rangée 1 (+1)", "nimmst Reihe 1 (+1)": once longer
    # than the strip's column at 1280x800, they squeezed the name to nothing and cut the points.
    made = server.api(
        "POST", "/api/tables", {"seats": [{"kind": "human"}, GREEDY, GREEDY, GREEDY], "name": "Ana"}
    )
    ana = seat_page(new_page, made["code"], made["token"], locale=locale)
    expect(ana.locator(".hand .card")).to_have_count(10)
    ana.locator(".hand .card").first.click()  # lower than every row: she takes row 1
    ana.locator('.rows.choosing .row[data-row="0"]').click()
    expect(ana.locator("#last-turn .last-item")).to_have_count(4)
    expect(ana.locator("#last-turn .last-item.took")).to_have_count(1)
    problems = []
    for width, height in [(1280, 800), (844, 390), (390, 844), (360, 640)]:
        ana.set_viewport_size({"width": width, "height": height})
        for line in ana.evaluate(LAST_TURN_LABELS):
            at = f"{width}x{height}, card {line['card']}"
            # A small phone upright shows no names under the cards (the seats above show them).
            if (width, height) != (360, 640):
                if line["name"] is None:
                    problems.append(f"{at}: no name")
                elif line["name"]["width"] < 10:
                    problems.append(f"{at}: the name {line['name']} squeezed")
            if line["where"] is None or not line["where"]["whole"]:
                problems.append(f"{at}: the outcome {line['where']} cut off")
    assert not problems, "\n".join(problems)
