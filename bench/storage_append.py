"""Appends per second into the SQLite file storage: one by one (a commit, and so an fsync, each)
against :meth:`~nimmt.server.storage.SqlStorage.append_many` batches (one commit per batch).

    python bench/storage_append.py --tables 50 --appends 2000 --batch 50

Prints one JSON line. The file lives in a temporary directory on the default file system (put it
elsewhere with ``--dir``); ``synchronous=FULL`` as the server runs it. ``batched_cpu_us`` is this
process's CPU time per change in the batched pass (making the changes and storing them; on
PostgreSQL the database server's own work is not in it).
``--wal-autocheckpoint N`` sets SQLite's ``PRAGMA wal_autocheckpoint`` (pages of write-ahead log
before a checkpoint; SQLite's default, which the server keeps, is 1,000), to compare the two.
``--postgres`` adds the same on a throwaway PostgreSQL 15 cluster, restarted with ``fsync=on``
(the tests run it off).
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import event

from nimmt.server.storage import (
    ActionRecord,
    AppendItem,
    SeatRecord,
    SqlStorage,
    TableRecord,
    TableStatus,
)


def _tables(storage: SqlStorage, prefix: str, count: int) -> list[str]:
    now = datetime.now(UTC)
    seats = (SeatRecord(0, "human", None, "Ana", "a" * 64), SeatRecord(1, "bot", "greedy", "B"))
    codes = [f"{prefix}{n:05d}" for n in range(count)]
    for code in codes:
        storage.create_table(
            TableRecord(code, now, seats, TableStatus(0, 1, "choosing_cards", 1, False))
        )
    return codes


def _item(code: str, seq: int) -> AppendItem:
    status = TableStatus(seq, 1, "choosing_cards", 1, False, datetime.now(UTC))
    return code, ActionRecord(seq, 1, "play", seat=0, card=seq % 104 + 1), status, None


def measure(storage: SqlStorage, tables: int, appends: int, batch: int) -> dict[str, float]:
    """Appends per second, one by one and in batches of ``batch`` (one item per table), and
    the CPU time per change of the batched pass."""

    def timed(run: Callable[[], None]) -> tuple[float, float]:
        """``run``'s appends per second and its CPU time per append in microseconds."""
        start, start_cpu = time.perf_counter(), time.process_time()
        run()
        cpu = time.process_time() - start_cpu
        return appends / (time.perf_counter() - start), cpu / appends * 1e6

    single = _tables(storage, "S", tables)
    grouped = _tables(storage, "G", tables)

    def one_by_one() -> None:
        for n in range(appends):
            storage.append(*_item(single[n % tables], n // tables + 1))

    def batches() -> None:
        done = 0
        while done < appends:
            items = [
                _item(grouped[n % tables], n // tables + 1)
                for n in range(done, min(done + batch, appends))
            ]
            if any(result is not None for result in storage.append_many(items)):
                raise RuntimeError("an append was refused")
            done += len(items)

    one_by_one_per_s, _ = timed(one_by_one)
    batched_per_s, batched_cpu_us = timed(batches)
    return {
        "one_by_one_per_s": round(one_by_one_per_s),
        "batched_per_s": round(batched_per_s),
        "batched_cpu_us": round(batched_cpu_us, 1),
    }


def _checkpoint_every(storage: SqlStorage, pages: int) -> None:
    """Every connection of ``storage`` from now on checkpoints after ``pages`` of log."""

    @event.listens_for(storage.engine, "connect")
    def _pragma(dbapi_connection: Any, _record: Any) -> None:
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA wal_autocheckpoint={pages}")
        cursor.close()

    storage.engine.dispose()  # the connections made so far go; new ones get the pragma


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--appends", type=int, default=2000)
    parser.add_argument("--batch", type=int, default=50)
    parser.add_argument("--dir", default=None, help="where the SQLite file goes")
    parser.add_argument("--wal-autocheckpoint", type=int, default=None, metavar="PAGES")
    parser.add_argument("--postgres", action="store_true")
    args = parser.parse_args()
    report: dict[str, object] = {"tables": args.tables, "appends": args.appends}
    report["batch"] = args.batch
    report["wal_autocheckpoint"] = args.wal_autocheckpoint
    with tempfile.TemporaryDirectory(dir=args.dir) as home:
        storage = SqlStorage(f"sqlite:///{home}/bench.db")
        if args.wal_autocheckpoint is not None:
            _checkpoint_every(storage, args.wal_autocheckpoint)
        report["sqlite"] = measure(storage, args.tables, args.appends, args.batch)
        storage.close()
    if args.postgres:
        import throwaway

        with throwaway.postgres() as cluster:
            cluster.stop()
            options = f"-p {cluster.port} -k {cluster.home} -c listen_addresses=127.0.0.1"
            cluster._run(
                throwaway.PG_BIN / "pg_ctl", "-D", cluster.data, "-o", options,
                "-l", cluster.home / "log", "-w", "start",
            )  # fmt: skip
            storage = SqlStorage(cluster.url.replace("postgresql://", "postgresql+psycopg://"))
            report["postgresql"] = measure(storage, args.tables, args.appends, args.batch)
            storage.close()
    print(json.dumps(report))


if __name__ == "__main__":
    main()
