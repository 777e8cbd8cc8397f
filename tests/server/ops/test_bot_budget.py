"""A bot's budget counts from when its table asked: a decision that waited in the queue gets
what is left, and a slow bot whose budget the queue ate is decided by a quicker one."""

from __future__ import annotations

import asyncio
import random
import time
from typing import Any

import pytest

from nimmt.bots import Limit, make_bot
from nimmt.engine import Game
from nimmt.server import botpool


def test_a_late_hard_decision_is_rushed(monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[str] = []

    def recording(name: str, seed: Any, *, limit: Limit | None = None) -> Any:
        built.append(name)
        return make_bot(name, seed, limit=limit)

    monkeypatch.setattr(botpool, "make_bot", recording)
    game = Game(4)
    game.deal(random.Random(3))
    view = game.view(1)
    now = time.monotonic()
    late = botpool.decide("hard", 1, view, asked_at=now - 5 * botpool.DECISION_BUDGET)
    greedy_late = botpool.decide("greedy", 1, view, asked_at=now - 5)
    assert late in view.legal_cards() and greedy_late in view.legal_cards()
    assert built == ["medium", "greedy"]  # greedy is quick: nobody stands in for it
    choice, waited = botpool.timed_decide("easy", 2, view, time.monotonic())
    assert choice in view.legal_cards() and waited >= 0
    assert built[-1] == "easy"


def test_the_budget_counts_from_the_ask_on_the_given_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[tuple[str, float | None]] = []

    def recording(name: str, seed: Any, *, limit: Limit | None = None) -> Any:
        asked.append((name, limit.seconds if limit is not None else None))
        return make_bot("random", seed)  # what decides does not matter here, only who and how long

    monkeypatch.setattr(botpool, "make_bot", recording)
    game = Game(4)
    game.deal(random.Random(5))
    view = game.view(2)

    def clock() -> float:
        return 100.0

    for asked_at in (None, 100.0, 99.75, 99.5, 90.0):
        botpool.decide("hard", 1, view, asked_at, clock=clock)
    botpool.decide("easy", 1, view, 99.5, clock=clock)
    choice, waited = botpool.timed_decide("hard", 2, view, 99.0, clock)
    assert choice in view.legal_cards() and waited == 1.0
    quick = botpool.QUICK_BUDGET
    assert asked == [
        ("hard", 1.0),  # asked now: the whole budget
        ("hard", 1.0),
        ("hard", 0.75),  # waited a quarter of a second: the search gets what is left
        ("medium", 0.5),  # less than hard's first stage needs: its quick stand-in decides
        ("medium", quick),  # the queue ate it all: still a decision, a quick one
        ("easy", 0.5),  # no stand-in: easy is quick anyway
        ("medium", quick),
    ]


def test_a_decision_no_worker_answers_in_time_is_made_here(monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[str] = []

    def recording(name: str, seed: Any, *, limit: Limit | None = None) -> Any:
        built.append(name)
        return make_bot(name, seed, limit=limit)

    class StarvedPool(botpool.BotPool):
        async def run(self, function: Any, *args: Any) -> Any:
            await asyncio.sleep(3600)  # the workers get no CPU at all

    monkeypatch.setattr(botpool, "make_bot", recording)
    monkeypatch.setattr(botpool, "LATEST_SECONDS", 0.05)
    game = Game(4)
    game.deal(random.Random(8))
    view = game.view(0)
    pool = StarvedPool(1)
    started = time.monotonic()
    hard = asyncio.run(pool.decide("hard", 3, view))
    easy = asyncio.run(pool.decide("easy", 3, view))
    assert hard in view.legal_cards() and easy in view.legal_cards()
    assert built == ["greedy", "greedy"]
    assert time.monotonic() - started < 30  # not the hour the workers would have taken
