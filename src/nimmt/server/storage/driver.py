"""A statement compiled once and run by the database driver itself, for the write path's hot
statements.

A busy server stores about a thousand changes a second, in batches of a few dozen. Running a
Core statement costs SQLAlchemy about as much again as the database's own work (the cache key,
the execution context, each row's parameters); the write thread spent more time there than in
SQLite. A :class:`DriverStatement` is the same statement compiled once for the engine's dialect,
its parameters' types turned into driver values by SQLAlchemy's own bind processors (a moment
into SQLite's text form, a dict into JSON), and run with :meth:`~sqlalchemy.engine.Connection.
exec_driver_sql`, which keeps the transaction, the events and the errors SQLAlchemy's.

On SQLite the write thread's usual batch (moves and actions of tables whose ids it knows) goes
further: :func:`~nimmt.server.storage.writes.sqlite_write` runs the whole transaction on the
pooled connection's own driver cursor.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, cast

from sqlalchemy import Connection
from sqlalchemy.engine import Dialect
from sqlalchemy.sql import ClauseElement
from sqlalchemy.sql.compiler import SQLCompiler


class DriverStatement:
    """``statement`` compiled for ``dialect``; :meth:`executemany` runs it for many rows of
    parameters (dicts by bind name, as the Core statement takes them)."""

    def __init__(self, statement: ClauseElement, dialect: Dialect) -> None:
        compiled = cast(SQLCompiler, statement.compile(dialect=dialect))
        self.sql = compiled.string
        positional = compiled.positiontup
        self.positional = positional is not None
        """The driver takes each row as a tuple in this order (SQLite's ``?``), else as a
        dict by name (psycopg's ``%(name)s``)."""
        names = list(positional) if positional is not None else list(compiled.binds)
        self.binds: list[tuple[str, Callable[[Any], Any] | None]] = [
            (name, compiled.binds[name].type.dialect_impl(dialect).bind_processor(dialect))
            for name in names
        ]

    def rows(self, parameters: Sequence[dict[str, Any]]) -> list[Any]:
        """Each dict of parameters as the driver takes it."""
        binds = self.binds
        if self.positional:
            return [
                tuple(value if process is None else process(value)
                      for name, process in binds for value in (row[name],))
                for row in parameters
            ]  # fmt: skip
        return [
            {name: row[name] if process is None else process(row[name]) for name, process in binds}
            for row in parameters
        ]

    def executemany(self, target: Connection | Any, parameters: Sequence[dict[str, Any]]) -> int:
        """Run the statement once per dict of ``parameters`` in ``target``'s transaction (an
        SQLAlchemy connection's, or a driver cursor's:
        :func:`~nimmt.server.storage.writes.sqlite_write`); the rows it changed in all."""
        rows = self.rows(parameters)
        if isinstance(target, Connection):
            return target.exec_driver_sql(self.sql, rows).rowcount
        target.executemany(self.sql, rows)
        return int(target.rowcount)
