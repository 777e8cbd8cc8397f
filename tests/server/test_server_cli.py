"""`nimmt serve` refuses what it cannot serve with one line ``error: ...`` and exit status 1
(the serving itself is tested through a real process in test_server_restart.py)."""

from __future__ import annotations

import socket
from pathlib import Path

from typer.testing import CliRunner

from nimmt.cli import app


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["serve", *args])
    return result.exit_code, result.output


def test_a_database_url_that_is_none() -> None:
    code, output = run("--db", "games.db")
    assert code == 1
    assert output.strip() == "error: 'games.db' is not a database URL (e.g. sqlite:///games.db)"


def test_a_database_that_cannot_be_reached() -> None:
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    code, output = run("--db", f"postgresql://nobody@127.0.0.1:{port}/nimmt", "--port", "0")
    assert code == 1
    lines = output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: cannot open the database ")
    assert "postgresql+psycopg://nobody@127.0.0.1" in lines[0]


def test_a_bus_that_cannot_be_reached_is_named_without_its_password(tmp_path: Path) -> None:
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    code, output = run(
        "--db", f"sqlite:///{tmp_path}/g.db", "--port", "0",
        "--bus", f"redis://:s3cret@127.0.0.1:{port}/0",
    )  # fmt: skip
    assert code == 1
    lines = output.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(f"error: cannot reach the bus redis://***@127.0.0.1:{port}/0: ")
    assert "s3cret" not in output


def test_a_port_in_use_or_out_of_range(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        code, output = run("--port", str(port), "--db", f"sqlite:///{tmp_path}/g.db")
    assert code == 1 and output.startswith(f"error: cannot listen on 127.0.0.1:{port}")
    code, output = run("--port", "70000")
    assert (code, output.strip()) == (1, "error: --port must be 0 to 65535, not 70000")
