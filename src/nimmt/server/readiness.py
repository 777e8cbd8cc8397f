"""Readiness (``GET /readyz``): whether this process can serve a table now, for a load balancer.

``/healthz`` says only that the process runs (liveness: restart it when that fails). ``/readyz``
asks the database for a row, and looks at the bus when one is configured: a process that cannot
store a card, or would not hear the other processes' changes, should be sent no players. A write
that failed since the last one that succeeded (a full disk answers reads but refuses writes)
counts as a failing database too, for :data:`WRITE_FAILURE_SECONDS`.
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING, Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

if TYPE_CHECKING:
    from nimmt.server.service import GameService

log = logging.getLogger(__name__)

PROBE_SECONDS = 3.0
"""How long the database may take to answer the probe before the process counts as unready."""
WRITE_FAILURE_SECONDS = 10.0
"""How long after a failed write (with no write stored since) the process counts as unready even
though reads work: a full disk answers reads. Then it is ready again, so that traffic (and its
writes) can find out whether the disk has room again."""
PROBE_CODE = "-"
"""A table code that no table has: the probe reads the version of no table."""

router = APIRouter()


async def failing(service: GameService) -> list[str]:
    """What this process cannot reach now: ``"database"``, ``"bus"``."""
    book = service.book
    failures: list[str] = []
    try:
        async with asyncio.timeout(PROBE_SECONDS):
            await book.read(service.storage.table_version, PROBE_CODE)
    except Exception as error:  # a ServiceError storage_error, or the timeout
        log.warning("readiness: the database does not answer (%s)", type(error).__name__)
        failures.append("database")
    else:
        failed_at = book.writer.failed_at
        if failed_at is not None and time.monotonic() - failed_at < WRITE_FAILURE_SECONDS:
            failures.append("database")
    if book.shared and not service.bus.healthy:
        failures.append("bus")
    return failures


@router.api_route("/readyz", methods=["GET", "HEAD"])
async def readyz(request: Request) -> JSONResponse:
    service: GameService = request.app.state.service
    failures = await failing(service)
    if failures:
        return JSONResponse({"status": "unready", "failing": failures}, status_code=503)
    body: dict[str, Any] = {
        "status": "ready",
        "database": "ok",
        "bus": "ok" if service.book.shared else "none",
        # Informative only: tables are served while the bots' workers start (a bot's first
        # decision then waits for them).
        "bots": "ready" if service.bots_started else "starting",
    }
    return JSONResponse(body)
