"""The storage interface: the :class:`Storage` protocol the game service writes through, the
records it speaks in (:class:`TableRecord`, :class:`SeatRecord`, :class:`TableStatus`,
:class:`ActionRecord`, the lobby's :class:`OpenTable`, a group's open :class:`GroupTable`), its
errors, and the lobby helpers (free seats, page cursors) that every backend shares.
"""

from __future__ import annotations

import base64
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from nimmt.server.storage.people import PeopleStore
    from nimmt.server.storage.talk import TalkStore


class StorageError(RuntimeError):
    """The database refused a change (or cannot be reached)."""


class CodeTakenError(StorageError):
    """A table with that code exists already."""


class VersionConflictError(StorageError):
    """The change does not follow the stored version of its table."""


class TableGoneError(StorageError):
    """The table is no longer stored: an operator deleted it (``nimmt admin purge``) while it
    was held in memory."""


@dataclass(frozen=True, slots=True)
class SeatRecord:
    seat: int
    kind: str
    """``"human"`` or ``"bot"``."""
    bot: str | None = None
    name: str | None = None
    token_hash: str | None = None
    """SHA-256 (hex) of the seat's token; ``None`` while a human seat is free."""


@dataclass(frozen=True, slots=True)
class ActionRecord:
    """One accepted change. ``kind``: ``join`` (seat, data name), ``deal`` (data rows, hands),
    ``play`` (seat, card), ``retract`` (seat), ``choose_row`` (seat, row), ``rematch``,
    ``rematch_vote`` (seat, data agree), ``leave`` (seat)."""

    seq: int
    game: int
    kind: str
    seat: int | None = None
    card: int | None = None
    row: int | None = None
    data: Mapping[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class TableStatus:
    """What listings need to know of a table, kept in step with its actions."""

    version: int
    game: int
    phase: str
    round: int
    finished: bool
    last_active_at: datetime | None = None
    """When a person last acted at the table (join, play, retract, choose_row, rematch, leave).
    Given to :meth:`Storage.append`, ``None`` means that no person acted (a deal, a bot's move):
    the stored time stays. Always set in what storage hands back."""


@dataclass(frozen=True, slots=True)
class TableRecord:
    code: str
    created_at: datetime
    seats: tuple[SeatRecord, ...]
    status: TableStatus
    assistant_hash: str | None = None
    """Set for an assisted table (a game played with real cards): SHA-256 of the token that may
    enter its cards. Its seats are ``"real"`` ones (people at the real table, with their names);
    it is never listed in the lobby."""
    coach: bool = False
    """The table's creator allowed the coach for every seat (shown to all: fairness is visible)."""
    away_seconds: int = 120
    """How long a person must have been disconnected before the others may propose that a bot
    plays for them (the creator's setting; docs/protocol.md, "An absent player")."""
    away_since: Mapping[int, datetime] = field(default_factory=dict)
    """Seat -> when its person left every socket, as stored (:meth:`Storage.mark_away`)."""


@dataclass(frozen=True, slots=True)
class OpenTable:
    """A table's line in the lobby (``GET /api/tables``), read from storage alone."""

    code: str
    seats: int
    free_seats: int
    humans: tuple[str, ...]
    """The names at the human seats, in seat order."""
    phase: str
    round: int
    created_at: datetime


@dataclass(frozen=True, slots=True)
class GroupTable:
    """A table opened for a group, as the group's page lists it while it is open
    (:meth:`Storage.list_group_open`): what the lobby shows of it, its game's number, and
    whether it is a game played with real cards."""

    code: str
    seats: int
    free_seats: int
    """Human seats nobody holds (none at a real-cards table)."""
    players: tuple[str, ...]
    """The people seated, in seat order: the names at the human seats, as the lobby shows them;
    at a real-cards table every player's."""
    phase: str
    round: int
    game: int
    created_at: datetime
    real_cards: bool


@dataclass(frozen=True, slots=True)
class StoredTable:
    """A stored table as the operator sees it (``nimmt admin tables``, retention)."""

    code: str
    created_at: datetime
    last_active_at: datetime
    """When a person last acted there (a deal or a bot's move leaves it)."""
    finished: bool
    phase: str
    game: int
    round: int
    seats: tuple[SeatRecord, ...]
    assisted: bool

    @property
    def state(self) -> str:
        """``finished``, ``open`` (a human seat is free), ``playing``, or ``assisted``."""
        if self.finished:
            return "finished"
        if self.assisted:
            return "assisted"
        free = any(seat.kind == "human" and seat.token_hash is None for seat in self.seats)
        return "open" if free else "playing"


def expired(
    table: StoredTable, finished_before: datetime | None, abandoned_before: datetime | None
) -> bool:
    """Whether retention deletes ``table``: finished and idle since before ``finished_before``,
    or unfinished (abandoned) and idle since before ``abandoned_before`` (``None``: never)."""
    cutoff = finished_before if table.finished else abandoned_before
    return cutoff is not None and as_utc(table.last_active_at) < as_utc(cutoff)


AppendItem = tuple[str, ActionRecord, TableStatus, SeatRecord | None]
"""One table's change for :meth:`Storage.append_many`: ``append``'s arguments."""


class Storage(Protocol):
    """What the game service needs from a database. Methods block: call them off the event
    loop. Each call is one short transaction; no lock is held from one call to the next."""

    @property
    def people(self) -> PeopleStore:
        """Profiles, groups and results (:mod:`nimmt.server.storage.people`), same database."""
        ...

    @property
    def commit_interval(self) -> float:
        """Seconds a busy server lets changes gather before their transaction starts
        (:class:`nimmt.server.writer.Writer`): worth it where a transaction's fixed cost is
        this process's own CPU (SQLite, in the server's process); 0 where the database is a
        server of its own, whose commits cost this process little and whose processes would
        each wait."""
        ...

    @property
    def talk(self) -> TalkStore:
        """The talk at the tables (:mod:`nimmt.server.storage.talk`), same database."""
        ...

    def create_table(self, table: TableRecord) -> None:
        """Store a new table; :class:`CodeTakenError` if its code is in use. The table counts as
        last active at ``table.status.last_active_at``, or when created if that is ``None``."""
        ...

    def load_table(self, code: str) -> TableRecord | None: ...

    def load_actions(self, code: str, game: int, after: int = 0) -> list[ActionRecord]:
        """The actions of one game at the table, in order; only those with ``seq > after`` (to
        catch up from a known version)."""
        ...

    def append(
        self, code: str, action: ActionRecord, status: TableStatus, seat: SeatRecord | None = None
    ) -> None:
        """Store ``action`` (whose ``seq`` must be the stored version + 1, else
        :class:`VersionConflictError`), the table's new ``status`` and the changed ``seat`` (a
        join; a leave, which may turn the seat into a bot or free it): all or nothing."""
        ...

    def append_many(self, items: Sequence[AppendItem]) -> list[Exception | None]:
        """Several :meth:`append` calls (of different tables, or in order of one table) in one
        transaction: one commit for all. An item that is refused (:class:`VersionConflictError`,
        :class:`StorageError`) is left out and its error returned at its index; the others are
        stored. :class:`StorageError` if the transaction as a whole fails: then none is."""
        ...

    def table_version(self, code: str) -> int | None:
        """The table's stored version; ``None`` if there is no such table."""
        ...

    def mark_away(self, code: str, seat: int, since: datetime | None) -> None:
        """Store when the person at ``seat`` left every socket (``None``: they are back); a
        seat that changes hands (a join, a leave) forgets it. Nothing for an unknown table."""
        ...

    def versions(self, codes: Sequence[str]) -> dict[str, int]:
        """The stored versions of the tables among ``codes`` that exist."""
        ...

    def list_open(
        self, *, limit: int, cursor: str | None, active_since: datetime
    ) -> tuple[list[OpenTable], str | None]:
        """Unfinished tables where a person acted since ``active_since``, newest created first,
        at most ``limit``; and the cursor of the next page (``None`` on the last). A cursor is
        an opaque URL-safe string; a malformed one raises :class:`ValueError`."""
        ...

    def list_group_open(
        self, group: str, *, limit: int, active_since: datetime
    ) -> list[GroupTable]:
        """The unfinished tables opened for ``group`` (``PeopleStore.add_group_table``: played
        online or with real cards) where a person acted since ``active_since``, newest created
        first, at most ``limit``. A deleted table is not among them."""
        ...

    def active_codes(self, since: datetime) -> list[str]:
        """Codes of the unfinished tables where a person acted since ``since``."""
        ...

    def stored_tables(self) -> list[StoredTable]:
        """Every stored table, oldest created first (the operator's list)."""
        ...

    def purge(
        self,
        *,
        finished_before: datetime | None,
        abandoned_before: datetime | None,
        keep: Sequence[str] = (),
        dry_run: bool = False,
    ) -> list[StoredTable]:
        """Delete the tables :func:`expired` says are due, with their seats and actions, except
        those in ``keep`` (held in memory); what was deleted (with ``dry_run``: what would
        be, deleting nothing)."""
        ...

    def close(self) -> None: ...


def lobby_seats(seats: Iterable[SeatRecord]) -> tuple[int, list[str]]:
    """The free human seats and the seated people's names, as the lobby shows them."""
    free = 0
    humans: list[str] = []
    for seat in seats:
        if seat.kind == "human":
            free += seat.token_hash is None
            if seat.name is not None:
                humans.append(seat.name)
    return free, humans


def as_utc(moment: datetime) -> datetime:
    """``moment`` in UTC; a naive one is taken as UTC (SQLite keeps no time zone)."""
    if moment.tzinfo is None:
        return moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


MAX_ROW_ID = 2**63 - 1
"""The largest row id SQLite and PostgreSQL's ``bigint`` hold."""


def encode_cursor(created_at: datetime, table_id: int) -> str:
    """The lobby's page cursor: where the last line shown sorts (its creation, then its id)."""
    text = f"{as_utc(created_at).isoformat()}|{table_id}"
    return base64.urlsafe_b64encode(text.encode("ascii")).decode("ascii").rstrip("=")


def decode_cursor(cursor: str) -> tuple[datetime, int]:
    """The inverse of :func:`encode_cursor`; :class:`ValueError` if ``cursor`` is not one."""
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        text = base64.b64decode(padded.encode("ascii"), altchars=b"-_", validate=True)
        moment_text, id_text = text.decode("ascii").split("|")
        moment = datetime.fromisoformat(moment_text)
        if moment.tzinfo is None or not id_text.isdigit() or not id_text.isascii():
            raise ValueError
        table_id = int(id_text)
        if table_id > MAX_ROW_ID:  # no row has it; the database could not even compare it
            raise ValueError
        return moment, table_id
    except ValueError:  # binascii.Error and UnicodeError are ValueErrors too
        raise ValueError(f"malformed cursor {cursor[:40]!r}") from None


def check_limit(limit: int) -> None:
    if limit < 1:
        raise ValueError("limit must be at least 1")
