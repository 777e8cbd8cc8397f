"""Game records (docs/formats.md section 1): golden records, round trips, every bad record."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from nimmt.engine import Game
from nimmt.records import RecordError, dump_record, parse_record, replay_record, to_record

GOLDEN = Path(__file__).parent / "golden"
WORKED = json.loads((GOLDEN / "worked_example.json").read_text())


@pytest.mark.parametrize("name", ["worked_example", "full_game"])
def test_golden_records_replay_to_their_expected_summary(name: str) -> None:
    replayed = replay_record((GOLDEN / f"{name}.json").read_text())
    expected = json.loads((GOLDEN / f"{name}.expected.json").read_text())
    assert replayed.summary() == expected


def test_a_written_record_reads_back_identically() -> None:
    record = json.loads((GOLDEN / "full_game.json").read_text())
    replayed = replay_record(record)
    again = to_record(replayed.game, list(replayed.players), meta=record["meta"])
    assert again == record
    assert parse_record(dump_record(again)) == record


def test_a_turn_awaiting_a_row_choice_is_left_out_of_the_record() -> None:
    record = copy.deepcopy(WORKED)
    game = replay_record({**record, "rounds": [{**record["rounds"][0], "turns": []}]}).game
    game.play_turn([14, 15, 44, 61])
    for seat, card in enumerate([21, 26, 30, 36]):
        game.play(seat, card)
    for seat, card in enumerate([3, 9, 68, 83]):
        game.play(seat, card)
    written = to_record(game, ["Ana", "Ben", "Cleo", "Dan"])
    assert len(written["rounds"][0]["turns"]) == 2
    replay_record(written)


def test_an_empty_game_is_a_valid_record() -> None:
    record = to_record(Game(3), ["A", "B", "C"])
    summary = replay_record(record).summary()
    assert summary == {
        "players": ["A", "B", "C"],
        "rounds": [],
        "totals": [0, 0, 0],
        "finished": False,
        "winners": [],
    }


def _mutate(change: Callable[[dict[str, Any]], object]) -> dict[str, Any]:
    record: dict[str, Any] = copy.deepcopy(WORKED)
    change(record)
    return record


def _turn(record: dict[str, Any], turn: int) -> dict[str, Any]:
    result: dict[str, Any] = record["rounds"][0]["turns"][turn]
    return result


BAD_RECORDS: list[tuple[str, Callable[[dict[str, Any]], object], str]] = [
    ("wrong format", lambda r: r.update(format="pgn"), "not a 6 nimmt! game record"),
    ("wrong version", lambda r: r.update(version=2), "version 2 is not supported"),
    (
        "another edition",
        lambda r: r.update(edition="professional"),
        "edition 'professional' is not offered: nimmt plays only the classic edition",
    ),
    ("one player", lambda r: r.update(players=["Ana"]), "2 to 10 players"),
    ("same name twice", lambda r: r.update(players=["Ana", "Ana", "Cleo", "Dan"]), "distinct"),
    ("empty name", lambda r: r["players"].__setitem__(1, " "), "seat 1: a name"),
    (
        "an escape in a name",
        lambda r: r["players"].__setitem__(2, "Cleo\x1b[2J"),
        "seat 2: a name must not hold a control character",
    ),
    ("a line break", lambda r: r["players"].__setitem__(0, "A\nna"), "seat 0: a name must not"),
    ("rounds not a list", lambda r: r.update(rounds={}), '"rounds" must be a list'),
    ("three rows", lambda r: r["rounds"][0]["rows"].pop(), "round 1: a round starts with 4 rows"),
    ("short hand", lambda r: r["rounds"][0]["hands"][1].pop(), "round 1: Ben must be dealt 10"),
    (
        "card dealt twice",
        lambda r: r["rounds"][0]["hands"][1].__setitem__(5, 12),
        "round 1: card 12 is dealt more than once",
    ),
    (
        "card 105",
        lambda r: r["rounds"][0]["hands"][2].__setitem__(5, 105),
        "round 1: Cleo was dealt 105, which is not a card",
    ),
    (
        "card not in hand",
        lambda r: _turn(r, 1)["cards"].__setitem__(1, 55),
        "round 1, turn 2: Ben played 55, which is not in their hand",
    ),
    (
        "card played twice",
        lambda r: _turn(r, 1)["cards"].__setitem__(0, 14),
        "round 1, turn 2: Ana played 14, which they had already played",
    ),
    (
        "missing row choice",
        lambda r: _turn(r, 2).pop("row"),
        "round 1, turn 3: Ana's 3 is lower than every row",
    ),
    (
        "row choice not needed",
        lambda r: _turn(r, 0).update(row=2),
        "round 1, turn 1: no card is lower than every row",
    ),
    (
        "row out of range",
        lambda r: _turn(r, 2).update(row=4),
        "round 1, turn 3: row 4 does not exist",
    ),
    ("a card short", lambda r: _turn(r, 0)["cards"].pop(), 'round 1, turn 1: "cards" must hold'),
    (
        "eleven turns",
        lambda r: r["rounds"][0]["turns"].extend([{"cards": [1, 2, 3, 4]}] * 8),
        "round 1: 11 turns",
    ),
    (
        "incomplete round before another",
        lambda r: r["rounds"].append(copy.deepcopy(r["rounds"][0])),
        "round 2: round 1 has only 3 of 10 turns",
    ),
]


@pytest.mark.parametrize(
    ("change", "message"),
    [(change, message) for _, change, message in BAD_RECORDS],
    ids=[name for name, _, _ in BAD_RECORDS],
)
def test_bad_records_are_refused_with_the_place_named(
    change: Callable[[dict[str, Any]], object], message: str
) -> None:
    with pytest.raises(RecordError) as raised:
        replay_record(_mutate(change))
    assert message in str(raised.value)


def test_a_round_after_the_game_ended() -> None:
    record = json.loads((GOLDEN / "full_game.json").read_text())
    record["rounds"].append(copy.deepcopy(record["rounds"][0]))
    with pytest.raises(RecordError, match="round 5: the game was already over after round 4"):
        replay_record(record)


@pytest.mark.parametrize(
    ("text", "message"),
    [("{", "not valid JSON"), ("[1, 2]", "a game record is a JSON object"), ("", "not valid JSON")],
)
def test_text_that_is_not_a_record(text: str, message: str) -> None:
    with pytest.raises(RecordError, match=message):
        replay_record(text)


def test_unknown_top_level_keys_are_ignored() -> None:
    record = _mutate(lambda r: r.update(meta={"event": "club night"}, comment="hi"))
    assert replay_record(record).totals == (1, 0, 6, 0)
