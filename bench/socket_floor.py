"""What the web stack alone costs per action: a FastAPI socket under uvicorn as ``nimmt serve``
runs it (``websockets-sansio``, uvloop, no per-message compression) that answers each message
with ``--frames`` ready-made ``change`` frames and does nothing else, driven by as many sockets
at the same pace as ``bench/load.py``'s people.

    python bench/socket_floor.py --connections 1200 --frames 3 --seconds 20 --json

1,200 sockets are ``bench/load.py --tables 400``'s people; at 400 tables each person's action
sends about three frames (one per person at the table: most changes are told to all three, a
few are not told at all). ``server_cpu_per_message_ms`` is the server process's CPU time in the
window divided by the messages it answered: the floor under ``bench/load.py``'s ``server CPU
per action``, which adds what the server itself does with an action (the rules, storing it,
the bots, building what each listener is told). Prints one JSON line (``--json``) or a short
table. The server runs as a subprocess of this script (``--serve PORT`` is that subprocess).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import socket
import subprocess
import sys
import time
from collections.abc import Sequence
from typing import Any

import psutil  # type: ignore[import-untyped]  # no stubs among the dependencies
import uvicorn
from fastapi import FastAPI, WebSocket, WebSocketDisconnect
from websockets.asyncio.client import connect

from load_server import HOST, ProcessTree, cpu_between, steal_share
from report import print_figures
from throwaway import free_port

CHANGE = json.dumps(
    {
        "type": "change",
        "version": 123,
        "events": [{"type": "card_chosen", "seat": 1}],
        "view": {"has_chosen": [True, True, False, False], "waiting_for": [2, 3]},
    }
)
"""A typical ``change`` frame: a face-down card, who has chosen now."""
ACTION = json.dumps({"type": "play", "card": 42, "request_id": 7})


def serve(port: int, frames: int) -> None:
    """The socket server (this script's subprocess): each message in, ``frames`` frames out."""
    app = FastAPI()

    @app.websocket("/ws")
    async def answer(websocket: WebSocket) -> None:
        await websocket.accept()
        with contextlib.suppress(WebSocketDisconnect):
            while True:
                await websocket.receive_text()
                for _ in range(frames):
                    await websocket.send_text(CHANGE)

    uvicorn.run(
        app,
        host=HOST,
        port=port,
        log_level="warning",
        ws="websockets-sansio",
        ws_per_message_deflate=False,
    )


async def drive(args: argparse.Namespace, port: int, server: ProcessTree) -> dict[str, Any]:
    answered = 0
    counting = False

    async def person(seed: int) -> None:
        nonlocal answered
        rng = random.Random(seed)
        async with connect(f"ws://{HOST}:{port}/ws", max_queue=None) as socket:
            while True:
                await asyncio.sleep(rng.uniform(args.think_low, args.think_high))
                await socket.send(ACTION)
                for _ in range(args.frames):
                    await socket.recv()
                if counting:
                    answered += 1

    people = [asyncio.create_task(person(seed)) for seed in range(args.connections)]
    try:
        await asyncio.sleep(args.warm_up)
        failed = [task for task in people if task.done()]
        if failed:
            raise SystemExit(f"error: {len(failed)} sockets failed: {failed[0].exception()!r}")
        counting = True
        cpu_before, machine_before = server.cpu(), psutil.cpu_times()
        started = time.monotonic()
        await asyncio.sleep(args.seconds)
        cpu_after, machine_after = server.cpu(), psutil.cpu_times()
        window = time.monotonic() - started
        counting = False
    finally:
        for task in people:
            task.cancel()
        await asyncio.gather(*people, return_exceptions=True)
    cpu = cpu_between(cpu_before, cpu_after)
    return {
        "connections": args.connections,
        "frames": args.frames,
        "seconds": round(window, 1),
        "messages": answered,
        "messages_per_s": round(answered / window, 1),
        "server_cpu_s": round(cpu, 2),
        "server_cpu_per_message_ms": round(1000 * cpu / answered, 3) if answered else None,
        "server_cores_used": round(cpu / window, 2),
        "steal_share": steal_share(machine_before, machine_after),
    }


def bench(args: argparse.Namespace) -> dict[str, Any]:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, __file__, "--serve", str(port), "--frames", str(args.frames)]
    )
    try:
        deadline = time.monotonic() + 30
        while not _listening(port):  # (up once its port takes a connection)
            if process.poll() is not None or time.monotonic() > deadline:
                raise SystemExit("error: the socket server did not start")
            time.sleep(0.1)
        return asyncio.run(drive(args, port, ProcessTree(process.pid)))
    finally:
        process.terminate()
        process.wait(10)


def _listening(port: int) -> bool:
    try:
        with socket.create_connection((HOST, port), timeout=1):
            return True
    except OSError:
        return False


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--connections", type=int, default=1200)
    parser.add_argument("--frames", type=int, default=3, help="frames out per message in")
    parser.add_argument("--seconds", type=float, default=20.0, help="the measured window")
    parser.add_argument(
        "--warm-up", type=float, default=5.0, help="seconds played before the window"
    )
    parser.add_argument("--think-low", type=float, default=0.3)
    parser.add_argument("--think-high", type=float, default=1.5)
    parser.add_argument("--json", action="store_true", help="one JSON line")
    parser.add_argument("--serve", type=int, metavar="PORT", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.connections < 1 or args.frames < 0 or args.seconds <= 0 or args.warm_up < 0:
        parser.error("--connections and --seconds must be positive, --frames at least 0")
    if not 0 <= args.think_low <= args.think_high:
        parser.error("--think-low must be between 0 and --think-high")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.serve is not None:
        serve(args.serve, args.frames)
        return 0
    figures = bench(args)
    print_figures(figures, as_json=args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
