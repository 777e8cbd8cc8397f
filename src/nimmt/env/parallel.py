"""A PettingZoo ``ParallelEnv`` in which every seat is an agent (``docs/env.md``).

Agents ``player_0`` to ``player_{P-1}`` choose their cards at once, as at the table: a step takes
one card action from every agent, and :class:`nimmt.engine.Game` reveals and resolves the turn.
When the turn's lowest card is below every row, the next step is that card's owner's row choice:
only its action counts then (the others' observations carry an all-zero action mask, and their
actions, if given, are ignored). Each agent observes only its own seat's view: a dict with the
flat ``observation`` of :mod:`nimmt.env.encoding` and its ``action_mask``.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import ParallelEnv  # type: ignore[import-untyped]

from nimmt.engine import MAX_PLAYERS, MIN_PLAYERS, Game, Phase
from nimmt.env.classic import (
    EPISODES,
    ILLEGAL_ACTION_RULES,
    REWARDS,
    EpisodeKind,
    IllegalActionRule,
    RewardKind,
    cumulative_bullheads,
    legal_or_substitute,
    step_reward,
)
from nimmt.env.encoding import (
    NUM_ACTIONS,
    ROW_ACTION,
    action_mask,
    action_space,
    encode_view,
    observation_space,
)
from nimmt.env.table import EnvConfigError, IllegalActionError, check_choice, deal_round

AgentObservation = dict[str, np.ndarray[Any, Any]]


class NimmtParallelEnv(ParallelEnv):  # type: ignore[misc]
    """Every seat of a game of ``players`` as a PettingZoo agent; see the module docstring.

    ``episode``, ``reward`` and ``illegal_action`` mean what they mean for
    :class:`~nimmt.env.ClassicEnv`, for each agent.
    """

    metadata = {  # noqa: RUF012 (PettingZoo's class attribute)
        "name": "nimmt_classic_v0",
        "render_modes": ["ansi"],
        "render_fps": 4,
        "is_parallelizable": True,
    }

    def __init__(
        self,
        players: int = 4,
        *,
        episode: EpisodeKind = "round",
        reward: RewardKind = "bullheads",
        illegal_action: IllegalActionRule = "first_legal",
        render_mode: str | None = None,
    ) -> None:
        if isinstance(players, bool) or not isinstance(players, int):
            raise EnvConfigError(f"players must be a whole number, not {players!r}")
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise EnvConfigError(
                f"classic 6 nimmt! is for {MIN_PLAYERS} to {MAX_PLAYERS} players, not {players}"
            )
        self.players = players
        self.episode: EpisodeKind = check_choice("episode", episode, EPISODES)  # type: ignore[assignment]
        self.reward_kind: RewardKind = check_choice("reward", reward, REWARDS)  # type: ignore[assignment]
        self.illegal_action: IllegalActionRule = check_choice(  # type: ignore[assignment]
            "illegal_action", illegal_action, ILLEGAL_ACTION_RULES
        )
        if render_mode is not None:
            check_choice("render_mode", render_mode, ["ansi"])
        self.render_mode = render_mode
        self.possible_agents = [f"player_{seat}" for seat in range(players)]
        self.agents: list[str] = []
        self._seat = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        self._observation_space = spaces.Dict(
            {
                "observation": observation_space(players),
                "action_mask": spaces.Box(0, 1, shape=(NUM_ACTIONS,), dtype=np.int8),
            }
        )
        self._action_space = action_space()
        self._rng, _ = seeding.np_random(None)
        self._game: Game | None = None

    @functools.cache  # noqa: B019 (one space object per agent, as PettingZoo asks)
    def observation_space(self, agent: str) -> spaces.Space[Any]:
        self._check_agent(agent)
        return self._observation_space

    @functools.cache  # noqa: B019
    def action_space(self, agent: str) -> spaces.Space[Any]:
        self._check_agent(agent)
        return self._action_space

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, AgentObservation], dict[str, dict[str, Any]]]:
        """A new game (``options={"position": {...}}`` starts from the keyword arguments of
        :meth:`nimmt.engine.Game.from_position` instead of a deal)."""
        if seed is not None:
            self._rng, _ = seeding.np_random(seed)
        position = (options or {}).get("position")
        if position is not None:
            game = Game.from_position(**position)
            if game.players != self.players:
                raise EnvConfigError(
                    f"the position has {game.players} seats, the environment {self.players}"
                )
            self._game = game
        else:
            self._game = Game(self.players)
            self._deal()
        self.agents = list(self.possible_agents)
        return self._observations(), self._infos(set())

    def step(
        self, actions: Mapping[str, Any]
    ) -> tuple[
        dict[str, AgentObservation],
        dict[str, float],
        dict[str, bool],
        dict[str, bool],
        dict[str, dict[str, Any]],
    ]:
        game = self._game
        if game is None or not self.agents:
            raise IllegalActionError("the episode is over or not started: call reset() first")
        for agent in actions:
            self._check_agent(agent)
        acting = game.waiting_for()
        missing = [
            self.possible_agents[seat]
            for seat in acting
            if self.possible_agents[seat] not in actions
        ]
        if missing:
            raise IllegalActionError(f"no action given for {', '.join(missing)}, who must act now")
        illegal: set[str] = set()
        chosen: dict[int, int] = {}
        for seat in acting:
            agent = self.possible_agents[seat]
            action, substituted = legal_or_substitute(
                actions[agent], action_mask(game.view(seat)), self.illegal_action, who=agent
            )
            chosen[seat] = action
            if substituted:
                illegal.add(agent)
        before = cumulative_bullheads(game)
        if game.phase is Phase.CHOOSING_ROW:
            ((seat, action),) = chosen.items()
            game.choose_row(seat, action - ROW_ACTION)
        else:
            for seat, action in chosen.items():
                game.play(seat, action + 1)
        after = cumulative_bullheads(game)
        taken = [late - early for late, early in zip(after, before, strict=True)]
        rewards = {
            agent: step_reward(self.reward_kind, taken, seat) for agent, seat in self._seat.items()
        }
        if game.phase is Phase.DEALING and self.episode == "game":
            self._deal()
        over = game.phase is Phase.GAME_OVER or (
            self.episode == "round" and game.phase is Phase.DEALING
        )
        observations = self._observations()
        infos = self._infos(illegal)
        terminations = dict.fromkeys(self.agents, over)
        truncations = dict.fromkeys(self.agents, False)
        if over:
            self.agents = []
        return observations, rewards, terminations, truncations, infos

    def render(self) -> str | None:
        if self.render_mode != "ansi" or self._game is None:
            return None
        game = self._game
        lines = [f"round {game.round}, turn {game.turn + 1}, totals {list(game.totals)}"]
        lines += [f"row {index}: {list(row)}" for index, row in enumerate(game.rows)]
        if game.pending_row_choice is not None:
            lines.append(f"player_{game.pending_row_choice.seat} takes a row")
        return "\n".join(lines)

    def close(self) -> None:
        pass

    @property
    def game(self) -> Game:
        """The engine's game (every hand: for analysis, never for an agent)."""
        if self._game is None:
            raise IllegalActionError("the environment has not been reset: call reset() first")
        return self._game

    def _deal(self) -> None:
        assert self._game is not None
        deal = deal_round(self._rng, self.players)
        self._game.apply_deal(deal.rows, deal.hands)

    def _check_agent(self, agent: str) -> None:
        if agent not in self._seat:
            raise EnvConfigError(
                f"there is no agent {agent!r}: the agents are {', '.join(self.possible_agents)}"
            )

    def _observations(self) -> dict[str, AgentObservation]:
        game = self.game
        observations: dict[str, AgentObservation] = {}
        for agent, seat in self._seat.items():
            view = game.view(seat)
            observations[agent] = {
                "observation": encode_view(view),
                "action_mask": action_mask(view),
            }
        return observations

    def _infos(self, illegal: set[str]) -> dict[str, dict[str, Any]]:
        return {agent: {"illegal_action": agent in illegal} for agent in self.possible_agents}


def parallel_env(players: int = 4, **options: Any) -> NimmtParallelEnv:
    """The PettingZoo environment for ``players`` seats (``episode``, ``reward``, ...)."""
    return NimmtParallelEnv(players, **options)
