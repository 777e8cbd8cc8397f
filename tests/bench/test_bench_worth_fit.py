"""``bench/worth_fit.py`` keeps its contract (its docstring): it plays recorded positions'
worths out, fits the coefficients that read them and writes what the bots can load; the
figures themselves are not judged. ``bench/opponent_fit.py --learned`` reads worths by them."""

from __future__ import annotations

from pathlib import Path

from tests.bench.bench_scripts import json_line, refused
from tests.bench.test_bench_opponent_fit import generate

from nimmt.bots.strong import parse_strong
from nimmt.bots.worthfit import read_coefficients


def test_the_fit_writes_coefficients_a_bot_and_the_opponent_fit_can_use(tmp_path: Path) -> None:
    decisions = tmp_path / "greedy.jsonl"
    generate("greedy", decisions, players=3, deals=2, seed=4)
    out, labels = tmp_path / "worths.json", tmp_path / "labels.npz"
    options = ("--rollouts", "4", "--labels", str(labels), "--out", str(out), "--held-out", "0.5")
    figures = json_line("worth_fit.py", str(decisions), *options, timeout=120)
    assert figures["positions"] == 2 * 3 * 9 and figures["cards"] == 2 * 3 * sum(range(2, 11))
    assert figures["held_out_r2"] <= 1 and figures["train_r2"] <= 1
    coefficients = read_coefficients(out)
    assert parse_strong(f"level2=0.4,level2_worth={out}").level2_worth == str(out)
    # The played-out worths are kept: a second fit reads them back and fits the same.
    again = json_line("worth_fit.py", str(decisions), *options, timeout=120)
    assert again == figures and list(figures["by_seats"]) == ["3"]
    assert list(coefficients) == [3]
    assert (read_coefficients(out)[3] == coefficients[3]).all()
    learned = json_line(
        "opponent_fit.py", str(decisions), "--learned", str(out), "--limit", "12", timeout=120
    )
    assert learned["rollouts"] == "learned"
    assert (
        learned["files"]["greedy.jsonl"]["with_worth"] >= learned["files"]["greedy.jsonl"]["model"]
    )


def test_a_bad_request_is_one_error_line_before_any_work(tmp_path: Path) -> None:
    decisions = tmp_path / "greedy.jsonl"
    generate("greedy", decisions)
    # One deal cannot be split into one to fit and one to judge.
    for options in (("--held-out", "1"), ("--labels", "a.npz", "b.npz"), ("--rollouts", "2")):
        refused("worth_fit.py", str(decisions), *options)
