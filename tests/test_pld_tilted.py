"""pld at tiny delta (issue 14): the tilted composition (``methods.pld.tilted``) makes the FFT
round-off relative to the tail that decides delta, where the plain grid's absolute error
(added to every delta) dominates.

Truth: the k-fold Laplace profile as a Gamma mixture (``tests/oracles/laplace.py``, mpmath;
errs low by at most k e^{-eps}) and the enumeration of distinct randomized responses
(``tests/oracles/rr_product.py``, mpmath, exact).
"""

from __future__ import annotations

import mpmath as mp
import numpy as np
import pytest
from oracles.laplace import epsilon_bracket_mp, laplace_kfold_delta_mp
from oracles.rr_product import exact_epsilon, rr_delta, rr_law

import dpcompose as dpc
from dpcompose.methods.pld import composition
from dpcompose.methods.pld.tilted import _tilt, best_lambda


@pytest.fixture
def always_tilt(monkeypatch):
    """Tilt at every query whose grid has any round-off (the rule tilts only where it dominates)."""
    monkeypatch.setattr(composition, "_TILT_ABOVE", 0.0)


@pytest.mark.parametrize("k", [5, 30])
def test_tilted_laplace_kfold_brackets_the_truth_at_tiny_delta(k, always_tilt):
    eps = 40.0
    g = dpc.compose([(dpc.Laplace(1.0 / eps), k)], method="pld")
    slack = k * mp.exp(-eps)  # the oracle's own error (low side), ~1e-16 here

    def exact(e):
        return laplace_kfold_delta_mp(eps, k, e)

    for d in (1e-12, 1e-14, 1e-9):
        lo, hi = g.epsilon_bounds(d)
        lo_x, hi_x = epsilon_bracket_mp(exact, d, hi=k * eps)
        assert lo <= hi_x and hi >= lo_x
    for e in (k * eps - 60.0, k * eps - 25.0, 0.5 * k * eps):
        d_lo, d_hi = g.delta_bounds(e)
        x = exact(e)
        assert d_lo <= x + slack and d_hi >= x
    assert g.provenance["pld"]["tilted"]  # the tilted curves answered (and were checked)


def test_tilted_distinct_randomized_responses_bracket_the_enumeration(always_tilt):
    eps_list = [0.3 + 0.17 * i for i in range(12)]
    law = rr_law(eps_list)
    g = dpc.compose([dpc.RandomizedResponse(e) for e in eps_list], method="pld")
    for d in (1e-12, 1e-10):
        lo, hi = g.epsilon_bounds(d)
        x_lo, x_hi = exact_epsilon(lambda x: rr_delta(eps_list, x, law), d, hi=sum(eps_list))
        assert lo <= x_hi and hi >= x_lo
    for x in (5.0, 9.0, 12.0):
        d_lo, d_hi = g.delta_bounds(x)
        truth = rr_delta(eps_list, x, law)
        assert d_lo <= truth <= d_hi
    assert g.provenance["pld"]["tilted"]


def _rr_kfold_delta(eps, k, e):
    """delta(e) of k randomized responses RR(eps), by the binomial sum in mpmath (exact to
    the working precision): the loss is eps (k - 2j) with probability C(k, j) p^{k-j} (1-p)^j."""
    with mp.workdps(60):
        eps, e = mp.mpf(eps), mp.mpf(e)
        p = 1 / (1 + mp.exp(-eps))
        return +mp.fsum(mp.binomial(k, j) * p ** (k - j) * (1 - p) ** j * -mp.expm1(e - eps * (k - 2 * j))
                        for j in range(k + 1) if eps * (k - 2 * j) > e)


def test_deep_tail_of_many_randomized_responses_is_certified_and_tight():
    """RR(0.1) x 3000 at delta 1e-12 and 1e-20 (7 and 9 standard deviations out): the plain
    grid's round-off (~9e-11) left only [49.1, 300]; with the default rule pld tilts and
    brackets the binomial truth within 1e-7 relative."""
    k, eps = 3000, 0.1
    g = dpc.compose([(dpc.RandomizedResponse(eps), k)], method="pld")
    for d in (1e-12, 1e-20):
        lo, hi = g.epsilon_bounds(d)
        # the exact profile is non-increasing: hi is an upper bound iff delta(hi) <= d, and
        # lo a lower bound where delta(lo) >= d
        assert _rr_kfold_delta(eps, k, hi) <= d <= _rr_kfold_delta(eps, k, lo)
        assert hi - lo <= 1e-7 * hi
    for e in (50.0, 60.0):
        d_lo, d_hi = g.delta_bounds(e)
        truth = _rr_kfold_delta(eps, k, e)
        assert d_lo <= truth <= d_hi
        assert d_hi <= truth * (1 + 1e-5)
    assert g.provenance["pld"]["tilted"]


def _rr_upper_tail_delta(eps, k, e, terms=3000):
    """delta(e) of k x RR(eps) where only the far tail lies above e: the binomial terms with
    loss eps (k - 2j) > e, summed in mpmath from the last one (the largest) down. Going down
    in j each term shrinks by the factor ((1 - p)/p) (k - j)/(j + 1) < 1/1.2 here, so the
    terms left out after ``terms`` are below 1.2^-terms of the largest: exact to the
    working precision (errs low by less than that)."""
    with mp.workdps(40):
        eps, e = mp.mpf(eps), mp.mpf(e)
        p = 1 / (1 + mp.exp(-eps))
        lp, lq = mp.log(p), mp.log(1 - p)
        j_max = int(mp.ceil((k - e / eps) / 2)) - 1  # the largest j with loss > e
        while eps * (k - 2 * (j_max + 1)) > e:
            j_max += 1
        while eps * (k - 2 * j_max) <= e:
            j_max -= 1
        total = mp.mpf(0)
        for j in range(j_max, max(-1, j_max - terms), -1):
            log_b = mp.loggamma(k + 1) - mp.loggamma(j + 1) - mp.loggamma(k - j + 1)
            total += mp.exp(log_b + (k - j) * lp + j * lq) * -mp.expm1(e - eps * (k - 2 * j))
        return total


def test_pure_dp_huge_count_at_1e_300_is_certified_by_the_binomial_tail():
    """10^5 x PureDP(0.01) at delta 1e-300: the plain grid could only say 1000 (the pure-DP
    sum); tilted, pld says ~121.78, and the exact binomial tail there is below 1e-300."""
    g = dpc.compose([(dpc.PureDP(0.01), 10 ** 5)], method="pld")
    e = g.epsilon(1e-300)
    assert e < 200.0
    assert _rr_upper_tail_delta(0.01, 10 ** 5, e) <= mp.mpf(1e-300)
    assert _rr_upper_tail_delta(0.01, 10 ** 5, e - 1.0) > mp.mpf(1e-300)  # and it is close


def test_tilted_grid_masses_are_the_exact_tilt_within_its_error():
    """One single grid tilted: every entry against p_j e^{lam l_j} / Z in mpmath, l1 within err."""
    from dpcompose.methods.pld.grid import GridPLD

    rng = np.random.default_rng(3)
    p = np.exp(rng.uniform(-60.0, 0.0, 500))
    p /= p.sum()
    g = GridPLD("upper", 0.013, -200, p)
    for lam in (0.01, 1.0, 7.5):
        t, log_z, mass_up = _tilt(g, lam)
        with mp.workdps(50):
            z = mp.exp(mp.mpf(log_z))
            exact = [mp.mpf(float(pj)) * mp.exp(lam * (g.start + j) * mp.mpf(g.h)) / z
                     for j, pj in enumerate(p)]
            l1 = mp.fsum(abs(mp.mpf(float(q)) - x) for q, x in zip(t.p, exact))
            assert l1 <= t.err
            assert mp.fsum(exact) <= mass_up


def test_best_lambda_minimises_the_chernoff_bound_roughly():
    """The chosen tilt is within a factor 2 of the best on a fine scan (any tilt is valid;
    this only checks that the search does what it says)."""
    from dpcompose.methods.pld.grid import GridPLD

    g = GridPLD("upper", 0.01, -100, np.full(201, 1.0 / 201))
    lam = best_lambda([(g, 50)], delta=1e-12)
    loss = np.arange(-100, 101) * 0.01

    def f(x):  # the Chernoff epsilon at 1e-12 of 50 copies, in mpmath
        log_mgf = mp.log(mp.fsum(mp.exp(x * mp.mpf(float(v))) for v in loss)) - mp.log(201)
        return float((50 * log_mgf + 12 * mp.log(10)) / x)

    scan = 2.0 ** np.linspace(-10, 10, 321)
    best = scan[int(np.argmin([f(x) for x in scan]))]
    assert best / 2 <= lam <= best * 2


@pytest.mark.slow
def test_hospital_like_laplace_at_1e_12_is_not_worse_than_simple():
    """The issue-14 reproduction: the 365 smallest of 10,000 scales uniform in [5, 200]
    (seed 0), at delta 1e-12. The plain grid's round-off (~5e-10) made pld report 44.80
    (simple: 44.75); tilted, pld's bracket lies inside [0, optimal's upper bound]."""
    rng = np.random.default_rng(0)
    scales = np.sort(rng.uniform(5.0, 200.0, size=10_000))[:365]
    mechs = [dpc.Laplace(scale=float(s)) for s in scales]
    lo, hi = dpc.compose(mechs, method="pld").epsilon_bounds(1e-12)
    simple = dpc.compose(mechs, method="simple").epsilon(1e-12)
    optimal = dpc.compose(mechs, method="optimal").epsilon(1e-12)  # an upper bound on the truth
    assert hi <= simple
    assert lo <= optimal
    assert hi < 0.5 * simple  # near the truth (~18.6), not at the pure-DP sum
