"""The bot interface: a bot decides from its seat's view and nothing else.

A bot is asked for a card when its seat must choose one, and for a row when its card is below
every row. It receives a :class:`~nimmt.engine.SeatView`, the same filtered view a person sees,
so it cannot read another seat's hand or a face-down card.
"""

from __future__ import annotations

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
