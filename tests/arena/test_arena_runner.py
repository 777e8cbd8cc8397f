"""Duplicate deals, rotations, determinism, records and the referee's views."""

from __future__ import annotations

import json

from nimmt.arena import Match, play_block, play_deal, play_match, report
from nimmt.bots import make_bot
from nimmt.engine import SeatView
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
