"""Remote bots at a real ``nimmt serve``: :mod:`nimmt.client` in this process and the
``nimmt bot URL`` command in another take seats at a web table and play the game to its end.

The record is then fetched and replayed, and every message a client received is checked to hold
its own seat's cards only. A client whose server is killed and started again mid-game comes back
with ``since`` and finishes. The command's failures are one ``error:`` line each.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.server.server_helpers import (
    NIMMT,
    Served,
    http,
    launch_server,
    start_server,
    stop_server,
    wait_ready,
)

from nimmt.bots import make_bot
from nimmt.client import ClientError, GameResult, play_seat
from nimmt.records import replay_record
from throwaway import free_port

Message = dict[str, Any]
DEADLINE = 180.0
"""A guard against a hung test, not a timing assertion."""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    folder = tmp_path_factory.mktemp("remote")
    served = start_server(f"sqlite:///{folder / 'nimmt.db'}", folder / "server.log")
    yield served
    stop_server(served)


def new_table(served: Served, seats: list[Message], name: str | None = None) -> Message:
    body: Message = {"seats": seats} if name is None else {"seats": seats, "name": name}
    answer: Message = http("POST", f"{served.http}/api/tables", body)
    return answer


def nimmt_bot(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [str(NIMMT), "bot", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def assert_own_cards_only(result: GameResult, record: Message) -> None:
    """Every hand this client was sent is its own seat's, as the record deals it."""
    seat = result.seat
    for message in result.messages:
        if message["type"] == "state":
            assert message["you"]["seat"] == seat
            view = message["view"]
            if view["round"] >= 1 and view["hand"]:
                dealt = record["rounds"][view["round"] - 1]["hands"][seat]
                assert set(view["hand"]) <= set(dealt)
        elif message["type"] == "events":
            for event in message["events"]:
                if event["type"] == "hand_dealt":
                    assert event["seat"] == seat
    dealt_events = [
        event
        for message in result.messages
        if message["type"] == "events"
        for event in message["events"]
        if event["type"] == "hand_dealt"
    ]
    assert len(dealt_events) == len(record["rounds"])


def test_a_library_client_and_the_command_finish_a_web_game(server: Served) -> None:
    table = new_table(
        server, [{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "bot": "greedy"}]
    )
    url = f"{server.http}{table['url']}"
    command = nimmt_bot(url, "--bot", "random", "--name", "Remote Random", "--seed", "5")
    try:
        result = asyncio.run(
            asyncio.wait_for(play_seat(url, make_bot("greedy", 3), name="Library"), DEADLINE)
        )
        out, err = command.communicate(timeout=DEADLINE)
    finally:
        if command.poll() is None:
            command.kill()
    assert command.returncode == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("Took seat ") and "--token " in lines[0]
    assert any(line.startswith("Round 1: Remote Random took ") for line in lines)
    assert lines[-1].startswith("Game over: Remote Random has ")
    assert max(result.outcome["totals"]) > 66
    record = http("GET", f"{server.http}/api/tables/{table['code']}/record")
    replayed = replay_record(record)
    assert list(replayed.game.totals) == result.outcome["totals"]
    assert sorted(record["players"]) == sorted(["Library", "Remote Random", "Bot 3 (greedy)"])
    assert record["players"][result.seat] == "Library"
    assert_own_cards_only(result, record)


def test_a_callback_client_comes_back_after_the_server_restarts(tmp_path: Path) -> None:
    db, log, port = f"sqlite:///{tmp_path / 'nimmt.db'}", tmp_path / "server.log", free_port()
    served = start_server(db, log, port=port)
    restarted: list[Served] = []
    try:
        table = new_table(
            served,
            [{"kind": "human"}, {"kind": "bot", "bot": "greedy"}, {"kind": "bot", "bot": "easy"}],
        )
        url = f"{served.http}{table['url']}"

        def lowest(view: Message) -> int:
            return 0 if view["must_choose_row"] else min(view["legal_cards"])

        async def play_and_restart() -> GameResult:
            first_round_over = asyncio.Event()

            def watch(message: Message) -> None:
                if message["type"] == "events" and any(
                    event["type"] == "round_scored" for event in message["events"]
                ):
                    first_round_over.set()

            game = asyncio.create_task(play_seat(url, lowest, name="Caller", on_message=watch))
            await first_round_over.wait()
            await asyncio.to_thread(served.kill)
            again = launch_server(db, log, port=port)
            restarted.append(again)
            await asyncio.to_thread(wait_ready, again)
            return await game

        result = asyncio.run(asyncio.wait_for(play_and_restart(), DEADLINE))
    finally:
        stop_server(served)
        for again in restarted:
            stop_server(again)
    assert restarted and max(result.outcome["totals"]) > 66
    rounds = [
        event["round"]
        for message in result.messages
        if message["type"] == "events"
        for event in message["events"]
        if event["type"] == "round_scored"
    ]
    assert len(rounds) >= 2  # the game went on after the restart
    assert rounds == list(range(1, len(rounds) + 1))  # every round told once, none lost


def test_a_client_refuses_a_bad_link_and_a_refused_token(server: Served) -> None:
    with pytest.raises(ClientError) as caught:
        asyncio.run(play_seat("http://example.org/tables/nope", make_bot("random"), name="X"))
    assert caught.value.code == "bad_url"
    table = new_table(server, [{"kind": "human"}, {"kind": "bot", "bot": "greedy"}])
    url = f"{server.http}{table['url']}"
    with pytest.raises(ClientError) as caught:
        asyncio.run(play_seat(url, make_bot("random"), token="not-a-token"))
    assert caught.value.code == "bad_token"


@pytest.mark.parametrize(
    ("case", "expected"),
    [
        ("bad_url", "error: 'http://localhost/nothing' is not a table link"),
        ("unreachable", "error: cannot reach the server at http://127.0.0.1:"),
        ("unknown_table", "error: cannot take a seat at table ABCDEF: There is no table"),
        ("full", "error: cannot take a seat at table {code}: Every seat at this table is taken."),
        ("bad_token", "error: the token was refused at table {code}: "),
        ("bad_bot", "error: unknown bot 'wizard'"),
    ],
)
def test_the_command_fails_with_one_line(server: Served, case: str, expected: str) -> None:
    table = new_table(server, [{"kind": "human"}, {"kind": "bot", "bot": "greedy"}], name="Ana")
    url = f"{server.http}{table['url']}"
    args = {
        "bad_url": ["http://localhost/nothing"],
        "unreachable": [f"http://127.0.0.1:{free_port()}/t/ABCDEF"],
        "unknown_table": [f"{server.http}/t/ABCDEF"],
        "full": [url, "--name", "Ben"],
        "bad_token": [url, "--token", "not-a-token"],
        "bad_bot": [url, "--bot", "wizard"],
    }[case]
    command = nimmt_bot(*args)
    out, err = command.communicate(timeout=DEADLINE)
    assert command.returncode == 1, err
    assert err.splitlines() == [err.splitlines()[0]] and err.startswith(
        expected.format(code=table["code"])
    ), err
    assert out == ""


def test_the_protocol_pages_python_example_plays_two_seats(server: Served) -> None:
    page = (Path(__file__).parents[3] / "docs" / "protocol.md").read_text(encoding="utf-8")
    section = page.split("## 5. A remote bot in Python", 1)[1]
    example = section.split("```python\n", 1)[1].split("```", 1)[0]
    table = new_table(
        server, [{"kind": "human"}, {"kind": "bot", "bot": "easy"}, {"kind": "human"}]
    )
    url = f"{server.http}{table['url']}"
    assert 'URL = "http://127.0.0.1:8000/t/K7QX2M"' in example
    code = example.replace("http://127.0.0.1:8000/t/K7QX2M", url)
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=DEADLINE, check=False
    )
    assert result.returncode == 0, result.stderr
    printed = result.stdout.splitlines()
    assert sorted(line.split()[0] for line in printed) == ["0", "2"]
    assert all("'winners'" in line for line in printed)


def test_a_program_bot_plays_a_web_table_through_the_command(server: Served) -> None:
    example = Path(__file__).parents[3] / "docs" / "examples" / "lowest_bot.py"
    table = new_table(server, [{"kind": "bot", "bot": "medium"}, {"kind": "human"}])
    url = f"{server.http}{table['url']}"
    command = nimmt_bot(url, "--bot", f"cmd:{sys.executable} {example}")
    out, err = command.communicate(timeout=DEADLINE)
    assert command.returncode == 0, err
    assert "Playing at table" in out and "as lowest_bot (bot) (seat 1)." in out
    assert out.splitlines()[-1].startswith("Game over: lowest_bot (bot) has ")
