"""Many ``nimmt/Classic-v0`` games stepped together on the bots' NumPy batch core.

:class:`VectorEnv` is a :class:`gymnasium.vector.VectorEnv` of ``num_envs`` independent games,
each the same as a :class:`~nimmt.env.ClassicEnv` with the same options: the same observation
and action encoding, the same seeded deals and opponent choices (sub-environment ``i`` seeded
with ``seed + i`` plays exactly what ``ClassicEnv`` plays with that seed), the row choice as a
step of its own. The rules run in :mod:`nimmt.bots.batchsim` (a row kept as its last card, its
length and its bullheads), which the tests check against the engine. Opponents are ``random``,
``greedy`` or policies (:mod:`nimmt.env.policies`: a learner's snapshots, ``policy:PATH``, any
batched callback), each policy called once a step for all the sub-environments and seats it
plays; a finished sub-environment is reset on the next step (Gymnasium's ``NEXT_STEP``
autoreset: that step ignores its action and returns the new episode's first observation).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
from gymnasium.utils import seeding
from gymnasium.vector import AutoresetMode
from gymnasium.vector import VectorEnv as GymVectorEnv
from gymnasium.vector.utils import batch_space

from nimmt.bots.batchsim import EMPTY, Batch, greedy_policy, resolve_turn
from nimmt.engine import BULLHEADS, DECK, GAME_END_THRESHOLD, HAND_SIZE, NUM_ROWS
from nimmt.env.classic import (
    EPISODES,
    ILLEGAL_ACTION_RULES,
    REWARDS,
    EpisodeKind,
    IllegalActionRule,
    RewardKind,
)
from nimmt.env.encoding import (
    CARDS,
    NUM_ACTIONS,
    ROW_ACTION,
    ROW_BULLHEADS,
    ROW_END,
    ROW_LENGTH,
    SEEN,
    Layout,
    action_space,
    describe_action,
    observation_space,
)
from nimmt.env.policies import Policy
from nimmt.env.table import (
    BUILTIN_OPPONENTS,
    EnvConfigError,
    IllegalActionError,
    OpponentSpec,
    check_choice,
    opponent_specs,
    policy_actions,
    spec_name,
)

IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]
FloatArray = npt.NDArray[np.float64]

_HEADS = np.asarray(BULLHEADS, dtype=np.int64)


class VectorEnv(GymVectorEnv[Any, Any, Any]):
    """``num_envs`` games of one learning seat (seat 0) against ``random``, ``greedy`` or
    policies (:mod:`nimmt.env.policies`).

    The options are :class:`~nimmt.env.ClassicEnv`'s. Observations are ``(num_envs, size)``,
    actions ``(num_envs,)``; ``infos["action_mask"]`` (and :meth:`action_masks`) is
    ``(num_envs, 108)``.
    """

    metadata = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}  # noqa: RUF012

    def __init__(
        self,
        num_envs: int = 256,
        opponents: OpponentSpec | Sequence[OpponentSpec] = "greedy",
        *,
        players: int | None = None,
        episode: EpisodeKind = "round",
        reward: RewardKind = "bullheads",
        illegal_action: IllegalActionRule = "first_legal",
        render_mode: str | None = None,
    ) -> None:
        if isinstance(num_envs, bool) or not isinstance(num_envs, int) or num_envs < 1:
            raise EnvConfigError(f"num_envs must be a whole number of 1 or more, not {num_envs!r}")
        specs = opponent_specs(opponents, players)
        for spec in specs:
            if isinstance(spec, str) and spec not in BUILTIN_OPPONENTS:
                raise EnvConfigError(
                    f"the vector environment plays only {' and '.join(BUILTIN_OPPONENTS)} "
                    f"opponents, not {spec!r}, and policies (policy:PATH or a callable, "
                    "nimmt.env.policies); ClassicEnv plays every bot"
                )
        if render_mode is not None:
            raise EnvConfigError("the vector environment does not render")
        self.opponents = specs
        self.opponent_names = names = tuple(spec_name(spec) for spec in specs)
        self.players = players = len(names) + 1
        self.episode: EpisodeKind = check_choice("episode", episode, EPISODES)  # type: ignore[assignment]
        self.reward_kind: RewardKind = check_choice("reward", reward, REWARDS)  # type: ignore[assignment]
        self.illegal_action: IllegalActionRule = check_choice(  # type: ignore[assignment]
            "illegal_action", illegal_action, ILLEGAL_ACTION_RULES
        )
        self.num_envs = num_envs
        self.render_mode = None
        self.layout = Layout(players)
        self.single_observation_space = observation_space(players)
        self.single_action_space = action_space()
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self._random_seat = np.array([False, *(spec == "random" for spec in specs)])
        # Seats played by one policy are asked together: (policy, its seats, a name for errors).
        self._groups: list[tuple[Policy, IntArray, str]] = []
        for spec in dict.fromkeys(spec for spec in specs if not isinstance(spec, str)):
            seats = np.array([1 + i for i, other in enumerate(specs) if other is spec])
            self._groups.append((spec, seats, f"the policy {spec_name(spec)!r}"))
        size = num_envs
        self._index = np.arange(size)
        self._batch = Batch(
            ends=np.zeros((size, NUM_ROWS), dtype=np.int64),
            lengths=np.zeros((size, NUM_ROWS), dtype=np.int64),
            heads=np.zeros((size, NUM_ROWS), dtype=np.int64),
            hands=np.zeros((size, players, HAND_SIZE), dtype=np.int64),
            penalties=np.zeros((size, players), dtype=np.int64),
        )
        self._totals = np.zeros((size, players), dtype=np.int64)
        self._turn = np.zeros(size, dtype=np.int64)
        self._pending = np.zeros(size, dtype=bool)
        self._revealed = np.zeros((size, players), dtype=np.int64)
        self._seen = np.zeros((size, CARDS + 1), dtype=bool)
        self._public = np.zeros((size, CARDS + 1), dtype=bool)  # starters and revealed cards
        self._draws = np.zeros((size, HAND_SIZE, players, 2), dtype=np.float64)
        self._autoreset = np.zeros(size, dtype=bool)
        self._generators: list[np.random.Generator] | None = None
        self._masks = np.zeros((size, NUM_ACTIONS), dtype=np.int8)

    # ------------------------------------------------------------------ API

    def reset(
        self,
        *,
        seed: int | Sequence[int | None] | None = None,
        options: dict[str, Any] | None = None,
    ) -> tuple[npt.NDArray[np.float32], dict[str, Any]]:
        """Deal every game anew. ``seed``: an int (sub-environment ``i`` gets ``seed + i``) or
        one seed (or ``None``) per sub-environment."""
        if options and "position" in options:
            raise EnvConfigError(
                "the vector environment starts from deals only: use ClassicEnv for a position"
            )
        if seed is None:
            seeds: list[int | None] = [None] * self.num_envs
        elif isinstance(seed, int):
            seeds = [seed + index for index in range(self.num_envs)]
        else:
            seeds = list(seed)
            if len(seeds) != self.num_envs:
                raise EnvConfigError(f"{len(seeds)} seeds given for {self.num_envs} environments")
        if self._generators is None:
            self._generators = [seeding.np_random(each)[0] for each in seeds]
        else:
            for index, each in enumerate(seeds):
                if each is not None:
                    self._generators[index] = seeding.np_random(each)[0]
        if isinstance(seed, int):
            super().reset(seed=seed)
        self._deal(self._index, new_episode=True)
        self._autoreset[:] = False
        illegal = np.zeros(self.num_envs, dtype=bool)
        return self._observations(), self._infos(illegal)

    def step(
        self, actions: Any
    ) -> tuple[npt.NDArray[np.float32], FloatArray, BoolArray, BoolArray, dict[str, Any]]:
        if self._generators is None:
            raise IllegalActionError("the environment has not been reset: call reset() first")
        size = self.num_envs
        chosen = np.asarray(actions)
        if chosen.shape != (size,) or not np.issubdtype(chosen.dtype, np.integer):
            raise IllegalActionError(
                f"actions must be {size} whole numbers (one per environment), "
                f"got an array of shape {chosen.shape} and type {chosen.dtype}"
            )
        chosen = chosen.astype(np.int64)
        restart = self._autoreset.copy()
        active = ~restart
        masks = self._masks
        in_range = (chosen >= 0) & (chosen < NUM_ACTIONS)
        legal = in_range & (masks[self._index, np.clip(chosen, 0, NUM_ACTIONS - 1)] == 1)
        illegal = active & ~legal
        if illegal.any():
            if self.illegal_action == "raise":
                env = int(np.flatnonzero(illegal)[0])
                raise IllegalActionError(
                    f"environment {env}: {describe_action(int(chosen[env]))} is not legal now"
                )
            chosen = np.where(illegal, masks.argmax(axis=1), chosen)
        rewards = np.zeros(size, dtype=np.float64)
        terminated = np.zeros(size, dtype=bool)
        card_envs = np.flatnonzero(active & ~self._pending)
        row_envs = np.flatnonzero(active & self._pending)
        turn_cards, low_rows, resolved = self._reveal(card_envs, chosen[card_envs])
        if row_envs.size:
            resolved = np.concatenate([resolved, row_envs])
            turn_cards = np.concatenate([turn_cards, self._revealed[row_envs]])
            low_rows = np.concatenate([low_rows, chosen[row_envs] - ROW_ACTION])
            self._pending[row_envs] = False
            self._revealed[row_envs] = 0
        if resolved.size:
            taken = self._resolve(resolved, turn_cards, low_rows)
            if self.reward_kind == "bullheads":
                rewards[resolved] = -taken[:, 0]
            else:
                rewards[resolved] = -(taken[:, 0] - taken[:, 1:].mean(axis=1))
            self._turn[resolved] += 1
            ended = resolved[self._turn[resolved] == HAND_SIZE]
            if ended.size:
                self._totals[ended] += self._batch.penalties[ended]
                self._batch.penalties[ended] = 0
                if self.episode == "round":
                    terminated[ended] = True
                else:
                    over = self._totals[ended].max(axis=1) > GAME_END_THRESHOLD
                    terminated[ended[over]] = True
                    self._deal(ended[~over], new_episode=False)
        if restart.any():
            self._deal(np.flatnonzero(restart), new_episode=True)
        self._autoreset = terminated.copy()
        truncated = np.zeros(size, dtype=bool)
        return self._observations(), rewards, terminated, truncated, self._infos(illegal)

    def action_masks(self) -> npt.NDArray[np.int8]:
        """``(num_envs, 108)``: 1 for each legal action of each sub-environment now."""
        return self._masks.copy()

    def _legal_actions(self) -> npt.NDArray[np.int8]:
        masks = np.zeros((self.num_envs, NUM_ACTIONS), dtype=np.int8)
        hands = np.zeros((self.num_envs, CARDS + 1), dtype=np.int8)
        hands[self._index[:, None], self._batch.hands[:, 0, :]] = 1
        choosing = ~self._pending
        masks[choosing, :CARDS] = hands[choosing, 1:]
        masks[self._pending, ROW_ACTION:] = 1
        return masks

    # ------------------------------------------------------------ internals

    def _deal(self, envs: IntArray, *, new_episode: bool) -> None:
        """Deal a new round in ``envs``, from each one's generator (``nimmt.env.table``)."""
        if envs.size == 0:
            return
        assert self._generators is not None
        players = self.players
        decks = np.empty((envs.size, len(DECK)), dtype=np.int64)
        for position, env in enumerate(envs):
            generator = self._generators[env]
            decks[position] = generator.permutation(len(DECK)) + 1
            self._draws[env] = generator.random((HAND_SIZE, players, 2))
        starters = decks[:, :NUM_ROWS]
        hands = np.sort(
            decks[:, NUM_ROWS : NUM_ROWS + players * HAND_SIZE].reshape(-1, players, HAND_SIZE)
        )
        batch = self._batch
        batch.ends[envs] = starters
        batch.lengths[envs] = 1
        batch.heads[envs] = _HEADS[starters]
        batch.hands[envs] = hands
        batch.penalties[envs] = 0
        if new_episode:
            self._totals[envs] = 0
        self._turn[envs] = 0
        self._pending[envs] = False
        self._revealed[envs] = 0
        seen = np.zeros((envs.size, CARDS + 1), dtype=bool)
        rows = np.arange(envs.size)[:, None]
        seen[rows, starters] = True
        self._public[envs] = seen
        seen[rows, hands[:, 0, :]] = True
        self._seen[envs] = seen

    def _reveal(self, envs: IntArray, actions: IntArray) -> tuple[IntArray, IntArray, IntArray]:
        """Every seat of ``envs`` plays its card (seat 0 the card of ``actions``). Returns the
        cards, the row taken by the lowest card's owner (where an opponent owns it) and the envs
        whose turn resolves now; where seat 0's card is below every row, it must choose first."""
        empty = np.zeros((0, self.players), dtype=np.int64)
        if envs.size == 0:
            return empty, np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        batch = self._batch
        hands = batch.hands[envs]
        sub = Batch(
            batch.ends[envs], batch.lengths[envs], batch.heads[envs], hands, batch.penalties[envs]
        )
        turn = np.minimum(self._turn[envs], HAND_SIZE - 1)
        draws = self._draws[envs, turn]  # (k, players, 2)
        slots = greedy_policy(sub)
        if self._random_seat.any():
            present = hands != EMPTY
            count = present.sum(axis=2)
            nth = (draws[:, :, 0] * count).astype(np.int64)
            random_slots = (np.cumsum(present, axis=2) > nth[:, :, None]).argmax(axis=2)
            slots = np.where(self._random_seat[None, :], random_slots, slots)
        rows = np.arange(envs.size)
        slots[:, 0] = (hands[:, 0, :] == (actions + 1)[:, None]).argmax(axis=1)
        for policy, seats, who in self._groups:
            places = np.tile(envs, seats.size)
            owners = np.repeat(seats, envs.size)
            obs, masks = self._seat_observations(places, owners, None)
            cards = policy_actions(policy, obs, masks, who, places).reshape(seats.size, -1) + 1
            slots[:, seats] = (hands[:, seats, :] == cards.T[:, :, None]).argmax(axis=2)
        cards = hands[rows[:, None], np.arange(self.players)[None, :], slots]
        hands[rows[:, None], np.arange(self.players)[None, :], slots] = EMPTY
        batch.hands[envs] = hands
        self._seen[envs[:, None], cards] = True
        self._public[envs[:, None], cards] = True
        low_owner = cards.argmin(axis=1)
        too_low = cards.min(axis=1) < sub.ends.min(axis=1)
        waits = too_low & (low_owner == 0)
        waiting = envs[waits]
        self._pending[waiting] = True
        self._revealed[waiting] = cards[waits]
        greedy_rows = sub.heads.argmin(axis=1)
        random_rows = (draws[rows, low_owner, 1] * NUM_ROWS).astype(np.int64)
        low_rows = np.where(self._random_seat[low_owner], random_rows, greedy_rows)
        for policy, seats, who in self._groups:
            asked = np.flatnonzero(too_low & np.isin(low_owner, seats))
            if asked.size:
                obs, masks = self._seat_observations(envs[asked], low_owner[asked], cards[asked])
                chosen = policy_actions(policy, obs, masks, who, envs[asked])
                low_rows[asked] = chosen - ROW_ACTION
        go = ~waits
        return cards[go], low_rows[go], envs[go]

    def _resolve(self, envs: IntArray, cards: IntArray, low_rows: IntArray) -> IntArray:
        """Place the turn's ``cards`` in ``envs``; returns the bullheads each seat took."""
        batch = self._batch
        before = batch.penalties[envs]
        sub = Batch(
            batch.ends[envs],
            batch.lengths[envs],
            batch.heads[envs],
            batch.hands[envs],
            before.copy(),
        )
        resolve_turn(sub, cards, low_rows)
        batch.ends[envs] = sub.ends
        batch.lengths[envs] = sub.lengths
        batch.heads[envs] = sub.heads
        batch.penalties[envs] = sub.penalties
        taken: IntArray = sub.penalties - before
        return taken

    def _seat_observations(
        self, envs: IntArray, seats: IntArray, revealed: IntArray | None
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int8]]:
        """The observations and masks of ``seats`` (one per entry of ``envs``), as
        ``encode_view`` and ``action_mask`` give them: choosing a card, or with ``revealed``
        (this turn's cards by seat) the row to take."""
        layout = self.layout
        batch = self._batch
        count = envs.size
        index = np.arange(count)[:, None]
        order = (seats[:, None] + np.arange(self.players)[None, :]) % self.players
        held = np.zeros((count, CARDS + 1), dtype=bool)
        held[index, batch.hands[envs, seats]] = True
        obs = np.zeros((count, layout.size), dtype=np.float32)
        obs[:, :CARDS] = held[:, 1:]
        obs[:, SEEN] = (held | self._public[envs])[:, 1:]
        obs[:, ROW_END] = batch.ends[envs]
        obs[:, ROW_LENGTH] = batch.lengths[envs]
        obs[:, ROW_BULLHEADS] = batch.heads[envs]
        obs[:, layout.penalties] = batch.penalties[envs[:, None], order]
        obs[:, layout.totals] = self._totals[envs[:, None], order]
        obs[:, layout.turn] = self._turn[envs]
        masks = np.zeros((count, NUM_ACTIONS), dtype=np.int8)
        if revealed is None:
            masks[:, :CARDS] = held[:, 1:]
        else:
            obs[:, layout.revealed] = revealed[index, order]
            obs[:, layout.must_take_row] = 1
            masks[:, ROW_ACTION:] = 1
        return obs, masks

    def _observations(self) -> npt.NDArray[np.float32]:
        layout = self.layout
        batch = self._batch
        obs = np.zeros((self.num_envs, layout.size), dtype=np.float32)
        hands = np.zeros((self.num_envs, CARDS + 1), dtype=np.float32)
        hands[self._index[:, None], batch.hands[:, 0, :]] = 1
        obs[:, :CARDS] = hands[:, 1:]
        obs[:, SEEN] = self._seen[:, 1:]
        obs[:, ROW_END] = batch.ends
        obs[:, ROW_LENGTH] = batch.lengths
        obs[:, ROW_BULLHEADS] = batch.heads
        obs[:, layout.penalties] = batch.penalties
        obs[:, layout.totals] = self._totals
        obs[:, layout.revealed] = self._revealed
        obs[:, layout.must_take_row] = self._pending
        obs[:, layout.turn] = self._turn
        return obs

    def _infos(self, illegal: BoolArray) -> dict[str, Any]:
        every = np.ones(self.num_envs, dtype=bool)
        self._masks = self._legal_actions()  # kept to check the next step's actions
        return {
            "action_mask": self._masks.copy(),
            "_action_mask": every,
            "illegal_action": illegal,
            "_illegal_action": every.copy(),
        }


__all__ = ["VectorEnv"]
