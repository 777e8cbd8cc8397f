"""Running a bench script as a reader would, for the tests of its contract."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

BENCH = Path(__file__).parents[2] / "bench"


def json_line(script: str, *arguments: str, timeout: float) -> dict[str, Any]:
    """The figures ``bench/<script>`` prints with ``arguments`` and ``--json``: it must end
    well and print one JSON line, nothing else."""
    result = subprocess.run(
        [sys.executable, str(BENCH / script), *arguments, "--json"],
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 1, result.stdout
    figures: dict[str, Any] = json.loads(lines[0])
    return figures


def refused(script: str, *arguments: str, timeout: float = 60) -> str:
    """What ``bench/<script>`` says when it refuses ``arguments``: it must fail with an
    ``error:`` line and no traceback."""
    result = subprocess.run(
        [sys.executable, str(BENCH / script), *arguments],
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert result.returncode != 0 and result.stderr.startswith("error: "), result.stderr
    assert "Traceback" not in result.stderr
    return result.stderr


def is_host_pace(pace: object) -> bool:
    """A run's ``host_pace_ms``: the median of the probe's samples in the window, a CPU time
    in milliseconds."""
    return isinstance(pace, int | float) and not isinstance(pace, bool) and 0 < pace < 10_000
