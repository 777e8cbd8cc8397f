"""The bot interface: a bot decides from its seat's view and nothing else.

A bot is asked for a card when its seat must choose one, and for a row when its card is below
every row. It receives a :class:`~nimmt.engine.SeatView`, the same filtered view a person sees,
so it cannot read another seat's hand or a face-down card.

:class:`Limit` is how long a bot may think, given to :func:`nimmt.bots.make_bot` (the shape of
python-chess's ``chess.engine.Limit``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from nimmt.engine import SeatView


@runtime_checkable
class Bot(Protocol):
    """A computer player for one seat."""

    @property
    def name(self) -> str:
        """The bot's name as given to :func:`nimmt.bots.make_bot` (e.g. ``"mc:64"``)."""
        ...

    def choose_card(self, view: SeatView) -> int:
        """The card to play this turn: one of ``view.legal_cards()``."""
        ...

    def choose_row(self, view: SeatView) -> int:
        """The row (0 to 3) to take, when ``view.must_choose_row``."""
        ...


@dataclass(frozen=True, slots=True)
class Limit:
    """How long a bot may take for a card decision. A bot that can keep to it refines its
    choice only while it has time; any other bot ignores it. ``Limit()`` is no limit: the bot
    does its fixed amount of work, so that the same seed gives the same games."""

    seconds: float | None = None
    """Seconds per card decision at most (``None``: no limit)."""

    def __post_init__(self) -> None:
        if self.seconds is not None and not self.seconds > 0:
            raise ValueError(f"a time limit must be more than 0 seconds, not {self.seconds}")
