"""Helpers shared by the server tests: creating tables, reading a socket until a message comes,
and looking at a table's state from inside the service (to prove a refusal changed nothing)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
import websockets
import websockets.sync.client
from sqlalchemy import create_engine, text
from starlette.testclient import TestClient, WebSocketTestSession
from tests.waiting import wait_until

from nimmt.engine import total_bullheads
from nimmt.server.serialize import state_message, view_to_json
from nimmt.server.service import GameService
from nimmt.server.settings import normalize_database_url
from nimmt.server.storage import ActionRecord, SqlStorage
from nimmt.server.table import LiveTable
from throwaway import free_port

Message = dict[str, Any]


def create_table(client: TestClient, seats: list[Message], name: str = "Ana") -> tuple[str, str]:
    answer = client.post("/api/tables", json={"seats": seats, "name": name})
    assert answer.status_code == 201, answer.text
    return answer.json()["code"], answer.json()["token"]


def join(client: TestClient, code: str, name: str) -> str:
    answer = client.post(f"/api/tables/{code}/join", json={"name": name})
    assert answer.status_code == 200, answer.text
    token: str = answer.json()["token"]
    return token


def receive_until(
    ws: WebSocketTestSession, wanted: Callable[[Message], bool], seen: list[Message] | None = None
) -> Message:
    """Read messages until one is ``wanted`` (each read also lands in ``seen``)."""
    for _ in range(10_000):
        message: Message = ws.receive_json()
        if seen is not None:
            seen.append(message)
        if wanted(message):
            return message
    raise AssertionError("the wanted message never came")


def service_of(client: TestClient) -> GameService:
    service: GameService = client.app.state.service  # type: ignore[attr-defined]
    return service


def snapshot(client: TestClient, code: str) -> Message:
    """Everything about a table that an action could change: version, every seat's full view,
    the stored actions. Taken under the table's lock, as every change is made: a bot's move
    applied in memory but still being written is never half seen."""
    return client.portal.call(_snapshot, service_of(client), code)  # type: ignore[union-attr]


async def _snapshot(service: Any, code: str) -> Message:
    table = service.book.tables[code]
    async with table.lock:
        game = table.game
        return {
            "version": table.version,
            "decision_version": table.decision_version,
            "views": [
                view_to_json(game.view(seat), table.names(), game.waiting_for(), seated=table.full)
                for seat in [None, *range(len(table.seats))]
            ],
            "events": len(game.events),
            "stored": list(service.storage.load_actions(code, table.game_number)),
        }


# --------------------------------------------------------------------------------------------
# Real ``nimmt serve`` processes and ``websockets`` clients, for the fault tests.

NIMMT = Path(sys.executable).with_name("nimmt")
FAST_ENV = {
    "NIMMT_BOT_DELAY": "0",
    "NIMMT_WATCHDOG_SECONDS": "1",
    "NIMMT_SOCKET_RATE": "1000",
    "NIMMT_SOCKET_BURST": "1000",
    "NIMMT_BOT_PROCESSES": "1",
    "NIMMT_CREATE_QUOTA": "1000",
}


def http(method: str, url: str, body: Message | None = None) -> Any:
    """One JSON request; the answer's JSON (an HTTP error raises ``urllib.error.HTTPError``)."""
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(
        url, data=data, method=method, headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.loads(answer.read())


@dataclass
class Served:
    """A running ``nimmt serve``: its process, port and log."""

    process: subprocess.Popen[bytes]
    port: int
    log: Path

    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def kill(self) -> None:
        """SIGKILL: no clean-up of any kind (bot workers end by themselves)."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)


HELD_BOTS_SERVE = Path(__file__).with_name("held_bots_serve.py")


def launch_server(
    db: str, log: Path, *, bus: str | None = None, env: dict[str, str] | None = None,
    extra: tuple[str, ...] = (), seed: int = 21, port: int | None = None,
    held_bots: Path | None = None,
) -> Served:  # fmt: skip
    """Start ``nimmt serve`` without waiting for it (see :func:`wait_ready`). With
    ``held_bots``, its bots wait while that file exists (``held_bots_serve.py``)."""
    port = port or free_port()
    arguments = ["--port", str(port), "--db", db, *extra]
    command = (
        [str(NIMMT), "serve", *arguments]
        if held_bots is None
        else [sys.executable, str(HELD_BOTS_SERVE), str(held_bots), *arguments]
    )
    if bus is not None:
        command += ["--bus", bus]
    environment = {**os.environ, **FAST_ENV, "NIMMT_DEAL_SEED": str(seed), **(env or {})}
    with log.open("ab") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=environment)
    return Served(process, port, log)


def wait_ready(*servers: Served, timeout: float = 60) -> None:
    """Wait (bounded) until every server's ``/healthz`` answers; stop them all if one fails."""
    deadline = time.monotonic() + timeout
    try:
        for served in servers:
            _wait_healthy(served, deadline - time.monotonic())
    except BaseException:
        for served in servers:
            stop_server(served)
        raise


def _wait_healthy(served: Served, timeout: float) -> None:
    def healthy() -> bool:
        assert served.process.poll() is None, "the server ended:\n" + served.log.read_text()
        with contextlib.suppress(OSError, ValueError):
            return bool(http("GET", f"{served.http}/healthz") == {"status": "ok"})
        return False

    wait_until(
        healthy,
        timeout=timeout,
        interval=0.1,
        message=lambda: "no server:\n" + served.log.read_text(),
    )


def start_server(db: str, log: Path, **options: Any) -> Served:
    """Start ``nimmt serve`` (options: see :func:`launch_server`) and wait until it answers;
    stop it with :func:`stop_server` in a ``finally``."""
    served = launch_server(db, log, **options)
    wait_ready(served)
    return served


def stop_server(served: Served | None) -> None:
    if served is None:
        return
    if served.process.poll() is None:
        served.process.terminate()
        try:
            served.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            served.process.kill()
            served.process.wait(timeout=10)


class Player:
    """One socket through the ``websockets`` client, and everything it was sent."""

    def __init__(self, name: str, code: str, token: str | None) -> None:
        self.name = name
        self.code = code
        self.token = token
        self.ws: Any = None
        self.messages: list[Message] = []
        self.state: Message | None = None
        """The latest ``state``."""
        self.sent: list[Message] = []
        self._acted: set[tuple[Any, ...]] = set()

    async def connect(self, base_ws: str, since: int | None = None, *, wait: bool = True) -> None:
        """Open the socket; with ``wait``, read up to the first ``state``."""
        url = f"{base_ws}/ws/{self.code}"
        query = [f"token={self.token}"] if self.token else []
        if since is not None:
            query.append(f"since={since}")
        if query:
            url += "?" + "&".join(query)
        # Unbounded client-side buffering: a socket read late must not make the server drop it.
        self.ws = await websockets.connect(url, open_timeout=20, max_queue=None, proxy=None)
        self.state = None
        if wait:
            while (await self.recv())["type"] != "state":
                pass

    async def close(self) -> None:
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await self.ws.close()
            self.ws = None

    @property
    def seat(self) -> int | None:
        assert self.state is not None
        seat: int | None = self.state["you"]["seat"]
        return seat

    async def recv(self, timeout: float = 30) -> Message:
        message: Message = json.loads(await asyncio.wait_for(self.ws.recv(), timeout))
        self.messages.append(message)
        if message["type"] == "state":
            self.state = message
        return message

    async def until(self, wanted: Callable[[Message], bool], timeout: float = 30) -> Message:
        """Read until a ``state`` is ``wanted`` (the latest state is checked first)."""
        if self.state is not None and wanted(self.state):
            return self.state
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            assert left > 0, f"{self.name}: the wanted state never came; last {self.state}"
            message = await self.recv(left)
            assert message["type"] != "error", (self.name, message)
            if message["type"] == "state" and wanted(message):
                return message

    async def send(self, message: Message) -> None:
        self.sent.append(message)
        await self.ws.send(json.dumps(message))

    async def decide(self, state: Message | None = None) -> bool:
        """Act on ``state`` (default: the latest) if it asks this seat for a decision not yet
        made: the lowest legal card, or row 0. Whether it acted."""
        state = state or self.state
        assert state is not None
        view = state["view"]
        key = (state["table"]["game"], view["round"], view["turn"], view["phase"])
        if key in self._acted:
            return False
        if view["legal_cards"]:
            card = view["legal_cards"][0]
            self._acted.add(key)
            await self.send({"type": "play", "card": card, "version": state["version"]})
            return True
        if view["must_choose_row"]:
            self._acted.add(key)
            await self.send({"type": "choose_row", "row": 0, "version": state["version"]})
            return True
        return False

    async def play_until(self, stop: Callable[[Message], bool], timeout: float = 60) -> Message:
        """Play this seat (see :meth:`decide`) until a state satisfies ``stop``."""
        deadline = time.monotonic() + timeout
        while True:
            assert self.state is not None
            if stop(self.state):
                return self.state
            await self.decide()
            left = deadline - time.monotonic()
            assert left > 0, f"{self.name}: never reached the stop; last {self.state}"
            try:
                message = await self.recv(left)
            except TimeoutError:
                raise AssertionError(f"{self.name}: stuck; last {self.state}") from None
            assert message["type"] != "error", (self.name, message)

    def states(self) -> list[Message]:
        return [m for m in self.messages if m["type"] == "state"]


def stored_actions(db_url: str, code: str) -> list[dict[str, Any]]:
    """The ``actions`` rows of a table, in ``seq`` order, read with SQLAlchemy. Both reads see
    one snapshot (PostgreSQL's repeatable read): a server committing its next action between
    them must not make the table's version and its actions disagree."""
    url = normalize_database_url(db_url)
    options = {"isolation_level": "REPEATABLE READ"} if url.startswith("postgresql") else {}
    engine = create_engine(url, execution_options=options)
    try:
        with engine.connect() as connection, connection.begin():
            rows = connection.execute(
                text(
                    "select a.seq, a.game, a.kind, a.seat, a.card, a.row, a.data from actions a "
                    "join tables t on t.id = a.table_id where t.code = :code order by a.seq"
                ),
                {"code": code},
            ).all()
            version = connection.execute(
                text("select version from tables where code = :code"), {"code": code}
            ).scalar()
    finally:
        engine.dispose()
    assert version == (rows[-1].seq if rows else 0)
    return [row._asdict() for row in rows]


class Replayer:
    """The ``view`` a seat should have been sent at a version, rebuilt from the stored actions
    alone (and the stored seats, which do not change after the last join)."""

    def __init__(self, db_url: str, code: str, actions: list[dict[str, Any]]) -> None:
        storage = SqlStorage(db_url, run_migrations=False)
        try:
            record = storage.load_table(code)
        finally:
            storage.close()
        assert record is not None
        self.record = record
        self.actions = [
            ActionRecord(a["seq"], a["game"], a["kind"], a["seat"], a["card"], a["row"], a["data"])
            for a in actions
        ]
        self._tables: dict[int, LiveTable] = {}

    def view(self, version: int, seat: int | None) -> Message:
        table = self._tables.get(version)
        if table is None:
            table = LiveTable(self.record.code, self.record.created_at, list(self.record.seats))
            game = max(a.game for a in self.actions if a.seq <= version)
            table.game_number = game
            table.replay([a for a in self.actions if a.seq <= version and a.game == game], version)
            self._tables[version] = table
        # As a socket receives it: the wire shapes hold tuples that JSON writes as arrays.
        view: Message = orjson.loads(orjson.dumps(state_message(table, seat)["view"]))
        return view


def cheapest_row(rows: list[list[int]]) -> int:
    costs = [total_bullheads(row) for row in rows]
    return costs.index(min(costs))


def move_for(
    message: Message, acted: set[tuple[Any, ...]], pick: Callable[[list[int]], int]
) -> Message | None:
    """What a person sends on ``message``: the card ``pick`` takes of the legal ones, or the
    cheapest row when asked, with the version it was decided on; once per decision (``acted``
    remembers them); ``None`` when there is nothing to decide."""
    if message["type"] != "state":
        return None
    view = message["view"]
    key = (view["round"], view["turn"], view["phase"])
    if key in acted:
        return None
    if view["legal_cards"]:
        move: Message = {"type": "play", "card": pick(view["legal_cards"])}
    elif view["must_choose_row"]:
        move = {"type": "choose_row", "row": cheapest_row(view["rows"])}
    else:
        return None
    acted.add(key)
    return {**move, "version": message["version"]}


def game_over(message: Message) -> bool:
    return bool(message["type"] == "state" and message["view"]["phase"] == "game_over")


RATE_PAUSE = 0.25
"""Seconds a person waits before sending again a move the socket's rate limit refused (at most
``socket_rate`` messages a second: players that answer at once outrun it in a quick game)."""


def play_person(
    receive: Callable[[], Message],
    send: Callable[[Message], None],
    pick: Callable[[list[int]], int],
) -> None:
    """A person over one socket, until the game is over: one decision per turn, sent with the
    version it was made on; a move refused as ``rate_limited`` is sent again after a pause."""
    acted: set[tuple[Any, ...]] = set()
    last: Message | None = None
    while True:
        message = receive()
        if game_over(message):
            return
        if (
            message["type"] == "error"
            and message.get("code") == "rate_limited"
            and last is not None
        ):
            time.sleep(RATE_PAUSE)  # the rate limit's bucket fills again meanwhile
            send(last)
            continue
        move = move_for(message, acted, pick)
        if move is not None:
            last = move
            send(move)


def play_seat(
    ws: WebSocketTestSession, received: list[Message], pick: Callable[[list[int]], int]
) -> None:
    """A person at a TestClient's table; every message it got is added to ``received``."""

    def receive() -> Message:
        message: Message = ws.receive_json()
        received.append(message)
        return message

    play_person(receive, ws.send_json, pick)


def play_served_seat(url: str, pick: Callable[[list[int]], int], timeout: float = 60) -> None:
    """A person at a table of a running server (its socket ``url``), until the game is over."""
    with websockets.sync.client.connect(url) as socket:
        play_person(
            lambda: json.loads(socket.recv(timeout=timeout)),
            lambda move: socket.send(json.dumps(move)),
            pick,
        )
