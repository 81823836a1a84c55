"""The discrete Gaussian mechanism, against enumeration in mpmath (tests/oracles/discrete_gaussian.py).

Also: never merged with the continuous Gaussian (its profile differs from the continuous
closed form at the same sigma, and dispatch is on the exact type), and its Renyi curve
is below the continuous alpha Delta^2 / (2 sigma^2) (Canonne, Kamath and Steinke's zCDP
bound), equal to the enumeration.
"""

from __future__ import annotations

import math

import mpmath as mp
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles import discrete_gaussian as oracle
from oracles import gaussian_delta_mp

import dpcompose as dpc
from dpcompose.errors import (
    InvalidParameterError,
    MethodNotApplicableError,
    NoRuleError,
)
from dpcompose.expressions import format_mechanism, parse_mechanisms
from dpcompose.plan import parse_plan
from dpcompose.representations import (
    dominating_pair,
    eps_delta_pair,
    lower_pair,
    privacy_profile,
    pure_epsilon,
    renyi_curve,
)



@pytest.fixture(autouse=True, scope="module")
def _mp_precision():
    """45 digits for this module's mpmath oracles, given back afterwards (never set globally:
    a global setting leaks into other modules' references)."""
    with mp.workdps(45):
        yield

CASES = [(0.5, 1), (1.0, 1), (2.0, 1), (1.0, 3), (3.0, 2), (0.3, 2)]


@pytest.mark.parametrize("sigma,sens", CASES)
def test_profile_matches_enumeration(sigma, sens):
    law = oracle.loss_law(sigma, sens)
    prof = privacy_profile(dpc.DiscreteGaussian(sigma, sensitivity=sens))
    for e in (0.0, 0.05, 0.3, 1.0, 2.5, 6.0):
        truth = float(oracle.delta(law, sigma, e))
        got = prof(e)
        assert got >= truth * (1.0 - 1e-14) - 1e-45
        assert got <= truth * (1.0 + 1e-10) + 1e-290  # the tail bound (below 1e-300) and rounding
    assert 0.0 < prof(math.inf) < 1e-290


@given(st.floats(0.2, 8.0), st.integers(1, 4), st.floats(0.0, 5.0))
@settings(max_examples=30, deadline=None)
def test_profile_is_the_sum_over_the_pair_atoms(sigma, sens, e):
    m = dpc.DiscreteGaussian(sigma, sensitivity=sens)
    pair = dominating_pair(m)
    assert pair.is_atomic and not pair.attained
    direct = math.fsum(at.b * -math.expm1(e - at.loss) for at in pair.atoms if at.loss > e)
    got = privacy_profile(m)(e)
    assert got >= direct * (1.0 - 1e-12)
    assert got <= direct * (1.0 + 1e-9) + 1e-14
    assert math.fsum(at.b for at in pair.atoms) == pytest.approx(1.0, abs=1e-13)
    assert math.fsum(at.a for at in pair.atoms) == pytest.approx(1.0, abs=1e-13)


@pytest.mark.parametrize("sigma,sens", CASES)
def test_renyi_curve_matches_enumeration_and_is_below_the_continuous_bound(sigma, sens):
    orders = [1.1, 1.5, 2.0, 3.0, 7.3, 8.0, 32.0]  # sorted (the rule returns the sorted grid)
    law = oracle.loss_law(sigma, sens, reach=40 * sens)
    curve = renyi_curve(dpc.DiscreteGaussian(sigma, sensitivity=sens), orders)
    for a, tau in zip(orders, curve, strict=True):
        truth = float(oracle.renyi(law, a))
        assert tau >= truth * (1.0 - 1e-13)
        assert tau <= truth * (1.0 + 1e-9) + 1e-12
        assert tau <= a * sens * sens / (2.0 * sigma * sigma) * (1.0 + 1e-12)


@pytest.mark.parametrize("sigma", [0.5, 1.0, 2.0])
def test_never_the_continuous_gaussian(sigma):
    """Its profile is the lattice's, not Balle-Wang's closed form at mu = 1 / sigma."""
    prof = privacy_profile(dpc.DiscreteGaussian(sigma))
    law = oracle.loss_law(sigma, 1)
    e = 0.5
    continuous = float(gaussian_delta_mp(1 / mp.mpf(sigma), e))
    lattice = float(oracle.delta(law, sigma, e))
    assert abs(continuous - lattice) > 1e-6 * lattice  # the two differ...
    assert prof(e) == pytest.approx(lattice, rel=1e-10)  # ...and the rule is the lattice's
    assert eps_delta_pair(dpc.DiscreteGaussian(sigma)) is None and pure_epsilon(dpc.DiscreteGaussian(sigma)) == math.inf


@pytest.mark.parametrize("method", ["simple", "advanced", "pld", "rdp", "auto"])
def test_every_method_bounds_the_composition(method):
    sigma, sens, k = 1.5, 1, 3
    m = dpc.DiscreteGaussian(sigma, sensitivity=sens)
    g = dpc.compose([(m, k)], method=method)
    law = oracle.compose(*[oracle.loss_law(sigma, sens)] * k)
    for e in (0.3, 1.0, 2.0):
        truth = float(oracle.delta(law, sigma, e))
        assert g.delta(e) >= truth * (1.0 - 1e-12)
        if method == "pld":
            assert g.delta(e) <= truth + 1e-3


def test_optimal_refuses_and_pld_composes_with_others():
    m = dpc.DiscreteGaussian(2.0, sensitivity=2)
    with pytest.raises(MethodNotApplicableError):
        dpc.compose([(m, 2)], method="optimal")
    g = dpc.compose([(m, 2), (dpc.Gaussian(3.0), 2), (dpc.Subsampled(m, 0.3), 5)], method="pld")
    for e in (0.5, 1.0):
        lo, hi = g.delta_bounds(e)
        assert 0.0 <= lo <= hi <= 1.0


def test_expressions_plans_and_calibration():
    m = dpc.DiscreteGaussian(2.0, sensitivity=3)
    assert parse_mechanisms("discrete_gaussian(sigma=2, sensitivity=3) x 5") == [(m, 5)]
    assert parse_mechanisms(format_mechanism(m, 7)) == [(m, 7)]
    p = parse_plan("""
title = "t"
[[invocations]]
mechanism = { type = "discrete_gaussian", sigma = 2.0, sensitivity = 3 }
count = 5
""")
    assert p.mechanisms == [(m, 5)]
    res = dpc.calibrate("discrete_gaussian", 10, epsilon=1.0, delta=1e-6)
    assert isinstance(res.mechanism, dpc.DiscreteGaussian) and res.parameter_name == "sigma"
    assert dpc.compose([(res.mechanism, 10)]).epsilon(1e-6) <= 1.0


def test_large_sigma_pair_is_refused_with_a_remedy_and_rdp_still_works():
    m = dpc.DiscreteGaussian(1e5)
    with pytest.raises(NoRuleError, match="rdp"):
        dominating_pair(m)
    tau = renyi_curve(m, [2.0])[0]
    assert tau >= 2.0 / (2.0 * 1e10) and tau <= 2.0 / (2.0 * 1e10) * (1.0 + 1e-12)
    assert dpc.compose([(m, 10)], method="rdp").epsilon(1e-6) > 0.0


@pytest.mark.parametrize("sens", [0.5, 2.5, 0.0, -1, math.inf, math.nan])
def test_sensitivity_must_be_a_whole_number(sens):
    with pytest.raises(InvalidParameterError, match="sensitivity"):
        dpc.DiscreteGaussian(1.0, sensitivity=sens)


def test_group_and_hypothesis_dp():
    """A person with 2 records: sensitivity 2 on the lattice (exact); hdp composes it."""
    from dpcompose.hypotheses import hdp

    law = oracle.loss_law(1.5, 2)
    prof = privacy_profile(dpc.Group(dpc.DiscreteGaussian(1.5), 2))
    for e in (0.0, 1.0):
        truth = float(oracle.delta(law, 1.5, e))
        assert truth * (1.0 - 1e-13) <= prof(e) <= truth * (1.0 + 1e-10) + 1e-290
    g = hdp([dpc.DiscreteGaussian(1.5), dpc.DiscreteGaussian(1.5)], method="pld")
    two = oracle.compose(oracle.loss_law(1.5, 1), oracle.loss_law(1.5, 1))
    for e in (0.5, 1.0):
        truth = float(oracle.delta(two, 1.5, e))
        assert g.delta(e) >= truth * (1.0 - 1e-12)
        assert g.delta(e) <= truth + 1e-3


# ---------------------------------------------------------------------------
# lower bounds: the window alone, a thinning of the true pair (representations/pairs.py)


@pytest.mark.parametrize("sigma,sens", CASES)
def test_lower_pair_is_a_thinning_of_the_enumeration(sigma, sens):
    """The lower pair's atoms sit at the true losses with masses at most the true ones."""
    pair = dominating_pair(dpc.DiscreteGaussian(sigma, sensitivity=sens))
    thin = lower_pair(pair)
    assert thin is pair.lower and thin is not None and not thin.attained and thin.lower is None
    law = oracle.loss_law(sigma, sens, reach=math.ceil(23 * sigma))  # beyond the window (37.5 sigma)
    s2 = 2.0 * sigma * sigma
    assert all(math.isfinite(at.loss) for at in thin.atoms)
    for at in thin.atoms:
        key = round(at.loss * s2)
        assert at.loss == pytest.approx(key / s2, rel=1e-15, abs=1e-300)
        b_true, a_true = law[key]
        assert 0.0 < at.b <= b_true and 0.0 < at.a <= a_true
        assert at.b >= b_true * (1.0 - 1e-11) and at.a >= a_true * (1.0 - 1e-11)  # and close to them
    assert math.fsum(at.b for at in thin.atoms) < 1.0


def _epsilon_side_ok(law, sigma, eps, delta, side):
    """eps is below (side "lower") / above ("upper") the exact epsilon(delta) of the law."""
    d = oracle.delta(law, sigma, eps)
    return d >= delta if side == "lower" else d <= delta


@pytest.mark.parametrize("sigma,sens,k", [(1.5, 1, 1), (1.5, 1, 2), (1.5, 1, 3), (0.7, 2, 2), (3.0, 1, 3)])
def test_pld_lower_bound_brackets_the_k_fold_enumeration(sigma, sens, k):
    """lower <= exact <= upper (delta and epsilon) for k-fold compositions, and the gap is small."""
    m = dpc.DiscreteGaussian(sigma, sensitivity=sens)
    g = dpc.compose([(m, k)], method="pld")
    assert g.has_lower_bound
    law = oracle.compose(*[oracle.loss_law(sigma, sens)] * k)
    for e in (0.0, 0.3, 1.0, 2.0, 4.0):
        truth = oracle.delta(law, sigma, e)
        lo, hi = g.delta_bounds(e)
        assert lo <= truth <= hi
        if truth > 1e-8:  # below, pld's numerical error floor (about 1e-11) decides the width
            assert hi - lo <= 1e-3 * truth
    for delta in (1e-3, 1e-6, 1e-9):
        lo, hi = g.epsilon_bounds(delta)
        assert 0.0 < lo <= hi < math.inf
        assert _epsilon_side_ok(law, sigma, lo, delta, "lower")
        assert _epsilon_side_ok(law, sigma, hi, delta, "upper")
        assert (hi - lo) / hi <= 1e-3  # pld's default tolerance
        if delta >= 1e-6:
            assert (hi - lo) / hi <= 3e-5  # the lower grid is aligned to the lattice (next test)


def test_accountant_and_subsampled_discrete_gaussian_have_lower_bounds():
    sigma, q = 1.5, 0.3
    m = dpc.DiscreteGaussian(sigma)
    acc = dpc.Accountant().step(m, 2)
    two = oracle.compose(oracle.loss_law(sigma, 1), oracle.loss_law(sigma, 1))
    for e in (0.5, 1.5):
        lo, hi = acc.delta_bounds(e)
        assert 0.0 < lo <= oracle.delta(two, sigma, e) <= hi
    # one Poisson-subsampled run: the larger of the remove ((1-q)A + qB vs A) and add directions
    g = dpc.compose([(dpc.Subsampled(m, q), 1)], method="pld")
    assert g.has_lower_bound
    law = oracle.loss_law(sigma, 1)
    q_mp = mp.mpf(q)
    for e in (0.1, 0.5, 1.0):
        w = mp.exp(mp.mpf(e))
        remove = mp.fsum(max(0, (1 - q_mp) * a + q_mp * b - w * a) for b, a in law.values())
        add = mp.fsum(max(0, a - w * ((1 - q_mp) * a + q_mp * b)) for b, a in law.values())
        lo, hi = g.delta_bounds(e)
        assert 0.0 < lo <= max(remove, add) <= hi


def test_a_bound_derived_from_the_pair_drops_its_thinning():
    """A chained group bound (not the group's pair) must not inherit the member's lower pair."""
    import dataclasses

    pair = dominating_pair(dpc.DiscreteGaussian(1.5))
    derived = dataclasses.replace(pair, attained=False, lower=None)
    assert lower_pair(derived) is None
    exact_group = dominating_pair(dpc.Group(dpc.DiscreteGaussian(1.5), 2))
    assert lower_pair(exact_group) is not None  # sensitivity 2 on the lattice: exact


@pytest.mark.parametrize("sigma,k", [(20.0, 1000), (5.0, 100)])
def test_lower_grid_is_aligned_to_the_lattice(sigma, k):
    """pld's lower grid divides the lattice spacing 1/(2 sigma^2), so no atom is rounded down a
    whole step: the bracket stays second order (it was 8e-3 wide at sigma 20, k 1000, unaligned)."""
    g = dpc.compose([(dpc.DiscreteGaussian(sigma), k)], method="pld")
    lo, hi = g.epsilon_bounds(1e-6)
    assert 0.0 < lo <= hi and (hi - lo) / hi <= 1e-4
    a_lo, a_hi = dpc.Accountant().step(dpc.DiscreteGaussian(sigma), k).epsilon_bounds(1e-6)
    assert 0.0 < a_lo <= a_hi and (a_hi - a_lo) / a_hi <= 1e-4  # the Accountant aligns it too
    assert a_lo <= hi and lo <= a_hi
    # a member on another lattice (the Laplace pair's atoms): the level's grid is kept (the
    # lower side is first order again, but still a valid bracket)
    mixed = dpc.compose([(dpc.DiscreteGaussian(sigma), k), (dpc.Laplace(50.0), 1)], method="pld")
    m_lo, m_hi = mixed.epsilon_bounds(1e-6)
    assert 0.0 < m_lo <= m_hi and m_hi >= hi


def test_with_a_continuous_gaussian_the_lower_grid_is_still_aligned():
    """k discrete Gaussians and one Gaussian (mu): delta(e) = E over the lattice's composed loss
    law of the Gaussian's delta at e - loss (Balle and Wang's formula holds at every real
    argument), in mpmath; pld brackets it, and the lower side is second order."""
    sigma, k, mu = 1.5, 2, 0.8
    law = oracle.compose(*[oracle.loss_law(sigma, 1)] * k)
    s2 = 2 * mp.mpf(sigma) ** 2

    def truth(e):
        return mp.fsum(b * gaussian_delta_mp(mu, e - key / s2) for key, (b, _) in law.items())

    g = dpc.compose([(dpc.DiscreteGaussian(sigma), k), (dpc.Gaussian(1 / mu), 1)], method="pld")
    for e in (0.5, 2.0, 4.0):
        lo, hi = g.delta_bounds(e)
        assert lo <= truth(e) <= hi
        assert hi - lo <= 1e-4 * hi
    lo, hi = g.epsilon_bounds(1e-6)
    assert (hi - lo) / hi <= 3e-5
