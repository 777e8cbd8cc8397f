"""The CPU of the socket's sender (``routers.socket._pump``) per frame, without the network: N
connections, each pumped to a stand-in socket whose send completes at once (as a real one does
while the client reads); every round queues one ``change`` on every connection and waits until
all went out.

    python bench/pump.py --connections 1200 --rounds 200 --json

``pump_us_per_frame`` is the CPU time (``time.process_time``) per frame sent: waking the
sender, the frame's JSON, the send timeout's bookkeeping and the stand-in's send (a counter).
It is the part of ``bench/socket_floor.py``'s floor that is the server's own code. Prints one
JSON line (``--json``) or a short table.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections.abc import Sequence
from typing import Any

import uvloop
from starlette.websockets import WebSocketState

from nimmt.server.routers import socket as socket_router
from nimmt.server.table import Connection
from report import print_figures

CHANGE = {
    "type": "change",
    "version": 123,
    "events": [{"type": "card_chosen", "seat": 1}],
    "view": {"has_chosen": [True, True, False, False], "waiting_for": [2, 3]},
}
"""A typical ``change``: a face-down card, who has chosen now."""


class StandInSocket:
    """A socket whose send completes at once; it counts what it was sent."""

    client_state = WebSocketState.CONNECTED

    def __init__(self) -> None:
        self.sent = 0

    async def send_text(self, text: str) -> None:
        self.sent += 1


async def _run(connections: int, rounds: int) -> dict[str, Any]:
    pairs = [(StandInSocket(), Connection("BENCH1", None, None)) for _ in range(connections)]
    pumps = [
        asyncio.create_task(socket_router._pump(socket, connection, None))  # type: ignore[arg-type]
        for socket, connection in pairs
    ]
    await asyncio.sleep(0)
    start = time.process_time()
    for number in range(1, rounds + 1):
        for _, connection in pairs:
            connection.send(CHANGE)
        while pairs[-1][0].sent < number:
            await asyncio.sleep(0)
    spent = time.process_time() - start
    for pump in pumps:
        pump.cancel()
    await asyncio.gather(*pumps, return_exceptions=True)
    frames = sum(socket.sent for socket, _ in pairs)
    return {
        "connections": connections,
        "rounds": rounds,
        "frames": frames,
        "pump_us_per_frame": round(1e6 * spent / frames, 2),
    }


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--connections", type=int, default=1200)
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--json", action="store_true", help="one JSON line")
    args = parser.parse_args(argv)
    if args.connections < 1 or args.rounds < 1:
        parser.error("--connections and --rounds must be at least 1")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    figures = uvloop.run(_run(args.connections, args.rounds))
    print_figures(figures, as_json=args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
