"""``bench/external.py`` keeps its contract (its docstring); its figures are not judged."""

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).parents[2] / "bench" / "external.py"


def test_external_bench_prints_one_json_line() -> None:
    result = subprocess.run(
        [sys.executable, str(SCRIPT), "--rounds", "2", "--json"],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    lines = result.stdout.splitlines()
    assert len(lines) == 1
    figures = json.loads(lines[0])
    assert set(figures) == {
        "players",
        "rounds",
        "program_decisions",
        "program_ms_per_decision",
        "greedy_ms_per_decision",
        "overhead_ms_per_decision",
    }
    assert (figures["players"], figures["rounds"]) == (4, 2)
    assert figures["program_decisions"] >= 20  # 10 cards a round, and any rows it had to take
    difference = figures["program_ms_per_decision"] - figures["greedy_ms_per_decision"]
    assert abs(figures["overhead_ms_per_decision"] - difference) <= 0.0002
