"""The web table's server: tables, seats held by tokens, play over websockets, persistence.

:func:`create_app` builds the FastAPI app; :class:`~nimmt.server.service.GameService` holds the
game logic around the rules engine (and knows neither HTTP nor the database);
:mod:`nimmt.server.storage` keeps every accepted action. docs/protocol.md describes the wire.

Both names are imported when first asked for: a bot worker (``nimmt.server.botpool``) then
starts without loading the web framework and the database layer.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from nimmt.server.app import create_app
    from nimmt.server.settings import Settings

__all__ = ["Settings", "create_app"]


def __getattr__(name: str) -> Any:
    if name == "create_app":
        from nimmt.server.app import create_app

        return create_app
    if name == "Settings":
        from nimmt.server.settings import Settings

        return Settings
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
