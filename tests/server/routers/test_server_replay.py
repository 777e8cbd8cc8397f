"""The replay viewer's and board view's routes through the real app: a finished game's steps, a
running game refused, a record file's steps (and every way it can be refused), the pages and
the table's QR code."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from tests.server.server_helpers import create_table, play_seat

from nimmt.engine import bullheads
from nimmt.records import replay_record
from nimmt.server.replay import replay_steps

GOLDEN = Path(__file__).parents[2] / "records" / "golden"
SEATS = [{"kind": "human"}, {"kind": "bot", "bot": "greedy"}, {"kind": "bot", "bot": "random"}]


def error_of(answer: Any) -> str:
    body = answer.json()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message"}, body
    code: str = body["error"]["code"]
    return code


def finish_game(client: TestClient, code: str, token: str) -> None:
    """Ana plays her lowest card and takes the cheapest row until the game is over."""
    with client.websocket_connect(f"/ws/{code}?token={token}") as ws:
        play_seat(ws, [], min)


@pytest.fixture
def client(make_client: Any) -> TestClient:
    made: TestClient = make_client(deal_seed=5)
    return made


def test_a_running_game_is_refused_and_a_finished_one_is_stepped_through(
    client: TestClient,
) -> None:
    code, token = create_table(client, SEATS)
    running = client.get(f"/api/tables/{code}/replay")
    assert running.status_code == 409 and error_of(running) == "game_not_finished"
    assert "hand" in running.json()["error"]["message"]
    assert error_of(client.get("/api/tables/ZZZZZZ/replay")) == "table_not_found"

    finish_game(client, code, token)
    record = client.get(f"/api/tables/{code}/record").json()
    answer = client.get(f"/api/tables/{code}/replay")
    assert answer.status_code == 200
    replay = answer.json()
    assert replay["meta"] == {"table": code, "game": 1}
    assert replay["players"] == record["players"] and replay["finished"] is True
    summary = replay_record(record).summary()
    assert replay["winners"] == summary["winners"]

    steps = replay["steps"]
    rounds = record["rounds"]
    # One deal, ten turns and the score sheet per round, in order.
    assert [(s["kind"], s["round"], s["turn"]) for s in steps] == [
        entry
        for number in range(1, len(rounds) + 1)
        for entry in [
            ("deal", number, 0),
            *(("turn", number, turn) for turn in range(1, 11)),
            ("scored", number, 10),
        ]
    ]
    for index, step in enumerate(steps):
        entry = rounds[step["round"] - 1]
        dealt = entry["hands"]
        if step["kind"] == "deal":
            assert step["rows"] == entry["rows"]
            assert step["hands"] == [sorted(hand) for hand in dealt]
            continue
        if step["kind"] == "turn":
            turn = entry["turns"][step["turn"] - 1]
            assert step["revealed"] == turn["cards"] and step["row_chosen"] == turn.get("row")
            assert step["rows_before"] == steps[index - 1]["rows"]
            played = [t["cards"] for t in entry["turns"][: step["turn"] - 1]]
            assert step["hands"] == [
                sorted(set(hand) - {cards[seat] for cards in played})
                for seat, hand in enumerate(dealt)
            ]
            kinds = [event["type"] for event in step["events"]]
            assert kinds[0] == "cards_revealed" and kinds.count("card_placed") == len(SEATS)
            taken = [e for e in step["events"] if e["type"] == "row_taken"]
            before = steps[index - 1]
            for seat in range(len(SEATS)):
                took = sum(e["bullheads"] for e in taken if e["seat"] == seat)
                assert step["penalties"][seat] == before["penalties"][seat] + took
                assert step["totals"][seat] == before["totals"][seat] + took
            for event in taken:
                assert event["bullheads"] == sum(bullheads(card) for card in event["cards"])
            # No card is lost: the rows after and the cards taken are the rows before and the
            # cards revealed.
            after = [c for row in step["rows"] for c in row] + [
                c for event in taken for c in event["cards"]
            ]
            assert sorted(after) == sorted(
                [c for row in before["rows"] for c in row] + turn["cards"]
            )
        else:
            done = summary["rounds"][step["round"] - 1]
            assert step["rows"] == done["rows"] and step["totals"] == done["totals"]
            assert step["score_sheet"][-1] == done["penalties"]
            assert step["penalties"] == [0] * len(SEATS)
    final = steps[-1]
    assert final["outcome"] == {"totals": summary["totals"], "winners": summary["winners"]}
    assert [e["type"] for e in final["events"]] == ["round_scored", "game_over"]
    assert all(step["outcome"] is None for step in steps[:-1])

    # The same record sent as a file gives the same steps.
    posted = client.post("/api/replay", content=json.dumps(record))
    assert posted.status_code == 200
    assert posted.json() == {key: value for key, value in replay.items() if key != "meta"}


def test_a_record_file_that_stops_mid_round_is_stepped_through(client: TestClient) -> None:
    text = (GOLDEN / "worked_example.json").read_text()
    expected = json.loads((GOLDEN / "worked_example.expected.json").read_text())
    answer = client.post("/api/replay", content=text.encode())
    assert answer.status_code == 200
    replay = answer.json()
    assert replay["finished"] is False and replay["winners"] == []
    steps = replay["steps"]
    assert [(s["kind"], s["turn"]) for s in steps] == [
        ("deal", 0),
        *(("turn", n) for n in (1, 2, 3)),
    ]
    last = steps[-1]
    assert last["rows"] == expected["rounds"][0]["rows"]
    assert last["penalties"] == expected["rounds"][0]["penalties"] == last["totals"]
    # Ana's 3 was below every row: she took row 2 (index 1), 37, for 1 bullhead.
    assert last["row_chosen"] == 1
    taken = [e for e in last["events"] if e["type"] == "row_taken"]
    assert taken[0] == {
        "type": "row_taken", "seat": 0, "row": 1, "cards": [37], "bullheads": 1, "chosen": True,
    }  # fmt: skip


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"{nope", "not valid JSON"),
        (b"[1, 2]", "a game record is a JSON object"),
        (b'{"format": "6nimmt-record", "version": 2}', "record version 2 is not supported"),
        (b"\xff\xfe", "not a text file"),
        (b"", "not valid JSON"),
    ],
)
def test_a_bad_record_file_is_refused_with_its_reason(
    client: TestClient, body: bytes, message: str
) -> None:
    answer = client.post("/api/replay", content=body)
    assert answer.status_code == 422 and error_of(answer) == "bad_record"
    assert message in answer.json()["error"]["message"]


def test_a_record_breaking_the_rules_names_the_place(client: TestClient) -> None:
    record = json.loads((GOLDEN / "worked_example.json").read_text())
    record["rounds"][0]["turns"][1]["cards"][1] = 55
    answer = client.post("/api/replay", json=record)
    assert answer.status_code == 422 and error_of(answer) == "bad_record"
    assert answer.json()["error"]["message"] == (
        "round 1, turn 2: Ben played 55, which is not in their hand"
    )


def test_record_files_have_a_larger_limit_than_other_bodies(make_client: Any) -> None:
    client = make_client(max_body_bytes=1000, max_record_bytes=4000)
    text = (GOLDEN / "worked_example.json").read_text()
    padded = text.rstrip()[:-1] + ', "meta": {"note": "' + "x" * 1500 + '"}}'
    assert 1000 < len(padded) < 4000
    assert client.post("/api/replay", content=padded).status_code == 200
    too_big = client.post("/api/replay", content=padded + " " * 3000)
    assert too_big.status_code == 413 and error_of(too_big) == "too_large"
    other = client.post(
        "/api/tables", content=" " * 1500, headers={"content-type": "application/json"}
    )
    assert other.status_code == 413


def test_pages_and_qr_code(client: TestClient) -> None:
    code, _token = create_table(client, SEATS)
    for path in (f"/t/{code}/replay", f"/t/{code}/board", f"/t/{code.lower()}/board", "/replay"):
        page = client.get(path)
        assert page.status_code == 200 and "<html" in page.text, path
    for path in ("/t/ZZZZZZ/replay", "/t/ZZZZZZ/board"):
        assert client.get(path).status_code == 404
    # The table's first game is a page (it says the game is still being played); a game the
    # table never had is the readable 404 page, the app itself.
    app_page = client.get(f"/t/{code}/replay").text
    for game in ("1", ""):
        assert client.get(f"/t/{code}/replay?game={game}").status_code == 200, game
    for game in ("2", "0", "-1", "x", "1.5", "99999999999999999999"):
        answer = client.get(f"/t/{code}/replay?game={game}")
        assert answer.status_code == 404 and answer.text == app_page, game
    qr = client.get(f"/t/{code.lower()}/qr.svg")
    assert qr.status_code == 200 and qr.headers["content-type"] == "image/svg+xml"
    assert "Content-Security-Policy" in qr.headers
    assert f"<title>http://testserver/t/{code}</title>" in qr.text and "<path" in qr.text
    assert client.get("/t/ZZZZZZ/qr.svg").status_code == 404


def test_the_client_tests_fixture_is_the_engine_replay_of_the_golden_game() -> None:
    """tests/js/fixtures/full_game.replay.json, which the client's node tests step through, is
    exactly what the server answers for tests/records/golden/full_game.json. After a deliberate
    change, write it again with ``replay_steps`` (one step per line)."""
    fixture = Path(__file__).parents[2] / "js" / "fixtures" / "full_game.replay.json"
    expected = json.loads(json.dumps(replay_steps((GOLDEN / "full_game.json").read_text())))
    assert json.loads(fixture.read_text()) == expected


def test_an_earlier_game_stays_replayable_after_a_rematch(client: TestClient) -> None:
    code, token = create_table(client, SEATS)
    finish_game(client, code, token)
    first = client.get(f"/api/tables/{code}/replay").json()
    assert client.post(f"/api/tables/{code}/rematch", json={"token": token}).status_code == 200
    running = client.get(f"/api/tables/{code}/replay")  # game 2 is being played
    assert running.status_code == 409 and error_of(running) == "game_not_finished"
    earlier = client.get(f"/api/tables/{code}/replay?game=1")
    assert earlier.status_code == 200 and earlier.json() == first
    missing = client.get(f"/api/tables/{code}/replay?game=3")
    assert missing.status_code == 404 and error_of(missing) == "game_not_found"
