"""The observation's seen slice in games set up from positions (``options={"position": ...}``).

A seat set up mid-round has seen the rows it was set up with, though no starter or reveal names
their cards: a row taken later must not make it forget them. After every step of random games
from random positions, the seen slice is the view's ``seen_cards()``, and that is every card the
seat was shown since the position: its hand then, the rows at every step, every reveal.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from nimmt.engine import Game, Phase, SeatView
from nimmt.env import ClassicEnv
from nimmt.env.encoding import SEEN


def random_position(rng: random.Random, players: int) -> dict[str, Any]:
    """A position reached by random play from a deal: the rows, the hands, and (or not) the
    turns played so far."""
    game = Game(players)
    game.deal(rng)
    for _ in range(rng.randrange(0, 9)):
        for seat in range(players):
            game.play(seat, rng.choice(game.hand(seat)))
        if game.pending_row_choice is not None:
            game.choose_row(game.pending_row_choice.seat, rng.randrange(4))
    view = game.view(None)
    position: dict[str, Any] = {
        "rows": [list(row) for row in game.rows],
        "hands": [list(game.hand(seat)) for seat in range(players)],
        "penalties": list(game.penalties),
    }
    if rng.random() < 0.5:
        position["played"] = [list(turn) for turn in view.played]
    return position


def shown(view: SeatView) -> set[int]:
    """The cards this view shows now."""
    cards = set(view.hand) | {card for row in view.rows for card in row}
    cards |= {card for turn in view.played for card in turn} | set(view.revealed or ())
    if view.chosen_card is not None:
        cards.add(view.chosen_card)
    return cards


@pytest.mark.parametrize("seed", range(40))
def test_the_seen_slice_keeps_every_card_shown_since_the_position(seed: int) -> None:
    rng = random.Random(seed)
    players = rng.randrange(2, 11)
    env = ClassicEnv(players=players, opponents="random")
    obs, info = env.reset(seed=seed, options={"position": random_position(rng, players)})
    remembered = shown(env.view())
    done = False
    while True:
        view = env.view()
        if view.phase is Phase.DEALING or view.phase is Phase.GAME_OVER:
            break  # the round is over: a new one starts with nothing seen
        remembered |= shown(view)
        seen = view.seen_cards()
        assert seen == remembered
        np.testing.assert_array_equal(np.flatnonzero(obs[SEEN]) + 1, sorted(seen))
        if done:
            break
        legal = np.flatnonzero(info["action_mask"])
        obs, _, done, _, info = env.step(int(rng.choice(legal)))


def test_a_row_taken_after_the_position_stays_seen() -> None:
    env = ClassicEnv(players=2)
    env.reset(
        options={"position": {"rows": [[12, 14], [37], [43], [58]], "hands": [[3, 60], [53, 70]]}}
    )
    obs, *_ = env.step(3 - 1)  # card 3 is below every row
    obs, *_ = env.step(104 + 1)  # seat 0 takes the row of 37
    assert env.view().rows[1] == (3,)
    assert obs[SEEN][37 - 1] == 1 and obs[SEEN][14 - 1] == 1


def test_the_observation_bounds_are_the_most_the_game_allows() -> None:
    from nimmt.engine import BULLHEADS, total_bullheads
    from nimmt.env.encoding import (
        MAX_ROUND_PENALTY,
        MAX_ROW_BULLHEADS,
        MAX_TOTAL,
        ROW_BULLHEADS,
        observation_space,
    )

    assert MAX_ROW_BULLHEADS == total_bullheads((55, 66, 77, 88, 99)) == 27
    assert MAX_ROUND_PENALTY == sum(sorted(BULLHEADS[1:], reverse=True)[:50]) == 117
    assert MAX_TOTAL == 66 + 117
    space = observation_space(4)
    assert list(space.high[ROW_BULLHEADS]) == [27] * 4
