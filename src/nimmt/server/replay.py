"""A game record as the replay viewer steps through it (docs/protocol.md, "Replays").

:func:`replay_steps` checks a record with :func:`nimmt.records.replay_record`, then plays it
again through the engine, one turn at a time, and keeps what the table looked like after each
step: the deal of every round, every turn (the cards revealed, the engine's events of the turn,
the rows before and after it, every hand before it) and the score sheet at each round's end.
Nothing here applies a rule of its own: the rows, bullheads and totals are the engine's.

A record holds every hand, so only finished games of a table are replayed
(:meth:`~nimmt.server.service.GameService.record` refuses a game still running); a record file
brought by the reader is theirs and may stop anywhere.

>>> from nimmt.engine import Game
>>> from nimmt.records import to_record
>>> game = Game(2)
>>> game.deal(7)
>>> replay = replay_steps(to_record(game, ["Ana", "Ben"]))
>>> [(step["kind"], step["round"], step["turn"]) for step in replay["steps"]]
[('deal', 1, 0)]
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from nimmt.engine import CardPlaced, CardsRevealed, Game, GameOver, RoundScored, RowTaken
from nimmt.records import replay_record
from nimmt.server.serialize import event_to_json

STEP_EVENTS = (CardsRevealed, RowTaken, CardPlaced, RoundScored, GameOver)
"""The engine's events a step tells (choosing face down and dealt hands say nothing here)."""


def replay_steps(record: Mapping[str, Any] | str) -> dict[str, Any]:
    """The replay of ``record`` (a record object or its JSON text).

    Raises :class:`~nimmt.records.RecordError` for a record that breaks the format or the rules.
    """
    replayed = replay_record(record)
    players = list(replayed.players)
    # The record is known to be good now: play it again, this time stopping after every turn.
    data = [(log.rows, log.hands, log.turns) for log in replayed.game.history]
    game = Game(len(players))
    steps: list[dict[str, Any]] = []
    sheet: list[list[int]] = []
    for round_index, (rows, hands, turns) in enumerate(data):
        round_number = round_index + 1
        base = game.totals
        game.apply_deal([[card] for card in rows], hands)
        seen = game.event_count
        steps.append(_step(game, "deal", round_number, 0, sheet, base, events=[]))
        for turn_index, turn in enumerate(turns):
            rows_before = _rows(game)
            hands_before = _hands(game)
            game.play_turn(turn.cards, turn.row)
            events = [event for event in game.events[seen:] if isinstance(event, STEP_EVENTS)]
            seen = game.event_count
            turn_events = [e for e in events if not isinstance(e, (RoundScored, GameOver))]
            step = _step(
                game, "turn", round_number, turn_index + 1, sheet, base, events=turn_events
            )
            step.update(
                rows_before=rows_before,
                hands=hands_before,
                revealed=list(turn.cards),
                row_chosen=turn.row,
            )
            steps.append(step)
            scored = [e for e in events if isinstance(e, (RoundScored, GameOver))]
            if scored:
                score = next(e for e in scored if isinstance(e, RoundScored))
                sheet = [*sheet, list(score.penalties)]
                steps.append(
                    _step(
                        game,
                        "scored",
                        round_number,
                        turn_index + 1,
                        sheet,
                        game.totals,
                        events=scored,
                    )
                )
    return {
        "players": players,
        "finished": replayed.finished,
        "winners": list(replayed.winners),
        "steps": steps,
    }


def _rows(game: Game) -> list[list[int]]:
    return [list(row) for row in game.rows]


def _hands(game: Game) -> list[list[int]]:
    return [sorted(game.hand(seat)) for seat in range(game.players)]


def _step(
    game: Game,
    kind: str,
    round_number: int,
    turn: int,
    sheet: list[list[int]],
    base: tuple[int, ...],
    *,
    events: list[Any],
) -> dict[str, Any]:
    """What the table shows after a step. ``penalties`` are the round's so far (all zero once
    the round is scored: they moved to the sheet), ``totals`` the running totals: ``base``, the
    totals of the rounds before, with them."""
    scored = kind == "scored"
    penalties = [0] * game.players if scored else list(game.round_state().penalties)
    outcome = game.outcome
    return {
        "kind": kind,
        "round": round_number,
        "turn": turn,
        "rows": _rows(game),
        "rows_before": None,
        "hands": _hands(game) if kind == "deal" else [],
        "revealed": None,
        "row_chosen": None,
        "events": [event_to_json(event) for event in events],
        "penalties": penalties,
        "totals": [before + penalty for before, penalty in zip(base, penalties, strict=True)],
        "score_sheet": [list(line) for line in sheet],
        "outcome": (
            {"totals": list(outcome.totals), "winners": list(outcome.winners)}
            if outcome is not None and scored
            else None
        ),
    }
