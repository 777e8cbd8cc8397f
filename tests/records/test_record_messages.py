"""The exact words a refused record's turn gets, whatever checks them (records or the engine)."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from nimmt.records import RecordError, replay_record

WORKED = json.loads((Path(__file__).parent / "golden" / "worked_example.json").read_text())


def turn(record: dict[str, Any], index: int) -> dict[str, Any]:
    result: dict[str, Any] = record["rounds"][0]["turns"][index]
    return result


CHANGES: dict[str, Callable[[dict[str, Any]], object]] = {
    "not-in-hand": lambda r: turn(r, 1)["cards"].__setitem__(1, 55),
    "already-played": lambda r: turn(r, 1)["cards"].__setitem__(0, 14),
    "string-card": lambda r: turn(r, 1)["cards"].__setitem__(2, "x"),
    "float-card": lambda r: turn(r, 1)["cards"].__setitem__(0, float(turn(r, 1)["cards"][0])),
    "bool-card": lambda r: turn(r, 0)["cards"].__setitem__(3, True),
    "null-card": lambda r: turn(r, 0)["cards"].__setitem__(1, None),
    "card-0": lambda r: turn(r, 0)["cards"].__setitem__(1, 0),
    "two-bad-cards": lambda r: (
        turn(r, 1)["cards"].__setitem__(3, 55),
        turn(r, 1)["cards"].__setitem__(1, 14),
    ),
    "missing-row": lambda r: turn(r, 2).pop("row"),
    "row-not-needed": lambda r: turn(r, 0).update(row=2),
    "row-not-needed-bad": lambda r: turn(r, 0).update(row="x"),
    "row-4": lambda r: turn(r, 2).update(row=4),
    "row-neg": lambda r: turn(r, 2).update(row=-1),
    "row-bool": lambda r: turn(r, 2).update(row=True),
    "row-str": lambda r: turn(r, 2).update(row="1"),
    "row-float": lambda r: turn(r, 2).update(row=1.0),
}

MESSAGES = [
    ("not-in-hand", "round 1, turn 2: Ben played 55, which is not in their hand"),
    ("already-played", "round 1, turn 2: Ana played 14, which they had already played"),
    ("string-card", "round 1, turn 2: Cleo played 'x', which is not a card"),
    ("float-card", "round 1, turn 2: Ana played 21.0, which is not a card"),
    ("bool-card", "round 1, turn 1: Dan played True, which is not a card"),
    ("null-card", "round 1, turn 1: Ben played None, which is not a card"),
    ("card-0", "round 1, turn 1: Ben played 0, which is not a card"),
    ("two-bad-cards", "round 1, turn 2: Ben played 14, which is not in their hand"),
    (
        "missing-row",
        "round 1, turn 3: Ana's 3 is lower than every row, so the turn must say which row they "
        'took ("row")',
    ),
    (
        "row-not-needed",
        "round 1, turn 1: no card is lower than every row, so no row may be chosen (got row 2)",
    ),
    (
        "row-not-needed-bad",
        "round 1, turn 1: no card is lower than every row, so no row may be chosen (got row 'x')",
    ),
    ("row-4", "round 1, turn 3: row 4 does not exist (rows are 0 to 3)"),
    ("row-neg", "round 1, turn 3: row -1 does not exist (rows are 0 to 3)"),
    ("row-bool", "round 1, turn 3: row True does not exist (rows are 0 to 3)"),
    ("row-str", "round 1, turn 3: row '1' does not exist (rows are 0 to 3)"),
    ("row-float", "round 1, turn 3: row 1.0 does not exist (rows are 0 to 3)"),
]


@pytest.mark.parametrize(("name", "message"), MESSAGES, ids=[name for name, _ in MESSAGES])
def test_a_refused_turn_has_exactly_these_words(name: str, message: str) -> None:
    record = copy.deepcopy(WORKED)
    CHANGES[name](record)
    with pytest.raises(RecordError) as caught:
        replay_record(record)
    assert str(caught.value) == message


def test_every_change_has_its_message() -> None:
    assert sorted(CHANGES) == sorted(name for name, _ in MESSAGES)
