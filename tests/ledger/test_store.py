"""Storage: atomic check-and-charge, idempotency, refunds, exact totals, tokens, schema.

Every test runs on SQLite and on a real PostgreSQL server (tests/ledger/pg.py; skipped
only where the server binaries are absent). Truth: exact fractions of the amounts
written, counts of stored rows, the raw database file.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import stat
import threading
from fractions import Fraction

import pytest

pytest.importorskip("sqlalchemy")

from sqlalchemy import event, func, select  # noqa: E402

from dpcompose.ledger import (  # noqa: E402
    ChargeRefused,
    Ledger,
    LedgerConflict,
    LedgerError,
    LedgerNotFound,
    Unauthorized,
)
from dpcompose.ledger.store import charges as charge_t  # noqa: E402

import pg  # noqa: E402  (tests/ledger/pg.py)


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.slow)])  # fast subset: no server
def url(request, tmp_path):
    if request.param == "sqlite":
        return str(tmp_path / "ledger.db")
    return pg.database_url()


@pytest.fixture
def led(url):
    ledger = Ledger(url)
    ledger.init()
    yield ledger
    ledger.close()


def _rows(led) -> int:
    with led.engine.connect() as conn:
        return conn.execute(select(func.count()).select_from(charge_t)).scalar_one()


def test_round_trip_and_history(led):
    s = led.create_budget("census", currency="pure", epsilon=1.0, delta=0.0, databases=["north", "south"],
                          membership={"max_databases": 1})
    assert s.limits == {"epsilon": "1"} and s.charge_count == 0
    r = led.charge("census", database="north", mechanism="laplace(scale=20) x 5", note="q1")
    assert r.admitted and r.remaining["currency"] == {"epsilon": "0.75"} and r.cost == {"epsilon": "0.25"}
    led.charge("census", database="south", mechanism="laplace(scale=10) x 5")
    st = led.status("census")
    assert st.per_database == {"north": {"epsilon": "0.25"}, "south": {"epsilon": "0.5"}}
    assert st.spent == {"epsilon": "0.5"} and st.worst_case["databases"] == ["south"]
    assert st.charge_count == 2 and st.remaining["epsilon"] == 0.5
    json.dumps(st.to_dict())
    h = led.history("census")
    assert [x.seq for x in h] == [1, 2] and h[0].note == "q1"
    assert h[0].mechanism == "laplace(scale=20, sensitivity=1) x 5"
    assert led.history("census", offset=1, limit=5)[0].database == "south"
    assert [b.name for b in led.budgets()] == ["census"]


def test_bad_input_names_the_field_and_stores_nothing(led):
    led.create_budget("b", currency="pure", epsilon=1.0, delta=0.0, databases=["d"])
    cases = [
        (lambda: led.charge("b", database="nope", mechanism="pure(0.1)"), LedgerNotFound, "database"),
        (lambda: led.charge("zz", database="d", mechanism="pure(0.1)"), LedgerNotFound, "budget"),
        (lambda: led.charge("b", database="d", mechanism="gaussian(sigma=1)"), LedgerError, "mechanism"),
        (lambda: led.charge("b", database="d", mechanism="laplace(scale=-1)"), LedgerError, "mechanism"),
        (lambda: led.charge("b", database="d", mechanism="lapalce(1)"), LedgerError, "mechanism"),
        (lambda: led.charge("b", database="d", mechanism="pure(0.1) x 0"), LedgerError, "mechanism"),
        (lambda: led.charge("b", database="d", mechanism=42), LedgerError, "mechanism"),
        (lambda: led.charge("b", database="d", mechanism="pure(0.1)", delta=float("nan")), LedgerError, "delta"),
        (lambda: led.charge("b", database="d", mechanism="pure(0.1)", idempotency_key=""), LedgerError,
         "idempotency_key"),
        (lambda: led.create_budget("c", currency="pure", epsilon=float("nan"), delta=0.0, databases=["d"]),
         LedgerError, "epsilon"),
        (lambda: led.create_budget("c", currency="pure", epsilon=-1.0, delta=0.0, databases=["d"]),
         LedgerError, "epsilon"),
        (lambda: led.create_budget("c", currency="bitcoin", epsilon=1.0, delta=0.0, databases=["d"]),
         LedgerError, "currency"),
        (lambda: led.create_budget("c", currency="pure", epsilon=1.0, delta=0.0, databases=[]),
         LedgerError, "databases"),
        (lambda: led.create_budget("c", currency="pure", epsilon=1.0, delta=0.0, databases=["d", "d"]),
         LedgerError, "databases"),
        (lambda: led.create_budget(" c", currency="pure", epsilon=1.0, delta=0.0, databases=["d"]),
         LedgerError, "name"),
        (lambda: led.create_budget("b", currency="pure", epsilon=1.0, delta=0.0, databases=["d"]),
         LedgerConflict, "name"),
    ]
    for call, exc, field in cases:
        with pytest.raises(exc) as err:
            call()
        assert err.value.field == field, err.value
    assert _rows(led) == 0
    assert [b.name for b in led.budgets()] == ["b"]
    assert led.status("b").per_database == {"d": {"epsilon": "0"}}


def test_refused_charge_stores_nothing_and_can_raise(led):
    led.create_budget("b", currency="pure", epsilon=1.0, delta=0.0, databases=["d"])
    r = led.charge("b", database="d", mechanism="pure(2)", idempotency_key="k")
    assert not r.admitted and r.charge_id is None and "limit 1" in r.reason
    with pytest.raises(ChargeRefused) as err:
        r.raise_if_refused()
    assert err.value.status == 409 and err.value.to_dict()["admitted"] is False
    assert _rows(led) == 0
    # the key was not consumed: a later, affordable request under it is charged
    assert led.charge("b", database="d", mechanism="pure(0.5)", idempotency_key="k").admitted


def test_idempotency_key_charges_once(led):
    led.create_budget("b", currency="pure", epsilon=1.0, delta=0.0, databases=["d", "e"])
    first = led.charge("b", database="d", mechanism="pure(0.25)", idempotency_key="req-1")
    again = led.charge("b", database="d", mechanism="pure(0.25)", idempotency_key="req-1")
    assert again.replayed and again.charge_id == first.charge_id and again.remaining == first.remaining
    assert led.status("b").spent == {"epsilon": "0.25"} and _rows(led) == 1
    with pytest.raises(LedgerError) as err:
        led.charge("b", database="e", mechanism="pure(0.25)", idempotency_key="req-1")
    assert err.value.field == "idempotency_key"
    # equal expressions written differently are the same request
    assert led.charge("b", database="d", mechanism="pure(epsilon=0.25)", idempotency_key="req-1").replayed


def test_refund_is_a_signed_entry(led):
    led.create_budget("b", currency="approx", epsilon=1.0, delta=1e-6, databases=["d"])
    c = led.charge("b", database="d", mechanism="gaussian(sigma=10) x 2", delta=1e-7)
    rf = led.refund("b", c.charge_id, reason="job failed before release")
    assert rf.kind == "refund" and {k: Fraction(v) for k, v in rf.cost.items()} == \
        {k: -Fraction(v) for k, v in c.cost.items()}
    st = led.status("b")
    assert st.spent == {"epsilon": "0", "delta": "0"} and st.refund_count == 1 and st.charge_count == 1
    h = led.history("b")
    assert h[0].refunded and h[1].kind == "refund" and h[1].refund_of == c.charge_id
    with pytest.raises(LedgerConflict):
        led.refund("b", c.charge_id, reason="again")
    with pytest.raises(LedgerConflict):
        led.refund("b", rf.charge_id, reason="refund of a refund")
    with pytest.raises(LedgerNotFound):
        led.refund("b", 999, reason="x")
    with pytest.raises(LedgerError) as err:
        led.refund("b", c.charge_id, reason=" ")
    assert err.value.field == "reason"


def test_a_refunded_charge_is_never_replayed_as_admitted(led):
    """A retry of a refunded charge's request (same key) must not answer "admitted": the
    refund attested that the mechanism never ran, and the budget was given back."""
    led.create_budget("b", currency="pure", epsilon=1.0, delta=0.0, databases=["d"])
    c = led.charge("b", database="d", mechanism="pure(0.5)", idempotency_key="job-7")
    led.refund("b", c.charge_id, reason="the job was cancelled before it ran")
    with pytest.raises(LedgerConflict) as err:
        led.charge("b", database="d", mechanism="pure(0.5)", idempotency_key="job-7")
    assert err.value.field == "idempotency_key" and "refunded" in err.value.message
    st = led.status("b", planned=False)
    assert st.spent == {"epsilon": "0"} and st.charge_count == 1 and _rows(led) == 2
    assert led.charge("b", database="d", mechanism="pure(0.5)", idempotency_key="job-7b").admitted


def test_totals_equal_the_sum_of_records_exactly(led):
    led.create_budget("b", currency="zcdp", epsilon=5.0, delta=1e-6, databases=["a", "b", "c"])
    sigmas = [3.0, 7.0, 11.0, 0.1, 13.0, 17.0, 5.5]
    for i, s in enumerate(sigmas * 3):
        r = led.charge("b", database="abc"[i % 3], mechanism=f"gaussian(sigma={s}) x {i % 4 + 1}")
        if i % 5 == 0 and r.admitted:
            led.refund("b", r.charge_id, reason="never ran")
    per = {d: Fraction(0) for d in "abc"}
    for h in led.history("b", limit=1000):
        per[h.database] += Fraction(h.cost["rho"])
    st = led.status("b")
    assert {d: Fraction(v["rho"]) for d, v in st.per_database.items()} == per
    assert Fraction(st.spent["rho"]) == sum(per.values()) <= Fraction(st.limits["rho"])


def _hammer(url: str, n: int, key_prefix: str, results: list, lock: threading.Lock) -> None:
    led = Ledger(url)
    try:
        for i in range(n):
            r = led.charge("b", database="d", mechanism="pure(0.01)", idempotency_key=f"{key_prefix}-{i % (n // 2)}")
            with lock:
                results.append(r)
    finally:
        led.close()


def test_concurrent_charges_never_overspend(led, url):
    """8 threads x 40 charges of 0.01 against a budget of 1, each key retried once:
    exactly 100 distinct charges are admitted, none twice, totals equal the records."""
    led.create_budget("b", currency="pure", epsilon=1.0, delta=0.0, databases=["d"])
    results: list = []
    lock = threading.Lock()
    threads = [threading.Thread(target=_hammer, args=(url, 40, f"t{t}", results, lock)) for t in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    admitted = {r.charge_id for r in results if r.admitted}
    assert len(admitted) == 100 and _rows(led) == 100
    st = led.status("b")
    assert Fraction(st.spent["epsilon"]) == 1 == sum(Fraction(h.cost["epsilon"]) for h in led.history("b", limit=1000))
    keys = [h.idempotency_key for h in led.history("b", limit=1000)]
    assert len(keys) == len(set(keys))


def _process_worker(url: str, n: int, tag: str) -> int:
    led = Ledger(url)
    ok = 0
    for i in range(n):
        ok += led.charge("b", database="d", mechanism="pure(0.02)", idempotency_key=f"{tag}-{i}").admitted
    led.close()
    return ok


def test_concurrent_processes_never_overspend(led, url):
    """Separate processes (separate connections and, for SQLite, file locks)."""
    led.create_budget("b", currency="pure", epsilon=1.0, delta=0.0, databases=["d"])
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(3) as pool:
        counts = pool.starmap(_process_worker, [(url, 25, f"p{i}") for i in range(3)])
    assert sum(counts) == 50 == _rows(led)
    assert led.status("b").spent == {"epsilon": "1"}


def test_same_key_from_many_threads_is_charged_once(led, url):
    led.create_budget("b", currency="pure", epsilon=1.0, delta=0.0, databases=["d"])
    out: list = []

    def go():
        lg = Ledger(url)
        out.append(lg.charge("b", database="d", mechanism="pure(0.1)", idempotency_key="same"))
        lg.close()

    ts = [threading.Thread(target=go) for _ in range(8)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert len({r.charge_id for r in out}) == 1 and sum(not r.replayed for r in out) == 1
    assert _rows(led) == 1 and led.status("b").spent == {"epsilon": "0.1"}


def test_check_cost_does_not_grow_with_history(led):
    """The statements a charge runs are the same after 5 and after 300 charges: the check
    reads the per-database totals (O(databases)), never the history."""
    led.create_budget("b", currency="pure", epsilon=1000.0, delta=0.0, databases=["d", "e"])
    seen: list[str] = []

    @event.listens_for(led.engine, "before_cursor_execute")
    def record(conn, cursor, statement, params, context, executemany):
        seen.append(" ".join(statement.split()))

    def statements_of_one_charge(key):
        seen.clear()
        assert led.charge("b", database="d", mechanism="pure(0.001)", idempotency_key=key).admitted
        return [s for s in seen if "charges" in s]

    for _ in range(5):
        led.charge("b", database="e", mechanism="pure(0.001)")
    early = statements_of_one_charge("early")
    for _ in range(300):
        led.charge("b", database="e", mechanism="pure(0.001)")
    late = statements_of_one_charge("late")
    assert early == late
    # the only reads of the history table look up one idempotency key (a unique index)
    reads = [s for s in late if s.startswith("SELECT")]
    assert all("idempotency_key" in s for s in reads)
    event.remove(led.engine, "before_cursor_execute", record)


def test_tokens_are_stored_only_as_hashes(led, url):
    led.create_budget("b", currency="pure", epsilon=1.0, delta=0.0, databases=["d"])
    admin = led.create_token(admin=True)
    analyst = led.create_token(admin=False, budgets=["b"])
    assert led.authorize(admin).admin and led.authorize(analyst).allows("b")
    assert not led.authorize(analyst).allows("other")
    for bad in ("", "dpl_nope", None, "x" * 1000):
        with pytest.raises(Unauthorized) as err:
            led.authorize(bad)
        assert "dpl_nope" not in str(err.value)
    with pytest.raises(LedgerNotFound):
        led.create_token(admin=False, budgets=["missing"])
    with pytest.raises(LedgerError):
        led.create_token(admin=False)
    led.revoke_token(led.authorize(analyst).token_id)
    with pytest.raises(Unauthorized):
        led.authorize(analyst)
    if "://" not in url:
        led.close()
        raw = b"".join(open(p, "rb").read() for p in (url, url + "-wal") if os.path.exists(p))
        assert admin.encode() not in raw and analyst.encode() not in raw


def test_sqlite_files_are_private(tmp_path):
    path = tmp_path / "sub" / "ledger.db"
    led = Ledger(path)
    led.init()
    led.create_budget("b", currency="pure", epsilon=1.0, delta=0.0, databases=["d"])
    led.charge("b", database="d", mechanism="pure(0.1)")
    for p in path.parent.iterdir():
        mode = stat.S_IMODE(p.stat().st_mode)
        assert mode & (stat.S_IWGRP | stat.S_IWOTH | stat.S_IRGRP | stat.S_IROTH) == 0, (p, oct(mode))
    led.close()
    # a world-writable file left by someone else is tightened before use
    other = tmp_path / "loose.db"
    other.touch()
    os.chmod(other, 0o666)
    Ledger(other).init()
    assert stat.S_IMODE(other.stat().st_mode) & (stat.S_IWGRP | stat.S_IWOTH) == 0


def test_uninitialised_store_says_how_to_fix(tmp_path):
    led = Ledger(tmp_path / "fresh.db")
    with pytest.raises(LedgerError) as err:
        led.create_budget("b", currency="pure", epsilon=1.0, delta=0.0, databases=["d"])
    assert err.value.field == "db" and "init" in err.value.message
    led.init()
    led.init()  # idempotent
    with led.engine.connect() as conn:
        assert conn.exec_driver_sql("SELECT version_num FROM alembic_version").scalar_one() == "0001"


def test_url_forms(tmp_path):
    assert Ledger(tmp_path / "a.db").url.startswith("sqlite:///")
    assert Ledger(f"sqlite:///{tmp_path}/b.db").url.startswith("sqlite:///")
    assert Ledger("postgresql://u@127.0.0.1:1/x").url.startswith("postgresql+psycopg://")
    with pytest.raises(LedgerError) as err:
        Ledger("mysql://u@h/x")
    assert err.value.field == "db"


def test_status_of_every_currency_is_json_ready(led):
    import dpcompose as dpc

    for cur, delta in [("pure", 0.0), ("approx", 1e-6), ("advanced", 1e-6), ("zcdp", 1e-6), ("gdp", 1e-6),
                       ("rdp", 1e-6)]:
        led.create_budget(cur, currency=cur, epsilon=2.0, delta=delta, databases=["x", "y"],
                          membership={"max_databases": 1})
        share = 1e-8 if cur in ("approx", "advanced") else None
        mech = "laplace(scale=50) x 2" if cur == "pure" else [(dpc.Gaussian(sigma=30.0), 2)]
        assert led.charge(cur, database="x", mechanism=mech, delta=share).admitted, cur
        st = led.status(cur, wait=True)
        json.dumps(st.to_dict(), allow_nan=False)
        assert 0 < st.spent_epsilon <= 2.0 and 0 <= st.remaining["epsilon"] <= 2.0 - st.spent_epsilon + 1e-12
        assert st.planned is not None and st.planned["epsilon"] is not None
        assert st.planned["epsilon"] <= st.spent_epsilon + 1e-9


def test_subsampling_must_match_the_neighbour_relation(led):
    """Poisson amplification is proven for add/remove (unbounded), sampling without
    replacement for substitution (bounded); the other pairing is refused, nothing stored."""
    led.create_budget("u", currency="pure", epsilon=1.0, delta=0.0, databases=["d"])
    led.create_budget("b", currency="pure", epsilon=1.0, delta=0.0, databases=["d"], neighbors="bounded")
    assert led.charge("u", database="d", mechanism="laplace(scale=2) @ poisson(0.1)").admitted
    assert led.charge("b", database="d", mechanism="laplace(scale=2) @ without_replacement(0.1)").admitted
    for budget, mech in [("u", "laplace(scale=2) @ without_replacement(0.1)"), ("b", "laplace(scale=2) @ poisson(0.1)")]:
        with pytest.raises(LedgerError) as err:
            led.charge(budget, database="d", mechanism=mech)
        assert err.value.field == "mechanism" and "neighbours" in err.value.message
    assert _rows(led) == 2


def test_a_bad_url_never_echoes_its_password():
    with pytest.raises(LedgerError) as err:
        Ledger("postgresql://user:s3cr3t@host:notaport/db")
    assert "s3cr3t" not in str(err.value) and err.value.field == "db"
    assert "s3cr3t" not in repr(Ledger("postgresql://user:s3cr3t@127.0.0.1:1/x"))
