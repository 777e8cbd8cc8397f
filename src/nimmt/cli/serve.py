"""`nimmt serve`: the web table's game server (docs/protocol.md).

This module reads the options, opens the database (running its migrations) and hands the app to
uvicorn; the server itself is :mod:`nimmt.server`. A database that cannot be opened or a port in
use ends as one line ``error: ...``.
"""

from __future__ import annotations

import os
import socket
from typing import Annotated, Any

import typer

from nimmt.cli.errors import fail


def serve(
    host: Annotated[
        str | None,
        typer.Option(
            "--host", metavar="ADDRESS", help="Address to listen on (default: 127.0.0.1)."
        ),
    ] = None,
    port: Annotated[
        int | None,
        typer.Option("--port", metavar="PORT", help="Port to listen on (default: 8000)."),
    ] = None,
    db: Annotated[
        str | None,
        typer.Option(
            "--db",
            metavar="URL",
            help="SQLAlchemy database URL, e.g. sqlite:///games.db or postgresql://user@host/db "
            "(default: $NIMMT_DB, else an SQLite file in your data directory).",
        ),
    ] = None,
    workers: Annotated[
        int | None,
        typer.Option(
            "--workers",
            metavar="N",
            help="Server processes sharing the port (default: 1); above 1 they need PostgreSQL "
            "(--db) and a bus (--bus). See docs/deploy.md.",
        ),
    ] = None,
    bus: Annotated[
        str | None,
        typer.Option(
            "--bus",
            metavar="URL",
            help="Redis URL (redis://host:port/0) through which processes tell each other of "
            "changes (default: $NIMMT_BUS, else none: one process).",
        ),
    ] = None,
) -> None:
    """Serve the web table: create tables, share the link, play with friends and bots."""
    # Imported here so that the other commands start without loading the web stack.
    import uvicorn
    from pydantic import ValidationError
    from sqlalchemy.engine import make_url

    from nimmt.server import Settings, create_app
    from nimmt.server.bus import shown_url
    from nimmt.server.guard import GuardedHttp, configure
    from nimmt.server.logs import uvicorn_log_config
    from nimmt.server.storage import SqlStorage

    if port is not None and not 0 <= port <= 65535:
        fail(f"--port must be 0 to 65535, not {port}")
    overrides: dict[str, Any] = {
        key: value
        for key, value in (
            ("host", host),
            ("port", port),
            ("db", db),
            ("workers", workers),
            ("bus", bus),
        )
        if value is not None
    }
    try:
        settings = Settings(**overrides)
    except ValidationError as error:
        fail(f"invalid setting: {error.errors()[0]['loc'][0]}: {error.errors()[0]['msg']}")
    if settings.policy_dir is not None:
        from nimmt.server.policybots import PolicyDirError, offered_policies

        try:
            offered_policies(settings.policy_dir)
        except PolicyDirError as error:
            fail(str(error))
    try:
        shown_db = make_url(settings.db).render_as_string(hide_password=True)
    except Exception:
        fail(f"{settings.db!r} is not a database URL (e.g. sqlite:///games.db)")
    if settings.workers > 1:
        if make_url(settings.db).get_backend_name() == "sqlite":
            fail("--workers above 1 needs a shared database: --db postgresql://user@host/db")
        if not settings.bus:
            fail("--workers above 1 needs a bus to tell the processes of changes: --bus redis://…")
    _check_port_free(settings.host, settings.port)
    try:
        storage = SqlStorage(settings.db)
    except Exception as error:
        fail(f"cannot open the database {shown_db}: {_first_line(error)}")
    if settings.bus:
        _check_bus(settings.bus)
    options: dict[str, Any] = {
        "host": settings.host,
        "port": settings.port,
        "log_level": "info",
        # uvicorn's lines and the server's, in one format (NIMMT_LOG_FORMAT), on standard error.
        "log_config": uvicorn_log_config(settings.log_format),
        # The header timeout and the connection caps (server/guard.py) around httptools.
        "http": GuardedHttp,
        "ws": "websockets-sansio",
        # Messages are small JSON: compressing each costs more CPU than it saves on the wire.
        "ws_per_message_deflate": False,
        # Bigger socket frames are dropped by the WebSocket layer (close 1009), unread.
        "ws_max_size": settings.max_message_bytes,
    }
    shown_bus = f"bus {shown_url(settings.bus)}" if settings.bus else "no bus: one process"
    shown = f"http://{settings.host}:{settings.port}  (database {shown_db}, {shown_bus}"
    if settings.workers == 1:
        configure(settings)  # several processes: each configures its own from the environment
        typer.echo(f"nimmt: serving on {shown})")
        uvicorn.run(create_app(settings, storage=storage), **options)
        return
    # Several processes: each builds its app from the environment; the migrations ran above.
    storage.close()
    for key, value in overrides.items():
        os.environ[f"NIMMT_{key.upper()}"] = str(value)
    os.environ["NIMMT_MIGRATE"] = "false"
    typer.echo(f"nimmt: serving on {shown}, {settings.workers} processes)")
    uvicorn.run("nimmt.server:create_app", factory=True, workers=settings.workers, **options)


def _check_bus(url: str) -> None:
    """Fail early, with a clear line, when the bus cannot be reached."""
    import redis

    from nimmt.server.bus import shown_url

    try:
        client = redis.Redis.from_url(url, socket_connect_timeout=3)
        client.ping()
        client.close()
    except Exception as error:
        fail(f"cannot reach the bus {shown_url(url)}: {_first_line(error)}")


def _check_port_free(host: str, port: int) -> None:
    """Fail early, with a clear line, when the port is taken (uvicorn would log a traceback)."""
    if port == 0:
        return
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as error:
        fail(f"cannot listen on {host}: {error.strerror or error}")
    family, kind, proto, _name, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as error:
            fail(f"cannot listen on {host}:{port}: {error.strerror or error}")


def _first_line(error: Exception) -> str:
    text = str(error).strip() or type(error).__name__
    return text.splitlines()[0]
