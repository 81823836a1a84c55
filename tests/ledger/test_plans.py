"""Pre-registered plans (docs/ledger.md section 10): registration, charging against the plan, proofs.

Truth: :func:`dpcompose.hdp` called on mechanism objects built here (not through the
plan file), closed-form privacy profiles and exact enumeration of adaptive transcripts
in mpmath (tests/oracles/plans.py), counts written in the tests. SQLite and a real
PostgreSQL (tests/ledger/pg.py) for the store paths.
"""

from __future__ import annotations

import dataclasses
import json
import re
import threading
from decimal import Decimal
from fractions import Fraction

import mpmath as mp
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dpcompose as dpc
from dpcompose.ledger import Ledger, LedgerError
from dpcompose.ledger.plans import covers, register, unit_of
from oracles.plans import profile_mp, rr_product_delta_mp, transcript_delta_mp

import pg  # noqa: E402  (tests/ledger/pg.py)

DELTA = 1e-6

# north: 3 x pure(0.1) and 1 x rr(0.5); south: 2 x rr(0.4); a person is in at most one
PLAN = """
title = "two clinics"
[[databases]]
name = "north"
[[databases]]
name = "south"
[[invocations]]
mechanism = "pure(0.1)"
database = "north"
count = 3
[[invocations]]
mechanism = "rr(0.5)"
database = "north"
[[invocations]]
mechanism = "rr(0.4) x 2"
database = "south"
[membership]
max_databases = 1
"""


def _hdp_of_plan(delta=DELTA, membership=dpc.AtMost(1)):
    """The plan's hdp, from mechanism objects (independent of the plan parser and the ledger)."""
    items = [(dpc.PureDP(0.1), 3), (dpc.RandomizedResponse(0.5), 1), (dpc.RandomizedResponse(0.4), 2)]
    return dpc.hdp(items, databases=[0, 0, 1], membership=membership, neighbors="unbounded").epsilon(delta)


@pytest.fixture(scope="module", autouse=True)
def _mp_precision():
    """40 digits for the oracles here, and the global precision given back afterwards (other
    modules' oracles rely on the precision their module set; 30 digits left behind broke
    test_optimal.py's eps = 50 reference, where 1 - p cancels 22 digits)."""
    with mp.workdps(40):
        yield


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.slow)])  # fast subset: no server
def led(request, tmp_path):
    url = str(tmp_path / "ledger.db") if request.param == "sqlite" else pg.database_url()
    ledger = Ledger(url)
    ledger.init()
    yield ledger
    ledger.close()


@pytest.fixture
def local(tmp_path):
    ledger = Ledger(str(tmp_path / "ledger.db"))
    ledger.init()
    yield ledger
    ledger.close()


def _used(st_, db):
    return st_.plan_progress["databases"][db]["used"]


# ---------------------------------------------------------------------------
# registration and charging


def test_plan_registered_and_charges_admitted_until_used_up(led):
    st_ = led.create_budget("clinics", epsilon=1.0, delta=DELTA, plan=PLAN)
    assert st_.currency == "plan" and st_.databases == ["north", "south"] and st_.plan == PLAN
    assert st_.membership == {"max_databases": 1} and st_.neighbors == "unbounded"
    cert = st_.plan_progress["certified"]
    assert cert["epsilon"] == _hdp_of_plan() and cert["delta"] == DELTA
    assert st_.plan_progress["planned_total"] == 6 and st_.plan_progress["used_total"] == 0
    assert st_.spent_epsilon == cert["epsilon"] and st_.remaining["epsilon"] <= 1.0 - cert["epsilon"]
    # north: three planned pure(0.1) (one charge takes two), then the rr(0.5); pure(0.3) is covered by rr(0.5)
    assert led.charge("clinics", database="north", mechanism="pure(0.1) x 2").admitted
    r = led.charge("clinics", database="north", mechanism="pure(0.05)")  # less than planned: covered
    assert r.admitted and r.cost == {"pure(epsilon=0.1)": "1", "rr(epsilon=0.5)": "0", "rr(epsilon=0.4)": "0"}
    refused = led.charge("clinics", database="north", mechanism="pure(0.6)")
    assert not refused.admitted and "only the charges of its pre-registered plan" in refused.reason
    assert "nothing outside the plan is admitted" in refused.reason
    assert led.charge("clinics", database="north", mechanism="pure(0.3)").admitted  # takes the rr(0.5)
    assert not led.charge("clinics", database="north", mechanism="pure(0.01)").admitted  # all used
    # south: rr(0.4) x 2, in two charges; a third is refused
    assert led.charge("clinics", database="south", mechanism="rr(0.4)").admitted
    assert led.charge("clinics", database="south", mechanism="rr(0.2)", idempotency_key="k").admitted
    assert led.charge("clinics", database="south", mechanism="rr(0.2)", idempotency_key="k").replayed
    assert not led.charge("clinics", database="south", mechanism="rr(0.1)").admitted
    st_ = led.status("clinics", planned=False)
    assert _used(st_, "north") == {"pure(epsilon=0.1)": 3, "rr(epsilon=0.5)": 1}
    assert _used(st_, "south") == {"rr(epsilon=0.4)": 2}
    assert st_.plan_progress["used_total"] == 6 and st_.charge_count == 5
    assert st_.spent == {"pure(epsilon=0.1)": "3", "rr(epsilon=0.5)": "1", "rr(epsilon=0.4)": "2"}
    assert st_.per_database["south"] == {"pure(epsilon=0.1)": "0", "rr(epsilon=0.5)": "0", "rr(epsilon=0.4)": "2"}
    # a refund (the mechanism never ran) gives its planned invocations back, once
    first_south = [h for h in led.history("clinics") if h.database == "south"][0]
    led.refund("clinics", first_south.id, reason="the job failed before it ran")
    assert _used(led.status("clinics", planned=False), "south") == {"rr(epsilon=0.4)": 1}
    assert led.charge("clinics", database="south", mechanism="rr(0.4)").admitted
    assert not led.charge("clinics", database="south", mechanism="rr(0.4)").admitted
    json.dumps(led.status("clinics").to_dict())


def test_other_charges_are_refused_and_store_nothing(local):
    local.create_budget("c", epsilon=1.0, delta=DELTA, plan=PLAN)
    refused = [
        ("north", "gaussian(sigma=100)"),       # no Gaussian planned (a different kind)
        ("south", "pure(0.41)"),                # more than planned
        ("south", "approx(0.1, 1e-9)"),         # a delta the rr slots do not have
        ("north", "pure(0.1) x 5"),             # more invocations than planned (3 + the rr(0.5))
        ("north", "pure(0.1) @ poisson(0.5)"),  # a subsampled mechanism was not planned
        ("south", "pure(0.1) + pure(0.1) x 2"),  # three units, two planned: all or nothing
    ]
    for db, mech in refused:
        r = local.charge("c", database=db, mechanism=mech)
        assert not r.admitted and r.charge_id is None and "pre-registered plan" in r.reason, (db, mech)
    assert local.status("c", planned=False).charge_count == 0
    # a Laplace with sensitivity/scale = 0.01 is 0.01-DP: a planned pure(0.1) covers it
    assert local.charge("c", database="north", mechanism="laplace(scale=100)").admitted
    st_ = local.status("c", planned=False)
    assert st_.charge_count == 1 and st_.plan_progress["used_total"] == 1
    with pytest.raises(LedgerError) as err:
        local.charge("c", database="north", mechanism="pure(0.1)", delta=1e-9)
    assert err.value.field == "delta"
    with pytest.raises(LedgerError) as err:
        local.charge("c", database="west", mechanism="pure(0.1)")
    assert err.value.field == "database"


def test_plan_that_does_not_fit_is_refused_with_its_epsilon(local):
    truth = _hdp_of_plan()
    with pytest.raises(LedgerError) as err:
        local.create_budget("tight", epsilon=0.5, delta=DELTA, plan=PLAN)
    assert err.value.field == "plan" and err.value.status == 422
    shown = float(re.search(r"certified epsilon at delta = [^ ]+ is ([0-9.e+-]+)", err.value.message).group(1))
    assert shown == truth and shown > 0.5
    assert local.budgets() == []
    # the same plan fits a promise just above its certified epsilon
    assert local.create_budget("fits", epsilon=truth + 1e-9, delta=DELTA, plan=PLAN).currency == "plan"


def test_certified_epsilon_equals_hdp_and_bounds_the_exact_worst_case(local):
    """A Gaussian plan over three regions, a person in at most two (bounded: any two vectors)."""
    plan = """
[[databases]]
name = "region"
count = 3
[[invocations]]
mechanism = "gaussian(sigma=4) x 3"
database = "region"
[membership]
max_databases = 1
neighbors = "bounded"
"""
    st_ = local.create_budget("g", epsilon=3.0, delta=1e-5, plan=plan)
    assert st_.neighbors == "bounded" and st_.databases == ["region[0]", "region[1]", "region[2]"]
    got = st_.plan_progress["certified"]["epsilon"]
    items = [(dpc.Gaussian(sigma=4.0), 3)] * 3
    assert got == dpc.hdp(items, databases=[0, 1, 2], membership=dpc.AtMost(1), neighbors="bounded").epsilon(1e-5)
    # bounded, at most one database: two databases differ, 6 Gaussians of mu = 1/4: mu = sqrt(6)/4 in all
    mu = mp.sqrt(6) / 4
    exact = mp.findroot(lambda e: profile_mp("gaussian", mu, e) - mp.mpf("1e-5"), 1)
    assert exact <= got <= exact + 1e-3


def test_mapping_and_plan_errors_name_the_field_and_store_nothing(local):
    no_db = '[[invocations]]\nmechanism = "pure(0.1)"\n'
    hyp = PLAN.replace("[membership]\nmax_databases = 1\n", "") + (
        "[hypotheses]\np0 = { point = [0, 0] }\np1 = { point = [1, 0] }\n")
    caps = PLAN.replace("max_databases = 1", "max_per_group = { north = 1 }\nmax_databases = 1")
    cases = [
        (dict(plan=PLAN, databases=["north", "west"]), "databases"),
        (dict(plan=PLAN, membership={"max_databases": 2}), "membership"),
        (dict(plan=PLAN, neighbors="bounded", membership=None), None),  # the plan does not write neighbors
        (dict(plan=PLAN.replace("max_databases = 1", "max_databases = 1\nneighbors = \"unbounded\""),
              neighbors="bounded"), "neighbors"),
        (dict(plan=PLAN, currency="pure"), "currency"),
        (dict(plan=PLAN, orders=[2.0, 4.0]), "orders"),
        (dict(plan=no_db), "plan.invocations[0].database"),
        (dict(plan=hyp), "plan.hypotheses"),
        (dict(plan=caps), "plan.membership"),
        (dict(plan=PLAN.replace('"pure(0.1)"', '"pure(-1)"')), "plan.invocations[0].mechanism.epsilon"),
        (dict(plan="this is = not toml ["), "plan"),
        (dict(plan=PLAN.replace("count = 3", "count = 3\ncolour = 1")), "plan.invocations[0].colour"),
        (dict(plan=PLAN.replace('"rr(0.4) x 2"', '"rr(0.4) x 2 @ without_replacement(0.5)"')),
         "plan.invocations[2].mechanism"),
        (dict(plan=""), "plan"),
        (dict(plan=42), "plan"),
    ]
    for kw, field in cases:
        kw = {"epsilon": 5.0, "delta": DELTA, **kw}
        if field is None:  # accepted: the plan's constraint with the budget's relation
            assert local.create_budget("ok", **kw).neighbors == "bounded"
            continue
        with pytest.raises(LedgerError) as err:
            local.create_budget("x", **kw)
        assert err.value.field == field, (kw, err.value)
    assert [b.name for b in local.budgets()] == ["ok"]
    # currency 'plan' without a plan, and a plan read from a path
    with pytest.raises(LedgerError) as err:
        local.create_budget("y", currency="plan", epsilon=1.0, delta=DELTA, databases=["d"])
    assert err.value.field == "plan"


def test_plan_from_a_path_and_equal_budget_fields(local, tmp_path):
    path = tmp_path / "plan.toml"
    path.write_text(PLAN, encoding="utf-8")
    st_ = local.create_budget("p", currency="plan", epsilon=1.0, delta=DELTA, plan=path,
                              databases=["south", "north"], membership={"max_databases": 1}, neighbors="unbounded")
    assert st_.databases == ["south", "north"]  # the budget's order; the plan maps by name
    assert st_.plan_progress["certified"]["epsilon"] == _hdp_of_plan()
    assert local.charge("p", database="south", mechanism="rr(0.4)").admitted
    assert _used(local.status("p", planned=False), "south") == {"rr(epsilon=0.4)": 1}


def test_plan_charges_are_atomic_under_concurrency(led):
    plan = '[[databases]]\nname = "d"\n[[invocations]]\nmechanism = "pure(0.01) x 40"\ndatabase = "d"\n'
    led.create_budget("conc", epsilon=1.0, delta=0.0, plan=plan)
    results: list = []
    lock = threading.Lock()

    def work():
        for _ in range(15):
            r = led.charge("conc", database="d", mechanism="pure(0.01)")
            with lock:
                results.append(r.admitted)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert sum(results) == 40 and len(results) == 60
    st_ = led.status("conc", planned=False)
    assert st_.charge_count == 40 and _used(st_, "d") == {"pure(epsilon=0.01)": 40}


# ---------------------------------------------------------------------------
# coverage: a covered mechanism's worst-case profile never exceeds the planned one's


_KINDS = ["laplace", "gaussian", "pure", "rr", "exponential", "approx"]


def _mechanism(kind, a, b):
    return {"laplace": lambda: dpc.Laplace(scale=a, sensitivity=b), "gaussian": lambda: dpc.Gaussian(sigma=a, sensitivity=b),
            "pure": lambda: dpc.PureDP(a), "rr": lambda: dpc.RandomizedResponse(a),
            "exponential": lambda: dpc.Exponential(a), "approx": lambda: dpc.ApproxDP(a, b / 1e4)}[kind]()


def _profile(m, e):
    if isinstance(m, dpc.Laplace):
        return profile_mp("laplace", mp.mpf(repr(m.sensitivity)) / mp.mpf(repr(m.scale)), e)
    if isinstance(m, dpc.Gaussian):
        return profile_mp("gaussian", mp.mpf(repr(m.sensitivity)) / mp.mpf(repr(m.sigma)), e)
    return profile_mp("dp", mp.mpf(repr(m.epsilon)), e, mp.mpf(repr(getattr(m, "delta", 0.0))))


_num = st.sampled_from([0.05, 0.1, 0.2, 0.25, 0.5, 1.0, 2.0, 3.0])


@settings(max_examples=120)
@given(k1=st.sampled_from(_KINDS), a1=_num, b1=_num, k2=st.sampled_from(_KINDS), a2=_num, b2=_num)
def test_covered_mechanisms_have_smaller_profiles(k1, a1, b1, k2, a2, b2):
    """covers(planned, charged) implies the charged worst-case profile is pointwise below
    the planned one (closed forms in mpmath), so every f-DP bound of the planned mechanism
    holds for the charged one; and a mechanism always covers itself."""
    planned, charged = _mechanism(k1, a1, b1), _mechanism(k2, a2, b2)
    assert covers(unit_of(planned), unit_of(planned))
    if not covers(unit_of(planned), unit_of(charged)):
        return
    for e in (0, 0.01, 0.1, 0.3, 1, 2, 5):
        assert _profile(charged, e) <= _profile(planned, e) + mp.mpf("1e-25"), (planned, charged, e)


def test_coverage_kinds_come_from_the_rules():
    """No table of families in plans.py: a class accounted like PureDP (register_like) is of
    kind dp, covered by pure(eps) and covering what pure(eps) covers; removing its rules
    leaves it uncovered (only itself)."""
    from dpcompose.representations import RULES, register_like

    @dataclasses.dataclass(frozen=True, slots=True)
    class MyPure(dpc.PureDP):
        pass

    register_like(MyPure, dpc.PureDP)
    try:
        mine = unit_of(MyPure(0.1))
        assert mine is not None and mine.kind == "dp" and mine.params == (Fraction(1, 10), Fraction(0))
        assert covers(unit_of(dpc.PureDP(0.1)), mine) and covers(mine, unit_of(dpc.Laplace(scale=10.0)))
        assert not covers(mine, unit_of(dpc.PureDP(0.2)))
    finally:
        for rule in RULES.values():
            rule._impl.pop(MyPure, None)
    assert unit_of(MyPure(0.1)) is None  # no rules: nothing to compare (exact types, no inheritance)


def test_coverage_rules():
    u = unit_of
    L, G = dpc.Laplace, dpc.Gaussian
    assert covers(u(L(scale=20.0)), u(L(scale=30.0))) and not covers(u(L(scale=20.0)), u(L(scale=10.0)))
    assert covers(u(L(scale=20.0)), u(L(scale=40.0, sensitivity=2.0)))  # the same ratio
    assert not covers(u(L(scale=20.0)), u(L(scale=39.0, sensitivity=2.0)))
    assert covers(u(G(sigma=2.0)), u(G(sigma=3.0))) and not covers(u(G(sigma=2.0)), u(L(scale=100.0)))
    assert covers(u(dpc.PureDP(0.1)), u(L(scale=10.0))) and not covers(u(L(scale=10.0)), u(dpc.PureDP(0.1)))
    assert covers(u(dpc.ApproxDP(0.2, 1e-6)), u(dpc.PureDP(0.2))) and not covers(u(dpc.PureDP(0.2)), u(dpc.ApproxDP(0.1, 1e-9)))
    assert not covers(u(dpc.PureDP(1.0)), u(G(sigma=100.0)))
    # exact decimals: 0.1 + 0.2 written as 0.30000000000000004 is more than 0.3
    assert not covers(u(dpc.PureDP(0.3)), u(dpc.PureDP(0.1 + 0.2)))
    sub = lambda m, q, s="poisson": dpc.Subsampled(m, q, s)  # noqa: E731
    assert covers(u(sub(G(sigma=2.0), 0.01)), u(sub(G(sigma=3.0), 0.01)))
    assert not covers(u(sub(G(sigma=2.0), 0.01)), u(sub(G(sigma=3.0), 0.005)))  # rates must be equal
    assert not covers(u(sub(G(sigma=2.0), 0.01)), u(G(sigma=30.0)))
    assert not covers(u(sub(dpc.PureDP(1.0), 0.1)), u(sub(L(scale=10.0), 0.1)))  # sampled: same kind only
    assert u(dpc.PureDP(float("inf"))) is None


# ---------------------------------------------------------------------------
# the theorem, by brute force: adaptive analysts on a tiny plan


TINY = """
[[databases]]
name = "a"
[[databases]]
name = "b"
[[invocations]]
mechanism = "rr(1) + pure(0.5)"
database = "a"
[[invocations]]
mechanism = "rr(0.8) x 2"
database = "b"
[membership]
max_databases = 1
"""
_MENU = [("a", "rr(1)"), ("a", "pure(0.5)"), ("a", "pure(0.3)"), ("a", "rr(0.7)"), ("a", "rr(1.2)"),
         ("b", "rr(0.8)"), ("b", "pure(0.2)"), ("b", "rr(0.9)")]


@settings(max_examples=30)
@given(data=st.data())
def test_every_adaptive_analyst_stays_within_the_plan(data):
    """Theorem 9 by exact enumeration: an analyst who picks each next charge from a menu
    after seeing every earlier output (refusals included), for up to 4 steps, and runs
    each admitted charge as randomized response (the worst eps-DP mechanism), gets a
    transcript whose hockey-stick divergence, for every person (b = (1, 0) or (0, 1)
    against (0, 0)), is at most that of the plan run in full on the person's database
    (a product of randomized responses), which the certificate bounds."""
    from dpcompose.ledger.core import parse_mechanism

    reg = register(TINY, currency=None, epsilon=5.0, delta=DELTA, databases=None, membership=None,
                   neighbors=None, orders=None)
    book = reg.book
    menu = [(book.databases.index(db), parse_mechanism(mech)[0]) for db, mech in _MENU]
    choices: dict[tuple, int] = {}

    def choose(h):  # the analyst's next charge as a function of every earlier outcome (-1: stop)
        if h not in choices:
            choices[h] = data.draw(st.integers(min_value=-1, max_value=len(menu) - 1))
        return choices[h]

    def step(h):
        used = [[Decimal(0)] * len(book.slots) for _ in book.databases]
        for i, outcome in enumerate(h):  # replay the ledger's assignments along the history
            p, groups = menu[choose(h[:i])]
            cost, _ = book.assign(p, groups, used[p])
            assert (cost is None) == (outcome == "refused")
            if cost is not None:
                used[p] = [x + y for x, y in zip(used[p], cost)]
        c = choose(h)
        if c < 0:
            return None
        p, groups = menu[c]
        cost, _ = book.assign(p, groups, used[p])
        return ("refused",) if cost is None else ("run", p, repr(groups[0][0].epsilon))

    cert = dpc.hdp([(dpc.RandomizedResponse(1.0), 1), (dpc.PureDP(0.5), 1), (dpc.RandomizedResponse(0.8), 2)],
                   databases=[0, 0, 1], membership=dpc.AtMost(1))
    full = {(1, 0): [1, 0.5], (0, 1): [0.8, 0.8]}
    for person, epsilons in full.items():
        for e in (0, 0.2, 0.5, 1.0, 1.5):
            got = transcript_delta_mp(step, (0, 0), person, 4, e)
            plan_truth = rr_product_delta_mp(epsilons, e)
            assert got <= plan_truth + mp.mpf("1e-20"), (person, e, got, plan_truth, choices)
            assert plan_truth <= cert.delta(e) + 1e-12


def test_registering_the_same_plan_twice_needs_a_new_name(local):
    local.create_budget("once", epsilon=1.0, delta=DELTA, plan=PLAN)
    from dpcompose.ledger import LedgerConflict

    with pytest.raises(LedgerConflict):
        local.create_budget("once", epsilon=1.0, delta=DELTA, plan=PLAN)


def test_costs_are_whole_counts_and_totals_match_the_records(local):
    local.create_budget("c", epsilon=1.0, delta=DELTA, plan=PLAN)
    for db, mech in [("north", "pure(0.1) x 2"), ("north", "rr(0.5)"), ("south", "rr(0.3) x 2")]:
        assert local.charge("c", database=db, mechanism=mech).admitted
    st_ = local.status("c", planned=False)
    hist = local.history("c")
    for db in st_.databases:
        for comp in st_.components:
            total = sum(Fraction(h.cost[comp]) for h in hist if h.database == db)
            assert Fraction(st_.per_database[db][comp]) == total and total.denominator == 1


# ---------------------------------------------------------------------------
# the interfaces: HTTP, dashboard, CLI (local file and through a service), client


def test_http_plan_budget(app_client):
    c = app_client
    ok = c.post("/v1/budgets", json={"name": "p", "epsilon": 1.0, "delta": DELTA, "plan": PLAN}, headers=c.admin)
    assert ok.status_code == 201, ok.text
    body = ok.json()
    assert body["currency"] == "plan" and body["databases"] == ["north", "south"]
    assert body["plan_progress"]["certified"]["epsilon"] == _hdp_of_plan()
    bad = c.post("/v1/budgets", json={"name": "q", "epsilon": 0.5, "delta": DELTA, "plan": PLAN}, headers=c.admin)
    assert bad.status_code == 422 and bad.json()["field"] == "plan"
    assert repr(_hdp_of_plan()) in bad.json()["message"]
    for extra, field in [({"databases": ["north"]}, "databases"), ({"currency": "zcdp"}, "currency"),
                         ({"plan": PLAN.replace('database = "south"\n', "")}, "plan.invocations[2].database")]:
        r = c.post("/v1/budgets", json={"name": "q", "epsilon": 1.0, "delta": DELTA, "plan": PLAN, **extra},
                   headers=c.admin)
        assert r.status_code == 422 and r.json()["field"] == field, r.text
    no_currency = c.post("/v1/budgets", json={"name": "q", "epsilon": 1.0, "databases": ["d"]}, headers=c.admin)
    assert no_currency.status_code == 422 and no_currency.json()["field"] == "currency"
    assert [b["name"] for b in c.get("/v1/budgets", headers=c.admin).json()["budgets"]] == ["p"]
    token = c.post("/v1/tokens", json={"budgets": ["p"]}, headers=c.admin).json()["token"]
    analyst = {"Authorization": f"Bearer {token}"}
    r = c.post("/v1/budgets/p/charges", json={"database": "south", "mechanism": "rr(0.4) x 2"}, headers=analyst)
    assert r.status_code == 201 and r.json()["cost"]["rr(epsilon=0.4)"] == "2"
    r = c.post("/v1/budgets/p/charges", json={"database": "south", "mechanism": "rr(0.4)"}, headers=analyst)
    assert r.status_code == 409 and "pre-registered plan" in r.json()["reason"]
    st_ = c.get("/v1/budgets/p?planned=false", headers=analyst).json()
    assert st_["plan_progress"]["databases"]["south"]["used"] == {"rr(epsilon=0.4)": 2}


def test_dashboard_plan_budget(app_client, admin_token):
    c = app_client
    assert c.post("/login", data={"token": admin_token}, follow_redirects=False).status_code == 303
    csrf = re.search(r'name="csrf" value="([0-9a-f]+)"', c.get("/").text).group(1)
    form = {"csrf": csrf, "name": "p", "currency": "plan", "epsilon": "1", "delta": "1e-6", "databases": "",
            "max_databases": "", "neighbors": "unbounded", "orders": "", "plan": PLAN}
    r = c.post("/budgets", data=form, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/budgets/p", r.text
    bad = c.post("/budgets", data={**form, "name": "q", "epsilon": "0.5"})
    assert bad.status_code == 422 and "does not fit" in bad.text
    page = c.get("/budgets/p").text
    assert 'id="plan-progress"' in page and 'id="plan-used">0 of 6<' in page
    shown = float(re.search(r'id="plan-epsilon">([^<]+)<', page).group(1))
    assert shown >= _hdp_of_plan()  # rounded up for display
    key = re.search(r'name="idempotency_key" value="([^"]+)"', page).group(1)
    r = c.post("/budgets/p/charges", data={"csrf": csrf, "database": "north", "mechanism": "pure(0.1)",
                                           "idempotency_key": key})
    assert r.status_code == 201 and 'id="plan-used">1 of 6<' in r.text
    r = c.post("/budgets/p/charges", data={"csrf": csrf, "database": "north", "mechanism": "gaussian(sigma=9)",
                                           "idempotency_key": "other"})
    assert r.status_code == 409 and "pre-registered plan" in r.text


def test_cli_plan_budget_on_a_local_file(tmp_path):
    from typer.testing import CliRunner

    from dpcompose.cli import app

    runner = CliRunner()
    db, plan = str(tmp_path / "cli.db"), tmp_path / "plan.toml"
    plan.write_text(PLAN, encoding="utf-8")
    run = lambda *a: runner.invoke(app, ["ledger", *a, "--db", db])  # noqa: E731
    r = run("budget", "create", "p", "--epsilon", "1", "--delta", "1e-6", "--plan", str(plan))
    assert r.exit_code == 0 and "pre-registered plan" in r.output and "6 planned" in r.output, r.output
    r = run("budget", "create", "q", "--epsilon", "0.5", "--delta", "1e-6", "--plan", str(plan))
    assert r.exit_code == 2 and "does not fit" in r.output, r.output
    r = run("budget", "create", "q", "--epsilon", "1", "--plan", str(tmp_path / "missing.toml"))
    assert r.exit_code == 2 and "plan" in r.output
    assert run("charge", "p", "--database", "south", "--mechanism", "rr(0.4)").exit_code == 0
    r = run("charge", "p", "--database", "south", "--mechanism", "rr(0.5)")
    assert r.exit_code == 2 and "pre-registered plan" in r.output
    out = run("status", "p").output
    assert "pre-registered plan" in out and "south: rr(epsilon=0.4): 1 of 2" in out, out
    assert json.loads(run("status", "p", "--json").output)["plan_progress"]["used_total"] == 1


def test_client_and_cli_through_a_service(live_server, tmp_path):
    from typer.testing import CliRunner

    from dpcompose.cli import app

    srv = live_server(f"sqlite:///{tmp_path / 'served.db'}")
    plan = tmp_path / "plan.toml"
    plan.write_text(PLAN, encoding="utf-8")
    with srv.client() as admin:
        st_ = admin.create_budget("p", epsilon=1.0, delta=DELTA, plan=plan)  # a Path: read and sent as text
        assert st_.currency == "plan" and st_.plan_progress["certified"]["epsilon"] == _hdp_of_plan()
        assert admin.charge("p", database="north", mechanism="pure(0.1)").admitted
        token = admin.create_token(budgets=["p"])
    env = {"DPCOMPOSE_LEDGER_URL": srv.url, "DPCOMPOSE_LEDGER_TOKEN": token}
    r = CliRunner().invoke(app, ["ledger", "charge", "p", "--database", "north", "--mechanism", "pure(0.7)"], env=env)
    assert r.exit_code == 2 and "pre-registered plan" in r.output
    r = CliRunner().invoke(app, ["ledger", "charge", "p", "--database", "north", "--mechanism", "rr(0.5)"], env=env)
    assert r.exit_code == 0, r.output
    with srv.client(token) as analyst:
        assert analyst.status("p", planned=False).plan_progress["databases"]["north"]["used"] == \
            {"pure(epsilon=0.1)": 1, "rr(epsilon=0.5)": 1}
