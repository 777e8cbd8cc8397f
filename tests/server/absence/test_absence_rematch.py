"""An absent player at game over (issue 19): the seat a bot stands in for does not hold the
rematch up (the stand-in agrees for its person), the new game keeps the stand-in until the
person returns, and a restart keeps it too; through the service and through the socket."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from tests.server.absence.absence_helpers import FakeClock, Table
from tests.server.players.test_server_rematch import play_to_the_end, seat_people
from tests.server.server_helpers import service_of

from nimmt.server.errors import ServiceError
from nimmt.server.serialize import summary
from nimmt.server.service import GameService
from nimmt.server.storage import MemoryStorage
from nimmt.server.table import SeatSpec

HUMAN = SeatSpec("human")


async def stand_in_for_ana(service: GameService, clock: FakeClock) -> tuple[str, dict[int, str]]:
    """Ana (seat 0) never comes; Ben and Cal hand her seat to a greedy bot."""
    code, tokens = await seat_people(service, [HUMAN, HUMAN, HUMAN])
    for seat in (1, 2):
        await service.connect(code, tokens[seat])
    table = service.book.tables[code]
    table.presence.gone(0)
    clock.advance(200)
    await service.absence.look()
    await service.handover(code, tokens[1], "propose", seat=0, bot="greedy")
    await service.handover(code, tokens[2], "agree")
    assert table.stand_ins.bots == {0: "greedy"}
    return code, tokens


def test_a_stand_in_agrees_to_the_rematch_and_plays_on() -> None:
    async def scenario() -> None:
        storage, clock = MemoryStorage(), FakeClock()
        service = GameService(storage, deal_seed=4, absence_clock=clock)
        restarted: GameService | None = None
        try:
            code, tokens = await stand_in_for_ana(service, clock)
            table = service.book.tables[code]
            await play_to_the_end(service, code, {1: tokens[1], 2: tokens[2]})
            assert table.finished and table.stand_ins.bots == {0: "greedy"}
            # Only the people present decide: Ana's stand-in agrees for her.
            assert summary(table)["rematch"] == {"ready": [], "needed": [1, 2]}
            await service.act(code, tokens[1], "rematch")
            assert summary(table)["rematch"] == {"ready": [1], "needed": [1, 2]}
            assert table.game_number == 1
            await service.act(code, tokens[2], "rematch")
            # The new game started, and the bot still plays for Ana from its first decision.
            assert table.game_number == 2 and not table.finished
            assert table.stand_ins.bots == {0: "greedy"}
            assert summary(table)["absence"]["stand_ins"] == [{"seat": 0, "bot": "greedy"}]
            await asyncio.gather(*table.bot_tasks.values())
            assert table.game.view(0).chosen_card is not None
            for seat in (1, 2):  # the people are asked, as always
                assert table.game.view(seat).legal_cards()

            # A restart keeps the stand-in of the new game (the rematch action carries it).
            restarted = GameService(storage, deal_seed=4, absence_clock=clock)
            again = await restarted.book.load(code)
            assert again.game_number == 2 and again.stand_ins.bots == {0: "greedy"}
            assert again.game.view(0).chosen_card is not None
            record_meta = again.stand_ins.history
            assert record_meta == [{"seat": 0, "bot": "greedy", "round": 1, "turn": 0}]

            # Ana comes back: she takes her seat back; the card the bot chose for her stands.
            await service.connect(code, tokens[0])
            assert table.stand_ins.bots == {}
            assert summary(table)["absence"]["card_stands"] == [0]
            chosen = table.game.view(0).chosen_card
            other = next(card for card in table.game.view(0).hand if card != chosen)
            try:
                await service.act(code, tokens[0], "play", card=other)
            except ServiceError as error:
                assert error.code == "card_stands"
            else:
                raise AssertionError("the card the bot chose was changed")
        finally:
            for held in (service, restarted):
                if held is not None:
                    await held.close()

    asyncio.run(scenario())


def test_a_person_back_at_game_over_decides_the_rematch_again() -> None:
    async def scenario() -> None:
        storage, clock = MemoryStorage(), FakeClock()
        service = GameService(storage, deal_seed=4, absence_clock=clock)
        try:
            code, tokens = await stand_in_for_ana(service, clock)
            table = service.book.tables[code]
            await play_to_the_end(service, code, {1: tokens[1], 2: tokens[2]})
            await service.act(code, tokens[1], "rematch")
            await service.connect(code, tokens[0])  # Ana is back before Cal agreed
            assert table.stand_ins.bots == {}
            assert summary(table)["rematch"] == {"ready": [1], "needed": [0, 1, 2]}
            await service.act(code, tokens[2], "rematch")
            assert table.game_number == 1, "the new game waits for Ana"
            await service.act(code, tokens[0], "rematch")
            assert table.game_number == 2 and table.stand_ins.bots == {}
            assert table.game.view(0).chosen_card is None
        finally:
            await service.close()

    asyncio.run(scenario())


def test_the_rematch_with_a_stand_in_through_the_socket(
    table_of: Callable[..., Table],
) -> None:
    table = table_of(["Ana", "Ben", "Cal"], deal_seed=4)
    ana, ben, cal = table.people
    table.away(ana, 200)
    ben.send({"type": "propose", "seat": 0, "bot": "greedy"})
    cal.event("handover_proposed")
    cal.send({"type": "agree"})
    ben.event("seat_handed_over")
    service = service_of(table.client)
    tokens = {1: ben.token, 2: cal.token}

    async def to_the_end() -> None:
        await play_to_the_end(service, table.code, tokens)

    table.client.portal.call(to_the_end)  # type: ignore[union-attr]
    over = ben.state_where(lambda m: m["view"]["phase"] == "game_over")
    assert over["table"]["rematch"] == {"ready": [], "needed": [1, 2]}
    ben.send({"type": "rematch"})
    vote = cal.event("rematch_vote")
    assert vote["ready"] == [1]
    state = cal.state_where(lambda m: m["table"]["rematch"] is not None and
                            m["table"]["rematch"]["ready"] == [1])  # fmt: skip
    assert state["table"]["rematch"]["needed"] == [1, 2]
    cal.send({"type": "rematch"})
    started: dict[str, Any] = ben.event("rematch_started")
    assert started["game"] == 2
    state = ben.state_where(lambda m: m["table"]["game"] == 2 and m["view"]["has_chosen"][0])
    assert state["table"]["absence"]["stand_ins"] == [{"seat": 0, "bot": "greedy"}]
    assert state["table"]["rematch"] is None
    # Ana returns: from her next decision on she plays herself.
    table.connect(ana)
    reclaimed = ben.event("seat_reclaimed")
    assert reclaimed["seat"] == 0
    ben.state_where(lambda m: m["table"]["absence"]["stand_ins"] == [])
