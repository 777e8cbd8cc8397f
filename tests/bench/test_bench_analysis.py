"""``bench/analysis.py`` keeps its contract (its docstring); its figures are not judged."""

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).parents[2] / "bench" / "analysis.py"
ARGUMENTS = ["--players", "2", "5", "--rounds", "1", "--samples", "8", "--json"]


def test_analysis_bench_prints_one_json_line_per_table_size() -> None:
    result = subprocess.run(
        [sys.executable, str(SCRIPT), *ARGUMENTS],
        capture_output=True,
        text=True,
        check=True,
    )
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    assert [figures["players"] for figures in lines] == [2, 5]
    for figures in lines:
        assert figures["samples"] == 8 and figures["analyses"] >= 9
        assert 0 < figures["ms_per_analysis"] <= figures["ms_slowest"]
        assert figures["cpu_ms_first_turn"] > 0
