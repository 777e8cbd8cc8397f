"""The server's settings, in one pydantic-settings class (environment variables ``NIMMT_*``).

Nothing needs configuring: the database defaults to an SQLite file in the user's data directory.
``NIMMT_DB`` (or ``nimmt serve --db``) takes any SQLAlchemy URL; a plain ``postgresql://`` URL is
mapped to the psycopg 3 driver, the one the project ships.
"""

from __future__ import annotations

import ipaddress
import os
from pathlib import Path
from typing import Annotated, Literal

import platformdirs
from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

WEB_DIR = Path(__file__).resolve().parent.parent / "web"
"""The browser client's files (pages, static assets, rules), written by the client's engineer."""


def default_database_url() -> str:
    """An SQLite file in the user's data directory (created on first start)."""
    return f"sqlite:///{platformdirs.user_data_path('nimmt') / 'nimmt.db'}"


def normalize_database_url(url: str) -> str:
    """``postgresql://`` and ``postgres://`` URLs use the psycopg 3 driver; others stay as given."""
    for prefix in ("postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity, e.g. a container's share)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1


MAX_RETENTION_DAYS = 36_500.0
"""The most days retention counts (a hundred years): a date further back than that is not one a
database can hold."""


class Settings(BaseSettings):
    """Everything the server can be told; each field also reads ``NIMMT_<FIELD>``."""

    model_config = SettingsConfigDict(env_prefix="NIMMT_", extra="ignore")

    host: str = "127.0.0.1"
    port: int = Field(default=8000, ge=0, le=65535)
    db: str = Field(default_factory=default_database_url)
    """SQLAlchemy URL of the database."""
    bot_delay: float = Field(default=0.6, ge=0.0, le=10.0)
    """Seconds a bot waits before acting, so that people can follow the table (0 in tests).
    It delays a bot only: nothing ever acts for a person."""
    deal_seed: int | None = None
    """For tests and demonstrations only: deal from this seed instead of the system's secure
    randomness, so the same games come out every time."""
    web_dir: Path = WEB_DIR
    workers: int = Field(default=1, ge=1, le=64)
    """Server processes behind the one port (``nimmt serve --workers``); above 1 they need a
    shared database (PostgreSQL) and a bus."""
    bus: str | None = None
    """``redis://host:port/db``: the bus that tells the other processes of a change. Without
    it, the process assumes it is alone with its database."""
    bot_processes: int = Field(default_factory=lambda: usable_cores(), ge=0, le=64)
    """Worker processes in which the bots think (per server process); 0 lets them think in the
    server's own thread (tests only: a strong bot then stalls every table)."""
    idle_minutes: float = Field(default=30.0, gt=0)
    """A table where no person acted for this long leaves the open-tables list, and memory
    when nobody is connected (it stays stored and comes back when someone opens it)."""
    max_queue: int = Field(default=64, ge=4, le=10_000)
    """Messages a socket may fall behind before it is sent a fresh state instead."""
    socket_rate: float = Field(default=20.0, gt=0)
    """Messages per second a socket may send on average."""
    socket_burst: int = Field(default=40, ge=1)
    """Messages a socket may send at once before the average applies."""
    watchdog_seconds: float = Field(default=5.0, gt=0)
    """With several processes: how long a table waiting for its dealer or a bot may stand
    still before a process that holds its sockets moves it (its mover may have died)."""
    migrate: bool = True
    """Run the database migrations at start (``nimmt serve --workers`` runs them once, before
    starting its processes)."""

    @field_validator("db")
    @classmethod
    def _use_psycopg(cls, url: str) -> str:
        return normalize_database_url(url.strip())

    max_body_bytes: int = Field(default=16 * 1024, ge=1)
    """Largest HTTP request body accepted; a larger one is answered 413 ``too_large``."""
    max_record_bytes: int = Field(default=256 * 1024, ge=1)
    """Largest game record the replay viewer's ``POST /api/replay`` accepts (a record file is
    larger than any other request body); a larger one is answered 413 ``too_large``."""
    max_message_bytes: int = Field(default=4096, ge=64)
    """Largest socket message accepted (``too_large`` error); ``nimmt serve`` has the WebSocket
    layer close the connection (1009) on bigger frames."""
    allowed_origins: Annotated[list[str], NoDecode] = Field(default_factory=list)
    """Origins besides the server's own whose pages may open sockets (e.g.
    ``https://nimmt.example.org``); the environment variable takes a comma-separated list."""
    create_quota: int = Field(default=20, ge=1)
    """Tables one client address may create per ``create_window_seconds`` (429 beyond)."""
    create_window_seconds: float = Field(default=600.0, gt=0)
    """The sliding window of ``create_quota``, in seconds."""

    allowed_hosts: Annotated[list[str], NoDecode] = Field(default_factory=list)
    """Host names the server answers to besides addresses and ``localhost`` (e.g.
    ``nimmt.example.org``; ``*.example.org``; ``*`` for any): a request or socket with another
    ``Host`` header is refused (DNS rebinding). Comma-separated in the environment."""
    metrics_allowed: Annotated[list[str], NoDecode] = Field(default_factory=list)
    """Addresses or networks besides loopback that may read ``/metrics`` (``10.0.0.0/8``;
    ``*`` for any). Comma-separated in the environment."""
    log_format: Literal["plain", "json"] = "plain"
    """``json``: every log line one JSON object (``ts``, ``level``, ``msg``, ``table``, ...)."""
    header_timeout: float = Field(default=5.0, gt=0, le=120)
    """Seconds a client has to send its request line and headers (each request of a kept-alive
    connection too) before it is closed: slow clients do not hold connections."""
    max_connections: int = Field(default=2000, ge=8)
    """Connections one process holds at most (lowered to fit its file limit): beyond it, a new
    connection pushes out the oldest one still sending its headers, or is closed."""
    max_connections_per_address: int = Field(default=200, ge=1)
    """Connections one client address may hold at one process (a proxy's address is one)."""
    finished_days: float = Field(default=90.0, ge=0, le=MAX_RETENTION_DAYS)
    """Finished tables where nobody acted for this many days are deleted (0: kept forever)."""
    abandoned_days: float = Field(default=30.0, ge=0, le=MAX_RETENTION_DAYS)
    """Unfinished tables where nobody acted for this many days are deleted (0: kept forever)."""
    policy_dir: Path | None = None
    """A folder of saved policies (``NAME.npz``, docs/env.md), each offered at the tables as
    the bot ``policy:NAME.npz``; without it no policy is offered, and no table reads a file."""

    @field_validator("metrics_allowed")
    @classmethod
    def _check_networks(cls, entries: list[str]) -> list[str]:
        for entry in entries:
            if entry != "*":
                ipaddress.ip_network(entry, strict=False)  # a ValueError names the bad one
        return entries

    @field_validator("allowed_origins", "allowed_hosts", "metrics_allowed", mode="before")
    @classmethod
    def _split_origins(cls, value: object) -> object:
        if isinstance(value, str):
            return [origin.strip() for origin in value.split(",") if origin.strip()]
        return value
