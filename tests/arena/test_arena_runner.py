"""Duplicate deals, rotations, determinism, records and the referee's views."""

from __future__ import annotations

import json
import random

from nimmt.arena import Match, play_block, play_deal, play_match, report
from nimmt.arena.runner import DecisionSeeded
from nimmt.bots import make_bot
from nimmt.engine import Game, Phase, SeatView
from nimmt.records import replay_record


def test_every_bot_plays_every_hand_from_every_seat() -> None:
    match = Match(("greedy", "random", "mc:4"), blocks=1, seed=5, keep_records=True)
    result = play_block(match, 0)
    hands_of_bot: dict[str, set[tuple[int, ...]]] = {}
    seats_of_bot: dict[str, set[int]] = {}
    for name, text in result.records:
        record = json.loads(text)
        for seat, player in enumerate(record["players"]):
            hand = tuple(record["rounds"][0]["hands"][seat])
            hands_of_bot.setdefault(player, set()).add(hand)
            seats_of_bot.setdefault(player, set()).add(seat)
        assert name.startswith("deal00001-rotation")
    assert len(result.records) == 3
    # The same deal each time: every bot held each of the three hands once, from each seat.
    all_hands = set().union(*hands_of_bot.values())
    assert len(all_hands) == 3
    for player in ("greedy #1", "random #2", "mc:4 #3"):
        assert hands_of_bot[player] == all_hands
        assert seats_of_bot[player] == {0, 1, 2}


def test_records_replay_to_the_scores_the_arena_counted() -> None:
    match = Match(("greedy", "mc:4"), blocks=2, seed=3, keep_records=True)
    for result in play_match(match):
        for (_, text), scores in zip(result.records, result.scores, strict=True):
            record = json.loads(text)
            penalties = replay_record(text).rounds[0].penalties
            by_bot = {
                player.split(" #")[1]: penalty
                for player, penalty in zip(record["players"], penalties, strict=True)
            }
            assert [by_bot["1"], by_bot["2"]] == scores


def test_the_same_seed_gives_the_same_games_whatever_the_jobs() -> None:
    match = Match(("mc:4", "greedy", "random"), blocks=4, seed=8)
    serial = [result.scores for result in play_match(match, jobs=1)]
    parallel = [result.scores for result in play_match(match, jobs=2)]
    assert serial == parallel
    other = [result.scores for result in play_match(Match(match.bots, 4, seed=9))]
    assert other != serial


def test_report_has_the_contracted_fields() -> None:
    match = Match(("mc:4", "greedy", "greedy"), blocks=3, seed=2)
    figures = report(match, play_match(match))
    assert (figures["seats"], figures["deals"], figures["games"], figures["seed"]) == (3, 3, 9, 2)
    assert [bot["bot"] for bot in figures["bots"]] == ["mc:4", "greedy", "greedy"]
    for bot in figures["bots"]:
        low, high = bot["ci95"]
        assert low <= bot["mean"] <= high
        low, high = bot["vs_others_ci95"]
        assert low <= bot["vs_others"] <= high
        assert 0 <= bot["win_share"] <= 1
        assert bot["ms_per_move"] >= 0
    assert abs(sum(bot["win_share"] for bot in figures["bots"]) - 1.0) < 1e-3
    # The relative figures of a whole table sum to zero.
    assert abs(sum(bot["vs_others"] for bot in figures["bots"])) < 1e-2


def test_whole_games_play_on_until_someone_passes_66() -> None:
    match = Match(("greedy", "random"), blocks=1, seed=4, whole_games=True, keep_records=True)
    (result,) = play_match(match)
    for (_, text), scores in zip(result.records, result.scores, strict=True):
        replayed = replay_record(text)
        assert replayed.finished
        assert max(scores) > 66
    assert result.rounds >= 2
    figures = report(match, [result])
    assert figures["mode"] == "games" and figures["rounds"] == result.rounds


class Spy:
    """A greedy bot that remembers every view it was given."""

    def __init__(self) -> None:
        self.views: list[SeatView] = []
        self.inner = make_bot("greedy")

    @property
    def name(self) -> str:
        return "spy"

    def choose_card(self, view: SeatView) -> int:
        self.views.append(view)
        return self.inner.choose_card(view)

    def choose_row(self, view: SeatView) -> int:
        self.views.append(view)
        return self.inner.choose_row(view)


def test_the_referee_gives_each_bot_only_its_own_seats_view() -> None:
    spies = [Spy() for _ in range(3)]
    hands = [list(range(1 + 10 * seat, 11 + 10 * seat)) for seat in range(3)]
    play = play_deal(spies, [[100], [101], [102], [103]], hands)
    assert play.clock is not None and play.clock.decisions[0] >= 10
    for seat, spy in enumerate(spies):
        assert {view.seat for view in spy.views} == {seat}
        assert spy.views[0].hand == tuple(hands[seat])
        for view in spy.views:
            # Never a card of another seat that has not been revealed.
            others = {card for other in range(3) if other != seat for card in hands[other]}
            still_hidden = others - {card for cards in view.played for card in cards}
            still_hidden -= set(view.revealed or ())
            assert not still_hidden & set(view.hand)


def _views_of_a_round(seed: int) -> list[SeatView]:
    """Seat 0's view at each turn of a round that three greedy seats play."""
    game = Game(3)
    game.deal(random.Random(seed))
    greedy = make_bot("greedy", 0)
    views = []
    while game.phase is Phase.CHOOSING_CARDS or game.phase is Phase.CHOOSING_ROW:
        if game.phase is Phase.CHOOSING_ROW:
            pending = game.pending_row_choice
            assert pending is not None
            game.choose_row(pending.seat, greedy.choose_row(game.view(pending.seat)))
            continue
        views.append(game.view(0))
        for seat in game.waiting_for():
            game.play(seat, greedy.choose_card(game.view(seat)))
            if game.phase is not Phase.CHOOSING_CARDS:
                break
    return views


def test_a_decision_seeded_bot_draws_the_same_at_a_decision_whatever_came_before() -> None:
    for seed in range(6):
        views = _views_of_a_round(seed)
        fresh = [DecisionSeeded("random", 4, seed, 0, 1).choose_card(view) for view in views]
        # One bot asked every decision in turn chooses as a new one asked each alone.
        playing = DecisionSeeded("random", 4, seed, 0, 1)
        assert [playing.choose_card(view) for view in views] == fresh
        # The seat and the block are part of the decision's seed.
        others = [DecisionSeeded("random", 4, seed, 0, 2).choose_card(view) for view in views]
        assert others != fresh or len(views) < 3


def test_decision_seeds_replay_whatever_the_jobs_and_say_so() -> None:
    match = Match(
        ("mc:4", "random", "random"), blocks=3, seed=8, decision_seeds=True, keep_records=True
    )
    serial = play_match(match, jobs=1)
    assert [result.scores for result in play_match(match, jobs=2)] == [
        result.scores for result in serial
    ]
    default = play_match(Match(match.bots, 3, seed=8))
    assert [result.scores for result in default] != [result.scores for result in serial]
    assert report(match, serial)["decision_seeds"] is True
    assert "decision_seeds" not in report(Match(match.bots, 3, seed=8), default)
    assert all(
        json.loads(text)["meta"]["arena"]["decision_seeds"] is True
        for result in serial
        for _, text in result.records
    )
