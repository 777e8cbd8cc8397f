"""Write transactions, shared by every SQL store (tables, people, passkeys, talk).

A leaf module: :mod:`nimmt.server.storage.sql` imports the stores that use it, so they cannot
import it from there.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import Connection, Engine, Table, func, select, update
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlalchemy.exc import TimeoutError as PoolTimeoutError

from nimmt.server.storage.base import StorageError

WRITE = "nimmt_write"
"""Execution option of a connection that will write: on SQLite its transaction starts with
``BEGIN IMMEDIATE`` (see :mod:`nimmt.server.storage.sql`), so that two writers queue for the
database's lock instead of failing halfway."""


@contextmanager
def writing(engine: Engine) -> Iterator[Connection]:
    """A connection in a write transaction, committed at the end of the block; database
    failures come out as :class:`StorageError`, a refused change (:class:`IntegrityError`) and
    any other exception as they are."""
    try:
        with engine.connect() as connection:
            connection.execution_options(**{WRITE: True})
            with connection.begin():
                yield connection
    except IntegrityError:
        raise
    except (DBAPIError, PoolTimeoutError) as error:
        raise StorageError(f"the database failed: {error}") from error


@contextmanager
def sqlite_write(engine: Engine) -> Iterator[Any]:
    """A driver cursor in an SQLite write transaction (``BEGIN IMMEDIATE``, as every write
    starts there), committed at the end of the block and rolled back when it raises: the write
    thread's usual batch, without SQLAlchemy's share of a transaction (its begin, each
    statement's execution and events, its commit: about 85 µs of CPU, a third of what storing a
    change alone costs). Failures come out as :func:`writing`'s do: a refused change as
    :class:`~sqlalchemy.exc.IntegrityError`, any other database failure as
    :class:`StorageError`."""
    try:
        connection = engine.raw_connection()
    except (DBAPIError, PoolTimeoutError) as error:
        raise StorageError(f"the database failed: {error}") from error
    driver_error = engine.dialect.loaded_dbapi.Error
    try:
        cursor = connection.cursor()
        try:
            cursor.execute("BEGIN IMMEDIATE")
            try:
                yield cursor
                connection.commit()
            except BaseException:
                connection.rollback()
                raise
        finally:
            cursor.close()
    except driver_error as error:
        wrapped = DBAPIError.instance(None, None, error, driver_error)
        if isinstance(wrapped, IntegrityError):
            raise wrapped from error
        raise StorageError(f"the database failed: {wrapped}") from error
    finally:
        connection.close()


def held_by_profile(connection: Connection, profiles: Table, profile_id: str, rows: Table) -> int:
    """How many of ``rows`` (by their ``profile_id``) the profile holds, in a write transaction,
    after locking the profile's row (on PostgreSQL; SQLite's write transaction holds the whole
    database): two rows added at once cannot both slip under a limit."""
    connection.execute(
        update(profiles).where(profiles.c.id == profile_id).values(name=profiles.c.name)
    )
    held = connection.scalar(
        select(func.count()).select_from(rows).where(rows.c.profile_id == profile_id)
    )
    return held or 0
