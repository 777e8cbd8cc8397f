"""Throwaway PostgreSQL 15 clusters and Redis servers on loopback, for the load bench and the tests.

Each starts on a free port in a fresh temporary directory and is stopped and deleted on exit;
nothing is left running. PostgreSQL's ``initdb`` refuses to run as root, so as root the cluster
runs as the ``postgres`` user. ``scripts/test.sh`` installs Redis (``redis-server``) when missing;
PostgreSQL 15 comes with the machine.
"""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

PG_BIN = Path("/usr/lib/postgresql/15/bin")
REDIS_SERVER = shutil.which("redis-server") or "/usr/bin/redis-server"


class ServiceUnavailable(RuntimeError):
    """The server binaries are not installed here."""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def postgres_available() -> bool:
    return (PG_BIN / "initdb").exists() and (PG_BIN / "pg_ctl").exists()


def redis_available() -> bool:
    return Path(REDIS_SERVER).exists()


def _as_postgres(command: list[str]) -> list[str]:
    if os.geteuid() != 0:
        return command
    return ["runuser", "-u", "postgres", "--", *command]


class Postgres:
    """A running throwaway cluster: :attr:`url` to connect, :meth:`stop` / :meth:`start` to make
    the database unavailable for a while (fault tests)."""

    def __init__(self, home: Path, port: int) -> None:
        self.home = home
        self.data = home / "data"
        self.port = port
        self.url = f"postgresql://postgres@127.0.0.1:{port}/postgres"

    def _run(self, *args: object) -> None:
        subprocess.run(_as_postgres([str(a) for a in args]), check=True, capture_output=True)

    def start(self) -> None:
        options = (
            f"-p {self.port} -k {self.home} -c listen_addresses=127.0.0.1 -c fsync=off "
            "-c max_connections=200"
        )
        self._run(
            PG_BIN / "pg_ctl", "-D", self.data, "-o", options, "-l", self.home / "log", "-w",
            "-t", "60", "start",
        )  # fmt: skip

    def stop(self) -> None:
        if (self.data / "postmaster.pid").exists():
            subprocess.run(
                _as_postgres([str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-m", "fast", "stop"]),
                capture_output=True,
            )


@contextmanager
def postgres() -> Iterator[Postgres]:
    """A fresh PostgreSQL 15 cluster (``fsync=off``: throwaway data) for the ``with`` block."""
    if not postgres_available():
        raise ServiceUnavailable(f"PostgreSQL 15 binaries are not installed in {PG_BIN}")
    home = Path(tempfile.mkdtemp(prefix="nimmt-pg-"))
    if os.geteuid() == 0:
        owner = pwd.getpwnam("postgres")
        os.chown(home, owner.pw_uid, owner.pw_gid)
    cluster = Postgres(home, free_port())
    try:
        cluster._run(
            PG_BIN / "initdb", "-D", cluster.data, "-A", "trust", "-U", "postgres", "-E",
            "UTF8", "--no-sync",
        )  # fmt: skip
        cluster.start()
        yield cluster
    finally:
        if (cluster.data / "postmaster.pid").exists():
            subprocess.run(
                _as_postgres(
                    [str(PG_BIN / "pg_ctl"), "-D", str(cluster.data), "-m", "immediate", "stop"]
                ),
                capture_output=True,
            )
        shutil.rmtree(home, ignore_errors=True)


class Redis:
    """A running throwaway Redis: :attr:`url`; :meth:`stop` and :meth:`start` for fault tests."""

    def __init__(self, home: Path, port: int) -> None:
        self.home = home
        self.port = port
        self.url = f"redis://127.0.0.1:{port}/0"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            [
                REDIS_SERVER, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
                "--appendonly", "no", "--dir", str(self.home),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )  # fmt: skip
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5) as conn:
                    conn.sendall(b"PING\r\n")
                    if conn.recv(16).startswith(b"+PONG"):
                        return
            except OSError:
                pass
            if self.process.poll() is not None:
                break
            time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"redis-server did not start on port {self.port}")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None


@contextmanager
def redis() -> Iterator[Redis]:
    """A fresh Redis server without persistence for the ``with`` block."""
    if not redis_available():
        raise ServiceUnavailable(f"{REDIS_SERVER} is missing (apt-get install redis-server)")
    home = Path(tempfile.mkdtemp(prefix="nimmt-redis-"))
    server = Redis(home, free_port())
    try:
        server.start()
        yield server
    finally:
        server.stop()
        shutil.rmtree(home, ignore_errors=True)
