"""Standings computed from results written as data: joint wins count for every winner,
bullheads per round, rounds without a bullhead, and the Plackett-Luce rating game by game."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

from nimmt.server.standings import evenings, game_summary, history, standings
from nimmt.server.storage.people import GameResult, Member, Profile, ResultSeat

START = datetime(2025, 3, 6, 19, 0, tzinfo=UTC)
PEOPLE = [
    Profile(pid, name, "🐮", "#1f5a45", START)
    for pid, name in (("a", "Ana"), ("b", "Ben"), ("c", "Cy"))
]
MEMBERS = [Member(profile, START) for profile in PEOPLE]


def result(number: int, rounds: dict[str, list[int]]) -> GameResult:
    """A game of the three, ``rounds`` each one's bullheads round by round."""
    totals = {pid: sum(penalties) for pid, penalties in rounds.items()}
    best = min(totals.values())
    seats = tuple(
        ResultSeat(
            seat,
            profile.name,
            "human",
            profile.id,
            totals[profile.id],
            totals[profile.id] == best,
            sum(p > 0 for p in rounds[profile.id]),
            tuple(rounds[profile.id]),
        )
        for seat, profile in enumerate(PEOPLE)
    )
    return GameResult("ABCDEF", number, START + timedelta(hours=number), False, "G", seats)


GAMES = [
    result(1, {"a": [0, 10, 0], "b": [30, 20, 20], "c": [10, 0, 0]}),  # Ana and Cy win jointly
    result(2, {"a": [5, 0, 0], "b": [40, 30, 0], "c": [20, 30, 20]}),  # Ana alone
]


def test_joint_wins_count_for_each_winner_and_the_figures_add_up() -> None:
    lines = {line["name"]: line for line in standings(GAMES, MEMBERS)}
    assert {name: line["wins"] for name, line in lines.items()} == {"Ana": 2, "Ben": 0, "Cy": 1}
    assert lines["Ana"]["bullheads"] == 15
    assert lines["Ana"]["rounds"] == 6
    assert lines["Ana"]["bullheads_per_round"] == 2.5
    assert lines["Ana"]["clean_rounds"] == 4
    assert lines["Ben"]["rows_taken"] == 5


def test_the_rating_follows_the_results_game_by_game() -> None:
    lines = standings(GAMES, MEMBERS)
    assert [line["name"] for line in lines] == ["Ana", "Cy", "Ben"]
    assert [line["rank"] for line in lines] == [1, 2, 3]
    ana = lines[0]["rating_over_time"]
    assert [point["game"] for point in ana] == [1, 2]
    assert ana[1]["rating"] > ana[0]["rating"]  # she won again
    assert lines[2]["rating_over_time"][1]["rating"] < lines[2]["rating_over_time"][0]["rating"]
    # Reading again gives the same standings: nothing is stored but the results.
    assert standings(GAMES, MEMBERS) == lines


def test_a_member_who_never_played_is_listed_with_nothing_and_last() -> None:
    dee = Member(Profile("d", "Dee", "🦊", "#2e6fb7", START), START)
    lines = standings(GAMES, [dee, *MEMBERS])
    line = lines[-1]
    assert line["name"] == "Dee" and line["rank"] == 4
    assert (line["games"], line["wins"], line["bullheads_per_round"]) == (0, 0, None)
    assert line["rating_over_time"] == []
    # Her rating is the new one's, 0, above what Ben's losses left him: she still comes after.
    assert line["rating"] == 0 and lines[-2]["name"] == "Ben" and lines[-2]["rating"] < 0


def test_members_who_stand_alike_share_a_rank() -> None:
    """Before anyone has played, nobody is first: everybody shares rank 1 (listed by name)."""
    lines = standings([], MEMBERS)
    assert [(line["name"], line["rank"]) for line in lines] == [("Ana", 1), ("Ben", 1), ("Cy", 1)]
    assert [line["rank"] for line in standings(GAMES, MEMBERS)] == [1, 2, 3]


def test_an_evening_sums_up_its_games_and_a_history_lists_a_persons() -> None:
    (evening,) = evenings(GAMES)
    assert evening["date"] == "2025-03-06"
    assert evening["games"] == 2
    assert evening["players"][0]["name"] == "Ana"
    mine = history(GAMES, "c")
    assert [game["game"] for game in mine["games"]] == [2, 1]  # newest first
    assert [game["place"] for game in mine["games"]] == [2, 1]
    assert mine["totals"]["wins"] == 1


def test_a_bots_own_name_comes_in_parts_for_the_readers_language() -> None:
    """``Bot 3 (greedy)`` is stored in English; like a table's summary, a game's and an
    evening's players carry its parts, so that a page says "Bot 3 (gierig)". A bot playing on
    under a person's name, and a person named like a bot, carry none."""

    def seat(number: int, name: str, kind: str) -> ResultSeat:
        return ResultSeat(number, name, kind, None, 10 * number, number == 0, 0, (10 * number,))

    seats = (
        seat(0, "Ana", "bot"),  # Ana left; the bot plays on under her name
        seat(1, "Bot 3 (greedy)", "human"),  # a person who calls themselves so
        seat(2, "Bot 3 (greedy)", "bot"),
        seat(3, "Bot 9 (mc:64)", "bot"),  # not seat 9's own name
    )
    game = GameResult("ABCDEF", 1, START, False, "G", seats)

    assert [p["bot_name"] for p in game_summary(game)["players"]] == [
        None,
        None,
        {"bot": "greedy", "number": 3},
        None,
    ]
    (evening,) = evenings([game])
    named = {p["name"]: p["bot_name"] for p in evening["players"] if p["kind"] == "bot"}
    assert named == {
        "Ana": None,
        "Bot 3 (greedy)": {"bot": "greedy", "number": 3},
        "Bot 9 (mc:64)": None,
    }


def test_an_evening_past_midnight_is_one_evening_and_a_pause_starts_the_next() -> None:
    """An evening in Berlin, 20:00 to past 2 in the morning, runs across midnight UTC; the
    group's next evening, a week later, is another. Games within six hours of each other are
    one evening, wherever the group lives."""
    first_game = datetime(2025, 3, 6, 19, 30, tzinfo=UTC)  # 20:30 in Berlin
    rounds = {"a": [0, 10, 0], "b": [30, 20, 20], "c": [10, 0, 0]}
    played = [
        replace(result(1, rounds), finished_at=first_game),
        replace(result(2, rounds), finished_at=first_game + timedelta(hours=3)),
        replace(result(3, rounds), finished_at=first_game + timedelta(hours=5, minutes=45)),
        replace(result(4, rounds), finished_at=first_game + timedelta(days=7)),
    ]
    later, first = evenings(played)
    assert (first["games"], later["games"]) == (3, 1)
    assert first["date"] == "2025-03-06"
    assert first["first_game_at"] == "2025-03-06T19:30:00Z"
    assert first["last_game_at"] == "2025-03-07T01:15:00Z"
    assert later["first_game_at"] == later["last_game_at"] == "2025-03-13T19:30:00Z"
