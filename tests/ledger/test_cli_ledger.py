"""``dpcompose ledger ...`` on a local SQLite file (no server) and through a running service.

Exit codes: 0 success, 2 bad input or a refused charge (the message says which), and the
JSON output equals the Python API's records.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from dpcompose.cli import app
from dpcompose.ledger import Ledger

runner = CliRunner()


def run(*args: str, env: dict | None = None):
    return runner.invoke(app, ["ledger", *args], env=env)


@pytest.fixture
def db(tmp_path: Path) -> str:
    path = str(tmp_path / "cli.db")
    r = run("init", "--db", path)
    assert r.exit_code == 0, r.output
    return path


def _create(db: str, *extra: str):
    return run("budget", "create", "census", "--currency", "pure", "--epsilon", "1", "--database", "north",
               "--database", "south", "--db", db, *extra)


def test_init_creates_a_private_file(tmp_path):
    path = tmp_path / "new.db"
    old = os.umask(0)  # even with a permissive umask
    try:
        r = run("init", "--db", str(path))
    finally:
        os.umask(old)
    assert r.exit_code == 0, r.output
    assert stat.S_IMODE(path.stat().st_mode) & 0o077 == 0


def test_budget_charge_status_history_on_a_local_file(db):
    r = _create(db, "--max-databases", "1")
    assert r.exit_code == 0, r.output
    assert "census" in r.output
    for where in ("north", "south"):
        r = run("charge", "census", "--database", where, "--mechanism", "pure(0.6)", "--db", db)
        assert r.exit_code == 0 and "admitted" in r.output, r.output
    r = run("charge", "census", "--database", "north", "--mechanism", "pure(0.6)", "--db", db)
    assert r.exit_code == 2 and "refused" in r.output, r.output
    r = run("status", "census", "--db", db, "--json")
    assert r.exit_code == 0
    got = json.loads(r.output)
    expected = Ledger(db).status("census").to_dict()
    for k in ("spent", "limits", "per_database", "charge_count", "remaining", "worst_case"):
        assert got[k] == expected[k], k
    assert got["charge_count"] == 2
    text = run("status", "census", "--db", db)
    assert text.exit_code == 0 and "remaining" in text.output and "north" in text.output
    h = run("history", "census", "--db", db, "--json")
    assert [c["database"] for c in json.loads(h.output)["charges"]] == ["north", "south"]
    assert "#1" in run("history", "census", "--db", db).output
    lst = run("budget", "list", "--db", db)
    assert lst.exit_code == 0 and "census" in lst.output


def test_charge_idempotency_key_from_the_cli(db):
    _create(db)
    args = ("charge", "census", "--database", "north", "--mechanism", "laplace(scale=20) x 5", "-k", "q1",
            "--db", db)
    first, again = run(*args), run(*args)
    assert first.exit_code == again.exit_code == 0
    assert "replayed" in again.output
    assert Ledger(db).status("census").charge_count == 1


@pytest.mark.parametrize("args, needle", [
    (("charge", "census", "--database", "east", "--mechanism", "pure(0.1)"), "database"),
    (("charge", "census", "--database", "north", "--mechanism", "gaussian(sigma=1)"), "mechanism"),
    (("charge", "nope", "--database", "north", "--mechanism", "pure(0.1)"), "nope"),
    (("status", "nope"), "nope"),
])
def test_bad_input_exits_2_naming_the_field(db, args, needle):
    _create(db)
    r = run(*args, "--db", db)
    assert r.exit_code == 2, r.output
    assert needle in r.output
    assert Ledger(db).status("census").charge_count == 0


def test_bad_budget_exits_2_and_stores_nothing(db):
    r = run("budget", "create", "x", "--currency", "bitcoin", "--epsilon", "1", "--database", "a", "--db", db)
    assert r.exit_code == 2 and "currency" in r.output
    r = run("budget", "create", "x", "--currency", "pure", "--epsilon", "nan", "--database", "a", "--db", db)
    assert r.exit_code == 2 and "epsilon" in r.output
    assert Ledger(db).budgets() == []


def test_token_create_prints_a_working_token(db):
    _create(db)
    r = run("token", "create", "--budget", "census", "--db", db)
    assert r.exit_code == 0
    token = r.output.strip()
    scope = Ledger(db).authorize(token)
    assert not scope.admin and scope.budgets == ("census",)
    assert run("token", "create", "--db", db).exit_code == 2  # an analyst token needs a budget


def test_serve_refuses_to_start_without_an_admin_token(db):
    # in-process (the token is checked before anything starts); a subprocess cost seconds
    env = {k: None for k in os.environ if k.startswith("DPCOMPOSE_LEDGER_")}
    out = run("serve", "--db", db, "--port", "1", env=env)
    assert out.exit_code == 2
    assert "DPCOMPOSE_LEDGER_ADMIN_TOKEN" in out.output
    out = run("serve", "--db", db, "--port", "1", env={**env, "DPCOMPOSE_LEDGER_ADMIN_TOKEN": "short"})
    assert out.exit_code == 2 and "at least 16" in out.output
    assert "short" not in out.output  # the secret itself is never echoed


def test_cli_through_a_running_service(live_server, sqlite_url, admin_token):
    srv = live_server(sqlite_url)
    env = {"DPCOMPOSE_LEDGER_TOKEN": admin_token}
    r = run("budget", "create", "svc", "--currency", "zcdp", "--epsilon", "1", "--delta", "1e-6",
            "--database", "a", "--url", srv.url, env=env)
    assert r.exit_code == 0, r.output
    r = run("charge", "svc", "--database", "a", "--mechanism", "gaussian(sigma=10)", "--url", srv.url, env=env)
    assert r.exit_code == 0 and "admitted" in r.output, r.output
    r = run("status", "svc", "--url", srv.url, "--json", env=env)
    assert json.loads(r.output)["charge_count"] == 1
    r = run("status", "svc", "--url", srv.url, env={"DPCOMPOSE_LEDGER_TOKEN": "not-a-token-123456789"})
    assert r.exit_code == 2 and "401" in r.output


def test_the_cli_does_not_load_the_store_until_a_ledger_command_runs():
    code = ("import sys, dpcompose.cli; "
            "print(sorted(m for m in ('sqlalchemy', 'fastapi', 'httpx', 'uvicorn') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "[]", out.stdout + out.stderr


def test_a_missing_file_is_named_not_created(tmp_path):
    path = tmp_path / "typo.db"
    r = run("status", "census", "--db", str(path))
    assert r.exit_code == 2 and "no ledger at" in r.output and "init" in r.output
    assert not path.exists()
