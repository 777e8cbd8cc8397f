"""``bench/env.py`` and the training example keep their contracts (their docstrings); their
figures are not judged here."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
from tests.bots.test_bots_play import Watched, play_round

from nimmt.bots import make_bot
from nimmt.bots.saved import load_policy
from nimmt.engine import Game

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
        "hidden",
        "vector_random_steps_per_s",
        "vector_greedy_steps_per_s",
        "vector_selfplay_steps_per_s",
        "selfplay_vs_greedy",
    }
    assert (figures["players"], figures["opponents"], figures["num_envs"]) == (4, "greedy", 32)
    assert figures["single_steps_per_s"] > 0 and figures["vector_steps_per_s"] > 0
    ratio = figures["vector_steps_per_s"] / figures["single_steps_per_s"]
    assert abs(figures["speedup"] - ratio) <= 0.01 * ratio
    assert figures["vector_selfplay_steps_per_s"] > 0 and figures["hidden"] == 16
    ratio = figures["vector_selfplay_steps_per_s"] / figures["vector_greedy_steps_per_s"]
    assert abs(figures["selfplay_vs_greedy"] - ratio) <= 0.01 * ratio


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
    assert len(blocks) == 6  # every example on the page runs (a new one raises the count)
    for block in blocks:
        exec(compile(block.split("```")[0], "docs/env.md", "exec"), {})


def example(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, ROOT / "docs" / "examples" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_self_play_training_learns_and_saves_a_policy_that_plays(tmp_path: Path) -> None:
    """A tiny budget: 8 updates of 64 games. The untrained network (random weights) loses
    heavily to three ``greedy``; 8 updates already take several bullheads a round off that."""
    selfplay = example("train_selfplay")
    network, curve = selfplay.train(
        600, iterations=8, num_envs=64, seed=3, eval_every=8, eval_envs=64, eval_deals=256
    )
    assert [point["iteration"] for point in curve] == [0, 8]
    assert curve[1]["rounds"] > 64 * 8  # more than a round a game per update
    assert curve[1]["mean_bullheads"] < curve[0]["mean_bullheads"] - 3
    path = network.save(tmp_path / "tiny.npz")
    loaded = load_policy(path)
    np.testing.assert_array_equal(loaded.w1, network.w1)
    assert loaded.info["iterations"] == 8 and loaded.info["rounds"] == curve[1]["rounds"]
    again = selfplay.evaluate(loaded, 64, 10_000, 256)  # the file plays as the network did
    assert again == {key: curve[1][key] for key in ("mean_bullheads", "mean_reward")}
    game = Game(4)
    game.deal(1)
    bots = [Watched(make_bot(f"policy:{path}"), seat, game) for seat in range(4)]
    play_round(game, bots)
    assert sum(bot.decisions for bot in bots) >= 40


@pytest.mark.slow
def test_the_self_play_example_runs_from_the_command_line(tmp_path: Path) -> None:
    out = tmp_path / "p.npz"
    lines = run(
        "docs/examples/train_selfplay.py",
        *("--seconds", "60", "--iterations", "2", "--num-envs", "16", "--eval-every", "1"),
        *("--json", "--out", str(out)),
    )
    curve = [json.loads(line) for line in lines]
    assert [point.get("iteration") for point in curve[:-1]] == [0, 1, 2]
    assert curve[-1] == {"saved": str(out)} and load_policy(out).info["iterations"] == 2
