"""Faults around the server: the bus (Redis) gone for a while between two processes, the database
(PostgreSQL) gone for a few seconds, and every socket of 50 tables reconnecting at once."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, text
from starlette.testclient import TestClient
from tests.server.server_helpers import (
    Message,
    Player,
    Replayer,
    create_table,
    http,
    join,
    launch_server,
    receive_until,
    snapshot,
    start_server,
    stop_server,
    stored_actions,
    wait_ready,
)

import throwaway
from nimmt.server import Settings, create_app

GREEDY = {"kind": "bot", "bot": "greedy"}
TWO_AND_A_BOT = [{"kind": "human"}, {"kind": "human"}, GREEDY]


def turn_done(turn: int) -> Any:
    """A state where ``turn`` turns of round 1 are over and the bot has chosen again."""
    return lambda s: (
        (s["view"]["round"], s["view"]["turn"]) >= (1, turn) and s["view"]["has_chosen"][2]
    )


def check_history(db: str, code: str, players: list[Player]) -> None:
    """No gap in the stored history, and every state a socket saw is the stored one."""
    actions = stored_actions(db, code)
    assert [a["seq"] for a in actions] == list(range(1, len(actions) + 1))
    replayer = Replayer(db, code, actions)
    for player in players:
        for state in player.states():
            if state["view"]["phase"] != "waiting":
                view = replayer.view(state["version"], state["you"]["seat"])
                assert state["view"] == view, (player.name, state["version"])


# ------------------------------------------------------------------------------- the bus


def at_least(version: int) -> Callable[[Message], bool]:
    return lambda state: bool(state["version"] >= version)


async def settle(db: str, code: str, players: list[Player]) -> None:
    """Every socket reaches the stored version (a bot may still be moving: bounded retries)."""
    for _ in range(20):
        target = stored_actions(db, code)[-1]["seq"]
        for player in players:
            await player.until(at_least(target), 30)
        if {p.state["version"] for p in players if p.state} == {target} and (
            stored_actions(db, code)[-1]["seq"] == target
        ):
            return
    raise AssertionError("the sockets never settled at the stored version")


@pytest.mark.slow
def test_play_goes_on_while_the_bus_is_down(
    postgres_url: str, redis_server: throwaway.Redis, tmp_path: Path
) -> None:
    log = tmp_path / "servers.log"
    first = launch_server(postgres_url, log, bus=redis_server.url)
    second = launch_server(postgres_url, log, bus=redis_server.url)
    try:
        wait_ready(first, second)
        asyncio.run(bus_down(postgres_url, redis_server, first.ws, second.ws, first.http))
    finally:
        if redis_server.process is None:
            redis_server.start()
        stop_server(first)
        stop_server(second)


async def bus_down(db: str, redis_server: throwaway.Redis, one: str, two: str, api: str) -> None:
    created = http("POST", f"{api}/api/tables", {"seats": TWO_AND_A_BOT, "name": "Ana"})
    code = created["code"]
    ben_seat = http("POST", f"{api}/api/tables/{code}/join", {"name": "Ben"})
    ana = Player("Ana", code, created["token"])
    ben = Player("Ben", code, ben_seat["token"])
    try:
        await ana.connect(one)
        await ben.connect(two)
        await asyncio.gather(ana.play_until(turn_done(1)), ben.play_until(turn_done(1)))

        redis_server.stop()
        # Each process hears of the other's changes by polling the database, within a deadline.
        await asyncio.gather(ana.play_until(turn_done(3)), ben.play_until(turn_done(3)))
        await settle(db, code, [ana, ben])

        redis_server.start()
        await asyncio.gather(ana.play_until(turn_done(6)), ben.play_until(turn_done(6)))
        await settle(db, code, [ana, ben])
        assert ana.state is not None and ben.state is not None
        for key in ("rows", "has_chosen", "totals", "played"):
            assert ana.state["view"][key] == ben.state["view"][key]
        check_history(db, code, [ana, ben])
    finally:
        await ana.close()
        await ben.close()


# -------------------------------------------------------------------------- the database


@pytest.mark.slow
def test_an_action_while_the_database_is_down_changes_nothing(
    postgres_cluster: throwaway.Postgres,
) -> None:
    settings = Settings(
        db=postgres_cluster.url,
        bot_delay=0,
        deal_seed=5,
        bot_processes=0,
        socket_rate=10_000,
        socket_burst=10_000,
        allowed_hosts=["testserver"],
    )
    with TestClient(create_app(settings)) as client:
        code, ana_token = create_table(client, TWO_AND_A_BOT, "Ana")
        ben_token = join(client, code, "Ben")
        with client.websocket_connect(f"/ws/{code}?token={ana_token}") as ana:
            ben = client.websocket_connect(f"/ws/{code}?token={ben_token}").__enter__()
            bot_chose = lambda m: m["type"] == "state" and m["view"]["has_chosen"][2]  # noqa: E731
            state = receive_until(ana, bot_chose)
            receive_until(ben, bot_chose)
            card = state["view"]["legal_cards"][0]
            play = {"type": "play", "card": card, "version": state["version"], "request_id": 1}
            before = snapshot(client, code)

            postgres_cluster.stop()
            try:
                ana.send_json(play)
                refused = receive_until(ana, lambda m: m["type"] != "state")
                assert refused["type"] == "error" and refused["code"] == "storage_error"
                assert refused["request_id"] == 1
                # Ben's socket closes: Ana may be told he left, never of her refused card.
                ben.__exit__(None, None, None)
                ana.send_json({"type": "ping", "request_id": "sync"})
                seen: list[Message] = []
                receive_until(ana, lambda m: m["type"] == "pong", seen)
                for message in seen:
                    assert message.get("version", state["version"]) == state["version"], message
                    if message["type"] == "state":
                        assert message["view"]["chosen_card"] is None
                        assert message["view"]["has_chosen"] == [False, False, True]
            finally:
                postgres_cluster.start()

            # The database is back: the table is the stored one, nothing half-applied, and
            # the sockets are told so.
            assert client.get(f"/api/tables/{code}").status_code == 200
            told = receive_until(ana, lambda m: m["type"] == "state")
            assert told["version"] == state["version"]
            assert told["view"]["chosen_card"] is None
            assert snapshot(client, code) == before

        with (
            client.websocket_connect(f"/ws/{code}?token={ana_token}") as ana,
            client.websocket_connect(f"/ws/{code}?token={ben_token}") as ben,
        ):
            receive_until(ana, lambda m: m["type"] == "state")
            state = receive_until(ben, lambda m: m["type"] == "state")
            ana.send_json(play)
            ben.send_json(
                {
                    "type": "play",
                    "card": state["view"]["legal_cards"][-1],
                    "version": play["version"],
                }
            )
            # The turn resolves (a row choice, if any, made by whoever owes it) and the bot
            # plays the next turn by itself.
            for ws in (ana, ben):
                while True:
                    message = receive_until(ws, lambda m: m["type"] in ("state", "error"))
                    assert message["type"] == "state", message
                    view = message["view"]
                    if view["must_choose_row"]:
                        ws.send_json({"type": "choose_row", "row": 0})
                    if view["turn"] == 1 and view["has_chosen"][2]:
                        break
        stored = client.portal.call(  # type: ignore[union-attr]
            _load, client, code
        )
        kinds = [(a.kind, a.seat) for a in stored[len(before["stored"]) :]]
        assert kinds[:2] == [("play", 0), ("play", 1)]
        assert kinds[-1] == ("play", 2)


async def _load(client: TestClient, code: str) -> list[Any]:
    return list(client.app.state.service.storage.load_actions(code, 1))  # type: ignore[attr-defined]


# ------------------------------------------------------------------------ reconnect storm


@pytest.mark.slow
def test_a_reconnect_storm(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'storm.db'}"
    served = start_server(db, tmp_path / "server.log")
    try:
        asyncio.run(storm(db, served.ws, served.http))
    finally:
        stop_server(served)


async def storm(db: str, base_ws: str, api: str) -> None:
    tables = 50
    players: list[Player] = []
    for index in range(tables):
        created = http("POST", f"{api}/api/tables", {"seats": TWO_AND_A_BOT, "name": "Ana"})
        code = created["code"]
        ben = http("POST", f"{api}/api/tables/{code}/join", {"name": "Ben"})
        players += [
            Player(f"Ana{index}", code, created["token"]),
            Player(f"Ben{index}", code, ben["token"]),
        ]
    try:
        await asyncio.gather(*(p.connect(base_ws) for p in players))
        bot_chose = lambda s: s["view"]["has_chosen"][2]  # noqa: E731
        await asyncio.gather(*(p.until(bot_chose) for p in players))
        engine = create_engine(db)
        with engine.connect() as connection:
            stored: dict[str, int] = dict(
                connection.execute(text("select code, version from tables")).all()
            )
        engine.dispose()
        for player in players:
            assert player.state is not None and player.state["version"] == stored[player.code]

        await asyncio.gather(*(p.close() for p in players))
        await asyncio.gather(*(p.connect(base_ws, wait=False) for p in players))
        firsts = await asyncio.gather(*(p.recv() for p in players))
        for index, (player, first) in enumerate(zip(players, firsts, strict=True)):
            assert first["type"] == "state", (player.name, first)
            assert first["you"]["seat"] == index % 2
            assert first["version"] == stored[player.code]
            assert first["view"]["has_chosen"] == [False, False, True]
        for player in players:
            assert not [m for m in player.messages if m["type"] == "error"]

        # Play goes on at a few tables.
        few = players[:6]
        await asyncio.gather(*(p.play_until(turn_done(1)) for p in few))
        for player in few:
            assert player.state is not None and player.state["view"]["turn"] >= 1
    finally:
        await asyncio.gather(*(p.close() for p in players))
