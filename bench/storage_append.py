"""Appends per second into the SQLite file storage: one by one (a commit, and so an fsync, each)
against :meth:`~nimmt.server.storage.SqlStorage.append_many` batches (one commit per batch).

    python bench/storage_append.py --tables 50 --appends 2000 --batch 50

Prints one JSON line. The file lives in a temporary directory on the default file system (put it
elsewhere with ``--dir``); ``synchronous=FULL`` as the server runs it. ``--postgres`` adds the
same on a throwaway PostgreSQL 15 cluster, restarted with ``fsync=on`` (the tests run it off).
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime

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
    """Appends per second, one by one and in batches of ``batch`` (one item per table)."""

    def timed(run: Callable[[], None]) -> float:
        start = time.perf_counter()
        run()
        return appends / (time.perf_counter() - start)

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

    return {"one_by_one_per_s": round(timed(one_by_one)), "batched_per_s": round(timed(batches))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--appends", type=int, default=2000)
    parser.add_argument("--batch", type=int, default=50)
    parser.add_argument("--dir", default=None, help="where the SQLite file goes")
    parser.add_argument("--postgres", action="store_true")
    args = parser.parse_args()
    report: dict[str, object] = {"tables": args.tables, "appends": args.appends}
    report["batch"] = args.batch
    with tempfile.TemporaryDirectory(dir=args.dir) as home:
        storage = SqlStorage(f"sqlite:///{home}/bench.db")
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
