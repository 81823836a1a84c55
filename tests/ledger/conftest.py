"""Fixtures for the ledger service tests: real servers on free loopback ports, never a mock.

- ``admin_token``: a fresh random admin token per test.
- ``sqlite_url``: a SQLite file in the test's temporary directory.
- ``app_client``: the application in-process (Starlette's TestClient) on a SQLite file.
- ``live_server``: a factory that starts ``dpcompose ledger serve`` as a separate
  process (so it can be killed with SIGKILL) on 127.0.0.1 and a free port, logging to a
  file the security tests read; every server is stopped at teardown.
- ``backend_url``: parametrized over SQLite and a real PostgreSQL (``tests/ledger/pg.py``;
  skipped only where the server binaries are absent).
"""

from __future__ import annotations

import os
import secrets
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable, Iterator, Optional

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("sqlalchemy")

import httpx  # noqa: E402
from pg import postgres_server, postgres_url  # noqa: E402,F401  (fixtures, one server per process)

ARTIFACTS = Path(os.environ.get("DPCOMPOSE_TEST_ARTIFACTS", "test-artifacts"))
START_TIMEOUT = 60.0  # seconds for a server to answer after start (a loaded 2-core machine)


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    """``dpcompose ledger serve`` in a child process on 127.0.0.1 (its own process group)."""

    def __init__(self, db_url: str, admin_token: str, log_path: Path, port: Optional[int] = None) -> None:
        self.db_url, self.admin_token, self.log_path = db_url, admin_token, log_path
        self.port = port or free_port()
        self.proc: Optional[subprocess.Popen[bytes]] = None
        self.starts = 0

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> "Server":
        env = {k: v for k, v in os.environ.items() if not k.startswith("DPCOMPOSE_LEDGER_")}
        env["DPCOMPOSE_LEDGER_ADMIN_TOKEN"] = self.admin_token
        env["PYTHONUNBUFFERED"] = "1"
        cmd = [sys.executable, "-c", "from dpcompose.cli import main; main()", "ledger", "serve",
               "--db", self.db_url, "--host", "127.0.0.1", "--port", str(self.port)]
        log = open(self.log_path, "ab")
        try:
            self.proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env,
                                         start_new_session=True)
        finally:
            log.close()
        self.starts += 1
        self._wait_ready()
        return self

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + START_TIMEOUT
        headers = {"Authorization": f"Bearer {self.admin_token}"}
        while time.monotonic() < deadline:
            assert self.proc is not None
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited with {self.proc.returncode}:\n{self.log()}")
            try:
                if httpx.get(f"{self.url}/v1/whoami", headers=headers, timeout=2.0).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"server did not answer within {START_TIMEOUT} s:\n{self.log()}")

    def kill9(self) -> None:
        """SIGKILL: no shutdown handler runs, as in a crash."""
        if self.proc is not None and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=30)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.kill9()
        self.proc = None

    def log(self) -> str:
        return self.log_path.read_text(encoding="utf-8", errors="replace") if self.log_path.exists() else ""

    def client(self, token: Optional[str] = None, **kw: Any) -> Any:
        from dpcompose.ledger import Client

        return Client(self.url, token or self.admin_token, **kw)


@pytest.fixture
def admin_token() -> str:
    return "adm-" + secrets.token_urlsafe(24)


@pytest.fixture
def sqlite_url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'ledger.db'}"


@pytest.fixture
def app_client(sqlite_url: str, admin_token: str) -> Iterator[Any]:
    """The application in-process; ``app_client.ledger`` is its store and requests carry no token."""
    from fastapi.testclient import TestClient

    from dpcompose.ledger import Ledger
    from dpcompose.ledger.app import create_app

    led = Ledger(sqlite_url)
    led.init()
    app = create_app(led, admin_token=admin_token)
    with TestClient(app, base_url="http://127.0.0.1") as tc:
        tc.ledger = led  # type: ignore[attr-defined]
        tc.admin = {"Authorization": f"Bearer {admin_token}"}  # type: ignore[attr-defined]
        yield tc


@pytest.fixture
def live_server(tmp_path: Path, admin_token: str) -> Iterator[Callable[..., Server]]:
    """``live_server(db_url)`` starts a server; all are stopped at teardown."""
    servers: list[Server] = []

    def start(db_url: str, **kw: Any) -> Server:
        s = Server(db_url, admin_token, tmp_path / f"server-{len(servers)}.log", **kw)
        servers.append(s)
        return s.start()

    yield start
    for s in servers:
        s.stop()


# the PostgreSQL case is marked slow: the fast local subset (-m "not slow") starts no server; CI runs both
@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.slow)])
def backend_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh ledger store URL: a SQLite file, then a database on a real PostgreSQL server."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'ledger.db'}"
    return str(request.getfixturevalue("postgres_url"))
