"""The coach's analysis: exact figures on positions whose answer is certain, the shape of the
answer, determinism, hidden information, and the review of a whole record."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from nimmt.bots import Analysis, NoDecisionError, analyze
from nimmt.engine import DECK, Game, total_bullheads
from nimmt.records import RecordError
from nimmt.review import past_decisions, review

GOLDEN = Path(__file__).parents[1] / "records" / "golden"

FULL_ROW = (10, 11, 12, 13, 14)
"""A row of five cards: the next card on it takes them, 3 + 5 + 1 + 1 + 1 = 11 bullheads."""


def certain_card_position(seat: int = 0) -> Game:
    """Ten players at the round's ninth turn; ``seat`` holds 15 and 104.

    15 can only go on the full row (no card lies between 14 and 15), and every card the others
    can hold (16 to 33: all other cards were played or lie on the rows) is higher than 15 and
    goes on that row too. So 15 played now takes the row (11 bullheads) whatever the others do,
    and 104 (on the row of 90, which no other card can reach) never takes anything. Played
    later, 15 is safe: whatever the others play now, one of them takes the full row first, and
    15 then lands on the row of 1. So 15 now costs exactly 11, and 104 now costs exactly 0.
    """
    rows = [[1], list(FULL_ROW), [34], [90]]
    hands = [[16 + 2 * other, 17 + 2 * other] for other in range(9)]
    hands.insert(seat, [15, 104])
    held = {card for hand in hands for card in hand}
    starters = {row[0] for row in rows}
    played = [card for card in DECK if card not in held and card not in starters]
    assert len(played) == 80
    turns = [played[turn * 10 : (turn + 1) * 10] for turn in range(8)]
    return Game.from_position(rows=rows, hands=hands, played=turns)


@pytest.mark.parametrize("seat", [0, 6])
def test_a_card_that_takes_a_full_row_costs_the_row_beside_a_safe_card(seat: int) -> None:
    analysis = analyze(certain_card_position(seat).view(seat))
    assert analysis.kind == "card"
    assert [candidate.choice for candidate in analysis.candidates] == [15, 104]
    risky, safe = analysis.candidates
    assert total_bullheads(FULL_ROW) == 11
    assert risky.expected == 11.0
    assert safe.expected == 0.0
    assert analysis.best == 104
    assert risky.extra >= total_bullheads(FULL_ROW)
    assert (safe.extra, safe.stderr) == (0.0, 0.0)
    assert risky.stderr == 0.0  # the same in every sampled deal
    assert analysis.confidence == 1.0


ROWS_OF_KNOWN_COST = [[5, 6], [20, 21, 22], [55], [70, 77]]


def forced_row_choice(seat: int = 0, players: int = 2) -> Game:
    """The last turn: ``seat``'s 2 is below every row, so they must take one; the others' cards
    (50, 51, ...) go on a row after it."""
    hands = [[50 + other] for other in range(players - 1)]
    hands.insert(seat, [2])
    game = Game.from_position(rows=ROWS_OF_KNOWN_COST, hands=hands)
    for player, hand in enumerate(hands):
        game.play(player, hand[0])
    return game


@pytest.mark.parametrize(("seat", "players"), [(0, 2), (1, 2), (3, 5)])
def test_a_forced_row_choice_on_the_last_turn_costs_exactly_each_row(
    seat: int, players: int
) -> None:
    view = forced_row_choice(seat, players).view(seat)
    assert view.must_choose_row
    analysis = analyze(view, samples=64)
    costs = [total_bullheads(row) for row in ROWS_OF_KNOWN_COST]
    assert costs == [3, 9, 7, 8]
    assert analysis.kind == "row"
    assert [candidate.choice for candidate in analysis.candidates] == [0, 1, 2, 3]
    assert [candidate.expected for candidate in analysis.candidates] == costs
    assert [candidate.extra for candidate in analysis.candidates] == [0, 6, 4, 5]
    assert analysis.best == 0
    assert analysis.confidence == 1.0


def test_ties_go_to_the_lowest_choice() -> None:
    game = Game.from_position(rows=[[20], [5], [15], [55]], hands=[[2], [50]])
    game.play(0, 2)
    game.play(1, 50)
    analysis = analyze(game.view(0), samples=8)
    assert [c.expected for c in analysis.candidates] == [3, 2, 2, 7]  # 5 and 15 cost 2 each
    assert analysis.best == 1


def dealt_game(players: int = 4, seed: int = 11) -> Game:
    game = Game(players)
    game.deal(seed)
    return game


def test_every_card_of_the_hand_is_scored_in_order() -> None:
    game = dealt_game()
    analysis = analyze(game.view(2), samples=128, seed=5)
    assert analysis.kind == "card"
    assert analysis.samples == 128
    assert tuple(c.choice for c in analysis.candidates) == game.hand(2)
    best = analysis.candidate(analysis.best)
    assert best.expected == min(c.expected for c in analysis.candidates)
    assert (best.extra, best.stderr) == (0.0, 0.0)
    for candidate in analysis.candidates:
        assert candidate.extra == pytest.approx(candidate.expected - best.expected)
        assert candidate.extra >= 0 and candidate.stderr >= 0
        assert 0 <= candidate.expected <= 10 * 27  # no more than ten rows of bullheads
    assert 0.0 <= analysis.confidence <= 1.0


def test_the_same_seed_gives_the_same_analysis_and_another_may_not() -> None:
    view = dealt_game().view(0)
    first = analyze(view, samples=64, seed=3)
    assert analyze(view, samples=64, seed=3) == first
    assert isinstance(first, Analysis)
    others = {analyze(view, samples=64, seed=seed).candidates for seed in range(4, 8)}
    assert len(others) > 1  # the figures are estimates from sampled deals


def test_a_card_already_chosen_can_still_be_changed_so_the_whole_hand_is_scored() -> None:
    game = dealt_game()
    game.play(0, game.hand(0)[3])
    analysis = analyze(game.view(0), samples=16)
    assert tuple(c.choice for c in analysis.candidates) == game.hand(0)


def test_the_analysis_depends_only_on_the_seats_view() -> None:
    """Two games that look the same from seat 0 but hide different cards: same analysis."""
    rows = [[12], [37], [43], [58]]
    mine = [3, 14, 21, 40, 60, 66, 71, 80, 95, 101]
    others = [card for card in DECK if card not in mine and card not in (12, 37, 43, 58)]
    first = Game.from_position(rows=rows, hands=[mine, others[:10], others[10:20]])
    second = Game.from_position(rows=rows, hands=[mine, others[50:60], others[80:90]])
    assert first.view(0) == second.view(0)
    assert analyze(first.view(0), samples=64) == analyze(second.view(0), samples=64)


def test_no_decision_no_analysis() -> None:
    game = forced_row_choice()
    with pytest.raises(NoDecisionError):
        analyze(game.view(1))  # waits for player 1's row choice
    with pytest.raises(NoDecisionError):
        analyze(game.view(None))
    with pytest.raises(ValueError, match="at least one sampled deal"):
        analyze(dealt_game().view(0), samples=0)


# ---------------------------------------------------------------------------- whole records


def test_the_decisions_of_a_record_are_its_choices_with_the_views_of_the_time() -> None:
    record = json.loads((GOLDEN / "full_game.json").read_text())
    decisions = past_decisions(record, 3)
    rows_taken = [
        (number + 1, index + 1, turn["row"])
        for number, entry in enumerate(record["rounds"])
        for index, turn in enumerate(entry["turns"])
        if "row" in turn and turn["cards"].index(min(turn["cards"])) == 3
    ]
    assert [(d.round, d.turn, d.chosen) for d in decisions if d.kind == "row"] == rows_taken
    cards = [d for d in decisions if d.kind == "card"]
    assert len(cards) == 9 * len(record["rounds"])  # the last card of a round is no choice
    for decision in cards:
        played = record["rounds"][decision.round - 1]["turns"][decision.turn - 1]["cards"][3]
        assert decision.chosen == played and played in decision.view.hand
        assert decision.view.seat == 3 and decision.view.turn == decision.turn - 1


def test_a_review_reports_rows_from_1_and_losses_that_add_up() -> None:
    record = (GOLDEN / "full_game.json").read_text()
    result = review(record, 3, samples=32)
    assert (result["seat"], result["name"]) == (3, "Dan")
    assert result["decisions"]
    for entry in result["decisions"]:
        expected = {c["choice"]: c["expected"] for c in entry["candidates"]}
        assert entry["best"] == min(expected, key=lambda choice: (expected[choice], choice))
        assert entry["loss"] == pytest.approx(expected[entry["chosen"]] - expected[entry["best"]])
        assert entry["loss"] >= 0
        if entry["kind"] == "row":
            assert sorted(expected) == [1, 2, 3, 4]
    assert result["total_loss"] == pytest.approx(sum(e["loss"] for e in result["decisions"]))
    assert review(record, 3, samples=32) == result


def test_a_review_refuses_a_bad_record_or_seat() -> None:
    with pytest.raises(RecordError, match="not valid JSON"):
        review("{", 0)
    with pytest.raises(RecordError, match="no seat 4"):
        review((GOLDEN / "full_game.json").read_text(), 4)
