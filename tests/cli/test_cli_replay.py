"""``nimmt replay`` through the real console command: output, exit status, and clear errors."""

from __future__ import annotations

import io
import json
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console

from nimmt import terminal

GOLDEN = Path(__file__).parents[1] / "records" / "golden"
NIMMT = str(Path(sys.executable).with_name("nimmt"))


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [NIMMT, *args], input=stdin, capture_output=True, text=True, timeout=60, check=False
    )


def test_replay_json_prints_the_summary() -> None:
    result = run("replay", str(GOLDEN / "worked_example.json"), "--json")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == json.loads(
        (GOLDEN / "worked_example.expected.json").read_text()
    )


def test_replay_reads_standard_input() -> None:
    result = run("replay", "-", "--json", stdin=(GOLDEN / "full_game.json").read_text())
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["finished"] is True and summary["winners"] == [0]


def test_replay_tells_the_game_for_a_person() -> None:
    result = run("replay", str(GOLDEN / "full_game.json"))
    assert result.returncode == 0, result.stderr
    text = result.stdout
    assert "Round 4" in text and "Turn 10" in text
    assert "The winner is Ana, with 30 bullheads." in text
    assert "Dan takes row 4: 86·1 (1 bullhead); 17 starts the row." in text  # a chosen row
    assert "is the 6th card in row" in text
    assert "You" not in text and "Your" not in text  # a replay tells every seat by name


@pytest.mark.parametrize(
    ("record", "message"),
    [
        (
            {
                "format": "6nimmt-record",
                "version": 1,
                "edition": "professional",
                "players": ["A", "B"],
                "rounds": [],
            },
            "error: edition 'professional' is not offered: nimmt plays only the classic edition",
        ),
        (
            {"format": "6nimmt-record", "version": 1, "players": ["A"], "rounds": []},
            "error: a game has 2 to 10 players, this record has 1",
        ),
    ],
)
def test_bad_records_fail_with_one_error_line(record: dict[str, object], message: str) -> None:
    result = run("replay", "-", "--json", stdin=json.dumps(record))
    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr.strip() == message


def test_a_rule_broken_in_a_turn_is_located(tmp_path: Path) -> None:
    record = json.loads((GOLDEN / "worked_example.json").read_text())
    record["rounds"][0]["turns"][1]["cards"][1] = 55
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(record))
    result = run("replay", str(path))
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == "error: round 1, turn 2: Ben played 55, which is not in their hand\n"


@pytest.mark.parametrize(
    ("argument", "content", "message"),
    [
        ("missing.json", None, "error: missing.json: no such file"),
        ("garbled.json", "{not json", "error: not valid JSON"),
        ("binary.json", b"\xff\xfe\x00", "error: binary.json: not a text file"),
    ],
)
def test_unreadable_files(
    tmp_path: Path, argument: str, content: str | bytes | None, message: str
) -> None:
    path = tmp_path / argument
    if isinstance(content, str):
        path.write_text(content)
    elif isinstance(content, bytes):
        path.write_bytes(content)
    result = subprocess.run(
        [NIMMT, "replay", argument], cwd=tmp_path, capture_output=True, text=True, check=False
    )
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr.startswith(message)
    assert "Traceback" not in result.stderr and result.stderr.count("\n") == 1


def test_a_file_name_that_does_not_show_stays_on_one_line(tmp_path: Path) -> None:
    # A line break or an escape sequence in what the user typed shows as "?": the error is one
    # line, and nothing reaches the terminal as a control sequence.
    for name, shown in (("x\ny.json", "x?y.json"), ("a\x1b[31mb.json", "a?[31mb.json")):
        for command in (["replay", name], ["analyze", name, "--seat", "1"]):
            result = subprocess.run(
                [NIMMT, *command], cwd=tmp_path, capture_output=True, text=True, check=False
            )
            assert result.returncode == 1, command
            assert result.stderr == f"error: {shown}: no such file\n", command


MIB16 = 16 * 1024 * 1024


def padded_record(size: int) -> bytes:
    """The worked example, padded with spaces after its object to exactly ``size`` bytes."""
    record = (GOLDEN / "worked_example.json").read_bytes().rstrip()
    return record + b" " * (size - len(record))


def test_a_record_of_16_mib_is_read(tmp_path: Path) -> None:
    path = tmp_path / "big.json"
    path.write_bytes(padded_record(MIB16))
    result = run("replay", str(path), "--json")
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("source", ["file", "stdin"])
def test_a_record_larger_than_16_mib_is_refused(tmp_path: Path, source: str) -> None:
    data = padded_record(MIB16 + 1)
    path = tmp_path / "huge.json"
    path.write_bytes(data)
    argument, where = (str(path), str(path)) if source == "file" else ("-", "standard input")
    for command in (["replay", argument, "--json"], ["analyze", argument, "--seat", "Ana"]):
        result = subprocess.run(
            [NIMMT, *command],
            input=data if source == "stdin" else None,
            capture_output=True,
            timeout=60,
            check=False,
        )
        assert (result.returncode, result.stdout) == (1, b"")
        assert result.stderr.decode().startswith(f"error: {where} is larger than 16 MiB")
        assert result.stderr.count(b"\n") == 1


def _limit_memory() -> None:
    import resource

    # Without the size limit the endless read below ends in MemoryError, not in a swapping host.
    resource.setrlimit(resource.RLIMIT_AS, (2 * 1024**3, 2 * 1024**3))


@pytest.mark.parametrize("endless", ["/dev/zero", "/dev/full"])
def test_an_endless_input_stops_at_the_limit(endless: str) -> None:
    if not Path(endless).exists():
        pytest.skip(f"no {endless}")
    result = subprocess.run(
        [NIMMT, "replay", endless],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        preexec_fn=_limit_memory,
    )
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == f"error: {endless} is larger than 16 MiB, too large for a game record\n"


def not_utf8_record() -> bytes:
    record = json.loads((GOLDEN / "worked_example.json").read_text())
    record["players"][0] = "An\udcff"  # written as the byte 0xff: not UTF-8
    return json.dumps(record, ensure_ascii=False).encode("utf-8", "surrogateescape")


@pytest.mark.parametrize("command", [["replay", "-", "--json"], ["analyze", "-", "--seat", "Ben"]])
def test_standard_input_that_is_not_utf8_is_refused(command: list[str]) -> None:
    result = subprocess.run(
        [NIMMT, *command], input=not_utf8_record(), capture_output=True, timeout=60, check=False
    )
    assert (result.returncode, result.stdout) == (1, b"")
    assert result.stderr == b"error: standard input: not UTF-8 text (game records are UTF-8 JSON)\n"


def test_a_file_that_is_not_utf8_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "latin1.json"
    path.write_bytes(not_utf8_record())
    result = run("replay", str(path), "--json")
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == f"error: {path}: not a text file (game records are UTF-8 JSON)\n"


def played_in_the_terminal(path: Path, name: str) -> Path:
    """A whole game of ``nimmt play`` (answers chosen at random), recorded to ``path``."""
    chooser = random.Random(4)
    console = Console(file=io.StringIO())
    status = terminal.run(
        terminal.PlaySettings(players=3, seed=8, name=name, record=path),
        console=console,
        err_console=console,
        ask=lambda question: str(chooser.choice(question.choices)),
    )
    assert status == 0
    return path


def test_the_person_of_a_terminal_game_is_told_as_in_the_game(tmp_path: Path) -> None:
    record = played_in_the_terminal(tmp_path / "game.json", "You")
    result = run("replay", str(record))
    assert result.returncode == 0, result.stderr
    text = result.stdout
    assert text.count("  You are dealt  ") == text.count("  Ada is dealt  ") >= 1
    assert "You is dealt" not in text and "You's" not in text
    assert re.search(r"^  Your \d+·\d (goes to|is the 6th)", text, re.MULTILINE)
    assert "Told from" not in text  # the name already reads "you"


def test_a_named_person_is_you_in_the_account_and_named_once(tmp_path: Path) -> None:
    record = played_in_the_terminal(tmp_path / "game.json", "Zoe")
    text = run("replay", str(record)).stdout
    assert text.startswith('Told from Zoe\'s seat ("you" in this account).\n')
    account = text.split("\n", 1)[1]
    assert "  You are dealt  " in account and "Zoe is dealt" not in account
    assert "Zoe's" not in account


@pytest.mark.parametrize(("seat", "told"), [(1, "You"), (True, None), (4, None), ("1", None)])
def test_only_a_valid_person_seat_is_told_as_you(
    tmp_path: Path, seat: object, told: str | None
) -> None:
    record = json.loads((GOLDEN / "full_game.json").read_text())
    record["meta"] = {"program": "nimmt play", "person_seat": seat}
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))
    text = run("replay", str(path)).stdout
    if told is None:
        assert "You" not in text and "  Ben is dealt  1·1  11·5" in text
    else:
        assert "  You are dealt  1·1  11·5" in text and "Ben is dealt" not in text
        assert "You take row 3: 42·1 (1 bullhead); 11 starts the row." in text
