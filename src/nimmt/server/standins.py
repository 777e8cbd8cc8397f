"""An absent person's seat, as a table holds it: the table's agreement to let a bot play for
someone who has left, the bots standing in, and who is present in this process's eyes.

Two kinds of state live here. :class:`StandIns` is rebuilt from the stored ``handover`` and
``return`` actions (:data:`~nimmt.server.actions.STAND_IN_KINDS`) like every other part of a
table, so every process and a restarted server hold the same proposal, the same agreements and
the same bots standing in: a handover is stored once, by the ``agree`` that completed it (its
``done``), never worked out again when the action is replayed. :class:`Presence` is this
process's own knowledge of who is connected (its sockets, and what the other processes said on
the bus); of it only the moment a person left is stored (``seats.away_since``, once they have
been away for :data:`STORE_AFTER_SECONDS`), so that a restarted server counts their time away
on from there, while a person who was connected when it stopped counts from the restart.

The rule: the system never chooses for a person. A bot plays for an absent person only once
every other person present agreed (:mod:`nimmt.server.absence` checks that), and only until the
person returns: from their next decision on, a card the bot already chose for the current turn
standing (:class:`CardStandsError`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from nimmt.engine import Game, Phase, RuleError
from nimmt.server.actions import ActionKind
from nimmt.server.events import (
    HandoverAgreed,
    HandoverCancelled,
    HandoverProposed,
    SeatHandedOver,
    SeatReclaimed,
    TableEvent,
)
from nimmt.server.storage import ActionRecord, SeatRecord


class CardStandsError(RuleError):
    """A person back at their seat tried to change the card a bot chose for them this turn."""


@dataclass(slots=True)
class Proposal:
    """``by`` proposes that ``bot`` plays for the absent person at ``seat``; ``agreed``: the
    people who agree so far (the proposer first)."""

    seat: int
    bot: str
    by: int
    agreed: set[int]


@dataclass(slots=True)
class StandIns:
    """The stored part: the open proposal, the bots playing for absent people, and the cards
    that stand for the turn in which their person came back."""

    proposal: Proposal | None = None
    bots: dict[int, str] = field(default_factory=dict)
    """Seat -> the bot that plays for its absent person."""
    kept: dict[int, tuple[int, int]] = field(default_factory=dict)
    """Seat -> ``(round, turn)`` whose card, chosen by the bot, stands though its person is back."""
    history: list[dict[str, Any]] = field(default_factory=list)
    """For the game record: each handover (``seat``, ``bot``, ``round``, ``turn``) and each
    return (``seat``, ``back_round``, ``back_turn``), in order."""

    def clear(self) -> None:
        self.proposal = None
        self.bots.clear()
        self.kept.clear()
        self.history.clear()

    def card_stands(self, seat: int, game: Game) -> bool:
        """The card of ``seat`` in this turn was chosen by a bot and stands."""
        return game.phase is Phase.CHOOSING_CARDS and self.kept.get(seat) == (
            game.round,
            game.turn,
        )

    def apply(self, action: ActionRecord, game: Game) -> list[TableEvent]:
        """Apply a stored ``handover`` or ``return``; the events it makes. A step that no longer
        fits (no proposal to agree to) raises ``RuleError`` and changes nothing."""
        assert action.seat is not None
        if action.kind == ActionKind.RETURN:
            return self._return(action.seat, game)
        data = action.data or {}
        step = data.get("step")
        proposal = self.proposal
        if step == "propose":
            if proposal is not None:
                raise RuleError("a handover is proposed already")
            target, bot = int(data["target"]), str(data["bot"])
            self.proposal = Proposal(target, bot, action.seat, {action.seat})
            return [HandoverProposed(target, bot, action.seat)]
        if proposal is None:
            raise RuleError("no handover is proposed")
        if step == "agree":
            proposal.agreed.add(action.seat)
            events: list[TableEvent] = [
                HandoverAgreed(proposal.seat, action.seat, tuple(sorted(proposal.agreed)))
            ]
            if data.get("done"):
                self.proposal = None
                self.bots[proposal.seat] = proposal.bot
                self.kept.pop(proposal.seat, None)
                self.history.append(
                    {"seat": proposal.seat, "bot": proposal.bot, "round": game.round,
                     "turn": game.turn}
                )  # fmt: skip
                events.append(SeatHandedOver(proposal.seat, proposal.bot))
            return events
        if step in ("decline", "withdraw"):
            self.proposal = None
            reason = "declined" if step == "decline" else "withdrawn"
            return [HandoverCancelled(proposal.seat, action.seat, reason)]
        raise RuleError(f"unknown handover step {step!r}")

    def _return(self, seat: int, game: Game) -> list[TableEvent]:
        events: list[TableEvent] = []
        if self.proposal is not None and self.proposal.seat == seat:
            self.proposal = None
            events.append(HandoverCancelled(seat, None, "returned"))
        if seat in self.bots:
            del self.bots[seat]
            stands = game.phase is Phase.CHOOSING_CARDS and game.view(seat).chosen_card is not None
            if stands:
                self.kept[seat] = (game.round, game.turn)
            self.history.append({"seat": seat, "back_round": game.round, "back_turn": game.turn})
            events.append(SeatReclaimed(seat, stands))
        return events

    def seat_left(self, seat: int) -> list[TableEvent]:
        """The person at ``seat`` left it for good (a bot of theirs takes it, or it is free):
        their agreement no longer counts, and a proposal for their seat ends."""
        self.bots.pop(seat, None)
        self.kept.pop(seat, None)
        proposal = self.proposal
        if proposal is None:
            return []
        if proposal.seat == seat:
            self.proposal = None
            return [HandoverCancelled(seat, None, "left")]
        proposal.agreed.discard(seat)
        return []


def deciding_people(seats: Sequence[SeatRecord], stand_ins: StandIns) -> list[int]:
    """The seats a person holds and decides at: not a bot's, not one a bot plays for."""
    return [
        seat.seat
        for seat in seats
        if seat.kind == "human" and seat.token_hash is not None and seat.seat not in stand_ins.bots
    ]


REMOTE_FRESH_SECONDS = 15.0
"""How long another process's word that a seat is connected there counts (it repeats it every
few seconds while it is true)."""
STORE_AFTER_SECONDS = 5.0
"""A person away this long has the moment they left stored (a page that reloads, or the sockets
a stopping server closes itself, store nothing)."""


def _now_utc() -> datetime:
    return datetime.now(UTC)


@dataclass(slots=True)
class Presence:
    """Who is connected, as this process knows it: its own sockets (the table's connections)
    and what the other processes said on the bus. Never stored."""

    clock: Callable[[], float] = time.monotonic
    """Seconds (monotonic; a fake clock in tests)."""
    since: dict[int, float] = field(default_factory=dict)
    """Seat -> when (``clock``) it was last seen connected anywhere; the absence counts from
    there."""
    remote: dict[str, tuple[frozenset[int], float]] = field(default_factory=dict)
    """Another process -> the seats connected there, and when it said so."""
    announced: frozenset[int] = frozenset()
    """The seats last told as absent (away for the table's delay) to the listeners here."""
    wall: Callable[[], datetime] = _now_utc
    """The time of day, in which the moments a person left are stored."""
    stored: dict[int, datetime] = field(default_factory=dict)
    """Seat -> when its person left, as stored in the database (read at load, or stored here)."""
    settled: float = float("-inf")
    """Before this (``clock``), a seat that is neither connected here nor heard of counts as
    present: the other processes have not had the time to say where they hold it."""

    def remote_seats(self, now: float) -> set[int]:
        seats: set[int] = set()
        for held, heard in self.remote.values():
            if now - heard <= REMOTE_FRESH_SECONDS:
                seats |= held
        return seats

    def away_for(self, seat: int, here: set[int], now: float | None = None) -> float | None:
        """Seconds ``seat`` has been disconnected everywhere; ``None`` while it is connected
        (``here``: the seats connected in this process)."""
        now = self.clock() if now is None else now
        if seat in here or seat in self.remote_seats(now):
            self.since.pop(seat, None)
            return None
        start = self.since.get(seat)
        if start is None:
            left = self.stored.get(seat)
            if left is not None:  # away since before this process held the table
                start = now - max(0.0, (self.wall() - left).total_seconds())
            elif now < self.settled:
                return None
            else:
                start = now
            self.since[seat] = start
        return now - start

    def left_at(self, seat: int, away: float) -> datetime:
        """The time of day at which a seat away for ``away`` seconds left."""
        return self.wall() - timedelta(seconds=away)

    def heard(self, sender: str, seats: frozenset[int], here: set[int]) -> None:
        """Another process says ``seats`` are connected to it: a seat it no longer holds (and
        that is connected nowhere else) is away from now on."""
        now = self.clock()
        before = self.remote_seats(now)
        self.remote[sender] = (seats, now)
        for seat in before - self.remote_seats(now) - here:
            self.since[seat] = now

    def gone(self, seat: int) -> None:
        """The last socket of ``seat`` here closed: its absence counts from now."""
        self.since[seat] = self.clock()


def absent_seats(
    seats: Sequence[SeatRecord],
    stand_ins: StandIns,
    presence: Presence,
    here: set[int],
    away_seconds: int,
) -> dict[int, float]:
    """The people (not at a seat a bot plays for) disconnected everywhere for ``away_seconds``
    or longer: seat -> seconds away (``here``: the seats connected to this process)."""
    now = presence.clock()
    found = {}
    for seat in deciding_people(seats, stand_ins):
        away = presence.away_for(seat, here, now)
        if away is not None and away >= away_seconds:
            found[seat] = away
    return found


def handover_needed(
    seats: Sequence[SeatRecord], stand_ins: StandIns, absent: dict[int, float]
) -> list[int]:
    """Who must agree to the open proposal: every person seated and deciding for themselves
    who is not ``absent`` (a person disconnected for less than the delay still counts), but
    the one the proposal is for."""
    proposal = stand_ins.proposal
    return [
        seat
        for seat in deciding_people(seats, stand_ins)
        if seat not in absent and (proposal is None or seat != proposal.seat)
    ]


def absence_summary(
    seats: Sequence[SeatRecord],
    stand_ins: StandIns,
    presence: Presence,
    here: set[int],
    away_seconds: int,
    game: Game,
) -> dict[str, Any]:
    """The ``absence`` object of a table's summary (docs/protocol.md, "An absent player"): who
    is away and for how long, the bots playing for absent people, the open proposal."""
    now = presence.clock()
    away = []
    for seat in deciding_people(seats, stand_ins):
        seconds = presence.away_for(seat, here, now)
        if seconds is not None:
            away.append({"seat": seat, "seconds": int(seconds), "absent": seconds >= away_seconds})
    proposal = stand_ins.proposal
    shown = None
    if proposal is not None:
        absent = absent_seats(seats, stand_ins, presence, here, away_seconds)
        wanted = handover_needed(seats, stand_ins, absent)
        shown = {
            "seat": proposal.seat,
            "bot": proposal.bot,
            "by": proposal.by,
            "agreed": sorted(proposal.agreed & set(wanted)),
            "needed": wanted,
        }
    return {
        "away_seconds": away_seconds,
        "away": away,
        "stand_ins": [{"seat": seat, "bot": bot} for seat, bot in sorted(stand_ins.bots.items())],
        "card_stands": sorted(seat for seat in stand_ins.kept if stand_ins.card_stands(seat, game)),
        "proposal": shown,
    }
