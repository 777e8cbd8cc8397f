"""The proxy set-ups of docs/deploy.md ("On the internet: a proxy in front, always"), run as
written there: Debian's nginx and Caddy, each configured from the doc's own block, in front of a
real ``nimmt serve``. Pages come over HTTPS with ``Strict-Transport-Security``, plain HTTP is
sent to HTTPS, ``/metrics`` is kept from the world (and answers on loopback), the API creates a
table, a ``wss://`` table socket from the site's own page is accepted (so the server trusts the
proxy's ``X-Forwarded-Proto``) and one from another site's page is refused, and the server sees
the client's address, not the proxy's.

Only what a test must is changed in the doc's blocks: the listen ports (spare ones on loopback),
nginx's certificate paths (a self-signed certificate made here), the upstream's port, and for
Caddy some global options before the site (certificates from its own local authority instead of
Let's Encrypt, which is not reachable from a test). The host name stays ``nimmt.example.org``:
the client connects to 127.0.0.1 and gives that name as the TLS name and the ``Host``, so
nothing is resolved.

Each proxy runs in the foreground as an unprivileged process (``nobody`` when the tests run as
root), in a temporary folder of its own, and is stopped at the end of the module; nothing is
left running. The tests are skipped, saying so, where nginx or Caddy is not installed
(``scripts/test.sh`` installs both).
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import pwd
import shutil
import signal
import socket
import ssl
import subprocess
import tempfile
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import websockets.sync.client
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from tests.server.ops.deploy_doc import block, substituted
from tests.server.server_helpers import Served, start_server, stop_server
from tests.waiting import wait_until
from websockets.exceptions import ConnectionClosed
from websockets.typing import Origin

from throwaway import free_port

SECTION = "On the internet: a proxy in front, always"
HOST = "nimmt.example.org"
DOC_UPSTREAM = "127.0.0.1:8000"
HSTS = "max-age=31536000; includeSubDomains"
SEATS = [{"kind": "human"}, {"kind": "bot", "bot": "greedy"}]
SYSTEM_PATH = f"{os.environ.get('PATH', '')}:/usr/sbin:/sbin"
PATIENCE = 30
"""Seconds a request or a socket may take on a loaded machine before the test gives up."""


# ------------------------------------------------------------------- the doc's blocks


def documented(language: str) -> str:
    """The one fenced ``language`` block of the doc's proxy section."""
    return block(language, SECTION)


def test_the_doc_has_one_block_for_each_proxy() -> None:
    nginx = documented("nginx")
    assert "listen 443 ssl" in nginx and "proxy_set_header X-Forwarded-Proto $scheme;" in nginx
    assert f"{HOST} {{" in documented("caddy")


def test_the_caddyfile_is_as_caddy_formats_it() -> None:
    # Else Caddy warns "Caddyfile input is not formatted" at every start and reload.
    formatted = subprocess.run(
        [_binary("caddy"), "fmt", "-"],
        input=documented("caddy"),
        capture_output=True,
        text=True,
        timeout=PATIENCE,
    )
    assert formatted.returncode == 0, formatted.stderr
    assert formatted.stdout == documented("caddy")


# ----------------------------------------------------------------------- the processes


@pytest.fixture(scope="module")
def nimmt(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """One ``nimmt serve`` as the doc's unit runs it: JSON logs, the site's name allowed."""
    folder = tmp_path_factory.mktemp("proxied")
    served = start_server(
        f"sqlite:///{folder / 'games.db'}",
        folder / "serve.log",
        env={"NIMMT_ALLOWED_HOSTS": HOST, "NIMMT_LOG_FORMAT": "json"},
    )
    try:
        yield served
    finally:
        stop_server(served)


@dataclass
class Proxy:
    """A running proxy: its ports, the certificate that signed its own, its folder."""

    name: str
    http_port: int
    https_port: int
    authority: Path
    home: Path

    def tls(self) -> ssl.SSLContext:
        """A client's TLS context that trusts the proxy's certificate (and checks the name)."""
        return ssl.create_default_context(cafile=self.authority)

    @property
    def origin(self) -> str:
        """The site's own origin, as a browser on it sends it."""
        return f"https://{HOST}:{self.https_port}"

    def logs(self) -> str:
        return "\n".join(f"== {log.name}\n{log.read_text()}" for log in self.home.glob("*.log"))


def _binary(name: str) -> str:
    found = shutil.which(name, path=SYSTEM_PATH)
    if found is None:
        pytest.skip(f"{name} is not installed (apt-get install {name}; scripts/test.sh does)")
    return found


def _unprivileged(home: Path) -> dict[str, Any]:
    """How to start a proxy as an ordinary user: as root, ``nobody``, owning ``home``."""
    if os.geteuid() != 0:
        return {}
    nobody = pwd.getpwnam("nobody")
    for path in [home, *home.rglob("*")]:
        os.chown(path, nobody.pw_uid, nobody.pw_gid)
    return {"user": nobody.pw_uid, "group": nobody.pw_gid, "extra_groups": []}


@contextlib.contextmanager
def running(proxy: Proxy, command: list[str], env: dict[str, str]) -> Iterator[Proxy]:
    """``command`` (the proxy, in the foreground) in a process group of its own until it answers,
    then for the ``with`` block; then stopped (SIGTERM, SIGKILL to the group if it lingers)."""
    # Should the tests be killed before their teardown, the proxy is sent SIGTERM as its parent
    # dies (util-linux's setpriv, where there is one): nothing is left running.
    setpriv = shutil.which("setpriv", path=SYSTEM_PATH)
    guard = [setpriv, "--pdeathsig", "TERM", "--"] if setpriv else []
    with (proxy.home / "output.log").open("ab") as out:
        process = subprocess.Popen(
            [*guard, *command],
            cwd=proxy.home,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            process_group=0,
            **_unprivileged(proxy.home),
        )
    try:
        wait_answering(proxy, process)
        yield proxy
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)  # a worker its master left behind


def wait_answering(proxy: Proxy, process: subprocess.Popen[bytes]) -> None:
    """Wait (bounded) until the proxy answers ``/healthz`` over HTTPS, from the server."""

    def answering() -> bool:
        assert process.poll() is None, f"{proxy.name} ended:\n{proxy.logs()}"
        if not proxy.authority.exists():  # Caddy makes its authority as it starts
            return False
        with contextlib.suppress(OSError, http.client.HTTPException):
            return fetch(proxy, "/healthz").status == 200
        return False

    wait_until(
        answering,
        timeout=60,
        interval=0.1,
        message=lambda: f"{proxy.name} never answered:\n{proxy.logs()}",
    )


def self_signed(folder: Path) -> tuple[Path, Path]:
    """A certificate for ``HOST`` signed by its own key (a day long), and that key, as PEM."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, HOST)])
    now = datetime.now(UTC)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(minutes=5))
        .not_valid_after(now + timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(HOST)]), critical=False)
        .sign(key, hashes.SHA256())
    )
    certificate_file, key_file = folder / "fullchain.pem", folder / "privkey.pem"
    certificate_file.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return certificate_file, key_file


NGINX_MAIN = """\
# What Debian's /etc/nginx/nginx.conf gives the doc's block (conf.d/*.conf is included in its
# http block), with every file in this folder.
pid {home}/nginx.pid;
error_log {home}/error.log notice;
worker_processes 1;
events {{
    worker_connections 256;
}}
http {{
    access_log {home}/access.log;
    client_body_temp_path {home}/client_body;
    proxy_temp_path {home}/proxy;
    fastcgi_temp_path {home}/fastcgi;
    uwsgi_temp_path {home}/uwsgi;
    scgi_temp_path {home}/scgi;
    include {home}/nimmt.conf;
}}
"""


@contextlib.contextmanager
def nginx(upstream: int) -> Iterator[Proxy]:
    """The doc's nginx block with a self-signed certificate, in front of port ``upstream``."""
    binary = _binary("nginx")
    home = Path(tempfile.mkdtemp(prefix="nimmt-nginx-"))
    try:
        certificate, key = self_signed(home)
        proxy = Proxy("nginx", free_port(), free_port(), certificate, home)
        site = substituted(
            documented("nginx"),
            {
                "listen 80;": f"listen 127.0.0.1:{proxy.http_port};",
                "listen 443 ssl": f"listen 127.0.0.1:{proxy.https_port} ssl",
                f"/etc/letsencrypt/live/{HOST}/fullchain.pem": str(certificate),
                f"/etc/letsencrypt/live/{HOST}/privkey.pem": str(key),
                f"http://{DOC_UPSTREAM};": f"http://127.0.0.1:{upstream};",
            },
        )
        (home / "nimmt.conf").write_text(site)
        (home / "nginx.conf").write_text(NGINX_MAIN.format(home=home))
        # -e: the error log before the configuration names it (not Debian's, in /var/log).
        command = [binary, "-p", f"{home}/", "-c", f"{home}/nginx.conf", "-e", f"{home}/error.log"]
        with running(proxy, [*command, "-g", "daemon off;"], dict(os.environ)):
            yield proxy
    finally:
        shutil.rmtree(home, ignore_errors=True)


CADDY_GLOBAL = """\
# Global options for the test only: certificates from Caddy's own local authority instead of
# Let's Encrypt (not reachable here), and nothing installed in the system's trust store; spare
# ports on loopback; no admin endpoint; no UDP port for HTTP/3; its debug log, should a test
# need to say what it did.
{{
\tadmin off
\tdebug
\tlocal_certs
\tskip_install_trust
\tdefault_bind 127.0.0.1
\thttp_port {http_port}
\thttps_port {https_port}
\tservers {{
\t\tprotocols h1 h2
\t}}
}}

"""


@contextlib.contextmanager
def caddy(upstream: int) -> Iterator[Proxy]:
    """The doc's Caddyfile, its certificate from Caddy's local authority, in front of port
    ``upstream``."""
    binary = _binary("caddy")
    home = Path(tempfile.mkdtemp(prefix="nimmt-caddy-"))
    try:
        authority = home / "data" / "caddy" / "pki" / "authorities" / "local" / "root.crt"
        proxy = Proxy("caddy", free_port(), free_port(), authority, home)
        site = substituted(
            documented("caddy"),
            {f"reverse_proxy {DOC_UPSTREAM}\n": f"reverse_proxy 127.0.0.1:{upstream}\n"},
        )
        options = CADDY_GLOBAL.format(http_port=proxy.http_port, https_port=proxy.https_port)
        (home / "Caddyfile").write_text(options + site)
        # Its data (the authority, the certificates) and its autosaved configuration here.
        env = {
            **os.environ,
            "HOME": str(home),
            "XDG_DATA_HOME": str(home / "data"),
            "XDG_CONFIG_HOME": str(home / "config"),
        }
        command = [binary, "run", "--config", f"{home}/Caddyfile", "--adapter", "caddyfile"]
        with running(proxy, command, env):
            yield proxy
    finally:
        shutil.rmtree(home, ignore_errors=True)


@pytest.fixture(scope="module", params=["nginx", "caddy"])
def proxy(request: pytest.FixtureRequest, nimmt: Served) -> Iterator[Proxy]:
    start = nginx if request.param == "nginx" else caddy
    with start(nimmt.port) as started:
        yield started


# ----------------------------------------------------------------------------- clients


@dataclass
class Answer:
    status: int
    headers: http.client.HTTPMessage
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


class _Pinned(http.client.HTTPConnection):
    """A connection to ``HOST`` on this machine: to 127.0.0.1 (from ``source``), with ``HOST``
    as the TLS name and in the ``Host`` header (with the port), as a browser would send them."""

    def __init__(self, port: int, tls: ssl.SSLContext | None, source: str) -> None:
        super().__init__(HOST, port, timeout=PATIENCE)
        self.tls = tls
        self.source = source

    def connect(self) -> None:
        raw = socket.create_connection(("127.0.0.1", self.port), self.timeout, (self.source, 0))
        self.sock = raw if self.tls is None else self.tls.wrap_socket(raw, server_hostname=HOST)


def fetch(
    proxy: Proxy,
    path: str,
    *,
    method: str = "GET",
    body: Any = None,
    headers: dict[str, str] | None = None,
    secure: bool = True,
    source: str = "127.0.0.1",
) -> Answer:
    """One request to the proxy, over HTTPS (or plain HTTP to its port 80's stand-in)."""
    port = proxy.https_port if secure else proxy.http_port
    connection = _Pinned(port, proxy.tls() if secure else None, source)
    try:
        sent = dict(headers or {})
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            sent["Content-Type"] = "application/json"
        connection.request(method, path, body=data, headers=sent)
        answer = connection.getresponse()
        return Answer(answer.status, answer.headers, answer.read())
    finally:
        connection.close()


def table_socket(
    proxy: Proxy, code: str, token: str, origin: str
) -> websockets.sync.client.ClientConnection:
    """A ``wss://`` table socket through the proxy, opened as a page of ``origin`` opens it.

    The TLS socket is made here, with a timeout that stays on it: websockets' own is blocking
    after its handshake, and once (CI, Caddy, 1 run in many) a proxy that never answered the
    upgrade left the client's reading thread waiting forever, as websockets cannot wake a
    thread blocked inside a TLS read. Now a silent proxy is given up on within ``PATIENCE``,
    said in a warning with its logs, and asked once more (a person would reload); the
    server's answer is what the tests check, and a second silence fails them.
    """
    for attempt in (1, 2):
        raw = socket.create_connection(("127.0.0.1", proxy.https_port), timeout=PATIENCE)
        secure = proxy.tls().wrap_socket(raw, server_hostname=HOST)
        try:
            # ``ws://`` as the socket is TLS already; the request is the same as a browser's.
            return websockets.sync.client.connect(
                f"ws://{HOST}:{proxy.https_port}/ws/{code}?token={token}",
                sock=secure,
                origin=Origin(origin),
                open_timeout=PATIENCE,
                proxy=None,
            )
        except TimeoutError as silent:
            secure.close()
            said = f"{proxy.name} never answered the upgrade:\n{proxy.logs()}"
            if attempt == 2:
                raise AssertionError(said) from silent
            warnings.warn(said, stacklevel=2)
    raise AssertionError("unreachable")


def new_table(proxy: Proxy) -> tuple[str, str]:
    created = fetch(proxy, "/api/tables", method="POST", body={"seats": SEATS, "name": "Ana"})
    assert created.status == 201, created.body
    answer = created.json()
    return answer["code"], answer["token"]


# ------------------------------------------------------------------------------- tests


def test_pages_come_over_https_with_hsts(proxy: Proxy) -> None:
    page = fetch(proxy, "/")
    assert page.status == 200 and b"<html" in page.body.lower()
    assert page.headers["Strict-Transport-Security"] == HSTS
    # On every answer, errors too: the server's own and the proxy's.
    missing = fetch(proxy, "/api/tables/ZZZZZZ")
    assert missing.status == 404 and missing.headers["Strict-Transport-Security"] == HSTS
    refused = fetch(proxy, "/metrics")
    assert refused.status == 404 and refused.headers["Strict-Transport-Security"] == HSTS


def test_http2_is_offered(proxy: Proxy) -> None:
    # The doc's "http2" (nginx) and Caddy's default: a browser gets HTTP/2 for the pages.
    tls = proxy.tls()
    tls.set_alpn_protocols(["h2", "http/1.1"])
    raw = socket.create_connection(("127.0.0.1", proxy.https_port), timeout=PATIENCE)
    with tls.wrap_socket(raw, server_hostname=HOST) as wrapped:
        assert wrapped.selected_alpn_protocol() == "h2"


def test_plain_http_is_sent_to_https(proxy: Proxy) -> None:
    answer = fetch(proxy, "/t/ABCDEF?seat=1", secure=False)
    assert answer.status in (301, 308), (answer.status, answer.body)
    target = urlsplit(answer.headers["Location"])
    assert (target.scheme, target.hostname) == ("https", HOST)
    assert target.port in (None, proxy.https_port)  # nginx's $host drops a port, Caddy keeps it
    assert (target.path, target.query) == ("/t/ABCDEF", "seat=1")


@pytest.mark.parametrize("path", ["/metrics", "/metrics?format=text", "/%6Detrics"])
def test_metrics_are_refused_through_the_proxy_and_answer_on_loopback(
    proxy: Proxy, nimmt: Served, path: str
) -> None:
    # Each spelling the server answers with its figures ("%6D" is "m" once decoded).
    direct = http.client.HTTPConnection("127.0.0.1", nimmt.port, timeout=PATIENCE)
    try:
        direct.request("GET", path)
        answer = direct.getresponse()
        assert answer.status == 200 and b"nimmt_tables_loaded" in answer.read(), path
    finally:
        direct.close()
    through = fetch(proxy, path)
    assert through.status == 404 and b"nimmt_tables_loaded" not in through.body, path


def receive_state(ws: websockets.sync.client.ClientConnection, after: int = -1) -> Any:
    """The socket's next ``state`` at a version above ``after`` (no error on the way)."""
    for _ in range(1000):
        message = json.loads(ws.recv(timeout=PATIENCE))
        assert message["type"] != "error", message
        if message["type"] == "state" and message["version"] > after:
            return message
    raise AssertionError("no such state came")


def test_the_api_creates_a_table_and_its_wss_socket_plays(proxy: Proxy) -> None:
    code, token = new_table(proxy)
    assert fetch(proxy, f"/api/tables/{code}").json()["code"] == code
    with table_socket(proxy, code, token, proxy.origin) as ws:
        state = receive_state(ws)
        assert state["you"]["seat"] == 0
        card = state["view"]["legal_cards"][0]
        ws.send(json.dumps({"type": "play", "card": card, "version": state["version"]}))
        assert card not in receive_state(ws, after=state["version"])["view"]["hand"]


@pytest.mark.parametrize("foreign", ["https://evil.example", "http://{HOST}:{port}"])
def test_a_socket_from_another_site_s_page_is_refused(proxy: Proxy, foreign: str) -> None:
    # The site's own name over plain HTTP is another origin too: the server knows, from the
    # proxy's X-Forwarded-Proto, that its page came over HTTPS.
    origin = foreign.format(HOST=HOST, port=proxy.https_port)
    code, token = new_table(proxy)
    with table_socket(proxy, code, token, origin) as ws:
        message = json.loads(ws.recv(timeout=PATIENCE))
        assert message["type"] == "error" and message["code"] == "forbidden_origin"
        with pytest.raises(ConnectionClosed) as closed:
            ws.recv(timeout=PATIENCE)
    assert closed.value.rcvd is not None and closed.value.rcvd.code == 4403


def test_the_server_sees_the_client_s_address(proxy: Proxy, nimmt: Served) -> None:
    # From another loopback address than the proxy's: the server's access line names it.
    request_id = f"proxied-{proxy.name}"
    answer = fetch(proxy, "/healthz", headers={"X-Request-ID": request_id}, source="127.0.0.2")
    assert answer.status == 200 and answer.headers["X-Request-ID"] == request_id

    def access_line() -> str:
        """uvicorn's line for that request: ``CLIENT:PORT - "GET /healthz HTTP/1.1" 200``."""
        for line in nimmt.log.read_text().splitlines():
            if request_id in line and line.startswith("{"):
                entry = json.loads(line)
                if entry.get("request_id") == request_id and entry["logger"] == "uvicorn.access":
                    message: str = entry["msg"]
                    return message
        return ""

    line = wait_until(access_line, timeout=30, message=lambda: nimmt.log.read_text())
    assert line.startswith("127.0.0.2:"), line
