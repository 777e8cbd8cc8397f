"""``strong:objective=game``: in the round that may end the game, play to win it."""

from __future__ import annotations

import numpy as np
import pytest

from nimmt.bots import make_bot
from nimmt.bots.batchsim import Batch, batch_from_rows, relative_scores
from nimmt.bots.objective import GameObjective
from nimmt.engine import Game, SeatView


def _view(totals: list[int], seat: int) -> SeatView:
    game = Game.from_position(
        rows=[[10], [20], [30], [40]],
        hands=[[11, 12], [21, 22], [31, 32], [41, 42]],
        totals=totals,
        round=5,
    )
    return game.view(seat)


def _batch(view: SeatView, penalties: list[list[int]]) -> Batch:
    hands = np.zeros((len(penalties), view.players, 2), dtype=np.int64)
    batch = batch_from_rows(view.rows, hands)
    batch.penalties = np.asarray(penalties, dtype=np.int64)
    return batch


def test_how_many_futures_must_end_the_game_is_a_setting() -> None:
    # Half of the futures end the game: enough for a threshold of 0.5, not for one of 0.9.
    view = _view([60, 20, 30, 40], 1)
    futures = [[0, 0, 0, 7], [0, 0, 0, 0]]
    assert GameObjective(view, 0.5)(_batch(view, futures))[0] < -0.9
    assert GameObjective(view, 0.9)(_batch(view, futures)).tolist() == pytest.approx(
        relative_scores(_batch(view, futures)).tolist()
    )


def test_a_round_that_cannot_end_the_game_is_judged_by_the_relative_score() -> None:
    view = _view([10, 20, 30, 15], 0)
    objective = GameObjective(view)
    batch = _batch(view, [[5, 0, 0, 3], [0, 13, 2, 0]])
    assert objective(batch).tolist() == relative_scores(batch).tolist()
    assert objective.ends is False
    # Decided once per decision: a later batch of the same decision is judged alike.
    late = _batch(view, [[0, 50, 0, 0], [0, 60, 0, 0]])
    assert objective(late).tolist() == relative_scores(late).tolist()


def test_a_round_that_may_end_the_game_is_judged_by_the_share_of_the_win() -> None:
    # Seat 1 decides: the batch orders the seats 1, 2, 3, 0 (totals 20, 30, 40, 60).
    view = _view([60, 20, 30, 40], 1)
    objective = GameObjective(view)
    scores = objective(
        _batch(
            view,
            [
                [0, 0, 0, 7],  # seat 0 passes 66: seat 1 alone lowest wins all
                [10, 0, 0, 7],  # 30, 30, 40, 67: a tie of two
                [0, 25, 0, 7],  # 20, 55, 40, 67: alone lowest again
                [30, 0, 0, 7],  # 50, 30, 40, 67: another wins
                [0, 0, 0, 0],  # nobody passes 66: the game goes on
                [3, 0, 0, 7],  # won as the first, with 3 bullheads more
            ],
        )
    )
    assert objective.ends is True
    assert scores[:4].tolist() == pytest.approx([-1.0, -0.5, -1.0, 0.0], abs=0.01)
    # Two futures that both win: the one with fewer bullheads for seat 1 is better.
    assert scores[0] < scores[5] < scores[1]
    # Leading by 10 with a round or so to go: likely, not surely, the winner.
    assert -1.0 < scores[4] < -0.5


def test_the_lead_counts_more_the_fewer_rounds_are_left() -> None:
    # Seat 1 leads every other seat by 10, with the others near 66 or far from it.
    chances = []
    for totals in ([60, 50, 60, 60], [30, 20, 30, 30]):
        view = _view(totals, 1)
        objective = GameObjective(view)
        objective.ends = True
        chances.append(-objective(_batch(view, [[0, 0, 0, 0]]))[0])
    near, far = chances
    assert 0.25 < far < near < 1.0


def test_game_objective_settings_parse_and_play_as_hard_while_the_game_cannot_end() -> None:
    game = Game(4)
    game.deal(21)
    view = game.view(2)
    assert make_bot("strong:core=numba,objective=game", 5).choose_card(view) == make_bot(
        "hard", 5
    ).choose_card(view)
    with pytest.raises(ValueError, match="objective must be one of round, game"):
        make_bot("strong:objective=match", 1)
    with pytest.raises(ValueError, match="game_from must be more than 0 and at most 1"):
        make_bot("strong:objective=game,game_from=1.5", 1)
