"""What the searching bots' settings share: ``key=value,...`` applied to a settings dataclass,
and the number of sampled deals scaled to the table's size.

``search:...`` (:func:`nimmt.bots.levels.parse_settings`) and ``strong:...``
(:func:`nimmt.bots.strong.parse_strong`) are read with :func:`apply_settings`.
"""

from __future__ import annotations

from dataclasses import fields, replace
from typing import Any, ClassVar, Protocol, TypeVar


def scaled_samples(samples: int, players: int) -> int:
    """``samples`` at 4 seats, fewer at big tables, where each deal costs more (keeps 10 seats
    near 4's time)."""
    return max(16, int(samples * min(1.0, 4.0 / players) ** 0.5))


class _Tunable(Protocol):
    """The settings of a search: a dataclass with at least these two fields."""

    __dataclass_fields__: ClassVar[dict[str, Any]]

    @property
    def samples(self) -> int: ...

    @property
    def temperature(self) -> float: ...


Settings = TypeVar("Settings", bound=_Tunable)


def apply_settings(settings: Settings, text: str, what: str) -> Settings:
    """``settings`` with the ``key=value,...`` of ``text`` applied (keys are its fields, each
    value converted to its field's type); a ``ValueError`` naming ``what`` otherwise."""
    kinds = {field.name: type(getattr(settings, field.name)) for field in fields(settings)}
    for part in filter(None, text.split(",")):
        key, _, value = part.partition("=")
        key = key.strip()
        if key not in kinds:
            raise ValueError(f"unknown {what} setting {key!r}; known: {', '.join(kinds)}")
        try:
            converted = kinds[key](value.strip())
        except ValueError:
            raise ValueError(
                f"{what} setting {key}={value!r} is not a {kinds[key].__name__}"
            ) from None
        settings = replace(settings, **{key: converted})
    if settings.samples < 1 or settings.temperature <= 0:
        raise ValueError(f"{what} settings samples and temperature must be positive")
    return settings
