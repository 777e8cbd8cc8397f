"""The arena's referee: plays bots through the rules engine, each seeing only its own view.

The referee is the one place in the arena that holds the whole :class:`~nimmt.engine.Game`; a
bot is handed ``game.view(seat)`` and nothing else (docs/bots.md: every bot decides from
its own seat's view). Every decision is timed with :func:`time.perf_counter` around the
bot's call, so ``ms_per_move`` is the bot's own thinking time.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from nimmt.bots import Bot
from nimmt.engine import Game, Phase


@dataclass(slots=True)
class Clock:
    """Thinking time and number of decisions, per seat."""

    seconds: list[float]
    decisions: list[int]

    @classmethod
    def for_seats(cls, seats: int) -> Clock:
        return cls([0.0] * seats, [0] * seats)


@dataclass(slots=True)
class GamePlay:
    """One game (a single round, or a whole game) as the referee saw it."""

    game: Game
    penalties: list[int] = field(default_factory=list)
    """Bullheads by seat: the round's penalties, or the game's totals for a whole game."""
    clock: Clock | None = None


def play_round(game: Game, bots: Sequence[Bot], clock: Clock) -> None:
    """Deal nothing, just play the dealt round of ``game`` to its end with ``bots`` (by seat)."""
    while game.phase in (Phase.CHOOSING_CARDS, Phase.CHOOSING_ROW):
        if game.phase is Phase.CHOOSING_ROW:
            pending = game.pending_row_choice
            assert pending is not None
            seat = pending.seat
            started = time.perf_counter()
            row = bots[seat].choose_row(game.view(seat))
            clock.seconds[seat] += time.perf_counter() - started
            clock.decisions[seat] += 1
            game.choose_row(seat, row)
            continue
        for seat in game.waiting_for():
            started = time.perf_counter()
            card = bots[seat].choose_card(game.view(seat))
            clock.seconds[seat] += time.perf_counter() - started
            clock.decisions[seat] += 1
            game.play(seat, card)
            if game.phase is not Phase.CHOOSING_CARDS:
                break


def play_deal(
    bots: Sequence[Bot], rows: Sequence[Sequence[int]], hands: Sequence[Sequence[int]]
) -> GamePlay:
    """One round of 10 turns on the given deal, ``bots[seat]`` playing ``hands[seat]``."""
    game = Game(len(bots))
    game.apply_deal(rows, hands)
    clock = Clock.for_seats(len(bots))
    play_round(game, bots, clock)
    return GamePlay(game, list(game.history[-1].penalties or ()), clock)


def play_game(bots: Sequence[Bot], deal_rng: Callable[[int], random.Random]) -> GamePlay:
    """A whole game, to the end of the round in which someone passes 66; round ``r`` (0-based)
    is dealt by ``deal_rng(r)``, so that duplicate games share their deals."""
    game = Game(len(bots))
    clock = Clock.for_seats(len(bots))
    while game.phase is Phase.DEALING:
        game.deal(deal_rng(game.round))
        play_round(game, bots, clock)
    return GamePlay(game, list(game.totals), clock)
