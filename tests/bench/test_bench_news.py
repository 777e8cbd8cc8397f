"""``bench/news.py`` keeps its contract (its docstring): one JSON line of figures; the figures
themselves are not judged."""

import json
import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).parents[2] / "bench" / "news.py"


def test_news_bench_prints_one_json_line() -> None:
    result = subprocess.run(
        [sys.executable, str(SCRIPT), "--games", "2", "--json"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 1
    figures = json.loads(lines[0])
    assert figures["games"] == 2
    # A game has at least a round: 10 turns of 4 cards, each card a change.
    assert figures["changes"] >= 2 * 10 * 4
    assert figures["publish_us"] > 0 and figures["bytes_per_change"] > 0
