"""Waiting in a test for what another task, thread or process does: :func:`wait_until` calls a
condition until it holds (and :func:`wait_until_async` lets the event loop run in between).

The timeout only keeps a test that would wait forever from hanging: it fails with ``message``
instead. It is never what a test checks, so make it generous; waiting longer costs nothing when
the condition comes true. A condition may raise to give up at once, say when the server it waits
for has exited.

Imported as ``tests.waiting`` from any test folder (pytest puts the repository's root on sys.path
for the rootdir conftest.py).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

Message = str | Callable[[], str]
"""What to say when the time is up, or a function that says it then (to show a log, say)."""


def wait_until(
    condition: Callable[[], T],
    *,
    timeout: float = 30,
    interval: float = 0.05,
    message: Message = "the condition never held",
) -> T:
    """Call ``condition`` every ``interval`` seconds until it returns a true value, and return
    that value; AssertionError with ``message`` once ``timeout`` seconds have passed without."""
    deadline = time.monotonic() + timeout
    while not (value := condition()):
        if time.monotonic() >= deadline:
            raise AssertionError(_said(message, timeout))
        time.sleep(interval)
    return value


async def wait_until_async(
    condition: Callable[[], T],
    *,
    timeout: float = 30,
    interval: float = 0.05,
    message: Message = "the condition never held",
) -> T:
    """:func:`wait_until` inside an event loop: the loop's other tasks run between the calls."""
    deadline = time.monotonic() + timeout
    while not (value := condition()):
        if time.monotonic() >= deadline:
            raise AssertionError(_said(message, timeout))
        await asyncio.sleep(interval)
    return value


def _said(message: Message, timeout: float) -> str:
    return f"after {timeout:.3g} s: {message if isinstance(message, str) else message()}"
