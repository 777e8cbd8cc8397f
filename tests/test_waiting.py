"""The tests' wait_until: it returns what the condition gave once it holds, and fails with the
message when the time is up."""

from __future__ import annotations

import asyncio
import itertools

import pytest
from tests.waiting import wait_until, wait_until_async


def test_it_returns_the_first_true_value_of_the_condition() -> None:
    calls = itertools.count()
    assert wait_until(lambda: next(calls) >= 3 and "ready", interval=0) == "ready"
    assert next(calls) == 4  # called until then, not after


def test_it_fails_with_the_message_once_the_time_is_up() -> None:
    said: list[str] = []

    def message() -> str:
        said.append("called")
        return "nothing came"

    with pytest.raises(AssertionError, match=r"^after 0\.01 s: nothing came$"):
        wait_until(lambda: None, timeout=0.01, interval=0, message=message)
    assert said == ["called"]  # only then
    with pytest.raises(AssertionError, match="the condition never held"):
        wait_until(lambda: False, timeout=0, interval=0)


def test_a_condition_that_raises_ends_the_wait() -> None:
    def condition() -> bool:
        raise RuntimeError("the server exited")

    with pytest.raises(RuntimeError, match="exited"):
        wait_until(condition)


def test_the_async_wait_lets_the_loop_run() -> None:
    async def scenario() -> None:
        done: list[int] = []

        async def later() -> None:
            done.append(1)

        task = asyncio.create_task(later())
        assert await wait_until_async(lambda: done, interval=0) == [1]
        await task
        with pytest.raises(AssertionError, match="after 0 s: not yet"):
            await wait_until_async(lambda: 0, timeout=0, message="not yet")

    asyncio.run(scenario())
