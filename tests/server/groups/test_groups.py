"""Groups through the real HTTP routes and sockets: opened by a profile, joined by its invite
(revocable), a table played online and a game with real cards opened for it, and the group's
page: members, standings (JSON and CSV), recent games with their replays."""

from __future__ import annotations

import csv
import io
import threading
from datetime import timedelta
from typing import Any

import pytest
from starlette.testclient import TestClient
from tests.server import people_storage
from tests.server.assisting.test_server_assisted import enter, seeded_game
from tests.server.profiles.test_profiles import auth, make_profile
from tests.server.server_helpers import Message, play_seat, receive_until, service_of
from tests.waiting import wait_until

# Every test here runs on each storage: in memory, SQLite and PostgreSQL.
make_client = people_storage.make_client

HUMAN = {"kind": "human"}
BOT = {"kind": "bot", "bot": "greedy"}


def open_group(client: TestClient, secret: str, name: str = "Thursdays at Ana's") -> str:
    answer = client.post("/api/groups", json={"name": name}, headers=auth(secret))
    assert answer.status_code == 201, answer.text
    code: str = answer.json()["group"]["code"]
    return code


def invite(client: TestClient, group: str, secret: str) -> str:
    answer = client.post(f"/api/groups/{group}/invite", headers=auth(secret))
    assert answer.status_code == 201, answer.text
    assert answer.json()["url"].endswith(f"/g/join?token={answer.json()['invite']}")
    token: str = answer.json()["invite"]
    return token


def two_members(client: TestClient) -> tuple[str, tuple[Message, str], tuple[Message, str]]:
    ana = make_profile(client, "Ana")
    ben = make_profile(client, "Ben")
    group = open_group(client, ana[1])
    joined = client.post(
        "/api/groups/join", json={"invite": invite(client, group, ana[1])}, headers=auth(ben[1])
    )
    assert joined.status_code == 200, joined.text
    return group, ana, ben


def test_members_join_by_the_invite_until_it_is_revoked(make_client: Any) -> None:
    client = make_client()
    group, ana, ben = two_members(client)
    page = client.get(f"/api/groups/{group}", headers=auth(ben[1])).json()
    assert [m["name"] for m in page["members"]] == ["Ana", "Ben"]
    assert [m["owner"] for m in page["members"]] == [True, False]
    token = invite(client, group, ana[1])
    assert client.delete(f"/api/groups/{group}/invite", headers=auth(ana[1])).status_code == 200
    _cy, cy_secret = make_profile(client, "Cy")
    refused = client.post("/api/groups/join", json={"invite": token}, headers=auth(cy_secret))
    assert refused.status_code == 404
    assert refused.json()["error"]["code"] == "bad_invite"
    # Only the owner manages the invite; a stranger does not even learn the group exists.
    assert (
        client.post(f"/api/groups/{group}/invite", headers=auth(ben[1])).json()["error"]["code"]
        == "not_owner"
    )
    hidden = client.get(f"/api/groups/{group}", headers=auth(cy_secret))
    assert hidden.status_code == 404
    assert hidden.json()["error"]["code"] == "group_not_found"
    hidden = client.get(f"/api/groups/{group}/open", headers=auth(cy_secret))
    assert (hidden.status_code, hidden.json()["error"]["code"]) == (404, "group_not_found")
    assert client.get(f"/api/groups/{group}").json()["error"]["code"] == "no_profile"


def play_group_table(client: TestClient, group: str, ana: str, ben: str) -> str:
    """Ana opens a table for the group, Ben joins it signed in; both play it to the end."""
    made = client.post(
        f"/api/groups/{group}/tables", json={"seats": [HUMAN, HUMAN, BOT]}, headers=auth(ana)
    )
    assert made.status_code == 201, made.text
    code = made.json()["code"]
    joined = client.post(f"/api/tables/{code}/join", json={"name": "Ben"}, headers=auth(ben))
    assert joined.status_code == 200
    received: list[Message] = []
    with (
        client.websocket_connect(f"/ws/{code}?token={made.json()['token']}") as ws0,
        client.websocket_connect(f"/ws/{code}?token={joined.json()['token']}") as ws1,
    ):
        threads = [
            threading.Thread(target=play_seat, args=(ws0, received, min)),
            threading.Thread(target=play_seat, args=(ws1, [], max)),
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
        assert not any(thread.is_alive() for thread in threads), "the game did not finish"
    return str(code)


def group_page_with_games(client: TestClient, group: str, secret: str, games: int) -> Message:
    """The group's page once it counts ``games`` games: a game's result is noted just after the
    change that ends it, which the players may see first."""

    def page() -> Message | None:
        answer: Message = client.get(f"/api/groups/{group}", headers=auth(secret)).json()
        return answer if answer["games"] >= games else None

    found = wait_until(page, message=f"the group's page never counted {games} games")
    assert found is not None and found["games"] == games
    return found


def test_a_group_game_counts_in_standings_history_and_recent_games(make_client: Any) -> None:
    # A seeded deal: the same game every run, one in which Ana and Ben do not tie (a tie would
    # rank them both first).
    client = make_client(deal_seed=1)
    group, (ana, ana_secret), (ben, ben_secret) = two_members(client)
    code = play_group_table(client, group, ana_secret, ben_secret)
    totals = service_of(client).book.tables[code].game.outcome.totals  # type: ignore[union-attr]
    page = group_page_with_games(client, group, ana_secret, 1)
    lines = {line["name"]: line for line in page["standings"]}
    assert lines["Ana"]["games"] == lines["Ben"]["games"] == 1
    assert lines["Ana"]["bullheads"] == totals[0]
    assert lines["Ben"]["bullheads"] == totals[1]
    best = min(totals)
    assert lines["Ana"]["wins"] == (totals[0] == best)
    assert lines["Ben"]["wins"] == (totals[1] == best)
    assert [line["rank"] for line in page["standings"]] == [1, 2]
    recent = page["recent"][0]
    assert recent["replay"] == f"/t/{code}/replay?game=1"
    assert [p["profile"] for p in recent["players"]] == [ana["id"], ben["id"], None]
    assert client.get(f"/api/tables/{code}/record").status_code == 200  # the replay's source
    history = client.get("/api/profile/history", headers=auth(ben_secret)).json()
    assert history["totals"]["games"] == 1
    assert history["games"][0]["total"] == totals[1]
    assert history["games"][0]["group"] == group


def test_a_real_cards_game_for_the_group_counts_too(make_client: Any) -> None:
    client = make_client()
    group, (ana, ana_secret), (ben, _ben_secret) = two_members(client)
    made = client.post(
        f"/api/groups/{group}/assisted",
        json={"players": [{"profile": ben["id"]}, {"name": "Cy"}, {"profile": ana["id"]}]},
        headers=auth(ana_secret),
    )
    assert made.status_code == 201, made.text
    code, token = made.json()["code"], made.json()["token"]
    entries, game = seeded_game(7, 3)
    with client.websocket_connect(f"/ws/{code}?token={token}") as ws:
        first = receive_until(ws, lambda m: m["type"] == "state")
        enter(ws, entries, first["version"])
    outcome = game.outcome
    assert outcome is not None
    page = group_page_with_games(client, group, ana_secret, 1)
    recent = page["recent"][0]
    assert recent["real_cards"] is True
    assert [(p["name"], p["profile"]) for p in recent["players"]] == [
        ("Ben", ben["id"]),
        ("Cy", None),
        ("Ana", ana["id"]),
    ]
    lines = {line["name"]: line for line in page["standings"]}
    assert lines["Ana"]["bullheads"] == outcome.totals[2]
    assert lines["Ben"]["bullheads"] == outcome.totals[0]
    stranger = client.post(
        f"/api/groups/{group}/assisted",
        json={"players": [{"profile": "nobody"}, {"name": "Cy"}]},
        headers=auth(ana_secret),
    )
    assert stranger.json()["error"]["code"] == "not_member"


def test_the_page_lists_the_groups_tables_open_now(
    make_client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Online and with real cards, newest first, with what the lobby shows of them: not a
    finished one, nor another group's, nor one nobody acted at for the lobby's idle time."""
    client = make_client()
    group, (ana, ana_secret), (ben, ben_secret) = two_members(client)
    three = {"seats": [HUMAN, HUMAN, BOT]}
    online = client.post(f"/api/groups/{group}/tables", json=three, headers=auth(ana_secret))
    assert online.status_code == 201, online.text
    code = online.json()["code"]
    players = [{"profile": ben["id"]}, {"name": "Cy"}]
    real = client.post(
        f"/api/groups/{group}/assisted", json={"players": players}, headers=auth(ana_secret)
    ).json()
    # A real-cards game played to its end, another group's table, and a lobby's table.
    ended = client.post(
        f"/api/groups/{group}/assisted",
        json={"players": [*players, {"profile": ana["id"]}]},
        headers=auth(ana_secret),
    ).json()
    with client.websocket_connect(f"/ws/{ended['code']}?token={ended['token']}") as ws:
        enter(
            ws, seeded_game(7, 3)[0], receive_until(ws, lambda m: m["type"] == "state")["version"]
        )
    fridays = open_group(client, ben_secret, "Fridays")
    theirs = client.post(
        f"/api/groups/{fridays}/tables", json={"seats": [HUMAN, BOT]}, headers=auth(ben_secret)
    ).json()
    assert (
        client.post("/api/tables", json={"seats": [HUMAN, BOT], "name": "Dee"}).status_code == 201
    )

    def open_now(secret: str = ben_secret, of: str = group) -> list[Message]:
        answer = client.get(f"/api/groups/{of}", headers=auth(secret))
        assert answer.status_code == 200, answer.text
        listed: list[Message] = answer.json()["open"]
        assert all(line.pop("created_at").endswith("Z") for line in listed)
        return listed

    assert open_now() == [
        {
            "code": real["code"],
            "url": f"/t/{real['code']}",
            "real_cards": True,
            "seats": 2,
            "free_seats": 0,
            "players": ["Ben", "Cy"],
            "state": "playing",
            "phase": "dealing",
            "round": 0,
            "game": 1,
        },
        {
            "code": code,
            "url": f"/t/{code}",
            "real_cards": False,
            "seats": 3,
            "free_seats": 1,
            "players": ["Ana"],
            "state": "waiting",
            "phase": "waiting",
            "round": 0,
            "game": 1,
        },
    ]
    assert [line["code"] for line in open_now(of=fridays)] == [theirs["code"]]
    # The list alone, as the page reads it again, is the page's.
    alone = client.get(f"/api/groups/{group}/open", headers=auth(ben_secret))
    assert alone.status_code == 200
    assert [line["code"] for line in alone.json()["open"]] == [real["code"], code]
    # Ben takes the free seat: the table is full, and in play.
    joined = client.post(f"/api/tables/{code}/join", json={"name": "Ben"}, headers=auth(ben_secret))
    assert joined.status_code == 200, joined.text

    def in_play() -> Message | None:
        lines = [line for line in open_now(ana_secret) if line["code"] == code]
        return lines[0] if lines and lines[0]["state"] == "playing" else None

    line = wait_until(in_play, message="the group's table never showed in play")
    assert line is not None
    assert (line["free_seats"], line["players"], line["round"]) == (0, ["Ana", "Ben"], 1)
    # To somebody outside the group, there is still no such group.
    _cy, cy_secret = make_profile(client, "Cy")
    hidden = client.get(f"/api/groups/{group}", headers=auth(cy_secret))
    assert hidden.status_code == 404
    assert hidden.json()["error"]["code"] == "group_not_found"
    # Half an hour on without anybody acting: the tables leave the page, as the lobby.
    book = service_of(client).book
    later = book.clock() + timedelta(minutes=31)
    monkeypatch.setattr(book, "clock", lambda: later)
    assert open_now() == []


def test_standings_download_as_csv(make_client: Any) -> None:
    client = make_client()
    group, (_ana, ana_secret), _ben = two_members(client)
    client.patch("/api/profile", json={"name": "=cmd"}, headers=auth(ana_secret))
    answer = client.get(f"/api/groups/{group}/standings.csv", headers=auth(ana_secret))
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/csv")
    rows = list(csv.reader(io.StringIO(answer.text)))
    assert rows[0][:4] == ["rank", "name", "games", "wins"]
    assert sorted(row[1] for row in rows[1:]) == ["'=cmd", "Ben"]
    data = client.get(f"/api/groups/{group}/standings", headers=auth(ana_secret)).json()
    assert data["games"] == 0
    assert {line["name"] for line in data["standings"]} == {"=cmd", "Ben"}


def times_in(data: Any) -> list[str]:
    """Every ``..._at`` value anywhere in a JSON answer."""
    if isinstance(data, dict):
        found = [str(v) for k, v in data.items() if k.endswith("_at") and v is not None]
        return found + [t for v in data.values() for t in times_in(v)]
    if isinstance(data, list):
        return [t for v in data for t in times_in(v)]
    return []


def test_every_time_in_the_people_routes_is_utc_with_a_z(make_client: Any) -> None:
    """docs/protocol.md's convention for every time on the wire, as the tables' routes keep it."""
    client = make_client()
    group, (_ana, ana_secret), (_ben, ben_secret) = two_members(client)
    play_group_table(client, group, ana_secret, ben_secret)
    group_page_with_games(client, group, ana_secret, 1)
    answers = [
        client.get("/api/profile", headers=auth(ana_secret)).json(),
        client.post("/api/profile/link", headers=auth(ana_secret)).json(),
        client.get("/api/profile/history", headers=auth(ana_secret)).json(),
        client.get("/api/groups", headers=auth(ana_secret)).json(),
        client.get(f"/api/groups/{group}", headers=auth(ana_secret)).json(),
        client.get(f"/api/groups/{group}/standings", headers=auth(ana_secret)).json(),
    ]
    times = times_in(answers)
    assert len(times) >= 10, times
    assert all(time.endswith("Z") and "+" not in time for time in times), times


def test_a_group_table_takes_the_options_of_any_table(make_client: Any) -> None:
    """The coach and the delay before an absent person's seat may go to a bot, set by the
    person who opens the table for the group as on the start page; out of range, no table."""
    client = make_client()
    group, (_ana, ana_secret), _ben = two_members(client)
    body = {"seats": [HUMAN, HUMAN, BOT], "coach": True, "away_seconds": 300}
    made = client.post(f"/api/groups/{group}/tables", json=body, headers=auth(ana_secret))
    assert made.status_code == 201, made.text
    summary = client.get(f"/api/tables/{made.json()['code']}").json()
    assert summary["coach"] is True
    assert summary["absence"]["away_seconds"] == 300
    plain = {"seats": [HUMAN, HUMAN]}
    made = client.post(f"/api/groups/{group}/tables", json=plain, headers=auth(ana_secret))
    assert client.get(f"/api/tables/{made.json()['code']}").json()["absence"]["away_seconds"] == 120
    refused = client.post(
        f"/api/groups/{group}/tables", json={**plain, "away_seconds": 1}, headers=auth(ana_secret)
    )
    assert refused.status_code == 422
    assert refused.json()["error"]["code"] == "bad_request"


def test_an_owner_who_leaves_hands_the_invite_to_the_members(make_client: Any) -> None:
    """Else nobody could ever invite anyone again: the members left behind manage it, as when
    the owner's profile is deleted."""
    client = make_client()
    group, (_ana, ana_secret), (_ben, ben_secret) = two_members(client)
    assert client.post(f"/api/groups/{group}/leave", headers=auth(ana_secret)).json() == {
        "left": True
    }
    page = client.get(f"/api/groups/{group}", headers=auth(ben_secret)).json()
    assert page["group"]["owner"] is True
    assert [m["name"] for m in page["members"]] == ["Ben"]
    token = invite(client, group, ben_secret)
    _cy, cy_secret = make_profile(client, "Cy")
    joined = client.post("/api/groups/join", json={"invite": token}, headers=auth(cy_secret))
    assert joined.status_code == 200, joined.text
    assert client.get(f"/api/groups/{group}", headers=auth(ana_secret)).status_code == 404


LONG_NAME = "\U0001f469\u200d\U0001f469\u200d\U0001f467\u200d\U0001f466" * 24
"""A name of 24 characters (the most a name has) that takes 168 code points: every column that
stores a name holds it (PostgreSQL counts a VARCHAR's length in code points)."""


def test_the_longest_names_are_stored_wherever_a_name_goes(make_client: Any) -> None:
    client = make_client(deal_seed=1)
    _ana, ana_secret = make_profile(client, LONG_NAME)
    _ben, ben_secret = make_profile(client, "Ben")
    group = open_group(client, ana_secret, name=LONG_NAME)
    joined = client.post(
        "/api/groups/join",
        json={"invite": invite(client, group, ana_secret)},
        headers=auth(ben_secret),
    )
    assert joined.status_code == 200, joined.text
    code = play_group_table(client, group, ana_secret, ben_secret)
    page = group_page_with_games(client, group, ana_secret, 1)
    assert page["group"]["name"] == LONG_NAME
    assert sorted(line["name"] for line in page["standings"]) == sorted([LONG_NAME, "Ben"])
    assert page["recent"][0]["players"][0]["name"] == LONG_NAME
    summary = client.get(f"/api/tables/{code}").json()
    assert summary["seats"][0]["name"] == LONG_NAME

    made = client.post("/api/tables", json={"seats": [HUMAN, BOT], "name": LONG_NAME})
    assert made.status_code == 201, made.text
    with client.websocket_connect(f"/ws/{made.json()['code']}?token={made.json()['token']}") as ws:
        ws.send_json({"type": "say", "text": "Hello", "request_id": 1})
        line = receive_until(ws, lambda message: message.get("type") == "talk")
        assert line["request_id"] == 1 and line["line"]["name"] == LONG_NAME
