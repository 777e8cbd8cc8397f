"""``bench/action_path.py`` keeps its contract (its docstring): one JSON line of figures from a
short run; the figures themselves are not judged."""

import pytest
from tests.bench.bench_scripts import is_host_pace, json_line


@pytest.mark.slow
@pytest.mark.timeout(90)
def test_action_path_prints_one_json_line() -> None:
    figures = json_line("action_path.py", "--tables", "3", "--seconds", "2", timeout=80)
    assert figures["tables"] == 3
    assert figures["actions"] > 0 and figures["actions_per_s"] > 0
    # The event loop is one of the process's threads: never more than all of them.
    assert 0 < figures["loop_cpu_per_action_ms"] <= figures["cpu_per_action_ms"]
    assert is_host_pace(figures["host_pace_ms"])
