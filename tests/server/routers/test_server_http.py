"""The JSON API and the pages through the real app: tables, seats, records, rules, 404s."""

from __future__ import annotations

from pathlib import Path

import pytest
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect
from tests.server.profiles.test_profiles import auth, make_profile
from tests.server.server_helpers import create_table

from nimmt.bots import BOT_NAMES
from nimmt.server.table import CODE_ALPHABET

HUMAN = {"kind": "human"}
GREEDY = {"kind": "bot", "bot": "greedy"}


def error_of(answer: object) -> str:
    body = answer.json()  # type: ignore[attr-defined]
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message"}, body
    code: str = body["error"]["code"]
    return code


@pytest.fixture
def client(make_client) -> TestClient:  # type: ignore[no-untyped-def]
    made: TestClient = make_client()
    return made


def test_health_and_bots(client: TestClient) -> None:
    assert client.get("/healthz").json() == {"status": "ok"}
    assert [bot["name"] for bot in client.get("/api/bots").json()["bots"]] == list(BOT_NAMES)


def test_create_a_table(client: TestClient) -> None:
    answer = client.post("/api/tables", json={"seats": [HUMAN, GREEDY, HUMAN]})
    assert answer.status_code == 201
    body = answer.json()
    assert set(body) == {"code", "url"} and body["url"] == f"/t/{body['code']}"
    assert len(body["code"]) == 6 and set(body["code"]) <= set(CODE_ALPHABET)
    summary = client.get(f"/api/tables/{body['code'].lower()}").json()  # any letter case
    assert summary["phase"] == "waiting" and summary["round"] == 0 and not summary["finished"]
    assert summary["seats"][1] == {
        "seat": 1, "kind": "bot", "name": "Bot 2 (greedy)", "bot": "greedy",
        "bot_name": {"bot": "greedy", "number": 2}, "occupied": True, "connected": True,
    }  # fmt: skip
    assert summary["seats"][0]["occupied"] is False and summary["seats"][0]["name"] is None

    with_name = client.post("/api/tables", json={"seats": [HUMAN, HUMAN], "name": " Ana "})
    assert with_name.status_code == 201
    assert with_name.json()["seat"] == 0 and len(with_name.json()["token"]) >= 32
    seats = client.get(f"/api/tables/{with_name.json()['code']}").json()["seats"]
    assert seats[0]["name"] == "Ana" and seats[0]["occupied"] and not seats[0]["connected"]


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"seats": [HUMAN]}, "bad_request"),
        ({"seats": [HUMAN] * 11}, "bad_request"),
        ({"seats": [GREEDY, GREEDY]}, "bad_request"),
        ({"seats": [HUMAN, {"kind": "bot", "bot": "oracle"}]}, "unknown_bot"),
        ({"seats": [HUMAN, {"kind": "alien"}]}, "bad_request"),
        ({"seats": "two"}, "bad_request"),
        ({"seats": [HUMAN, HUMAN], "name": "   "}, "bad_name"),
        ({"seats": [HUMAN, HUMAN], "name": "x" * 25}, "bad_name"),
        # A bot's name at the table: the creator could not take a seat by it.
        ({"seats": [HUMAN, GREEDY], "name": "bot 2 (GREEDY)"}, "bad_name"),
        # Values are taken as typed, never coerced.
        ({"seats": [HUMAN, HUMAN], "coach": "yes"}, "bad_request"),
        ({"seats": [HUMAN, HUMAN], "coach": 1}, "bad_request"),
        ({"seats": [HUMAN, HUMAN], "away_seconds": "300"}, "bad_request"),
        ({"seats": [HUMAN, HUMAN], "name": 7}, "bad_request"),
    ],
)
def test_a_bad_table_is_refused_and_not_created(
    client: TestClient, body: object, code: str
) -> None:
    answer = client.post("/api/tables", json=body)
    assert answer.status_code == 422 and error_of(answer) == code
    assert client.get("/api/tables").json()["tables"] == []


def test_join_and_list(client: TestClient) -> None:
    code, _ana = create_table(client, [HUMAN, GREEDY, HUMAN, HUMAN], "Ana")
    listed = client.get("/api/tables").json()["tables"]
    assert [(t["code"], t["seats"], t["free_seats"], t["humans"], t["phase"], t["round"])
            for t in listed] == [(code, 4, 2, ["Ana"], "waiting", 0)]  # fmt: skip
    refusals = [
        ({"name": "ana"}, 422, "bad_name"),  # names are told apart in any letter case
        ({"name": "bot 2 (GREEDY)"}, 422, "bad_name"),
        ({"name": "tab\there"}, 200, None),  # whitespace is folded, not refused
        ({"name": "bell\u0007"}, 422, "bad_name"),
        ({"name": "Cleo", "seat": 0}, 409, "seat_taken"),
        ({"name": "Cleo", "seat": 1}, 409, "seat_taken"),  # a bot's seat
        ({"name": "Cleo", "seat": 9}, 422, "bad_request"),
        ({"seat": 3}, 422, "bad_request"),
        ({"name": "Cleo", "seat": "3"}, 422, "bad_request"),  # taken as typed
    ]
    for body, status, error in refusals:
        answer = client.post(f"/api/tables/{code}/join", json=body)
        assert answer.status_code == status, (body, answer.text)
        if error is not None:
            assert error_of(answer) == error
    seats = client.get(f"/api/tables/{code}").json()["seats"]
    assert [seat["name"] for seat in seats] == ["Ana", "Bot 2 (greedy)", "tab here", None]
    answer = client.post(f"/api/tables/{code}/join", json={"name": "Dan", "seat": 3})
    assert answer.json()["seat"] == 3
    assert client.get(f"/api/tables/{code}").json()["phase"] == "choosing_cards"
    full = client.post(f"/api/tables/{code}/join", json={"name": "Eve"})
    assert full.status_code == 409 and error_of(full) == "table_full"
    listed = client.get("/api/tables").json()["tables"]
    assert listed[0]["free_seats"] == 0 and listed[0]["phase"] == "choosing_cards"
    assert listed[0]["round"] == 1

    record = client.get(f"/api/tables/{code}/record")
    assert record.status_code == 409 and error_of(record) == "game_not_finished"
    rematch = client.post(f"/api/tables/{code}/rematch", json={"token": _ana})
    assert rematch.status_code == 409 and error_of(rematch) == "wrong_phase"


def message_of(answer: object) -> str:
    error_of(answer)
    message: str = answer.json()["error"]["message"]  # type: ignore[attr-defined]
    return message


def test_refusals_echo_codes_and_names_plainly(client: TestClient) -> None:
    long = "nope-" + "x" * 300
    assert message_of(client.get(f"/api/tables/{long}")) == "There is no table nope-xxxxxxxxxxx…."
    assert message_of(client.get("/api/tables/ab%0Acd")) == "There is no table ab?cd."
    with client.websocket_connect(f"/ws/{long}") as ws:
        assert ws.receive_json()["message"] == "There is no table nope-xxxxxxxxxxx…."
    name = 'O\'Neil "Zo\\ë"'
    code, ana = create_table(client, [HUMAN, HUMAN, HUMAN], name)
    again = client.post(f"/api/tables/{code}/join", json={"name": name.upper()})
    assert message_of(again) == f"The name {name.upper()} is already at this table: choose another."
    with client.websocket_connect(f"/ws/{code}?token={ana}") as ws:
        ws.send_json({"type": "y" * 100, "request_id": 1})
        refusal = ws.receive_json()
        while refusal["type"] != "error":
            refusal = ws.receive_json()
    assert refusal["message"] == 'There is no message type "yyyyyyyyyyyyyyyy…".'


def test_unknown_tables_and_routes(client: TestClient) -> None:
    for path in ("/api/tables/ABCDEF", "/api/tables/nope!", "/api/tables/ABCDEF/record"):
        answer = client.get(path)
        assert answer.status_code == 404 and error_of(answer) == "table_not_found"
    join_answer = client.post("/api/tables/ABCDEF/join", json={"name": "Ana"})
    assert join_answer.status_code == 404 and error_of(join_answer) == "table_not_found"
    answer = client.get("/api/nothing")
    assert answer.status_code == 404 and error_of(answer) == "not_found"
    assert client.get("/api/tables/ABCDEF/join").status_code == 405
    with client.websocket_connect("/ws/ABCDEF") as ws:
        assert ws.receive_json()["code"] == "table_not_found"
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
    assert closed.value.code == 4404


@pytest.fixture
def web_dir(tmp_path: Path) -> Path:
    for name, text in {
        "static/index.html": "<title>start</title>",
        "static/app.js": "console.log(1)",
        "secret.txt": "outside static",
    }.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    return tmp_path


def test_pages_are_served_from_the_client_files(make_client, web_dir: Path) -> None:  # type: ignore[no-untyped-def]
    client: TestClient = make_client(web_dir=web_dir)
    code, _token = create_table(client, [HUMAN, HUMAN])
    assert client.get("/").text == "<title>start</title>"
    assert client.get(f"/t/{code}").text == "<title>start</title>"
    assert client.get("/static/app.js").text == "console.log(1)"
    for path in ("/t/ABCDEF", "/nowhere", "/static/missing.css", "/static/../secret.txt",
                 "/static/%2e%2e/secret.txt", "/rules/xx"):  # fmt: skip
        answer = client.get(path)
        assert answer.status_code == 404, path
        assert answer.headers["content-type"].startswith("text/html")
        assert answer.text == "<title>start</title>"  # the app, which says what is missing
    # A file written after the start is served at once.
    (web_dir / "static" / "later.css").write_text("main { color: red }")
    assert client.get("/static/later.css").text == "main { color: red }"
    # Without the rules pages' template and texts, the rules pages are missing, not broken.
    answer = client.get("/rules/fr")
    assert answer.status_code == 404 and answer.text == "<title>start</title>"
    redirects = {
        "de-CH, de;q=0.9, en;q=0.5": "/rules/de",
        "fr;q=0.4, en;q=0.6": "/rules/en",
        "es, fr;q=0.2": "/rules/fr",
        "": "/rules/en",
    }
    for header, target in redirects.items():
        answer = client.get("/rules", headers={"accept-language": header}, follow_redirects=False)
        assert answer.status_code == 307 and answer.headers["location"] == target


def test_a_group_page_for_a_code_no_group_can_have_is_404(make_client, web_dir: Path) -> None:  # type: ignore[no-untyped-def]
    client: TestClient = make_client(web_dir=web_dir)
    _profile, secret = make_profile(client)
    made = client.post("/api/groups", json={"name": "Thursdays"}, headers=auth(secret))
    group = made.json()["group"]["code"]
    # The group's page, in any case; and a code a group could have, existing or not: the page's
    # status does not tell a stranger which codes are groups (the page asks the API, which says).
    unknown = group[:-1] + ("A" if group[-1] != "A" else "B")
    for code in (group, group.lower(), unknown):
        answer = client.get(f"/g/{code}")
        assert answer.status_code == 200 and answer.text == "<title>start</title>", code
    for code in ("XXXX", group + "A", group[:-1] + "O", group[:-1] + "!", "%20" * 8):
        answer = client.get(f"/g/{code}")
        assert answer.status_code == 404, code
        assert answer.headers["content-type"].startswith("text/html")
        assert answer.text == "<title>start</title>"  # the app, which says what is missing


def test_a_readable_404_without_the_client_page(make_client, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    client: TestClient = make_client(web_dir=tmp_path)
    for path in ("/", "/t/ABCDEF", "/rules/en", "/anything"):
        answer = client.get(path)
        assert answer.status_code == 404
        assert answer.headers["content-type"].startswith("text/html")
        assert "Back to the start page" in answer.text
