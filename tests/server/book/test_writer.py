"""The write path's group commit: changes that arrive together are one batch, and while batches
are big the writer lets the next one gather; an idle server's change is written at once."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest

from nimmt.server import writer as writer_module
from nimmt.server.storage import ActionRecord, AppendItem, MemoryStorage, TableStatus
from nimmt.server.writer import Writer


class CountingStorage(MemoryStorage):
    """Records the size of every batch and stores nothing."""

    def __init__(self) -> None:
        super().__init__()
        self.batches: list[int] = []

    def append_many(self, items: Sequence[AppendItem]) -> list[Exception | None]:
        self.batches.append(len(items))
        return [None] * len(items)


def _append(writer: Writer, number: int) -> asyncio.Task[None]:
    action = ActionRecord(number, 1, "play", 0, 5)
    status = TableStatus(number, 1, "choosing_cards", 1, False)
    return asyncio.ensure_future(writer.append(f"T{number:05d}", action, status, None))


async def _settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


def test_a_busy_writer_gathers_the_next_batch_an_idle_one_writes_at_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A linger far longer than this test's steps, so that nothing here depends on timing.
    monkeypatch.setattr(writer_module, "LINGER_SECONDS", 1.0)

    async def scenario() -> list[int]:
        storage = CountingStorage()
        writer = Writer(storage)
        await asyncio.gather(_append(writer, 1))  # alone: written at once
        await asyncio.gather(*(_append(writer, n) for n in range(2, 2 + writer_module.LINGER_FROM)))
        # The batch was big: the next changes, arriving one after another, wait together.
        late = [_append(writer, 10)]
        await _settle()
        late += [_append(writer, 11), _append(writer, 12)]
        await asyncio.gather(*late)
        await asyncio.gather(_append(writer, 13))  # after a small batch: at once again
        await writer.close()
        return storage.batches

    assert asyncio.run(scenario()) == [1, writer_module.LINGER_FROM, 3, 1]
