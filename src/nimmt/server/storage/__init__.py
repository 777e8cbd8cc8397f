"""Where tables are kept: a small storage interface, its SQLAlchemy implementation, and an
in-memory twin for tests.

The game service stores every accepted change through :meth:`Storage.append` (or many tables' at
once through :meth:`Storage.append_many`) before anybody hears of it. ``append`` is all-or-nothing
(one transaction) and refuses a change whose number does not follow the table's stored version, so
two writers (two server processes) can never interleave a table's history. The database is the
source of truth: the lobby is read from it (:meth:`Storage.list_open`), and a process catches up a
table it holds from it (:meth:`Storage.table_version`, :meth:`Storage.load_actions` ``after``).

Its parts, one module per job: :mod:`~nimmt.server.storage.base` (the interface, its records and
errors), :mod:`~nimmt.server.storage.memory` (the in-memory twin) and
:mod:`~nimmt.server.storage.sql` (the SQLAlchemy backend, with
:mod:`~nimmt.server.storage.lifecycle`: the stored tables' list and retention, and
:mod:`~nimmt.server.storage.listings`: the lobby's and a group's open tables); every public
name is here too.
"""

from nimmt.server.storage.base import (
    ActionRecord,
    AppendItem,
    CodeTakenError,
    GroupTable,
    OpenTable,
    SeatRecord,
    Storage,
    StorageError,
    StoredTable,
    TableGoneError,
    TableRecord,
    TableStatus,
    VersionConflictError,
    decode_cursor,
    encode_cursor,
    expired,
    lobby_seats,
)
from nimmt.server.storage.memory import MemoryStorage
from nimmt.server.storage.sql import (
    MIGRATION_LOCK,
    MIGRATIONS_DIR,
    VERSIONS_CHUNK,
    SqlStorage,
    migrate,
    open_engine,
)
from nimmt.server.storage.writes import WRITE

__all__ = [
    "MIGRATIONS_DIR",
    "MIGRATION_LOCK",
    "VERSIONS_CHUNK",
    "WRITE",
    "ActionRecord",
    "AppendItem",
    "CodeTakenError",
    "GroupTable",
    "MemoryStorage",
    "OpenTable",
    "SeatRecord",
    "SqlStorage",
    "Storage",
    "StorageError",
    "StoredTable",
    "TableGoneError",
    "TableRecord",
    "TableStatus",
    "VersionConflictError",
    "decode_cursor",
    "encode_cursor",
    "expired",
    "lobby_seats",
    "migrate",
    "open_engine",
]
