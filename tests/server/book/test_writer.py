"""The write path's group commit: changes that arrive together are one batch; while the server
is busy, a change that arrives soon after a transaction started waits for the next with the
others that arrive meanwhile; an idle server's change is written at once."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import pytest

from nimmt.server.storage import ActionRecord, AppendItem, MemoryStorage, TableStatus
from nimmt.server.writer import Writer, commit_wait


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


def test_a_change_waits_only_for_what_is_left_of_the_commit_interval() -> None:
    interval = 0.01
    assert commit_wait(float("-inf"), 5.0, interval) == 0.0  # nothing written yet
    assert commit_wait(5.0, 5.0 + interval, interval) == 0.0  # the interval is over
    assert commit_wait(5.0, 5.0 + 3 * interval, interval) == 0.0  # long after
    assert commit_wait(5.0, 5.0 + interval / 4, interval) == pytest.approx(interval * 3 / 4)
    assert commit_wait(5.0, 5.0, interval) == pytest.approx(interval)
    assert commit_wait(5.0, 5.0, 0.0) == 0.0  # a storage that gathers nothing


def test_changes_that_arrive_one_after_another_within_the_interval_are_one_batch() -> None:
    async def scenario() -> list[int]:
        storage = CountingStorage()
        # An interval far longer than this test's steps, so that nothing here depends on timing.
        storage.commit_interval = 1.0
        writer = Writer(storage)
        await asyncio.gather(_append(writer, 1))  # alone: written at once
        await asyncio.gather(_append(writer, 2))  # after a batch of one: at once again
        await asyncio.gather(_append(writer, 3), _append(writer, 4))  # together: one batch
        # Busy now: within the interval of that batch the writer waits, and the changes that
        # arrive one after another meanwhile go with it.
        late = [_append(writer, 5)]
        await _settle()
        late += [_append(writer, 6)]
        await _settle()
        late += [_append(writer, 7), _append(writer, 8)]
        await asyncio.gather(*late)
        await writer.close()
        return storage.batches

    assert asyncio.run(scenario()) == [1, 1, 2, 4]
