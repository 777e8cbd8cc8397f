"""The OpenSpiel game ``python_nimmt``: OpenSpiel's own consistency test, the returns against an
independent replay on the engine, the row choice as its owner's decision, each seat's
observation and information state blind to the other hands, and OpenSpiel's ISMCTS on it."""

from __future__ import annotations

import random
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import numpy as np
import pyspiel  # type: ignore[import-not-found]
import pytest
from open_spiel.python import observation  # type: ignore[import-untyped]
from open_spiel.python.algorithms import ismcts, mcts  # type: ignore[import-untyped]

from nimmt.engine import HAND_SIZE, NUM_ROWS, Game, total_bullheads
from nimmt.env.encoding import ROW_ACTION, Layout, encode_view
from nimmt.env.openspiel import (
    GAME_NAME,
    information_state_size,
    replay,
    resample_deal,
    turn_based_resampler,
)


def load(players: int) -> Any:
    return pyspiel.load_game(GAME_NAME, {"players": players})


def random_states(game: Any, rng: random.Random) -> Iterator[Any]:
    """Every state of one random round, from the first decision on (the deal done)."""
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(rng.choice([action for action, _ in state.chance_outcomes()]))
            continue
        yield state
        if state.is_simultaneous_node():
            state.apply_actions(
                [rng.choice(state.legal_actions(seat)) for seat in range(game.num_players())]
            )
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    yield state


@pytest.mark.parametrize("players", [2, 4, 10])
def test_passes_openspiels_random_simulation_test(players: int) -> None:
    pyspiel.random_sim_test(load(players), num_sims=3, serialize=True, verbose=False)


def test_the_game_is_simultaneous_with_the_deal_as_chance() -> None:
    game = load(4)
    kind = game.get_type()
    assert kind.dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS
    assert kind.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert kind.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert game.num_distinct_actions() == 108
    assert game.observation_tensor_shape() == [Layout(4).size]  # 234, the env's observation
    assert game.information_state_tensor_shape() == [information_state_size(4)]
    assert pyspiel.load_game(GAME_NAME).num_players() == 4
    state = game.new_initial_state()
    for dealt in range(10 * 4 + 4):
        assert state.is_chance_node()
        outcomes = state.chance_outcomes()
        assert len(outcomes) == 104 - dealt
        assert sum(probability for _, probability in outcomes) == pytest.approx(1)
        state.apply_action(outcomes[0][0])  # the lowest card left
    assert state.is_simultaneous_node()
    assert [state.legal_actions(seat) for seat in range(4)] == [
        list(range(10 * seat, 10 * seat + 10)) for seat in range(4)
    ]  # seat 0 was dealt cards 1 to 10, seat 1 11 to 20...
    assert state.engine.rows == ((41,), (42,), (43,), (44,))
    assert state.observation_string(0).startswith("seat 0 of 4")


@pytest.mark.parametrize("players", [1, 11])
def test_a_table_outside_2_to_10_players_is_refused(players: int) -> None:
    with pytest.raises(ValueError, match=f"is for 2 to 10 players, not {players}"):
        load(players)


@pytest.mark.parametrize("players", [2, 3, 5, 10])
def test_returns_are_minus_the_bullheads_of_the_same_round_replayed_on_the_engine(
    players: int,
) -> None:
    for seed in range(8):
        *_, state = random_states(load(players), random.Random(seed))
        history = state.history()
        deal = [action + 1 for action in history[: 10 * players + 4]]
        engine = Game(players)
        engine.apply_deal(
            [[card] for card in deal[-4:]],
            [deal[seat * HAND_SIZE : (seat + 1) * HAND_SIZE] for seat in range(players)],
        )
        moves = history[10 * players + 4 :]
        while moves:
            pending = engine.pending_row_choice
            if pending is not None:
                engine.choose_row(pending.seat, moves.pop(0) - ROW_ACTION)
            else:
                for seat in range(players):
                    engine.play(seat, moves.pop(0) + 1)
        assert engine.turn == HAND_SIZE
        assert list(state.returns()) == [-total for total in engine.totals]
        assert sum(engine.totals) > 0


def test_rewards_add_up_to_the_returns() -> None:
    totals = np.zeros(4)
    for state in random_states(load(4), random.Random(3)):
        totals += state.rewards()
        assert list(totals) == list(state.returns())
    assert totals.sum() < 0


def test_the_owner_of_a_card_below_every_row_chooses_the_row_alone() -> None:
    game = load(4)
    choices = 0
    for seed in range(6):
        for state in random_states(game, random.Random(seed)):
            if state.is_terminal() or state.is_simultaneous_node():
                continue
            chooser = state.current_player()
            view = state.engine.view(chooser)
            assert view.must_choose_row and view.revealed is not None
            assert min(view.revealed) == view.revealed[chooser]
            assert state.legal_actions() == [104, 105, 106, 107]
            assert all(state.legal_actions(seat) == [] for seat in range(4) if seat != chooser)
            assert f"seat {chooser} chooses a row" in state.information_state_string(0)
            for row in range(NUM_ROWS):  # the chooser takes the row it names, and only it
                branch = state.clone()
                branch.apply_action(ROW_ACTION + row)
                assert -branch.rewards()[chooser] == total_bullheads(view.rows[row])
                assert branch.engine.rows[row][0] == view.revealed[chooser]  # a new row
            choices += 1
            break
    assert choices >= 3


def decision_states(players: int, seeds: range) -> Iterator[Any]:
    for seed in seeds:
        for state in random_states(load(players), random.Random(seed)):
            if not state.is_terminal():
                yield state


@pytest.mark.parametrize("players", [2, 4, 7])
def test_a_seat_sees_nothing_of_the_other_hands(players: int) -> None:
    """Redeal the cards a seat has not seen among the others: its observation and information
    state (tensors and strings) and its legal actions stay the same; the others' change."""
    rng = random.Random(players)
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    changed = 0
    for state in decision_states(players, range(3)):
        for seat in range(players):
            other = replay(state.get_game(), resample_deal(state, seat, rng), state.turns())
            assert other.history() != state.history()
            for name in (
                "observation_tensor",
                "information_state_tensor",
                "observation_string",
                "information_state_string",
            ):
                assert getattr(other, name)(seat) == getattr(state, name)(seat), name
            assert other.legal_actions(seat) == state.legal_actions(seat)
            sampled = state.resample_from_infostate(seat, sampler)  # OpenSpiel's name for it
            assert sampled.information_state_string(seat) == state.information_state_string(seat)
            changed += sum(
                other.information_state_string(them) != state.information_state_string(them)
                for them in range(players)
                if them != seat
            )
    assert changed > 0


def test_the_tensors_are_the_envs_observation_and_the_rounds_history() -> None:
    game = load(3)
    info = observation.make_observation(game, pyspiel.IIGObservationType(perfect_recall=True))
    for state in decision_states(3, range(2)):
        for seat in range(3):
            view = state.engine.view(seat)
            assert state.observation_tensor(seat) == list(encode_view(view))
            info.set_from(state, seat)
            assert list(info.tensor) == state.information_state_tensor(seat)
            assert list(info.dict["observation"]) == list(encode_view(view))
            assert list(info.dict["round_rows"]) == list(view.round_rows)
            order = [(seat + offset) % 3 for offset in range(3)]
            turns = list(view.played) + ([view.revealed] if view.revealed else [])
            for turn in range(HAND_SIZE):
                expected = [turns[turn][s] for s in order] if turn < len(turns) else [0] * 3
                assert list(info.dict["played"][turn]) == expected
                row = view.chosen_rows[turn] if turn < len(view.chosen_rows) else None
                assert list(info.dict["chosen_rows"][turn]) == [
                    float(row == r) for r in range(NUM_ROWS)
                ]


def test_an_unsupported_observer_is_refused() -> None:
    kind = pyspiel.IIGObservationType(
        perfect_recall=False, private_info=pyspiel.PrivateInfoType.ALL_PLAYERS
    )
    with pytest.raises(ValueError, match="observes one seat's own view"):
        observation.make_observation(load(2), kind)


def seat_zeros_bullheads(deals: int, searcher: str, players: int = 2) -> list[float]:
    """Seat 0's bullheads in each of ``deals`` seeded rounds, played by OpenSpiel's ISMCTS
    (60 simulations a move on 16 sampled deals, on the turn-based form of the game) or
    uniformly at random, against uniform random seats. Each seat draws from its own seeded
    generator, so the other seats play the same cards whatever seat 0 does: only seat 0's
    decisions differ."""
    game = load(players)
    turn_based = pyspiel.convert_to_turn_based(game)
    bullheads = []
    for deal in range(deals):
        bot = ismcts.ISMCTSBot(
            turn_based,
            mcts.RandomRolloutEvaluator(1, np.random.RandomState(deal)),
            uct_c=4.0,
            max_simulations=60,
            max_world_samples=16,
            random_state=np.random.RandomState(deal),
        )
        bot.set_resampler(turn_based_resampler(game, random.Random(deal)))
        dealer = random.Random(1000 + deal)
        seats = [np.random.RandomState([deal, seat]) for seat in range(players)]
        state = turn_based.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(dealer.choice([a for a, _ in state.chance_outcomes()]))
            elif state.current_player() == 0 and searcher == "ismcts":
                state.apply_action(bot.step(state))
            else:
                state.apply_action(seats[state.current_player()].choice(state.legal_actions()))
        bullheads.append(-state.returns()[0])
    return bullheads


def test_openspiels_ismcts_beats_uniform_random_play() -> None:
    searched = seat_zeros_bullheads(6, "ismcts")
    control = seat_zeros_bullheads(6, "random")
    assert sum(searched) <= sum(control) - 6 * 5  # at least 5 bullheads a round fewer


def test_nimmt_works_without_open_spiel_and_the_module_says_what_is_missing() -> None:
    script = (
        "import sys\n"
        "sys.modules['pyspiel'] = None\n"
        "import nimmt.env, nimmt.arena, nimmt.cli\n"
        "try:\n"
        "    import nimmt.env.openspiel\n"
        "except ImportError as error:\n"
        "    print(error)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == (
        "nimmt.env.openspiel needs open-spiel: install the ai extra, "
        "e.g. pip install 'nimmt[ai]' (or uv sync --extra ai)"
    )
