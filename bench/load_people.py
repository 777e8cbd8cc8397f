"""The simulated people of ``bench/load.py``: each plays one seat over its own socket as the web
client does (a ``change`` applied over the state it holds), and the figures they measure
(:class:`Stats`). ``bench/load.py``'s docstring says what is measured and how.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from load_server import HOST, Ack
from nimmt.server.publisher import apply_change

if TYPE_CHECKING:
    from load import Run

THINK_SECONDS = (0.3, 1.5)
"""A person's think time before each action, drawn uniformly (seconds)."""
MAX_TRIES = 3
"""Refusals of one decision after which a person gives up on it (the table then stalls)."""

Key = tuple[Any, ...]


# ------------------------------------------------------------------------------ figures


def percentile(samples: Sequence[float], fraction: float) -> float | None:
    """Nearest-rank percentile (``None`` without samples)."""
    if not samples:
        return None
    ordered = sorted(samples)
    rank = max(1, min(len(ordered), int(-(-fraction * len(ordered) // 1))))
    return ordered[rank - 1]


def ms(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds * 1000, 1)


@dataclass
class Stats:
    """Everything measured; times are ``time.perf_counter()`` seconds."""

    window_start: float = float("inf")
    window_end: float = float("inf")
    latencies: list[float] = field(default_factory=list)
    bot_latencies: list[float] = field(default_factory=list)
    lobby_latencies: list[float] = field(default_factory=list)
    loop_lags: list[float] = field(default_factory=list)
    actions: int = 0
    bot_actions: int = 0
    rematches: int = 0
    errors: int = 0
    stale: int = 0
    error_codes: Counter[str] = field(default_factory=Counter)
    lobby_errors: int = 0
    disconnects: int = 0
    client_errors: Counter[str] = field(default_factory=Counter)
    acks: Counter[Ack] = field(default_factory=Counter)

    def in_window(self, moment: float) -> bool:
        return self.window_start <= moment < self.window_end


# ------------------------------------------------------------------------- the people


@dataclass
class Pending:
    """An action sent and not yet answered."""

    kind: str
    value: int
    request_id: int
    sent: float
    key: Key
    game: int
    round: int
    accepted_version: int | None = None


def decision_key(state: dict[str, Any]) -> Key:
    view = state["view"]
    return (state["table"]["game"], view["round"], view["turn"], view["phase"])


class Table:
    """One table of the bench: its code, the bot's seat, and its people."""

    def __init__(self, code: str, bot_seat: int) -> None:
        self.code = code
        self.bot_seat = bot_seat
        self.people: list[Person] = []
        self.bot_waiting: tuple[Key, float] | None = None


class Person:
    """One simulated person at one seat, on one socket."""

    def __init__(self, run: Run, table: Table, seat: int, token: str) -> None:
        self.run = run
        self.table = table
        self.seat = seat
        self.token = token
        self.rng = random.Random(run.rng.random())
        self.socket: ClientConnection | None = None
        self.seated = asyncio.Event()
        self.state: dict[str, Any] | None = None
        self.acted: Counter[Key] = Counter()
        self.refused: set[Key] = set()
        self.pending: Pending | None = None
        self.thinking: asyncio.Task[None] | None = None
        self.closing = False

    @property
    def rematcher(self) -> bool:
        """Every person agrees to play again: a new game needs all of them."""
        return True

    @property
    def observer(self) -> bool:
        """Seat 0 also times the bot."""
        return self.seat == 0

    async def play(self) -> None:
        # As the web client does: each change comes as one ``change`` holding its events.
        events = self.run.args.events
        url = f"ws://{HOST}:{self.run.port}/ws/{self.table.code}?token={self.token}&events={events}"
        try:
            async with connect(url, proxy=None, open_timeout=30, max_size=None) as socket:
                self.socket = socket
                async for raw in socket:
                    self.receive(json.loads(raw))
        except (ConnectionClosed, OSError, TimeoutError):
            pass
        except Exception as error:  # a message this script does not understand: a bench bug
            self.run.stats.client_errors[type(error).__name__] += 1
        finally:
            if not self.closing:
                self.run.stats.disconnects += 1
            self.seated.set()  # nobody waits for a person who is gone

    def receive(self, message: dict[str, Any]) -> None:
        kind = message.get("type")
        now = time.perf_counter()
        if kind == "change":
            held = self.state
            if held is None:
                return  # (the server sends a whole state first)
            message = {**apply_change(held, message), "events": message.get("events", [])}
            kind = "state"
        if kind == "events":
            self.on_events(message, now)
        elif kind == "state":
            if message.get("events"):
                self.on_events(message, now)
            self.on_state(message, now)
        elif kind == "error":
            self.on_error(message)

    def on_events(self, message: dict[str, Any], now: float) -> None:
        events: list[dict[str, Any]] = message["events"]
        pending = self.pending
        if pending is not None and pending.accepted_version is None:
            for event in events:
                if self._acknowledges(pending, event):
                    pending.accepted_version = message["version"]
                    if pending.kind == "rematch":
                        if self.observer:  # one new game, however many people agreed
                            self.run.stats.rematches += 1
                    else:
                        self.run.stats.acks[
                            (
                                self.table.code,
                                pending.game,
                                pending.round,
                                self.seat,
                                pending.kind,
                                pending.value,
                            )
                        ] += 1
                    break
        if self.observer and self.table.bot_waiting is not None:
            bot = self.table.bot_seat
            for event in events:
                if event.get("seat") == bot and (
                    event["type"] == "card_chosen"
                    or (event["type"] == "row_taken" and event.get("chosen"))
                ):
                    started = self.table.bot_waiting[1]
                    self.table.bot_waiting = None
                    if self.run.stats.in_window(started):
                        self.run.stats.bot_latencies.append(now - started)
                        self.run.stats.bot_actions += 1
                    break

    def _acknowledges(self, pending: Pending, event: dict[str, Any]) -> bool:
        kind = event.get("type")
        if pending.kind == "play":
            return kind == "card_chosen" and event.get("seat") == self.seat
        if pending.kind == "choose_row":
            return kind == "row_taken" and event.get("seat") == self.seat and bool(event["chosen"])
        return kind == "rematch_started"

    def on_state(self, message: dict[str, Any], now: float) -> None:
        self.state = message
        self.seated.set()
        pending = self.pending
        if (
            pending is not None
            and pending.accepted_version is not None
            and message["version"] >= pending.accepted_version
        ):
            self.pending = None
            stats = self.run.stats
            if pending.kind != "rematch" and stats.in_window(pending.sent):
                stats.latencies.append(now - pending.sent)
                stats.actions += 1
        if self.observer:
            self.watch_bot(message, now)
        self.consider()

    def on_error(self, message: dict[str, Any]) -> None:
        pending = self.pending
        if pending is None or message.get("request_id") != pending.request_id:
            return  # not an answer to an action (e.g. a ping's): nothing to count
        code = str(message.get("code"))
        stats = self.run.stats
        if code == "stale_version":
            stats.stale += 1
        else:
            stats.errors += 1
            stats.error_codes[code] += 1
        self.refused.add(pending.key)
        self.pending = None
        self.consider()  # look again at the newest state (a retry if it still holds the decision)

    def watch_bot(self, message: dict[str, Any], now: float) -> None:
        view = message["view"]
        bot = self.table.bot_seat
        waited = (view["phase"] == "choosing_cards" and bot in view["waiting_for"]) or (
            view["phase"] == "choosing_row"
            and (view.get("pending_row_choice") or {}).get("seat") == bot
        )
        if not waited:
            return
        key = decision_key(message)
        if self.table.bot_waiting is None or self.table.bot_waiting[0] != key:
            self.table.bot_waiting = (key, now)

    def consider(self) -> None:
        """Act on the newest state if it holds a decision this person has not acted on (or whose
        last attempt was refused, up to :data:`MAX_TRIES` attempts)."""
        state = self.state
        if state is None or self.pending is not None or self.run.stopping:
            return
        if self.thinking is not None and not self.thinking.done():
            return
        view = state["view"]
        if not (
            view["legal_cards"]
            or view["must_choose_row"]
            or (self.rematcher and view["phase"] == "game_over")
        ):
            return
        key = decision_key(state)
        tries = self.acted[key]
        if tries and (key not in self.refused or tries >= MAX_TRIES):
            return
        self.refused.discard(key)
        self.acted[key] += 1
        self.thinking = asyncio.create_task(self.think_and_act(key))

    async def think_and_act(self, key: Key) -> None:
        await asyncio.sleep(self.rng.uniform(*THINK_SECONDS))
        state = self.state
        socket = self.socket
        if self.run.stopping or state is None or socket is None or decision_key(state) != key:
            self.acted[key] -= 1
            if not self.run.stopping:
                asyncio.get_running_loop().call_soon(self.consider)
            return
        view = state["view"]
        message: dict[str, Any]
        if view["must_choose_row"]:
            kind, value = "choose_row", self.rng.randrange(4)
            message = {"type": "choose_row", "row": value}
        elif view["legal_cards"]:
            kind, value = "play", self.rng.choice(view["legal_cards"])
            message = {"type": "play", "card": value}
        else:
            kind, value = "rematch", 0
            message = {"type": "rematch"}
        request_id = next(self.run.request_ids)
        message.update(version=state["version"], request_id=request_id)
        self.pending = Pending(
            kind, value, request_id, time.perf_counter(), key, key[0], view["round"]
        )
        with contextlib.suppress(ConnectionClosed):
            await socket.send(json.dumps(message))
