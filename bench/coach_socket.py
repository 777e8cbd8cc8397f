"""How long a person at a web table waits for the coach's figures: the time from the ``state``
that shows a new decision (a card to choose, a row to take) to the socket's ``coach`` answer, as
the browser asks it (docs/protocol.md, "coach").

It starts its own ``nimmt serve`` (bots without delay, a fixed deal seed) with a throw-away
database, opens a table that allows the coach for one person and greedy bots, and plays it from a
socket: at each decision it asks the coach, waits for the answer, then plays its lowest card (or
takes the first row), for ``--rounds`` rounds at each player count. The server's very first
question is reported apart: it waits for the coach's worker process to load the search.

    .venv/bin/python bench/coach_socket.py --players 4 10 --rounds 2 [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "browser"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from browser_helpers import start_server, stop_server  # type: ignore[import-not-found]
from websockets.sync.client import connect

from throwaway import free_port


def post(base: str, path: str, body: dict[str, Any]) -> dict[str, Any]:
    request = urllib.request.Request(
        base + path, data=json.dumps(body).encode(), method="POST",
        headers={"Content-Type": "application/json"},
    )  # fmt: skip
    with urllib.request.urlopen(request, timeout=10) as response:
        answer: dict[str, Any] = json.loads(response.read())
        return answer


def decision(view: dict[str, Any]) -> tuple[str, int, int] | None:
    """The decision a view asks for, as the page names it (js/table/coach.js decisionKey)."""
    if view.get("must_choose_row"):
        return ("row", view["round"], view["turn"])
    if view["phase"] == "choosing_cards" and view["hand"]:
        return ("card", view["round"], view["turn"])
    return None


def play(base: str, players: int, rounds: int) -> list[dict[str, Any]]:
    """One table of ``players`` (one person, greedy bots) for ``rounds`` rounds: each decision's
    wait for the coach, in seconds, with its kind and how many choices it scored."""
    seats = [{"kind": "human"}] + [{"kind": "bot", "bot": "greedy"}] * (players - 1)
    made = post(base, "/api/tables", {"seats": seats, "name": "Ana", "coach": True})
    url = base.replace("http://", "ws://") + f"/ws/{made['code']}?token={made['token']}"
    waits: list[dict[str, Any]] = []
    asked: tuple[str, int, int] | None = None
    started = 0.0
    with connect(url) as socket:
        while True:
            message = json.loads(socket.recv(timeout=120))
            if message["type"] == "state":
                view = message["view"]
                if view["phase"] == "game_over" or view["round"] > rounds:
                    return waits
                key = decision(view)
                if key is not None and key != asked:
                    asked = key
                    started = time.perf_counter()
                    socket.send(json.dumps({"type": "coach", "request_id": "bench"}))
            elif message["type"] == "coach" and asked is not None:
                waits.append({
                    "kind": message["kind"], "choices": len(message["candidates"]),
                    "seconds": time.perf_counter() - started,
                })  # fmt: skip
                if message["kind"] == "row":
                    socket.send(json.dumps({"type": "choose_row", "row": 0}))
                else:
                    card = min(c["choice"] for c in message["candidates"])
                    socket.send(json.dumps({"type": "play", "card": card}))
            elif message["type"] == "error" and message.get("code") != "no_decision":
                raise SystemExit(f"error: the server refused: {message}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, nargs="+", default=[4, 10])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--json", action="store_true")
    options = parser.parse_args()
    results = {}
    with tempfile.TemporaryDirectory() as work:
        server, base = start_server(Path(work) / "bench.db", Path(work) / "log", free_port())
        try:
            cold = None
            for players in options.players:
                waits = play(base, players, options.rounds)
                if cold is None:  # the server's first question also starts the coach's worker
                    cold = round(1000 * waits.pop(0)["seconds"])
                seconds = [wait["seconds"] for wait in waits]
                first = [w["seconds"] for w in waits if w["kind"] == "card" and w["choices"] == 10]
                results[players] = {
                    "decisions": len(waits),
                    "mean_ms": round(1000 * statistics.mean(seconds)),
                    "median_ms": round(1000 * statistics.median(seconds)),
                    "max_ms": round(1000 * max(seconds)),
                    "first_turn_mean_ms": round(1000 * statistics.mean(first)) if first else None,
                }
        finally:
            stop_server(server)
    if options.json:
        print(json.dumps({"first_question_ms": cold, "players": results}, indent=2))
        return
    print(f"the server's first question (the coach's worker starting): {cold} ms; then:")
    print("players  decisions  mean  median  max  first turn (10 cards)")
    for players, row in results.items():
        print(
            f"{players:>7}  {row['decisions']:>9}  {row['mean_ms']:>4}  {row['median_ms']:>6}  "
            f"{row['max_ms']:>4}  {row['first_turn_mean_ms']} ms"
        )


if __name__ == "__main__":
    main()
