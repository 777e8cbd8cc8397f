"""``bench/engine.py`` keeps its contract (its docstring); its figures are not judged."""

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).parents[2] / "bench" / "engine.py"


def test_engine_bench_prints_one_json_line() -> None:
    result = subprocess.run(
        [sys.executable, str(SCRIPT), "--players", "10", "--seconds", "0.2", "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    lines = result.stdout.splitlines()
    assert len(lines) == 1
    figures = json.loads(lines[0])
    assert set(figures) == {"players", "rounds", "seconds", "rounds_per_s"}
    assert figures["players"] == 10 and figures["rounds"] > 0
    # "seconds" is rounded to the millisecond, so the rate agrees to within half a percent.
    expected = figures["rounds"] / figures["seconds"]
    assert abs(figures["rounds_per_s"] - expected) <= 0.005 * expected
