"""``GET /metrics``: this process's counters and histograms (:mod:`nimmt.server.metrics`), and
the states read from the running service at each scrape, in the Prometheus text format. Only
loopback and the configured addresses may read it; for everyone else there is nothing here."""

from __future__ import annotations

from collections.abc import Iterator

from fastapi import APIRouter, Request
from fastapi.responses import Response
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.exposition import generate_latest
from prometheus_client.registry import Collector

from nimmt.server.metrics import REGISTRY, may_scrape
from nimmt.server.service import GameService


class ServiceGauges(Collector):
    """The states read from a running service at each scrape."""

    def __init__(self, service: GameService) -> None:
        self.service = service

    def collect(self) -> Iterator[Metric]:
        book = self.service.book
        tables = list(book.tables.values())
        yield GaugeMetricFamily(
            "nimmt_tables_loaded", "Tables held in this process's memory", value=len(tables)
        )
        yield GaugeMetricFamily(
            "nimmt_sockets_open",
            "Table sockets open at this process",
            value=sum(len(table.connections) for table in tables),
        )
        yield GaugeMetricFamily(
            "nimmt_bus_configured", "1 when a bus (Redis) is configured", value=int(book.shared)
        )
        yield GaugeMetricFamily(
            "nimmt_bus_up",
            "1 while the bus is connected (always 1 without a bus: nothing to wait for)",
            value=int(not book.shared or self.service.bus.healthy),
        )
        yield GaugeMetricFamily(
            "nimmt_bot_decisions_waiting",
            "Bot decisions asked for and not yet back",
            value=sum(len(table.bot_tasks) for table in tables),
        )


router = APIRouter()


@router.get("/metrics", include_in_schema=False)
async def metrics(request: Request) -> Response:
    allowed: list[str] = request.app.state.settings.metrics_allowed
    if not may_scrape(request.client.host if request.client else None, allowed):
        # As if there were nothing here: whoever may not read it need not know of it.
        return Response("Not Found", status_code=404, media_type="text/plain")
    service: GameService = request.app.state.service
    registry = CollectorRegistry(auto_describe=True)
    registry.register(ServiceGauges(service))
    body = generate_latest(REGISTRY) + generate_latest(registry)
    return Response(body, media_type=CONTENT_TYPE_LATEST)
