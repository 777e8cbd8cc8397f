"""A group's standings and a person's history, computed from stored game results
(:class:`~nimmt.server.storage.people.GameResult`), oldest game first.

Standings count, for each member: games, wins (a joint win counts for every winner), bullheads,
rounds, bullheads per round, rounds without a bullhead and rows taken; and a multiplayer rating,
openskill's Plackett-Luce model, updated game by game in the order the games finished (each seat
ranked by its total: equal totals share a rank). Everybody at a group's table is rated (guests
and bots too, by name), so that beating a strong bot counts; only members are listed.

Nothing here is stored: the same results always give the same standings, in every process.
"""

from __future__ import annotations

import csv
import io
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from openskill.models import PlackettLuce, PlackettLuceRating

from nimmt.server.serialize import bot_display_name, iso
from nimmt.server.storage.people import GameResult, Member, ResultSeat

RECENT_GAMES = 20
"""Games shown on a group's page (the standings count them all)."""
CSV_COLUMNS = (
    "rank",
    "name",
    "games",
    "wins",
    "bullheads",
    "rounds",
    "bullheads_per_round",
    "clean_rounds",
    "rows_taken",
    "rating",
    "mu",
    "sigma",
)


def replay_url(result: GameResult) -> str:
    return f"/t/{result.table}/replay?game={result.game}"


_BOT_NAME = re.compile(r"Bot \d+ \((.+)\)")


def bot_name(seat: ResultSeat) -> dict[str, Any] | None:
    """A bot seat's own name (``Bot 3 (greedy)``) in parts, as in a table's summary, so that a
    client says it in its reader's language; ``None`` for a person, or a bot under their name."""
    match = _BOT_NAME.fullmatch(seat.name)
    if seat.kind != "bot" or match is None or seat.name != bot_display_name(match[1], seat.seat):
        return None
    return {"bot": match[1], "number": seat.seat + 1}


def rating_key(seat: ResultSeat) -> str:
    """Whom a seat's rating belongs to: its profile, else a guest or bot by name."""
    if seat.profile_id is not None:
        return f"profile:{seat.profile_id}"
    return f"{'bot' if seat.kind == 'bot' else 'guest'}:{seat.name.casefold()}"


@dataclass(slots=True)
class Tally:
    games: int = 0
    wins: int = 0
    bullheads: int = 0
    rounds: int = 0
    clean_rounds: int = 0
    rows_taken: int = 0
    reviewed_games: int = 0
    decision_loss: float = 0.0
    ratings: list[dict[str, Any]] = field(default_factory=list)

    def add(self, seat: ResultSeat) -> None:
        self.games += 1
        self.wins += seat.winner
        self.bullheads += seat.total
        self.rounds += len(seat.round_penalties)
        self.clean_rounds += sum(penalty == 0 for penalty in seat.round_penalties)
        self.rows_taken += seat.rows_taken
        if seat.decision_loss is not None:
            self.reviewed_games += 1
            self.decision_loss += seat.decision_loss

    def figures(self) -> dict[str, Any]:
        return {
            "games": self.games,
            "wins": self.wins,
            "bullheads": self.bullheads,
            "rounds": self.rounds,
            "bullheads_per_round": round(self.bullheads / self.rounds, 2) if self.rounds else None,
            "clean_rounds": self.clean_rounds,
            "rows_taken": self.rows_taken,
            "reviewed_games": self.reviewed_games,
            "decision_loss": round(self.decision_loss, 2) if self.reviewed_games else None,
        }


def rate(
    results: Iterable[GameResult],
) -> tuple[dict[str, PlackettLuceRating], dict[str, list[dict[str, Any]]]]:
    """Every participant's rating after ``results``, and each one's rating after each of
    their games (``{"table", "game", "finished_at", "rating"}``)."""
    model = PlackettLuce()
    ratings: dict[str, PlackettLuceRating] = {}
    over_time: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for result in results:
        if len(result.seats) < 2:
            continue
        keys = [rating_key(seat) for seat in result.seats]
        if len(set(keys)) != len(keys):  # two guests of one name: rate by seat instead
            keys = [f"{key}#{seat.seat}" for key, seat in zip(keys, result.seats, strict=True)]
        teams = [[ratings.get(key) or model.rating(name=key)] for key in keys]
        rated = model.rate(teams, ranks=[float(seat.total) for seat in result.seats])
        for key, (rating,) in zip(keys, rated, strict=True):
            ratings[key] = rating
            over_time[key].append(
                {
                    "table": result.table,
                    "game": result.game,
                    "finished_at": iso(result.finished_at),
                    "rating": round(rating.ordinal(), 2),
                }
            )
    return ratings, over_time


def standings(results: Sequence[GameResult], members: Sequence[Member]) -> list[dict[str, Any]]:
    """The members' lines, best rating first (then wins, fewer bullheads per round, name);
    members who have not played yet come after all who have: a rating nobody earned is not
    above one lost in play (a new rating is 0, and a player's first losses take it below)."""
    ratings, over_time = rate(results)
    tallies: dict[str, Tally] = defaultdict(Tally)
    for result in results:
        for seat in result.seats:
            if seat.profile_id is not None:
                tallies[seat.profile_id].add(seat)
    default = PlackettLuce().rating()
    lines = []
    for member in members:
        profile = member.profile
        key = f"profile:{profile.id}"
        rating = ratings.get(key, default)
        lines.append(
            {
                "profile": profile.id,
                "name": profile.name,
                "emoji": profile.emoji,
                "colour": profile.colour,
                **tallies[profile.id].figures(),
                "rating": round(rating.ordinal(), 2),
                "mu": round(rating.mu, 3),
                "sigma": round(rating.sigma, 3),
                "rating_over_time": over_time.get(key, []),
            }
        )

    def standing(line: dict[str, Any]) -> tuple[bool, float, int, float]:
        return (
            line["games"] == 0,
            -line["rating"],
            -line["wins"],
            line["bullheads_per_round"] or 0.0,
        )

    lines.sort(key=lambda line: (*standing(line), line["name"].casefold()))
    # Members who stand exactly alike share a rank (1, 1, 3), as before anyone has played.
    for index, line in enumerate(lines):
        alike = index and standing(lines[index - 1]) == standing(line)
        line["rank"] = lines[index - 1]["rank"] if alike else index + 1
    return lines


def game_summary(result: GameResult) -> dict[str, Any]:
    """One finished game as the group page and a history list it."""
    return {
        "table": result.table,
        "game": result.game,
        "finished_at": iso(result.finished_at),
        "real_cards": result.real,
        "rounds": result.rounds,
        "replay": replay_url(result),
        "players": [
            {
                "seat": seat.seat,
                "name": seat.name,
                "kind": seat.kind,
                "bot_name": bot_name(seat),
                "profile": seat.profile_id,
                "total": seat.total,
                "winner": seat.winner,
            }
            for seat in result.seats
        ],
    }


EVENING_GAP = timedelta(hours=6)
"""A pause this long between two games starts a new evening."""


def evenings(results: Sequence[GameResult], limit: int = 5) -> list[dict[str, Any]]:
    """The group's evenings, newest first: games each less than :data:`EVENING_GAP` after the
    one before (so that an evening past midnight, anywhere on earth, stays one); how many, who
    won, the bullheads. ``date`` is the UTC day of its first game; clients show its
    ``first_game_at`` (when its first game finished; ``last_game_at``: its last) in their
    reader's time zone."""
    sessions: list[list[GameResult]] = []
    for result in sorted(results, key=lambda r: r.finished_at):
        if sessions and result.finished_at - sessions[-1][-1].finished_at < EVENING_GAP:
            sessions[-1].append(result)
        else:
            sessions.append([result])
    summaries = []
    for games in reversed(sessions[-limit:]):
        people: dict[str, dict[str, Any]] = {}
        for result in games:
            for seat in result.seats:
                line = people.setdefault(
                    rating_key(seat),
                    {
                        "name": seat.name,
                        "profile": seat.profile_id,
                        "kind": seat.kind,
                        "bot_name": bot_name(seat),
                        "games": 0,
                        "wins": 0,
                        "bullheads": 0,
                    },
                )
                line["games"] += 1
                line["wins"] += seat.winner
                line["bullheads"] += seat.total
        ranked = sorted(people.values(), key=lambda p: (-p["wins"], p["bullheads"], p["name"]))
        summaries.append(
            {
                "date": iso(games[0].finished_at)[:10],
                "first_game_at": iso(games[0].finished_at),
                "last_game_at": iso(games[-1].finished_at),
                "games": len(games),
                "players": ranked,
            }
        )
    return summaries


def standings_csv(lines: Sequence[dict[str, Any]]) -> str:
    """The standings as CSV (one line a member, :data:`CSV_COLUMNS`). A name a spreadsheet
    would run as a formula is quoted with a leading apostrophe."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow(CSV_COLUMNS)
    for line in lines:
        name = str(line["name"])
        if name[:1] in ("=", "+", "-", "@", "\t", "\r"):
            name = "'" + name
        row = {**line, "name": name}
        writer.writerow(["" if row[column] is None else row[column] for column in CSV_COLUMNS])
    return out.getvalue()


def history(results: Sequence[GameResult], profile_id: str) -> dict[str, Any]:
    """A person's games, newest first, with their place, and their figures game by game: with
    the coach's review of a game, the bullheads lost to their own decisions in it (``None``
    for a game nobody asked the coach about; the totals count the reviewed games only)."""
    games = []
    tally = Tally()
    for result in results:
        mine = next((seat for seat in result.seats if seat.profile_id == profile_id), None)
        if mine is None:
            continue
        tally.add(mine)
        rounds = len(mine.round_penalties)
        place = 1 + sum(seat.total < mine.total for seat in result.seats)
        games.append(
            {
                **game_summary(result),
                "group": result.group,
                "seat": mine.seat,
                "total": mine.total,
                "winner": mine.winner,
                "place": place,
                "bullheads_per_round": round(mine.total / rounds, 2) if rounds else None,
                "clean_rounds": sum(penalty == 0 for penalty in mine.round_penalties),
                "rows_taken": mine.rows_taken,
                "decision_loss": mine.decision_loss,
            }
        )
    games.reverse()
    return {"totals": tally.figures(), "games": games}
