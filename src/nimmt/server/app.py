"""The web application: :func:`create_app` builds it from :class:`~nimmt.server.Settings`.

At start-up it opens the database (running the migrations), loads every table whose game goes on
and lets their bots continue; ``/healthz`` answers only once that is done. Every error a client
can cause is answered in the protocol's shape: JSON ``{"error": {...}}`` under ``/api/``, a
readable HTML page elsewhere. Never a traceback.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import partial

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp

from nimmt.bots import BOT_NAMES
from nimmt.server import readiness
from nimmt.server.book import first_line
from nimmt.server.botpool import BotPool, BotRunner, InlineBots
from nimmt.server.bus import Bus, LocalBus, RedisBus
from nimmt.server.coach import CoachPool, CoachRunner, InlineCoach
from nimmt.server.errors import ServiceError
from nimmt.server.hosts import HostCheck, HostRule
from nimmt.server.logs import RequestContext
from nimmt.server.metrics import GC_PAUSES, QUOTA_REFUSALS
from nimmt.server.policybots import PolicyBots, offered_policies
from nimmt.server.routers import api, groups, metrics, pages, profiles, replay, socket
from nimmt.server.security import CreationQuota, QuotaExceededError, protect
from nimmt.server.service import GameService
from nimmt.server.settings import Settings
from nimmt.server.storage import SqlStorage, Storage, StorageError

log = logging.getLogger(__name__)


GC_THRESHOLDS = (2_000, 10, 1_000)
"""The cyclic collector's thresholds (Python's are 700, 10, 10). A pass stops every table, and
at 400 busy tables it costs about 0.7 µs per object it looks at: young passes are kept short
(about 14 ms) rather than rare (20,000 allocations made 40 ms ones, and the middle generation's
250 ms), and a pass over the whole heap, which grows with the tables' games, comes only after
1,000 middle ones (Python also waits until the heap grew by a quarter since the last)."""

TOKEN_IN_URL = re.compile(r"(token=)[^&\s\"']+")


class RedactTokens(logging.Filter):
    """Keeps seat tokens (``/ws/CODE?token=...``) out of the server's logs: whoever reads a log
    must not be able to take somebody's seat."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple):
            record.args = tuple(
                TOKEN_IN_URL.sub(r"\1…", arg) if isinstance(arg, str) else arg
                for arg in record.args
            )
        if isinstance(record.msg, str):
            record.msg = TOKEN_IN_URL.sub(r"\1…", record.msg)
        return True


def _error(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"error": {"code": code, "message": message}}, status_code=status)


class _ProtectedApp(FastAPI):
    """FastAPI with :func:`~nimmt.server.security.protect` around its whole middleware stack,
    error handlers included: every answer, a 500 too, gets the security headers."""

    def build_middleware_stack(self) -> ASGIApp:
        settings: Settings = self.state.settings
        rule = HostRule(settings.allowed_hosts, settings.allowed_origins)
        return RequestContext(
            protect(
                HostCheck(super().build_middleware_stack(), rule),
                max_body_bytes=settings.max_body_bytes,
                larger_bodies={replay.RECORD_PATH: settings.max_record_bytes},
            )
        )


def create_app(
    settings: Settings | None = None,
    *,
    storage: Storage | None = None,
    bots: BotRunner | None = None,
) -> FastAPI:
    """The app. ``storage`` replaces the database of ``settings.db`` (tests pass the in-memory
    twin); ``bots`` replaces where the bots think (tests pass a runner they can hold)."""
    settings = settings if settings is not None else Settings()
    policies = offered_policies(settings.policy_dir) if settings.policy_dir is not None else {}

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # Added here, after the server has configured its logging.
        for name in ("uvicorn.error", "uvicorn.access"):
            logger = logging.getLogger(name)
            if not any(isinstance(f, RedactTokens) for f in logger.filters):
                logger.addFilter(RedactTokens())
        store = (
            storage
            if storage is not None
            else await asyncio.to_thread(
                partial(SqlStorage, settings.db, run_migrations=settings.migrate)
            )
        )
        runner: BotRunner = PolicyBots(
            bots
            if bots is not None
            else BotPool(settings.bot_processes)
            if settings.bot_processes > 0
            else InlineBots(),
            policies,
        )
        coach: CoachRunner = CoachPool() if settings.bot_processes > 0 else InlineCoach()
        bus: Bus = RedisBus(settings.bus) if settings.bus else LocalBus()
        service = GameService(
            store,
            bot_names=(*BOT_NAMES, *policies),
            bot_delay=settings.bot_delay,
            deal_seed=settings.deal_seed,
            bots=runner,
            bus=bus,
            idle_seconds=settings.idle_minutes * 60,
            max_queue=settings.max_queue,
            watchdog_seconds=settings.watchdog_seconds,
            coach=coach,
            finished_days=settings.finished_days,
            abandoned_days=settings.abandoned_days,
        )
        app.state.service = service
        await service.start()
        # What start-up built (the app, the modules, the tables loaded) lives as long as the
        # process: keep it out of the cyclic collector's passes, and keep those passes short,
        # so that a busy server does not pause its tables for long (GC_THRESHOLDS).
        gc.freeze()
        gc.set_threshold(*GC_THRESHOLDS)
        GC_PAUSES.watch()  # and let the operator see them (/metrics)
        try:
            yield
        finally:
            await service.close()

    app = _ProtectedApp(title="nimmt", lifespan=lifespan, docs_url=None, redoc_url=None)
    app.state.settings = settings
    app.state.create_quota = CreationQuota(settings.create_quota, settings.create_window_seconds)
    app.include_router(api.router)
    app.include_router(socket.router)
    app.include_router(pages.router)
    app.include_router(replay.router)
    app.include_router(profiles.router)
    app.include_router(groups.router)
    app.include_router(readiness.router)
    app.include_router(metrics.router)

    @app.exception_handler(ServiceError)
    async def service_error(request: Request, error: ServiceError) -> Response:
        if error.code == "storage_error":  # an outage: one line, no traceback
            log.warning("%s %s: database unavailable: %s", request.method, request.url.path,
                        first_line(error))  # fmt: skip
        response = _error(error.status, error.code, error.message)
        if isinstance(error, QuotaExceededError):
            QUOTA_REFUSALS.inc()
            response.headers["Retry-After"] = str(error.retry_after)
        return response

    @app.exception_handler(StorageError)
    async def storage_error(request: Request, error: StorageError) -> Response:
        # Any database failure that no part turned into a refusal: still an outage, not a bug.
        log.warning("database failure on %s: %s", request.url.path, first_line(error))
        return _error(503, "storage_error", "The server cannot reach its database; try again.")

    @app.exception_handler(RequestValidationError)
    async def invalid_request(_request: Request, error: RequestValidationError) -> Response:
        problems = "; ".join(
            f"{'.'.join(str(part) for part in problem.get('loc', ())[1:]) or 'body'}: "
            f"{problem.get('msg', 'invalid')}"
            for problem in error.errors()
        )
        return _error(422, "bad_request", f"The request is not valid ({problems}).")

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, error: StarletteHTTPException) -> Response:
        if request.url.path.startswith("/api/"):
            if error.status_code == 400:
                # FastAPI's answer to a body it could not decode (not UTF-8, nested too
                # deeply): the same 422 as any other body that is not JSON.
                return _error(422, "bad_request", "The request's body is not readable JSON.")
            code = "not_found" if error.status_code == 404 else "bad_request"
            if error.status_code == 405:
                code = "method_not_allowed"
            return _error(error.status_code, code, str(error.detail))
        if error.status_code == 404:
            return pages.not_found_page(settings.web_dir)
        return Response(str(error.detail), status_code=error.status_code)

    @app.exception_handler(Exception)
    async def unexpected(request: Request, error: Exception) -> Response:
        log.exception("unexpected error on %s", request.url.path)
        return _error(500, "internal_error", "Something went wrong on the server.")

    return app
