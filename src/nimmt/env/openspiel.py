"""``python_nimmt``: one round of classic 6 nimmt! as an OpenSpiel game (``docs/env.md``).

Importing this module registers the game with ``pyspiel`` (the ``ai`` extra's ``open-spiel``):
``pyspiel.load_game("python_nimmt", {"players": 4})``, 2 to 10 players. The rules are
:class:`nimmt.engine.Game`'s; this module only translates:

- **the deal is chance**: ``10 P + 4`` chance nodes, each drawing one card uniformly from those
  not dealt yet (outcome ``c - 1`` for card ``c``): ten for seat 0, ten for seat 1, ..., then the
  four cards that start the rows, as :func:`nimmt.engine.draw_deal` deals;
- **a turn is one simultaneous node**: every seat plays a card at once (action ``c - 1``);
- **a card below every row is its owner's decision**: the next node is a sequential one where
  only that seat acts, taking row ``r`` (action ``104 + r``), as at the table;
- **returns** are minus each seat's bullheads for the round (rewards: minus those taken at the
  step), the game ending when the tenth turn is resolved.

Each seat observes its own :class:`~nimmt.engine.SeatView` only. The observation tensor is the
flat observation of :mod:`nimmt.env.encoding` (``222 + 3 P`` entries, as the Gymnasium and
PettingZoo environments give); the information-state tensor adds the round's public history, which
the view also holds: the row starters, every revealed card, every row chosen. Nothing is shown
while the cards are dealt: a seat sees its hand and the rows once the deal is complete.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

try:
    import pyspiel  # type: ignore[import-not-found]
except ImportError:  # pragma: no cover - exercised in a subprocess by the tests
    raise ImportError(
        "nimmt.env.openspiel needs open-spiel: install the ai extra, "
        "e.g. pip install 'nimmt[ai]' (or uv sync --extra ai)"
    ) from None

from nimmt.engine import (
    DECK,
    HAND_SIZE,
    MAX_PLAYERS,
    MIN_PLAYERS,
    NUM_ROWS,
    Game,
    Phase,
    SeatView,
    Turn,
)
from nimmt.env.classic import cumulative_bullheads
from nimmt.env.encoding import (
    CARDS,
    MAX_ROUND_PENALTY,
    NUM_ACTIONS,
    ROW_ACTION,
    Layout,
    ObsArray,
    describe_action,
    encode_view,
    seat_order,
)

GAME_NAME = "python_nimmt"
DEFAULT_PLAYERS = 4

_GAME_TYPE = pyspiel.GameType(
    short_name=GAME_NAME,
    long_name="Python 6 nimmt! (one round)",
    dynamics=pyspiel.GameType.Dynamics.SIMULTANEOUS,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.GENERAL_SUM,
    reward_model=pyspiel.GameType.RewardModel.REWARDS,
    max_num_players=MAX_PLAYERS,
    min_num_players=MIN_PLAYERS,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    provides_factored_observation_string=False,
    parameter_specification={"players": DEFAULT_PLAYERS},
)


_CHANCE = int(pyspiel.PlayerId.CHANCE)
_SIMULTANEOUS = int(pyspiel.PlayerId.SIMULTANEOUS)
_TERMINAL = int(pyspiel.PlayerId.TERMINAL)


def deal_length(players: int) -> int:
    """The chance nodes of the deal: ten cards for each seat, then four row starters."""
    return HAND_SIZE * players + NUM_ROWS


def information_state_size(players: int) -> int:
    """The observation, then the row starters (4), the cards revealed in each turn (10 of P, the
    observing seat first, 0 for a turn not revealed yet) and each turn's chosen row (10 of 4,
    one-hot; all 0 when no card was below every row)."""
    return Layout(players).size + NUM_ROWS + HAND_SIZE * players + HAND_SIZE * NUM_ROWS


class NimmtGame(pyspiel.Game):  # type: ignore[misc]
    """The OpenSpiel game; parameter ``players`` (2 to 10, default 4)."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = {"players": DEFAULT_PLAYERS, **(params or {})}
        players = params["players"]
        if isinstance(players, bool) or not isinstance(players, int):
            raise ValueError(f"players must be a whole number, not {players!r}")
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise ValueError(
                f"classic 6 nimmt! is for {MIN_PLAYERS} to {MAX_PLAYERS} players, not {players}"
            )
        info = pyspiel.GameInfo(
            num_distinct_actions=NUM_ACTIONS,
            max_chance_outcomes=CARDS,
            num_players=players,
            min_utility=-float(MAX_ROUND_PENALTY),
            max_utility=0.0,
            utility_sum=None,
            # Ten turns, and at most one row choice in each.
            max_game_length=2 * HAND_SIZE,
        )
        super().__init__(_GAME_TYPE, info, params)
        self.players = players

    def new_initial_state(self) -> NimmtState:
        return NimmtState(self)

    def max_chance_nodes_in_history(self) -> int:
        return deal_length(self.players)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> NimmtObserver:
        if params:
            raise ValueError(f"the {GAME_NAME} observer takes no parameters, got {params!r}")
        if iig_obs_type is None:
            iig_obs_type = pyspiel.IIGObservationType(perfect_recall=False)
        supported = (
            iig_obs_type.public_info
            and iig_obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER
        )
        if not supported:
            raise ValueError(
                f"{GAME_NAME} observes one seat's own view: public and the seat's private "
                "information (IIGObservationType(perfect_recall=...) with its defaults)"
            )
        return NimmtObserver(self.players, perfect_recall=iig_obs_type.perfect_recall)


class NimmtState(pyspiel.State):  # type: ignore[misc]
    """A round being dealt or played; the rules are :class:`nimmt.engine.Game`'s."""

    def __init__(self, game: NimmtGame) -> None:
        super().__init__(game)
        self.players = game.players
        self.dealt: list[int] = []
        """The cards dealt so far, in deal order (see the module docstring)."""
        self._round = _Round()
        self._rewards = [0.0] * self.players
        self._returns = [0.0] * self.players

    # ------------------------------------------------------------ OpenSpiel

    def current_player(self) -> int:
        # Called several times for every action OpenSpiel applies: kept to a few lookups.
        engine = self._round.game
        if engine is None:
            return _CHANCE
        phase = engine.phase
        if phase is Phase.CHOOSING_CARDS:
            return _SIMULTANEOUS
        pending = engine.pending_row_choice
        return _TERMINAL if pending is None else pending.seat

    def _legal_actions(self, player: int) -> list[int]:
        engine = self._round.game
        if engine is None or self.current_player() == _TERMINAL:
            return []
        pending = engine.pending_row_choice
        if pending is not None:
            return list(range(ROW_ACTION, NUM_ACTIONS)) if player == pending.seat else []
        return [card - 1 for card in engine.legal_cards(player)]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        left = sorted(set(DECK).difference(self.dealt))
        return [(card - 1, 1.0 / len(left)) for card in left]

    def _apply_action(self, action: int) -> None:
        engine = self.engine
        if engine is None:
            self._deal(action + 1)
            return
        pending = engine.pending_row_choice
        assert pending is not None, "a sequential node is a row choice"
        before = cumulative_bullheads(engine)
        engine.choose_row(pending.seat, action - ROW_ACTION)
        self._score(before, engine)

    def _apply_actions(self, actions: Sequence[int]) -> None:
        engine = self.engine
        assert engine is not None, "the deal comes first"
        before = cumulative_bullheads(engine)
        for seat, action in enumerate(actions):
            engine.play(seat, action + 1)
        self._score(before, engine)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {action + 1}"
        return describe_action(action)

    def is_terminal(self) -> bool:
        return self.current_player() == _TERMINAL

    def rewards(self) -> list[float]:
        return self._rewards

    def returns(self) -> list[float]:
        return self._returns

    def __str__(self) -> str:
        """Every hand (for debugging; a seat's own view is its observation string)."""
        engine = self.engine
        if engine is None:
            return f"dealing: {' '.join(map(str, self.dealt))}"
        lines = [f"turn {engine.turn} of {HAND_SIZE}"]
        lines += [f"row {index}: {_cards(row)}" for index, row in enumerate(engine.rows)]
        lines += [f"seat {seat}: {_cards(engine.hand(seat))}" for seat in range(self.players)]
        return "\n".join(lines)

    def resample_from_infostate(
        self, player_id: int, probability_sampler: Callable[[], float]
    ) -> NimmtState:
        """A state ``player_id`` cannot tell from this one (see :func:`resample_deal`)."""
        rng = random.Random(int(probability_sampler() * 2**53))
        state: NimmtState = replay(
            self.get_game(), resample_deal(self, player_id, rng), self.turns()
        )
        return state

    # ------------------------------------------------------------ queries

    @property
    def engine(self) -> Game | None:
        """The engine's game once the deal is complete (every hand: never for a player)."""
        return self._round.game

    def view(self, seat: int) -> SeatView | None:
        """``seat``'s view once the deal is complete (``None`` while it is dealt)."""
        return None if self.engine is None else self.engine.view(seat)

    def turns(self) -> list[Turn]:
        """The round's turns so far (the last one, awaiting a row choice, has no row yet)."""
        return [] if self.engine is None else list(self.engine.history[-1].turns)

    # ------------------------------------------------------------ internals

    def _deal(self, card: int) -> None:
        if card in self.dealt:
            raise ValueError(f"card {card} is dealt already")
        self.dealt.append(card)
        if len(self.dealt) == deal_length(self.players):
            hands = [
                self.dealt[seat * HAND_SIZE : (seat + 1) * HAND_SIZE]
                for seat in range(self.players)
            ]
            rows = [[card] for card in self.dealt[-NUM_ROWS:]]
            engine = Game(self.players)
            engine.apply_deal(rows, hands)
            self._round.game = engine

    def _score(self, before: Sequence[int], engine: Game) -> None:
        after = cumulative_bullheads(engine)
        self._rewards = [float(early - late) for early, late in zip(before, after, strict=True)]
        self._returns = [
            total + reward for total, reward in zip(self._returns, self._rewards, strict=True)
        ]


class NimmtObserver:
    """One seat's observation (``perfect_recall=False``) or information state (``True``): the
    PyObserver interface OpenSpiel asks of a Python game."""

    def __init__(self, players: int, *, perfect_recall: bool) -> None:
        self.players = players
        self.perfect_recall = perfect_recall
        layout = Layout(players)
        size = information_state_size(players) if perfect_recall else layout.size
        self.tensor: ObsArray = np.zeros(size, dtype=np.float32)
        self.dict: dict[str, ObsArray] = {"observation": self.tensor[: layout.size]}
        if perfect_recall:
            start = layout.size
            self.dict["round_rows"] = self.tensor[start : start + NUM_ROWS]
            start += NUM_ROWS
            played = self.tensor[start : start + HAND_SIZE * players]
            self.dict["played"] = played.reshape(HAND_SIZE, players)
            start += HAND_SIZE * players
            chosen = self.tensor[start : start + HAND_SIZE * NUM_ROWS]
            self.dict["chosen_rows"] = chosen.reshape(HAND_SIZE, NUM_ROWS)

    def set_from(self, state: NimmtState, player: int) -> None:
        self.tensor.fill(0)
        view = state.view(player)
        if view is None:
            return
        self.dict["observation"][:] = encode_view(view)
        if not self.perfect_recall:
            return
        self.dict["round_rows"][:] = view.round_rows
        order = seat_order(player, self.players)
        for turn, cards in enumerate(_turns(view)):
            self.dict["played"][turn] = [cards[seat] for seat in order]
        for turn, row in enumerate(view.chosen_rows):
            if row is not None:
                self.dict["chosen_rows"][turn, row] = 1

    def string_from(self, state: NimmtState, player: int) -> str:
        view = state.view(player)
        if view is None:
            return f"seat {player} of {self.players}: dealing"
        if self.perfect_recall:
            return _history_string(view)
        return _view_string(view)


class _Round:
    """Holds a state's engine game. OpenSpiel clones a Python state by deep-copying each of its
    attributes; replaying the deal and the turns on a new engine is many times faster than
    copying the engine's event log object by object."""

    __slots__ = ("game",)

    def __init__(self, game: Game | None = None) -> None:
        self.game = game

    def __deepcopy__(self, memo: dict[int, Any]) -> _Round:
        return _Round(None if self.game is None else _replayed(self.game))


def _replayed(engine: Game) -> Game:
    """A new engine game in the same state as ``engine``, a one-round game."""
    log = engine.history[-1]
    copy = Game(engine.players)
    copy.apply_deal([[card] for card in log.rows], log.hands)
    for turn in log.turns:
        if turn.row is None and copy.round_state().needs_row_choice(turn.cards):
            for seat, card in enumerate(turn.cards):  # the turn awaiting its row choice
                copy.play(seat, card)
        else:
            copy.play_turn(turn.cards, turn.row)
    return copy


def _turns(view: SeatView) -> list[tuple[int, ...]]:
    """The cards of every revealed turn, by seat: the completed ones and one awaiting a row."""
    turns = list(view.played)
    if view.revealed is not None:
        turns.append(view.revealed)
    return turns


def _cards(cards: Sequence[int]) -> str:
    return " ".join(str(card) for card in cards) or "-"


def _view_string(view: SeatView) -> str:
    """What the seat sees now: its hand, the rows, the round's penalties."""
    lines = [f"seat {view.seat} of {view.players}, turn {view.turn} of {HAND_SIZE} done"]
    lines.append(f"hand: {_cards(view.hand)}")
    lines += [f"row {index}: {_cards(row)}" for index, row in enumerate(view.rows)]
    lines.append(f"penalties: {_cards(view.penalties)}")
    if view.revealed is not None and view.pending_row_choice is not None:
        pending = view.pending_row_choice
        lines.append(f"revealed: {_cards(view.revealed)}")
        lines.append(f"seat {pending.seat} takes a row for {pending.card}")
    return "\n".join(lines)


def _history_string(view: SeatView) -> str:
    """Everything the seat has seen this round, in order: its hand as dealt, the row starters,
    each turn's cards and chosen row, then where it stands."""
    assert view.seat is not None
    dealt = sorted({*view.hand, *(cards[view.seat] for cards in _turns(view))})
    lines = [f"seat {view.seat} of {view.players}", f"dealt: {_cards(dealt)}"]
    lines.append(f"rows: {_cards(view.round_rows)}")
    chosen = list(view.chosen_rows)
    for turn, cards in enumerate(_turns(view)):
        row = chosen[turn] if turn < len(chosen) else None
        taken = "" if row is None else f", row {row} taken"
        lines.append(f"turn {turn + 1}: {_cards(cards)}{taken}")
    if view.pending_row_choice is not None:
        lines.append(f"seat {view.pending_row_choice.seat} chooses a row")
    return "\n".join(lines)


# ---------------------------------------------------------------- resampling, for search


def resample_deal(state: NimmtState, player: int, rng: random.Random) -> list[int]:
    """A deal, in deal order, that ``player`` cannot tell from the one ``state`` was dealt: its
    own hand and the row starters as they were, every other seat still holding the cards it
    has revealed, the rest of the other hands drawn uniformly from the cards ``player`` has not
    seen (the determinization that information-set search samples)."""
    view = state.view(player)
    if view is None:
        raise ValueError("a deal is resampled once it is complete")
    revealed: list[list[int]] = [[] for _ in range(state.players)]
    for cards in _turns(view):
        for seat, card in enumerate(cards):
            revealed[seat].append(card)
    unseen = list(view.unseen_cards())
    rng.shuffle(unseen)
    deal: list[int] = []
    for seat in range(state.players):
        if seat == player:
            deal += state.dealt[seat * HAND_SIZE : (seat + 1) * HAND_SIZE]
            continue
        missing = HAND_SIZE - len(revealed[seat])
        deal += revealed[seat] + unseen[:missing]
        del unseen[:missing]
    return deal + state.dealt[-NUM_ROWS:]


def replay(game: Any, deal: Sequence[int], turns: Sequence[Turn], state: Any = None) -> Any:
    """``deal`` then ``turns`` applied to ``state`` (by default a new state of ``game``; a state
    of ``pyspiel.convert_to_turn_based(game)`` works too, its seats acting in turn)."""
    state = game.new_initial_state() if state is None else state
    for card in deal:
        state.apply_action(card - 1)
    for turn in turns:
        actions = [card - 1 for card in turn.cards]
        if state.is_simultaneous_node():
            state.apply_actions(actions)
        else:
            for action in actions:
                state.apply_action(action)
        if turn.row is not None:
            state.apply_action(ROW_ACTION + turn.row)
    return state


def turn_based_resampler(game: NimmtGame, rng: random.Random) -> Callable[[Any, int], Any]:
    """For OpenSpiel's ISMCTS (``ISMCTSBot.set_resampler``) on
    ``pyspiel.convert_to_turn_based(game)``: a function of a turn-based state and the seat to
    move that returns a turn-based state that seat cannot tell from it. The cards the seats
    before it have chosen this turn are hidden from it, so they are drawn anew from their hands.
    """

    def resample(turn_based: Any, player: int) -> Any:
        history = list(turn_based.history())
        inner = game.new_initial_state()
        length = deal_length(game.players)
        for action in history[:length]:
            inner.apply_action(action)
        moves = history[length:]
        while moves:
            if inner.current_player() >= 0:  # a row choice
                inner.apply_action(moves.pop(0))
            elif len(moves) >= game.players:
                inner.apply_actions(moves[: game.players])
                del moves[: game.players]
            else:
                break
        fresh = turn_based.get_game().new_initial_state()
        replay(game, resample_deal(inner, player, rng), inner.turns(), fresh)
        for _ in moves:  # the hidden choices of the seats before ``player`` this turn
            fresh.apply_action(rng.choice(fresh.legal_actions()))
        return fresh

    return resample


pyspiel.register_game(_GAME_TYPE, NimmtGame)

__all__ = [
    "GAME_NAME",
    "NimmtGame",
    "NimmtObserver",
    "NimmtState",
    "information_state_size",
    "replay",
    "resample_deal",
    "turn_based_resampler",
]
