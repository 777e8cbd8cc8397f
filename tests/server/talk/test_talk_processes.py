"""The talk between processes: two game services on one SQLite database, each with its own
storage connection, joined by a bus that hands each one's messages to the other (what Redis
does between real processes). A line said in one reaches the listeners of the other through
the bus, or, while the bus is down, through the database; the creator's setting travels too;
and a third process that opens the table later finds the talk in the database."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from tests.waiting import wait_until_async

from nimmt.server.bus import OnChange, OnResync, OnTalk, decode_talk
from nimmt.server.errors import ServiceError
from nimmt.server.service import GameService
from nimmt.server.storage import ActionRecord, SqlStorage
from nimmt.server.table import Connection, SeatSpec

Message = dict[str, Any]


class PairedBus:
    """A bus between two services in one test: what one publishes, the other hears (as the
    JSON Redis would carry, for the talk), unless the bus is down."""

    def __init__(self) -> None:
        self.peers: list[PairedBus] = []
        self.healthy = True
        self._on_change: OnChange | None = None
        self._on_talk: OnTalk | None = None

    async def start(self, on_change: OnChange, on_resync: OnResync) -> None:
        self._on_change = on_change

    async def publish(self, code: str, action: ActionRecord) -> None:
        for peer in self.peers:
            if self.healthy and peer._on_change is not None:
                await peer._on_change(code, action.seq, action)

    async def announce(self, code: str, version: int) -> None:
        for peer in self.peers:
            if self.healthy and peer._on_change is not None:
                await peer._on_change(code, version, None)

    def listen_talk(self, on_talk: OnTalk) -> None:
        self._on_talk = on_talk

    async def publish_talk(self, code: str, message: dict[str, Any]) -> None:
        import orjson

        for peer in self.peers:
            carried = decode_talk(orjson.dumps(message).decode())
            if self.healthy and peer._on_talk is not None and carried is not None:
                await peer._on_talk(code, carried)

    async def subscribe(self, code: str) -> None:
        pass

    async def unsubscribe(self, code: str) -> None:
        pass

    async def close(self) -> None:
        pass


def received(connection: Connection, seen: list[Message]) -> list[Message]:
    """Everything queued for ``connection`` so far, gathered in ``seen``."""
    seen += connection.take()
    return seen


async def line_with(connection: Connection, seen: list[Message], text: str) -> Message:
    def found() -> Message:
        for message in received(connection, seen):
            if message["type"] == "talk" and message["line"]["text"] == text:
                return message
        return {}

    message: Message = await wait_until_async(found, timeout=20, message=f"no line {text!r}")
    return message


async def talk_across_processes(url: str) -> None:
    buses = [PairedBus(), PairedBus(), PairedBus()]
    for bus in buses:
        bus.peers = [other for other in buses if other is not bus]
    first, second = (GameService(SqlStorage(url), bus=bus) for bus in buses[:2])
    third: GameService | None = None
    try:
        for service in (first, second):
            await service.start()
        seats = [SeatSpec("human"), SeatSpec("human"), SeatSpec("bot", "greedy")]
        code = await first.create_table(seats, "Ana")
        _seat, ana_token = await first.join(code, "Ana")
        _seat, ben_token = await second.join(code, "Ben")
        ana = await first.connect(code, ana_token)
        ben = await second.connect(code, ben_token)
        watcher = await second.connect(code, None)
        seen: dict[Connection, list[Message]] = {ana: [], ben: [], watcher: []}
        await first.talk.hello(ana, [], None, None)
        await second.talk.hello(ben, [], None, None)
        await second.talk.hello(watcher, [], "x" * 20, "Zoé")

        await first.talk.say(ana, "Hello from the first process")
        line = (await line_with(ben, seen[ben], "Hello from the first process"))["line"]
        assert (line["seat"], line["name"]) == (0, "Ana")
        await second.talk.react(ben, "good_luck")
        await wait_until_async(
            lambda: any(
                m["type"] == "talk" and m["line"]["text"] == "good_luck"
                for m in received(ana, seen[ana])
            )
        )

        # The creator (in the first process) lets spectators write: the second one hears it.
        await first.talk.set_spectators(ana, True)
        await wait_until_async(
            lambda: any(
                m["type"] == "talk_settings" and m["spectators_write"]
                for m in received(watcher, seen[watcher])
            )
        )
        await second.talk.say(watcher, "A spectator in the second process")
        line = (await line_with(ana, seen[ana], "A spectator in the second process"))["line"]
        assert (line["seat"], line["name"]) == (None, "Zoé")

        # The bus goes down: the second process reads the new lines from the database.
        for bus in buses:
            bus.healthy = False
        await first.talk.say(ana, "While the bus is down")
        await line_with(ben, seen[ben], "While the bus is down")
        for bus in buses:
            bus.healthy = True
        await first.talk.say(ana, "The bus is back")
        await line_with(ben, seen[ben], "The bus is back")
        texts = [m["line"]["text"] for m in seen[ben] if m["type"] == "talk"]
        assert len(texts) == len(set(texts)), texts  # each line came once

        # A process that opens the table later finds the talk in the database.
        third = GameService(SqlStorage(url), bus=buses[2])
        await third.start()
        late = await third.connect(code, ben_token)
        await third.talk.hello(late, [], None, None)
        history = next(m for m in received(late, []) if m["type"] == "talk_history")
        assert [line["text"] for line in history["lines"]] == [
            "Hello from the first process",
            "good_luck",
            "A spectator in the second process",
            "While the bus is down",
            "The bus is back",
        ]
        assert history["spectators_write"] is True
    finally:
        for held in (first, second, third):
            if held is not None:
                await held.close()


def test_talk_travels_between_processes(tmp_path: Path) -> None:
    asyncio.run(talk_across_processes(f"sqlite:///{tmp_path / 'shared.db'}"))


class CountingBus(PairedBus):
    """A paired bus that counts the talk's rate for both services (as Redis does), until it
    fails: then each service counts by itself."""

    def __init__(self, counts: dict[str, list[float]]) -> None:
        super().__init__()
        self.counts = counts
        self.failing = False

    async def take_talk_turn(self, key: str, limit: int, seconds: float) -> float | None:
        if self.failing:
            raise ConnectionError("Redis is away")
        said = self.counts.setdefault(key, [])
        if len(said) >= limit:
            return seconds
        said.append(0.0)
        return None


async def rate_across_processes(url: str) -> None:
    counts: dict[str, list[float]] = {}
    buses = [CountingBus(counts), CountingBus(counts)]
    buses[0].peers, buses[1].peers = [buses[1]], [buses[0]]
    first, second = (GameService(SqlStorage(url), bus=bus) for bus in buses)
    try:
        for service in (first, second):
            await service.start()
        code = await first.create_table([SeatSpec("human"), SeatSpec("bot", "greedy")], "Ana")
        _seat, token = await first.join(code, "Ana")
        here, there = await first.connect(code, token), await second.connect(code, token)
        for number in range(3):
            await first.talk.say(here, f"here {number}")
        for number in range(2):
            await second.talk.say(there, f"there {number}")
        with pytest.raises(ServiceError) as refused:
            await second.talk.say(there, "one too many")
        assert refused.value.code == "talk_too_fast"
        assert (refused.value.details or {}).get("retry_after") == 10
        # The counter fails: each process counts alone again (five more here, none refused).
        for bus in buses:
            bus.failing = True
        for number in range(5):
            await first.talk.say(here, f"alone {number}")
        with pytest.raises(ServiceError) as again:
            await first.talk.say(here, "the sixth here")
        assert again.value.code == "talk_too_fast"
    finally:
        for held in (first, second):
            await held.close()


def test_the_rate_is_counted_by_the_bus_and_here_when_it_fails(tmp_path: Path) -> None:
    asyncio.run(rate_across_processes(f"sqlite:///{tmp_path / 'shared.db'}"))
