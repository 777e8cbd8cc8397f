"""``bench/search_core.py`` keeps its contract (its docstring); its figures are not judged."""

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).parents[2] / "bench" / "search_core.py"
SMALL = "samples=32,more=32,stages=1,row_samples=32,belief=0"


def test_search_core_bench_prints_both_cores_per_decision() -> None:
    result = subprocess.run(
        [sys.executable, str(SCRIPT), "--players", "3", "--settings", SMALL, "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    figures = json.loads(result.stdout)
    assert figures["players"] == 3 and figures["decisions"] == 2 * 3 * 9
    assert set(figures["cpu_ms_per_decision"]) == {"numpy", "numba"}
    assert all(value > 0 for value in figures["cpu_ms_per_decision"].values())
    assert 0 <= figures["same_card_share"] <= 1
