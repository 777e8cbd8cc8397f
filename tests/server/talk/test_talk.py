"""The talk at a table through the real socket: chat lines and quick reactions reach every
listener, their limits (length, rate) are refused with their codes and change nothing, text is
cleaned and stays text, a listener's mute keeps a speaker's lines from it, spectators read but
write only when the creator allows it, and the talk is kept with the table (a restarted server
sends it again) but never in its game."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient, WebSocketTestSession
from tests.server.server_helpers import Message, create_table, join, receive_until, service_of

from nimmt.server.storage import SqlStorage
from nimmt.server.talk import MAX_LENGTH, RATE_COUNT, RATE_SECONDS, REACTIONS, clean_text

HUMAN = {"kind": "human"}
GREEDY = {"kind": "bot", "bot": "greedy"}
LINE_KEYS = {"id", "at", "kind", "seat", "speaker", "name", "text"}


def kind_is(kind: str) -> Callable[[Message], bool]:
    return lambda message: message["type"] == kind


def hello(ws: WebSocketTestSession, **fields: Any) -> Message:
    ws.send_json({"type": "talk_hello", **fields})
    return receive_until(ws, kind_is("talk_history"))


def said(ws: WebSocketTestSession) -> Message:
    """The next talk line this socket is sent."""
    line: Message = receive_until(ws, kind_is("talk"))["line"]
    return line


def refused(ws: WebSocketTestSession, message: Message) -> Message:
    ws.send_json({**message, "request_id": "r"})
    error = receive_until(ws, kind_is("error"))
    assert error["request_id"] == "r"
    return error


def three_at_a_table(client: TestClient) -> tuple[str, str, str]:
    code, ana = create_table(client, [HUMAN, HUMAN, GREEDY])
    ben = join(client, code, "Ben")
    return code, ana, ben


def test_a_line_and_a_reaction_reach_everyone_at_the_table(
    make_client: Callable[..., TestClient],
) -> None:
    client = make_client()
    code, ana, ben = three_at_a_table(client)
    with (
        client.websocket_connect(f"/ws/{code}?token={ana}") as ws_ana,
        client.websocket_connect(f"/ws/{code}?token={ben}") as ws_ben,
        client.websocket_connect(f"/ws/{code}") as ws_watch,
    ):
        history = hello(ws_ana)
        assert history["lines"] == [] and history["reactions"] == list(REACTIONS)
        assert history["may_write"] and history["may_manage"] and not history["spectators_write"]
        assert hello(ws_ben)["may_manage"] is False  # Ben did not open the table
        watching = hello(ws_watch)
        assert not watching["may_write"] and not watching["may_manage"]

        ws_ana.send_json({"type": "say", "text": "Good luck, Ben!", "request_id": 7})
        mine = receive_until(ws_ana, kind_is("talk"))
        assert mine["request_id"] == 7  # the sender knows its line was taken
        for ws in (ws_ben, ws_watch):  # spectators read the talk: it is public at the table
            line = said(ws)
            assert set(line) == LINE_KEYS  # nothing of a hand, nor of any view
            assert (line["name"], line["seat"], line["kind"]) == ("Ana", 0, "say")
            assert line["text"] == "Good luck, Ben!"
            assert line["speaker"] == history["you"]

        ws_ben.send_json({"type": "react", "reaction": "well_played"})
        for ws in (ws_ana, ws_watch):
            line = said(ws)
            assert (line["kind"], line["text"], line["seat"]) == ("react", "well_played", 1)


def test_lines_too_long_empty_or_too_fast_are_refused_and_change_nothing(
    make_client: Callable[..., TestClient],
) -> None:
    client = make_client()
    code, ana, ben = three_at_a_table(client)
    talk = service_of(client).talk
    now = [1000.0]
    talk.clock = lambda: now[0]
    with (
        client.websocket_connect(f"/ws/{code}?token={ana}") as ws_ana,
        client.websocket_connect(f"/ws/{code}?token={ben}") as ws_ben,
    ):
        hello(ws_ana)
        hello(ws_ben)
        error = refused(ws_ana, {"type": "say", "text": "x" * (MAX_LENGTH + 1)})
        assert error["code"] == "talk_too_long" and error["details"] == {"max": MAX_LENGTH}
        assert refused(ws_ana, {"type": "say", "text": " \n\t\x07 "})["code"] == "talk_empty"
        assert refused(ws_ana, {"type": "say", "text": 42})["code"] == "malformed"
        ws_ana.send_json({"type": "say", "text": "y" * MAX_LENGTH})  # exactly the limit: fine
        assert said(ws_ben)["text"] == "y" * MAX_LENGTH
        for number in range(1, RATE_COUNT):
            ws_ana.send_json({"type": "react" if number % 2 else "say", "reaction": "oops",
                              "text": f"line {number}"})  # fmt: skip
            said(ws_ben)
        error = refused(ws_ana, {"type": "say", "text": "one too many"})
        assert error["code"] == "talk_too_fast"
        assert error["details"]["limit"] == RATE_COUNT
        assert error["details"]["seconds"] == RATE_SECONDS
        assert 1 <= error["details"]["retry_after"] <= RATE_SECONDS + 1
        assert refused(ws_ana, {"type": "react", "reaction": "ouch"})["code"] == "talk_too_fast"
        ws_ben.send_json({"type": "say", "text": "Ben has his own allowance"})
        assert said(ws_ana)["text"] == "Ben has his own allowance"
        assert said(ws_ben)["text"] == "Ben has his own allowance"
        now[0] += RATE_SECONDS
        ws_ana.send_json({"type": "say", "text": "ten seconds later"})
        assert said(ws_ben)["text"] == "ten seconds later"
        # Nothing refused was stored: the history holds exactly what was said.
        texts = [line["text"] for line in hello(ws_ben)["lines"]]
        assert "one too many" not in texts and "x" * (MAX_LENGTH + 1) not in texts
        assert texts[0] == "y" * MAX_LENGTH and texts[-1] == "ten seconds later"
        assert len(texts) == RATE_COUNT + 2


def test_unknown_reactions_and_unknown_fields_are_refused(
    make_client: Callable[..., TestClient],
) -> None:
    client = make_client()
    code, ana, _ben = three_at_a_table(client)
    with client.websocket_connect(f"/ws/{code}?token={ana}") as ws:
        hello(ws)
        assert refused(ws, {"type": "react", "reaction": "<img>"})["code"] == "unknown_reaction"
        assert refused(ws, {"type": "mute", "speaker": 3})["code"] == "malformed"
        assert refused(ws, {"type": "talk_settings"})["code"] == "malformed"


def test_text_is_cleaned_and_stays_text() -> None:
    # Markup is kept as the characters typed (clients set it as text, never as HTML).
    assert clean_text("<b>bold</b> & <script>x()</script>") == (
        "<b>bold</b> & <script>x()</script>"
    )
    assert clean_text("  two\n\nlines\tand\x07 a bell\x00 ") == "two lines and a bell"
    assert clean_text("e\u0301te\u0301") == "\u00e9t\u00e9"  # NFC
    assert clean_text("abc\u202edcba\u2066x\u2069") == "abcdcbax"  # no bidirectional tricks
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467"
    assert clean_text(f"{family} \u2764\ufe0f") == f"{family} \u2764\ufe0f"  # emoji intact
    assert clean_text("Bien jou\u00e9\u202f!") == "Bien jou\u00e9\u202f!"  # French spacing kept


def test_markup_goes_out_as_the_characters_written(
    make_client: Callable[..., TestClient],
) -> None:
    client = make_client()
    code, ana, ben = three_at_a_table(client)
    with (
        client.websocket_connect(f"/ws/{code}?token={ana}") as ws_ana,
        client.websocket_connect(f"/ws/{code}?token={ben}") as ws_ben,
    ):
        ws_ana.send_json({"type": "say", "text": '<img src=x onerror="alert(1)">\u202e'})
        assert said(ws_ben)["text"] == '<img src=x onerror="alert(1)">'


def test_a_muted_speaker_never_reaches_the_listener_who_muted_them(
    make_client: Callable[..., TestClient],
) -> None:
    client = make_client()
    code, ana, ben = three_at_a_table(client)
    with (
        client.websocket_connect(f"/ws/{code}?token={ana}") as ws_ana,
        client.websocket_connect(f"/ws/{code}?token={ben}") as ws_ben,
        client.websocket_connect(f"/ws/{code}") as ws_watch,
    ):
        ana_key = hello(ws_ana)["you"]
        hello(ws_ben)
        hello(ws_watch)
        ws_ana.send_json({"type": "say", "text": "before"})
        assert said(ws_ben)["text"] == "before"
        assert said(ws_watch)["text"] == "before"

        ws_ben.send_json({"type": "mute", "speaker": ana_key, "muted": True})
        assert receive_until(ws_ben, kind_is("talk_muted"))["muted"] == [ana_key]
        ws_ana.send_json({"type": "say", "text": "muted words"})
        ws_ana.send_json({"type": "react", "reaction": "laugh"})
        assert said(ws_watch)["text"] == "muted words"  # the others still hear Ana
        assert said(ws_watch)["text"] == "laugh"
        ws_ben.send_json({"type": "say", "text": "Ben speaks"})  # Ben hears himself, not Ana
        assert said(ws_ben)["text"] == "Ben speaks"
        # A reconnecting Ben says whom he muted: the history leaves Ana out too.
        history = hello(ws_ben, muted=[ana_key])
        assert [line["text"] for line in history["lines"]] == ["Ben speaks"]
        assert history["muted"] == [ana_key]

        ws_ben.send_json({"type": "mute", "speaker": ana_key, "muted": False})
        assert receive_until(ws_ben, kind_is("talk_muted"))["muted"] == []
        ws_ana.send_json({"type": "say", "text": "after"})
        assert said(ws_ben)["text"] == "after"
        # Nobody mutes themselves.
        ws_ana.send_json({"type": "mute", "speaker": ana_key, "muted": True})
        assert receive_until(ws_ana, kind_is("talk_muted"))["muted"] == []


def test_spectators_write_only_when_the_creator_allows_it(
    make_client: Callable[..., TestClient],
) -> None:
    client = make_client()
    code, ana, ben = three_at_a_table(client)
    watcher_secret = "w" * 24
    with (
        client.websocket_connect(f"/ws/{code}?token={ana}") as ws_ana,
        client.websocket_connect(f"/ws/{code}?token={ben}") as ws_ben,
        client.websocket_connect(f"/ws/{code}") as ws_watch,
    ):
        hello(ws_ana)
        hello(ws_ben)
        watcher = hello(ws_watch, watcher=watcher_secret, name="Zoé")
        assert refused(ws_watch, {"type": "say", "text": "hi"})["code"] == "talk_not_allowed"
        assert refused(ws_watch, {"type": "react", "reaction": "oops"})["code"] == "not_seated"
        ben_try = {"type": "talk_settings", "spectators_write": True}
        assert refused(ws_ben, ben_try)["code"] == "not_creator"
        assert refused(ws_watch, ben_try)["code"] == "not_creator"

        ws_ana.send_json({"type": "talk_settings", "spectators_write": True})
        for ws in (ws_ana, ws_ben, ws_watch):
            assert receive_until(ws, kind_is("talk_settings"))["spectators_write"] is True
        ws_watch.send_json({"type": "say", "text": "Hello from the rail"})
        line = said(ws_ana)
        assert (line["seat"], line["name"], line["text"]) == (None, "Zoé", "Hello from the rail")
        assert line["speaker"] == watcher["you"]
        assert refused(ws_watch, {"type": "react", "reaction": "oops"})["code"] == "not_seated"

        ws_ana.send_json({"type": "talk_settings", "spectators_write": False})
        receive_until(ws_watch, kind_is("talk_settings"))
        assert refused(ws_watch, {"type": "say", "text": "again"})["code"] == "talk_not_allowed"
    # The same browser watching again is the same speaker (others can keep it muted).
    with client.websocket_connect(f"/ws/{code}") as ws_again:
        assert hello(ws_again, watcher=watcher_secret)["you"] == watcher["you"]


def test_talk_is_kept_with_the_table_across_a_restart_but_never_in_its_game(
    make_client: Callable[..., TestClient], tmp_path: Path
) -> None:
    url = f"sqlite:///{tmp_path / 'talk.db'}"
    client = make_client(storage=SqlStorage(url))
    code, ana, ben = three_at_a_table(client)
    with client.websocket_connect(f"/ws/{code}?token={ana}") as ws_ana:
        state = receive_until(ws_ana, kind_is("state"))
        version = state["version"]
        hello(ws_ana)
        ws_ana.send_json({"type": "say", "text": "Remember me"})
        said(ws_ana)
        ws_ana.send_json({"type": "react", "reaction": "bull"})
        said(ws_ana)
        ws_ana.send_json({"type": "talk_settings", "spectators_write": True})
        receive_until(ws_ana, kind_is("talk_settings"))
    stored = service_of(client).storage.load_actions(code, 1)
    assert service_of(client).book.tables[code].version == version  # talk takes no version
    client.__exit__(None, None, None)

    again = make_client(storage=SqlStorage(url))
    with again.websocket_connect(f"/ws/{code}?token={ben}") as ws_ben:
        history = hello(ws_ben)
        assert [(line["kind"], line["text"]) for line in history["lines"]] == [
            ("say", "Remember me"),
            ("react", "bull"),
        ]
        assert history["spectators_write"] is True
    assert {action.kind for action in stored} <= {"join", "deal", "play"}  # no talk in the game
    assert "Remember me" not in repr(stored)
    record = again.get(f"/api/tables/{code}/record")
    assert "Remember me" not in record.text


@pytest.mark.parametrize("backend", ["memory", "sqlite", "postgres"])
def test_the_talk_storage(backend: str, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    from datetime import UTC, datetime

    from nimmt.server.storage import MemoryStorage, SeatRecord, TableRecord, TableStatus

    if backend == "memory":
        storage: Any = MemoryStorage()
    elif backend == "sqlite":
        storage = SqlStorage(f"sqlite:///{tmp_path / 'store.db'}")
    else:
        storage = SqlStorage(request.getfixturevalue("postgres_url"))
    now = datetime(2026, 12, 1, 20, 0, tzinfo=UTC)
    code = "TALKAB" if backend != "postgres" else "TALKPG"
    storage.create_table(
        TableRecord(code, now, (SeatRecord(0, "human"),), TableStatus(0, 1, "waiting", 0, False))
    )
    talk = storage.talk
    with pytest.raises(KeyError):
        talk.add_line("NOSUCH", at=now, kind="say", seat=0, speaker="p1", name="A", text="x")
    lines = [
        talk.add_line(code, at=now, kind="say", seat=0, speaker="p1", name="Ana", text=f"{n} é")
        for n in range(5)
    ]
    assert [line.id for line in lines] == sorted({line.id for line in lines})
    assert [line.text for line in talk.recent_lines(code, 3)] == ["2 é", "3 é", "4 é"]
    assert talk.recent_lines(code, 3)[0].at == now
    assert [line.text for line in talk.lines_after(code, lines[3].id, 10)] == ["4 é"]
    assert talk.spectators_may_write(code) is False
    talk.set_spectators_may_write(code, True)
    assert talk.spectators_may_write(code) is True
    talk.set_spectators_may_write(code, False)
    assert talk.spectators_may_write(code) is False
    # The talk goes with its table.
    storage.purge(finished_before=None, abandoned_before=datetime(2100, 1, 1, tzinfo=UTC))
    assert talk.recent_lines(code, 10) == []
    storage.close()
