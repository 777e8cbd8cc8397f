"""Helpers shared by the browser tests: the running server's address and its JSON API."""

from __future__ import annotations

import json
import urllib.request
from typing import Any


class Server:
    """A running ``nimmt serve`` and small helpers to talk to its JSON API."""

    def __init__(self, base_url: str) -> None:
        self.base_url = base_url

    def api(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            self.base_url + path,
            data=data,
            method=method,
            headers={"Content-Type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.loads(response.read())
