"""When the bus comes back, each process's connection returns at its own moment. A process back
first polls the database no more and waits to be told; a change stored meanwhile by a process
still cut off was published to nobody. So a process whose bus returns announces the version of
every table it holds, and the others catch up from the database. Two game services on one
SQLite database stand for the two processes, joined by a bus that each test can cut."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from tests.waiting import wait_until_async

from nimmt.server.bus import LocalBus, OnChange, OnResync
from nimmt.server.service import GameService
from nimmt.server.storage import ActionRecord, SqlStorage
from nimmt.server.table import Connection, SeatSpec


class CuttableBus(LocalBus):
    """One process's end of a bus between two services: while not ``healthy`` it neither
    publishes nor hears; :meth:`comes_back` does what a reconnected Redis listener does. (The
    table talk and the subscriptions stay the one-process bus's: nothing to tell.)"""

    def __init__(self) -> None:
        self.peer: CuttableBus | None = None
        self.healthy = True
        self._on_change: OnChange | None = None
        self._on_resync: OnResync | None = None

    async def start(self, on_change: OnChange, on_resync: OnResync) -> None:
        self._on_change, self._on_resync = on_change, on_resync

    async def comes_back(self) -> None:
        self.healthy = True
        assert self._on_resync is not None
        await self._on_resync()

    async def _tell(self, code: str, version: int, action: ActionRecord | None) -> None:
        peer = self.peer
        if self.healthy and peer is not None and peer.healthy and peer._on_change is not None:
            await peer._on_change(code, version, action)

    async def publish(self, code: str, action: ActionRecord) -> None:
        await self._tell(code, action.seq, action)

    async def announce(self, code: str, version: int) -> None:
        await self._tell(code, version, None)


def turn_of(connection: Connection, held: list[dict[str, Any]]) -> int:
    """The turn (0: the round's first) of the newest state ``connection`` was sent (gathered
    in ``held``); -1 before any."""
    held += [message for message in connection.take() if message.get("type") == "state"]
    return int(held[-1]["view"]["turn"]) if held else -1


async def a_change_stored_while_cut_off(url: str) -> None:
    ana_bus, ben_bus = CuttableBus(), CuttableBus()
    ana_bus.peer, ben_bus.peer = ben_bus, ana_bus
    first = GameService(SqlStorage(url), bus=ana_bus, deal_seed=3)
    second = GameService(SqlStorage(url), bus=ben_bus, deal_seed=3)
    try:
        for service in (first, second):
            await service.start()
        code = await first.create_table([SeatSpec("human"), SeatSpec("human")], "Ana")
        _seat, ana_token = await first.join(code, "Ana")
        _seat, ben_token = await second.join(code, "Ben")
        ana = await first.connect(code, ana_token)
        ben = await second.connect(code, ben_token)
        seen: dict[Connection, list[dict[str, Any]]] = {ana: [], ben: []}
        await wait_until_async(
            lambda: (
                turn_of(ana, seen[ana]) == 0 == turn_of(ben, seen[ben])
                and all(seen[who][-1]["view"]["legal_cards"] for who in (ana, ben))
            )
        )  # dealt, and each may play
        hands = {
            name: seen[who][-1]["view"]["legal_cards"] for name, who in (("ana", ana), ("ben", ben))
        }

        # Redis goes away; Ana plays (the second process finds it in the database).
        ana_bus.healthy = ben_bus.healthy = False
        await first.act(code, ana_token, "play", card=hands["ana"][-1])
        # The first process's bus comes back first: it polls no more.
        await ana_bus.comes_back()
        # Ben plays while the second process is still cut off: the turn ends there, told to
        # nobody else.
        await second.act(code, ben_token, "play", card=hands["ben"][-1])
        await wait_until_async(lambda: turn_of(ben, seen[ben]) == 1)
        # Then its bus comes back too: the first process hears of the turn and tells Ana.
        await ben_bus.comes_back()
        await wait_until_async(
            lambda: turn_of(ana, seen[ana]) == 1, timeout=20, message="Ana never saw the turn end"
        )
        assert seen[ana][-1]["view"]["rows"] == seen[ben][-1]["view"]["rows"]
    finally:
        for service in (first, second):
            await service.close()


def test_a_change_stored_while_its_process_was_cut_off_reaches_the_others(
    tmp_path: Path,
) -> None:
    asyncio.run(a_change_stored_while_cut_off(f"sqlite:///{tmp_path / 'shared.db'}"))
