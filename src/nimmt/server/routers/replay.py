"""The replay viewer's and the board view's routes (docs/protocol.md, "Replays" and "The
board"): the pages, a finished game's replay steps, the steps of a record file the reader
brings, and the QR code of a table's link."""

from __future__ import annotations

import io
from typing import Any

import segno
from fastapi import APIRouter, Query, Request
from fastapi.responses import FileResponse, Response

from nimmt.records import RecordError
from nimmt.server.errors import ServiceError
from nimmt.server.replay import replay_steps
from nimmt.server.routers.deps import ServiceDep, SettingsDep
from nimmt.server.routers.pages import not_found_page

router = APIRouter()

RECORD_PATH = "/api/replay"
"""The one route whose body is a whole game record: it has a larger body limit of its own."""


def _app_page(settings: Any) -> Response:
    page = settings.web_dir / "static" / "index.html"
    return FileResponse(page) if page.is_file() else not_found_page(settings.web_dir)


@router.get("/replay", include_in_schema=False)
async def replay_page(settings: SettingsDep) -> Response:
    return _app_page(settings)


@router.get("/t/{code}/replay", include_in_schema=False)
@router.get("/t/{code}/board", include_in_schema=False)
async def table_view_page(
    code: str, request: Request, settings: SettingsDep, service: ServiceDep
) -> Response:
    """The replay or the board of table ``code``: 404 for no such table, and for a replay's
    ``?game=`` that the table never had (a game not yet over is a page: it says so)."""
    try:
        summary = await service.summary(code)
    except ServiceError as error:
        if error.code == "storage_error":  # not "no such table": 503, try again
            raise
        return not_found_page(settings.web_dir)
    game = request.query_params.get("game", "")
    if request.url.path.endswith("/replay") and game and not _has_game(summary, game):
        return not_found_page(settings.web_dir)
    return _app_page(settings)


def _has_game(summary: dict[str, Any], game: str) -> bool:
    """Whether the table of ``summary`` has had game number ``game`` (as the replay's API
    answers: a game with real cards is the table's only one)."""
    if not (game.isascii() and game.isdigit()):
        return False
    last: int = min(summary["game"], 1) if summary["assisted"] else summary["game"]
    return 1 <= int(game) <= last


@router.get("/api/tables/{code}/replay")
async def table_replay(
    code: str, service: ServiceDep, game: int | None = Query(default=None)
) -> dict[str, Any]:
    """A finished game's steps; a game still running is refused (409 ``game_not_finished``)
    like its record: the record holds every hand."""
    record = await service.record(code, game)
    answer = replay_steps(record)
    answer["meta"] = {"table": record["meta"]["table"], "game": record["meta"]["game"]}
    return answer


@router.post(RECORD_PATH)
async def record_replay(request: Request) -> dict[str, Any]:
    """The steps of the record in the request's body. Nothing is stored."""
    body = await request.body()
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        raise ServiceError(
            "bad_record", "not a text file: a game record is UTF-8 JSON", 422
        ) from None
    try:
        return replay_steps(text)
    except RecordError as error:
        raise ServiceError("bad_record", str(error), 422) from None


@router.get("/t/{code}/qr.svg", include_in_schema=False)
async def table_qr(code: str, request: Request, service: ServiceDep) -> Response:
    """The table's link as a QR code (SVG), for the board view."""
    summary = await service.summary(code)
    link = f"{str(request.base_url).rstrip('/')}/t/{summary['code']}"
    buffer = io.BytesIO()
    segno.make(link, error="m").save(
        buffer, kind="svg", border=2, omitsize=True, dark="#000", light="#fff", title=link
    )
    return Response(
        buffer.getvalue(), media_type="image/svg+xml", headers={"Cache-Control": "no-cache"}
    )
