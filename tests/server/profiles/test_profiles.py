"""Profiles without passwords, through the real HTTP routes: made in one step, the secret kept
hashed, renamed, moved to another device by a one-time link, a device signed out, deleted (the
games it played keep their moves, its name becomes "a former player")."""

from __future__ import annotations

import hashlib
import json
from datetime import timedelta
from typing import Any

from sqlalchemy import create_engine, text
from starlette.testclient import TestClient
from tests.server import people_storage
from tests.server.server_helpers import join, service_of

from nimmt.server.settings import normalize_database_url
from nimmt.server.storage import SqlStorage
from nimmt.server.storage.people import FORMER_PLAYER

# Every test here runs on each storage: in memory, SQLite and PostgreSQL.
make_client = people_storage.make_client
database_url = people_storage.database_url

Message = dict[str, Any]
HUMAN = {"kind": "human"}
BOT = {"kind": "bot", "bot": "greedy"}


def auth(secret: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {secret}"}


def make_profile(client: TestClient, name: str = "Ana") -> tuple[Message, str]:
    answer = client.post("/api/profile", json={"name": name, "emoji": "🐮", "colour": "#1f5a45"})
    assert answer.status_code == 201, answer.text
    return answer.json()["profile"], answer.json()["secret"]


def test_a_profile_is_made_in_one_step_and_signs_in_its_device(make_client: Any) -> None:
    client = make_client()
    profile, secret = make_profile(client, "  Ana  ")
    assert profile["name"] == "Ana"
    mine = client.get("/api/profile", headers=auth(secret))
    assert mine.status_code == 200
    assert mine.json()["profile"] == profile
    assert [device["current"] for device in mine.json()["devices"]] == [True]


def test_requests_without_a_working_secret_are_refused(make_client: Any) -> None:
    client = make_client()
    make_profile(client)
    for headers in ({}, auth("not-a-secret"), {"Authorization": "Basic abc"}):
        answer = client.get("/api/profile", headers=headers)
        assert answer.status_code == 401
        assert answer.json()["error"]["code"] == "no_profile"


def test_a_bad_name_or_avatar_makes_no_profile(make_client: Any) -> None:
    client = make_client()
    for body, code in (
        ({"name": "", "emoji": "🐮", "colour": "#1f5a45"}, "bad_name"),
        ({"name": "Ana", "emoji": "<b>", "colour": "#1f5a45"}, "bad_avatar"),
        ({"name": "Ana", "emoji": "🐮", "colour": "red"}, "bad_avatar"),
    ):
        answer = client.post("/api/profile", json=body)
        assert answer.status_code == 422
        assert answer.json()["error"]["code"] == code


def test_rename_and_new_avatar(make_client: Any) -> None:
    client = make_client()
    _profile, secret = make_profile(client)
    answer = client.patch(
        "/api/profile", json={"name": "Ana B.", "emoji": "🦊"}, headers=auth(secret)
    )
    assert answer.status_code == 200
    assert answer.json()["profile"]["name"] == "Ana B."
    assert answer.json()["profile"]["emoji"] == "🦊"
    assert answer.json()["profile"]["colour"] == "#1f5a45"
    assert client.get("/api/profile", headers=auth(secret)).json()["profile"]["name"] == "Ana B."


def test_a_device_link_signs_in_another_device_once(make_client: Any) -> None:
    client = make_client()
    profile, secret = make_profile(client)
    made = client.post("/api/profile/link", headers=auth(secret))
    assert made.status_code == 201
    link = made.json()
    assert link["url"].endswith(f"/me/link?token={link['link']}")
    assert link["qr"].startswith("data:image/svg+xml")
    redeemed = client.post("/api/profile/redeem", json={"link": link["link"]})
    assert redeemed.status_code == 200
    other = redeemed.json()["secret"]
    assert other != secret
    assert redeemed.json()["profile"]["id"] == profile["id"]
    devices = client.get("/api/profile", headers=auth(other)).json()["devices"]
    assert [device["current"] for device in devices] == [False, True]
    again = client.post("/api/profile/redeem", json={"link": link["link"]})
    assert again.status_code == 410
    assert again.json()["error"]["code"] == "bad_link"


def test_a_device_link_expires(make_client: Any) -> None:
    client = make_client()
    _profile, secret = make_profile(client)
    link = client.post("/api/profile/link", headers=auth(secret)).json()["link"]
    book = service_of(client).book
    now = book.clock()
    book.clock = lambda: now + timedelta(minutes=5, seconds=1)
    answer = client.post("/api/profile/redeem", json={"link": link})
    assert answer.status_code == 410
    assert answer.json()["error"]["code"] == "bad_link"


def test_signing_out_a_device_stops_its_secret_at_once(make_client: Any) -> None:
    client = make_client()
    _profile, secret = make_profile(client)
    link = client.post("/api/profile/link", headers=auth(secret)).json()["link"]
    other = client.post("/api/profile/redeem", json={"link": link}).json()["secret"]
    devices = client.get("/api/profile", headers=auth(secret)).json()["devices"]
    phone = next(device["id"] for device in devices if not device["current"])
    answer = client.delete(f"/api/profile/devices/{phone}", headers=auth(secret))
    assert answer.status_code == 200
    assert client.get("/api/profile", headers=auth(other)).status_code == 401
    assert client.get("/api/profile", headers=auth(secret)).status_code == 200
    missing = client.delete(f"/api/profile/devices/{phone}", headers=auth(secret))
    assert missing.json()["error"]["code"] == "device_not_found"


def test_playing_without_a_profile_is_unchanged(make_client: Any) -> None:
    client = make_client()
    made = client.post("/api/tables", json={"seats": [HUMAN, HUMAN], "name": "Ana"})
    assert made.status_code == 201
    join(client, made.json()["code"], "Ben")
    # A secret that signs in nobody (a device signed out) does not stop anybody from playing.
    other = client.post(
        "/api/tables", json={"seats": [HUMAN, BOT], "name": "Cy"}, headers=auth("gone")
    )
    assert other.status_code == 201


def test_deleting_a_profile_leaves_its_games_under_a_former_players_name(
    make_client: Any, database_url: str
) -> None:
    url = normalize_database_url(database_url)
    client = make_client(storage=SqlStorage(url))
    _profile, secret = make_profile(client)
    made = client.post(
        "/api/tables", json={"seats": [HUMAN, HUMAN], "name": "Ana"}, headers=auth(secret)
    ).json()
    join(client, made["code"], "Ben")
    names = [seat["name"] for seat in client.get(f"/api/tables/{made['code']}").json()["seats"]]
    assert names == ["Ana", "Ben"]
    engine = create_engine(url)
    with engine.connect() as connection:
        stored = connection.execute(text("select secret_hash from profile_devices")).scalars()
        assert list(stored) == [hashlib.sha256(secret.encode()).hexdigest()]
    assert client.delete("/api/profile", headers=auth(secret)).json() == {"deleted": True}
    assert client.get("/api/profile", headers=auth(secret)).status_code == 401
    names = [seat["name"] for seat in client.get(f"/api/tables/{made['code']}").json()["seats"]]
    assert names == [FORMER_PLAYER, "Ben"]
    with engine.connect() as connection:
        seats = connection.execute(text("select name from seats order by seat")).scalars()
        assert list(seats) == [FORMER_PLAYER, "Ben"]
        joins = connection.execute(
            text("select seat, data from actions where kind = 'join' order by seq")
        ).all()
        # The data column is JSON on PostgreSQL (a dict here), text on SQLite.
        datas = [
            (seat, data if isinstance(data, dict) else json.loads(data)) for seat, data in joins
        ]
        assert [(seat, data["name"]) for seat, data in datas] == [
            (0, FORMER_PLAYER),
            (1, "Ben"),
        ]
        raw = " ".join(str(row) for row in connection.execute(text("select * from actions")))
        assert "Ana" not in raw
        assert connection.execute(text("select count(*) from profiles")).scalar() == 0
        assert connection.execute(text("select count(*) from seat_profiles")).scalar() == 0
    engine.dispose()
