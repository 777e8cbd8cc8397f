"""A web table never starts a program: ``cmd:COMMAND`` bots exist for the command line only.

``make_bot`` accepts ``cmd:COMMAND``; the server must refuse such a name wherever a person may
name a bot (creating a table, leaving a seat), or anyone on the internet could run commands.
"""

from __future__ import annotations

from collections.abc import Callable

from fastapi.testclient import TestClient
from tests.server.server_helpers import create_table

PROGRAM = "cmd:touch /tmp/nimmt-should-never-exist"


def test_a_table_with_a_program_bot_is_refused(make_client: Callable[..., TestClient]) -> None:
    client = make_client()
    answer = client.post(
        "/api/tables", json={"seats": [{"kind": "human"}, {"kind": "bot", "bot": PROGRAM}]}
    )
    assert answer.status_code == 422
    assert answer.json()["error"]["code"] == "unknown_bot"


def test_leaving_for_a_program_bot_is_refused(make_client: Callable[..., TestClient]) -> None:
    client = make_client()
    code, token = create_table(client, [{"kind": "human"}, {"kind": "bot", "bot": "greedy"}])
    answer = client.post(f"/api/tables/{code}/leave", json={"token": token, "bot": PROGRAM})
    assert answer.status_code == 422
    assert answer.json()["error"]["code"] == "unknown_bot"
