"""The order search of the zCDP conversion (issue 14, item 2: ZCDP under auto).

``_best_order`` finds the root of the exponent's slope by safeguarded Newton steps. Any
order gives a valid bound (the bound is evaluated at the order and rounded up), so the
search affects tightness only. Checked against an independent reference: plain bisection
of the same slope in mpmath at 50 digits (it errs on neither side beyond its 2^-200
bracket), and the bound at that order in mpmath; ours may exceed it only by the float
noise of evaluating the bound (a relative 1e-9 of delta).
"""

from __future__ import annotations

import math

import mpmath as mp
from hypothesis import given, settings
from hypothesis import strategies as st

from dpcompose.representations.zcdp import _best_order, zcdp_log_delta_at


def _root_mp(rho: float, eps: float) -> mp.mpf:
    """t = log(alpha - 1) where the slope (1 + 2e^t) rho - eps + t - log(1 + e^t) changes sign."""
    with mp.workdps(50):
        def slope(t):
            return (1 + 2 * mp.exp(t)) * rho - eps + t - mp.log1p(mp.exp(t))

        lo, hi = mp.mpf(-35), mp.mpf(650)
        if slope(lo) >= 0:
            return lo
        if slope(hi) <= 0:
            return hi
        for _ in range(200):
            mid = (lo + hi) / 2
            if slope(mid) < 0:
                lo = mid
            else:
                hi = mid
        return hi


def _log_bound_mp(rho: float, eps: float, t: mp.mpf) -> mp.mpf:
    with mp.workdps(50):
        am1 = mp.exp(t)
        return am1 * ((1 + am1) * rho - eps) + am1 * t - (1 + am1) * mp.log1p(am1)


@given(st.floats(1e-8, 1e4), st.one_of(st.just(0.0), st.floats(1e-6, 3e3)))
@settings(max_examples=150, deadline=None)
def test_order_is_the_minimiser(rho, eps):
    a = _best_order(rho, eps)
    assert a > 1.0
    ours = zcdp_log_delta_at(rho, eps, a)
    best = float(_log_bound_mp(rho, eps, _root_mp(rho, eps)))
    # never below the true minimum over orders (it is a valid bound at a real order) ...
    assert ours >= best - 1e-12 * (1.0 + abs(best))
    # ... and at the minimum up to the float noise of the evaluation
    if best > -700.0:
        assert ours <= best + 1e-9 * (1.0 + abs(best))


def test_edges_of_the_bracket():
    # slope >= 0 already at alpha = 1 + e^-35 (huge rho) and <= 0 at alpha = 1 + e^650 (tiny rho, huge eps)
    assert _best_order(1e6, 0.0) == 1.0 + math.exp(-35.0)
    assert _best_order(1e-300, 1e3) == 1.0 + math.exp(650.0)
