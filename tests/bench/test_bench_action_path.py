"""``bench/action_path.py`` keeps its contract (its docstring): one JSON line of figures from a
short run; the figures themselves are not judged."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).parents[2] / "bench" / "action_path.py"


@pytest.mark.slow
@pytest.mark.timeout(90)
def test_action_path_prints_one_json_line() -> None:
    result = subprocess.run(
        [sys.executable, str(SCRIPT), "--tables", "3", "--seconds", "2", "--json"],
        capture_output=True,
        text=True,
        timeout=80,
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 1
    figures = json.loads(lines[0])
    assert figures["tables"] == 3
    assert figures["actions"] > 0 and figures["actions_per_s"] > 0
    # The event loop is one of the process's threads: never more than all of them.
    assert 0 < figures["loop_cpu_per_action_ms"] <= figures["cpu_per_action_ms"]
