"""``bench/arena_records.py`` gives the arena's own figures from the records of a run."""

import json
import subprocess
import sys
from pathlib import Path

from nimmt.arena import Match, play_match, report

SCRIPT = Path(__file__).parents[2] / "bench" / "arena_records.py"


def test_the_figures_from_records_are_the_arenas(tmp_path: Path) -> None:
    match = Match(("mc:2", "greedy", "random"), 6, 5, keep_records=True)
    results = play_match(match)
    for result in results:
        for name, text in result.records:
            (tmp_path / name).write_text(text, encoding="utf-8")
    # A deal cut short (one rotation missing) is left out, as the run had not finished it.
    (tmp_path / "deal00006-rotation03.json").unlink()
    arena = report(Match(match.bots, 5, 5), results[:5])
    output = subprocess.run(
        [sys.executable, str(SCRIPT), str(tmp_path)], capture_output=True, text=True, check=True
    )
    figures = json.loads(output.stdout)
    assert figures["deals"] == 5
    for ours, theirs in zip(figures["bots"], arena["bots"], strict=True):
        del theirs["ms_per_move"]
        assert ours == theirs
