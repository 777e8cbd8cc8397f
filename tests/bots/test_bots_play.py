"""Every bot makes legal choices, decides from its own view only, and is deterministic by seed."""

from __future__ import annotations

import random

import pytest

from nimmt.bots import BOT_NAMES, Bot, UnknownBotError, make_bot
from nimmt.engine import Game, Phase, SeatView

# Small searches keep the suite fast; ``hard`` itself is played in one round below.
FAST_BOTS = ["random", "greedy", "mc:8", "easy", "medium", "search:samples=16,policy=greedy"]


class Watched:
    """Wraps a bot and checks every view it is given belongs to its own seat."""

    def __init__(self, bot: Bot, seat: int, game: Game) -> None:
        self.bot, self.seat, self.game = bot, seat, game
        self.decisions = 0

    @property
    def name(self) -> str:
        return self.bot.name

    def choose_card(self, view: SeatView) -> int:
        assert view.seat == self.seat and view.hand == self.game.hand(self.seat)
        card = self.bot.choose_card(view)
        assert card in view.legal_cards()
        self.decisions += 1
        return card

    def choose_row(self, view: SeatView) -> int:
        assert view.must_choose_row
        row = self.bot.choose_row(view)
        assert row in range(4)
        self.decisions += 1
        return row


def play_round(game: Game, bots: list[Watched]) -> None:
    while game.phase in (Phase.CHOOSING_CARDS, Phase.CHOOSING_ROW):
        if game.phase is Phase.CHOOSING_ROW:
            pending = game.pending_row_choice
            assert pending is not None
            game.choose_row(pending.seat, bots[pending.seat].choose_row(game.view(pending.seat)))
            continue
        for seat in game.waiting_for():
            game.play(seat, bots[seat].choose_card(game.view(seat)))


@pytest.mark.parametrize("players", [2, 4, 10])
@pytest.mark.parametrize("name", FAST_BOTS)
def test_bots_make_legal_choices_in_whole_rounds(name: str, players: int) -> None:
    for seed in range(3):
        game = Game(players)
        game.deal(seed)
        bots = [Watched(make_bot(name, seed * 10 + seat), seat, game) for seat in range(players)]
        play_round(game, bots)
        assert game.turn == 10 or game.phase is not Phase.CHOOSING_CARDS
        assert sum(bot.decisions for bot in bots) >= 10 * players


def test_hard_plays_a_legal_round() -> None:
    game = Game(4)
    game.deal(3)
    bots = [Watched(make_bot("hard", seat), seat, game) for seat in range(4)]
    play_round(game, bots)
    assert game.history[-1].penalties is not None


@pytest.mark.parametrize("name", ["mc:8", "search:samples=16", "search:samples=16,policy=greedy"])
def test_bots_choose_rows_from_their_own_view(name: str) -> None:
    # Seat 0 holds 1, the lowest card: it must choose a row on the first turn.
    hands = [list(range(1, 11)), list(range(60, 70)), list(range(70, 80)), list(range(80, 90))]
    game = Game(4)
    game.apply_deal(rows=[[20], [30], [40], [50]], hands=hands)
    for seat in range(1, 4):
        game.play(seat, hands[seat][0])
    game.play(0, 1)
    assert game.phase is Phase.CHOOSING_ROW
    row = make_bot(name, 1).choose_row(game.view(0))
    assert row in range(4)


@pytest.mark.parametrize("name", ["mc:8", "hard", "search:samples=16,policy=greedy"])
def test_search_takes_the_row_that_costs_least_on_the_last_turn(name: str) -> None:
    game = Game(2)
    game.apply_deal(
        rows=[[50], [60], [70], [80]],
        hands=[[1, 51, 52, 53, 54, 61, 62, 63, 64, 71], list(range(81, 91))],
    )
    for mine, theirs in zip([51, 52, 53, 54, 61, 62, 63, 64, 71], range(81, 90), strict=True):
        game.play_turn([mine, theirs])
    # Rows now cost 7, 7, 4 and 10 bullheads; taking row 2 is cheapest, and leaves the full
    # row 3 for the other seat's 90.
    game.play(1, 90)
    game.play(0, 1)
    assert make_bot(name, 4).choose_row(game.view(0)) == 2


def seat0_views_with_other_hidden_cards() -> tuple[SeatView, SeatView]:
    """Two games that look the same to seat 0 but differ in everything it cannot see."""
    rows = [[5], [25], [45], [65]]
    mine = [3, 14, 27, 33, 48, 52, 71, 86, 90, 101]
    hidden = [card for card in range(1, 105) if card not in mine and [card] not in rows]
    views = []
    for seed in (1, 2):
        shuffled = hidden[:]
        random.Random(seed).shuffle(shuffled)
        game = Game(4)
        game.apply_deal(rows, [mine, shuffled[:10], shuffled[10:20], shuffled[20:30]])
        views.append(game.view(0))
    return views[0], views[1]


@pytest.mark.parametrize("name", ["mc:16", "search:samples=32", "easy", "greedy", "random"])
def test_a_bot_decides_from_its_view_alone(name: str) -> None:
    first, second = seat0_views_with_other_hidden_cards()
    assert first == second  # what seat 0 sees is the same in both games
    assert make_bot(name, 9).choose_card(first) == make_bot(name, 9).choose_card(second)


def test_the_same_seed_gives_the_same_choices_and_another_seed_may_not() -> None:
    view, _ = seat0_views_with_other_hidden_cards()
    choices = {make_bot("mc:4", seed).choose_card(view) for seed in range(12)}
    again = {make_bot("mc:4", seed).choose_card(view) for seed in range(12)}
    assert choices == again
    assert len(choices) > 1  # the seed does steer the sampling
    for seed in range(3):
        assert make_bot("hard", seed).choose_card(view) == make_bot("hard", seed).choose_card(view)


def test_every_offered_name_and_mc_n_make_a_bot() -> None:
    for name in (*BOT_NAMES, "mc:1", "MC:64", " hard "):
        assert make_bot(name, 1).name in (name.strip().lower(), "mc:64")


@pytest.mark.parametrize(
    "name", ["mc:0", "mc:", "mc:x", "expert", "search:samples=-1", "search:foo=1"]
)
def test_unknown_bot_names_are_refused_clearly(name: str) -> None:
    with pytest.raises(UnknownBotError, match="unknown bot"):
        make_bot(name, 1)
