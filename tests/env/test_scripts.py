"""``bench/env.py`` and the training example keep their contracts (their docstrings); their
figures are not judged here."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]


def run(script: str, *arguments: str) -> list[str]:
    result = subprocess.run(
        [sys.executable, str(ROOT / script), *arguments],
        capture_output=True,
        text=True,
        check=True,
    )
    assert result.stderr == ""
    return result.stdout.splitlines()


def test_env_bench_prints_one_json_line() -> None:
    (line,) = run("bench/env.py", "--seconds", "0.2", "--num-envs", "32", "--json")
    figures = json.loads(line)
    assert set(figures) == {
        "players",
        "opponents",
        "num_envs",
        "single_steps_per_s",
        "vector_steps_per_s",
        "speedup",
    }
    assert (figures["players"], figures["opponents"], figures["num_envs"]) == (4, "greedy", 32)
    assert figures["single_steps_per_s"] > 0 and figures["vector_steps_per_s"] > 0
    ratio = figures["vector_steps_per_s"] / figures["single_steps_per_s"]
    assert abs(figures["speedup"] - ratio) <= 0.01 * ratio


@pytest.mark.slow
def test_the_training_example_runs_and_prints_its_curve() -> None:
    lines = run(
        "docs/examples/train_linear.py",
        *("--seconds", "2", "--num-envs", "32", "--block", "64", "--json", "--reference"),
    )
    references = [json.loads(line) for line in lines[:2]]
    assert [reference["reference"] for reference in references] == ["uniform", "greedy"]
    curve = [json.loads(line) for line in lines[2:]]
    assert curve, "no block of episodes finished in 2 seconds"
    assert [point["episodes"] for point in curve] == [64 * (n + 1) for n in range(len(curve))]
    assert all(
        set(point) == {"episodes", "seconds", "mean_reward", "mean_bullheads"} for point in curve
    )


def test_the_code_in_docs_env_md_runs() -> None:
    text = (ROOT / "docs" / "env.md").read_text()
    blocks = text.split("```python\n")[1:]
    assert len(blocks) == 3
    for block in blocks:
        exec(compile(block.split("```")[0], "docs/env.md", "exec"), {})
