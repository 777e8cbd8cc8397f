"""The assistant for a game with real cards, in a real browser on a phone-sized screen: a whole
game typed in as it would be at a real table (from a seeded engine game, so it is realistic and
ends), with a refused card seen earlier in the round, a refused card typed twice, undo across a
row choice (the turn's cards come back into the fields), and a spectator following on another
phone. The totals and winners shown at the end are the engine's."""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from tests.browser.browser_helpers import Server

from nimmt.engine import Game, Phase, draw_deal

pytestmark = [pytest.mark.browser, pytest.mark.slow]

NAMES = ["Ana", "Ben", "Cleo", "Dan"]
PHONE = {
    "viewport": {"width": 390, "height": 844},
    "device_scale_factor": 2,
    "is_mobile": True,
    "has_touch": True,
}


@dataclass(frozen=True)
class Turn:
    cards: tuple[int, ...]
    row: int | None


@dataclass(frozen=True)
class Round:
    rows: tuple[int, ...]
    turns: tuple[Turn, ...]


def seeded_game(seed: int) -> tuple[list[Round], Game]:
    """A whole game through the engine: random legal cards, random row choices."""
    rng = random.Random(seed)
    game = Game(len(NAMES))
    rounds: list[Round] = []
    while game.phase is not Phase.GAME_OVER:
        rows, hands = draw_deal(rng, len(NAMES))
        game.apply_deal(rows, hands)
        turns: list[Turn] = []
        while game.phase is Phase.CHOOSING_CARDS:
            cards = [rng.choice(game.hand(seat)) for seat in range(len(NAMES))]
            row = rng.randrange(4) if game.round_state().needs_row_choice(cards) else None
            game.play_turn(cards, row)
            turns.append(Turn(tuple(cards), row))
        rounds.append(Round(tuple(row[0] for row in rows), tuple(turns)))
    return rounds, game


def type_cards(page: Any, cards: tuple[int, ...] | list[int]) -> None:
    """Type each card as a person would: a number that could still grow (1 to 10) needs Space;
    any other moves on by itself."""
    for card in cards:
        page.keyboard.type(str(card))
        if card <= 10:
            page.keyboard.press("Space")


def entry(page: Any, key: str) -> Any:
    return page.locator(f'.assist-entry[data-entry="{key}"]')


def test_a_whole_game_with_real_cards_on_a_phone(
    new_page: Callable[..., Any], server: Server
) -> None:
    from playwright.sync_api import expect

    rounds, played = seeded_game(25)  # three rounds
    first_choice = next(
        (number, index)
        for number, entered in enumerate(rounds)
        for index, turn in enumerate(entered.turns)
        if turn.row is not None
    )

    page = new_page(**PHONE)
    page.goto("/")
    form = page.locator("#real-cards-form")
    for _ in range(len(NAMES) - 3):
        form.locator("#add-real-name").click()
    for index, name in enumerate(NAMES):
        form.locator(f"#real-name-{index}").fill(name)
    form.locator("#start-real-cards").click()
    expect(entry(page, "rows/0/0")).to_be_visible()
    code = page.locator("#table-code").inner_text()
    expect(page.locator(".assist-field").first).to_be_focused()

    watcher = new_page(**PHONE)
    watcher.goto(f"/t/{code}")
    expect(watcher.locator(".status")).to_contain_text("Waiting for the four cards")
    expect(watcher.locator(".assist-field")).to_have_count(0)

    for number, entered in enumerate(rounds):
        expect(entry(page, f"rows/{number}/{number}")).to_be_visible()
        type_cards(page, entered.rows)
        expect(page.locator("#assist-submit")).to_be_focused()
        page.keyboard.press("Enter")
        for index, turn in enumerate(entered.turns):
            key = f"cards/{number + 1}/{index}"
            expect(entry(page, key)).to_be_visible()
            if (number, index) == (0, 1):
                refuse_cards(page, entered, turn)
            type_cards(page, turn.cards)
            page.keyboard.press("Enter")
            if turn.row is None:
                continue
            choose_row(page, turn.row)
            if (number, index) == first_choice:
                undo_across_the_row_choice(page, key, turn)
        # The round's penalties are on the sheet; the spectator follows.
        expect(page.locator(".assist-sheet")).to_be_visible()

    expect(entry(page, "game_over")).to_be_visible()
    outcome = played.outcome
    assert outcome is not None
    winners = [NAMES[seat] for seat in outcome.winners]
    for phone in (page, watcher):
        sheet = phone.locator(".assist-sheet")
        expect(sheet).to_contain_text("Game over")
        for name in winners:
            expect(sheet.locator(".winners")).to_contain_text(name)
        totals = [
            int(cell)
            for cell in sheet.locator("tbody td.total > span:first-child").all_inner_texts()
        ]
        assert totals == list(outcome.totals)
    expect(page.locator("#download-record")).to_be_visible()
    record = server.api("GET", f"/api/tables/{code}/record")
    assert record["players"] == NAMES and len(record["rounds"]) == len(rounds)


def choose_row(page: Any, row: int) -> None:
    from playwright.sync_api import expect

    button = page.locator(f'.assist-board button.row[data-row="{row}"]')
    expect(button).to_be_enabled()
    expect(page.locator(".status.urgent")).to_contain_text("which row do you take?")
    button.click()
    expect(page.locator(".rows.choosing")).to_have_count(0)


def refuse_cards(page: Any, entered: Round, turn: Turn) -> None:
    """A card already on the table is refused at once, in place; so is a card typed twice."""
    from playwright.sync_api import expect

    fields = page.locator(".assist-field")
    page.keyboard.type(str(entered.rows[0]))
    if entered.rows[0] <= 10:
        page.keyboard.press("Space")
    problem = page.locator("#assist-problem")
    expect(problem).to_have_text(
        re.compile(rf"^{entered.rows[0]} is already on the table or was played this round\.$")
    )
    expect(fields.nth(0)).to_be_focused()
    expect(fields.nth(0)).to_have_attribute("aria-invalid", "true")
    type_cards(page, turn.cards[:1])  # typed over the selected refused card
    expect(problem).to_be_hidden()
    type_cards(page, turn.cards[:1])  # the same card for the second player
    expect(problem).to_have_text(f"{turn.cards[0]} is typed twice.")
    expect(fields.nth(1)).to_be_focused()
    page.keyboard.press("Backspace")  # the refused card was selected: gone
    expect(fields.nth(1)).to_have_value("")
    page.keyboard.press("Backspace")  # in an empty field: back to the first one
    expect(fields.nth(0)).to_be_focused()
    fields.nth(0).fill("")


def undo_across_the_row_choice(page: Any, key: str, turn: Turn) -> None:
    """Undo twice (the row choice, then the turn): the turn's cards come back into the fields;
    entered again, the same player is asked again."""
    from playwright.sync_api import expect

    page.locator("#assist-undo").click()
    expect(page.locator(".status.urgent")).to_be_visible()  # asked again
    expect(page.locator("#assist-edit")).to_be_visible()
    page.keyboard.press("Control+z")
    expect(entry(page, key)).to_be_visible()
    values = [
        int(value)
        for value in page.locator(".assist-field").evaluate_all("els => els.map(e => e.value)")
    ]
    assert values == list(turn.cards)
    expect(page.locator(".assist-field").first).to_be_focused()
    page.keyboard.press("Enter")  # the same cards again, checked, placed
    choose_row(page, turn.row if turn.row is not None else 0)


def test_the_rules_page_opens_the_real_cards_form(
    new_page: Callable[..., Any], server: Server
) -> None:
    from playwright.sync_api import expect

    page = new_page()
    page.goto("/rules/en")
    page.get_by_role("link", name="Real cards").click()
    expect(page).to_have_url(re.compile(r"/assist$"))
    form = page.locator("#real-cards-form")
    expect(form).to_be_in_viewport()
    expect(form.locator("input").first).to_be_focused()
    # A name of 24 emoji sequences is one of 24 characters, as the server counts it.
    names = form.locator("input.real-name")
    names.nth(0).fill("👩‍👩‍👧‍👦" * 24)
    names.nth(1).fill("Ben")
    names.nth(2).fill("Cleo")
    page.locator("#start-real-cards").click()
    expect(page).to_have_url(re.compile(r"/t/[A-Z0-9]{6}$"))


def test_the_tv_board_follows_a_game_with_real_cards(
    new_page: Callable[..., Any], server: Server
) -> None:
    from playwright.sync_api import expect

    page = new_page()
    page.goto("/assist")
    form = page.locator("#real-cards-form")
    for index, name in enumerate(NAMES[:3]):
        form.locator(f"#real-name-{index}").fill(name)
    form.locator("#start-real-cards").click()
    expect(entry(page, "rows/0/0")).to_be_visible()
    code = page.locator("#table-code").inner_text()

    board = new_page(viewport={"width": 1920, "height": 1080})
    board.goto(f"/t/{code}/board")
    for name in NAMES[:3]:
        expect(board.locator(".board-page .seat-name-text", has_text=name)).to_have_count(1)
    expect(page.locator(".assist-field").first).to_be_focused()
    type_cards(page, [12, 37, 43, 58])
    page.keyboard.press("Enter")
    expect(board.locator(".board-page .rows .slot .card")).to_have_count(4)
    # The board may hear the rows before the page has drawn the turn's fields: keys typed
    # before then went nowhere (1 run in many, on a loaded machine).
    expect(entry(page, "cards/1/0")).to_be_visible()
    expect(page.locator(".assist-field").first).to_be_focused()
    type_cards(page, [14, 44, 61])
    page.keyboard.press("Enter")
    expect(board.locator(".board-page .rows .slot .card")).to_have_count(7)
    expect(board.locator(".board-page .rows .row").nth(0)).to_contain_text("14")
