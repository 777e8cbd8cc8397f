"""The rules pages (``/rules/de|fr|en``): one Jinja2 template, each language's own text.

The client's ``rules`` directory holds ``page.html.j2`` (the markup, shared by every language),
``text/<lang>.toml`` (each language's words; prose may carry inline HTML and ``{{ ... }}``) and
``example.toml`` (the worked example as data: the starting rows and each turn's cards). The
example is played through :mod:`nimmt.engine`, and the pages show the rows, the cards taken and
their bullheads as the engine's events tell them, so nothing in it is drawn by hand.

Rendering happens once per client directory; the server keeps the pages and serves them as
they are.
"""

from __future__ import annotations

import functools
import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

from nimmt.engine import DECK, ROW_LIMIT, CardPlaced, Game, RowTaken, bullheads, total_bullheads

LANGUAGES: tuple[tuple[str, str], ...] = (("de", "Deutsch"), ("fr", "Français"), ("en", "English"))
"""The rules pages' languages, in the order the language links show them, with their own names."""

SECTIONS = (
    "introduction",
    "setup",
    "short",
    "detailed",
    "scoring",
    "end",
    "example",
    "edition",
    "real_cards",
    "faq",
)
"""The sections of every page, in order; each is a table of ``text/<lang>.toml``."""

SCORING_EXAMPLES = ((55,), (11, 44), (10, 70), (5, 85), (3, 58))
"""The cards drawn beside each line of the bullheads table (7, 5, 3, 2 and 1 bullheads)."""


class RulesPagesError(ValueError):
    """The rules pages' files are missing or do not fit together (a missing key, a wrong count)."""


@dataclass(frozen=True, slots=True)
class Take:
    """A row taken during a turn of the example (``row`` counts from 0)."""

    row: int
    cards: tuple[int, ...]
    bullheads: int
    chosen: bool


@dataclass(frozen=True, slots=True)
class ExampleTurn:
    """One turn of the example as the engine played it."""

    cards: tuple[int, ...]
    """The revealed cards, lowest first."""
    takes: tuple[Take, ...]
    after: Mapping[int, int | None]
    """For each card, the card it was placed after (``None``: it started a row anew)."""
    rows: tuple[tuple[int, ...], ...]
    """The rows after the turn."""


@dataclass(frozen=True, slots=True)
class WorkedExample:
    """The rules pages' example: the rows a round starts with and the turns played from them."""

    start: tuple[tuple[int, ...], ...]
    turns: tuple[ExampleTurn, ...]


def play_example(
    rows: Sequence[Sequence[int]], turns: Sequence[tuple[Sequence[int], int | None]]
) -> WorkedExample:
    """Play ``turns`` (each: one card per seat, and the row taken for a card below every row,
    counted from 0, or ``None``) from ``rows`` through the engine.

    >>> example = play_example([[12], [37], [43], [58]], [([14, 15, 44, 61], None)])
    >>> example.turns[0].rows
    ((12, 14, 15), (37,), (43, 44), (58, 61))
    >>> example.turns[0].after[15]
    14
    """
    players = len(turns[0][0]) if turns else 0
    hands = [[cards[seat] for cards, _ in turns] for seat in range(players)]
    game = Game.from_position(rows=rows, hands=hands)
    played: list[ExampleTurn] = []
    for cards, take_row in turns:
        ends: list[int | None] = [row[-1] for row in game.rows]
        seen = game.event_count
        game.play_turn(cards, take_row)
        takes: list[Take] = []
        after: dict[int, int | None] = {}
        for event in game.events[seen:]:
            if isinstance(event, RowTaken):
                takes.append(Take(event.row, event.cards, event.bullheads, event.chosen))
                ends[event.row] = None
            elif isinstance(event, CardPlaced):
                after[event.card] = ends[event.row]
                ends[event.row] = event.card
        played.append(ExampleTurn(tuple(sorted(cards)), tuple(takes), after, game.rows))
    return WorkedExample(tuple(tuple(row) for row in rows), tuple(played))


def load_example(path: Path) -> WorkedExample:
    """The example of ``example.toml`` (rows, then ``[[turns]]`` of ``cards`` and an optional
    ``take_row`` from 1 to 4), played through the engine."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    turns = [
        (turn["cards"], turn["take_row"] - 1 if "take_row" in turn else None)
        for turn in data["turns"]
    ]
    return play_example(data["rows"], turns)


def render_rules_pages(rules_dir: Path) -> dict[str, str]:
    """Every language's rules page, rendered from the files in ``rules_dir``.

    Raises :class:`RulesPagesError` if a file is missing or a text lacks a key the template
    uses (the template's undefined values are strict), and the engine's own errors if the
    example cannot be played.
    """
    environment = jinja2.Environment(
        loader=jinja2.FileSystemLoader(rules_dir),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    try:
        example = load_example(rules_dir / "example.toml")
        template = environment.get_template("page.html.j2")
        pages = {}
        for lang, _name in LANGUAGES:
            text = tomllib.loads((rules_dir / "text" / f"{lang}.toml").read_text(encoding="utf-8"))
            pages[lang] = _render_page(environment, template, lang, text, example)
    except (OSError, KeyError, tomllib.TOMLDecodeError, jinja2.TemplateError) as error:
        raise RulesPagesError(
            f"the rules pages in {rules_dir} cannot be rendered: {error}"
        ) from error
    return pages


@functools.cache
def rules_pages(rules_dir: Path) -> Mapping[str, str]:
    """:func:`render_rules_pages`, once per directory: the server renders them at the first
    request and then serves the same pages."""
    return render_rules_pages(rules_dir)


def _render_page(
    environment: jinja2.Environment,
    template: jinja2.Template,
    lang: str,
    text: dict[str, Any],
    example: WorkedExample,
) -> str:
    words = text["words"]

    def count_bullheads(number: int) -> str:
        form = "one" if _is_singular(lang, number) else "other"
        return str(words["bullheads"][form]).format(n=number)

    def ordinal(index: int) -> str:
        return str(words["ordinals"][index])

    def listing(numbers: Sequence[int]) -> str:
        *rest, last = [str(number) for number in numbers]
        return f"{', '.join(rest)} {words['and']} {last}" if rest else last

    def prose(source: str, **context: Any) -> Markup:
        source = source.strip()
        if "{{" not in source and "{%" not in source:  # most prose: no template to compile
            return Markup(source)
        return Markup(environment.from_string(source).render(**context))

    def take_context(take: Take) -> dict[str, Any]:
        return {
            "row": take.row + 1,
            "nth": ordinal(take.row),
            "cards": listing(take.cards),
            "bullheads": count_bullheads(take.bullheads),
            "points": take.bullheads,
        }

    base = {"deck_bullheads": total_bullheads(DECK)}
    rendered: dict[str, Any] = _render_tree(
        {key: value for key, value in text.items() if key != "words"},
        lambda source: prose(source, **base),
        skip={("example", "turns"), ("example", "outro")},
    )
    rendered["words"] = words
    turn_texts: list[str] = text["example"]["turns"]
    if len(turn_texts) != len(example.turns):
        raise RulesPagesError(
            f"{lang}: {len(turn_texts)} paragraphs for the example's {len(example.turns)} turns"
        )
    rendered["example"]["turns"] = [
        prose(
            source,
            cards=listing(turn.cards),
            after=turn.after,
            take=take_context(turn.takes[0]) if turn.takes else None,
            takes=[take_context(take) for take in turn.takes],
        )
        for source, turn in zip(turn_texts, example.turns, strict=True)
    ]
    final_rows = example.turns[-1].rows if example.turns else example.start
    longest = max(range(len(final_rows)), key=lambda index: len(final_rows[index]))
    rendered["example"]["outro"] = prose(
        text["example"]["outro"],
        longest={
            "number": longest + 1,
            "nth": ordinal(longest),
            "count": len(final_rows[longest]),
            "end": final_rows[longest][-1],
            "next_nth": ordinal(len(final_rows[longest])),
        },
    )
    return template.render(
        lang=lang,
        t=rendered,
        example=example,
        languages=LANGUAGES,
        sections=SECTIONS,
        scoring_examples=SCORING_EXAMPLES,
        row_limit=ROW_LIMIT,
        zip=zip,
        bullheads=bullheads,
        row_bullheads=total_bullheads,
        card_label=lambda number: str(words["card"]).format(
            card=number, bullheads=count_bullheads(bullheads(number))
        ),
        row_label=lambda index: str(words["row"]).format(n=index),
    )


def _render_tree(
    node: Any,
    render: Callable[[str], Markup],
    skip: set[tuple[str, ...]],
    path: tuple[str, ...] = (),
) -> Any:
    """``node`` with every string rendered by ``render``, except at the paths in ``skip``."""
    if path in skip:
        return node
    if isinstance(node, str):
        return render(node)
    if isinstance(node, dict):
        return {key: _render_tree(value, render, skip, (*path, key)) for key, value in node.items()}
    if isinstance(node, list):
        return [_render_tree(value, render, skip, path) for value in node]
    return node


def _is_singular(lang: str, number: int) -> bool:
    """French counts 0 and 1 in the singular ("0 tête de bœuf"); German and English only 1."""
    return number in (0, 1) if lang == "fr" else number == 1
