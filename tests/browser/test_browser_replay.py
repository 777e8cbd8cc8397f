"""The replay viewer in the browser: a finished table's game stepped through forwards and
backwards by keys and buttons, a link at a turn, a record file chosen or dropped on the page, a
refused file, a running game refused, and the texts in German."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

import pytest
from playwright.sync_api import expect
from tests.browser.browser_helpers import Server

pytestmark = pytest.mark.browser


def finish_a_game(server: Server) -> str:
    """A table of Ana and two bots, Ana's seat played to game over by ``nimmt bot``; its code."""
    code: str = server.api(
        "POST",
        "/api/tables",
        {
            "seats": [
                {"kind": "human"},
                {"kind": "bot", "bot": "greedy"},
                {"kind": "bot", "bot": "random"},
            ]
        },
    )["code"]
    subprocess.run(
        [sys.executable, "-c", "from nimmt.cli import main; main()", "bot",
         f"{server.base_url}/t/{code}", "--bot", "greedy", "--name", "Ana"],
        check=True, capture_output=True, timeout=120,
    )  # fmt: skip
    assert server.api("GET", f"/api/tables/{code}")["finished"]
    return code


@pytest.fixture(scope="module")
def finished(server: Server) -> Iterator[tuple[str, dict[str, Any], dict[str, Any]]]:
    """A finished game: its code, its record and its replay steps as the server gives them."""
    code = finish_a_game(server)
    yield (
        code,
        server.api("GET", f"/api/tables/{code}/record"),
        server.api("GET", f"/api/tables/{code}/replay"),
    )


def rows_on(page: Any) -> list[list[int]]:
    rows: list[list[int]] = page.locator(".rows .row").evaluate_all(
        "rows => rows.map(r => [...r.querySelectorAll('.slot .card')].map(c => +c.dataset.card))"
    )
    return rows


def expect_step(page: Any, step: dict[str, Any]) -> None:
    """The page shows ``step`` whole: its position, and its rows once any animation is done."""
    expect(page.locator("#replay-position")).to_have_text(position_text(step))
    page.wait_for_function(
        "rows => JSON.stringify([...document.querySelectorAll('.rows .row')].map(r =>"
        " [...r.querySelectorAll('.slot .card')].map(c => +c.dataset.card))) === rows",
        arg=json.dumps(step["rows"], separators=(",", ":")),
    )
    assert rows_on(page) == step["rows"]


def position_text(step: dict[str, Any]) -> str:
    if step["kind"] == "deal":
        return f"Round {step['round']} · the deal"
    if step["kind"] == "scored":
        return f"Round {step['round']} · " + ("game over" if step["outcome"] else "score sheet")
    return f"Round {step['round']} · turn {step['turn']} of 10"


def test_step_through_a_finished_game_by_keys_buttons_and_links(
    finished: tuple[str, dict[str, Any], dict[str, Any]], new_page: Any
) -> None:
    code, record, replay = finished
    steps = replay["steps"]
    page = new_page()
    page.goto(f"/t/{code}/replay")
    expect_step(page, steps[0])
    assert steps[0]["rows"] == record["rounds"][0]["rows"]
    expect(page.locator(".replay-hand .card")).to_have_count(10)
    hand = page.locator(".replay-hand .card").evaluate_all("cs => cs.map(c => +c.dataset.card)")
    assert hand == sorted(record["rounds"][0]["hands"][0])

    # Forwards: the turn's cards revealed lowest first with their owners, then placed.
    page.keyboard.press("ArrowRight")
    first = steps[1]
    expect_step(page, first)
    revealed = sorted((card, seat) for seat, card in enumerate(first["revealed"]))
    expect(page.locator(".reveal .reveal-item")).to_have_count(len(revealed))
    items = page.locator(".reveal .reveal-item").evaluate_all(
        "items => items.map(i => [+i.dataset.card, +i.dataset.seat])"
    )
    assert [tuple(item) for item in items] == revealed
    expect(page.locator(".replay-lines li")).to_have_count(
        sum(e["type"] in ("card_placed", "row_taken") for e in first["events"])
        + (first["row_chosen"] is not None)
    )
    assert page.url.endswith("#r1t1")
    expect(page.locator(".replay-hand .card.lifted")).to_have_attribute(
        "data-card", str(first["revealed"][0])
    )

    # Backwards, and the buttons.
    page.keyboard.press("ArrowLeft")
    expect_step(page, steps[0])
    page.get_by_role("button", name="Next step (right arrow)").click()
    expect_step(page, steps[1])
    page.get_by_role("button", name="Previous step (left arrow)").click()
    expect_step(page, steps[0])

    # End: the final score sheet with the winners; Home: the first deal again.
    page.keyboard.press("End")
    expect_step(page, steps[-1])
    expect(page.locator(".replay-sheet")).to_contain_text("Game over")
    winner = record["players"][replay["winners"][0]]
    expect(page.locator(".replay-sheet .winners")).to_contain_text(winner)
    expect(page.locator(".replay-sheet tbody tr")).to_have_count(3)
    expect(page.get_by_role("button", name="Next step (right arrow)")).to_be_disabled()
    page.keyboard.press("Home")
    expect_step(page, steps[0])
    page.keyboard.press("PageDown")
    expect_step(page, next(s for s in steps if s["round"] == 2 and s["kind"] == "deal"))

    # A link at a turn, as a fragment or a query.
    at = next(s for s in steps if s["round"] == 2 and s["turn"] == 5 and s["kind"] == "turn")
    page.goto(f"/t/{code}/replay#r2t5")
    expect_step(page, at)
    other = new_page()
    other.goto(f"/t/{code}/replay?round=2&turn=5")
    expect_step(other, at)
    other.goto(f"/t/{code}/replay#r1end")
    expect_step(other, next(s for s in steps if s["round"] == 1 and s["kind"] == "scored"))
    expect(other.locator(".replay-sheet")).to_contain_text("Score sheet after round 1")

    # The game-over sheet of the table (a finished table opens on it) links here, to this game.
    table = new_page()
    table.goto(f"/t/{code}")
    table.locator("#open-replay").click()
    table.wait_for_url(f"**/t/{code}/replay?game=1")
    expect_step(table, steps[0])


def test_a_record_file_chosen_or_dropped_and_a_bad_one_refused(
    finished: tuple[str, dict[str, Any], dict[str, Any]], new_page: Any
) -> None:
    _code, record, replay = finished
    page = new_page()
    page.goto("/")
    page.locator("#replay-link").click()
    page.wait_for_url("**/replay")
    expect(page.get_by_role("heading", name="Replay a game")).to_be_visible()
    text = json.dumps(record).encode()

    page.locator("#replay-file").set_input_files(
        {"name": "our-game.json", "mimeType": "application/json", "buffer": text}
    )
    expect_step(page, replay["steps"][0])
    expect(page.locator(".replay-bar")).to_contain_text("File our-game.json")
    page.keyboard.press("End")
    expect_step(page, replay["steps"][-1])

    # Another file: a broken one is refused with its reason, then one dropped on the page.
    page.get_by_role("button", name="Open another record").click()
    broken = json.loads(text)
    broken["rounds"][0]["turns"][0]["cards"][1] = broken["rounds"][0]["turns"][0]["cards"][0]
    page.locator("#replay-file").set_input_files(
        {
            "name": "broken.json",
            "mimeType": "application/json",
            "buffer": json.dumps(broken).encode(),
        }
    )
    alert = page.get_by_role("alert")
    expect(alert).to_contain_text("broken.json is not a game record nimmt can replay")
    expect(alert).to_contain_text("round 1, turn 1:")
    page.locator("#replay-file").set_input_files(
        {"name": "notes.txt", "mimeType": "text/plain", "buffer": b"shopping list"}
    )
    expect(alert).to_contain_text("not valid JSON")

    page.evaluate(
        """text => {
            const data = new DataTransfer();
            data.items.add(new File([text], "dropped.json", { type: "application/json" }));
            const zone = document.querySelector(".replay-drop-page");
            const init = { dataTransfer: data, bubbles: true, cancelable: true };
            zone.dispatchEvent(new DragEvent("dragover", init));
            zone.dispatchEvent(new DragEvent("drop", init));
        }""",
        text.decode(),
    )
    expect_step(page, replay["steps"][0])
    expect(page.locator(".replay-bar")).to_contain_text("File dropped.json")


def test_a_running_game_or_an_unknown_table_is_refused_readably(
    server: Server, new_page: Any
) -> None:
    made = server.api(
        "POST",
        "/api/tables",
        {"seats": [{"kind": "human"}, {"kind": "bot", "bot": "greedy"}], "name": "Ana"},
    )
    page = new_page()
    page.goto(f"/t/{made['code']}/replay")
    expect(page.get_by_role("heading", name="This game is still being played")).to_be_visible()
    expect(page.locator(".page-message")).to_contain_text("every player's hand")
    expect(page.locator(".rows")).to_have_count(0)
    page.get_by_role("link", name="Back to the table").click()
    page.wait_for_url(f"**/t/{made['code']}")
    page.goto("/t/ZZZZZZ/replay")
    expect(page.get_by_role("heading", name="Table not found")).to_be_visible()


def test_the_replay_speaks_german(
    finished: tuple[str, dict[str, Any], dict[str, Any]], new_page: Any
) -> None:
    code, _record, _replay = finished
    page = new_page(locale="de-DE")
    page.goto(f"/t/{code}/replay#r1t2")
    expect(page.locator("#replay-position")).to_have_text("Runde 1 · Zug 2 von 10")
    expect(page.get_by_role("button", name="Nächster Schritt (Pfeil nach rechts)")).to_be_visible()
    page.goto(f"/t/{code}/replay#r1t0")
    expect(page.locator("#replay-position")).to_have_text("Runde 1 · das Austeilen")


@pytest.mark.slow  # the coach analyses two seats' whole games
def test_the_coachs_analysis_overlays_the_hand_when_asked(
    finished: tuple[str, dict[str, Any], dict[str, Any]], server: Server, new_page: Any
) -> None:
    code, _record, replay = finished
    page = new_page()
    page.goto(f"/t/{code}/replay#r1t2")
    expect(page.locator(".coach-figure")).to_have_count(0)
    toggle = page.get_by_role("button", name="Show the coach's analysis for Ana")
    toggle.click()
    expect(toggle).to_have_attribute("aria-pressed", "true")
    step = next(
        s for s in replay["steps"] if s["kind"] == "turn" and (s["round"], s["turn"]) == (1, 2)
    )
    hand = step["hands"][0]
    # The analysis of a whole game takes the coach a while on a busy machine.
    expect(page.locator(".replay-hand .coach-figure")).to_have_count(len(hand), timeout=180_000)

    analysis = server.api("GET", f"/api/tables/{code}/analysis?seat=0")  # remembered by now
    decision = next(
        d for d in analysis["decisions"] if (d["round"], d["turn"], d["kind"]) == (1, 2, "card")
    )
    best = page.locator(".replay-hand-card", has=page.locator(".coach-figure.best"))
    expect(best).to_have_count(1)
    expect(best.locator(".card")).to_have_attribute("data-card", str(decision["best"]))
    lowest = min(c["expected"] for c in decision["candidates"])
    for candidate in decision["candidates"]:
        if candidate["choice"] == decision["best"]:
            continue
        figure = page.locator(
            f'.replay-hand-card:has(.card[data-card="{candidate["choice"]}"]) .coach-figure'
        )
        extra = Decimal(candidate["expected"] - lowest).quantize(Decimal("0.1"), ROUND_HALF_UP)
        expect(figure).to_have_text(f"+{extra}")  # as JavaScript's toFixed(1) rounds
    note = page.locator(".coach-note")
    if decision["loss"] > 0:
        expect(note).to_contain_text(f"Playing {decision['chosen']} cost about")
    else:
        expect(note).to_contain_text(f"{decision['chosen']} was as good as")

    # Following another seat asks the coach about that seat.
    page.locator("#replay-follow").select_option(label="Bot 2 (greedy)")
    other = page.get_by_role("button", name="Show the coach's analysis for Bot 2 (greedy)")
    expect(other).to_have_attribute("aria-pressed", "true")
    expect(page.locator(".replay-hand .card")).to_have_count(len(step["hands"][1]))
    expect(page.locator(".replay-hand .coach-figure")).to_have_count(
        len(step["hands"][1]), timeout=180_000
    )
    other.click()
    expect(page.locator(".coach-figure")).to_have_count(0)
    expect(page.locator(".coach-note")).to_have_count(0)
