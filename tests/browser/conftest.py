"""Fixtures of the browser tests: the real ``nimmt serve`` in a subprocess, and Debian's Chromium
driven through Playwright's sync API (which cannot run inside an asyncio loop, hence the
subprocess rather than an in-process app).

The server runs with ``NIMMT_BOT_DELAY=0`` (bots answer at once) and a fixed ``NIMMT_DEAL_SEED``
(the test-only option of the server's settings), so every game these tests play is the same.
Pages start with the animation speed at 4x (``nimmt.speed`` in localStorage), the fastest a
person can choose, so the card-by-card resolution is still drawn but quickly.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from tests.browser.browser_helpers import CHROMIUM, CHROMIUM_ARGS, Server, start_server, stop_server

from throwaway import free_port


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    if CHROMIUM.exists():
        return
    skip = pytest.mark.skip(
        reason=f"{CHROMIUM} is missing: install Debian's Chromium (apt-get install chromium) "
        "to run the browser tests; scripts/test.sh does this itself"
    )
    for item in items:
        if item.get_closest_marker("browser") is not None:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is missing")
    db = tmp_path_factory.mktemp("browser-db") / "games.db"
    log = tmp_path_factory.mktemp("browser-log") / "server.log"
    process, base_url = start_server(db, log, port=free_port())
    yield Server(base_url)
    stop_server(process)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    # Module scope, not session: Playwright's sync API keeps an asyncio loop running in this
    # thread while it is open, and other test files in the same worker call asyncio.run().
    from playwright.sync_api import expect, sync_playwright

    # A fresh server starts its bot worker processes beside the first games, and CI machines
    # are busy: give every expectation the same patience as every action.
    expect.set_options(timeout=15_000)

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


@pytest.fixture
def new_page(browser: Any, server: Server) -> Iterator[Callable[..., Any]]:
    """``new_page(locale="en-US", **context_options)``: a page in a fresh browser context (its
    own localStorage: one person), fast animations, and page errors collected to fail the test."""
    contexts: list[Any] = []
    errors: list[str] = []

    def make(locale: str = "en-US", **options: Any) -> Any:
        options.setdefault("viewport", {"width": 1280, "height": 900})
        context = browser.new_context(locale=locale, base_url=server.base_url, **options)
        context.add_init_script("localStorage.setItem('nimmt.speed', '4')")
        context.set_default_timeout(15000)
        contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        return page

    yield make
    for context in contexts:
        context.close()
    assert errors == [], f"JavaScript errors in the page: {errors}"
