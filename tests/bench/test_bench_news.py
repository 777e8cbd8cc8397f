"""``bench/news.py`` keeps its contract (its docstring): one JSON line of figures; the figures
themselves are not judged."""

from tests.bench.bench_scripts import json_line


def test_news_bench_prints_one_json_line() -> None:
    figures = json_line("news.py", "--games", "2", timeout=60)
    assert figures["games"] == 2
    # A game has at least a round: 10 turns of 4 cards, each card a change.
    assert figures["changes"] >= 2 * 10 * 4
    assert figures["publish_us"] > 0 and figures["bytes_per_change"] > 0
