"""A table deleted under its people (``nimmt admin purge`` while it is played) ends its page with
"Table deleted", in the page's language, not with an unknown code's "Table not found"."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import expect
from tests.browser.browser_helpers import Server, start_server, stop_server

from throwaway import free_port

pytestmark = pytest.mark.browser


def test_a_table_deleted_while_shown_says_it_was_deleted(browser: Any, tmp_path: Path) -> None:
    # A server of its own: the purge deletes every unfinished table of its database.
    db = tmp_path / "games.db"
    process, base_url = start_server(db, tmp_path / "server.log", port=free_port())
    try:
        seats = [{"kind": "human"}, {"kind": "human"}]
        code = Server(base_url).api("POST", "/api/tables", {"seats": seats})["code"]
        context = browser.new_context(base_url=base_url, locale="fr-FR")
        page = context.new_page()
        page.goto(f"/t/{code}")
        expect(page.locator("#take-seat")).to_be_visible()
        purge = subprocess.run(
            [sys.executable, "-c", "from nimmt.cli import main; main()", "admin", "purge",
             "--finished-days", "0", "--abandoned-days", "0", "--db", f"sqlite:///{db}"],
            capture_output=True, text=True, timeout=60, check=False,
        )  # fmt: skip
        assert purge.returncode == 0 and f"deleted {code}" in purge.stdout, purge.stderr
        page.reload()  # (an open page hears it within the server's next sweep, a minute)
        expect(page.get_by_role("heading", name="Table supprimée")).to_be_visible()
        expect(page.get_by_text("Cette table a été supprimée")).to_be_visible()
        expect(page).to_have_title(re.compile("Table supprimée"))
        # An unknown code still reads as one.
        page.goto("/t/ZZZZZZ")
        expect(page.get_by_role("heading", name="Table introuvable")).to_be_visible()
        context.close()
    finally:
        stop_server(process)
