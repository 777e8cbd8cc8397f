"""Game records: one JSON document per game, what PGN is to chess (docs/formats.md section 1).

:func:`to_record` writes a record from any :class:`~nimmt.engine.Game`; :func:`replay_record`
reads one, checks it against the rules by replaying it through the engine, and returns the replayed
game with a per-round summary (the data of ``nimmt replay --json``). A record that breaks the format
or the rules raises :class:`RecordError`, whose message names the place, 1-based, and the player:
``round 2, turn 3: Ben played 55, which is not in their hand``.

>>> from nimmt.engine import Game
>>> game = Game(2)
>>> game.deal(7)
>>> for _ in range(3):
...     game.play_turn([game.hand(0)[0], game.hand(1)[-1]],
...                    row=0 if game.round_state().needs_row_choice(
...                        [game.hand(0)[0], game.hand(1)[-1]]) else None)
>>> replayed = replay_record(dump_record(to_record(game, ["Ana", "Ben"])))
>>> replayed.rounds[0].penalties == game.penalties, replayed.finished
(True, False)
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from nimmt.engine import (
    HAND_SIZE,
    MAX_PLAYERS,
    MIN_PLAYERS,
    NUM_ROWS,
    CardNotInHandError,
    Game,
    InvalidDealError,
    NoRowChoicePendingError,
    Phase,
    RoundLog,
    RowChoiceMissingError,
    RowIndexError,
    RuleError,
)

FORMAT = "6nimmt-record"
VERSION = 1
EDITION = "classic"


class RecordError(ValueError):
    """A game record that is not valid JSON, not in the format, or breaks the rules."""


@dataclass(frozen=True, slots=True)
class RoundSummary:
    """One round of a replayed record, as ``nimmt replay --json`` reports it."""

    complete: bool
    penalties: tuple[int, ...]
    totals: tuple[int, ...]
    rows: tuple[tuple[int, ...], ...]


@dataclass(frozen=True, slots=True)
class ReplayedGame:
    """A record replayed through the engine."""

    players: tuple[str, ...]
    game: Game
    rounds: tuple[RoundSummary, ...]

    @property
    def totals(self) -> tuple[int, ...]:
        return self.rounds[-1].totals if self.rounds else (0,) * len(self.players)

    @property
    def finished(self) -> bool:
        return self.game.phase is Phase.GAME_OVER

    @property
    def winners(self) -> tuple[int, ...]:
        outcome = self.game.outcome
        return outcome.winners if outcome is not None else ()

    def summary(self) -> dict[str, Any]:
        """The JSON object of ``nimmt replay --json`` (docs/formats.md section 2)."""
        return {
            "players": list(self.players),
            "rounds": [
                {
                    "complete": entry.complete,
                    "penalties": list(entry.penalties),
                    "totals": list(entry.totals),
                    "rows": [list(row) for row in entry.rows],
                }
                for entry in self.rounds
            ],
            "totals": list(self.totals),
            "finished": self.finished,
            "winners": list(self.winners),
        }


# ------------------------------------------------------------------------------------- writing


def to_record(
    game: Game, players: Sequence[str], meta: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """The record of ``game`` so far, with ``players`` as the seats' names.

    A turn still waiting for a row choice is left out: its row is not known yet.
    """
    if len(players) != game.players:
        raise ValueError(f"{len(players)} names given for {game.players} players")
    if any(log.position is not None for log in game.history):
        raise ValueError("a game set up from a position has no complete record")
    record: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION,
        "edition": EDITION,
        "players": list(players),
        "rounds": [_round_record(log) for log in game.history],
    }
    if game.pending_row_choice is not None and record["rounds"]:
        record["rounds"][-1]["turns"].pop()
    if meta:
        record["meta"] = dict(meta)
    return record


def _round_record(log: RoundLog) -> dict[str, Any]:
    turns: list[dict[str, Any]] = []
    for turn in log.turns:
        entry: dict[str, Any] = {"cards": list(turn.cards)}
        if turn.row is not None:
            entry["row"] = turn.row
        turns.append(entry)
    return {
        "rows": [[card] for card in log.rows],
        "hands": [list(hand) for hand in log.hands],
        "turns": turns,
    }


def dump_record(record: Mapping[str, Any]) -> str:
    """The record as JSON text: one line per turn and hand, easy to read and to diff."""
    lines = ["{"]
    head = {key: value for key, value in record.items() if key != "rounds"}
    for key, value in head.items():
        lines.append(f"  {json.dumps(key)}: {json.dumps(value, ensure_ascii=False)},")
    lines.append('  "rounds": [')
    rounds = record.get("rounds", [])
    for index, entry in enumerate(rounds):
        lines.append("    {")
        lines.append(f'      "rows": {json.dumps(entry["rows"])},')
        hands = ",\n        ".join(json.dumps(hand) for hand in entry["hands"])
        lines.append(f'      "hands": [\n        {hands}\n      ],')
        turns = ",\n        ".join(json.dumps(turn) for turn in entry["turns"])
        lines.append(
            f'      "turns": [\n        {turns}\n      ]' if turns else '      "turns": []'
        )
        lines.append("    }" + ("," if index < len(rounds) - 1 else ""))
    lines.append("  ]")
    lines.append("}")
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------------------------- reading


def parse_record(text: str) -> dict[str, Any]:
    """The JSON object in ``text``, or a :class:`RecordError` saying why it is not one."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise RecordError(
            f"not valid JSON: {error.msg} (line {error.lineno}, column {error.colno})"
        ) from None
    if not isinstance(data, dict):
        raise RecordError("a game record is a JSON object")
    return data


def replay_record(record: Mapping[str, Any] | str) -> ReplayedGame:
    """Check ``record`` against the format and the rules by replaying it through the engine."""
    data = parse_record(record) if isinstance(record, str) else record
    if not isinstance(data, Mapping):
        raise RecordError("a game record is a JSON object")
    _check_header(data)
    players = _check_players(data.get("players"))
    rounds = data.get("rounds")
    if not isinstance(rounds, list):
        raise RecordError('"rounds" must be a list of rounds')
    game = Game(len(players))
    summaries: list[RoundSummary] = []
    for round_index, entry in enumerate(rounds):
        where = f"round {round_index + 1}"
        if game.phase is Phase.GAME_OVER:
            raise RecordError(f"{where}: the game was already over after round {round_index}")
        if game.phase is not Phase.DEALING:
            raise RecordError(
                f"{where}: round {round_index} has only {game.turn} of {HAND_SIZE} turns; "
                "only the last round may be incomplete"
            )
        summaries.append(_replay_round(game, players, entry, where))
    return ReplayedGame(players, game, tuple(summaries))


def _check_header(data: Mapping[str, Any]) -> None:
    if data.get("format") != FORMAT:
        raise RecordError(f'not a 6 nimmt! game record: "format" must be "{FORMAT}"')
    version = data.get("version")
    if version != VERSION or isinstance(version, bool):
        raise RecordError(f"record version {version!r} is not supported (only version {VERSION})")
    edition = data.get("edition", EDITION)
    if edition != EDITION:
        raise RecordError(
            f"edition {edition!r} is not offered: nimmt plays only the classic edition"
        )


def _check_players(players: object) -> tuple[str, ...]:
    if not isinstance(players, list):
        raise RecordError('"players" must be a list of names')
    if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        raise RecordError(
            f"a game has {MIN_PLAYERS} to {MAX_PLAYERS} players, this record has {len(players)}"
        )
    for index, name in enumerate(players):
        if not isinstance(name, str) or not name.strip():
            raise RecordError(f"seat {index}: a name must be a non-empty string")
        if any(unicodedata.category(char) == "Cc" for char in name):
            # A line break or an escape sequence, told to a terminal, would move or recolour it.
            raise RecordError(
                f"seat {index}: a name must not hold a control character (a line break, an escape)"
            )
    if len(set(players)) != len(players):
        repeated = next(name for name in players if players.count(name) > 1)
        raise RecordError(f"player names must be distinct: {repeated!r} appears twice")
    return tuple(players)


def _is_card(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 104


def _replay_round(game: Game, players: tuple[str, ...], entry: object, where: str) -> RoundSummary:
    if not isinstance(entry, Mapping):
        raise RecordError(f"{where}: a round is an object with rows, hands and turns")
    rows, hands = entry.get("rows"), entry.get("hands")
    if not isinstance(rows, list) or not all(isinstance(row, list) for row in rows):
        raise RecordError(f'{where}: "rows" must be {NUM_ROWS} one-card lists')
    if not isinstance(hands, list) or not all(isinstance(hand, list) for hand in hands):
        raise RecordError(f'{where}: "hands" must be a list of each player\'s dealt cards')
    try:
        game.apply_deal(rows, hands)
    except InvalidDealError as error:  # the engine names the seat and card: word it with names
        raise RecordError(f"{where}: {_deal_problem(error, players)}") from None

    turns = entry.get("turns", [])
    if not isinstance(turns, list):
        raise RecordError(f'{where}: "turns" must be a list')
    if len(turns) > HAND_SIZE:
        raise RecordError(f"{where}: {len(turns)} turns, but a round has {HAND_SIZE}")
    start_totals = game.totals
    played: list[set[int]] = [set() for _ in players]
    for turn_index, turn in enumerate(turns):
        _replay_turn(game, players, turn, played, f"{where}, turn {turn_index + 1}")
        for seat, card in enumerate(turn["cards"]):
            played[seat].add(card)

    state = game.round_state()
    complete = len(turns) == HAND_SIZE
    penalties = tuple(state.penalties)
    totals = tuple(base + penalty for base, penalty in zip(start_totals, penalties, strict=True))
    return RoundSummary(complete, penalties, totals, tuple(tuple(row) for row in state.rows))


def _deal_problem(error: InvalidDealError, players: tuple[str, ...]) -> str:
    if error.seat is None or error.seat >= len(players):
        return str(error)
    name = players[error.seat]
    if error.card is None:
        return f"{name} must be dealt {HAND_SIZE} cards"
    if not _is_card(error.card):
        return f"{name} was dealt {error.card!r}, which is not a card"
    return str(error)


def _replay_turn(
    game: Game,
    players: tuple[str, ...],
    turn: object,
    played: list[set[int]],
    where: str,
) -> None:
    if not isinstance(turn, Mapping):
        raise RecordError(f'{where}: a turn is an object with "cards"')
    cards = turn.get("cards")
    if not isinstance(cards, list) or len(cards) != len(players):
        raise RecordError(
            f'{where}: "cards" must hold one card for each of the {len(players)} players'
        )
    row = turn.get("row")
    try:
        game.play_turn(cards, row)
    except CardNotInHandError as error:  # the engine names the seat and card: say which case
        assert error.seat is not None
        name, card = players[error.seat], error.card
        if not _is_card(card):
            raise RecordError(f"{where}: {name} played {card!r}, which is not a card") from None
        if card in played[error.seat]:
            raise RecordError(
                f"{where}: {name} played {card}, which they had already played"
            ) from None
        raise RecordError(f"{where}: {name} played {card}, which is not in their hand") from None
    except RowChoiceMissingError as error:
        assert error.seat is not None
        raise RecordError(
            f"{where}: {players[error.seat]}'s {error.card} is lower than every row, so the turn "
            'must say which row they took ("row")'
        ) from None
    except NoRowChoicePendingError as error:
        raise RecordError(
            f"{where}: no card is lower than every row, so no row may be chosen "
            f"(got row {error.row!r})"
        ) from None
    except RowIndexError as error:
        raise RecordError(
            f"{where}: row {error.row!r} does not exist (rows are 0 to {NUM_ROWS - 1})"
        ) from None
    except RuleError as error:
        raise RecordError(f"{where}: {error}") from None
