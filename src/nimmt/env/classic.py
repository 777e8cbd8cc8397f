"""``nimmt/Classic-v0``: one learning seat against bots, on the real engine (``docs/env.md``).

The learning agent holds seat 0; the opponents hold seats 1 to ``P - 1``. Each step is one
decision of seat 0: a card (every opponent then chooses its card from its own view and the turn
is revealed and resolved by :class:`nimmt.engine.Game`), or, when its card was below every row,
the row it takes (a step of its own, as at the table). An opponent whose card is below every row
chooses its row within the same step.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import gymnasium as gym
import numpy as np

from nimmt.engine import HAND_SIZE, Game, Phase, SeatView
from nimmt.env.encoding import (
    NUM_ACTIONS,
    ROW_ACTION,
    MaskArray,
    ObsArray,
    action_mask,
    action_space,
    describe_action,
    encode_view,
    observation_space,
)
from nimmt.env.table import (
    Deal,
    EnvConfigError,
    IllegalActionError,
    Opponent,
    OpponentSpec,
    check_choice,
    deal_round,
    opponent_specs,
    spec_name,
)

EpisodeKind = Literal["round", "game"]
RewardKind = Literal["bullheads", "relative"]
IllegalActionRule = Literal["first_legal", "raise"]

EPISODES: tuple[EpisodeKind, ...] = ("round", "game")
REWARDS: tuple[RewardKind, ...] = ("bullheads", "relative")
ILLEGAL_ACTION_RULES: tuple[IllegalActionRule, ...] = ("first_legal", "raise")


def step_reward(kind: RewardKind, taken: Sequence[int], seat: int) -> float:
    """The reward of ``seat`` for the bullheads ``taken`` by every seat in one step: minus its
    own (``bullheads``), or minus its own less the mean of the others' (``relative``)."""
    own = taken[seat]
    if kind == "bullheads":
        return float(-own)
    others = [value for index, value in enumerate(taken) if index != seat]
    return float(-(own - sum(others) / len(others)))


def cumulative_bullheads(game: Game) -> list[int]:
    """Every seat's bullheads so far, the current round's included."""
    totals = game.totals
    if game.phase in (Phase.DEALING, Phase.GAME_OVER):  # the round is already in the totals
        return list(totals)
    return [total + penalty for total, penalty in zip(totals, game.penalties, strict=True)]


def legal_or_substitute(
    action: Any, mask: MaskArray, rule: IllegalActionRule, who: str = "the action"
) -> tuple[int, bool]:
    """``(action, False)`` if ``action`` is legal under ``mask``; else the first legal action and
    ``True`` (``first_legal``), or an :class:`IllegalActionError` (``raise``)."""
    try:
        number = int(action)
        exact = number == action and not isinstance(action, bool)
    except (TypeError, ValueError):
        number, exact = -1, False
    if exact and 0 <= number < NUM_ACTIONS and mask[number]:
        return number, False
    legal = np.flatnonzero(mask)
    if rule == "raise" or legal.size == 0:
        what = describe_action(number) if exact else f"{action!r}"
        if legal.size == 0:
            raise IllegalActionError(f"{who} ({what}) comes when no action is expected")
        allowed = (
            "take a row (104 to 107)"
            if legal[0] >= ROW_ACTION
            else "play a card of the hand: " + ", ".join(str(a + 1) for a in legal)
        )
        raise IllegalActionError(f"{who} ({what}) is not legal now: {allowed}")
    return int(legal[0]), True


class ClassicEnv(gym.Env[ObsArray, np.int64]):
    """One learning seat (seat 0) against ``opponents`` (bot names or policies), see
    ``docs/env.md``.

    ``opponents``: one bot name (or policy, :mod:`nimmt.env.policies`) for every opponent, or a
    list with one per opponent (``players`` = 1 + their number, 2 to 10); ``players`` (with a
    single name, default 4);
    ``episode``: ``"round"`` (10 turns) or ``"game"`` (rounds until someone has more than 66);
    ``reward``: ``"bullheads"`` (minus the bullheads seat 0 takes) or ``"relative"`` (minus
    the difference to the mean of the others'); ``illegal_action``: ``"first_legal"`` (the lowest
    legal action is taken instead, and ``info["illegal_action"]`` is true) or ``"raise"``.
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 4}  # noqa: RUF012 (gymnasium asks for it)

    def __init__(
        self,
        opponents: OpponentSpec | Sequence[OpponentSpec] = "greedy",
        *,
        players: int | None = None,
        episode: EpisodeKind = "round",
        reward: RewardKind = "bullheads",
        illegal_action: IllegalActionRule = "first_legal",
        render_mode: str | None = None,
    ) -> None:
        self.opponents = opponent_specs(opponents, players)
        for spec in self.opponents:
            Opponent.check(spec)
        self.opponent_names = tuple(spec_name(spec) for spec in self.opponents)
        self.players = len(self.opponents) + 1
        self.episode: EpisodeKind = check_choice("episode", episode, EPISODES)  # type: ignore[assignment]
        self.reward_kind: RewardKind = check_choice("reward", reward, REWARDS)  # type: ignore[assignment]
        self.illegal_action: IllegalActionRule = check_choice(  # type: ignore[assignment]
            "illegal_action", illegal_action, ILLEGAL_ACTION_RULES
        )
        if render_mode is not None:
            check_choice("render_mode", render_mode, ["ansi"])
        self.render_mode = render_mode
        self.observation_space = observation_space(self.players)  # type: ignore[assignment]
        self.action_space = action_space()
        self._game: Game | None = None
        self._deal: Deal | None = None
        self._opponents: list[Opponent] = []
        self._mask: MaskArray = np.zeros(NUM_ACTIONS, dtype=np.int8)

    # ------------------------------------------------------------------ API

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[ObsArray, dict[str, Any]]:
        """A new episode: a new deal (``options={"position": {...}}`` instead starts from the
        keyword arguments of :meth:`nimmt.engine.Game.from_position`, for puzzles and tests)."""
        super().reset(seed=seed)
        position = (options or {}).get("position")
        game = None
        if position is not None:  # checked before anything changes
            game = Game.from_position(**position)
            if game.players != self.players:
                raise EnvConfigError(
                    f"the position has {game.players} seats, the environment {self.players}"
                )
        rng = self.np_random
        self._opponents = [
            Opponent(spec, rng, seat) for seat, spec in enumerate(self.opponents, start=1)
        ]
        if game is not None:
            self._game = game
            self._deal = Deal([], [], rng.random((HAND_SIZE, self.players, 2)))
        else:
            self._game = Game(self.players)
            self._deal_next_round()
        return self._outcome(illegal=False)

    def step(self, action: np.int64 | int) -> tuple[ObsArray, float, bool, bool, dict[str, Any]]:
        game = self._require_game()
        if self._terminated(game):
            raise IllegalActionError("the episode is over: call reset() first")
        chosen, illegal = legal_or_substitute(
            action, self._mask, self.illegal_action, who="the action"
        )
        before = cumulative_bullheads(game)
        if chosen >= ROW_ACTION:
            game.choose_row(0, chosen - ROW_ACTION)
        else:
            for seat, opponent in enumerate(self._opponents, start=1):
                card = opponent.choose_card(game.view(seat), self._draw(game, seat, 0))
                game.play(seat, card)
            game.play(0, chosen + 1)
        self._let_opponents_take_rows(game)
        after = cumulative_bullheads(game)
        taken = [late - early for late, early in zip(after, before, strict=True)]
        reward = step_reward(self.reward_kind, taken, 0)
        if game.phase is Phase.DEALING and self.episode == "game":
            self._deal_next_round()
        obs, info = self._outcome(illegal=illegal)
        return obs, reward, self._terminated(game), False, info

    def action_masks(self) -> MaskArray:
        """1 for each legal action now (the name sb3-contrib's masked algorithms look for)."""
        return self._mask.copy()

    def view(self) -> SeatView:
        """Seat 0's view of the game: exactly what its observation encodes."""
        return self._require_game().view(0)

    @property
    def game(self) -> Game:
        """The engine's game (every hand: for analysis, never for the agent)."""
        return self._require_game()

    def render(self) -> str | None:
        if self.render_mode != "ansi":
            return None
        view = self.view()
        lines = [f"round {view.round}, turn {view.turn + 1}, totals {list(view.totals)}"]
        lines += [f"row {index}: {list(row)}" for index, row in enumerate(view.rows)]
        lines.append(f"hand: {list(view.hand)}")
        if view.must_choose_row:
            lines.append("your card is below every row: take a row (actions 104 to 107)")
        return "\n".join(lines)

    # ------------------------------------------------------------ internals

    def _require_game(self) -> Game:
        if self._game is None:
            raise IllegalActionError("the environment has not been reset: call reset() first")
        return self._game

    def _terminated(self, game: Game) -> bool:
        if self.episode == "round":
            return game.phase in (Phase.DEALING, Phase.GAME_OVER)
        return game.phase is Phase.GAME_OVER

    def _deal_next_round(self) -> None:
        game = self._require_game()
        self._deal = deal_round(self.np_random, self.players)
        game.apply_deal(self._deal.rows, self._deal.hands)

    def _draw(self, game: Game, seat: int, which: int) -> float:
        assert self._deal is not None
        return float(self._deal.draws[game.turn, seat, which])

    def _let_opponents_take_rows(self, game: Game) -> None:
        pending = game.pending_row_choice
        if pending is not None and pending.seat != 0:
            opponent = self._opponents[pending.seat - 1]
            row = opponent.choose_row(game.view(pending.seat), self._draw(game, pending.seat, 1))
            game.choose_row(pending.seat, row)

    def _outcome(self, *, illegal: bool) -> tuple[ObsArray, dict[str, Any]]:
        """The observation and info of seat 0's view now (the mask kept to check the next step)."""
        view = self.view()
        self._mask = action_mask(view)
        return encode_view(view), {"action_mask": self._mask.copy(), "illegal_action": illegal}


__all__ = ["ClassicEnv", "IllegalActionError"]
