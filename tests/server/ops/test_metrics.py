"""``GET /metrics`` (Prometheus text format) and ``/readyz``/``/healthz`` on the in-memory twin:
the series are those docs/deploy.md's table lists, they count what happened, and only loopback
and the configured addresses may read them."""

from __future__ import annotations

import gc
import re
from collections.abc import Callable

import pytest
from prometheus_client.parser import text_string_to_metric_families
from starlette.testclient import TestClient
from tests.server.ops.deploy_doc import section
from tests.server.server_helpers import create_table, join, receive_until
from tests.waiting import wait_until

from nimmt.server.metrics import GC_PAUSES, CollectorPauses, may_scrape, parse_networks

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def scrape(client: TestClient) -> Samples:
    answer = client.get("/metrics")
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"].startswith("text/plain")
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(answer.text)
        for sample in family.samples
    }


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def test_the_contract_s_metrics_count_a_game(make_client: Callable[..., TestClient]) -> None:
    client = make_client(metrics_allowed=["*"], deal_seed=3)
    before = scrape(client)
    for name in (
        "nimmt_tables_loaded",
        "nimmt_sockets_open",
        "nimmt_storage_errors_total",
        "nimmt_bot_decision_seconds_count",
        "nimmt_bot_queue_wait_seconds_count",
        "nimmt_slow_consumer_closes_total",
        "nimmt_rate_limited_messages_total",
        "nimmt_quota_refusals_total",
        "nimmt_bus_up",
    ):
        assert any(key[0] == name for key in before), name
    seats = [{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "bot": "greedy"}]
    code, ana = create_table(client, seats)
    join(client, code, "Ben")
    with client.websocket_connect(f"/ws/{code}?token={ana}") as ws:
        state = receive_until(ws, lambda m: m["type"] == "state" and m["view"]["legal_cards"])
        during = scrape(client)
        ws.send_json({"type": "play", "card": state["view"]["legal_cards"][0]})
        receive_until(ws, lambda m: m["type"] == "state" and m["view"]["chosen_card"])
        after = scrape(client)
    assert value(during, "nimmt_sockets_open") == 1
    assert value(during, "nimmt_tables_loaded") >= 1
    assert value(after, "nimmt_actions_total", kind="play") >= (
        value(before, "nimmt_actions_total", kind="play") + 2  # the bot's card, then Ana's
    )
    assert value(after, "nimmt_actions_total", kind="join") >= 2
    assert value(after, "nimmt_bot_decision_seconds_count") > value(
        before, "nimmt_bot_decision_seconds_count"
    )
    assert value(after, "nimmt_bus_up") == 1 and value(after, "nimmt_bus_configured") == 0


def test_refusals_are_counted(make_client: Callable[..., TestClient]) -> None:
    client = make_client(metrics_allowed=["*"], socket_rate=0.01, socket_burst=1, create_quota=1)
    before = scrape(client)
    code, token = create_table(client, [{"kind": "human"}, {"kind": "bot", "bot": "greedy"}])
    assert client.post("/api/tables", json={"seats": [{"kind": "human"}]}).status_code == 429
    with client.websocket_connect(f"/ws/{code}?token={token}") as ws:
        for _ in range(3):
            ws.send_json({"type": "ping"})
        receive_until(ws, lambda m: m.get("code") == "rate_limited")
    after = scrape(client)
    assert value(after, "nimmt_quota_refusals_total") == (
        value(before, "nimmt_quota_refusals_total") + 1
    )
    assert value(after, "nimmt_rate_limited_messages_total") >= (
        value(before, "nimmt_rate_limited_messages_total") + 1
    )


def test_only_loopback_and_configured_addresses_may_scrape(
    make_client: Callable[..., TestClient],
) -> None:
    # The test client's address is "testclient": neither loopback nor configured.
    assert make_client().get("/metrics").status_code == 404
    assert may_scrape("127.0.0.1", [])
    assert may_scrape("::1", [])
    assert not may_scrape("192.0.2.7", [])
    assert may_scrape("10.1.2.3", ["10.0.0.0/8"])
    assert not may_scrape("10.1.2.3", ["10.0.0.5"])
    assert may_scrape("198.51.100.1", ["*"])
    with pytest.raises(ValueError, match="not an address"):
        parse_networks(["ten.0.0.0"])


def test_readiness_beside_liveness(make_client: Callable[..., TestClient]) -> None:
    client = make_client()
    assert client.get("/healthz").json() == {"status": "ok"}
    ready = {"status": "ready", "database": "ok", "bus": "none", "bots": "ready"}
    # The bots' workers start beside the tables (inline bots here: at once).
    wait_until(lambda: client.get("/readyz").json() == ready)
    # A load balancer may probe with HEAD: the same status, no body.
    for path in ("/healthz", "/readyz"):
        probe = client.head(path)
        assert (probe.status_code, probe.content) == (200, b"")


def test_the_operator_s_guide_lists_every_series(make_client: Callable[..., TestClient]) -> None:
    # The table of "Watching it" in docs/deploy.md: its first column, `name{labels}` each.
    table = section("Watching it: readiness, metrics, logs")
    documented = {
        name
        for cell in re.findall(r"^\| (`nimmt_.*?) \|", table, flags=re.MULTILINE)
        for name in re.findall(r"`(nimmt_\w+)", cell)
    }
    client = make_client(metrics_allowed=["*"])
    answer = client.get("/metrics")
    families = {
        family.name: family.type
        for family in text_string_to_metric_families(answer.text)
        if family.name.startswith("nimmt_")
    }
    exposed = {
        name + ("_total" if kind == "counter" else "")
        for name, kind in families.items()
        # Not the "_created" gauge the client library adds beside each counter and histogram.
        if not (
            name.endswith("_created")
            and families.get(name.removesuffix("_created")) in ("counter", "histogram")
        )
    }
    assert documented == exposed


def test_the_collector_s_passes_are_timed(make_client: Callable[..., TestClient]) -> None:
    client = make_client(metrics_allowed=["*"])
    before = scrape(client)
    gc.collect()  # a pass over the whole heap, timed by the callback the app installed
    after = scrape(client)
    whole = {"generation": "2"}
    assert value(after, "nimmt_gc_pause_seconds_count", **whole) >= (
        value(before, "nimmt_gc_pause_seconds_count", **whole) + 1
    )
    assert value(after, "nimmt_gc_pause_seconds_sum", **whole) > value(
        before, "nimmt_gc_pause_seconds_sum", **whole
    )
    assert gc.callbacks.count(GC_PAUSES.on_pass) == 1  # however many apps started


def test_passes_fall_in_their_buckets_cumulated() -> None:
    clock = iter([0.0, 0.004, 1.0, 1.25, 2.0, 4.0])
    pauses = CollectorPauses(clock=lambda: next(clock))
    for generation in (0, 1, 1):  # passes of 4 ms, 250 ms (a bound: in its bucket) and 2 s
        pauses.on_pass("start", {"generation": generation})
        pauses.on_pass("stop", {"generation": generation, "collected": 0, "uncollectable": 0})
    (family,) = pauses.collect()
    samples = {
        (sample.name, sample.labels["generation"], sample.labels.get("le")): sample.value
        for sample in family.samples
    }
    bucket = "nimmt_gc_pause_seconds_bucket"
    assert samples[(bucket, "0", "0.0025")] == 0
    assert samples[(bucket, "0", "0.005")] == 1
    assert samples[(bucket, "1", "0.1")] == 0
    assert samples[(bucket, "1", "0.25")] == 1
    assert samples[(bucket, "1", "1.0")] == 1
    assert samples[(bucket, "1", "+Inf")] == 2
    assert samples[("nimmt_gc_pause_seconds_count", "1", None)] == 2
    assert samples[("nimmt_gc_pause_seconds_sum", "1", None)] == pytest.approx(2.25)
    assert samples[("nimmt_gc_pause_seconds_count", "2", None)] == 0
