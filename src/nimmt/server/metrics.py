"""What an operator watches (``GET /metrics``, the Prometheus text format, prometheus-client).

Counters and histograms are kept per process in :data:`REGISTRY` and counted where things happen
(the commit path, the socket router, the bot seats, the slow-client guard); what is a state
rather than an event (tables loaded, sockets open, the bus) is read from the service at each
scrape by :class:`ServiceGauges`. The route answers only loopback and the configured addresses
(``NIMMT_METRICS_ALLOWED``): a table's traffic is nobody else's business.
"""

from __future__ import annotations

import bisect
import gc
import ipaddress
import itertools
import math
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Histogram
from prometheus_client.core import HistogramMetricFamily
from prometheus_client.registry import Collector
from prometheus_client.utils import floatToGoString

from nimmt.server.actions import ActionKind

REGISTRY = CollectorRegistry(auto_describe=True)
"""This process's counters and histograms (not prometheus-client's global registry, so that
nothing else in the process adds to them)."""

ACTIONS = Counter(
    "nimmt_actions", "Changes stored at the tables of this process, by kind", ["kind"],
    registry=REGISTRY,
)  # fmt: skip
STORAGE_ERRORS = Counter(
    "nimmt_storage_errors",
    "Database reads or writes that failed (the database away, the disk full), by operation",
    ["operation"],
    registry=REGISTRY,
)
SLOW_CONSUMER_CLOSES = Counter(
    "nimmt_slow_consumer_closes",
    "Sockets closed (4408) because their client did not read what it was sent",
    registry=REGISTRY,
)
RATE_LIMITED = Counter(
    "nimmt_rate_limited_messages",
    "Socket messages refused unread with rate_limited",
    registry=REGISTRY,
)
QUOTA_REFUSALS = Counter(
    "nimmt_quota_refusals",
    "Table creations refused by the per-address quota (429)",
    registry=REGISTRY,
)
CONNECTIONS_CLOSED = Counter(
    "nimmt_connections_closed",
    "Connections closed before a request: slow headers (timeout, or pushed out by a newer"
    " connection over a cap), a connection over a cap with none to push out, headers too large",
    ["reason"],
    registry=REGISTRY,
)
HOSTS_REFUSED = Counter(
    "nimmt_hosts_refused",
    "Requests and sockets refused for a Host header not allowed (NIMMT_ALLOWED_HOSTS)",
    registry=REGISTRY,
)

BOT_BUCKETS = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 1.5, 2.0, 3.0, 5.0, 10.0, 20.0, 60.0)
BOT_QUEUE_WAIT = Histogram(
    "nimmt_bot_queue_wait_seconds",
    "From a table asking its bot to decide until a worker takes the decision up",
    buckets=BOT_BUCKETS,
    registry=REGISTRY,
)
BOT_RUSHED = Counter(
    "nimmt_bot_rushed_decisions",
    "Slow bots' decisions made by a quicker bot because the queue ate their budget or no "
    "worker answered in time",
    registry=REGISTRY,
)
BOT_DECISION = Histogram(
    "nimmt_bot_decision_seconds",
    "From a table asking its bot to decide until the decision is back (queue wait included)",
    buckets=BOT_BUCKETS,
    registry=REGISTRY,
)


class CollectorPauses(Collector):
    """``nimmt_gc_pause_seconds{generation}``: how long each pass of Python's cyclic garbage
    collector took in this process. A pass stops every thread, so every table waits for it: the
    series tells a tail of slow answers caused by the collector from one caused by the database
    or the machine. The callback (:meth:`watch`) only counts into plain lists, which takes no
    lock and makes nothing the collector would look at; the histogram is built at each scrape."""

    BOUNDS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0)

    def __init__(self, clock: Callable[[], float] = time.perf_counter) -> None:
        self.clock = clock
        self.counts = [[0] * (len(self.BOUNDS) + 1) for _generation in range(3)]
        self.sums = [0.0, 0.0, 0.0]
        self.started = 0.0

    def on_pass(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self.started = self.clock()
            return
        took = self.clock() - self.started
        generation = info["generation"]
        self.sums[generation] += took
        self.counts[generation][bisect.bisect_left(self.BOUNDS, took)] += 1

    def watch(self) -> None:
        """Time every pass from now on (once per process, however many apps start)."""
        if self.on_pass not in gc.callbacks:
            gc.callbacks.append(self.on_pass)

    def collect(self) -> Iterator[HistogramMetricFamily]:
        family = HistogramMetricFamily(
            "nimmt_gc_pause_seconds",
            "Passes of Python's cyclic garbage collector in this process (every table waits"
            " meanwhile), by generation",
            labels=["generation"],
        )
        # The library's own spelling of a bound ("0.001", "1.0", "+Inf"); it has no annotations.
        bounds = [floatToGoString(bound) for bound in (*self.BOUNDS, math.inf)]  # type: ignore[no-untyped-call]
        for generation, counts in enumerate(self.counts):
            buckets = list(zip(bounds, itertools.accumulate(counts), strict=True))
            family.add_metric([str(generation)], buckets, sum_value=self.sums[generation])
        yield family


GC_PAUSES = CollectorPauses()
REGISTRY.register(GC_PAUSES)

# Every series exists from the start (at 0), so that a rate over it needs no first event.
ACTED: dict[str, Counter] = {str(kind): ACTIONS.labels(str(kind)) for kind in ActionKind}
"""``nimmt_actions_total``'s series by kind, looked up once (every stored change counts)."""
for _operation in ("read", "write"):
    STORAGE_ERRORS.labels(_operation)
for _reason in ("slow_headers", "pushed_out", "over_capacity", "headers_too_large"):
    CONNECTIONS_CLOSED.labels(_reason)

ALWAYS_ALLOWED = (ipaddress.ip_network("127.0.0.0/8"), ipaddress.ip_network("::1/128"))


def parse_networks(entries: Iterable[str]) -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
    """Addresses or networks (``10.0.0.5``, ``10.0.0.0/24``); :class:`ValueError` names a bad
    one."""
    networks = []
    for entry in entries:
        try:
            networks.append(ipaddress.ip_network(entry.strip(), strict=False))
        except ValueError:
            raise ValueError(f"{entry!r} is not an address or a network") from None
    return networks


def may_scrape(address: str | None, allowed: Iterable[str]) -> bool:
    """Whether a client at ``address`` may read the metrics: loopback, or one of ``allowed``
    (``*`` allows everybody)."""
    entries = list(allowed)
    if "*" in entries:
        return True
    if address is None:
        return False
    try:
        client = ipaddress.ip_address(address)
    except ValueError:  # not an address (e.g. a test client's name)
        return False
    networks = [*ALWAYS_ALLOWED, *parse_networks(entry for entry in entries if entry != "*")]
    return any(client.version == network.version and client in network for network in networks)
