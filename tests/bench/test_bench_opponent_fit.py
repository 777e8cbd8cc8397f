"""``bench/opponent_fit.py`` keeps its contract (its docstring) on decisions that
``scripts/train_policy.py generate`` records; the figures themselves are not judged."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.bench.bench_scripts import BENCH, json_line, refused

SCRIPTS = BENCH.parent / "scripts"


def generate(
    bot: str, out: Path, players: int = 4, deals: int = 1, seed: int = 3
) -> list[dict[str, Any]]:
    subprocess.run(
        [
            *(sys.executable, str(SCRIPTS / "train_policy.py"), "generate", "--bot", bot),
            *("--players", str(players), "--deals", str(deals), "--seed", str(seed)),
            *("--out", str(out)),
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    return [json.loads(line) for line in out.read_text().splitlines()]


def test_decisions_record_what_the_seat_had_not_seen(tmp_path: Path) -> None:
    lines = generate("greedy", tmp_path / "greedy.jsonl")
    assert len(lines) == 4 * 9  # every card decision with a choice: hands of 10 to 2 cards
    # Whose decision it was: every seat once a turn, in the one deal.
    assert [(line["deal"], line["seat"]) for line in lines] == [(0, seat % 4) for seat in range(36)]
    for line in lines:
        seen = set(line["hand"]) | {card for row in line["rows"] for card in row}
        unseen = set(line["unseen"])
        assert not unseen & seen and line["card"] in line["hand"]
        assert len(unseen | seen) <= 104


def test_the_fit_prints_each_file_s_likelihoods_and_refuses_old_files(tmp_path: Path) -> None:
    decisions = tmp_path / "greedy.jsonl"
    generate("greedy", decisions)
    figures = json_line("opponent_fit.py", str(decisions), "--rollouts", "4", timeout=120)
    fitted = figures["files"]["greedy.jsonl"]
    assert fitted["decisions"] == 36 and figures["rollouts"] == 4
    # The weight is fitted to this file, and 0 (the model alone) is one it tried.
    assert fitted["with_worth"] >= fitted["model"] and fitted["own_weight"] == figures["weight"]
    for missing, options in (("unseen", ()), ("seat", ("--adaptive",))):
        old = tmp_path / "old.jsonl"
        line = json.loads(decisions.read_text().splitlines()[0])
        del line[missing]
        old.write_text(json.dumps(line) + "\n")
        refused("opponent_fit.py", str(old), *options)
    absent = tmp_path / "absent.json"
    assert "--learned" in refused("opponent_fit.py", str(decisions), "--learned", str(absent))


def test_the_adaptive_weights_predict_each_decision_from_its_seat_s_plays(
    tmp_path: Path,
) -> None:
    decisions = tmp_path / "greedy.jsonl"
    generate("greedy", decisions)
    options = ("--rollouts", "4", "--adaptive", "--hands", "2", "--futures", "2", "--limit", "12")
    figures = json_line("opponent_fit.py", str(decisions), *options, timeout=120)
    fitted = figures["files"]["greedy.jsonl"]
    assert fitted["decisions"] == 12
    # The mean log-probability of a card under a mixture of the weights.
    assert -10 < fitted["adaptive"] < 0


def test_selfplay_writes_weights_that_hard_s_search_takes_for_its_own_cards(
    tmp_path: Path,
) -> None:
    from nimmt.bots import make_bot
    from nimmt.bots.policy import FEATURE_NAMES, shipped_weights
    from nimmt.engine import Game

    out = tmp_path / "selfplay.json"
    command = [sys.executable, str(SCRIPTS / "train_policy.py"), "selfplay", "--out", str(out)]
    subprocess.run(
        [*command, "--updates", "3", "--rounds", "16"], check=True, capture_output=True, timeout=120
    )
    document = json.loads(out.read_text())
    assert document["features"] == list(FEATURE_NAMES)
    # Trained from the shipped weights: three steps move them, a little.
    moved = abs(shipped_weights(str(out)) - shipped_weights()).max()
    assert 0 < moved < 1
    again = tmp_path / "again.json"
    subprocess.run(
        [*command[:-1], str(again), "--updates", "3", "--rounds", "16"],
        check=True,
        capture_output=True,
        timeout=120,
    )
    assert again.read_text() == out.read_text()  # the same seed, the same weights
    bot = make_bot(f"strong:own_weights={out},samples=16,more=16,row_samples=16", 1)
    game = Game(4)
    game.deal(4)
    assert bot.choose_card(game.view(0)) in game.view(0).hand
