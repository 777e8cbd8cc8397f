"""``bench/load.py`` keeps its contract (a short run on one process and SQLite); its figures are
not judged, only their presence, their types and their order."""

import subprocess
import sys

import pytest
from tests.bench.bench_scripts import BENCH, is_host_pace, json_line

SCRIPT = BENCH / "load.py"

CONTRACT = {
    "tables": int,
    "processes": int,
    "bot": str,
    "db": str,
    "p50_ms": float,
    "p90_ms": float,
    "p99_ms": float,
    "lobby_p99_ms": float,
    "actions_per_s": float,
    "errors": int,
    "lost": int,
    "stale": int,
    "server_cpu_s": float,
    "server_loop_cpu_per_action_ms": float,
    "load_cpu_s": float,
    "bot_rushed": int,
    "gc_pause_share": float,
    "gc_long_passes": int,
}


@pytest.mark.slow
@pytest.mark.timeout(170)
def test_load_bench_prints_one_json_line() -> None:
    figures = json_line("load.py", "--tables", "2", "--seconds", "4", timeout=160)
    for key, kind in CONTRACT.items():
        assert key in figures, key
        value = figures[key]
        assert not isinstance(value, bool), key
        expected = (int, float) if kind is float else kind
        assert isinstance(value, expected), (key, value)
    assert figures["tables"] == 2 and figures["processes"] == 1
    assert figures["bot"] == "greedy" and figures["db"] == "sqlite"
    assert figures["errors"] == 0 and figures["lost"] == 0
    assert figures["actions_per_s"] > 0
    assert figures["p50_ms"] <= figures["p90_ms"] <= figures["p99_ms"]
    # The event loop is one thread of the server's process tree: never more than all of it.
    assert 0 < figures["server_loop_cpu_per_action_ms"] <= figures["server_cpu_per_action_ms"]
    assert figures["bot_rushed"] == 0  # greedy decides in the server's thread: never rushed
    assert 0 <= figures["gc_pause_share"] < 1 and figures["gc_long_passes"] >= 0
    steal = figures["steal_share"]  # None where the system does not count the hypervisor's
    assert steal is None or (isinstance(steal, float | int) and 0 <= steal <= 1), steal
    assert is_host_pace(figures["host_pace_ms"]), figures["host_pace_ms"]


@pytest.mark.parametrize(
    "arguments",
    [["--tables", "0"], ["--tables", "2", "--bogus"], ["--tables", "2", "--bot", "nobody"]],
)
def test_load_bench_refuses_bad_options_in_one_line(arguments: list[str]) -> None:
    result = subprocess.run(
        [sys.executable, str(SCRIPT), *arguments], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("error: ")
