"""``bench/socket_floor.py`` keeps its contract (its docstring): one JSON line of figures from a
short run; the figures themselves are not judged."""

import subprocess
import sys

import pytest
from tests.bench.bench_scripts import BENCH, json_line


@pytest.mark.slow
@pytest.mark.timeout(90)
def test_socket_floor_prints_one_json_line() -> None:
    arguments = ["--connections", "8", "--frames", "2", "--seconds", "1.5", "--warm-up", "1"]
    pace = ["--think-low", "0.01", "--think-high", "0.05"]
    figures = json_line("socket_floor.py", *arguments, *pace, timeout=80)
    assert figures["connections"] == 8 and figures["frames"] == 2
    assert figures["messages"] > 0 and figures["messages_per_s"] > 0
    assert figures["server_cpu_per_message_ms"] > 0
    assert figures["server_cpu_s"] == pytest.approx(
        figures["server_cpu_per_message_ms"] * figures["messages"] / 1000, rel=0.05, abs=0.02
    )


def test_socket_floor_refuses_bad_options() -> None:
    result = subprocess.run(
        [sys.executable, str(BENCH / "socket_floor.py"), "--connections", "0"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert result.stdout == ""
    assert "--connections" in result.stderr
