"""How a command that starts program bots stops on a signal: SIGINT, SIGTERM or SIGHUP.

``cmd:`` programs run in process groups of their own (so that a terminal's Ctrl-C does not reach
them half-way through an answer), which also means that no signal sent to nimmt reaches them:
``timeout``, CI runners and ``docker stop`` send SIGTERM, a closed terminal SIGHUP. While
:func:`stop_on_signals` is open, each of the three kills every program at once
(:func:`nimmt.bots.external.kill_every_program`) and then raises :class:`KeyboardInterrupt`, so
that the command unwinds as it does on Ctrl-C: a record is kept, one line is printed, every
program is reaped. The exit status is then 128 + the signal's number, as shells report it.
"""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import FrameType

from nimmt.exits import EXIT_INTERRUPTED

STOPPING_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
_WORDS = {signal.SIGINT: "interrupted", signal.SIGTERM: "terminated", signal.SIGHUP: "hung up"}


@dataclass(slots=True)
class Stopping:
    """The signal that stopped the command, once one has (``None`` until then)."""

    received: int | None = None

    def status(self, status: int = EXIT_INTERRUPTED) -> int:
        """The exit status: 128 + the signal's number after one, else ``status``."""
        return 128 + self.received if self.received is not None else status

    def reason(self) -> str:
        """``interrupted`` (Ctrl-C, or no signal yet), ``terminated (SIGTERM)`` or
        ``hung up (SIGHUP)``."""
        if self.received is None or self.received == signal.SIGINT:
            return "interrupted"
        number = signal.Signals(self.received)
        return f"{_WORDS[number]} ({number.name})"


@contextmanager
def stop_on_signals() -> Iterator[Stopping]:
    """While open, SIGINT, SIGTERM and SIGHUP kill every program bot and raise
    :class:`KeyboardInterrupt` (once: a second signal only kills again, so that the unwinding
    is not cut short). The previous handlers come back on exit."""
    from nimmt.bots.external import kill_every_program

    stopping = Stopping()

    def handle(number: int, _frame: FrameType | None) -> None:
        kill_every_program()
        if stopping.received is None:
            stopping.received = number
            raise KeyboardInterrupt

    previous = {number: signal.signal(number, handle) for number in STOPPING_SIGNALS}
    try:
        yield stopping
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
