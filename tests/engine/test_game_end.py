"""Round scoring and the end of the game (the rules page, "Scoring" and "End of the game").

The game ends only after a completed round in which someone has *more* than 66; exactly 66 plays
on. Every player with the lowest total wins, jointly when several share it. The cases are found by
a deterministic scan over seeded random games, and the scan asserts that it found each one.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from nimmt.engine import Game, Phase, RoundScored


def scored_rounds(players: int, seeds: range) -> Iterator[tuple[Game, RoundScored, Phase]]:
    """Every scored round of seeded random games, with the phase right after scoring."""
    for seed in seeds:
        rng = random.Random(seed)
        game = Game(players)
        while game.phase is not Phase.GAME_OVER:
            game.deal(rng)
            for _ in range(10):
                for seat in range(players):
                    game.play(seat, rng.choice(game.legal_cards(seat)))
                if game.phase is Phase.CHOOSING_ROW:
                    pending = game.pending_row_choice
                    assert pending is not None
                    game.choose_row(pending.seat, rng.randrange(4))
            scored = next(e for e in reversed(game.events) if isinstance(e, RoundScored))
            yield game, scored, game.phase


def test_exactly_66_plays_on_and_67_ends_the_game() -> None:
    seen_66 = seen_67 = 0
    for game, scored, phase in scored_rounds(5, range(400)):
        top = max(scored.totals)
        if top == 66:
            seen_66 += 1
            assert phase is Phase.DEALING, "exactly 66 must not end the game"
        elif top > 66:
            seen_67 += top == 67
            assert phase is Phase.GAME_OVER
        else:
            assert phase is Phase.DEALING
        assert scored.totals == game.totals
    assert seen_66 > 0 and seen_67 > 0


def test_all_players_with_the_lowest_total_win_jointly() -> None:
    joint = 0
    for game, scored, phase in scored_rounds(8, range(300)):
        if phase is not Phase.GAME_OVER:
            continue
        outcome = game.outcome
        assert outcome is not None
        lowest = min(scored.totals)
        assert outcome.winners == tuple(
            seat for seat, total in enumerate(scored.totals) if total == lowest
        )
        joint += len(outcome.winners) > 1
    assert joint > 0


def test_round_penalties_add_up_on_the_score_sheet() -> None:
    for game, scored, _ in scored_rounds(4, range(20)):
        sheet = game.view(None).score_sheet
        assert sheet[-1] == scored.penalties
        assert tuple(map(sum, zip(*sheet, strict=True))) == scored.totals
