"""``nimmt analyze`` through the real console command: the JSON, the table, and clear errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

GOLDEN = Path(__file__).parents[1] / "records" / "golden"
NIMMT = str(Path(sys.executable).with_name("nimmt"))
FULL_GAME = str(GOLDEN / "full_game.json")


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [NIMMT, *args], input=stdin, capture_output=True, text=True, timeout=120, check=False
    )


def test_a_whole_record_analyzed_as_json() -> None:
    result = run("analyze", FULL_GAME, "--seat", "Ben", "--json", "--samples", "64")
    assert result.returncode == 0, result.stderr
    answer = json.loads(result.stdout)
    assert set(answer) == {"seat", "name", "decisions", "total_loss"}
    assert (answer["seat"], answer["name"]) == (1, "Ben")
    record = json.loads(Path(FULL_GAME).read_text())
    kinds = {"card": 0, "row": 0}
    for entry in answer["decisions"]:
        assert set(entry) == {"round", "turn", "kind", "chosen", "best", "loss", "candidates"}
        kinds[entry["kind"]] += 1
        turn = record["rounds"][entry["round"] - 1]["turns"][entry["turn"] - 1]
        choices = [candidate["choice"] for candidate in entry["candidates"]]
        assert choices == sorted(choices)
        assert all(set(candidate) == {"choice", "expected"} for candidate in entry["candidates"])
        if entry["kind"] == "row":
            assert entry["chosen"] == turn["row"] + 1  # rows counted from 1 here
            assert choices == [1, 2, 3, 4]
        else:
            assert entry["chosen"] == turn["cards"][1]
        expected = {c["choice"]: c["expected"] for c in entry["candidates"]}
        assert expected[entry["best"]] == min(expected.values())
        assert entry["loss"] == pytest.approx(expected[entry["chosen"]] - expected[entry["best"]])
        assert entry["loss"] >= 0
    assert kinds["card"] == 9 * len(record["rounds"]) and kinds["row"] >= 1
    assert answer["total_loss"] == pytest.approx(sum(e["loss"] for e in answer["decisions"]))
    again = run("analyze", FULL_GAME, "--seat", "Ben", "--json", "--samples", "64")
    assert json.loads(again.stdout) == answer  # the same seed, the same figures


def test_the_table_shows_the_costliest_decisions_first_and_the_total() -> None:
    text = Path(FULL_GAME).read_text()
    result = run("analyze", "-", "--seat", "ana", "--samples", "32", stdin=text)
    assert result.returncode == 0, result.stderr
    assert "Decisions of Ana, the costliest first" in result.stdout
    assert "Ana lost " in result.stdout and "expected bullheads over" in result.stdout
    answer = json.loads(
        run("analyze", FULL_GAME, "--seat", "Ana", "--samples", "32", "--json").stdout
    )
    worst = max(answer["decisions"], key=lambda entry: entry["loss"])
    body = result.stdout.split("┩", 1)[1]  # below the header
    first_row = next(line for line in body.splitlines() if line.strip())
    assert f"{worst['loss']:.1f}" in first_row


def test_a_name_in_another_case_must_be_unambiguous(tmp_path: Path) -> None:
    record = json.loads(Path(FULL_GAME).read_text())
    record["players"] = ["Ana", "ANA", "Cleo", "Dan"]
    path = tmp_path / "twins.json"
    path.write_text(json.dumps(record))
    exact = run("analyze", str(path), "--seat", "ANA", "--json", "--samples", "4")
    assert json.loads(exact.stdout)["seat"] == 1
    result = run("analyze", str(path), "--seat", "ana")
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == (
        'error: "ana" could be any of Ana, ANA: give the name exactly as in the record\n'
    )


def test_a_player_number_counts_from_1() -> None:
    result = run("analyze", FULL_GAME, "--seat", "3", "--json", "--samples", "8")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["name"] == "Cleo"


def test_names_in_an_error_are_shown_plainly_on_one_line(tmp_path: Path) -> None:
    record = json.loads(Path(FULL_GAME).read_text())
    # A record's names may hold what a name typed may not (no control character, though).
    record["players"][0] = "Ann\u200bBo"
    path = tmp_path / "odd.json"
    path.write_text(json.dumps(record))
    result = run("analyze", str(path), "--seat", "Zo\\e")
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == (
        'error: no player called "Zo\\e" in this record; the players are Ann?Bo, Ben, Cleo, Dan\n'
    )


@pytest.mark.parametrize(
    ("arguments", "stdin", "message"),
    [
        (
            [FULL_GAME, "--seat", "Zoe"],
            None,
            'error: no player called "Zoe" in this record; the players are Ana, Ben, Cleo, Dan',
        ),
        (
            [FULL_GAME, "--seat", "7"],
            None,
            "error: no seat 7 in this record: its seats are 1 to 4 (Ana, Ben, Cleo, Dan)",
        ),
        (["-", "--seat", "Ana"], "{not json", "error: not valid JSON"),
        (
            ["-", "--seat", "A"],
            json.dumps({"format": "6nimmt-record", "version": 1, "players": ["A"], "rounds": []}),
            "error: a game has 2 to 10 players, this record has 1",
        ),
        (["missing.json", "--seat", "Ana"], None, "error: missing.json: no such file"),
        ([FULL_GAME, "--seat", "Ana", "--samples", "0"], None, "error: --samples must be"),
    ],
)
def test_errors_are_one_line_and_exit_1(
    arguments: list[str], stdin: str | None, message: str
) -> None:
    result = run("analyze", *arguments, "--json", stdin=stdin)
    assert (result.returncode, result.stdout) == (1, "")
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(message), result.stderr


def test_a_rule_broken_in_the_record_is_located(tmp_path: Path) -> None:
    record = json.loads(Path(FULL_GAME).read_text())
    record["rounds"][1]["turns"][2]["cards"][1] = 104
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(record))
    result = run("analyze", str(path), "--seat", "Ben")
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr.startswith("error: round 2, turn 3: Ben played 104")
