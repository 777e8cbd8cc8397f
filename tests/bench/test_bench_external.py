"""``bench/external.py`` keeps its contract (its docstring); its figures are not judged."""

from tests.bench.bench_scripts import json_line


def test_external_bench_prints_one_json_line() -> None:
    figures = json_line("external.py", "--rounds", "2", timeout=120)
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
