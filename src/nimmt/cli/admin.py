"""`nimmt admin`: the operator's commands on a server's database (docs/deploy.md, "Backups and
retention").

- ``nimmt admin tables [--db URL] [--json]``: every stored table (code, state, seats, last
  action);
- ``nimmt admin purge --finished-days N --abandoned-days M [--dry-run] [--db URL]``: delete the
  finished and the abandoned tables idle for longer, and say which (or which would be);
- ``nimmt admin backup FILE [--db URL]``: a consistent copy of an SQLite database, even while the
  server runs (SQLite's online backup); for PostgreSQL, ``pg_dump`` is the tool.

The database is ``--db``, else ``$NIMMT_DB``, else the one ``nimmt serve`` uses by default. Every
failure is one ``error:`` line and exit status 1.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import sqlite3
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from nimmt.cli.errors import fail
from nimmt.cli.help import HelpCommand, HelpGroup

if TYPE_CHECKING:
    from nimmt.server.storage import SqlStorage, StoredTable

app = typer.Typer(
    name="admin",
    cls=HelpGroup,
    help="The operator's commands on the server's database: list, purge, back up.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

DbOption = Annotated[
    str | None,
    typer.Option(
        "--db",
        metavar="URL",
        help="SQLAlchemy database URL (default: $NIMMT_DB, else nimmt serve's default file).",
    ),
]


def database_url(db: str | None) -> str:
    """The database meant: ``--db``, ``$NIMMT_DB``, or the default, as ``nimmt serve`` reads it."""
    from nimmt.server.settings import default_database_url, normalize_database_url

    url = db or os.environ.get("NIMMT_DB") or default_database_url()
    return normalize_database_url(url.strip())


def _sqlite_file(url: str) -> Path | None:
    """The file of an SQLite URL (``None`` for another database, or SQLite in memory)."""
    from sqlalchemy.engine import make_url

    try:
        parsed = make_url(url)
    except Exception:
        fail(f"{url!r} is not a database URL (e.g. sqlite:///games.db)")
    if parsed.get_backend_name() != "sqlite":
        return None
    database = parsed.database or ""
    if not database or database == ":memory:" or database.startswith("file:"):
        fail("an SQLite database in memory cannot be reached from here")
    return Path(database).expanduser()


def _open(db: str | None) -> SqlStorage:
    """The server's storage on that database, as it is (no migration runs from here)."""
    from nimmt.server.storage import SqlStorage

    url = database_url(db)
    path = _sqlite_file(url)
    if path is not None and not path.is_file():
        fail(f"there is no database at {path}")
    try:
        return SqlStorage(url, run_migrations=False)
    except Exception as error:
        fail(f"cannot open the database: {_first_line(error)}")


def _first_line(error: BaseException) -> str:
    text = str(error).strip() or type(error).__name__
    return text.splitlines()[0]


def _seat_text(table: StoredTable) -> str:
    shown = []
    for seat in table.seats:
        if seat.kind == "bot":
            shown.append(f"bot:{seat.bot}")
        elif seat.name is not None:
            shown.append(seat.name)
        else:
            shown.append("(free)")
    return ", ".join(shown)


def _entry(table: StoredTable) -> dict[str, Any]:
    return {
        "code": table.code,
        "state": table.state,
        "phase": table.phase,
        "game": table.game,
        "round": table.round,
        "seats": [
            {"seat": seat.seat, "kind": seat.kind, "bot": seat.bot, "name": seat.name}
            for seat in table.seats
        ],
        "created_at": table.created_at.isoformat(),
        "last_action": table.last_active_at.isoformat(),
    }


@app.command("tables", cls=HelpCommand)
def tables(
    db: DbOption = None,
    as_json: Annotated[
        bool, typer.Option("--json", metavar="", help='One JSON object: {"tables": [...]}.')
    ] = False,
) -> None:
    """List the stored tables: code, state, seats and when a person last acted there."""
    storage = _open(db)
    try:
        found = storage.stored_tables()
    except Exception as error:
        fail(f"cannot read the tables: {_first_line(error)}")
    finally:
        storage.close()
    if as_json:
        typer.echo(json.dumps({"tables": [_entry(table) for table in found]}))
        return
    if not found:
        typer.echo("no tables")
        return
    typer.echo(f"{'code':<6}  {'state':<8}  {'last action':<16}  seats")
    for table in found:
        when = table.last_active_at.strftime("%Y-%m-%d %H:%M")
        typer.echo(f"{table.code:<6}  {table.state:<8}  {when:<16}  {_seat_text(table)}")


def retention_days(option: str, text: str) -> float:
    """``option``'s number of days for ``purge``: from 0 to a hundred years (a date further back
    is not one a database holds; ``nan`` and ``inf`` are no number of days)."""
    from nimmt.server.settings import MAX_RETENTION_DAYS

    try:
        days = float(text)
    except ValueError:
        days = math.nan
    if not 0 <= days <= MAX_RETENTION_DAYS:
        fail(f"{option} takes a number of days from 0 to {MAX_RETENTION_DAYS:.0f}, not {text!r}")
    return days


@app.command("purge", cls=HelpCommand)
def purge(
    finished_days: Annotated[
        str,
        typer.Option(
            "--finished-days",
            metavar="N",
            help="Delete finished tables idle this long.",
        ),
    ],
    abandoned_days: Annotated[
        str,
        typer.Option(
            "--abandoned-days",
            metavar="M",
            help="Delete unfinished (abandoned) tables idle this long.",
        ),
    ],
    dry_run: Annotated[
        bool,
        typer.Option("--dry-run", metavar="", help="Say what would be deleted; delete nothing."),
    ] = False,
    db: DbOption = None,
) -> None:
    """Delete finished and abandoned tables where nobody acted for that many days."""
    finished = retention_days("--finished-days", finished_days)
    abandoned = retention_days("--abandoned-days", abandoned_days)
    now = datetime.now(UTC)
    storage = _open(db)
    try:
        deleted = storage.purge(
            finished_before=now - timedelta(days=finished),
            abandoned_before=now - timedelta(days=abandoned),
            dry_run=dry_run,
        )
    except Exception as error:
        fail(f"cannot purge: {_first_line(error)}")
    finally:
        storage.close()
    verb = "would delete" if dry_run else "deleted"
    for table in deleted:
        when = table.last_active_at.strftime("%Y-%m-%d %H:%M")
        kind = "finished" if table.finished else "abandoned"
        typer.echo(f"{verb} {table.code}  {kind}, last action {when}  {_seat_text(table)}")
    typer.echo(f"{verb} {len(deleted)} table{'s' if len(deleted) != 1 else ''}")


@app.command("backup", cls=HelpCommand)
def backup(
    file: Annotated[Path, typer.Argument(metavar="FILE", help="Where to write the copy.")],
    db: DbOption = None,
) -> None:
    """Write a consistent copy of the SQLite database to FILE, even while the server runs."""
    url = database_url(db)
    source = _sqlite_file(url)
    if source is None:
        fail(
            "backup copies SQLite databases; for PostgreSQL use pg_dump "
            "(pg_dump --format=custom --file=FILE DBNAME, see docs/deploy.md)"
        )
    if not source.is_file():
        fail(f"there is no database at {source}")
    target = file.expanduser()
    if target.resolve() == source.resolve():
        fail("the copy cannot be the database itself")
    if target.is_dir():
        fail(f"{str(file)!r} is a directory: give the copy's file name")
    if not target.parent.is_dir():
        fail(f"there is no directory {target.parent}")
    # Written beside the target, then renamed: an interrupted backup never leaves half a file
    # under the backup's name.
    try:
        handle, partial = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    except OSError as error:  # a directory this user may not write in
        fail(f"cannot write the backup in {target.parent}: {error.strerror}")
    os.close(handle)
    try:
        tables = _copy(source, Path(partial))
        os.replace(partial, target)
    except (sqlite3.Error, OSError) as error:
        Path(partial).unlink(missing_ok=True)
        fail(f"the backup failed: {_first_line(error)}")
    typer.echo(f"backed up {source} to {target} ({tables} tables)")


def _copy(source: Path, target: Path) -> int:
    """SQLite's online backup of ``source`` into ``target``, checked; its number of tables."""
    with (
        contextlib.closing(sqlite3.connect(source, timeout=30)) as origin,
        contextlib.closing(sqlite3.connect(target)) as copy,
    ):
        origin.backup(copy)  # one consistent snapshot, while the server goes on writing
        copy.execute("PRAGMA journal_mode=DELETE")  # one self-contained file
        check = copy.execute("PRAGMA integrity_check").fetchone()
        if check is None or check[0] != "ok":
            raise sqlite3.DatabaseError(f"the copy does not check out: {check}")
        try:
            count = copy.execute("SELECT count(*) FROM tables").fetchone()
        except sqlite3.OperationalError:
            return 0  # not (yet) a nimmt database: copied all the same
        return int(count[0]) if count else 0
