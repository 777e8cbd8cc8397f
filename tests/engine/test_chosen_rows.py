"""A view's ``chosen_rows`` with its ``round_rows`` and ``played`` tell where every card of the
round went: checked here against the engine's own events, for thousands of seeded turns. The
same positions, with what the engine said happened, are kept in ``tests/js/fixtures/turns.json``
for the browser's game log (``tests/js/log.test.mjs`` resolves them with ``js/table/log.js``);
this test fails when that file no longer matches the engine (rewrite it with
``NIMMT_WRITE_FIXTURES=1``)."""

from __future__ import annotations

import json
import os
import random
from pathlib import Path
from typing import Any

from nimmt.engine import CardPlaced, CardsRevealed, Game, Phase, RowTaken, SeatView

FIXTURE = Path(__file__).resolve().parents[1] / "js" / "fixtures" / "turns.json"


def view_json(view: SeatView) -> dict[str, Any]:
    pending = view.pending_row_choice
    return {
        "round": view.round,
        "round_rows": list(view.round_rows),
        "played": [list(turn) for turn in view.played],
        "chosen_rows": list(view.chosen_rows),
        "revealed": list(view.revealed) if view.revealed is not None else None,
        "pending_row_choice": (
            {"seat": pending.seat, "card": pending.card} if pending is not None else None
        ),
    }


def turns_told(game: Game, since: int) -> list[dict[str, Any]]:
    """The round's turns as the engine's events since event ``since`` told them."""
    turns: list[dict[str, Any]] = []
    taking: dict[str, Any] | None = None
    for event in game.events[since:]:
        if isinstance(event, CardsRevealed):
            turns.append({"turn": event.turn, "moves": []})
        elif isinstance(event, RowTaken):
            taking = {"cards": list(event.cards), "bullheads": event.bullheads,
                      "chosen": event.chosen}  # fmt: skip
        elif isinstance(event, CardPlaced):
            move = {"card": event.card, "seat": event.seat, "row": event.row, "took": taking}
            turns[-1]["moves"].append(move)
            taking = None
    return turns


def play_games(seed: int, games: int) -> list[dict[str, Any]]:
    """Random games; a snapshot of the round at every turn of every round."""
    rng = random.Random(seed)
    snapshots = []
    for _ in range(games):
        game = Game(rng.randint(2, 10))
        while game.phase is not Phase.GAME_OVER:
            if game.phase is Phase.DEALING:
                game.deal(rng)
                round_start = len(game.events)
            elif game.phase is Phase.CHOOSING_ROW:
                pending = game.view(None).pending_row_choice
                assert pending is not None
                snapshots.append((game, view_json(game.view(None)), round_start))
                game.choose_row(pending.seat, rng.randrange(4))
            else:
                for seat in game.waiting_for():
                    game.play(seat, rng.choice(game.legal_cards(seat)))
            if game.phase is not Phase.CHOOSING_ROW:
                snapshots.append((game, view_json(game.view(None)), round_start))
    return [
        {"view": view, "turns": turns_told(game, start)[: len(view["played"])]}
        for game, view, start in snapshots
    ]


def test_chosen_rows_tell_where_every_card_went() -> None:
    checked = 0
    for entry in play_games(seed=1, games=30):
        view, turns = entry["view"], entry["turns"]
        assert len(view["chosen_rows"]) == len(view["played"]) == len(turns)
        for chosen, turn in zip(view["chosen_rows"], turns, strict=True):
            first = turn["moves"][0]
            if chosen is None:
                assert not (first["took"] and first["took"]["chosen"])
            else:
                assert first["took"]["chosen"] and first["row"] == chosen
            checked += 1
    assert checked > 3000


def test_the_browser_logs_fixture_matches_the_engine() -> None:
    # Every round of a game as it stands after its last turn, and a few row choices awaited.
    entries = play_games(seed=7, games=1)
    finished = [entry for entry in entries if len(entry["view"]["played"]) == 10]
    waiting = [entry for entry in entries if entry["view"]["pending_row_choice"]]
    entries = finished + waiting[:: max(1, len(waiting) // 4)][:4]
    wanted = json.dumps(entries, indent=None, separators=(",", ":")) + "\n"
    if os.environ.get("NIMMT_WRITE_FIXTURES"):
        FIXTURE.write_text(wanted)
    assert FIXTURE.read_text() == wanted, "tests/js/fixtures/turns.json is out of date"
