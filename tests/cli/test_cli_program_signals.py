"""Every way a signal stops ``nimmt arena``, ``nimmt play`` and ``nimmt bot`` ends every program
it started, and what those programs started too.

Each test starts the command with a ``cmd:`` program that starts a process of its own and then
hangs on its first request, waits until both run, sends the signal, and checks that the command
exits with 128 + the signal's number and one line, and that no process carrying the test's
marker is left. SIGINT goes to the command's process group, as a terminal's Ctrl-C does; SIGTERM
(``timeout``, CI runners, ``docker stop``) and SIGHUP (a closed terminal) to the command alone.
"""

from __future__ import annotations

import os
import signal
import subprocess
import uuid
from collections.abc import Iterator

import pytest
from tests.cli.test_cli_external_bots import (
    DEADLINE,
    NIMMT,
    PERSON_INPUT,
    fake_bot,
    live_processes,
)
from tests.server.server_helpers import http, start_server, stop_server
from tests.waiting import wait_until

SIGNALS = [signal.SIGINT, signal.SIGTERM, signal.SIGHUP]


def stop_when_started(command: list[str], marker: str, number: int) -> tuple[int, str]:
    """Run ``command`` until the program and the process it starts both run, then send signal
    ``number``. The exit status and standard error."""
    process = subprocess.Popen(
        command,
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # a group of its own, as a terminal's foreground job has
    )
    try:
        assert process.stdin is not None
        process.stdin.write(PERSON_INPUT[:4096])  # within a pipe's buffer: enough for a turn
        process.stdin.flush()

        def started() -> bool:
            if len(live_processes(marker)) >= 2:  # the program and the process it started
                return True
            assert process.poll() is None, process.communicate()[1]
            return False

        wait_until(
            started,
            timeout=DEADLINE,
            interval=0.05,
            message="the program and the process it starts did not both run",
        )
        if number == signal.SIGINT:
            os.killpg(process.pid, number)
        else:
            os.kill(process.pid, number)
        _, stderr = process.communicate(timeout=DEADLINE)
    finally:
        if process.poll() is None:
            process.kill()
    return process.returncode, stderr


def left_behind(marker: str) -> list[object]:
    """What still runs with the marker, once the killed processes have had time to go."""
    wait_until(lambda: not live_processes(marker), timeout=10, interval=0.05, message="")
    return list(live_processes(marker))


@pytest.mark.parametrize("number", SIGNALS, ids=lambda number: signal.Signals(number).name)
def test_a_signal_stops_the_arena_and_every_program(number: int) -> None:
    marker = uuid.uuid4().hex
    command = [NIMMT, "arena", fake_bot("hang_with_child", marker), "greedy", "--deals", "2"]
    status, stderr = stop_when_started([*command, "--move-time", "600"], marker, number)
    assert status == 128 + number, stderr
    last = stderr.strip().splitlines()[-1]
    assert last.startswith("error: ") and "Traceback" not in stderr, stderr
    if number != signal.SIGINT:
        assert signal.Signals(number).name in last
    assert left_behind(marker) == []


@pytest.mark.parametrize("number", SIGNALS, ids=lambda number: signal.Signals(number).name)
def test_a_signal_stops_nimmt_play_and_every_program(number: int) -> None:
    marker = uuid.uuid4().hex
    bot = fake_bot("hang_with_child", marker)
    status, stderr = stop_when_started(
        [NIMMT, "play", "--players", "2", "--bots", bot, "--move-time", "600"], marker, number
    )
    assert status == 128 + number, stderr
    assert stderr.strip().splitlines()[-1] == "Game interrupted."
    assert left_behind(marker) == []


@pytest.fixture(scope="module")
def table_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real ``nimmt serve``; yields its address."""
    folder = tmp_path_factory.mktemp("serve")
    served = start_server(f"sqlite:///{folder / 'nimmt.db'}", folder / "serve.log")
    try:
        yield served.http
    finally:
        stop_server(served)


@pytest.mark.parametrize("number", SIGNALS, ids=lambda number: signal.Signals(number).name)
def test_a_signal_stops_nimmt_bot_and_every_program(table_server: str, number: int) -> None:
    table = http(
        "POST",
        f"{table_server}/api/tables",
        {"seats": [{"kind": "human"}, {"kind": "bot", "bot": "greedy"}]},
    )
    marker = uuid.uuid4().hex
    command = [
        NIMMT,
        "bot",
        f"{table_server}/t/{table['code']}",
        "--bot",
        fake_bot("hang_with_child", marker),
        "--move-time",
        "600",
    ]
    status, stderr = stop_when_started(command, marker, number)
    assert status == 128 + number, stderr
    last = stderr.strip().splitlines()[-1]
    assert last.startswith("error: ") and "--token" in last, stderr
    assert left_behind(marker) == []


def test_the_signal_handlers_are_put_back() -> None:
    from nimmt.cli.stopping import STOPPING_SIGNALS, stop_on_signals

    before = [signal.getsignal(number) for number in STOPPING_SIGNALS]
    with stop_on_signals() as stopping:
        assert stopping.received is None and stopping.status(0) == 0
    assert [signal.getsignal(number) for number in STOPPING_SIGNALS] == before
