"""``bench/engine.py`` keeps its contract (its docstring); its figures are not judged."""

from tests.bench.bench_scripts import json_line


def test_engine_bench_prints_one_json_line() -> None:
    figures = json_line("engine.py", "--players", "10", "--seconds", "0.2", timeout=120)
    assert set(figures) == {"players", "rounds", "seconds", "rounds_per_s"}
    assert figures["players"] == 10 and figures["rounds"] > 0
    # "seconds" is rounded to the millisecond, so the rate agrees to within half a percent.
    expected = figures["rounds"] / figures["seconds"]
    assert abs(figures["rounds_per_s"] - expected) <= 0.005 * expected
