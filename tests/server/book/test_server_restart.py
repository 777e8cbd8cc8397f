"""A real ``nimmt serve`` process is killed with SIGKILL in the middle of a round and started
again on the same SQLite database: the people reconnect with their tokens (through the
``websockets`` client library) and find the very same table, down to a card chosen face down just
before the kill, and play the game to its end."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import websockets
from tests.server.server_helpers import http
from tests.waiting import wait_until

from nimmt.records import replay_record
from throwaway import free_port

Message = dict[str, Any]
NIMMT = Path(sys.executable).with_name("nimmt")
GREEDY = {"kind": "bot", "bot": "greedy"}


@contextmanager
def server(db_url: str, port: int, log: Path) -> Iterator[subprocess.Popen[bytes]]:
    env = {**os.environ, "NIMMT_BOT_DELAY": "0", "NIMMT_DEAL_SEED": "21"}
    with log.open("ab") as out:
        process = subprocess.Popen(
            [str(NIMMT), "serve", "--port", str(port), "--db", db_url],
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
        )

    def up() -> bool:
        assert process.poll() is None, log.read_text()
        with contextlib.suppress(OSError):
            return bool(http("GET", f"http://127.0.0.1:{port}/healthz") == {"status": "ok"})
        return False

    try:
        wait_until(
            up,
            timeout=30,
            interval=0.1,
            message=lambda: "the server did not come up:\n" + log.read_text(),
        )
        yield process
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=10)


async def play(
    ws: Any,
    stop: Callable[[Message], bool],
    pick: Callable[[list[int]], int] | None,
    first: Message | None = None,
) -> Message:
    """Play one seat (one decision per turn; only watch if ``pick`` is None), starting from the
    state ``first`` if given, until a state satisfies ``stop``; that state."""
    acted: set[tuple[Any, ...]] = set()
    while True:
        if first is not None:
            message, first = first, None
        else:
            message = json.loads(await asyncio.wait_for(ws.recv(), timeout=30))
        assert message["type"] in ("state", "events"), message
        if message["type"] != "state":
            continue
        if stop(message):
            return message
        view = message["view"]
        key = (view["round"], view["turn"], view["phase"])
        if key in acted or pick is None:
            continue
        if view["legal_cards"]:
            acted.add(key)
            card = pick(view["legal_cards"])
            await ws.send(json.dumps({"type": "play", "card": card, "version": message["version"]}))
        elif view["must_choose_row"]:
            acted.add(key)
            await ws.send(
                json.dumps({"type": "choose_row", "row": 3, "version": message["version"]})
            )


def deciding_turn(turn: int) -> Callable[[Message], bool]:
    return lambda m: m["view"]["turn"] >= turn and bool(m["view"]["legal_cards"])


def game_over(message: Message) -> bool:
    return bool(message["view"]["phase"] == "game_over")


def without_presence(state: Message) -> Message:
    """A state without who is connected (that is all a restart may change)."""
    table = dict(state["table"])
    table["seats"] = [{**seat, "connected": None} for seat in table["seats"]]
    if table.get("absence"):  # who is away, and for how long, is presence too
        table["absence"] = {**table["absence"], "away": None}
    return {**state, "table": table}


async def first_half(base: str, code: str, tokens: list[str]) -> list[Message]:
    """Play 4 turns of round 1; in the 5th Ana chooses face down, Ben not: the states then."""
    async with (
        websockets.connect(f"{base}/ws/{code}?token={tokens[0]}") as ana,
        websockets.connect(f"{base}/ws/{code}?token={tokens[1]}") as ben,
    ):
        before = await asyncio.gather(
            play(ana, deciding_turn(4), min), play(ben, deciding_turn(4), max)
        )
        card = before[0]["view"]["legal_cards"][0]
        await ana.send(json.dumps({"type": "play", "card": card, "version": before[0]["version"]}))
        waits_for_ben = lambda m: m["view"]["waiting_for"] == [1]  # noqa: E731
        return list(
            await asyncio.gather(play(ana, waits_for_ben, None), play(ben, waits_for_ben, None))
        )


async def second_half(
    base: str, code: str, tokens: list[str]
) -> tuple[list[Message], list[Message]]:
    async with (
        websockets.connect(f"{base}/ws/{code}?token={tokens[0]}") as ana,
        websockets.connect(f"{base}/ws/{code}?token={tokens[1]}") as ben,
    ):
        again = [json.loads(await ana.recv()), json.loads(await ben.recv())]
        end = await asyncio.gather(
            play(ana, game_over, min, again[0]), play(ben, game_over, max, again[1])
        )
        return again, list(end)


def test_a_killed_server_continues_every_table_exactly(tmp_path: Path) -> None:
    db_url = f"sqlite:///{tmp_path / 'games.db'}"
    log = tmp_path / "server.log"
    port = free_port()
    base_http, base_ws = f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}"

    with server(db_url, port, log) as first:
        seats = [{"kind": "human"}, {"kind": "human"}, GREEDY, GREEDY]
        created = http("POST", f"{base_http}/api/tables", {"seats": seats, "name": "Ana"})
        code = created["code"]
        ben = http("POST", f"{base_http}/api/tables/{code}/join", {"name": "Ben"})
        tokens = [created["token"], ben["token"]]
        before = asyncio.run(first_half(base_ws, code, tokens))
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=10)

    with server(db_url, port, log):
        again, end = asyncio.run(second_half(base_ws, code, tokens))
        record = http("GET", f"{base_http}/api/tables/{code}/record")

    # The same table, seen by each seat exactly as before the kill.
    assert before[0]["view"]["chosen_card"] is not None and before[1]["view"]["chosen_card"] is None
    for seat in (0, 1):
        assert again[seat]["type"] == "state"
        assert without_presence(again[seat]) == without_presence(before[seat])
    # ...and the game that followed is the one that was dealt before the kill.
    first_round = record["rounds"][0]
    turn = before[0]["view"]["turn"]
    assert [t["cards"] for t in first_round["turns"][:turn]] == before[0]["view"]["played"]
    assert first_round["turns"][turn]["cards"][0] == before[0]["view"]["chosen_card"]
    for seat in (0, 1):
        assert set(before[seat]["view"]["hand"]) <= set(first_round["hands"][seat])
    replayed = replay_record(record)
    assert replayed.finished
    # The server's log says who connected, never with which token.
    assert "WebSocket /ws/" in log.read_text()
    assert not any(token in log.read_text() for token in tokens)
    for state in end:
        assert state["view"]["outcome"] == {
            "totals": list(replayed.totals),
            "winners": list(replayed.winners),
        }
