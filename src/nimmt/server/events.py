"""The table's own domain events, beside the engine's: a rematch began, a person joined or left
a seat, a rematch vote, an assisted table's entry undone. :data:`TableEvent` is any event a table
hands its listeners; how they go on the wire is :mod:`nimmt.server.serialize`'s business.
"""

from __future__ import annotations

import dataclasses

from nimmt.engine import Event


@dataclasses.dataclass(frozen=True, slots=True)
class RematchStarted:
    """A new game began at the same table with the same seats (a server event, not the
    engine's: the engine knows one game only)."""

    game: int


@dataclasses.dataclass(frozen=True, slots=True)
class PlayerJoined:
    """A person took a free seat."""

    seat: int
    name: str


@dataclasses.dataclass(frozen=True, slots=True)
class SeatLeft:
    """A person left their seat: ``bot`` plays it from now on (their own choice), or, before
    the first deal, ``None``: the seat is free again."""

    seat: int
    name: str
    bot: str | None


@dataclasses.dataclass(frozen=True, slots=True)
class EntryUndone:
    """At an assisted table, the last entry (``kind``: ``rows``, ``turn`` or ``row``) was taken
    back: the game is as it was before it; listeners redraw from the ``state`` that follows."""

    kind: str


@dataclasses.dataclass(frozen=True, slots=True)
class RematchVote:
    """After game over, the person at ``seat`` agreed to play again (``agree``) or took the
    agreement back; ``ready``: every seat that agrees now. The new game starts when every
    person seated agrees (bots always do)."""

    seat: int
    agree: bool
    ready: tuple[int, ...]


@dataclasses.dataclass(frozen=True, slots=True)
class HandoverProposed:
    """``by`` proposes that ``bot`` plays for the absent person at ``seat``."""

    seat: int
    bot: str
    by: int


@dataclasses.dataclass(frozen=True, slots=True)
class HandoverAgreed:
    """``by`` agrees that a bot plays for ``seat``; ``agreed``: everyone who agrees now."""

    seat: int
    by: int
    agreed: tuple[int, ...]


@dataclasses.dataclass(frozen=True, slots=True)
class HandoverCancelled:
    """The proposal for ``seat`` ended without a handover: ``reason`` ``declined`` or
    ``withdrawn`` (by ``by``), ``returned`` (the person came back) or ``left``."""

    seat: int
    by: int | None
    reason: str


@dataclasses.dataclass(frozen=True, slots=True)
class SeatHandedOver:
    """Everyone present agreed: ``bot`` plays for the absent person at ``seat`` until they
    return."""

    seat: int
    bot: str


@dataclasses.dataclass(frozen=True, slots=True)
class SeatReclaimed:
    """The absent person at ``seat`` is back and decides again from the next decision on;
    ``card_stands``: the card the bot chose for them this turn stands."""

    seat: int
    card_stands: bool


TableEvent = (
    Event | RematchStarted | PlayerJoined | SeatLeft | RematchVote | EntryUndone
    | HandoverProposed | HandoverAgreed | HandoverCancelled | SeatHandedOver | SeatReclaimed
)  # fmt: skip
TABLE_EVENTS = (
    RematchStarted, PlayerJoined, SeatLeft, RematchVote, EntryUndone,
    HandoverProposed, HandoverAgreed, HandoverCancelled, SeatHandedOver, SeatReclaimed,
)  # fmt: skip
"""The server's own events: public, every listener sees them."""
