"""The rules pages: one template, each language's text, and a worked example the engine plays."""

from __future__ import annotations

import re
import shutil
import tomllib
from collections.abc import Callable
from html.parser import HTMLParser
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from nimmt.engine import CardsRevealed, Game, RowTaken, total_bullheads
from nimmt.server.rules_pages import (
    LANGUAGES,
    RulesPagesError,
    play_example,
    render_rules_pages,
)
from nimmt.server.settings import WEB_DIR

RULES_DIR = WEB_DIR / "rules"
CODES = [code for code, _name in LANGUAGES]


class Page(HTMLParser):
    """What a test reads of a rendered rules page: the example's boards (each a list of rows,
    each row its cards and its total), the paragraphs of the example, the brand's text."""

    def __init__(self, html: str) -> None:
        super().__init__()
        self.boards: list[list[tuple[list[int], int]]] = []
        self.paragraphs: list[str] = []
        self.brand_name = ""
        self._stack: list[tuple[str, str]] = []  # (tag, class) of the open elements
        self._in_example = False
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        classes = dict(attrs).get("class") or ""
        if tag == "section":
            self._in_example = dict(attrs).get("id") in {"example", "beispiel", "exemple"}
        if "example-rows" in classes.split():
            self.boards.append([])
        elif "row" in classes.split() and self.boards:
            self.boards[-1].append(([], -1))
        elif tag == "p" and self._in_example:
            self.paragraphs.append("")
        if tag not in {"meta", "link"}:
            self._stack.append((tag, classes))

    def handle_endtag(self, tag: str) -> None:
        if tag not in {"meta", "link"}:
            self._stack.pop()

    def handle_data(self, data: str) -> None:
        if not self._stack:
            return
        _tag, classes = self._stack[-1]
        inside = {name for _tag, open_classes in self._stack for name in open_classes.split()}
        if "num" in classes.split() and "example-rows" in inside:
            self.boards[-1][-1][0].append(int(data))
        elif "row-total-number" in classes.split() and "example-rows" in inside:
            cards, _total = self.boards[-1][-1]
            self.boards[-1][-1] = (cards, int(data))
        elif "brand" in inside and "visually-hidden" in classes.split():
            self.brand_name += data
        elif any(open_tag == "p" for open_tag, _ in self._stack) and self._in_example:
            self.paragraphs[-1] += data


@pytest.fixture(scope="module")
def pages() -> dict[str, Page]:
    return {lang: Page(html) for lang, html in render_rules_pages(RULES_DIR).items()}


def engine_example() -> tuple[list[list[int]], list[tuple[list[int], int | None]]]:
    data = tomllib.loads((RULES_DIR / "example.toml").read_text(encoding="utf-8"))
    turns = [(turn["cards"], turn["take_row"] - 1 if "take_row" in turn else None)
             for turn in data["turns"]]  # fmt: skip
    return data["rows"], turns


def test_every_language_renders_with_every_key(pages: dict[str, Page]) -> None:
    # The template's undefined values are strict: rendering at all means no key is missing.
    assert sorted(pages) == sorted(CODES)
    for page in pages.values():
        assert page.boards and page.paragraphs


def test_a_missing_key_or_an_unknown_card_is_an_error(tmp_path: Path) -> None:
    rules = tmp_path / "rules"
    shutil.copytree(RULES_DIR, rules)
    english = rules / "text" / "en.toml"
    text = english.read_text(encoding="utf-8")
    english.write_text(text.replace('brand_name = "6 nimmt!"\n', ""), encoding="utf-8")
    with pytest.raises(RulesPagesError, match="brand_name"):
        render_rules_pages(rules)
    # A paragraph about a card the example never places.
    english.write_text(text.replace("after[36]", "after[37]"), encoding="utf-8")
    with pytest.raises(RulesPagesError):
        render_rules_pages(rules)
    english.write_text(text, encoding="utf-8")
    assert render_rules_pages(rules)["en"] == render_rules_pages(RULES_DIR)["en"]


def test_the_example_is_the_engines(pages: dict[str, Page]) -> None:
    rows, turns = engine_example()
    hands = [[cards[seat] for cards, _row in turns] for seat in range(len(turns[0][0]))]
    game = Game.from_position(rows=rows, hands=hands)
    expected = [[list(row) for row in rows]]
    taken: list[list[RowTaken]] = []
    for cards, row in turns:
        seen = game.event_count
        game.play_turn(cards, row)
        expected.append([list(row) for row in game.rows])
        events = game.events[seen:]
        assert any(isinstance(event, CardsRevealed) for event in events)
        taken.append([event for event in events if isinstance(event, RowTaken)])
    assert any(taken), "the example shows a row being taken"
    for lang, page in pages.items():
        shown = [[cards for cards, _total in board] for board in page.boards]
        assert shown == expected, lang
        for board in page.boards:
            for cards, total in board:
                assert total == total_bullheads(cards), lang
        # Each turn's paragraph names the revealed cards, the cards taken and their bullheads.
        paragraphs = page.paragraphs[1 : 1 + len(turns)]  # after "The round starts with..."
        for (cards, _row), takes, paragraph in zip(turns, taken, paragraphs, strict=True):
            numbers = [int(number) for number in re.findall(r"\d+", paragraph)]
            assert sorted(cards) == numbers[: len(cards)], (lang, paragraph)
            for take in takes:
                assert set(take.cards) <= set(numbers), (lang, paragraph)
                assert take.bullheads in numbers, (lang, paragraph)


def test_the_three_languages_show_the_same_example(pages: dict[str, Page]) -> None:
    english = pages["en"].boards
    assert len(english) == 1 + len(engine_example()[1])
    for lang in CODES:
        assert pages[lang].boards == english, lang


def test_play_example_tells_what_each_card_followed() -> None:
    example = play_example([[12], [37], [43], [58]], [([3, 40, 44, 59], 1)])
    (turn,) = example.turns
    assert turn.cards == (3, 40, 44, 59)
    assert [(take.row, take.cards, take.bullheads, take.chosen) for take in turn.takes] == [
        (1, (37,), 1, True)
    ]
    # 3 took 37's row, so 40 follows 12, not 3.
    assert turn.after == {3: None, 40: 12, 44: 43, 59: 58}
    assert turn.rows == ((12, 40), (3,), (43, 44), (58, 59))


def test_the_french_brand_reads_6_qui_prend(pages: dict[str, Page]) -> None:
    # French typography: a narrow no-break space before "!", so that it never breaks off.
    assert pages["fr"].brand_name == "6 qui prend\u202f!"
    assert pages["de"].brand_name == pages["en"].brand_name == "6 nimmt!"


def test_the_served_pages_link_the_assistant_and_are_rendered_once(
    make_client: Callable[..., TestClient], tmp_path: Path
) -> None:
    web_dir = tmp_path / "web"
    shutil.copytree(WEB_DIR, web_dir)
    client: TestClient = make_client(web_dir=web_dir)
    for lang in CODES:
        answer = client.get(f"/rules/{lang}")
        assert answer.status_code == 200
        assert answer.headers["content-type"].startswith("text/html")
        assert f'<html lang="{lang}">' in answer.text
        assert 'href="/assist"' in answer.text and "<code>nimmt assist</code>" in answer.text
    # A text changed after the first request does not change the served page: it was
    # rendered once and kept.
    before = client.get("/rules/en").text
    english = web_dir / "rules" / "text" / "en.toml"
    english.write_text(
        english.read_text(encoding="utf-8").replace("Rules of the game", "Changed"),
        encoding="utf-8",
    )
    assert client.get("/rules/en").text == before
    assert "Changed" in render_rules_pages(web_dir / "rules")["en"]
