"""Helpers of the absent-player tests: a fake clock for the absence delay, a table of people
with their sockets, and a look at the table from inside the service."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from starlette.testclient import TestClient, WebSocketTestSession
from tests.server.server_helpers import Message, join, receive_until, service_of
from tests.waiting import wait_until

from nimmt.server.service import GameService
from nimmt.server.storage import ActionRecord
from nimmt.server.table import LiveTable


class FakeClock:
    """Seconds that pass only when a test says so."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@dataclass
class Person:
    name: str
    seat: int
    token: str
    ws: WebSocketTestSession | None = None
    exit: contextlib.ExitStack = field(default_factory=contextlib.ExitStack)
    seen: list[Message] = field(default_factory=list)

    def send(self, message: Message) -> None:
        assert self.ws is not None
        self.ws.send_json(message)

    def until(self, wanted: Callable[[Message], bool]) -> Message:
        assert self.ws is not None
        return receive_until(self.ws, wanted, self.seen)

    def state_where(self, wanted: Callable[[Message], bool]) -> Message:
        return self.until(lambda m: m["type"] == "state" and wanted(m))

    def state_now(self, wanted: Callable[[Message], bool]) -> Message:
        """The latest state read, if ``wanted``; else the next state that is."""
        states = [m for m in self.seen if m["type"] == "state"]
        if states and wanted(states[-1]):
            return states[-1]
        return self.state_where(wanted)

    def event(self, kind: str) -> Message:
        """The next event of type ``kind`` told to this person."""
        found = self.until(
            lambda m: m["type"] == "events" and any(e["type"] == kind for e in m["events"])
        )
        event: Message = next(e for e in found["events"] if e["type"] == kind)
        return event

    def error(self) -> Message:
        return self.until(lambda m: m["type"] == "error")


@dataclass
class Table:
    client: TestClient
    code: str
    people: list[Person]
    clock: FakeClock

    @property
    def service(self) -> GameService:
        return service_of(self.client)

    def live(self) -> LiveTable:
        return self.service.book.tables[self.code]

    def connect(self, person: Person) -> None:
        person.ws = person.exit.enter_context(
            self.client.websocket_connect(f"/ws/{self.code}?token={person.token}")
        )
        person.state_where(lambda m: True)

    def close(self, person: Person) -> None:
        """``person`` closes their page; wait until the server saw it."""
        person.exit.close()
        person.ws = None
        wait_until(lambda: person.seat not in self.live().here(), message="the socket stayed")

    def look(self) -> None:
        """The absence part's look round (it also runs every second by itself)."""
        self.client.portal.call(self.service.absence.look)  # type: ignore[union-attr]

    def inside(self, function: Callable[[LiveTable], Any]) -> Any:
        """``function(table)`` under the table's lock, in the server's loop."""

        async def run() -> Any:
            table = self.live()
            async with table.lock:
                return function(table)

        return self.client.portal.call(run)  # type: ignore[union-attr]

    def stored(self) -> list[ActionRecord]:
        """The table's stored actions of its current game."""
        return self.service.storage.load_actions(self.code, self.live().game_number)

    def absence(self) -> Message:
        summary: Message = self.inside(lambda table: table.absence_summary())
        return summary

    def away(self, person: Person, seconds: float) -> None:
        """``person`` closes their page and stays away ``seconds``; everyone else is told."""
        self.close(person)
        self.clock.advance(seconds)
        self.look()


def open_table(
    make_client: Callable[..., TestClient],
    names: list[str],
    *,
    bots: int = 0,
    away_seconds: int | None = None,
    connect: bool = True,
    **settings: Any,
) -> Table:
    """A table of ``names`` (and ``bots`` greedy bots), each person connected."""
    settings.setdefault("deal_seed", 7)
    settings.setdefault("max_queue", 10_000)  # a person reads only when the test looks
    client = make_client(**settings)
    clock = FakeClock()
    service_of(client).absence.clock = clock
    seats: list[Message] = [{"kind": "human"}] * len(names) + [
        {"kind": "bot", "bot": "greedy"}
    ] * bots
    body: Message = {"seats": seats, "name": names[0]}
    if away_seconds is not None:
        body["away_seconds"] = away_seconds
    answer = client.post("/api/tables", json=body)
    assert answer.status_code == 201, answer.text
    code, token = answer.json()["code"], answer.json()["token"]
    people = [Person(names[0], 0, token)]
    for seat, name in enumerate(names[1:], start=1):
        people.append(Person(name, seat, join(client, code, name)))
    table = Table(client, code, people, clock)
    if connect:
        for person in people:
            table.connect(person)
    return table


def hand_of(message: Message) -> list[int]:
    hand: list[int] = message["view"]["hand"]
    return hand


def play_turn(table: Table, players: list[Person], pick: Callable[[list[int]], int] = max) -> None:
    """Each of ``players`` chooses a card of the current turn (``pick`` of their hand)."""
    for person in players:

        def deciding(m: Message, p: Person = person) -> bool:
            return bool(m["view"]["legal_cards"]) and not m["view"]["has_chosen"][p.seat]

        state = person.state_now(deciding)
        person.send({"type": "play", "card": pick(hand_of(state))})
        moment = (state["view"]["round"], state["view"]["turn"], "choosing_cards")

        def played(m: Message, p: Person = person, moment: tuple[Any, ...] = moment) -> bool:
            view = m["view"]
            now = (view["round"], view["turn"], view["phase"])
            return bool(view["has_chosen"][p.seat]) or now != moment

        def answered(m: Message, played: Callable[[Message], bool] = played) -> bool:
            return m["type"] == "error" or (m["type"] == "state" and played(m))

        answer = person.until(answered)
        assert answer["type"] == "state", answer


__all__ = ["FakeClock", "Message", "Person", "Table", "hand_of", "open_table", "play_turn"]
