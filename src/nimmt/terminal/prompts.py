"""Questions put to the person at the keyboard, and the askers that put them.

A :class:`Question` says what is asked (a card or a row), the prompt, and the answers accepted;
an :data:`Asker` is any function that answers one, so a test can script a whole game while
:func:`console_asker` reads the keyboard. Keys typed while a turn is being told are discarded
before each prompt (:func:`discard_typeahead`), so they never answer a question not yet seen.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from enum import Enum
from typing import IO

from rich.console import Console
from rich.text import Text

try:
    import termios
except ImportError:  # Windows: no terminal modes to set
    termios = None  # type: ignore[assignment]


class QuestionKind(Enum):
    CARD = "card"
    ROW = "row"


@dataclass(frozen=True, slots=True)
class Question:
    """A prompt put to the person: what is asked, the prompt text, and the answers accepted.

    ``choices`` are the numbers as the person types them: card numbers for a card, 1 to 4 for a
    row. An asker must return a string (any string: a wrong one is explained and asked again),
    raise :class:`EOFError` when input has ended, or :class:`KeyboardInterrupt` on Ctrl-C.
    """

    kind: QuestionKind
    text: str
    choices: tuple[int, ...]


Asker = Callable[[Question], str]


def _terminal(stream: IO[str]) -> int | None:
    """The file descriptor of ``stream`` when it is a terminal whose modes can be set, else
    ``None`` (a pipe, a closed stream, or a system without termios)."""
    if termios is None:
        return None
    try:
        return stream.fileno() if stream.isatty() else None
    except ValueError:  # a closed stream
        return None


def discard_typeahead(stream: IO[str]) -> None:
    """Forget what was typed while the turn was being told, so that a key pressed during the
    account is not taken as the answer to the next prompt. Only a terminal is flushed: piped
    input is an answer written in advance, and is kept."""
    fd = _terminal(stream)
    if fd is None:
        return
    with suppress(termios.error, OSError):
        termios.tcflush(fd, termios.TCIFLUSH)


@contextmanager
def echo_set(stream: IO[str], *, on: bool) -> Iterator[None]:
    """Within the block, the terminal shows typed keys (``on``) or not; afterwards it is put back
    exactly as it was, however the block ends (an answer, Ctrl-C, the end of input, an error).

    The game runs with echo off, so keys pressed while a turn is told do not appear in the
    account, and turns it on only while a prompt waits for an answer. Not a terminal: nothing.
    """
    fd = _terminal(stream)
    if fd is None:
        yield
        return
    try:
        saved = termios.tcgetattr(fd)
    except (termios.error, OSError):
        yield
        return
    changed = list(saved)
    changed[3] = saved[3] | termios.ECHO if on else saved[3] & ~termios.ECHO
    with suppress(termios.error, OSError):
        termios.tcsetattr(fd, termios.TCSANOW, changed)
    try:
        yield
    finally:
        with suppress(termios.error, OSError):
            termios.tcsetattr(fd, termios.TCSANOW, saved)


def console_asker(console: Console) -> Asker:
    """The asker that reads a line from standard input after printing the prompt on ``console``.

    When standard input is not a terminal (a pipe), the answer is not echoed by a terminal, so it
    is printed after the prompt: the transcript then reads like a session at the keyboard.
    On a terminal, keys typed before the prompt appears are discarded (:func:`discard_typeahead`)
    and typing is shown while the prompt waits (the game keeps it hidden otherwise, see
    :func:`echo_set`).
    """
    echo = not sys.stdin.isatty()

    def ask(question: Question) -> str:
        with echo_set(sys.stdin, on=True):
            discard_typeahead(sys.stdin)
            answer = console.input(Text(question.text, style="bold"))
        if echo:
            console.print(answer, markup=False, highlight=False)
        return answer

    return ask
