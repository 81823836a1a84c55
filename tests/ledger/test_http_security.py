"""Security, against a real server process: tokens, file modes, secrets in logs and storage.

- no token / a wrong token / a token of another budget are refused (401, 401, 403), over
  real HTTP, and a token in the query string is not accepted;
- the SQLite file (and its -wal / -shm files) is never group- or world-accessible, even
  when the server starts under a permissive umask;
- no secret (the admin token, an analyst token, a wrong token that was tried, also in a
  query string, the PostgreSQL password if any) appears in the server's log or, in plain
  text, in the store.
"""

from __future__ import annotations

import os
import secrets
import stat
from pathlib import Path

import httpx
import pytest


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """One server for the module (a start costs seconds); the last test stops it to read its log."""
    from conftest import Server

    path = tmp_path_factory.mktemp("secure") / "secure.db"
    admin_token = "adm-" + secrets.token_urlsafe(24)
    old = os.umask(0)  # the child inherits a permissive umask
    try:
        srv = Server(f"sqlite:///{path}", admin_token, path.parent / "server.log").start()
    finally:
        os.umask(old)
    try:
        with srv.client() as admin:
            admin.create_budget("a", currency="pure", epsilon=1.0, databases=["x"])
            admin.create_budget("b", currency="pure", epsilon=1.0, databases=["x"])
            token_a = admin.create_token(budgets=["a"])
        yield srv, path, token_a, admin_token
    finally:
        srv.stop()


def test_refusals_over_real_http(served):
    srv, _, token_a, admin_token = served
    charge = {"database": "x", "mechanism": "pure(0.1)"}
    with httpx.Client(base_url=srv.url, timeout=30) as h:
        assert h.post("/v1/budgets/a/charges", json=charge).status_code == 401
        assert h.post("/v1/budgets/a/charges", json=charge, headers=_bearer("x" * 40)).status_code == 401
        assert h.post("/v1/budgets/a/charges", json=charge, headers={"Authorization": admin_token}).status_code == 401
        assert h.post(f"/v1/budgets/a/charges?token={admin_token}", json=charge).status_code == 401
        assert h.post("/v1/budgets/b/charges", json=charge, headers=_bearer(token_a)).status_code == 403
        assert h.post("/v1/budgets", json={"name": "c", "currency": "pure", "epsilon": 1, "databases": ["x"]},
                      headers=_bearer(token_a)).status_code == 403
        assert h.post("/v1/budgets/a/charges", json=charge, headers=_bearer(token_a)).status_code == 201
        st = h.get("/v1/budgets/b", headers=_bearer(admin_token)).json()
    assert st["charge_count"] == 0


def test_store_files_are_private(served):
    srv, path, token_a, _ = served
    with srv.client(token_a) as c:
        c.charge("a", database="x", mechanism="pure(0.1)")  # the -wal file exists while serving
    files = [p for p in path.parent.iterdir() if p.name.startswith(path.name)]
    assert path in files
    for p in files:
        mode = stat.S_IMODE(p.stat().st_mode)
        assert mode & 0o077 == 0, f"{p.name} has mode {oct(mode)}"


def test_no_secret_in_logs_or_in_the_store(served):
    """Last in the module: it stops the shared server to read the whole log."""
    srv, path, token_a, admin_token = served
    wrong = "wrong-secret-" + "q" * 30
    with httpx.Client(base_url=srv.url, timeout=30) as h:
        h.get("/v1/budgets", headers=_bearer(wrong))
        h.get("/v1/budgets", headers=_bearer(token_a))
        h.get(f"/v1/budgets?token={token_a}&access_token={wrong}")  # a token wrongly put in the URL
        h.post("/login", data={"token": admin_token})
        h.post("/login", data={"token": wrong})
        h.post("/v1/budgets/a/charges", json={"database": "nope", "mechanism": "pure(0.1)"},
               headers=_bearer(token_a))
        h.post("/v1/tokens", json={"budgets": ["a"]}, headers=_bearer(admin_token))
    srv.stop()  # flush and close everything
    log = srv.log()
    assert "GET /v1/budgets" in log  # the access log is there ...
    assert "GET /v1/budgets?(query not logged)" in log  # review: query strings were logged whole
    for secret in (admin_token, token_a, wrong):
        assert secret not in log  # ... without any token
    blob = b"".join(p.read_bytes() for p in Path(path).parent.iterdir() if p.name.startswith(path.name))
    for secret in (admin_token, token_a):
        assert secret.encode() not in blob  # tokens are stored as hashes only
