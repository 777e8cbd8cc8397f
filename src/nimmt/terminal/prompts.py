"""Questions put to the person at the keyboard, and the askers that put them.

A :class:`Question` says what is asked (a card or a row), the prompt, and the answers accepted;
an :data:`Asker` is any function that answers one, so a test can script a whole game while
:func:`console_asker` reads the keyboard. Keys typed while a turn is being told are discarded
before each prompt (:func:`discard_typeahead`), so they never answer a question not yet seen.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass
from enum import Enum
from typing import IO

from rich.console import Console
from rich.text import Text


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


def discard_typeahead(stream: IO[str]) -> None:
    """Forget what was typed while the turn was being told, so that a key pressed during the
    account is not taken as the answer to the next prompt. Only a terminal is flushed: piped
    input is an answer written in advance, and is kept."""
    try:
        if not stream.isatty():
            return
        import termios
    except (ImportError, ValueError):  # no termios (Windows), or a closed stream
        return
    with suppress(termios.error, OSError):
        termios.tcflush(stream.fileno(), termios.TCIFLUSH)


def console_asker(console: Console) -> Asker:
    """The asker that reads a line from standard input after printing the prompt on ``console``.

    When standard input is not a terminal (a pipe), the answer is not echoed by a terminal, so it
    is printed after the prompt: the transcript then reads like a session at the keyboard.
    On a terminal, keys typed before the prompt appears are discarded (:func:`discard_typeahead`).
    """
    echo = not sys.stdin.isatty()

    def ask(question: Question) -> str:
        discard_typeahead(sys.stdin)
        answer = console.input(Text(question.text, style="bold"))
        if echo:
            console.print(answer, markup=False, highlight=False)
        return answer

    return ask
