"""The web table's server: tables, seats held by tokens, play over websockets, persistence.

:func:`create_app` builds the FastAPI app; :class:`~nimmt.server.service.GameService` holds the
game logic around the rules engine (and knows neither HTTP nor the database);
:mod:`nimmt.server.storage` keeps every accepted action. docs/protocol.md describes the wire.
"""

from nimmt.server.app import create_app
from nimmt.server.settings import Settings

__all__ = ["Settings", "create_app"]
