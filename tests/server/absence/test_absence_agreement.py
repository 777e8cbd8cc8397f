"""An absent player (issue 19): the table may agree to let a bot play for someone who has left.

Driven through the real socket and a fake clock for the absence delay: no proposal before the
delay; the handover needs every other person present and never happens while one of them has not
agreed; a decline (or the proposer's withdrawal) ends it; the people who must agree are those
present when it completes, however they changed meanwhile; a pending row choice is covered."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

from tests.server.absence.absence_helpers import Message, Table, play_turn

from nimmt.engine import draw_deal
from nimmt.server.dealer import Dealer

PROPOSE = {"type": "propose", "seat": 0, "bot": "medium"}


def absence_of(message: Message) -> Message:
    absence: Message = message["table"]["absence"]
    return absence


def proposal_shown(message: Message) -> bool:
    return absence_of(message)["proposal"] is not None


def test_no_proposal_before_the_delay(table_of: Callable[..., Table]) -> None:
    table = table_of(["Ana", "Ben", "Cal"], bots=1)
    ana, ben, cal = table.people
    assert table.absence()["away_seconds"] == 120  # the default: two minutes
    table.away(ana, 119)
    ben.send(PROPOSE)
    assert ben.error()["code"] == "not_absent"
    assert table.absence()["proposal"] is None
    assert table.absence()["away"] == [{"seat": 0, "seconds": 119, "absent": False}]
    # A spectator does not decide; a bot nobody offers cannot be named.
    with table.client.websocket_connect(f"/ws/{table.code}") as spectator:
        spectator.receive_json()
        spectator.send_json(PROPOSE)
        assert spectator.receive_json()["code"] == "not_seated"

    table.clock.advance(1)
    table.look()  # the others are told once the delay has passed
    told = cal.state_where(lambda m: absence_of(m)["away"][0]["absent"])
    assert absence_of(told)["away"] == [{"seat": 0, "seconds": 120, "absent": True}]
    ben.send({**PROPOSE, "bot": "no-such-bot"})
    assert ben.error()["code"] == "unknown_bot"
    ben.send({**PROPOSE, "seat": 1})
    assert ben.error()["code"] == "bad_request"  # nobody hands over their own seat
    ben.send(PROPOSE)
    shown = absence_of(cal.state_where(proposal_shown))["proposal"]
    assert shown == {"seat": 0, "bot": "medium", "by": 1, "agreed": [1], "needed": [1, 2]}
    cal.send({**PROPOSE, "bot": "greedy"})
    assert cal.error()["code"] == "already_proposed"


def test_no_handover_until_everyone_present_agreed(table_of: Callable[..., Table]) -> None:
    table = table_of(["Ana", "Ben", "Cal"], bots=1)
    ana, ben, cal = table.people
    table.away(ana, 120)
    ben.send(PROPOSE)
    ben.send({"type": "agree"})  # the proposer agreed already: nothing more happens
    play_turn(table, [ben, cal])
    waiting = cal.state_now(lambda m: m["view"]["waiting_for"] == [0])
    assert not waiting["view"]["has_chosen"][0], "a card was chosen for Ana without agreement"
    assert absence_of(waiting)["stand_ins"] == []
    assert absence_of(waiting)["proposal"]["agreed"] == [1]
    assert table.inside(lambda t: dict(t.stand_ins.bots)) == {}

    cal.send({"type": "agree"})
    done = ben.state_where(lambda m: absence_of(m)["stand_ins"] != [])
    assert absence_of(done)["stand_ins"] == [{"seat": 0, "bot": "medium"}]
    assert absence_of(done)["proposal"] is None
    # The bot now plays for Ana's seat: the turn goes on without her.
    turn = done["view"]["turn"]
    ben.state_now(lambda m: m["view"]["turn"] > turn or m["view"]["phase"] == "choosing_row")
    handovers = [a for a in table.stored() if a.kind == "handover"]
    assert [a.data["step"] for a in handovers if a.data] == ["propose", "agree"]
    assert handovers[-1].data == {"step": "agree", "done": True, "needed": [1, 2]}
    events = [e for m in ben.seen if m["type"] == "events" for e in m["events"]]
    assert {"type": "seat_handed_over", "seat": 0, "bot": "medium"} in events


def test_a_decline_or_a_withdrawal_ends_the_proposal(
    table_of: Callable[..., Table],
) -> None:
    table = table_of(["Ana", "Ben", "Cal"], bots=1)
    ana, ben, cal = table.people
    table.away(ana, 120)
    ben.send(PROPOSE)
    cal.state_where(proposal_shown)
    cal.send({"type": "decline"})
    ended = ben.event("handover_cancelled")
    assert ended == {"type": "handover_cancelled", "seat": 0, "by": 2, "reason": "declined"}
    after = ben.state_where(lambda m: True)
    assert absence_of(after)["proposal"] is None and absence_of(after)["stand_ins"] == []
    cal.send({"type": "agree"})
    assert cal.error()["code"] == "no_proposal"

    cal.send(PROPOSE)  # proposed again, by Cal this time
    ben.state_where(proposal_shown)
    ben.send({"type": "withdraw"})
    assert ben.error()["code"] == "not_proposer"
    cal.send({"type": "withdraw"})
    assert ben.event("handover_cancelled")["reason"] == "withdrawn"
    assert table.inside(lambda t: (t.stand_ins.proposal, dict(t.stand_ins.bots))) == (None, {})


def test_the_people_present_when_it_completes_must_all_have_agreed(
    table_of: Callable[..., Table],
) -> None:
    table = table_of(["Ana", "Ben", "Cal", "Dan"])
    ana, ben, cal, dan = table.people
    table.away(ana, 120)
    ben.send(PROPOSE)
    assert absence_of(cal.state_where(proposal_shown))["proposal"]["needed"] == [1, 2, 3]
    # Dan's page reloads: he is not connected, but not absent either; he must still agree.
    table.away(dan, 30)
    cal.send({"type": "agree"})
    agreed = ben.state_where(
        lambda m: proposal_shown(m) and absence_of(m)["proposal"]["agreed"] == [1, 2]
    )
    assert absence_of(agreed)["proposal"]["needed"] == [1, 2, 3]
    assert absence_of(agreed)["stand_ins"] == []
    # Dan stays away for the delay: he no longer counts, but nothing completes by itself.
    table.clock.advance(90)
    table.look()
    shown = absence_of(
        ben.state_where(
            lambda m: proposal_shown(m) and absence_of(m)["proposal"]["needed"] == [1, 2]
        )
    )
    assert shown["proposal"]["agreed"] == [1, 2] and shown["stand_ins"] == []
    # Dan comes back before anyone confirms: he is present again, and must agree too.
    table.connect(dan)
    assert table.absence()["proposal"]["needed"] == [1, 2, 3]
    ben.send({"type": "agree"})
    cal.send({"type": "agree"})
    ben.send({"type": "ping", "request_id": "after"})
    ben.until(lambda m: m["type"] == "pong")
    assert table.inside(lambda t: dict(t.stand_ins.bots)) == {}
    dan.send({"type": "agree"})
    done = cal.state_where(lambda m: absence_of(m)["stand_ins"] != [])
    assert absence_of(done)["stand_ins"] == [{"seat": 0, "bot": "medium"}]
    last = [a for a in table.stored() if a.kind == "handover"][-1]
    assert last.seat == 3 and last.data == {"step": "agree", "done": True, "needed": [1, 2, 3]}


def test_an_agreement_confirmed_once_the_last_one_left(
    table_of: Callable[..., Table],
) -> None:
    table = table_of(["Ana", "Ben", "Cal", "Dan"])
    ana, ben, cal, dan = table.people
    table.away(ana, 120)
    ben.send(PROPOSE)
    cal.send({"type": "agree"})
    cal.state_where(lambda m: proposal_shown(m) and absence_of(m)["proposal"]["agreed"] == [1, 2])
    table.away(dan, 120)  # Dan left without a word: he is absent now
    assert table.inside(lambda t: dict(t.stand_ins.bots)) == {}
    cal.send({"type": "agree"})  # Cal confirms: everyone present has agreed
    done = ben.state_where(lambda m: absence_of(m)["stand_ins"] != [])
    assert absence_of(done)["stand_ins"] == [{"seat": 0, "bot": "medium"}]


def row_choice_seed() -> int:
    """A deal seed whose first deal gives Ana (of three) a card below every row."""
    for seed in range(1, 200):
        rows, hands = draw_deal(Dealer(cast(Any, None), seed).rng("", "deal", 1, 1), 3)
        if min(hands[0]) < min(row[0] for row in rows):
            return seed
    raise AssertionError("no such deal")


def test_a_pending_row_choice_is_covered(table_of: Callable[..., Table]) -> None:
    table = table_of(["Ana", "Ben", "Cal"], deal_seed=row_choice_seed())
    ana, ben, cal = table.people
    play_turn(table, [ana], min)  # her card is below every row
    table.close(ana)
    play_turn(table, [ben, cal], max)
    stuck = ben.state_now(lambda m: m["view"]["phase"] == "choosing_row")
    assert stuck["view"]["pending_row_choice"]["seat"] == 0
    table.clock.advance(120)
    table.look()
    ben.send(PROPOSE)
    cal.state_where(proposal_shown)
    assert table.inside(lambda t: t.game.phase.value) == "choosing_row"  # nobody chose for her
    cal.send({"type": "agree"})
    after = ben.state_where(
        lambda m: (
            m["view"]["phase"] == "choosing_cards" and m["view"]["turn"] > stuck["view"]["turn"]
        )
    )
    events = [e for m in ben.seen if m["type"] == "events" for e in m["events"]]
    taken = [e for e in events if e["type"] == "row_taken"]
    assert taken and taken[0]["seat"] == 0  # the bot chose the row for Ana's seat
    assert absence_of(after)["stand_ins"] == [{"seat": 0, "bot": "medium"}]
