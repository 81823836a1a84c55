"""The zCDP input ZCDP(rho), against independent truth.

Truth: the Canonne-Kamath-Steinke conversion minimised over the order in mpmath (golden
section on log(alpha - 1) at 40 digits, then a dense grid check: it errs high, never
low, since every order gives a valid bound and the search only finds one); the Gaussian
mechanism's exact profile and epsilon (Balle and Wang, mpmath), a member of the class
with rho = mu^2 / 2, which no bound for the class may undercut.
"""

from __future__ import annotations

import math

import mpmath as mp
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles import gaussian_delta_mp
from oracles.gaussian import gaussian_epsilon_mp

import dpcompose as dpc
from dpcompose.errors import (
    InvalidParameterError,
    MethodNotApplicableError,
    NoRuleError,
)
from dpcompose.expressions import format_mechanism, parse_mechanisms
from dpcompose.hypotheses import hdp
from dpcompose.plan import parse_plan
from dpcompose.representations import (
    dominating_pair,
    privacy_profile,
    pure_epsilon,
    renyi_curve,
)



@pytest.fixture(autouse=True, scope="module")
def _mp_precision():
    """40 digits for this module's mpmath oracles, given back afterwards (never set globally:
    a global setting leaks into other modules' references)."""
    with mp.workdps(40):
        yield


def cks_delta_mp(rho, e):
    """inf over alpha > 1 of e^{(a-1)(a rho - e)} / (a-1) (1 - 1/a)^a, by golden section in t = log(a - 1)."""
    with mp.workdps(60):  # its own precision: 1 - 1/a near a = 1 + e^-60 needs it (never the global one)
        return _cks_delta_mp(rho, e)


def _cks_delta_mp(rho, e):
    rho, e = mp.mpf(rho), mp.mpf(e)

    def f(t):
        a = 1 + mp.exp(t)
        return (a - 1) * (a * rho - e) + a * mp.log(1 - 1 / a) - t

    lo, hi = mp.mpf(-60), mp.mpf(60)
    phi = (mp.sqrt(5) - 1) / 2
    x1, x2 = hi - phi * (hi - lo), lo + phi * (hi - lo)
    f1, f2 = f(x1), f(x2)
    for _ in range(300):
        if f1 < f2:
            hi, x2, f2 = x2, x1, f1
            x1 = hi - phi * (hi - lo)
            f1 = f(x1)
        else:
            lo, x1, f1 = x1, x2, f2
            x2 = lo + phi * (hi - lo)
            f2 = f(x2)
    best = min(f1, f2, *(f(mp.mpf(t) / 4) for t in range(-240, 241)))
    return min(mp.mpf(1), mp.exp(best))


@pytest.mark.parametrize("rho", [1e-4, 0.01, 0.125, 0.5, 2.0, 20.0])
def test_profile_is_the_cks_conversion(rho):
    prof = privacy_profile(dpc.ZCDP(rho))
    for e in (0.0, 0.1, 0.5, 1.0, 3.0, 10.0, 40.0):
        truth = float(cks_delta_mp(rho, e))
        got = prof(e)
        assert got >= truth * (1.0 - 1e-13)  # never below the theorem's best bound
        assert got <= truth * (1.0 + 1e-6) + 5e-324  # and the order is found
    assert prof(math.inf) == 0.0


@given(st.floats(1e-3, 10.0), st.floats(0.0, 20.0))
@settings(max_examples=40, deadline=None)
def test_profile_is_never_below_the_gaussian_member(rho, e):
    mu = math.sqrt(2.0 * rho)
    truth = float(gaussian_delta_mp(mu, e))
    assert privacy_profile(dpc.ZCDP(rho))(e) >= truth * (1.0 - 1e-12)


@pytest.mark.parametrize("mu,k", [(0.5, 10), (1.0, 1), (0.1, 1000)])
@pytest.mark.parametrize("method", ["rdp", "auto", "advanced"])
def test_composition_never_below_the_gaussian_exact_epsilon(mu, k, method):
    res = dpc.compose([(dpc.ZCDP(mu * mu / 2), k)], method=method)
    for delta in (1e-5, 1e-9):
        lo, _hi = gaussian_epsilon_mp(mu * math.sqrt(k), delta)
        assert res.epsilon(delta) >= float(lo) * (1.0 - 1e-12)
    if method == "rdp":
        # the same Renyi curve as the Gaussian's: the same rdp answer
        gauss = dpc.compose([(dpc.Gaussian(1.0 / mu), k)], method="rdp")
        assert res.epsilon(1e-6) == pytest.approx(gauss.epsilon(1e-6), rel=1e-9)


def test_renyi_curve_is_rho_alpha():
    orders = [1.01, 2.0, 7.5, 64.0]
    for rho in (1e-5, 0.3, 40.0):
        for a, tau in zip(orders, renyi_curve(dpc.ZCDP(rho), orders)):
            truth = mp.mpf(rho) * mp.mpf(a)
            assert float(truth) <= tau <= float(truth) * (1.0 + 1e-14)
    assert pure_epsilon(dpc.ZCDP(0.3)) == math.inf


def test_pld_and_optimal_refuse_with_a_reason():
    m = dpc.ZCDP(0.2)
    with pytest.raises(NoRuleError, match="no dominating pair is known"):
        dominating_pair(m)
    for method in ("pld", "optimal"):
        with pytest.raises(MethodNotApplicableError):
            dpc.compose([(m, 3)], method=method)
    res = dpc.compose([(m, 3), (dpc.Gaussian(2.0), 2)], method="auto")
    assert res.method_for(1e-6) == "rdp" and not res.has_lower_bound


def test_group_of_zcdp_is_g_squared_rho():
    """Bun and Steinke's group rule; tight for the Gaussian member (mu -> g mu)."""
    mu, g = 0.4, 3
    group = dpc.Group(dpc.ZCDP(mu * mu / 2), g)
    tau = renyi_curve(group, [2.0])[0]
    assert tau == pytest.approx(2.0 * g * g * mu * mu / 2, rel=1e-14) and tau >= float(2 * (g * mp.mpf(mu)) ** 2 / 2)
    gauss = renyi_curve(dpc.Group(dpc.Gaussian(1.0 / mu), g), [2.0])[0]
    assert tau == pytest.approx(gauss, rel=1e-12)


def test_expressions_plans_calibration_and_hypothesis_dp():
    m = dpc.ZCDP(0.5)
    assert parse_mechanisms("zcdp(rho=0.5) x 3") == [(m, 3)]
    assert parse_mechanisms(format_mechanism(m, 7)) == [(m, 7)]
    p = parse_plan("""
title = "t"
[[invocations]]
mechanism = { type = "zcdp", rho = 0.5 }
count = 3
""")
    assert p.mechanisms == [(m, 3)]
    # rho is not a noise parameter (more private as it shrinks): not calibrated by name...
    with pytest.raises(InvalidParameterError, match="callable"):
        dpc.calibrate("zcdp", 10, epsilon=1.0, delta=1e-6)
    # ...but through a callable, as any family
    res = dpc.calibrate(lambda s: dpc.ZCDP(1.0 / (2.0 * s * s)), 10, epsilon=1.0, delta=1e-6)
    assert dpc.compose([(res.mechanism, 10)]).epsilon(1e-6) <= 1.0
    # hypothesis DP reads the Renyi rule (method 'rdp'; 'auto' works too, slowly: its
    # theorems probe the converted profile at many points)
    g = hdp([dpc.ZCDP(0.1), dpc.ZCDP(0.2)], method="rdp")
    lo, _hi = gaussian_epsilon_mp(math.sqrt(0.6), 1e-6)  # the Gaussian member of 0.3-zCDP
    assert g.epsilon(1e-6) >= float(lo)


@pytest.mark.parametrize("rho", [0.0, -1.0, math.inf, math.nan, "x"])
def test_rho_is_validated(rho):
    with pytest.raises(InvalidParameterError, match="ZCDP.rho"):
        dpc.ZCDP(rho)


def test_extreme_arguments_stay_certified():
    tiny, huge = privacy_profile(dpc.ZCDP(1e-12)), privacy_profile(dpc.ZCDP(1e4))
    assert tiny(1e300) == 5e-324 and huge(0.0) == 1.0 and huge(-1.0) == 1.0
    assert 0.0 < tiny(1e-5) <= 1.0
    assert float(cks_delta_mp(1e4, 1e4)) <= huge(1e4)
