"""Typed access to what the app holds for every request."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
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
