"""The second-order bracket of optimal composition for many distinct epsilons (issue 14, W2).

Independent truth (``tests/oracles/rr_product.py``): the hockey-stick divergences of the
randomized-response pairs and of their flagged mixtures, and the optimal composition of
heterogeneous (eps_i, delta_i)-DP by enumerating all 2^k sign vectors, in mpmath at 40
digits. Assertions are one-sided where the invariant is: ``lower <= exact <= upper``.
"""

from __future__ import annotations

import math
import random

import mpmath as mp
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dpcompose as dpc
from dpcompose.methods.optimal import lattice
from dpcompose.methods.optimal import optimal_composition
from oracles.rr_product import approx_delta, exact_epsilon, mixture_hockey, rr_delta, rr_hockey, rr_law


def _mixture_check(eps: float, eta: float) -> None:
    fl, ce = lattice._grid_steps(eps, eta)
    if fl == ce:
        return
    lam = lattice._mixture_weight(eps, fl, eta)
    with mp.workdps(40):
        a, b = mp.mpf(fl) * mp.mpf(eta), mp.mpf(ce) * mp.mpf(eta)  # the exact lattice points
        assert a <= mp.mpf(eps) <= b
        # the difference is piecewise linear in gamma with kinks at e^a, e^eps, e^b: the
        # kinks, 1, beyond e^b and points between (gamma < 1 follows by symmetry; checked too)
        logs = [mp.mpf(0), a, mp.mpf(eps), b, b + 1, (a + mp.mpf(eps)) / 2, (mp.mpf(eps) + b) / 2,
                -a, -mp.mpf(eps), -b, mp.mpf(eps) / 3]
        for lg in logs:
            # (equal where both are 0 or both 1 - gamma: 1e-35 covers the 40-digit evaluation)
            assert mixture_hockey(lam, a, b, lg) >= rr_hockey(eps, lg) - mp.mpf("1e-35"), (eps, eta, lg)
        # and lambda is the smallest such weight, up to its rounding margin
        t = mp.tanh
        lam0 = (t(mp.mpf(eps) / 2) - t(a / 2)) / (t(b / 2) - t(a / 2))
        lam1 = (mp.exp(eps) - mp.exp(a)) * (1 + mp.exp(b)) / ((1 + mp.exp(eps)) * (mp.exp(b) - mp.exp(a)))
        assert lam <= max(lam0, lam1) * (1 + 1e-12) + 1e-14 * (fl + 2)  # the absolute margin 8u(n + 2)


@pytest.mark.parametrize("eps, eta", [(0.0123, 0.005), (0.1, 0.003), (1.7, 0.25), (0.04, 0.1),
                                      (5.0, 0.7), (0.3, 0.3 / 7 * 1.0000001), (2e-4, 1e-3),
                                      (1.1, 1e-4)])  # eps - n eta rounds to 0 in floats
def test_mixture_dominates_randomized_response(eps, eta):
    """lam RR(b) + (1 - lam) RR(a) dominates RR(eps) at every gamma (mpmath hockey sticks)."""
    _mixture_check(eps, eta)


@settings(max_examples=60)
@given(eps=st.floats(1e-4, 6.0), eta=st.floats(1e-4, 1.0))
def test_law_mixture_dominates_randomized_response(eps, eta):
    _mixture_check(eps, eta)


def _pairs(seed: int, k: int) -> list[tuple[float, float]]:
    rng = random.Random(seed)
    return [(rng.choice([0.02, 0.1, 0.3, 0.7, 1.2]) * rng.uniform(0.5, 1.5),
             rng.choice([0.0, 0.0, 1e-6, 1e-3])) for _ in range(k)]


@pytest.mark.parametrize("seed, k, error", [(1, 4, 0.02), (2, 7, 0.2), (3, 9, 1.0), (4, 10, 3.0),
                                            (5, 6, 8.0), (6, 10, 0.5)])
def test_bracket_contains_exact_optimal_composition(seed, k, error):
    """lower <= exact <= upper for delta(x) and epsilon(delta), coarse grids included
    (error = 3 or 8 puts eta above some epsilons: lattice points 0 and 1)."""
    pairs = _pairs(seed, k)
    g = optimal_composition(pairs, error=error, max_exact_support=1)
    assert g.provenance["path"] == "lattice" and g.has_lower_bound and not g.exact
    total = sum(e for e, _ in pairs)
    law = rr_law([e for e, _ in pairs])
    for frac in [0.0, 0.05, 0.2, 0.45, 0.7, 0.95, 1.1]:
        x = frac * total
        ref = approx_delta(pairs, x, law)
        lo, hi = g.delta_bounds(x)
        assert mp.mpf(lo) <= ref <= mp.mpf(hi), (x, lo, float(ref), hi)
    for target in [0.3, 1e-2, 1e-4, 1e-7]:
        elo, ehi = exact_epsilon(lambda x: approx_delta(pairs, x, law), target, hi=total + 1)
        lo, hi = g.epsilon_bounds(target)
        assert lo <= ehi and elo <= hi, (target, lo, elo, ehi, hi)
        if math.isfinite(ehi):
            assert hi - lo <= error * (1 + 1e-6) + 1e-12  # the a-priori width (2k + 1) eta


@settings(max_examples=15, deadline=None)
@given(eps_list=st.lists(st.floats(0.005, 2.0), min_size=2, max_size=9),
       error=st.sampled_from([0.01, 0.3, 2.0]), frac=st.floats(0.0, 1.0))
def test_law_bracket_contains_exact_rr_delta(eps_list, error, frac):
    g = optimal_composition([(e, 0.0) for e in eps_list], error=error, max_exact_support=1)
    x = frac * sum(eps_list)
    ref = rr_delta(eps_list, x)
    lo, hi = g.delta_bounds(x)
    assert mp.mpf(lo) <= ref <= mp.mpf(hi)


def test_bracket_is_second_order_in_the_step():
    """Halving the step shrinks the realised width about fourfold (first order would halve it)."""
    pairs = [(0.05 + 0.4 * i / 59, 1e-9) for i in range(60)]
    widths = []
    for error in [4.0, 2.0]:
        lo, hi = optimal_composition(pairs, error=error, max_exact_support=1).epsilon_bounds(1e-6)
        widths.append(hi - lo)
    assert widths[1] <= widths[0] / 3.0
    assert widths[0] <= 0.02 * 4.0  # far below the a-priori width


def test_w2_default_bracket_within_1e_4():
    """The benchmark's W2: 1000 distinct (eps_i, 1e-9), delta 1e-5, default options."""
    mechs = [dpc.ApproxDP(0.01 + 0.19 * i / 999, 1e-9) for i in range(1000)]
    g = dpc.compose(mechs, method="optimal")
    lo, hi = g.epsilon_bounds(1e-5)
    assert g.provenance["path"] == "lattice"
    assert 0 < lo <= hi <= lo * (1 + 1e-4)
    # the old first-order bracket's ends (main before this change) still enclose it
    assert 22.155 <= lo and hi <= 22.367
    assert math.isfinite(g.epsilon(2e-6)) and g.epsilon(1e-7) == math.inf  # the delta atoms: 1e-6


def test_bracket_far_out_where_the_mirror_tail_underflows():
    """Losses near 800: P(N <= -m) underflows, the first-order rounding bound takes over below."""
    eps = [90.0 + 3.1 * i for i in range(8)]
    g = optimal_composition([(e, 0.0) for e in eps], error=2.0, max_exact_support=1)
    law = rr_law(eps)
    for x in [300.0, 720.0, 745.0, 790.0, 800.0, 806.0]:
        ref = rr_delta(eps, x, law)
        lo, hi = g.delta_bounds(x)
        assert mp.mpf(lo) <= ref <= mp.mpf(hi), (x, lo, float(ref), hi)
        assert lo > 0.5 * float(ref)  # useful, not the trivial 0
    elo, ehi = exact_epsilon(lambda x: rr_delta(eps, x, law), 1e-6, hi=sum(eps) + 1)
    lo, hi = g.epsilon_bounds(1e-6)
    assert lo <= ehi and elo <= hi and hi - lo <= 2.0
