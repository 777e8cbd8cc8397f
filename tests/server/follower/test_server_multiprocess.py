"""Several real ``nimmt serve`` processes on one PostgreSQL database, telling each other of changes
over Redis: one table played across two processes, one of them SIGKILLed mid-turn while it owes
the bot its move; and ``nimmt serve --workers 2`` (and its refusals)."""

from __future__ import annotations

import asyncio
import json
import time
from collections import Counter
from functools import partial
from pathlib import Path
from typing import Any

import psutil  # type: ignore[import-untyped]  # no stubs among the dependencies
import pytest
from tests.server.server_helpers import (
    Message,
    Player,
    Replayer,
    Served,
    http,
    launch_server,
    start_server,
    stop_server,
    stored_actions,
    wait_ready,
)
from tests.waiting import wait_until_async
from typer.testing import CliRunner

import throwaway
from nimmt.cli import app
from throwaway import free_port

GREEDY = {"kind": "bot", "bot": "greedy"}
AGREED = ("version", "rows", "has_chosen", "totals", "round", "turn", "phase", "waiting_for")


def agreed(state: Message) -> str:
    """What every seat must see alike at one version (hands and own choices differ)."""
    view = state["view"]
    return json.dumps([state["version"] if key == "version" else view[key] for key in AGREED])


def check_agreement(players: list[Player]) -> int:
    """Every version seen by several sockets looks the same to each; how many were compared."""
    seen: dict[int, set[str]] = {}
    for player in players:
        for state in player.states():
            seen.setdefault(state["version"], set()).add(agreed(state))
    for version, pictures in seen.items():
        if len(pictures) != 1:
            for player in players:
                for message in player.messages:
                    if message.get("version") in (version - 1, version, version + 1):
                        print(player.name, json.dumps(message)[:600])
        assert len(pictures) == 1, (version, pictures)
    return len(seen)


def acknowledged_plays(player: Player) -> dict[tuple[int, int], int]:
    """``(round, card)`` of each of this seat's cards the server confirmed (a state shows it
    chosen face down or played, or the events revealed it: a round's last card is told with the
    next deal, so no state of its round shows it), and the first version that showed it."""
    confirmed: dict[tuple[int, int], int] = {}
    seat = player.states()[-1]["you"]["seat"]
    for message in player.messages:
        if message["type"] == "events":
            for event in message["events"]:
                if event["type"] == "cards_revealed":
                    key = (event["round"], event["cards"][seat])
                    confirmed.setdefault(key, message["version"])
            continue
        if message["type"] != "state" or message["view"]["phase"] == "waiting":
            continue
        view = message["view"]
        if view["chosen_card"] is not None:
            confirmed.setdefault((view["round"], view["chosen_card"]), message["version"])
        for turn in view["played"]:
            confirmed.setdefault((view["round"], turn[seat]), message["version"])
    return confirmed


@pytest.mark.slow
def test_two_processes_one_table_and_a_kill_mid_turn(
    postgres_url: str, redis_server: throwaway.Redis, tmp_path: Path
) -> None:
    log = tmp_path / "servers.log"
    # The bots of both processes are held by this file while it exists (``held_bots_serve.py``):
    # the test creates it before the turn whose bot move the first process will owe, kills that
    # process, then removes it. So the bot cannot move before the kill however busy the
    # machine, and afterwards only the second process can move it.
    hold = tmp_path / "hold-bots"
    first = second = None
    try:
        first = launch_server(postgres_url, log, bus=redis_server.url, held_bots=hold)
        second = launch_server(postgres_url, log, bus=redis_server.url, held_bots=hold)
        wait_ready(first, second)
        asyncio.run(kill_mid_turn(postgres_url, redis_server, log, first, second, hold))
    finally:
        for served in (first, second):
            stop_server(served)


async def kill_mid_turn(
    db: str, redis_server: throwaway.Redis, log: Path, first: Served, second: Served, hold: Path
) -> None:
    seats = [{"kind": "human"}] * 3 + [GREEDY]
    created = http("POST", f"{first.http}/api/tables", {"seats": seats, "name": "Ana"})
    code = created["code"]
    ben = http("POST", f"{second.http}/api/tables/{code}/join", {"name": "Ben"})
    cal = http("POST", f"{second.http}/api/tables/{code}/join", {"name": "Cal"})
    ana = Player("Ana", code, created["token"])
    players = [ana, Player("Ben", code, ben["token"]), Player("Cal", code, cal["token"])]
    third: Served | None = None
    watcher = Player("watcher", code, None)
    late = Player("late watcher", code, None)
    try:
        await ana.connect(first.ws)
        for player in players[1:]:
            await player.connect(second.ws)
        await watcher.connect(second.ws)

        # Two turns, everyone playing as they please (the table's mover alternates).
        def deciding(turn: int) -> Any:
            return lambda s: s["view"]["turn"] >= turn and bool(s["view"]["legal_cards"])

        await asyncio.gather(*(p.play_until(deciding(2)) for p in players))
        # Turn 3: Ben, Cal and the bot first, Ana last, so that the first process resolves the
        # turn and is the one to move the bot next; from here on the bots wait for the hold.
        for player in players[1:]:
            await player.decide()
        await asyncio.gather(
            *(p.until(lambda s: s["view"]["has_chosen"][1:] == [True] * 3) for p in players)
        )
        hold.touch()
        await ana.decide()
        # Whoever owes a row choice makes it; then Ana chooses her card of turn 4 at once.
        await asyncio.gather(
            *(p.play_until(deciding(3)) for p in players[1:]),
            ana.play_until(lambda s: s["view"]["turn"] >= 3 and s["view"]["has_chosen"][0]),
        )
        chosen = ana.state
        assert chosen is not None and chosen["view"]["chosen_card"] is not None
        assert not chosen["view"]["has_chosen"][3], "the bot moved before the kill"
        for player in players[1:]:
            await player.until(lambda s: s["version"] >= chosen["version"])
        killed_at = time.monotonic()
        first.kill()
        hold.unlink()
        third = launch_server(db, log, bus=redis_server.url)  # started after the kill

        # Nobody else acts: the second process's watchdog moves the orphaned bot.
        await asyncio.gather(
            *(p.until(lambda s: s["view"]["has_chosen"][3], 15) for p in players[1:])
        )
        assert time.monotonic() - killed_at < 15

        # Ana comes back, to the second process, asking for what she missed.
        await ana.close()
        seen = chosen["version"]
        await ana.connect(second.ws, since=seen, wait=False)
        missed = await ana.recv()
        assert missed["type"] == "events" and missed["version"] > seen, missed
        assert {"type": "card_chosen", "seat": 3} in missed["events"]
        back = await ana.recv()
        assert back["type"] == "state" and back["version"] == missed["version"]
        assert back["view"]["chosen_card"] == chosen["view"]["chosen_card"]

        # A third process, started after the kill, shows a spectator the same table.
        wait_ready(third)
        await late.connect(third.ws)

        # The game goes on to the next round (nobody plays there: only the bot's card comes).
        await asyncio.gather(*(p.play_until(lambda s: s["view"]["round"] >= 2) for p in players))
        settled = lambda s: s["view"]["round"] >= 2 and s["view"]["has_chosen"][3]  # noqa: E731
        for player in [*players, watcher, late]:
            await player.until(settled)
        final = max(p.state["version"] for p in players if p.state is not None)
        # The late spectator's view and the second process's spectator's are the same.
        assert late.state is not None and watcher.state is not None
        assert late.state["version"] == watcher.state["version"] == final
        assert late.state["view"] == watcher.state["view"]
        for player in [*players, watcher, late]:
            await player.close()

        compared = check_agreement([*players, watcher, late])
        assert compared > 20
        check_against_the_database(db, code, [*players, watcher, late])
    finally:
        for player in [*players, watcher, late]:
            await player.close()
        stop_server(third)


def check_against_the_database(db: str, code: str, players: list[Player]) -> None:
    """The stored history has no gap or duplicate, holds each confirmed card exactly once, and
    rebuilt to each version a socket saw, gives exactly the view that socket was sent."""
    actions = stored_actions(db, code)
    assert [a["seq"] for a in actions] == list(range(1, len(actions) + 1))
    rounds, played = 0, []
    for action in actions:
        rounds += action["kind"] == "deal"
        if action["kind"] == "play":
            played.append((action["seat"], rounds, action["card"], action["seq"]))
    for player in players:
        if player.token is None:
            continue
        seat = player.states()[-1]["you"]["seat"]
        counts = Counter((r, card) for s, r, card, _seq in played if s == seat)
        assert all(count == 1 for count in counts.values()), counts
        confirmed = acknowledged_plays(player)
        assert sorted(confirmed) == sorted(counts), player.name
        stored_at = {(r, card): seq for s, r, card, seq in played if s == seat}
        for key, version in confirmed.items():
            assert stored_at[key] <= version  # stored before anybody heard of it
        sent = [m["card"] for m in player.sent if m["type"] == "play"]
        assert {card for _r, card in counts} <= set(sent)  # no card this seat never sent
    replayer = Replayer(db, code, actions)
    views = 0
    for player in players:
        for state in player.states():
            if state["view"]["phase"] == "waiting":
                continue
            seat = state["you"]["seat"]
            assert state["view"] == replayer.view(state["version"], seat), (
                player.name,
                state["version"],
            )
            views += 1
    assert views > 50


# ---------------------------------------------------------------------------- --workers 2


def worker_of(server: psutil.Process, local_port: int, port: int) -> int | None:
    """The pid of the worker process that holds our connection from ``local_port``."""
    for child in server.children(recursive=True):
        try:
            connections = child.net_connections(kind="tcp")
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
        for connection in connections:
            if (
                connection.laddr
                and connection.laddr.port == port
                and connection.raddr
                and connection.raddr.port == local_port
            ):
                pid: int = child.pid
                return pid
    return None


@pytest.mark.slow
def test_serve_with_two_workers(
    postgres_url: str, redis_server: throwaway.Redis, tmp_path: Path
) -> None:
    served = start_server(
        postgres_url, tmp_path / "workers.log", bus=redis_server.url, extra=("--workers", "2")
    )
    try:
        asyncio.run(two_workers(served))
    finally:
        stop_server(served)


async def two_workers(served: Served) -> None:
    seats = [{"kind": "human"}, {"kind": "human"}, GREEDY]
    created = http("POST", f"{served.http}/api/tables", {"seats": seats, "name": "Ana"})
    code = created["code"]
    ben = http("POST", f"{served.http}/api/tables/{code}/join", {"name": "Ben"})
    tokens = [created["token"], ben["token"]]
    server = psutil.Process(served.process.pid)
    workers: set[int] = set()
    players: list[Player] = []
    try:
        # The people connect again and again: the kernel hands the connections to either worker
        # (a worker still starting, or busy, may take none for a while: hence many tries; the
        # loop ends as soon as both have taken one).
        for attempt in range(200):
            player = Player(f"P{attempt}", code, tokens[attempt % 2])
            players.append(player)
            await player.connect(served.ws)
            state = await player.until(lambda s: s["view"]["phase"] == "choosing_cards")
            assert state["you"]["seat"] == attempt % 2
            local_port = player.ws.local_address[1]
            pid = await wait_until_async(
                partial(worker_of, server, local_port, served.port),
                timeout=10,
                interval=0.02,
                message="no worker process holds the connection",
            )
            assert pid is not None
            workers.add(pid)
            if len(workers) == 2 and attempt >= 5:
                break
        assert len(workers) == 2, "every connection went to the same worker"
        summaries = [http("GET", f"{served.http}/api/tables/{code}") for _ in range(10)]
        # Both workers know the table alike (who is connected, and so who is away and for how
        # long, is each worker's own business: the bus tells it every few seconds).
        for summary in summaries:
            for seat in summary["seats"]:
                seat.pop("connected")
            summary["absence"].pop("away")
        assert all(summary == summaries[0] for summary in summaries)
        assert {s["phase"] for s in summaries} == {"choosing_cards"}
        # Play a turn with the last socket of each seat; the others (on either worker) follow.
        ana, ben_player = players[-2:] if players[-1].token == tokens[1] else players[-3:-1]
        await asyncio.gather(ana.decide(), ben_player.decide())
        done = lambda s: s["view"]["turn"] >= 1  # noqa: E731
        await asyncio.gather(*(p.play_until(done) for p in (ana, ben_player)))
        for player in players:
            state = await player.until(done)
            assert (
                state["view"]["played"][0][state["you"]["seat"]]
                in (
                    ana.state["view"]["played"][0]  # type: ignore[index]
                )
            )
    finally:
        for player in players:
            await player.close()


def run_cli(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["serve", *args], env={"NIMMT_BUS": "", "NIMMT_DB": ""})
    return result.exit_code, result.output


def test_serve_with_workers_refuses_sqlite_and_a_missing_bus(tmp_path: Path) -> None:
    port = str(free_port())
    code, output = run_cli("--workers", "2", "--port", port, "--db", f"sqlite:///{tmp_path}/g.db")
    lines = output.strip().splitlines()
    assert code == 1 and len(lines) == 1 and lines[0].startswith("error: "), output
    assert "postgresql" in lines[0]
    code, output = run_cli("--workers", "2", "--port", port, "--db", "postgresql://x@127.0.0.1/n")
    lines = output.strip().splitlines()
    assert code == 1 and len(lines) == 1 and lines[0].startswith("error: "), output
    assert "--bus" in lines[0]
