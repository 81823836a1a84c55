"""Certified trade-off bands (f-DP), attack TPR, advantage and the Gaussian-DP mu bracket
(dpcompose.fdp), against independent truth: the Gaussian trade-off G_mu and the Laplace one
in closed form, k-fold randomized response by Neyman-Pearson over all 2^k outputs, Poisson
subsampled randomized response (an asymmetric pair) by brute force, the exact mu of
eps-DP (tests/oracles/tradeoff.py, tests/oracles/filters.py)."""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from oracles.filters import gdp_mu_of_pure_mp
from oracles.tradeoff import (
    gaussian_tradeoff,
    hockey,
    laplace_tradeoff,
    np_tradeoff,
    poisson_rr_pair,
    rr_kfold_pair,
    rr_kfold_tradeoff,
    symmetric_hull_tradeoff_low,
)

import dpcompose as dpc
from dpcompose.errors import InvalidParameterError, UnsupportedMechanismError
from dpcompose.fdp import TradeoffCurve

ALPHAS = [0.0, 1e-9, 1e-6, 1e-4, 1e-3, 0.01, 0.03, 0.1, 0.2, 0.35, 0.5, 0.7, 0.9, 0.99, 1.0]


def _gaussian(mu, k=1, method="pld"):
    """k Gaussian mechanisms composing to mu-GDP (sigma = sqrt(k) / mu)."""
    return dpc.compose([(dpc.Gaussian(math.sqrt(k) / mu), k)], method=method)


def _assert_band(lo, up, truth, width=None):
    for a, l, u, t in zip(ALPHAS if len(lo) == len(ALPHAS) else range(len(lo)), lo, up, truth):
        assert l <= t <= u, (a, l, t, u)
        if width is not None:
            assert u - l <= width, (a, l, u, u - l)


@pytest.mark.parametrize("mu,k", [(0.5, 1), (1.0, 10), (2.0, 100), (4.0, 3)])
def test_gaussian_band_contains_closed_form_and_is_tight(mu, k):
    """G_mu(alpha) = Phi(Phi^{-1}(1 - alpha) - mu) lies in the band, which is at most 2e-6 wide
    (tolerance 1e-6 for the grid on each side, the closed form's bracket is ~1e-15)."""
    with mp.workdps(40):
        truth = [float(gaussian_tradeoff(mu, a)) for a in ALPHAS]
    lo, up = dpc.tradeoff(_gaussian(mu, k), ALPHAS)
    _assert_band(lo, up, truth, width=2e-6)


def test_gaussian_band_through_auto_uses_the_tight_component():
    """method="auto" combines seven methods; the band uses the ones that win (here pld's closed form)."""
    g = _gaussian(1.0, 10, method="auto")
    curve = TradeoffCurve(g)
    lo, up = curve.band(ALPHAS)
    with mp.workdps(40):
        truth = [float(gaussian_tradeoff(1.0, a)) for a in ALPHAS]
    _assert_band(lo, up, truth, width=2e-6)
    assert curve.summary()["components"]["upper"] == ["pld"]


@pytest.mark.parametrize("eps,k,method", [(1.0, 1, "optimal"), (0.5, 4, "optimal"), (0.3, 6, "pld"),
                                          (2.0, 3, "auto"), (1.0, 5, "pld")])
def test_rr_kfold_band_against_neyman_pearson_brute_force(eps, k, method):
    """k-fold randomized response: the exact trade-off by the Neyman-Pearson tests of the product
    pair (all 2^k outputs) lies in the band; the band is tight (exact methods: 2e-6)."""
    alphas = np.linspace(0.0, 1.0, 41)
    with mp.workdps(40):
        truth = [float(rr_kfold_tradeoff(eps, k, a)) for a in alphas]
    lo, up = dpc.tradeoff(dpc.compose([(dpc.RandomizedResponse(eps), k)], method=method), alphas)
    _assert_band(lo, up, truth, width=2e-6 if method != "pld" else 2e-4)


def test_pure_dp_band_is_the_eps_dp_tradeoff():
    """One eps-DP mechanism (the class's worst case is randomized response):
    f(alpha) = max(0, 1 - e^eps alpha, e^-eps (1 - alpha)) exactly."""
    eps = 1.3
    alphas = np.linspace(0.0, 1.0, 27)
    truth = [max(0.0, 1 - math.exp(eps) * a, math.exp(-eps) * (1 - a)) for a in alphas]
    lo, up = dpc.tradeoff(dpc.compose([dpc.PureDP(eps)], method="optimal"), alphas)
    _assert_band(lo, up, truth, width=2e-6)


@pytest.mark.parametrize("eps", [0.2, 1.0, 3.0])
def test_laplace_band_against_the_threshold_test(eps):
    """One Laplace mechanism: beta = F_1(F_0^{-1}(1 - alpha)) (the closed form of Dong, Roth and Su)."""
    with mp.workdps(40):
        truth = [float(laplace_tradeoff(eps, a)) for a in ALPHAS]
    lo, up = dpc.tradeoff(dpc.compose([dpc.Laplace(1.0 / eps)]), ALPHAS)
    _assert_band(lo, up, truth, width=2e-6)


@pytest.mark.parametrize("eps,q,k", [(2.0, 0.5, 1), (1.0, 0.3, 3)])
def test_asymmetric_pair_band_against_brute_force(eps, q, k):
    """Poisson-subsampled randomized response (add/remove): the remove and add pairs differ.
    The lower curve is below both exact trade-off functions (Neyman-Pearson on either order);
    the upper curve is above a lower estimate of the symmetric hull f* (a finite sup)."""
    p, qq = poisson_rr_pair(eps, q, k)
    alphas = np.linspace(0.0, 1.0, 21)
    g = dpc.compose([(dpc.Subsampled(dpc.RandomizedResponse(eps), q), k)], method="pld")
    lo, up = dpc.tradeoff(g, alphas)
    with mp.workdps(40):
        for a, l, u in zip(alphas, lo, up):
            both = min(np_tradeoff(p, qq, a), np_tradeoff(qq, p, a))
            assert l <= both, (a, l, both)
            assert u >= symmetric_hull_tradeoff_low(p, qq, a, extra=200), a
        # the band's delta(0) side: the advantage is max(TV) of the pair
        adv = float(max(hockey(p, qq, 0), hockey(qq, p, 0)))
    a_lo, a_up = dpc.attack_advantage(g)
    assert a_lo <= adv <= a_up


@given(eps=st.floats(0.05, 3.0), k=st.integers(1, 6), alpha=st.floats(0.0, 1.0))
def test_lower_curve_never_above_truth_property(eps, k, alpha):
    """Property: for k-fold randomized response (optimal and pld), lower <= truth <= upper at any alpha."""
    with mp.workdps(30):
        truth = float(rr_kfold_tradeoff(eps, k, alpha))
    for method in ("optimal", "pld"):
        g = dpc.compose([(dpc.RandomizedResponse(eps), k)], method=method)
        lo, up = dpc.tradeoff(g, [alpha], tolerance=1e-4)
        assert lo[0] <= truth <= up[0], (method, lo[0], truth, up[0])


@given(mu=st.floats(0.05, 6.0), alpha=st.floats(0.0, 1.0))
def test_gaussian_band_property(mu, alpha):
    """Property: lower <= G_mu(alpha) <= upper for every mu and alpha (closed-form guarantee)."""
    with mp.workdps(30):
        truth = float(gaussian_tradeoff(mu, alpha))
    lo, up = dpc.tradeoff(_gaussian(mu), [alpha], tolerance=1e-4)
    assert lo[0] <= truth <= up[0]


def test_band_is_valid_on_a_coarse_grid():
    """Validity never depends on refinement: with 8 grid points the band still contains the truth."""
    curve = TradeoffCurve(_gaussian(1.5), max_points=8)
    lo, up = curve.lower(ALPHAS), curve.upper(ALPHAS)
    with mp.workdps(40):
        truth = [float(gaussian_tradeoff(1.5, a)) for a in ALPHAS]
    _assert_band(lo, up, truth)
    assert curve.points <= 17  # the initial grid, no refinement


def test_method_without_lower_profile_gives_trivial_upper_curve():
    """rdp has no certified lower profile: the upper curve is 1 - alpha (rounded up), the lower valid."""
    g = dpc.compose([(dpc.Gaussian(3.0), 10)], method="rdp")
    lo, up = dpc.tradeoff(g, ALPHAS)
    mu = math.sqrt(10) / 3.0
    with mp.workdps(40):
        truth = [float(gaussian_tradeoff(mu, a)) for a in ALPHAS]
    _assert_band(lo, up, truth)
    for a, u in zip(ALPHAS, up):
        assert 1 - a <= u <= 1 - a + 1e-15
    tpr_lo, _ = dpc.max_tpr(g, [0.01])
    assert tpr_lo[0] == 0.01  # random guessing is all that is certified attainable


def test_max_tpr_and_advantage_for_gaussian():
    """TPR <= Phi(Phi^{-1}(FPR) + mu) for every attack (the bound is tight), and the advantage
    max(TPR - FPR) = 2 Phi(mu/2) - 1 = delta(0)."""
    mu = 1.2
    g = _gaussian(mu, 4)
    fprs = [1e-5, 1e-3, 0.05, 0.5]
    tpr_lo, tpr_up = dpc.max_tpr(g, fprs)
    with mp.workdps(40):
        for f, l, u in zip(fprs, tpr_lo, tpr_up):
            t = float(mp.ncdf(mp.sqrt(2) * mp.erfinv(2 * mp.mpf(f) - 1) + mu))
            assert l <= t <= u and u - l < 2e-6
        adv = float(2 * mp.ncdf(mp.mpf(mu) / 2) - 1)
    a_lo, a_up = dpc.attack_advantage(g)
    assert a_lo <= adv <= a_up and a_up - a_lo < 1e-12
    assert TradeoffCurve(g).advantage() == (a_lo, a_up)


@pytest.mark.parametrize("mu,k", [(0.3, 1), (1.0, 10), (1.5811388300841898, 10), (3.0, 1000)])
def test_mu_bracket_contains_true_mu_for_gaussian_compositions(mu, k):
    """A composition of Gaussians is exactly mu-GDP: lower <= mu, and mu*(s) <= upper with
    mu*(s) >= mu - s / phi(mu/2) (the slack s can only lower the smallest valid mu, by at most
    that much: at epsilon = 0, delta_mu(0) = 2 Phi(mu/2) - 1 has derivative phi(mu/2));
    the bracket is tight (relative 2e-4)."""
    b = dpc.gdp_mu_bracket(_gaussian(mu, k))
    assert b.lower <= mu * (1 + 1e-12)
    phi = math.exp(-(mu / 2) ** 2 / 2) / math.sqrt(2 * math.pi)
    assert b.upper >= mu - 1.01 * b.slack / phi
    assert b.upper <= mu * (1 + 2e-4) and b.lower >= mu * (1 - 1e-8)


@pytest.mark.parametrize("eps", [0.3, 1.0, 2.5])
def test_mu_bracket_of_pure_dp_against_closed_form(eps):
    """eps-DP is mu-GDP exactly for mu >= 2 Phi^{-1}(e^eps / (1 + e^eps)) (randomized response, the
    class's worst case, is its own truth); the bracket holds it with slack 0."""
    with mp.workdps(40):
        truth = float(gdp_mu_of_pure_mp(eps))
    b = dpc.gdp_mu_bracket(dpc.compose([dpc.RandomizedResponse(eps)], method="optimal"))
    assert b.slack == 0.0
    assert b.lower <= truth <= b.upper
    assert b.upper - b.lower <= 2e-4 * truth


def test_mu_bracket_of_rr_kfold_against_brute_force():
    """k-fold randomized response: a mu refuted by the exact profile at some epsilon is below the
    bracket's lower end only if it is truly refuted; the exact profile at the bracket's upper
    end stays below delta_mu there (checked on a fine grid of epsilons, mpmath)."""
    eps, k = 0.5, 6
    b = dpc.gdp_mu_bracket(dpc.compose([(dpc.RandomizedResponse(eps), k)], method="optimal"))
    p, q = rr_kfold_pair(eps, k)
    with mp.workdps(40):
        def d_mu(mu, e):
            mu, e = mp.mpf(mu), mp.mpf(e)
            return mp.ncdf(-e / mu + mu / 2) - mp.exp(e) * mp.ncdf(-e / mu - mu / 2)

        es = [mp.mpf(i) * k * eps / 400 for i in range(401)]
        # upper end: valid at every epsilon of the grid
        assert all(hockey(p, q, e) <= d_mu(b.upper, e) + b.slack for e in es)
        # lower end: refuted at some epsilon
        assert any(hockey(p, q, e) > d_mu(b.lower, e) + b.slack for e in es)


def test_mu_bracket_refuses_infinite_loss_mass_above_slack():
    """(eps, delta)-DP with delta > 0 has a point mass of infinite loss: no finite mu-GDP
    statement holds with slack below delta."""
    g = dpc.compose([dpc.ApproxDP(1.0, 1e-3)], method="optimal")
    b = dpc.gdp_mu_bracket(g, slack=1e-6)
    assert math.isinf(b.lower) and math.isinf(b.upper) and "infinite-loss" in b.reason
    b = dpc.gdp_mu_bracket(g, slack=2e-3)
    assert math.isfinite(b.upper)


@pytest.mark.parametrize("bad", [1.5, -0.1, float("nan"), float("inf")])
def test_alpha_outside_unit_interval_is_a_clear_error(bad):
    g = _gaussian(1.0)
    with pytest.raises(InvalidParameterError, match=r"alphas\[1\].*\[0, 1\]"):
        dpc.tradeoff(g, [0.1, bad])


def test_other_bad_input_is_a_clear_error():
    g = _gaussian(1.0)
    with pytest.raises(InvalidParameterError, match="alphas"):
        dpc.tradeoff(g, "many")
    with pytest.raises(UnsupportedMechanismError, match="Guarantee"):
        dpc.tradeoff([dpc.Gaussian(1.0)], [0.1])
    with pytest.raises(InvalidParameterError, match="tolerance"):
        dpc.tradeoff(g, [0.1], tolerance=0.0)
    with pytest.raises(InvalidParameterError, match="slack"):
        dpc.gdp_mu_bracket(g, slack=1.0)
    with pytest.raises(InvalidParameterError, match="max_points"):
        TradeoffCurve(g, max_points=2)
    with pytest.raises(InvalidParameterError, match="fpr"):
        dpc.max_tpr(g, [2.0])
