"""Over a thousand seeded random games, checking what must hold at every step of every game.

- all 104 cards are accounted for: hands, rows, taken piles and the unused rest;
- no row ever holds more than 5 cards; totals never fall;
- no view (seat or spectator) holds another seat's hand or a card not yet revealed;
- a record written from the game replays to the same rows, penalties, totals and winners.
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from tests.engine.engine_helpers import deal_or_choose_row

from nimmt.engine import DECK, ROW_LIMIT, Game, HandDealt, Phase
from nimmt.records import dump_record, replay_record, to_record

GAMES_PER_PLAYER_COUNT = 120  # 9 player counts: 1,080 whole games


def check_cards_and_rows(game: Game) -> None:
    state = game.round_state()
    assert all(1 <= len(row) <= ROW_LIMIT for row in state.rows)
    in_play = [card for hand in state.hands for card in hand]
    in_play += [card for row in state.rows for card in row]
    in_play += [card for pile in state.piles for card in pile]
    assert len(in_play) == len(set(in_play)), "a card is in two places"
    dealt = set(game.history[-1].rows) | {card for hand in game.history[-1].hands for card in hand}
    assert set(in_play) == dealt, "the dealt cards are exactly the cards in play"
    assert set(DECK) >= dealt and len(dealt) == 10 * game.players + 4


def check_views(game: Game, since: int) -> None:
    state = game.round_state()
    log = game.history[-1]
    # Face-down cards are still in their players' hands until the turn resolves.
    revealed_now = game.view(None).revealed or ()
    secret = [set(hand) - set(revealed_now) for hand in state.hands]
    for seat in [*range(game.players), None]:
        view = game.view(seat)
        seen = view.seen_cards()
        for other in range(game.players):
            if other != seat:
                assert not seen & secret[other], f"seat {seat} sees seat {other}'s cards"
        if seat is None:
            assert view.hand == () and view.chosen_card is None
        else:
            assert set(view.hand) == secret[seat]
        revealed = {card for cards in view.played for card in cards} | set(view.revealed or ())
        expected = {card for turn in log.turns for card in turn.cards}
        assert revealed == expected
        for event in game.events_for(seat, since):
            if isinstance(event, HandDealt):
                assert event.seat == seat
        if seat is not None:
            # A seat's view is the spectators' plus its own cards, and nothing else.
            own = game.own_cards(seat)
            assert (own.hand, own.legal_cards, own.chosen_card, own.must_choose_row) == (
                view.hand,
                view.legal_cards(),
                view.chosen_card,
                view.must_choose_row,
            )
            assert replace(view, seat=None, hand=(), chosen_card=None) == game.view(None)


def play_checked_game(players: int, seed: int) -> Game:
    rng = random.Random(seed)
    game = Game(players)
    totals = game.totals
    while game.phase is not Phase.GAME_OVER:
        round_start = game.event_count
        game.deal(rng)
        check_cards_and_rows(game)
        while game.phase not in (Phase.DEALING, Phase.GAME_OVER):
            if game.phase is Phase.CHOOSING_ROW:
                pending = game.pending_row_choice
                assert pending is not None
                check_views(game, round_start)
                game.choose_row(pending.seat, rng.randrange(4))
            else:
                order = list(range(players))
                rng.shuffle(order)
                for count, seat in enumerate(order):
                    game.play(seat, rng.choice(game.legal_cards(seat)))
                    if count == players // 2 and seed % 5 == 0:
                        check_views(game, round_start)
            check_cards_and_rows(game)
        assert all(new >= old for new, old in zip(game.totals, totals, strict=True))
        totals = game.totals
    return game


@pytest.mark.parametrize("players", range(2, 11))
def test_random_games_keep_every_invariant(players: int) -> None:
    for seed in range(GAMES_PER_PLAYER_COUNT):
        game = play_checked_game(players, seed * 100 + players)
        outcome = game.outcome
        assert outcome is not None and max(outcome.totals) > 66
        names = [f"P{seat}" for seat in range(players)]
        replayed = replay_record(dump_record(to_record(game, names)))
        assert replayed.finished
        assert replayed.totals == outcome.totals
        assert replayed.winners == outcome.winners
        assert replayed.game.rows == game.rows
        assert [entry.penalties for entry in replayed.rounds] == [
            log.penalties for log in game.history
        ]


def check_own_parts(game: Game) -> None:
    """Every seat's own part (kept between calls while it does not change) is what its whole
    view says now, and every view (whose shared parts are kept too) is the one made afresh."""
    for seat in range(game.players):
        assert game.own_cards(seat) == game.view(seat).own_cards()
    for seat in [*range(game.players), None]:
        kept = game.view(seat)
        game._board = None  # what the views share, made again from the game as it is now
        assert kept == game.view(seat)


@pytest.mark.parametrize("players", [2, 4, 10])
def test_own_parts_and_views_follow_every_step(players: int) -> None:
    """Also through the steps a whole turn does not take: a card exchanged, a card taken back."""
    for seed in range(20):
        rng = random.Random(seed)
        game = Game(players)
        check_own_parts(game)
        while game.phase is not Phase.GAME_OVER:
            if not deal_or_choose_row(game, rng):
                seat = rng.choice(game.waiting_for())
                chosen = [s for s in range(players) if s not in game.waiting_for()]
                if chosen and rng.random() < 0.2:
                    other = rng.choice(chosen)
                    was = game.view(other).chosen_card
                    others = [card for card in game.hand(other) if card != was]
                    if others and rng.random() < 0.5:
                        game.play(other, rng.choice(others), replace=True)
                    else:
                        game.retract(other)
                else:
                    game.play(seat, rng.choice(game.legal_cards(seat)))
            check_own_parts(game)
