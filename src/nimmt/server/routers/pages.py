"""The browser's pages and files, read from the client's directory at request time (so a file
added later is served without a restart), the rules pages (rendered once from their template, see
:mod:`nimmt.server.rules_pages`), and the readable HTML 404 page."""

from __future__ import annotations

import logging
from pathlib import Path

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, HTMLResponse, RedirectResponse, Response
from starlette.concurrency import run_in_threadpool

from nimmt.server.errors import ServiceError
from nimmt.server.groups import could_be_group_code
from nimmt.server.routers.deps import ServiceDep, SettingsDep
from nimmt.server.rules_pages import RulesPagesError, rules_pages

router = APIRouter()
log = logging.getLogger(__name__)

RULES_LANGUAGES = ("en", "de", "fr")

FALLBACK_404 = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Not found · nimmt</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body><h1>Nothing here</h1>
<p>This page or table does not exist. Table codes have six letters and digits, like
<code>K7QX2M</code>.</p><p><a href="/">Back to the start page</a></p></body></html>
"""


def not_found_page(web_dir: Path) -> HTMLResponse:
    """Status 404 with the client app itself, which tells the reader in their language what
    was not found (it reads the path); a plain built-in page if the app is missing (unstyled:
    the Content-Security-Policy admits no inline style, and the stylesheet is missing too)."""
    page = web_dir / "static" / "index.html"
    try:
        content = page.read_text(encoding="utf-8")
    except OSError:
        content = FALLBACK_404
    return HTMLResponse(content, status_code=404)


def _file(path: Path, web_dir: Path) -> Response:
    try:
        found = path.is_file()
    except (OSError, ValueError):  # e.g. a name too long for the file system
        found = False
    return FileResponse(path) if found else not_found_page(web_dir)


@router.api_route("/healthz", methods=["GET", "HEAD"])  # some load balancers probe with HEAD
async def healthz() -> dict[str, str]:
    return {"status": "ok"}


@router.get("/", include_in_schema=False)
@router.get("/assist", include_in_schema=False)
@router.get("/me", include_in_schema=False)
@router.get("/me/link", include_in_schema=False)
@router.get("/g/join", include_in_schema=False)
async def start_page(settings: SettingsDep) -> Response:
    return _file(settings.web_dir / "static" / "index.html", settings.web_dir)


@router.get("/g/{code}", include_in_schema=False)
async def group_page(code: str, settings: SettingsDep) -> Response:
    """A group's page: 404 for a code no group can have. A code that could be one's is served
    whether or not the group exists: the page's status must not tell a stranger that it does
    (the group's page itself asks the server, as a member, and says "no such group")."""
    if not could_be_group_code(code):
        return not_found_page(settings.web_dir)
    return _file(settings.web_dir / "static" / "index.html", settings.web_dir)


@router.get("/t/{code}", include_in_schema=False)
async def table_page(code: str, settings: SettingsDep, service: ServiceDep) -> Response:
    try:
        await service.summary(code)
    except ServiceError as error:
        if error.code == "storage_error":  # not "no such table": 503, try again
            raise
        return not_found_page(settings.web_dir)
    return _file(settings.web_dir / "static" / "index.html", settings.web_dir)


@router.get("/static/{path:path}", include_in_schema=False)
async def static_file(path: str, settings: SettingsDep) -> Response:
    root = (settings.web_dir / "static").resolve()
    try:
        target = (root / path).resolve()
    except (OSError, ValueError):  # a NUL byte, a loop of links: no such file
        return not_found_page(settings.web_dir)
    if not target.is_relative_to(root):  # no way out of the static directory
        return not_found_page(settings.web_dir)
    return _file(target, settings.web_dir)


@router.get("/rules", include_in_schema=False)
async def rules(request: Request) -> RedirectResponse:
    return RedirectResponse(
        f"/rules/{preferred_language(request.headers.get('accept-language', ''))}",
        status_code=307,
    )


@router.get("/rules/{language}", include_in_schema=False)
async def rules_page(language: str, settings: SettingsDep) -> Response:
    if language not in RULES_LANGUAGES:
        return not_found_page(settings.web_dir)
    try:
        # Rendered once (a fraction of a second, off the event loop), then kept.
        pages = await run_in_threadpool(rules_pages, settings.web_dir / "rules")
    except RulesPagesError as error:  # a client directory without (working) rules pages
        log.warning("%s", error)
        return not_found_page(settings.web_dir)
    return HTMLResponse(pages[language])


def preferred_language(header: str) -> str:
    """The first of de/fr/en the ``Accept-Language`` header prefers (by q-value); else en.

    >>> preferred_language("fr-CH, fr;q=0.9, en;q=0.8, de;q=0.7")
    'fr'
    >>> preferred_language("es, de;q=0.5")
    'de'
    """
    choices: list[tuple[float, int, str]] = []
    for index, part in enumerate(header.split(",")):
        tag, _, params = part.strip().partition(";")
        quality = 1.0
        params = params.strip()
        if params.startswith("q="):
            try:
                quality = float(params[2:])
            except ValueError:
                quality = 0.0
        language = tag.strip().lower().split("-")[0]
        if language in RULES_LANGUAGES and quality > 0:
            choices.append((-quality, index, language))
    return min(choices)[2] if choices else "en"
