"""`nimmt assist`: a game played with a real deck, its answers piped into the console script.

The answers come from a seeded game played through the engine with random legal cards and random
row choices; the test itself says when a row choice is asked (the engine's ``needs_row_choice``).
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from nimmt.engine import Game, Phase, draw_deal

NIMMT = Path(sys.executable).with_name("nimmt")
NAMES = ("Ana", "Ben", "Cleo", "Dan")
ROWS_PROMPT = "starting row cards: "
CARDS_PROMPT = "the cards revealed ("
ROW_PROMPT = "which row do you take"


@dataclass(frozen=True)
class Answer:
    kind: str  # "rows", "cards" or "row"
    line: str


@dataclass(frozen=True)
class Played:
    answers: list[Answer]
    game: Game


def play_game(seed: int, players: int = len(NAMES)) -> Played:
    """A whole game with random legal cards, as the answers the assistant reads."""
    rng = random.Random(seed)
    game = Game(players)
    answers: list[Answer] = []
    while game.phase is not Phase.GAME_OVER:
        rows, hands = draw_deal(rng, players)
        game.apply_deal(rows, hands)
        answers.append(Answer("rows", " ".join(str(row[0]) for row in rows)))
        while game.phase is Phase.CHOOSING_CARDS:
            cards = [rng.choice(game.hand(seat)) for seat in range(players)]
            answers.append(Answer("cards", " ".join(map(str, cards))))
            row = None
            if game.round_state().needs_row_choice(cards):
                row = rng.randrange(4)
                answers.append(Answer("row", str(row + 1)))
            game.play_turn(cards, row)
    return Played(answers, game)


def run_assist(
    answers: list[Answer] | list[str], record: Path | None, *names: str
) -> subprocess.CompletedProcess[str]:
    lines = [answer.line if isinstance(answer, Answer) else answer for answer in answers]
    command = [str(NIMMT), "assist", "--players", ",".join(names or NAMES)]
    if record is not None:
        command += ["--record", str(record)]
    return subprocess.run(
        command,
        input="".join(f"{line}\n" for line in lines),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def replay_json(record: Path) -> dict[str, Any]:
    result = subprocess.run(
        [str(NIMMT), "replay", str(record), "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    summary: dict[str, Any] = json.loads(result.stdout)
    return summary


def questions(stdout: str) -> int:
    return sum(stdout.count(prompt) for prompt in (ROWS_PROMPT, CARDS_PROMPT, ROW_PROMPT))


@pytest.fixture(scope="module")
def played() -> Played:
    played = play_game(seed=11)
    assert any(answer.kind == "row" for answer in played.answers)
    return played


def test_a_whole_game_ends_with_the_winners_and_a_finished_record(
    played: Played, tmp_path: Path
) -> None:
    record = tmp_path / "game.json"
    result = run_assist(played.answers, record)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    outcome = played.game.outcome
    assert outcome is not None
    winners = [NAMES[seat] for seat in outcome.winners]
    assert f"Winners: {', '.join(winners)}" in result.stdout.splitlines()
    totals = ", ".join(f"{name} {total}" for name, total in zip(NAMES, outcome.totals, strict=True))
    assert f"Totals: {totals}" in result.stdout.splitlines()
    assert "Score sheet" in result.stdout
    summary = replay_json(record)
    assert summary["finished"] is True
    assert summary["totals"] == list(outcome.totals)
    assert summary["winners"] == list(outcome.winners)
    assert len(summary["rounds"]) == played.game.round
    # Each round's hands are the cards each player played in it.
    data = json.loads(record.read_text(encoding="utf-8"))
    for entry in data["rounds"]:
        for seat, hand in enumerate(entry["hands"]):
            assert hand == [turn["cards"][seat] for turn in entry["turns"]]


def bad_answers(answers: list[Answer]) -> tuple[list[str], int]:
    """The answers with bad lines slipped in before some; returns them and the bad count."""
    rows = answers[0].line.split()
    first_turn = answers[1].line.split()
    bad_rows = ["twelve 1 2 3", "0 1 2 3", "1 2 3 105", f"{rows[0]} {rows[0]} 1 2", "1 2 3", ""]
    bad_cards = [
        " ".join([rows[0], *first_turn[1:]]),  # a card on the table
        " ".join([first_turn[1], *first_turn[1:]]),  # a card twice in the line
        " ".join(first_turn[1:]),  # too few
        " ".join([*first_turn, "7"]),  # too many
        " ".join(["0", *first_turn[1:]]),
        " ".join(["105", *first_turn[1:]]),
        " ".join(["-3", *first_turn[1:]]),
        "a b c d",
    ]
    second_turn = answers[2]
    assert second_turn.kind == "cards"
    played_before = " ".join([first_turn[0], *second_turn.line.split()[1:]])
    bad_row_choice = ["0", "5", "x", "1 2", ""]
    lines: list[str] = []
    count = 0
    row_choices_spoiled = 0
    for index, answer in enumerate(answers):
        if index == 0:
            lines += bad_rows
            count += len(bad_rows)
        elif index == 1:
            lines += bad_cards
            count += len(bad_cards)
        elif index == 2:
            lines.append(played_before)  # a card played earlier this round
            count += 1
        elif answer.kind == "row" and row_choices_spoiled < 2:
            lines += bad_row_choice
            count += len(bad_row_choice)
            row_choices_spoiled += 1
        lines.append(answer.line)
    assert row_choices_spoiled == 2
    return lines, count


def test_every_bad_line_is_one_error_and_the_same_question_again(
    played: Played, tmp_path: Path
) -> None:
    clean_record, bad_record = tmp_path / "clean.json", tmp_path / "bad.json"
    clean = run_assist(played.answers, clean_record)
    lines, count = bad_answers(played.answers)
    bad = run_assist(lines, bad_record)
    assert clean.returncode == 0 and bad.returncode == 0, bad.stderr
    errors = bad.stderr.splitlines()
    assert len(errors) == count
    assert all(line.startswith("error: ") for line in errors)
    assert questions(bad.stdout) == questions(clean.stdout) + count
    assert bad_record.read_text(encoding="utf-8") == clean_record.read_text(encoding="utf-8")


def test_the_end_of_input_mid_round_writes_the_record_so_far(
    played: Played, tmp_path: Path
) -> None:
    record = tmp_path / "so_far.json"
    first_rounds = [index for index, answer in enumerate(played.answers) if answer.kind == "rows"]
    cut = first_rounds[1] + 4  # the second round's rows and a few of its turns
    result = run_assist(played.answers[:cut], record)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    summary = replay_json(record)
    assert summary["finished"] is False
    assert [entry["complete"] for entry in summary["rounds"]] == [True, False]
    turns = sum(1 for answer in played.answers[first_rounds[1] : cut] if answer.kind == "cards")
    data = json.loads(record.read_text(encoding="utf-8"))
    assert len(data["rounds"][1]["turns"]) == turns
    assert "hands" in data["meta"]


def test_the_row_choice_is_never_made_for_the_player(played: Played, tmp_path: Path) -> None:
    record = tmp_path / "waiting.json"
    first_row = next(index for index, answer in enumerate(played.answers) if answer.kind == "row")
    result = run_assist(played.answers[:first_row], record)
    assert result.returncode == 0, result.stderr
    assert result.stdout.count(ROW_PROMPT) == 1
    start = max(
        index for index, answer in enumerate(played.answers[:first_row]) if answer.kind == "rows"
    )
    resolved = sum(1 for answer in played.answers[start : first_row - 1] if answer.kind == "cards")
    data = json.loads(record.read_text(encoding="utf-8"))
    assert len(data["rounds"][-1]["turns"]) == resolved
    replay_json(record)  # the record is valid


@pytest.mark.parametrize(
    "players", ["Ana", "Ana,,Ben", "Ana,Ana", ",".join(f"P{n}" for n in range(11)), " "]
)
def test_bad_players_are_one_error_line(players: str) -> None:
    result = subprocess.run(
        [str(NIMMT), "assist", "--players", players],
        input="",
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 1
    assert result.stdout == ""
    errors = result.stderr.splitlines()
    assert len(errors) == 1 and errors[0].startswith("error: ")


def test_a_name_given_twice_is_named_plainly() -> None:
    result = subprocess.run(
        [str(NIMMT), "assist", "--players", "O'Neil \\o/,Ben,o'neil \\O/"],
        input="",
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == "error: --players: O'Neil \\o/ is named twice: give each a name\n"


def test_two_to_ten_players_and_names_with_markup(tmp_path: Path) -> None:
    played = play_game(seed=3, players=2)
    record = tmp_path / "two.json"
    names = ("[b]Zoe", "Yu")
    result = run_assist(played.answers, record, *names)
    assert result.returncode == 0, result.stderr
    outcome = played.game.outcome
    assert outcome is not None
    assert f"Winners: {', '.join(names[seat] for seat in outcome.winners)}" in result.stdout
    assert replay_json(record)["players"] == list(names)


def test_the_assistant_loads_no_bots_and_no_web_stack() -> None:
    heavy = (
        "numpy",
        "sqlalchemy",
        "fastapi",
        "uvicorn",
        "nimmt.bots",
        "nimmt.arena",
        "nimmt.server",
    )
    code = (
        "import io, sys; sys.stdin = io.StringIO('1 2 3 4\\n')\n"
        "sys.argv = ['nimmt', 'assist', '--players', 'Ana,Ben']\n"
        "from nimmt.cli import main\n"
        "try:\n    main()\nexcept SystemExit as end:\n    assert end.code == 0, end.code\n"
        "import json\nprint(json.dumps(sorted(sys.modules)), file=sys.stderr)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    loaded: list[str] = json.loads(result.stderr.strip().splitlines()[-1])
    assert "nimmt.assist" in loaded
    assert [name for name in loaded if name.split(".")[0] in heavy or name in heavy] == []


def test_an_existing_record_is_kept_unless_forced(tmp_path: Path) -> None:
    record = tmp_path / "game.json"
    record.write_text("last week's game", encoding="utf-8")
    refused = run_assist(["1 2 3 4"], record)
    assert refused.returncode == 1
    assert refused.stderr == f"error: {record} exists; use --force to overwrite it\n"
    assert record.read_text(encoding="utf-8") == "last week's game"
    forced = subprocess.run(
        [str(NIMMT), "assist", "--players", ",".join(NAMES), "--record", str(record), "--force"],
        input="1 2 3 4\n", capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert forced.returncode == 0, forced.stderr
    assert json.loads(record.read_text(encoding="utf-8"))["format"] == "6nimmt-record"
