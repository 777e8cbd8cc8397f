"""How a bench script prints its figures: one JSON line (``--json``), or a table to read."""

from __future__ import annotations

import json
from typing import Any


def print_figures(figures: dict[str, Any], *, as_json: bool) -> None:
    if as_json:
        print(json.dumps(figures))
        return
    width = max(len(key) for key in figures)
    for key, value in figures.items():
        print(f"{key:<{width}}  {value}")
