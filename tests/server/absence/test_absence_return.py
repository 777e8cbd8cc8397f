"""An absent player (issue 19), continued: the person who returns takes the seat back from the
next decision on (a card the bot chose for this turn stands); a restart neither loses an agreed
handover nor invents one; the bot playing for a seat sees that seat's view and nothing more."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from tests.server.absence.absence_helpers import FakeClock, Message, Person, Table, play_turn

from nimmt.engine import SeatView
from nimmt.server import Settings, create_app
from nimmt.server.storage import SqlStorage

PROPOSE = {"type": "propose", "seat": 0, "bot": "medium"}


def absence_of(message: Message) -> Message:
    absence: Message = message["table"]["absence"]
    return absence


def hand_over(table: Table) -> Message:
    """Ana away for the delay; Ben proposes, Cal agrees: Ben's state once the bot plays."""
    ana, ben, cal = table.people[:3]
    table.away(ana, 120)
    ben.send(PROPOSE)
    cal.state_where(lambda m: absence_of(m)["proposal"] is not None)
    cal.send({"type": "agree"})
    return ben.state_where(lambda m: absence_of(m)["stand_ins"] != [])


def test_the_person_back_decides_again_from_the_next_decision(
    table_of: Callable[..., Table],
) -> None:
    table = table_of(["Ana", "Ben", "Cal"])
    ana, ben, cal = table.people
    hand_over(table)
    chosen = ben.state_now(lambda m: m["view"]["has_chosen"][0])  # the bot chose her card
    table.connect(ana)
    back = ana.state_now(lambda m: absence_of(m)["stand_ins"] == [])
    assert absence_of(back)["card_stands"] == [0]
    assert back["view"]["chosen_card"] is not None
    events = [e for m in ben.seen if m["type"] == "events" for e in m["events"]]
    assert {"type": "seat_reclaimed", "seat": 0, "card_stands": True} in events or (
        ben.event("seat_reclaimed") == {"type": "seat_reclaimed", "seat": 0, "card_stands": True}
    )
    other = next(card for card in back["view"]["hand"] if card != back["view"]["chosen_card"])
    ana.send({"type": "play", "card": other})
    assert ana.error()["code"] == "card_stands"
    ana.send({"type": "retract"})
    assert ana.error()["code"] == "card_stands"
    assert [a.kind for a in table.stored()][-1] == "return"

    turn = chosen["view"]["turn"]
    play_turn(table, [ben, cal])
    settle_row(table, turn)
    # The next turn waits for Ana herself: no bot chooses for her any more.
    play_turn(table, [ben, cal])
    waiting = ben.state_now(
        lambda m: m["view"]["turn"] == turn + 1 and m["view"]["waiting_for"] == [0]
    )
    assert not waiting["view"]["has_chosen"][0]
    assert table.inside(lambda t: (t.bot_for(0), t.bot_tasks)) == (None, {})
    play_turn(table, [ana])


def settle_row(table: Table, turn: int) -> None:
    """Whoever must choose a row in ``turn`` chooses row 0 (a person: Ana is back too)."""
    ben = table.people[1]
    state = ben.state_now(
        lambda m: m["view"]["turn"] > turn or m["view"]["phase"] == "choosing_row"
    )
    if state["view"]["phase"] == "choosing_row":
        chooser = table.people[state["view"]["pending_row_choice"]["seat"]]
        chooser.state_now(lambda m: m["view"]["must_choose_row"])
        chooser.send({"type": "choose_row", "row": 0})
        ben.state_where(lambda m: m["view"]["turn"] > turn)


@pytest.fixture
def clients(tmp_path: Path) -> Iterator[Callable[[], TestClient]]:
    """Apps on one SQLite file, one after the other (a restart)."""
    url = f"sqlite:///{tmp_path / 'tables.db'}"
    opened: list[TestClient] = []

    def start() -> TestClient:
        settings: dict[str, Any] = {
            "bot_delay": 0.0, "bot_processes": 0, "socket_rate": 10_000.0,
            "socket_burst": 10_000, "max_queue": 10_000, "db": url,
            "allowed_hosts": ["testserver"], "deal_seed": 7,
        }  # fmt: skip
        client = TestClient(create_app(Settings(**settings), storage=SqlStorage(url)))
        client.__enter__()
        client.app.state.service.absence.clock = FakeClock()  # type: ignore[attr-defined]
        opened.append(client)
        return client

    yield start
    for client in opened:
        client.__exit__(None, None, None)


def restarted(client: TestClient, code: str, people: list[Person]) -> Table:
    clock = client.app.state.service.absence.clock  # type: ignore[attr-defined]
    table = Table(client, code, [Person(p.name, p.seat, p.token) for p in people], clock)
    return table


def test_a_restart_keeps_the_agreement_and_invents_none(
    clients: Callable[[], TestClient],
) -> None:
    first = clients()
    answer = first.post("/api/tables", json={"seats": [{"kind": "human"}] * 3, "name": "Ana"})
    code = answer.json()["code"]
    people = [Person("Ana", 0, answer.json()["token"])]
    for seat, name in ((1, "Ben"), (2, "Cal")):
        token = first.post(f"/api/tables/{code}/join", json={"name": name}).json()["token"]
        people.append(Person(name, seat, token))
    table = restarted(first, code, people)
    for person in table.people:
        table.connect(person)
    ana, ben, cal = table.people
    table.away(ana, 120)
    ben.send(PROPOSE)
    cal.state_where(lambda m: absence_of(m)["proposal"] is not None)
    for person in table.people[1:]:
        person.exit.close()
    first.__exit__(None, None, None)

    # Restarted: the proposal is there, Ben's agreement too, and no handover.
    second = clients()
    table = restarted(second, code, people)
    ana, ben, cal = table.people
    table.connect(ben)
    table.connect(cal)
    summary = second.get(f"/api/tables/{code}").json()["absence"]
    assert summary["proposal"]["agreed"] == [1] and summary["stand_ins"] == []
    # Ana was away for two minutes before the restart (the moment she left is stored): she is
    # absent at once, and Cal's agreement completes the handover.
    assert [(a["seat"], a["absent"]) for a in summary["away"]] == [(0, True)]
    assert summary["away"][0]["seconds"] >= 120
    cal.send({"type": "agree"})
    ben.state_where(lambda m: absence_of(m)["stand_ins"] != [])
    ben.state_now(lambda m: m["view"]["has_chosen"][0])  # the bot chose her card
    stored = len(table.stored())
    for person in (ben, cal):
        person.exit.close()
    second.__exit__(None, None, None)

    # Restarted again: the agreed handover stands (and nothing was added meanwhile).
    third = clients()
    table = restarted(third, code, people)
    summary = third.get(f"/api/tables/{code}").json()["absence"]
    assert summary["stand_ins"] == [{"seat": 0, "bot": "medium"}] and summary["proposal"] is None
    assert len(table.stored()) == stored


def test_the_absence_clock_goes_on_across_a_restart(clients: Callable[[], TestClient]) -> None:
    first = clients()
    seats = [{"kind": "human"}] * 4
    answer = first.post("/api/tables", json={"seats": seats, "name": "Ana", "away_seconds": 60})
    code = answer.json()["code"]
    people = [Person("Ana", 0, answer.json()["token"])]
    for seat, name in ((1, "Ben"), (2, "Cal"), (3, "Dan")):
        token = first.post(f"/api/tables/{code}/join", json={"name": name}).json()["token"]
        people.append(Person(name, seat, token))
    table = restarted(first, code, people)
    for person in table.people:
        table.connect(person)
    ana, ben, cal, dan = table.people
    # Dan left 100 seconds before the server stopped; the others were connected until the
    # stop closed their sockets (and the look that follows stores nothing for them).
    table.away(dan, 100)
    for person in (ana, ben, cal):
        table.close(person)
    table.look()
    stored = first.app.state.service.storage.load_table(code)  # type: ignore[attr-defined]
    assert list(stored.away_since) == [3]
    first.__exit__(None, None, None)

    second = clients()
    table = restarted(second, code, people)
    ana, ben, cal, dan = table.people
    table.connect(ben)
    table.connect(cal)
    table.look()
    away = {a["seat"]: a for a in second.get(f"/api/tables/{code}").json()["absence"]["away"]}
    # Dan keeps his time away: absent at once. Ana counts from the restart: away, not absent.
    assert sorted(away) == [0, 3]
    assert away[3]["absent"] and away[3]["seconds"] >= 100
    assert not away[0]["absent"] and away[0]["seconds"] == 0
    ben.send({"type": "propose", "seat": 0, "bot": "medium"})
    assert ben.error()["code"] == "not_absent"
    ben.send({"type": "propose", "seat": 3, "bot": "medium"})
    ben.event("handover_proposed")
    ben.send({"type": "withdraw"})
    ben.event("handover_cancelled")
    table.clock.advance(60)
    table.look()
    away = {a["seat"]: a for a in second.get(f"/api/tables/{code}").json()["absence"]["away"]}
    assert away[0]["absent"] and 60 <= away[0]["seconds"] < 100 <= away[3]["seconds"]
    # Dan comes back: his stored moment is cleared, and he is away no more.
    table.connect(dan)
    storage = second.app.state.service.storage  # type: ignore[attr-defined]
    assert list(storage.load_table(code).away_since) == [0]
    back = [a["seat"] for a in second.get(f"/api/tables/{code}").json()["absence"]["away"]]
    assert back == [0]
    for person in (ben, cal, dan):
        person.exit.close()


class Recording:
    """A bot runner that notes every view a bot is given, then decides as the real one."""

    def __init__(self, runner: Any) -> None:
        self.runner = runner
        self.views: list[tuple[str, SeatView]] = []

    async def start(self) -> None:
        await self.runner.start()

    async def decide(self, bot: str, seed: int, view: SeatView) -> int:
        self.views.append((bot, view))
        choice: int = await self.runner.decide(bot, seed, view)
        return choice

    async def close(self) -> None:
        await self.runner.close()


def test_the_bot_for_a_seat_sees_only_that_seats_view(table_of: Callable[..., Table]) -> None:
    table = table_of(["Ana", "Ben", "Cal"])
    runner = Recording(table.service.bot_seats.runner)
    table.service.bot_seats.runner = runner
    hands = table.inside(lambda t: [list(t.game.view(seat).hand) for seat in range(3)])
    hand_over(table)
    table.people[1].state_now(lambda m: m["view"]["has_chosen"][0])
    assert runner.views, "no bot was asked"
    for bot, view in runner.views:
        assert bot == "medium"
        assert view.seat == 0
        assert list(view.hand) == hands[0]  # her own hand, nobody else's
        assert view.chosen_card is None
        assert not set(view.hand) & (set(hands[1]) | set(hands[2]))
