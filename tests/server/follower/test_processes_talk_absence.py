"""The table talk and the absent-player handover across two real ``nimmt serve`` processes on one
PostgreSQL database and one Redis, over real websockets: what a person says on one process
reaches the people (and the spectators) of the other, a mute holds across processes, the talk's
rate limit counts a person's sockets on both processes together, and a seat is handed to a bot
only when the people present, on either process, all agreed; its person takes it back anywhere."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from tests.server.server_helpers import (
    Message,
    Player,
    Served,
    http,
    launch_server,
    stop_server,
    wait_ready,
)

import throwaway

pytestmark = pytest.mark.slow

AWAY_SECONDS = 2
"""The tables' absence delay here (the shortest a table may have)."""


@pytest.fixture(scope="module")
def servers(
    postgres_url: str, redis_server: throwaway.Redis, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Served, Served]]:
    """Two ``nimmt serve`` processes on the throwaway database and bus."""
    log = tmp_path_factory.mktemp("servers") / "servers.log"
    first = launch_server(postgres_url, log, bus=redis_server.url)
    second = launch_server(postgres_url, log, bus=redis_server.url)
    try:
        wait_ready(first, second)
        yield first, second
    finally:
        for served in (first, second):
            stop_server(served)


async def next_message(
    player: Player, wanted: Callable[[Message], bool], timeout: float = 30
) -> Message:
    """Read ``player``'s socket until a message is ``wanted`` (messages read before are kept in
    ``player.messages`` and looked at first)."""
    for message in player.messages:
        if wanted(message) and id(message) not in seen_by(player):
            seen_by(player).add(id(message))
            return message
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        assert left > 0, f"{player.name}: the wanted message never came"
        message = await player.recv(left)
        if wanted(message):
            seen_by(player).add(id(message))
            return message


_SEEN: dict[int, set[int]] = {}


def seen_by(player: Player) -> set[int]:
    """The messages of ``player`` that a :func:`next_message` already returned."""
    return _SEEN.setdefault(id(player), set())


def talk_line(text: str) -> Callable[[Message], bool]:
    return lambda m: m["type"] == "talk" and m["line"]["text"] == text


def error_of(code: str) -> Callable[[Message], bool]:
    return lambda m: m["type"] == "error" and m["code"] == code


def event_of(kind: str) -> Callable[[Message], bool]:
    return lambda m: m["type"] == "events" and any(e["type"] == kind for e in m["events"])


def talk_texts(player: Player) -> list[str]:
    return [m["line"]["text"] for m in player.messages if m["type"] == "talk"]


async def hello(player: Player) -> Message:
    await player.send({"type": "talk_hello", "muted": []})
    return await next_message(player, lambda m: m["type"] == "talk_history")


def open_table(served: Served, names: list[str], bots: int = 0) -> tuple[str, list[str]]:
    """A table of ``names`` (the first opens it on ``served``) and ``bots`` greedy bots, with the
    short absence delay; its code and the people's tokens."""
    seats: list[Message] = [{"kind": "human"}] * len(names)
    seats += [{"kind": "bot", "bot": "greedy"}] * bots
    body = {"seats": seats, "name": names[0], "away_seconds": AWAY_SECONDS}
    created = http("POST", f"{served.http}/api/tables", body)
    tokens = [created["token"]]
    for name in names[1:]:
        tokens.append(http("POST", f"{served.http}/api/tables/{created['code']}/join",
                           {"name": name})["token"])  # fmt: skip
    return created["code"], tokens


def run(coroutine: Any) -> None:
    asyncio.run(coroutine)


# ------------------------------------------------------------------------------ the talk


def test_talk_between_two_processes(servers: tuple[Served, Served]) -> None:
    run(talk_between(*servers))


async def talk_between(first: Served, second: Served) -> None:
    code, (ana_token, ben_token, cal_token) = open_table(first, ["Ana", "Ben", "Cal"], bots=1)
    ana, cal = Player("Ana", code, ana_token), Player("Cal", code, cal_token)
    ben, watcher = Player("Ben", code, ben_token), Player("watcher", code, None)
    everyone = [ana, cal, ben, watcher]
    try:
        for player in (ana, cal):
            await player.connect(first.ws)
        for player in (ben, watcher):
            await player.connect(second.ws)
        for player in everyone:
            await hello(player)

        # A line and a reaction said on the first process reach the second one's people.
        await ana.send({"type": "say", "text": "Hello from the first process", "request_id": 1})
        own = await next_message(ana, talk_line("Hello from the first process"))
        assert own["request_id"] == 1
        heard = await next_message(ben, talk_line("Hello from the first process"))
        assert (heard["line"]["seat"], heard["line"]["name"], heard["line"]["kind"]) == (
            0, "Ana", "say",
        )  # fmt: skip
        assert "request_id" not in heard
        await ana.send({"type": "react", "reaction": "good_luck"})
        reaction = await next_message(ben, talk_line("good_luck"))
        assert reaction["line"]["kind"] == "react"

        # The spectator on the second process reads the talk, and sees no hand of anyone.
        await next_message(watcher, talk_line("Hello from the first process"))
        await next_message(watcher, talk_line("good_luck"))
        assert watcher.state is not None
        assert watcher.state["you"]["seat"] is None
        assert watcher.state["view"]["hand"] == []
        for message in watcher.messages:
            assert "hand" not in message.get("view", {}) or message["view"]["hand"] == []
        # ... and may neither write (the creator did not allow it) nor react.
        await watcher.send({"type": "say", "text": "May I?"})
        await next_message(watcher, error_of("talk_not_allowed"))
        await watcher.send({"type": "react", "reaction": "wow"})
        await next_message(watcher, error_of("not_seated"))

        # Ben (second process) mutes Ana (first process): her next line never reaches him,
        # Cal's line after it (from the same process, so in order) does.
        await ben.send({"type": "mute", "speaker": heard["line"]["speaker"], "muted": True})
        muted = await next_message(ben, lambda m: m["type"] == "talk_muted")
        assert muted["muted"] == [heard["line"]["speaker"]]
        await ana.send({"type": "say", "text": "Ben does not hear this"})
        await next_message(ana, talk_line("Ben does not hear this"))
        await cal.send({"type": "say", "text": "Cal speaks after Ana"})
        await next_message(ben, talk_line("Cal speaks after Ana"))
        await next_message(watcher, talk_line("Cal speaks after Ana"))
        assert "Ben does not hear this" not in talk_texts(ben)
        assert "Ben does not hear this" in talk_texts(watcher)  # the mute was Ben's alone
        assert talk_texts(ben) == [
            "Hello from the first process", "good_luck", "Cal speaks after Ana",
        ]  # fmt: skip
    finally:
        for player in everyone:
            await player.close()


def test_the_talk_rate_counts_a_person_on_both_processes(servers: tuple[Served, Served]) -> None:
    run(rate_across(*servers))


async def rate_across(first: Served, second: Served) -> None:
    code, (ana_token, ben_token) = open_table(first, ["Ana", "Ben"], bots=1)
    here, there = Player("Ana here", code, ana_token), Player("Ana there", code, ana_token)
    ben = Player("Ben", code, ben_token)
    try:
        await here.connect(first.ws)
        await there.connect(second.ws)
        await ben.connect(second.ws)
        for player in (here, there, ben):
            await hello(player)
        # Five things per ten seconds for a person, whichever process their sockets are on:
        # three on the first, two on the second, and the sixth (on the second) is refused.
        for number, player in enumerate([here, here, here, there, there], start=1):
            await player.send({"type": "say", "text": f"line {number}"})
            await next_message(player, talk_line(f"line {number}"))
        await there.send({"type": "say", "text": "line 6", "request_id": "six"})
        refused = await next_message(there, error_of("talk_too_fast"))
        assert refused["request_id"] == "six"
        assert refused["details"]["limit"] == 5 and refused["details"]["seconds"] == 10
        assert 1 <= refused["details"]["retry_after"] <= 10
        await here.send({"type": "react", "reaction": "oops"})
        await next_message(here, error_of("talk_too_fast"))
        # Nothing refused was stored or told: Ben heard the five lines only, and the other
        # person still talks (the limit is the speaker's, not the table's).
        await ben.send({"type": "say", "text": "Ben is not limited"})
        await next_message(there, talk_line("Ben is not limited"))
        await next_message(ben, talk_line("Ben is not limited"))
        assert talk_texts(ben) == [f"line {n}" for n in range(1, 6)] + ["Ben is not limited"]
        late = Player("late", code, None)
        await late.connect(first.ws)
        lines = [line["text"] for line in (await hello(late))["lines"]]
        await late.close()
        assert lines == [f"line {n}" for n in range(1, 6)] + ["Ben is not limited"]
    finally:
        for player in (here, there, ben):
            await player.close()


# ------------------------------------------------------------------ the absent player


def absence_of(state: Message) -> Message:
    absence: Message = state["table"]["absence"]
    return absence


def is_absent(seat: int) -> Callable[[Message], bool]:
    return lambda s: any(a["seat"] == seat and a["absent"] for a in absence_of(s)["away"])


def test_an_absent_player_is_handed_over_across_processes(servers: tuple[Served, Served]) -> None:
    run(handover_across(*servers))


async def handover_across(first: Served, second: Served) -> None:
    names = ["Ana", "Ben", "Cal", "Dan"]
    code, tokens = open_table(first, names)
    ana, ben, cal, dan = (Player(n, code, t) for n, t in zip(names, tokens, strict=True))
    players = [ana, ben, cal, dan]
    try:
        # Ana, Cal and Dan on the first process, Ben on the second.
        for player in (ana, cal, dan):
            await player.connect(first.ws)
        await ben.connect(second.ws)
        dealt = lambda s: s["view"]["phase"] == "choosing_cards"  # noqa: E731
        for player in players:
            await player.until(dealt)
        # Nobody is absent while everyone is connected somewhere: the second process, told by
        # the first on the bus, does not count its people as away.
        summary = http("GET", f"{second.http}/api/tables/{code}")
        assert summary["absence"]["away_seconds"] == AWAY_SECONDS
        assert summary["absence"]["proposal"] is None

        # Cal closes his page on the first process: the second one sees him away, then absent.
        await cal.close()
        state = await ben.until(is_absent(2), timeout=30)
        assert [a["seat"] for a in absence_of(state)["away"]] == [2]
        assert absence_of(state)["stand_ins"] == []
        # Ana proposes on the first process; Ben, on the second, hears it.
        await ana.until(is_absent(2))
        await ana.send({"type": "propose", "seat": 2, "bot": "greedy"})
        proposed = await next_message(ben, event_of("handover_proposed"))
        event = next(e for e in proposed["events"] if e["type"] == "handover_proposed")
        assert (event["seat"], event["bot"], event["by"]) == (2, "greedy", 0)
        state = await ben.until(lambda s: absence_of(s)["proposal"] is not None)
        assert absence_of(state)["proposal"]["needed"] == [0, 1, 3]
        assert absence_of(state)["proposal"]["agreed"] == [0]

        # Dan agrees on the first process: Ben has not yet, so no bot plays for Cal.
        await dan.send({"type": "agree"})
        await next_message(ben, event_of("handover_agreed"))
        state = await ben.until(lambda s: absence_of(s)["proposal"]["agreed"] == [0, 3])
        assert absence_of(state)["stand_ins"] == []
        assert not any(m["type"] == "events" and event_of("seat_handed_over")(m)
                       for p in players for m in p.messages)  # fmt: skip
        summary = http("GET", f"{first.http}/api/tables/{code}")
        assert summary["absence"]["stand_ins"] == []
        assert summary["absence"]["proposal"]["agreed"] == [0, 3]
        # Ben's agreement, on the second process, completes it.
        await ben.send({"type": "agree"})
        done = await next_message(ana, event_of("seat_handed_over"))
        handed = next(e for e in done["events"] if e["type"] == "seat_handed_over")
        assert (handed["seat"], handed["bot"]) == (2, "greedy")
        await next_message(dan, event_of("seat_handed_over"))
        # The bot now plays for Cal: his card of this turn is chosen, seen on both processes.
        for player in (ana, ben):
            state = await player.until(lambda s: s["view"]["has_chosen"][2])
            assert absence_of(state)["stand_ins"] == [{"seat": 2, "bot": "greedy"}]
            assert absence_of(state)["proposal"] is None

        # Cal comes back, to the second process: he takes his seat back.
        cal = players[2] = Player("Cal", code, tokens[2])
        await cal.connect(second.ws)
        back = await next_message(ana, event_of("seat_reclaimed"))
        reclaimed = next(e for e in back["events"] if e["type"] == "seat_reclaimed")
        assert reclaimed["seat"] == 2
        for player in (ana, ben, cal):
            state = await player.until(lambda s: absence_of(s)["stand_ins"] == [])
            assert all(a["seat"] != 2 for a in absence_of(state)["away"])
        # The card the bot chose for him this turn stands; he decides again from the next one.
        state = await cal.until(lambda s: absence_of(s)["card_stands"] == [2])
        other = next(c for c in state["view"]["hand"] if c != state["view"]["chosen_card"])
        await cal.send({"type": "play", "card": other})
        await next_message(cal, error_of("card_stands"))
        summary = http("GET", f"{first.http}/api/tables/{code}")
        assert summary["absence"]["stand_ins"] == []
        assert summary["absence"]["card_stands"] == [2]
    finally:
        for player in players:
            await player.close()
