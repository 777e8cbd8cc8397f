"""``bench/pump.py`` keeps its contract (its docstring): one JSON line of figures, every frame
queued sent; the figures themselves are not judged."""

from tests.bench.bench_scripts import json_line


def test_pump_bench_sends_every_frame_and_prints_one_json_line() -> None:
    figures = json_line("pump.py", "--connections", "30", "--rounds", "5", timeout=60)
    assert figures["frames"] == 30 * 5
    assert figures["pump_us_per_frame"] > 0
