"""The game service on its own (no transport): a table rebuilt from storage is the same table,
a storage failure changes nothing, a version is stale only when the decision moved on, and a
restarted service lets a waiting bot continue, and closing stops a bot's move still being
stored."""

from __future__ import annotations

import asyncio
import logging
import random
import threading
from collections.abc import Sequence
from typing import Any

import pytest
from tests.waiting import wait_until_async

from nimmt.engine import Phase, SeatView
from nimmt.server.errors import ServiceError
from nimmt.server.service import GameService
from nimmt.server.storage import (
    ActionRecord,
    AppendItem,
    MemoryStorage,
    SeatRecord,
    TableStatus,
)
from nimmt.server.table import LiveTable, SeatSpec

HUMAN = SeatSpec("human")


def picture(table: LiveTable) -> Any:
    """Everything a restart must keep: versions, seats, every view, the whole event log."""
    game = table.game
    return (
        table.version,
        table.decision_version,
        table.game_number,
        tuple(table.seats),
        [game.view(seat) for seat in [None, *range(game.players)]],
        list(game.events),
        [(log.rows, log.hands, tuple(log.turns), log.penalties) for log in game.history],
    )


async def seated_table(service: GameService, seats: list[SeatSpec]) -> tuple[str, list[str]]:
    code = await service.create_table(seats)
    humans = [index for index, spec in enumerate(seats) if spec.kind == "human"]
    tokens = [(await service.join(code, f"P{seat}"))[1] for seat in humans]
    return code, tokens


def test_a_table_rebuilt_from_storage_is_the_same_table() -> None:
    async def scenario() -> int:
        storage = MemoryStorage()
        service = GameService(storage, deal_seed=9)
        code, tokens = await seated_table(service, [HUMAN, HUMAN, HUMAN])
        table = service.book.tables[code]
        rng = random.Random(5)
        checks = 0
        for step in range(2000):
            if table.finished:
                break
            seat = rng.choice(table.game.waiting_for())
            view = table.game.view(seat)
            if view.must_choose_row:
                await service.act(code, tokens[seat], "choose_row", row=rng.randrange(4))
            else:
                hand = list(view.legal_cards())
                await service.act(code, tokens[seat], "play", card=rng.choice(hand))
                not_revealed = (
                    table.game.phase is Phase.CHOOSING_CARDS
                    and table.game.view(seat).chosen_card is not None
                )
                if not_revealed and rng.random() < 0.3 and len(hand) > 1:
                    # Change the face-down card, by a new play or by taking it back first.
                    if rng.random() < 0.5:
                        await service.act(code, tokens[seat], "retract")
                    await service.act(code, tokens[seat], "play", card=rng.choice(hand))
            if step % 23 == 0 or table.finished:
                restarted = GameService(storage)
                assert picture(await restarted.book.load(code)) == picture(table)
                checks += 1
        assert table.finished
        return checks

    assert asyncio.run(scenario()) >= 5


class FlakyStorage(MemoryStorage):
    """Refuses to store while ``broken``: as a database gone away would."""

    broken = False

    def append(
        self, code: str, action: ActionRecord, status: TableStatus, seat: SeatRecord | None = None
    ) -> None:
        if self.broken:
            raise OSError("disk gone")
        super().append(code, action, status, seat)


def test_an_action_the_database_refused_changes_nothing() -> None:
    async def scenario() -> None:
        storage = FlakyStorage()
        service = GameService(storage, deal_seed=2)
        code, tokens = await seated_table(service, [HUMAN, HUMAN])
        table = service.book.tables[code]
        await service.act(code, tokens[0], "play", card=table.game.hand(0)[0])
        before = picture(table)
        storage.broken = True
        for seat, action, card in ((1, "play", table.game.hand(1)[0]), (0, "retract", None)):
            with pytest.raises(ServiceError) as refused:
                await service.act(code, tokens[seat], action, card=card)
            assert refused.value.code == "storage_error"
            assert picture(table) == before
        with pytest.raises(ServiceError):
            await service.join(code, "Late")  # (the table is full anyway)
        storage.broken = False
        await service.act(code, tokens[1], "play", card=table.game.hand(1)[0])
        assert table.game.turn == 1 or table.game.pending_row_choice is not None

    asyncio.run(scenario())


def test_a_version_is_stale_only_when_the_decision_moved_on() -> None:
    async def scenario() -> None:
        service = GameService(MemoryStorage(), deal_seed=3)
        code, tokens = await seated_table(service, [HUMAN, HUMAN, HUMAN])
        table = service.book.tables[code]
        dealt = table.version
        await service.act(code, tokens[0], "play", card=table.game.hand(0)[0], version=dealt)
        # Seat 1 decided on the state before seat 0's choice: still the same decision.
        await service.act(code, tokens[1], "play", card=table.game.hand(1)[0], version=dealt)
        await service.act(code, tokens[2], "play", card=table.game.hand(2)[0], version=dealt + 2)
        # The turn was revealed: an action made on the earlier state is refused.
        before = picture(table)
        with pytest.raises(ServiceError) as refused:
            await service.act(code, tokens[0], "play", card=table.game.hand(0)[0], version=dealt)
        assert refused.value.code == "stale_version"
        assert picture(table) == before

    asyncio.run(scenario())


def test_a_restarted_service_lets_a_waiting_bot_continue() -> None:
    async def scenario() -> None:
        storage = MemoryStorage()
        # The bot thinks for a minute: the server "dies" before it has chosen.
        first = GameService(storage, deal_seed=6, bot_delay=60)
        code, _tokens = await seated_table(first, [HUMAN, SeatSpec("bot", "greedy")])
        assert first.book.tables[code].game.waiting_for() == (0, 1)
        await first.close()
        stored = len(storage.load_actions(code, 1))

        second = GameService(storage, deal_seed=6, bot_delay=0)
        await second.start()
        table = second.book.tables[code]
        # The bot's move runs as a task on this loop: let it run.
        await wait_until_async(
            lambda: table.game.waiting_for() == (0,), interval=0.01, message="the bot never played"
        )
        assert table.game.waiting_for() == (0,)
        actions = storage.load_actions(code, 1)
        assert len(actions) == stored + 1
        assert (actions[-1].kind, actions[-1].seat) == ("play", 1)
        await second.close()

    asyncio.run(scenario())


class BrokenBots:
    """Bots with a bug: they answer a card nobody holds, or fail outright."""

    def __init__(self, raises: bool) -> None:
        self.raises = raises

    async def start(self) -> None:
        pass

    async def decide(self, bot: str, seed: int, view: SeatView) -> int:
        if self.raises:
            raise RuntimeError("bug")
        return 9 if view.must_choose_row else 0

    async def close(self) -> None:
        pass


@pytest.mark.parametrize("raises", [False, True])
def test_a_broken_bot_does_not_stall_the_table(raises: bool) -> None:
    async def scenario() -> None:
        storage = MemoryStorage()
        service = GameService(storage, deal_seed=8, bots=BrokenBots(raises))
        code = await service.create_table([HUMAN, SeatSpec("bot", "greedy")])
        table = service.book.tables[code]
        await service.join(code, "Ana")  # the last seat: the deal, then the bot's turn
        await wait_until_async(
            lambda: table.game.waiting_for() == (0,), interval=0.01, message="the bot never played"
        )
        last = storage.load_actions(code, 1)[-1]
        assert (last.kind, last.seat, last.card) == ("play", 1, table.game.view(1).hand[0])
        await service.close()

    asyncio.run(scenario())


class DealRefusingStorage(MemoryStorage):
    """Refuses to store deals while ``broken``."""

    broken = True

    def append(
        self, code: str, action: ActionRecord, status: TableStatus, seat: SeatRecord | None = None
    ) -> None:
        if self.broken and action.kind == "deal":
            raise OSError("disk gone")
        super().append(code, action, status, seat)


def test_a_join_stands_when_the_deal_after_it_cannot_be_stored() -> None:
    async def scenario() -> None:
        storage = DealRefusingStorage()
        service = GameService(storage, deal_seed=1, retry_seconds=0.01)
        code = await service.create_table([HUMAN, HUMAN])
        await service.join(code, "Ana")
        seat, token = await service.join(code, "Ben")  # stored, though the deal is not
        table = service.book.tables[code]
        assert seat == 1 and table.seat_of_token(token) == 1
        assert (table.game.phase, table.game.round) == (Phase.DEALING, 0)
        storage.broken = False
        await wait_until_async(  # the deal is retried by itself
            lambda: table.game.round == 1, interval=0.01, message="the deal was not retried"
        )
        assert table.game.phase is Phase.CHOOSING_CARDS
        assert [a.kind for a in storage.load_actions(code, 1)] == ["join", "join", "deal"]
        await service.close()

    asyncio.run(scenario())


class HeldBotMoves(MemoryStorage):
    """Holds a bot's move in the write thread until ``release`` is set."""

    def __init__(self, bot_seat: int) -> None:
        super().__init__()
        self.bot_seat = bot_seat
        self.holding = threading.Event()
        self.release = threading.Event()

    def append_many(self, items: Sequence[AppendItem]) -> list[Exception | None]:
        if any(action.seat == self.bot_seat for _code, action, *_ in items):
            self.holding.set()
            self.release.wait(30)
        return super().append_many(items)


def test_closing_stops_a_bot_whose_move_is_being_stored(caplog: pytest.LogCaptureFixture) -> None:
    async def scenario() -> asyncio.Task[None]:
        storage = HeldBotMoves(bot_seat=1)
        service = GameService(storage, deal_seed=8)
        code = await service.create_table([HUMAN, SeatSpec("bot", "greedy")])
        table = service.book.tables[code]
        await service.join(code, "Ana")  # the deal, then the bot's move: held in storage
        await wait_until_async(storage.holding.is_set, interval=0.01, message="no bot move")
        assert not table.bot_tasks  # the move left them as it took the table's lock
        (move,) = [task for task in asyncio.all_tasks() if task.get_name() == f"bot {code}/1"]
        closing = asyncio.create_task(service.close())
        await wait_until_async(
            move.done, timeout=10, interval=0.01, message="the move was not stopped"
        )
        storage.release.set()
        await closing
        return move

    move = asyncio.run(scenario())
    assert move.cancelled()
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING], caplog.text
