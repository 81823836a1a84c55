"""The ledger's currencies (filters): costs rounded up, limits rounded down, against mpmath.

Independent truth: closed forms in mpmath (tests/oracles/filters.py), exact fractions.
One-sided asserts: a cost is never below the exact value, a limit never above the
largest valid one; tightness within a stated tolerance.
"""

from __future__ import annotations

import itertools
import math
from decimal import Decimal
from fractions import Fraction

import mpmath as mp
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

pytest.importorskip("sqlalchemy")

import dpcompose as dpc  # noqa: E402
from dpcompose.ledger import Ledger, LedgerError  # noqa: E402
from dpcompose.ledger.currencies import (  # noqa: E402
    DEFAULT_ORDERS,
    create_currency,
    gdp_mu_of_pure,
)
from dpcompose.methods.rdp import DEFAULT_ORDERS as DENSE_ORDERS  # noqa: E402
from oracles import gaussian_delta_mp  # noqa: E402
from oracles.filters import (  # noqa: E402
    bs_epsilon_mp,
    cks_offset_mp,
    gaussian_tradeoff_mp,
    gdp_mu_of_pure_mp,
    laplace_rdp_mp,
    rdp_epsilon_mp,
    rr_rdp_mp,
    zcdp_epsilon_mp,
)


@pytest.fixture(autouse=True, scope="module")
def _mp_precision():
    """50 digits for this module's mpmath oracles, given back afterwards (never set globally:
    a global setting leaks into other modules' references)."""
    with mp.workdps(50):
        yield


EPS = st.floats(min_value=1e-3, max_value=20.0)
DELTA = st.floats(min_value=1e-12, max_value=0.1)


def F(x) -> Fraction:
    return Fraction(str(x)) if isinstance(x, (str, Decimal)) else Fraction(x)


_names = itertools.count()


@pytest.fixture(scope="module")
def shared(tmp_path_factory):
    """One ledger for the property tests; each example uses fresh budgets."""
    ledger = Ledger(tmp_path_factory.mktemp("shared") / "l.db")
    ledger.init()
    yield ledger
    ledger.close()


@pytest.fixture
def led(tmp_path):
    ledger = Ledger(tmp_path / "filters.db")
    ledger.init()
    yield ledger
    ledger.close()


# ---------------------------------------------------------------------------
# costs


def test_pure_charges_add_exactly_as_written(led):
    """Ten charges of pure(0.1) fit a budget of 1 exactly; the eleventh is refused."""
    led.create_budget("b", currency="pure", epsilon=1.0, delta=0.0, databases=["d"])
    for _ in range(10):
        assert led.charge("b", database="d", mechanism="pure(0.1)").admitted
    r = led.charge("b", database="d", mechanism="pure(0.1)")
    assert not r.admitted and "pure" in r.reason
    assert led.status("b").spent == {"epsilon": "1"}


@given(eps=st.floats(min_value=1e-3, max_value=1e4), delta=st.floats(min_value=1e-12, max_value=0.5))
def test_exact_limits_are_the_numbers_written(eps, delta):
    """A promise of epsilon = 0.1 admits one pure(0.1): the pure and approx limits (and the
    advanced delta'' = delta / 2, the rdp limits' epsilon) are the decimals written, also
    where the double is above the decimal (0.1 is 0.1000000000000000055...). Review fix:
    they were the decimals of the largest double below, 0.09999999999999999, so a promise
    of 0.1 refused pure(0.1)."""
    assert create_currency("pure", eps, 0.0).limits == (Decimal(repr(eps)),)
    assert create_currency("approx", eps, delta).limits == (Decimal(repr(eps)), Decimal(repr(delta)))
    assert F(create_currency("advanced", eps, delta).limits[1]) == F(repr(delta)) / 2


@pytest.mark.parametrize("currency", ["pure", "approx", "advanced", "zcdp", "gdp", "rdp"])
def test_extreme_costs_are_answered_exactly_not_crashed(led, currency):
    """Review: a subnormal cost (a float's exact value has ~750 digits) made the remaining
    figure's exact subtraction trap (an error 500, nothing stored), and a cost above ~1e650
    could make sums inexact. Now the remaining figure rounds the spent epsilon up to 20
    digits first, and cost components are stored as at most 1e60 (above every limit:
    the same admissions), so both are answered: the tiny one admitted, the huge one refused."""
    delta = 0.0 if currency == "pure" else 1e-6
    led.create_budget("x", currency=currency, epsilon=1.0, delta=delta, databases=["d"])
    tiny = led.charge("x", database="d", mechanism="pure(1e-320)")
    assert tiny.admitted and 0.9 < tiny.remaining["epsilon"] <= 1.0
    try:
        huge = led.charge("x", database="d", mechanism="laplace(scale=5e-324, sensitivity=1e300) x 1000000000000")
    except LedgerError as err:  # gdp, rdp: no finite description at all, a clear 422
        assert err.field == "mechanism" and currency in ("gdp", "rdp")
    else:
        assert not huge.admitted and huge.charge_id is None
        assert all(F(v) <= F("1e60") for v in huge.cost.values())
    st_ = led.status("x", planned=False)
    assert st_.charge_count == 1 and 0.9 < st_.remaining["epsilon"] <= 1.0


@pytest.mark.parametrize("eps", [0.1, 0.2, 1.1, 0.3, 0.7])
def test_a_promise_admits_exactly_its_written_epsilon(led, eps):
    led.create_budget(f"b{eps}", currency="pure", epsilon=eps, delta=0.0, databases=["d"])
    assert led.charge(f"b{eps}", database="d", mechanism=f"pure({eps!r})").admitted
    assert not led.charge(f"b{eps}", database="d", mechanism="pure(1e-12)").admitted


@given(scale=st.floats(min_value=1e-3, max_value=1e6), sens=st.floats(min_value=1e-3, max_value=1e3),
       k=st.integers(min_value=1, max_value=10**6))
def test_laplace_cost_is_rounded_up_from_the_exact_ratio(scale, sens, k):
    cur = create_currency("pure", 1e4, 0.0)
    (cost,) = cur.cost(((dpc.Laplace(scale=scale, sensitivity=sens), k),), None)
    exact = k * F(repr(sens)) / F(repr(scale))
    assert exact <= F(cost) <= exact * (1 + Fraction(1, 10**18))


@given(sigma=st.floats(min_value=1e-2, max_value=1e4), k=st.integers(min_value=1, max_value=10**6))
def test_gaussian_rho_and_mu_squared_are_rounded_up(sigma, k):
    g = dpc.Gaussian(sigma=sigma)
    (rho,) = create_currency("zcdp", 1.0, 1e-6).cost(((g, k),), None)
    (mu2,) = create_currency("gdp", 1.0, 1e-6).cost(((g, k),), None)
    s = F(repr(sigma))
    assert k / (2 * s * s) <= F(rho) <= k / (2 * s * s) * (1 + Fraction(1, 10**18))
    assert k / (s * s) <= F(mu2) <= k / (s * s) * (1 + Fraction(1, 10**18))


@given(eps=st.floats(min_value=1e-6, max_value=40.0))
def test_gdp_of_pure_dp_is_the_tradeoff_kink_and_never_below(eps):
    """mu(eps) = 2 Phi^-1(e^eps/(1+e^eps)): G_mu lies below the eps-DP curve at the kink,
    and the value is within 2e-9 (relative) of the mpmath closed form, never below it."""
    mu = gdp_mu_of_pure(Decimal(repr(eps)))
    truth = gdp_mu_of_pure_mp(repr(eps))
    assert truth <= mu <= truth * (1 + mp.mpf("2e-9"))
    kink = 1 / (1 + mp.exp(mp.mpf(repr(eps))))
    assert gaussian_tradeoff_mp(mu, kink) <= kink


def test_gdp_of_pure_dp_is_tight_at_the_kink():
    """A slightly smaller mu crosses the eps-DP trade-off curve: the conversion is the best one."""
    for eps in (0.1, 1.0, 5.0):
        mu = gdp_mu_of_pure_mp(eps) * (1 - mp.mpf("1e-6"))
        kink = 1 / (1 + mp.exp(eps))
        assert gaussian_tradeoff_mp(mu, kink) > kink


def test_zcdp_of_pure_dp_is_eps_squared_over_two():
    """Bun and Steinke 2016, Prop. 1.4: eps-DP implies (eps^2/2)-zCDP."""
    (rho,) = create_currency("zcdp", 1.0, 1e-6).cost(((dpc.Laplace(scale=4.0), 3),), None)
    assert F(rho) == 3 * Fraction(1, 4) ** 2 / 2


@given(rho=st.floats(min_value=1e-9, max_value=1e3), k=st.integers(min_value=1, max_value=10**6))
def test_a_zcdp_mechanism_costs_its_rho_as_written(rho, k):
    """A rho-zCDP mechanism costs rho (the rule zcdp_rho; rho adds up under composition,
    Bun and Steinke 2016), the decimal written, exactly."""
    (cost,) = create_currency("zcdp", 1.0, 1e-6).cost(((dpc.ZCDP(rho), k),), None)
    assert F(cost) == k * F(repr(rho))


@pytest.mark.parametrize("currency", ["pure", "zcdp", "gdp"])
def test_families_without_exact_rules_are_refused(currency):
    """A group's (or tree aggregation's) equivalent mechanism has computed parameters, not
    the parameters as written: the exact rules are not delegated, so these currencies refuse."""
    cur = create_currency(currency, 1.0, 0.0 if currency == "pure" else 1e-6)
    for m in (dpc.Group(dpc.Laplace(1.0), 2), dpc.TreeAggregation(4.0, 100)):
        with pytest.raises(LedgerError) as err:
            cur.cost(((m, 1),), None)
        assert err.value.field == "mechanism"


def test_rdp_costs_are_the_curve_rounded_up():
    """A Gaussian's Renyi curve is alpha mu^2 / 2 (Mironov 2017, Table II)."""
    cur = create_currency("rdp", 1.0, 1e-6)
    cost = cur.cost(((dpc.Gaussian(sigma=3.0), 7),), None)
    for a, c in zip(DEFAULT_ORDERS, cost):
        truth = mp.mpf(a) * 7 / (2 * 9)
        assert truth <= mp.mpf(str(c)) <= truth * (1 + mp.mpf("1e-12"))


@settings(max_examples=25)
@given(share=st.floats(min_value=1e-10, max_value=1e-3))
def test_approx_cost_with_a_delta_share_is_a_certified_epsilon(share):
    """A Gaussian charged at a delta share costs (eps_i, share) with the exact Gaussian
    profile (Balle and Wang 2018, Thm 8) at eps_i below share."""
    sigma = 5.0
    cur = create_currency("approx", 10.0, 0.5)
    e_i, d_i = cur.cost(((dpc.Gaussian(sigma=sigma), 1),), share)
    assert F(d_i) >= F(repr(share))
    assert gaussian_delta_mp(1 / mp.mpf(sigma), mp.mpf(str(e_i))) <= mp.mpf(repr(share))


# ---------------------------------------------------------------------------
# limits


@given(eps=EPS, delta=DELTA)
def test_zcdp_limit_converts_within_the_promise(eps, delta):
    """The stored rho converts to at most eps (CKS over the dense grid, or Bun-Steinke's
    closed form), and 1e-6 more would not (nearly the largest valid rho)."""
    (rho,) = create_currency("zcdp", eps, delta).limits

    def conv(r):
        return min(zcdp_epsilon_mp(r, delta, DENSE_ORDERS), bs_epsilon_mp(r, delta))

    assert conv(mp.mpf(str(rho))) <= eps
    assert conv(mp.mpf(str(rho)) * (1 + mp.mpf("1e-6"))) > eps


@given(eps=EPS, delta=DELTA)
def test_gdp_limit_is_the_exact_gaussian_profile(eps, delta):
    (mu2,) = create_currency("gdp", eps, delta).limits
    mu = mp.sqrt(mp.mpf(str(mu2)))
    assert gaussian_delta_mp(mu, eps) <= delta
    assert gaussian_delta_mp(mu * (1 + mp.mpf("1e-6")), eps) > delta


@given(eps=EPS, delta=DELTA)
def test_advanced_limit_is_the_filter_condition(eps, delta):
    """sqrt(2 log(1/delta') S) + S/2 <= eps at the stored S, delta' = delta/2; and tight."""
    cur = create_currency("advanced", eps, delta)
    s, d2 = (mp.mpf(str(x)) for x in cur.limits)
    big_l = mp.log(2 / mp.mpf(delta))
    assert mp.sqrt(2 * big_l * s) + s / 2 <= eps
    s2 = s * (1 + mp.mpf("1e-9"))
    assert mp.sqrt(2 * big_l * s2) + s2 / 2 > eps
    assert d2 <= mp.mpf(repr(delta)) / 2  # the delta as written (docs/ledger.md, "Arithmetic")


@given(eps=EPS, delta=DELTA)
def test_rdp_limits_split_delta_over_the_orders(eps, delta):
    n = len(DEFAULT_ORDERS)
    try:
        cur = create_currency("rdp", eps, delta)
    except LedgerError as err:  # refused only when no order can hold anything
        assert err.field == "epsilon"
        assert all(cks_offset_mp(a, mp.mpf(delta) / n) >= eps * (1 - 1e-9) for a in DEFAULT_ORDERS)
        return
    for a, lim in zip(DEFAULT_ORDERS, cur.limits):
        assert mp.mpf(str(lim)) + cks_offset_mp(a, mp.mpf(delta) / n) <= eps


def test_promises_out_of_range_are_refused_with_the_field():
    for kwargs, field in [
        (dict(currency="pure", epsilon=float("nan"), delta=0.0), "epsilon"),
        (dict(currency="pure", epsilon=-1.0, delta=0.0), "epsilon"),
        (dict(currency="pure", epsilon=0.0, delta=0.0), "epsilon"),
        (dict(currency="pure", epsilon=1.0, delta=1e-6), "delta"),
        (dict(currency="approx", epsilon=1.0, delta=1.0), "delta"),
        (dict(currency="zcdp", epsilon=1.0, delta=0.0), "delta"),
        (dict(currency="euro", epsilon=1.0, delta=0.0), "currency"),
        (dict(currency="rdp", epsilon=1.0, delta=1e-6, orders=[0.5]), "orders"),
        (dict(currency="pure", epsilon=1.0, delta=0.0, orders=[2.0]), "orders"),
        (dict(currency="pure", epsilon=True, delta=0.0), "epsilon"),
    ]:
        orders = kwargs.pop("orders", None)
        with pytest.raises(LedgerError) as err:
            create_currency(kwargs["currency"], kwargs["epsilon"], kwargs["delta"], orders)
        assert err.value.field == field, (kwargs, err.value)


# ---------------------------------------------------------------------------
# what a currency cannot express is refused, naming the currency and what would work


@pytest.mark.parametrize("currency, mechanism, field, hint", [
    ("pure", dpc.Gaussian(sigma=1.0), "mechanism", "zcdp"),
    ("pure", dpc.ApproxDP(0.1, 1e-7), "mechanism", "approx"),
    ("zcdp", dpc.ApproxDP(0.1, 1e-7), "mechanism", "rdp"),
    ("gdp", dpc.Subsampled(dpc.Gaussian(sigma=1.0), 0.01), "mechanism", "rdp"),
    ("approx", dpc.Gaussian(sigma=1.0), "delta", "delta share"),
    ("advanced", dpc.Gaussian(sigma=1.0), "delta", "delta share"),
    ("rdp", dpc.ApproxDP(0.1, 1e-7), "mechanism", "approx"),
    ("pure", dpc.PureDP(math.inf), "mechanism", "pure"),
    ("gdp", dpc.ZCDP(0.5), "mechanism", "rdp"),
    ("pure", dpc.ZCDP(0.5), "mechanism", "zcdp"),
])
def test_inexpressible_mechanisms_are_refused(currency, mechanism, field, hint):
    cur = create_currency(currency, 1.0, 0.0 if currency == "pure" else 1e-6)
    with pytest.raises(LedgerError) as err:
        cur.cost(((mechanism, 1),), None)
    assert err.value.field == field
    assert hint in err.value.message and (currency in err.value.message or field == "delta")


def test_a_delta_share_is_refused_where_the_currency_has_none():
    with pytest.raises(LedgerError) as err:
        create_currency("zcdp", 1.0, 1e-6).cost(((dpc.Gaussian(sigma=1.0), 1),), 1e-7)
    assert err.value.field == "delta"


# ---------------------------------------------------------------------------
# the admitted sequence always meets the promise (independent check of each rule)

MECHS = st.one_of(
    st.builds(dpc.Laplace, scale=st.floats(min_value=0.5, max_value=50.0)),
    st.builds(dpc.Gaussian, sigma=st.floats(min_value=0.5, max_value=50.0)),
    st.builds(dpc.PureDP, epsilon=st.floats(min_value=0.001, max_value=2.0)),
)
REQUESTS = st.lists(st.tuples(MECHS, st.integers(min_value=1, max_value=20)), min_size=1, max_size=25)


def _eps(m) -> mp.mpf:
    """The exact epsilon of a pure-DP mechanism from the numbers written."""
    if isinstance(m, dpc.Laplace):
        return mp.mpf(repr(m.sensitivity)) / mp.mpf(repr(m.scale))
    return mp.mpf(repr(m.epsilon))


def _admitted(led, budget, requests, **kw):
    out = []
    for m, k in requests:
        try:
            r = led.charge(budget, database="d", mechanism=[(m, k)], **kw)
        except LedgerError:
            continue
        if r.admitted:
            out.append((m, k))
    return out


@settings(max_examples=25)
@given(requests=REQUESTS)
def test_admitted_zcdp_and_gdp_sequences_meet_the_promise(shared, requests):
    led = shared
    eps, delta = 1.0, 1e-6
    z, g = f"z{next(_names)}", f"g{next(_names)}"
    led.create_budget(z, currency="zcdp", epsilon=eps, delta=delta, databases=["d"])
    led.create_budget(g, currency="gdp", epsilon=eps, delta=delta, databases=["d"])
    for name in (z, g):
        got = _admitted(led, name, requests)
        rho, mu2 = mp.mpf(0), mp.mpf(0)
        for m, k in got:
            if isinstance(m, dpc.Gaussian):
                rho += k / (2 * mp.mpf(repr(m.sigma)) ** 2)
                mu2 += k / mp.mpf(repr(m.sigma)) ** 2
            else:
                e = _eps(m)
                rho += k * e * e / 2
                mu2 += k * gdp_mu_of_pure_mp(e) ** 2
        if name == z:
            assert zcdp_epsilon_mp(rho, delta, DENSE_ORDERS) <= eps
        elif mu2 > 0:
            assert gaussian_delta_mp(mp.sqrt(mu2), eps) <= delta


@settings(max_examples=25)
@given(requests=REQUESTS)
def test_admitted_rdp_sequences_meet_the_promise_at_some_order(shared, requests):
    led = shared
    eps, delta = 2.0, 1e-6
    name = f"r{next(_names)}"
    led.create_budget(name, currency="rdp", epsilon=eps, delta=delta, databases=["d"])
    got = _admitted(led, name, requests)
    tau = [mp.mpf(0)] * len(DEFAULT_ORDERS)
    for m, k in got:
        for j, a in enumerate(DEFAULT_ORDERS):
            if isinstance(m, dpc.Gaussian):
                tau[j] += k * mp.mpf(a) / (2 * mp.mpf(repr(m.sigma)) ** 2)
            elif isinstance(m, dpc.Laplace):
                tau[j] += k * laplace_rdp_mp(_eps(m), a)
            else:  # eps-DP: randomized response is the worst case
                tau[j] += k * rr_rdp_mp(_eps(m), a)
    # the union over orders costs delta / n per order (docs/ledger.md, "rdp")
    if got:
        assert rdp_epsilon_mp(tau, DEFAULT_ORDERS, mp.mpf(delta) / len(DEFAULT_ORDERS)) <= eps


@settings(max_examples=20)
@given(requests=st.lists(st.tuples(MECHS, st.integers(min_value=1, max_value=5)), min_size=1, max_size=15),
       share=st.floats(min_value=1e-9, max_value=1e-7))
def test_admitted_approx_sequences_sum_within_the_promise(shared, requests, share):
    led = shared
    name = f"a{next(_names)}"
    led.create_budget(name, currency="approx", epsilon=3.0, delta=1e-6, databases=["d"])
    _admitted(led, name, requests, delta=share)
    hist = led.history(name, limit=1000)
    assert sum(F(h.cost["epsilon"]) for h in hist) <= 3
    assert sum(F(h.cost["delta"]) for h in hist) <= F("1e-6")
    # each charge's epsilon is certified at its delta share by an independent oracle
    for h in hist:
        (m, k), = dpc.parse_mechanisms(h.mechanism)
        if isinstance(m, dpc.Gaussian) and k == 1:
            assert gaussian_delta_mp(1 / mp.mpf(repr(m.sigma)), mp.mpf(h.cost["epsilon"])) <= mp.mpf(h.cost["delta"])


def test_planned_figure_is_shown_but_never_admits(led):
    """The realized sequence's tightest epsilon (hdp / pld) is below the promise, yet the
    filter refuses: stopping on composed PLDs is not a valid filter (display only)."""
    led.create_budget("p", currency="approx", epsilon=1.0, delta=1e-6, databases=["d"])
    refused = None
    for _ in range(40):
        r = led.charge("p", database="d", mechanism="gaussian(sigma=40) x 10", delta=2e-8)
        if not r.admitted:
            refused = r
            break
    assert refused is not None and "refused" in refused.reason
    st_ = led.status("p", wait=True)
    assert st_.planned["label"].startswith("if this had been planned in advance")
    assert st_.planned["epsilon"] < st_.spent_epsilon  # what a plan would have certified
    assert st_.spent_epsilon <= 1.0


@settings(max_examples=20)
@given(requests=st.lists(st.tuples(st.builds(dpc.PureDP, epsilon=st.floats(min_value=0.001, max_value=0.3)),
                                   st.integers(min_value=1, max_value=30)), min_size=1, max_size=25))
def test_admitted_advanced_sequences_meet_the_filter_condition(shared, requests):
    """Pure charges admitted by the advanced filter satisfy Whitehouse et al.'s condition
    sqrt(2 log(1/delta') sum eps_i^2) + sum eps_i^2 / 2 <= eps (mpmath, exact eps_i)."""
    name = f"adv{next(_names)}"
    eps, delta = 1.0, 1e-6
    shared.create_budget(name, currency="advanced", epsilon=eps, delta=delta, databases=["d"])
    got = _admitted(shared, name, requests)
    s = sum((k * _eps(m) ** 2 for m, k in got), mp.mpf(0))
    assert mp.sqrt(2 * mp.log(2 / mp.mpf(delta)) * s) + s / 2 <= eps
