"""A person's history with the coach's post-game review: once somebody asks for the review of
their seat in a finished game (``GET /api/tables/{code}/analysis``), the history shows, for
that game, the bullheads lost to their own decisions, and the totals add up the reviewed games;
a game nobody asked about shows none. On every storage (in memory, SQLite, PostgreSQL)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from starlette.testclient import TestClient
from tests.server import people_storage
from tests.server.profiles.test_profiles import BOT, HUMAN, auth, make_profile
from tests.server.server_helpers import Message, play_seat, service_of
from tests.waiting import wait_until

from nimmt.engine import SeatView

# Every test here runs on each storage: in memory, SQLite and PostgreSQL.
make_client = people_storage.make_client


class FixedReviews:
    """A coach whose reviews are known in advance: their total losses, in the order asked.
    Computing real reviews is the coach's own tests' business (tests/server/coach)."""

    def __init__(self, losses: list[float]) -> None:
        self.losses = list(losses)
        self.asked = 0

    async def start(self) -> None:
        pass

    async def analyze(self, view: SeatView, seed: int) -> dict[str, Any]:
        raise AssertionError("no live question in this test")

    async def review(self, record: Mapping[str, Any], seat: int) -> dict[str, Any]:
        loss = self.losses[self.asked]
        self.asked += 1
        return {"seat": seat, "name": record["players"][seat], "decisions": [], "total_loss": loss}

    async def close(self) -> None:
        pass


def play_a_game(client: TestClient, secret: str) -> str:
    """Ana, signed in, plays a table against a bot to its end; the table's code."""
    made = client.post(
        "/api/tables", json={"seats": [HUMAN, BOT], "name": "Ana"}, headers=auth(secret)
    )
    assert made.status_code == 201, made.text
    code: str = made.json()["code"]
    with client.websocket_connect(f"/ws/{code}?token={made.json()['token']}") as ws:
        play_seat(ws, [], min)
    return code


def history_with(client: TestClient, secret: str, games: int) -> Message:
    def counted() -> Message | None:
        answer: Message = client.get("/api/profile/history", headers=auth(secret)).json()
        return answer if answer["totals"]["games"] >= games else None

    found = wait_until(counted, message=f"the history never counted {games} games")
    assert found is not None
    return found


def test_the_history_shows_the_bullheads_lost_to_decisions_once_reviewed(
    make_client: Any,
) -> None:
    client = make_client()
    coach = FixedReviews([4.25, 1.5])
    service_of(client).coach.runner = coach
    _ana, secret = make_profile(client, "Ana")
    first = play_a_game(client, secret)
    second = play_a_game(client, secret)
    before = history_with(client, secret, 2)
    assert [game["decision_loss"] for game in before["games"]] == [None, None]
    assert before["totals"]["reviewed_games"] == 0
    assert before["totals"]["decision_loss"] is None

    answer = client.get(f"/api/tables/{first}/analysis?seat=0")
    assert answer.status_code == 200 and answer.json()["total_loss"] == 4.25
    after = client.get("/api/profile/history", headers=auth(secret)).json()
    by_table = {game["table"]: game["decision_loss"] for game in after["games"]}
    assert by_table == {first: 4.25, second: None}
    assert after["totals"]["reviewed_games"] == 1
    assert after["totals"]["decision_loss"] == 4.25

    # The bot's seat of the second game is reviewed: not Ana's decisions, nothing changes.
    assert client.get(f"/api/tables/{second}/analysis?seat=1").status_code == 200
    unchanged = client.get("/api/profile/history", headers=auth(secret)).json()
    assert {game["table"]: game["decision_loss"] for game in unchanged["games"]} == by_table
    assert coach.asked == 2
