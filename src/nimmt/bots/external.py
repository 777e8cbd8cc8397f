"""Bots that are separate programs: ``cmd:COMMAND`` speaks newline-delimited JSON on its pipes.

docs/bots.md ("Your own bot as a program") states the protocol. In short: the program is
started once per seat it holds (its command line split with :func:`shlex.split` and run without a
shell, in a process group of its own), and is sent one JSON object per line on its standard
input: ``{"type": "card", "view": VIEW}``, ``{"type": "row", "view": VIEW, "card": 3}`` and, at
the end, ``{"type": "bye"}``, each with an ``id`` that rises by one per request. It answers each
``card`` or ``row`` request with exactly one line on its standard output, ``{"card": 37}`` or
``{"row": 2}`` (optionally echoing the ``id``); what it writes to standard error goes to
nimmt's standard error unchanged. VIEW is built from the seat's :class:`~nimmt.engine.SeatView`
alone (:func:`view_to_json`), so a program sees only what a person in that seat sees.

A program that breaks the protocol (no answer within the per-decision limit, an answer that is
not such a JSON line, a card not in its hand, a row outside 0..3, a line nobody asked for, or
exiting) raises :class:`ProgramBotError`, whose message names the bot and its seat, and its
process group is killed at once. :meth:`ProgramBot.close` says ``bye`` and kills the process
group of whatever is left, on every path.

``nimmt play`` builds its bots by name deep inside the terminal game; a :class:`ProgramScope`
around it gives every program bot made inside it the per-decision limit and stops them all when
the scope ends, however it ends. :func:`kill_every_program` kills every program still running
in this process at once, for a signal handler that cannot wait for the stack to unwind.
"""

from __future__ import annotations

import contextvars
import os
import selectors
import shlex
import shutil
import signal
import subprocess
import time
from contextlib import suppress
from types import TracebackType
from typing import Any, NoReturn, TypeGuard

import orjson

from nimmt.engine import NUM_ROWS, SeatView

PREFIX = "cmd:"
DEFAULT_MOVE_TIME = 10.0
"""Seconds a program may take for one decision unless told otherwise (``--move-time``)."""
MAX_LINE_BYTES = 1 << 20
"""The longest answer line accepted: a program writing more without a newline is broken."""
BYE_GRACE = 2.0
"""Seconds a program may take to exit after ``bye`` before its process group is killed."""
CARD_ANSWER = '{"card": N}'
ROW_ANSWER = '{"row": N}'
_SHOWN_ANSWER = 80
"""Characters of a bad answer quoted in an error message."""


class ProgramBotError(Exception):
    """A program bot failed: it could not start, broke the protocol or exited.

    ``str(error)`` is the sentence for the user, e.g. ``bot cmd:python3 bot.py (seat 2) did not
    answer a card request within 10 seconds``.
    """

    def __init__(self, bot: str, seat: int | None, what: str) -> None:
        self.bot = bot
        self.seat = seat
        self.what = what
        where = f" (seat {seat})" if seat is not None else ""
        super().__init__(f"bot {bot}{where} {what}")


def is_program(name: str) -> bool:
    """Whether a bot name (as given on the command line) is a ``cmd:COMMAND`` program bot."""
    return name.strip()[: len(PREFIX)].lower() == PREFIX


def program_command(name: str) -> list[str]:
    """The argument vector of a ``cmd:COMMAND`` name; :class:`ValueError` (with a message for
    the user) for an empty or badly quoted command or a program that cannot be found."""
    command = name.strip()[len(PREFIX) :]
    try:
        argv = shlex.split(command)
    except ValueError as error:  # an unclosed quote
        raise ValueError(f"its command cannot be split into words: {error}") from None
    if not argv:
        raise ValueError('cmd: needs a command, e.g. cmd:"python3 mybot.py"')
    if shutil.which(argv[0]) is None:
        raise ValueError(f"no program {argv[0]!r} can be found or run")
    return argv


def view_to_json(view: SeatView) -> dict[str, Any]:
    """The protocol's VIEW of one seat: what that seat may see, and nothing more.

    ``turn`` is the turn being played now (1 to 10), where :attr:`SeatView.turn` counts the
    turns completed; ``revealed`` is this turn's cards by seat, only while a row is to be chosen;
    ``round_rows`` the rows as the round began; ``seen`` :meth:`SeatView.seen_cards`, sorted.
    """
    return {
        "seat": view.seat,
        "players": view.players,
        "round": view.round,
        "turn": view.turn + 1,
        "hand": view.hand,
        "rows": view.rows,
        "played": view.played,
        "revealed": view.revealed,
        "penalties": view.penalties,
        "totals": view.totals,
        "round_rows": view.round_rows,
        "seen": sorted(view.seen_cards()),
    }


class ProgramScope:
    """While this scope is open, every :class:`ProgramBot` made without its own limit takes
    ``move_time``; when it closes, every program started inside it is stopped."""

    def __init__(self, move_time: float = DEFAULT_MOVE_TIME) -> None:
        self.move_time = move_time
        self._bots: list[ProgramBot] = []
        self._token: contextvars.Token[ProgramScope | None] | None = None

    def started(self, bot: ProgramBot) -> None:
        self._bots.append(bot)

    def __enter__(self) -> ProgramScope:
        self._token = _current_scope.set(self)
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if self._token is not None:
            _current_scope.reset(self._token)
            self._token = None
        bots, self._bots = self._bots, []
        for bot in bots:
            bot.close(polite=kind is None)


_current_scope: contextvars.ContextVar[ProgramScope | None] = contextvars.ContextVar(
    "nimmt_program_scope", default=None
)

_running_groups: set[int] = set()
"""The process groups of the programs this process started and has not yet reaped."""


def kill_every_program() -> None:
    """Kill the process group of every program bot still running in this process, at once.

    Safe in a signal handler: it only sends signals. A bot waiting for its program's answer (in
    any thread) then sees the pipe close; :meth:`ProgramBot.close` still reaps the process.
    """
    for group in list(_running_groups):
        with suppress(ProcessLookupError, PermissionError):
            os.killpg(group, signal.SIGKILL)


class ProgramBot:
    """A bot that is a separate program (``cmd:COMMAND``), started at its first decision.

    Close it (:meth:`close`, or use it as a context manager) to stop the program; a
    :class:`ProgramScope` does so for the bots made inside it.
    """

    def __init__(self, name: str, *, move_time: float | None = None) -> None:
        self._name = f"{PREFIX}{name.strip()[len(PREFIX) :]}"
        self.argv = program_command(name)
        self._scope = _current_scope.get()
        if move_time is None:
            move_time = self._scope.move_time if self._scope is not None else DEFAULT_MOVE_TIME
        self.move_time = move_time
        self._process: subprocess.Popen[bytes] | None = None
        self._selector: selectors.BaseSelector | None = None
        self._buffer = b""
        self._asking = False
        """A request is out and unanswered (when the caller was interrupted while waiting)."""
        self._request_id = 0
        """The ``id`` of the last request sent to the program: 1, 2, 3, … from its start."""
        self._answered = 0
        """Answers the running program has given: a first line that is none is a banner."""

    @property
    def name(self) -> str:
        return self._name

    # ----------------------------------------------------------------------- the Bot protocol

    def choose_card(self, view: SeatView) -> int:
        request = {"type": "card", "view": view_to_json(view)}
        answer = self._ask(request, view.seat, "card")
        card = answer.get("card") if isinstance(answer, dict) else None
        if not _is_int(card):
            self._fail(view.seat, f"answered {_shown(answer)} to a card request, not {CARD_ANSWER}")
        if card not in view.legal_cards():
            self._fail(view.seat, f"played {card}, which is not in its hand {list(view.hand)}")
        return card

    def choose_row(self, view: SeatView) -> int:
        pending = view.pending_row_choice
        request = {
            "type": "row",
            "view": view_to_json(view),
            "card": pending.card if pending is not None else None,
        }
        answer = self._ask(request, view.seat, "row")
        row = answer.get("row") if isinstance(answer, dict) else None
        if not _is_int(row):
            self._fail(view.seat, f"answered {_shown(answer)} to a row request, not {ROW_ANSWER}")
        if not 0 <= row < NUM_ROWS:
            self._fail(view.seat, f"chose row {row}; rows are 0 to {NUM_ROWS - 1}")
        return row

    # --------------------------------------------------------------------------- the program

    def close(self, *, polite: bool = True) -> None:
        """Stop the program: ``bye`` and a short wait when ``polite`` (and no request is left
        unanswered), then kill its process group (whatever it started too). Safe to call more
        than once."""
        process, self._process = self._process, None
        if process is None:
            return
        polite = polite and not self._asking
        self._asking = False
        try:
            if polite and process.poll() is None:
                self._request_id += 1
                bye = orjson.dumps({"type": "bye", "id": self._request_id}) + b"\n"
                with suppress(OSError):
                    assert process.stdin is not None
                    os.write(process.stdin.fileno(), bye)
                with suppress(OSError):
                    assert process.stdin is not None
                    process.stdin.close()
                with suppress(subprocess.TimeoutExpired):
                    process.wait(timeout=BYE_GRACE)
        finally:
            # The program leads its own process group: kill whatever is left in it.
            with suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()
            _running_groups.discard(process.pid)
            for stream in (process.stdin, process.stdout):
                with suppress(OSError):
                    if stream is not None:
                        stream.close()
            if self._selector is not None:
                self._selector.close()
                self._selector = None
            self._buffer = b""

    def __enter__(self) -> ProgramBot:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close(polite=kind is None)

    def _start(self, seat: int | None) -> subprocess.Popen[bytes]:
        if self._process is not None:
            return self._process
        try:
            process = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=None,  # the program's own: it goes to ours unchanged
                bufsize=0,
                start_new_session=True,  # its own process group, out of reach of our Ctrl-C
            )
        except OSError as error:
            raise ProgramBotError(
                self.name, seat, f"could not be started: {error.strerror or error}"
            ) from None
        assert process.stdin is not None and process.stdout is not None
        os.set_blocking(process.stdin.fileno(), False)
        self._process = process
        _running_groups.add(process.pid)
        self._selector = selectors.DefaultSelector()
        self._selector.register(process.stdout, selectors.EVENT_READ)
        self._buffer = b""
        self._request_id = 0
        self._answered = 0
        if self._scope is not None:
            self._scope.started(self)
        return process

    def _ask(self, request: dict[str, Any], seat: int | None, kind: str) -> Any:
        """Send one request (with the next ``id``) and return the one JSON value answering it.

        An answer that echoes another request's ``id`` is a line nobody asked for (a late extra
        line, say), not this request's answer; one that echoes none is taken as it stands.
        """
        process = self._start(seat)
        deadline = time.monotonic() + self.move_time
        self._check_nothing_unasked(seat, kind)
        self._asking = True
        self._request_id += 1
        request = {**request, "id": self._request_id}
        self._send(process, orjson.dumps(request) + b"\n", deadline, seat, kind)
        line = self._read_line(process, deadline, seat, kind)
        self._asking = False
        try:
            answer = orjson.loads(line)
        except orjson.JSONDecodeError:
            answer = _NOT_JSON
        # In this order, so that what is reported does not hang on how the lines were read.
        hint = _BANNER if self._answered == 0 else ""
        if answer is _NOT_JSON:
            self._fail(
                seat, f"answered {_quote(line)} to a {kind} request, which is not JSON{hint}"
            )
        if isinstance(answer, dict) and "id" in answer and answer["id"] != self._request_id:
            self._fail(
                seat,
                f"wrote a line nobody asked for: {_quote(line)} (the {kind} request waiting "
                f"for an answer has id {self._request_id})",
            )
        if self._buffer:
            self._fail(
                seat, f"wrote more than one line for one {kind} request: {_quote(line)}{hint}"
            )
        self._answered += 1
        return answer

    def _send(
        self,
        process: subprocess.Popen[bytes],
        data: bytes,
        deadline: float,
        seat: int | None,
        kind: str,
    ) -> None:
        assert process.stdin is not None
        descriptor = process.stdin.fileno()
        with selectors.DefaultSelector() as writable:
            writable.register(descriptor, selectors.EVENT_WRITE)
            while data:
                try:
                    data = data[os.write(descriptor, data) :]
                    continue
                except BlockingIOError:
                    pass
                except OSError:  # a closed pipe: the program is gone
                    self._exited(process, seat, kind)
                left = deadline - time.monotonic()
                if left <= 0 or not writable.select(left):
                    self._timed_out(seat, kind)

    def _read_line(
        self, process: subprocess.Popen[bytes], deadline: float, seat: int | None, kind: str
    ) -> bytes:
        assert self._selector is not None and process.stdout is not None
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not self._selector.select(left):
                self._timed_out(seat, kind)
            chunk = os.read(process.stdout.fileno(), 65536)
            if not chunk:
                self._exited(process, seat, kind)
            self._buffer += chunk
            if len(self._buffer) > MAX_LINE_BYTES:
                self._fail(seat, f"wrote more than {MAX_LINE_BYTES} bytes without a newline")
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line.rstrip(b"\r")

    def _check_nothing_unasked(self, seat: int | None, kind: str) -> None:
        """Before a request: the program must not have written anything since its last answer."""
        assert self._selector is not None and self._process is not None
        stdout = self._process.stdout
        assert stdout is not None
        if not self._buffer and self._selector.select(0):
            chunk = os.read(stdout.fileno(), 65536)
            if not chunk:
                self._exited(self._process, seat, kind)
            self._buffer += chunk
        if self._buffer:
            line = self._buffer.partition(b"\n")[0]
            self._fail(seat, f"wrote a line nobody asked for: {_quote(line)}")

    # ---------------------------------------------------------------------------- failures

    def _fail(self, seat: int | None, what: str) -> NoReturn:
        self.close(polite=False)
        raise ProgramBotError(self.name, seat, what)

    def _timed_out(self, seat: int | None, kind: str) -> NoReturn:
        self._fail(seat, f"did not answer a {kind} request within {self.move_time:g} seconds")

    def _exited(self, process: subprocess.Popen[bytes], seat: int | None, kind: str) -> NoReturn:
        # The pipe closed: the program has exited or is about to; give it a moment to say how.
        with suppress(subprocess.TimeoutExpired):
            process.wait(timeout=1.0)
        status = process.returncode
        if status is None:
            how = "closed its standard output"
        elif status < 0:
            how = f"was killed by {_signal_name(-status)}"
        else:
            how = f"exited with status {status}"
        self._fail(seat, f"{how} before answering a {kind} request")


_BANNER = (
    " (a program writes nothing but its answers to standard output: a start-up banner or"
    " debugging output belongs on standard error)"
)
_NOT_JSON: Any = object()
"""What :meth:`ProgramBot._ask` makes of a line that is not JSON."""


def _is_int(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _quote(line: bytes) -> str:
    text = line.decode("utf-8", errors="replace")
    if len(text) > _SHOWN_ANSWER:
        text = text[:_SHOWN_ANSWER] + "…"
    return repr(text)


def _shown(answer: Any) -> str:
    return _quote(orjson.dumps(answer))


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


__all__ = [
    "DEFAULT_MOVE_TIME",
    "ProgramBot",
    "ProgramBotError",
    "ProgramScope",
    "is_program",
    "kill_every_program",
    "program_command",
    "view_to_json",
]
