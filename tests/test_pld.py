"""Tests of method="pld" against independent truth (closed forms, mpmath, brute force).

Reference values are computed here, in the test, by the helpers below (mpmath at 40
digits or exact enumeration); nothing is compared with an earlier output of the code.
"""

from __future__ import annotations

import itertools
import math

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dpcompose as dpc
from oracles import gaussian_delta_mp, kov_delta_mp
from oracles.laplace import epsilon_bracket_mp, laplace2_delta_mp, laplace_loss_expect
from dpcompose.methods.pld.curve import Curve
from dpcompose.methods.pld.discretize import discretize, loss_model
from dpcompose.methods.pld.grid import GridMismatchError, GridPLD, compose_pair, self_compose


@pytest.fixture(autouse=True, scope="module")
def _mp_precision():
    """40 digits for this module's mpmath oracles, given back afterwards (never set globally:
    a global setting leaks into other modules' references)."""
    with mp.workdps(40):
        yield


# ---------------------------------------------------------------------------
# oracles (independent of the code under test)


def rr_bruteforce_delta(epsilons, e):
    """delta(e) of heterogeneous randomized responses by enumerating all 2^k outputs."""
    total = mp.mpf(0)
    for bits in itertools.product((0, 1), repeat=len(epsilons)):
        p = q = mp.mpf(1)
        for b, eps in zip(bits, epsilons):
            hi = mp.exp(eps) / (1 + mp.exp(eps))
            lo = 1 / (1 + mp.exp(eps))
            p *= hi if b else lo
            q *= lo if b else hi
        total += max(mp.mpf(0), p - mp.exp(e) * q)
    return total


def subsampled_gaussian_delta_mp(mu, q, e):
    """max over add/remove of the hockey-stick of (1-q)N(0,1) + qN(mu,1) vs N(0,1), by quad."""
    mu, q, e = mp.mpf(mu), mp.mpf(q), mp.mpf(e)
    phi = lambda z, m=0: mp.npdf(z, m, 1)  # noqa: E731
    mix = lambda z: (1 - q) * phi(z) + q * phi(z, mu)  # noqa: E731
    # remove: (mix - e^e phi)_+ ; positive for z > z_r with e^{mu z - mu^2/2} > (e^e - 1 + q)/q
    z_r = (mp.log((mp.exp(e) - 1 + q) / q) + mu * mu / 2) / mu
    rem = mp.quad(lambda z: mix(z) - mp.exp(e) * phi(z), [z_r, z_r + 5, mp.inf])
    # add: (phi - e^e mix)_+ ; positive where (1 - e^e(1-q)) > e^e q e^{mu z - mu^2/2}
    c = 1 - mp.exp(e) * (1 - q)
    if c <= 0:
        add = mp.mpf(0)
    else:
        z_a = (mp.log(c / (mp.exp(e) * q)) + mu * mu / 2) / mu
        add = mp.quad(lambda z: phi(z) - mp.exp(e) * mix(z), [-mp.inf, z_a - 5, z_a])
    return max(rem, add)


def exact_epsilon(delta_fn, delta, hi=1.0):
    """The exact epsilon(delta) of an exact profile (mpmath bisection, midpoint)."""
    lo, hi = epsilon_bracket_mp(delta_fn, delta, hi=hi, iters=45)
    return float((lo + hi) / 2)


def assert_bracket(g, exact_eps, delta, rel_width=None):
    lo, hi = g.epsilon_bounds(delta)
    assert lo <= exact_eps * (1 + 1e-12) + 1e-12, f"lower {lo} above exact {exact_eps}"
    assert hi >= exact_eps * (1 - 1e-12) - 1e-12, f"upper {hi} below exact {exact_eps}"
    if rel_width is not None:
        assert hi - exact_eps <= rel_width * exact_eps + 1e-12
        assert exact_eps - lo <= rel_width * exact_eps + 1e-12


# ---------------------------------------------------------------------------
# closed forms and oracles


@pytest.mark.parametrize("sigma,k", [(1.0, 1), (5.0, 50), (30.0, 1000), (0.7, 3)])
@pytest.mark.parametrize("delta", [1e-3, 1e-6, 1e-10])
def test_gaussian_composition_closed_form(sigma, k, delta):
    g = dpc.compose([(dpc.Gaussian(sigma), k)], method="pld")
    mu = math.sqrt(k) / sigma
    exact = exact_epsilon(lambda e: gaussian_delta_mp(mu, e), delta)
    assert g.exact
    assert_bracket(g, exact, delta, rel_width=1e-9)


@pytest.mark.parametrize("sigma,k", [(2.0, 1), (5.0, 20), (1.0, 4)])
def test_gaussian_through_the_grid(sigma, k):
    """Subsampled(Gaussian, rate=1) is a Gaussian that goes through discretization and FFT."""
    m = dpc.Subsampled(dpc.Gaussian(sigma), 1.0)
    g = dpc.compose([(m, k)], method="pld", discretization=1e-3)
    mu = math.sqrt(k) / sigma
    for delta in (1e-3, 1e-6):
        exact = exact_epsilon(lambda e: gaussian_delta_mp(mu, e), delta)
        assert_bracket(g, exact, delta, rel_width=2e-3)
    g2 = dpc.compose([(m, k)], method="pld")  # default tolerance 1e-4
    exact = exact_epsilon(lambda e: gaussian_delta_mp(mu, e), 1e-5)
    lo, hi = g2.epsilon_bounds(1e-5)
    assert lo <= exact <= hi
    assert hi - lo <= 1e-4 * hi


@pytest.mark.parametrize("eps,k", [(0.1, 100), (0.5, 20), (1.0, 7)])
@pytest.mark.parametrize("delta", [1e-3, 1e-6])
def test_randomized_response_vs_kov(eps, k, delta):
    g = dpc.compose([(dpc.RandomizedResponse(eps), k)], method="pld")
    exact = exact_epsilon(lambda e: kov_delta_mp(eps, k, e), delta)
    assert_bracket(g, exact, delta, rel_width=1e-4)
    # and delta at the exact epsilon is bracketed
    d_lo, d_hi = g.delta_bounds(exact)
    d_ex = float(kov_delta_mp(eps, k, exact))
    assert d_lo <= d_ex * (1 + 1e-9) and d_hi >= d_ex * (1 - 1e-9)


def test_w1_exact_optimum():
    g = dpc.compose([(dpc.PureDP(0.1), 100)], method="pld")
    lo, hi = g.epsilon_bounds(1e-6)
    assert lo <= 4.774568 <= hi + 1e-6
    assert hi - lo <= 1e-4 * hi


@pytest.mark.parametrize("epsilons", [(0.3, 0.7, 1.1), (0.05, 0.2, 0.2, 0.9, 1.3), (0.5,) * 3 + (0.25,) * 3])
@pytest.mark.parametrize("delta", [1e-2, 1e-4])
def test_heterogeneous_rr_bruteforce(epsilons, delta):
    g = dpc.compose([dpc.RandomizedResponse(e) for e in epsilons], method="pld")
    exact = exact_epsilon(lambda e: rr_bruteforce_delta(epsilons, e), delta)
    assert_bracket(g, exact, delta, rel_width=5e-3)


@pytest.mark.parametrize("scale", [1.0, 20.0])
@pytest.mark.parametrize("delta", [1e-2, 1e-4])
def test_laplace_one_and_two_fold_vs_quadrature(scale, delta):
    eps = 1.0 / scale
    exact1 = exact_epsilon(lambda e: laplace_loss_expect(eps, e), delta)
    g1 = dpc.compose([dpc.Laplace(scale)], method="pld")
    assert_bracket(g1, exact1, delta, rel_width=1e-4)
    exact2 = exact_epsilon(lambda e: laplace2_delta_mp(eps, e), delta)
    g2 = dpc.compose([(dpc.Laplace(scale), 2)], method="pld")
    assert_bracket(g2, exact2, delta, rel_width=1e-4)


@pytest.mark.parametrize("sigma,q", [(1.1, 256 / 60000), (0.8, 0.1), (2.0, 0.5)])
@pytest.mark.parametrize("e", [0.05, 0.5, 2.0])
def test_subsampled_gaussian_one_step_profile(sigma, q, e):
    m = dpc.Subsampled(dpc.Gaussian(sigma), q)
    g = dpc.compose([m], method="pld", discretization=1e-4)
    exact = float(subsampled_gaussian_delta_mp(1.0 / sigma, q, e))
    lo, hi = g.delta_bounds(e)
    assert lo <= exact * (1 + 1e-12) + 1e-300
    assert hi >= exact * (1 - 1e-12)
    if exact > 1e-12:
        assert hi - lo <= 1e-3 * exact + 1e-12


@pytest.mark.slow
def test_dp_sgd_bracket_contains_reference():
    """W5 (DP-SGD): the bracket is within 0.01% and contains the published 2.38160."""
    m = dpc.Subsampled(dpc.Gaussian(1.1), 256 / 60000)
    g = dpc.compose([(m, 14062)], method="pld")
    lo, hi = g.epsilon_bounds(1e-5)
    assert hi - lo <= 1e-4 * hi
    assert lo <= 2.3816 + 5e-5 and hi >= 2.3816 - 5e-5


def test_approx_dp_delta_is_infinite_loss_mass():
    g = dpc.compose([(dpc.ApproxDP(0.5, 1e-4), 10)], method="pld")
    # delta(inf) is exactly 1 - (1 - 1e-4)^10
    d_inf = -math.expm1(10 * math.log1p(-1e-4))
    lo, hi = g.delta_bounds(math.inf)
    assert lo <= d_inf * (1 + 1e-9) and hi >= d_inf * (1 - 1e-9)
    assert hi <= d_inf * (1 + 1e-6)
    # at eps = 5 (the support max) only the infinity mass remains
    assert g.delta(5.0 + 1e-9) <= d_inf * (1 + 1e-6)


def test_exponential_has_no_lower_bound():
    g = dpc.compose([(dpc.Exponential(0.2), 5)], method="pld")
    assert not g.has_lower_bound
    exact = exact_epsilon(lambda e: kov_delta_mp(0.2, 5, e), 1e-3)
    assert g.epsilon(1e-3) >= exact * (1 - 1e-12)


def test_without_replacement_is_accepted_and_bounded_by_amplification():
    inner = dpc.PureDP(1.0)
    m = dpc.Subsampled(inner, 0.1, scheme="without_replacement")
    g = dpc.compose([m], method="pld")
    # one step: the amplified pair log(1 + q(e - 1)) is tight for the class
    amp = math.log1p(0.1 * math.expm1(1.0))
    assert g.epsilon(0.0) >= amp * (1 - 1e-9)
    assert g.epsilon(1e-9) <= amp + 1e-3


# ---------------------------------------------------------------------------
# property tests


@settings(max_examples=25, deadline=None)
@given(st.lists(st.sampled_from([0.05, 0.1, 0.3, 0.6, 1.0]), min_size=1, max_size=6),
       st.sampled_from([1e-2, 1e-4, 1e-7]))
def test_property_rr_lists_bracket_the_bruteforce(epsilons, delta):
    g = dpc.compose([dpc.RandomizedResponse(e) for e in epsilons], method="pld",
                    discretization=0.01)
    for e in (0.0, 0.1, 0.5, 1.5):
        d_ex = float(rr_bruteforce_delta(epsilons, e))
        lo, hi = g.delta_bounds(e)
        assert lo <= d_ex * (1 + 1e-12) + 1e-15
        assert hi >= d_ex * (1 - 1e-12) - 1e-30  # the oracle rounds exact zeros to ~1e-42
    eps_up = g.epsilon(delta)
    assert g.delta(eps_up) <= delta * (1 + 1e-12)


@settings(max_examples=20, deadline=None)
@given(st.floats(0.5, 20.0), st.integers(1, 60), st.sampled_from([1e-3, 1e-6, 1e-9]),
       st.sampled_from([3e-3, 1e-3]))
def test_property_gaussian_grid_bracket(sigma, k, delta, h):
    m = dpc.Subsampled(dpc.Gaussian(sigma), 1.0)
    g = dpc.compose([(m, k)], method="pld", discretization=h)
    mu = math.sqrt(k) / sigma
    exact = exact_epsilon(lambda e: gaussian_delta_mp(mu, e), delta)
    lo, hi = g.epsilon_bounds(delta)
    assert lo <= exact * (1 + 1e-12) + 1e-12
    assert hi >= exact * (1 - 1e-12) - 1e-12


@settings(max_examples=15, deadline=None)
@given(st.permutations([dpc.PureDP(0.1), dpc.Laplace(3.0), dpc.RandomizedResponse(0.3),
                        dpc.ApproxDP(0.2, 1e-6), dpc.Laplace(3.0)]))
def test_property_order_invariance(perm):
    base = [dpc.Laplace(3.0), dpc.Laplace(3.0), dpc.PureDP(0.1), dpc.RandomizedResponse(0.3),
            dpc.ApproxDP(0.2, 1e-6)]
    g1 = dpc.compose(base, method="pld", discretization=1e-3)
    g2 = dpc.compose(list(perm), method="pld", discretization=1e-3)
    for d in (1e-3, 1e-7):
        assert g1.epsilon_bounds(d) == pytest.approx(g2.epsilon_bounds(d), rel=1e-12, abs=1e-14)


@pytest.mark.parametrize("m,k", [(dpc.Laplace(5.0), 7), (dpc.Subsampled(dpc.Gaussian(2.0), 0.2), 9),
                                 (dpc.RandomizedResponse(0.4), 5)])
def test_group_equals_list(m, k):
    g1 = dpc.compose([(m, k)], method="pld", discretization=1e-3)
    g2 = dpc.compose([m] * k, method="pld", discretization=1e-3)
    for d in (1e-3, 1e-6):
        assert g1.epsilon_bounds(d) == pytest.approx(g2.epsilon_bounds(d), rel=1e-12)


def test_self_compose_equals_repeated_pairwise_convolution():
    """The Fourier power equals pairwise convolutions (both bracket the same measure)."""
    m = dpc.Laplace(2.0)
    d = discretize(loss_model(m, "remove", tail=1e-20), 0.01, "upper")
    g = GridPLD("upper", 0.01, d.start, d.p, d.inf)
    pw = self_compose(g, 5, 1e-18, 2 ** 20)
    seq = g
    for _ in range(4):
        seq = compose_pair(seq, g, 0.0)
    n = min(pw.p.size, seq.p.size)
    assert pw.start == seq.start
    assert np.max(np.abs(pw.p[:n] - seq.p[:n])) <= pw.err + seq.err + 1e-15


def test_pld_between_theorems_and_truth():
    """pld's upper bound is never above the closed-form theorems' (simple composition)."""
    mechs = [(dpc.PureDP(0.1), 100)]
    g = dpc.compose(mechs, method="pld")
    simple = dpc.compose(mechs, method="simple")
    for d in (1e-3, 1e-6):
        assert g.epsilon(d) <= simple.epsilon(d) * (1 + 1e-9)


# ---------------------------------------------------------------------------
# edges and bad input


def test_huge_count_and_extreme_queries():
    g = dpc.compose([(dpc.Gaussian(1.1), 10 ** 9)], method="pld")
    e = g.epsilon(1e-6)
    assert math.isfinite(e) and e > 0
    g = dpc.compose([(dpc.Subsampled(dpc.Gaussian(1.0), 0.01), 10 ** 9)], method="pld")
    # either it works or it refuses clearly; it must not return nan
    try:
        x = g.epsilon(1e-6)
        assert not math.isnan(x)
    except dpc.MethodNotApplicableError as exc:
        assert "max_points" in str(exc)
    g = dpc.compose([(dpc.Laplace(10.0), 30)], method="pld", discretization=1e-3)
    for d in (1e-300, 1e-12):
        x = g.epsilon(d)
        assert not math.isnan(x) and x >= 0
    assert g.delta(50.0) == 0.0
    assert 0.0 <= g.delta(0.0) <= 1.0
    assert g.delta(math.inf) == 0.0


def test_edge_mechanisms():
    assert dpc.compose([(dpc.PureDP(0.0), 4)], method="pld").epsilon(1e-9) == 0.0
    assert dpc.compose([dpc.PureDP(math.inf), dpc.Laplace(1.0)], method="pld").epsilon(1e-3) == math.inf
    g = dpc.compose([dpc.Subsampled(dpc.PureDP(math.inf), 0.5)], method="pld")
    assert g.delta(100.0) >= 0.5 * (1 - 1e-9)


@pytest.mark.parametrize("opt,bad", [
    ("tolerance", float("nan")), ("tolerance", -1.0), ("tolerance", 0.0), ("tolerance", 1.0),
    ("tolerance", float("inf")), ("discretization", -1e-3), ("discretization", float("nan")),
    ("discretization", 0.0), ("discretization", float("inf")), ("tail_mass", 0.0),
    ("tail_mass", float("nan")), ("tail_mass", 0.5), ("max_points", 10), ("max_points", 1.5e6),
    ("max_points", True),
])
def test_bad_options(opt, bad):
    with pytest.raises(dpc.InvalidParameterError, match=opt):
        dpc.compose([dpc.Laplace(1.0)], method="pld", **{opt: bad})


def test_grids_refuse_to_mix():
    d = discretize(loss_model(dpc.Laplace(1.0), "remove", tail=1e-20), 0.01, "upper")
    a = GridPLD("upper", 0.01, d.start, d.p, d.inf)
    b = GridPLD("lower", 0.01, d.start, d.p, d.inf)
    c = GridPLD("upper", 0.02, d.start, d.p, d.inf)
    with pytest.raises(GridMismatchError):
        compose_pair(a, b, 0.0)
    with pytest.raises(GridMismatchError):
        compose_pair(a, c, 0.0)


def test_curve_queries_end_on_the_safe_side():
    d = discretize(loss_model(dpc.Laplace(0.5), "remove", tail=1e-20), 1e-3, "upper")
    g = GridPLD("upper", 1e-3, d.start, d.p, d.inf)
    g = self_compose(g, 10, 1e-16, 2 ** 20)
    cu = Curve(g)
    for delta in (1e-2, 1e-5, 1e-9):
        e = cu.epsilon_upper(delta)
        assert cu.delta_upper(e) <= delta
        assert cu.delta_upper(max(0.0, e - 1e-9)) > delta or e == 0.0


def _mixture_hockey_stick_mp(a, b, c, gamma, e):
    """H_{e^e}((1-g)N(a,1) + g N(b,1) || (1-g)N(a,1) + g N(c,1)) by mpmath quadrature."""
    g, al = mp.mpf(gamma), mp.exp(e)
    p = lambda z: (1 - g) * mp.npdf(z, a, 1) + g * mp.npdf(z, b, 1)  # noqa: E731
    q = lambda z: (1 - g) * mp.npdf(z, a, 1) + g * mp.npdf(z, c, 1)  # noqa: E731
    return mp.quad(lambda z: max(mp.mpf(0), p(z) - al * q(z)), [-12, min(a, b, c), max(a, b, c), 14])


@pytest.mark.slow
@pytest.mark.parametrize("a,b,c", [(0.5, 1.0, 0.0), (0.0, 1.0, 0.0), (0.3, 0.9, -0.1), (0.5, 0.0, 1.0)])
def test_without_replacement_pair_dominates_substitution_triples(a, b, c):
    """Sampling without replacement, substitution neighbours: the subsample that contains
    the changed record sees x or x' (means b, c), the other one a common neighbour (mean
    a), all at pairwise distance <= 1. pld's upper profile dominates every such mixture
    pair (checked by quadrature for a few triples)."""
    gamma = 0.3
    g = dpc.compose([dpc.Subsampled(dpc.Gaussian(1.0), gamma, "without_replacement")],
                    method="pld", discretization=1e-3)
    for e in (0.0, 0.1, 0.5):
        truth = float(_mixture_hockey_stick_mp(a, b, c, gamma, e))
        assert g.delta(e) >= truth * (1 - 1e-9)


@pytest.mark.parametrize("eps_list,h", [([0.1] * 5, 0.01), ([0.05, 0.05, 0.1, 0.1, 0.1, 0.1], 0.01),
                                        ([0.3] * 4, 0.1), ([0.7, 0.7, 0.7], 0.7 / 7)])
def test_grid_multiples_in_doubles_do_not_under_report(eps_list, h):
    """Regression: 10 * 0.01 == 0.1 in doubles, but the exact product is below the double 0.1.

    The true maximal loss is the exact sum of the doubles (slightly above the decimal
    value), so delta at the decimal value is positive; an upper bound must say so.
    Oracle: brute-force enumeration in mpmath of the exact doubles' randomized responses.
    """
    with mp.workdps(60):
        eps_mp = [mp.mpf(e) for e in eps_list]  # exact binary values of the doubles
        target = float(sum(mp.mpf(e) for e in eps_list))  # the double nearest the true maximum
        for e in (target, float(mp.mpf(sum(eps_list))), round(sum(eps_list), 6)):
            exact = 0
            for bits in itertools.product((0, 1), repeat=len(eps_list)):
                lp = sum(x if b else 0 for x, b in zip(eps_mp, bits)) - sum(mp.log1p(mp.exp(x)) for x in eps_mp)
                lq = sum(0 if b else x for x, b in zip(eps_mp, bits)) - sum(mp.log1p(mp.exp(x)) for x in eps_mp)
                exact += max(mp.exp(lp) - mp.exp(mp.mpf(e) + lq), 0)
            g = dpc.compose([dpc.RandomizedResponse(x) for x in eps_list], method="pld", discretization=h)
            lo, hi = g.delta_bounds(e)
            assert hi >= float(exact), (e, hi, float(exact))
            assert lo <= float(exact) * (1 + 1e-12)


def test_gauss_legendre_constants_are_leggauss():
    """The written-out 4-point Gauss-Legendre rule of pld's quadrature is numpy's, bit for bit."""
    from numpy.polynomial.legendre import leggauss

    from dpcompose.methods.pld import discretize

    x, w = leggauss(4)
    assert discretize._GL_X.tobytes() == x.tobytes() and discretize._GL_W.tobytes() == w.tobytes()
