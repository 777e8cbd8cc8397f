"""Cards and tables drawn with Rich: a card as ``37·1`` styled by its bullheads, the four rows
with their places and cost, and the score sheet round by round."""

from __future__ import annotations

from collections.abc import Sequence

from rich import box
from rich.table import Table
from rich.text import Text

from nimmt.engine import BULLHEADS, GAME_END_THRESHOLD, ROW_LIMIT, total_bullheads

CARD_STYLES: dict[int, str] = {
    1: "",
    2: "cyan",
    3: "bold yellow",
    5: "bold red",
    7: "bold white on magenta",
}
"""One style per bullhead value, differing in lightness too; 55 (seven heads) stands out."""


def card_text(card: int) -> Text:
    """A card as ``37·1``: its number and bullheads, styled by the bullhead value."""
    heads = BULLHEADS[card]
    return Text(f"{card}·{heads}", style=CARD_STYLES[heads])


def cards_text(cards: Sequence[int], separator: str = "  ") -> Text:
    return Text(separator).join(card_text(card) for card in cards)


def plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def score_sheet(
    names: Sequence[str],
    totals: Sequence[int],
    rounds: Sequence[Sequence[int]],
    *,
    in_play: Sequence[int] | None = None,
) -> Table:
    """The score sheet: one line per player, one column per round, the totals; the lowest
    total is starred and a total above 66 (the end of the game) is marked.

    ``in_play``: the bullheads taken so far in the round being played, shown as its own column
    ("so far"); ``totals`` then include them.
    """
    title = "Score sheet" if in_play is None else "Score sheet so far"
    table = Table(title=title, box=box.SIMPLE_HEAVY, title_style="bold")
    table.add_column("Player")
    for number in range(1, len(rounds) + 1):
        table.add_column(f"R{number}", justify="right")
    columns = list(rounds)
    if in_play is not None:
        table.add_column(f"R{len(rounds) + 1} so far", justify="right", style="dim")
        columns.append(in_play)
    table.add_column("Total", justify="right", style="bold")
    table.add_column("")
    best = min(totals)
    for seat, name in enumerate(names):
        total = totals[seat]
        if total > GAME_END_THRESHOLD:
            mark = Text("✗ over 66", style="bold red")
        elif total == best:
            mark = Text("★ lowest", style="bold green")
        else:
            mark = Text("")
        # Names go in as Text: a name like "[b]x" must not be read as console markup.
        table.add_row(Text(name), *(str(column[seat]) for column in columns), str(total), mark)
    return table


def rows_table(rows: Sequence[Sequence[int]]) -> Table:
    """The four rows: five places each, the sixth place as the warning it is, each row's
    bullheads and card count; a full row is marked (the next card there is the sixth)."""
    table = Table(box=box.SIMPLE, show_edge=False, pad_edge=False, header_style="dim")
    table.add_column("Row", justify="right")
    for place in range(1, ROW_LIMIT + 1):
        table.add_column(str(place), justify="right", min_width=5)
    table.add_column("6th", justify="center")
    table.add_column("Bullheads", justify="right")
    table.add_column("Cards")
    for index, row in enumerate(rows):
        places = [card_text(card) for card in row]
        places += [Text("·", style="dim")] * (ROW_LIMIT - len(row))
        full = len(row) >= ROW_LIMIT
        sixth = Text("takes", style="bold red") if full else Text("·", style="dim")
        heads = total_bullheads(row)
        count = Text(f"{len(row)}/{ROW_LIMIT}")
        if full:
            count.append(" full", style="bold red")
        label = Text(f"{index + 1}", style="bold")
        table.add_row(label, *places, sixth, Text(str(heads), style="bold"), count)
    return table
