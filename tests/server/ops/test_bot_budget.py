"""A bot's budget counts from when its table asked: a decision that waited in the queue gets
what is left, and a slow bot whose budget the queue ate is decided by a quicker one."""

from __future__ import annotations

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
