"""Typed access to what the app holds for every request."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from pydantic import BaseModel, ConfigDict
from starlette.requests import HTTPConnection

from nimmt.server.service import GameService
from nimmt.server.settings import Settings


def get_service(connection: HTTPConnection) -> GameService:
    service: GameService = connection.app.state.service
    return service


def get_settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


ServiceDep = Annotated[GameService, Depends(get_service)]
SettingsDep = Annotated[Settings, Depends(get_settings)]


class RequestBody(BaseModel):
    """A request's JSON body: its values are taken as they are typed (``"coach": "yes"`` or
    ``"seat": "2"`` is refused with 422 ``bad_request``, not read as ``true`` or ``2``), as
    docs/protocol.md gives them."""

    model_config = ConfigDict(strict=True)
