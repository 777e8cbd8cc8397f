"""The server on PostgreSQL: a throwaway PostgreSQL 15 cluster is started in a temporary
directory, the migrations run against it, a short game is played through the app to its end, and
a second app on the same database finds the table exactly as it was left."""

from __future__ import annotations

from alembic.script import ScriptDirectory
from sqlalchemy import create_engine, text
from starlette.testclient import TestClient
from tests.server.server_helpers import create_table

from nimmt.records import replay_record
from nimmt.server import Settings, create_app
from nimmt.server.storage import MIGRATIONS_DIR


def test_migrations_and_a_game_on_postgresql(postgres_url: str) -> None:
    settings = Settings(
        db=postgres_url,
        bot_delay=0,
        deal_seed=4,
        socket_rate=10_000,
        socket_burst=10_000,
        allowed_hosts=["testserver"],
    )
    assert settings.db.startswith("postgresql+psycopg://")
    seats = [{"kind": "human"}, {"kind": "bot", "bot": "greedy"}]
    with TestClient(create_app(settings)) as client:
        code, token = create_table(client, seats, "Ana")
        with client.websocket_connect(f"/ws/{code}?token={token}") as ws:
            acted: set[tuple[object, ...]] = (
                set()
            )  # one decision per turn: later states of the same turn are old news
            while True:
                message = ws.receive_json()
                assert message["type"] in ("state", "events"), message
                if message["type"] != "state":
                    continue
                view, version = message["view"], message["version"]
                if view["phase"] == "game_over":
                    break
                key = (view["round"], view["turn"], view["phase"])
                if key in acted:
                    continue
                if view["legal_cards"]:
                    acted.add(key)
                    ws.send_json(
                        {"type": "play", "card": view["legal_cards"][-1], "version": version}
                    )
                elif view["must_choose_row"]:
                    acted.add(key)
                    ws.send_json({"type": "choose_row", "row": 1, "version": version})
        record = client.get(f"/api/tables/{code}/record").json()
        summary = client.get(f"/api/tables/{code}").json()
    assert replay_record(record).finished
    assert view["outcome"]["totals"] == list(replay_record(record).totals)

    # Started again on the same database: the migrations are already there, the table too.
    with TestClient(create_app(settings)) as client:
        assert client.get(f"/api/tables/{code}/record").json() == record
        assert client.get(f"/api/tables/{code}").json() == summary
    engine = create_engine(settings.db)
    with engine.connect() as connection:
        version = connection.execute(text("select version_num from alembic_version")).scalar()
        assert version == ScriptDirectory(str(MIGRATIONS_DIR)).get_current_head()
        stored = connection.execute(text("select count(*) from actions")).scalar()
    engine.dispose()
    turns = sum(len(entry["turns"]) for entry in record["rounds"])
    assert stored is not None and stored >= 2 * turns + len(record["rounds"]) + 1
