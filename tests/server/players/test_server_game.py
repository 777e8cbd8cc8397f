"""A whole game through the real app's sockets: two people, two greedy bots and a spectator,
played to game over; then every message each of them received is checked against the game's
record for anything that seat was not allowed to see."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from starlette.testclient import TestClient, WebSocketTestSession
from tests.server.server_helpers import (
    Message,
    create_table,
    join,
    play_seat,
    receive_until,
    service_of,
)

from nimmt.records import replay_record

GREEDY = {"kind": "bot", "bot": "greedy"}
SEATS = [{"kind": "human"}, GREEDY, {"kind": "human"}, GREEDY]
HUMANS = (0, 2)
BOTS = (1, 3)


def watch(ws: WebSocketTestSession, received: list[Message]) -> None:
    while True:
        message = ws.receive_json()
        received.append(message)
        if message["type"] == "state" and message["view"]["phase"] == "game_over":
            return


def play_whole_game(
    client: TestClient, *, inline: bool = False
) -> tuple[str, dict[int, str], dict[int | None, list[Message]]]:
    """Play one game to the end; the table's code, the people's tokens, what each one got
    (``inline``: every socket asks for ``events=inline``)."""
    code, ana = create_table(client, SEATS, "Ana")
    received: dict[int | None, list[Message]] = {0: [], 2: [], None: []}
    mode = "&events=inline" if inline else ""
    with (
        client.websocket_connect(f"/ws/{code}?{mode}") as spectator,
        client.websocket_connect(f"/ws/{code}?token={ana}{mode}") as ws0,
    ):
        ben = join(client, code, "Ben")  # the last free seat: the server deals now
        with client.websocket_connect(f"/ws/{code}?token={ben}{mode}") as ws2:
            threads = [
                threading.Thread(target=play_seat, args=(ws0, received[0], min)),
                threading.Thread(target=play_seat, args=(ws2, received[2], max)),
                threading.Thread(target=watch, args=(spectator, received[None])),
            ]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(timeout=60)
            assert not any(thread.is_alive() for thread in threads), "the game did not finish"
    return code, {0: ana, 2: ben}, received


def cards_in_event(event: Message) -> list[int]:
    kind = event["type"]
    if kind in ("round_dealt",):
        return list(event["rows"])
    if kind in ("hand_dealt", "cards_revealed", "row_taken"):
        return list(event["cards"])
    if kind in ("card_placed", "row_choice_required"):
        return [event["card"]]
    return []


def cards_in_view(view: Message) -> list[int]:
    cards = [card for row in view["rows"] for card in row]
    cards += [card for turn in view["played"] for card in turn]
    cards += view["revealed"] or []
    cards += view["round_rows"]
    if view["pending_row_choice"] is not None:
        cards.append(view["pending_row_choice"]["card"])
    return cards


def check_stream(messages: list[Message], seat: int | None, record: Message) -> None:
    """Replay one listener's messages in order against the true game: at every moment, every
    card it was sent must be its own, a row card, or already revealed."""
    rounds = record["rounds"]
    round_number, revealed_turns = 0, 0

    def known() -> set[int]:
        if round_number == 0:
            return set()
        entry = rounds[round_number - 1]
        cards = {row[0] for row in entry["rows"]}
        for turn in entry["turns"][:revealed_turns]:
            cards.update(turn["cards"])
        return cards

    def own_hand() -> set[int]:
        if seat is None or round_number == 0:
            return set()
        return set(rounds[round_number - 1]["hands"][seat])

    hands_seen = 0
    first = messages[0]
    if first["type"] == "state" and first["view"]["round"] > 0:
        # Connected after the deal: the socket starts from the state, without the old events.
        round_number = first["view"]["round"]
        revealed_turns = len(first["view"]["played"]) + (first["view"]["revealed"] is not None)
        hands_seen = 1 if seat is not None else 0
    for message in messages:
        assert message["type"] in ("state", "events"), message
        if message["type"] == "events":
            for event in message["events"]:
                kind = event["type"]
                if kind in ("card_chosen", "choice_withdrawn"):
                    assert set(event) == {"type", "seat"}, event  # who, never which card
                elif kind == "round_dealt":
                    round_number, revealed_turns = event["round"], 0
                    assert event["rows"] == [row[0] for row in rounds[round_number - 1]["rows"]]
                elif kind == "hand_dealt":
                    assert seat is not None and event["seat"] == seat, (seat, event)
                    assert set(event["cards"]) == own_hand()
                    hands_seen += 1
                    continue
                elif kind == "cards_revealed":
                    assert event["turn"] == revealed_turns + 1
                    assert (
                        event["cards"] == rounds[round_number - 1]["turns"][revealed_turns]["cards"]
                    )
                    revealed_turns += 1
                assert set(cards_in_event(event)) <= known(), (seat, event)
        else:
            view = message["view"]
            assert message["you"]["seat"] == seat
            assert view["round"] == round_number
            assert set(cards_in_view(view)) <= known(), (seat, view)
            if seat is None:
                assert view["hand"] == [] and view["chosen_card"] is None
            else:
                # Exactly the own hand: dealt cards minus those revealed from this seat.
                turns = rounds[round_number - 1]["turns"][:revealed_turns] if round_number else []
                played = {turn["cards"][seat] for turn in turns}
                assert set(view["hand"]) == own_hand() - played
                if view["revealed"] is not None:  # a row choice is awaited: own card revealed
                    assert view["chosen_card"] == view["revealed"][seat]
                else:
                    assert view["chosen_card"] is None or view["chosen_card"] in view["hand"]
    assert hands_seen == (len(rounds) if seat is not None else 0)


def split_inline(messages: list[Message]) -> list[Message]:
    """An ``events=inline`` socket's messages as the pairs they stand for: each ``state`` that
    holds ``events`` becomes an ``events`` message and the state without them."""
    pairs: list[Message] = []
    for message in messages:
        assert message["type"] == "state", message  # one message per change, nothing else
        state = dict(message)
        events = state.pop("events", None)
        if events is not None:
            assert events, message  # left out rather than empty
            pairs.append({"type": "events", "version": message["version"], "events": events})
        pairs.append(state)
    return pairs


@pytest.mark.parametrize("inline", [False, True], ids=["pairs", "inline"])
def test_a_whole_game_reaches_game_over_and_nobody_sees_what_they_must_not(
    make_client: Any, inline: bool
) -> None:
    client = make_client(deal_seed=11)
    code, _tokens, received = play_whole_game(client, inline=inline)
    if inline:
        received = {seat: split_inline(messages) for seat, messages in received.items()}

    answer = client.get(f"/api/tables/{code}/record")
    assert answer.status_code == 200
    record = answer.json()
    assert record["players"] == ["Ana", "Bot 2 (greedy)", "Ben", "Bot 4 (greedy)"]
    replayed = replay_record(record)
    assert replayed.finished
    for seat, messages in received.items():
        check_stream(messages, seat, record)
        final = messages[-1]["view"]
        assert final["phase"] == "game_over"
        assert final["outcome"] == {
            "totals": list(replayed.totals),
            "winners": list(replayed.winners),
        }
        assert [sum(column) for column in zip(*final["score_sheet"], strict=True)] == final[
            "totals"
        ]
        assert max(final["totals"]) > 66
    assert len(final["score_sheet"]) == len(record["rounds"])

    # Every decision, the bots' included, was stored like a person's.
    service = service_of(client)
    stored = client.portal.call(_actions, service, code)
    plays = [action for action in stored if action.kind == "play"]
    for seat in (*HUMANS, *BOTS):
        assert sum(action.seat == seat for action in plays) == 10 * len(record["rounds"])
    row_choices = [action for action in stored if action.kind == "choose_row"]
    turns_with_row = [
        turn for entry in record["rounds"] for turn in entry["turns"] if "row" in turn
    ]
    assert [action.row for action in row_choices] == [turn["row"] for turn in turns_with_row]
    assert sum(action.kind == "deal" for action in stored) == len(record["rounds"])
    # No message but state/events reached anyone: the people's actions were never refused.
    assert all(m["type"] in ("state", "events") for ms in received.values() for m in ms)


async def _actions(service: Any, code: str) -> list[Any]:
    return list(service.storage.load_actions(code, 1))


def test_rematch_starts_a_new_game_with_the_same_seats(make_client) -> None:  # type: ignore[no-untyped-def]
    client = make_client(deal_seed=5)
    code, tokens, _received = play_whole_game(client)
    first_record = client.get(f"/api/tables/{code}/record").json()

    answer = client.post(f"/api/tables/{code}/rematch", json={"token": "not-a-seat"})
    assert answer.status_code == 403 and answer.json()["error"]["code"] == "bad_token"
    with client.websocket_connect(f"/ws/{code}?token={tokens[2]}") as ws:
        over = ws.receive_json()
        assert over["view"]["phase"] == "game_over"
        # Both people must agree (the bots always do): the first agreement only says so.
        ws.send_json({"type": "rematch", "version": over["version"]})
        events = receive_until(ws, lambda m: m["type"] == "events")
        assert events["events"] == [
            {"type": "rematch_vote", "seat": 2, "agree": True, "ready": [2]}
        ]
        agreed = client.post(f"/api/tables/{code}/rematch", json={"token": tokens[0]})
        assert agreed.json()["game"] == 2
        events = receive_until(
            ws,
            lambda m: (
                m["type"] == "events"
                and any(event["type"] == "rematch_started" for event in m["events"])
            ),
        )
        # The last agreement, the new game and its deal are told together, in that order.
        assert [event["type"] for event in events["events"][:3]] == [
            "rematch_vote",
            "rematch_started",
            "round_dealt",
        ]
        assert events["events"][1] == {"type": "rematch_started", "game": 2}
        state = receive_until(
            ws, lambda m: m["type"] == "state" and m["view"]["phase"] == "choosing_cards"
        )
    assert state["table"]["game"] == 2 and state["view"]["round"] == 1
    assert state["view"]["totals"] == [0, 0, 0, 0] and state["view"]["score_sheet"] == []
    assert state["view"]["names"] == first_record["players"]
    assert len(state["view"]["hand"]) == 10
    # The first game's record stays available; the new one only once it is over.
    assert client.get(f"/api/tables/{code}/record?game=1").json() == first_record
    unfinished = client.get(f"/api/tables/{code}/record")
    assert unfinished.status_code == 409
    assert unfinished.json()["error"]["code"] == "game_not_finished"
    assert client.get(f"/api/tables/{code}/record?game=3").status_code == 404


def test_a_finished_games_record_keeps_who_played_after_one_leaves(make_client) -> None:  # type: ignore[no-untyped-def]
    client = make_client(deal_seed=5)
    code, tokens, _received = play_whole_game(client)
    played = client.get(f"/api/tables/{code}/record").json()
    left = client.post(f"/api/tables/{code}/leave", json={"token": tokens[0]})
    assert left.status_code == 200, left.text
    assert client.get(f"/api/tables/{code}").json()["seats"][0]["name"] != played["players"][0]
    assert client.get(f"/api/tables/{code}/record").json() == played
