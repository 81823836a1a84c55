"""pld's Curve locator ``decaying_sums`` (issue 14): the blocked, vectorised form of
``y[j] = x[j] + e y[j-1]`` against the exact sum in mpmath (independent truth).

The sums only locate where delta(eps) crosses the target (the answer is then certified by
``Curve.delta_finite``); they are still checked to the relative error the docstring states.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles.precision import at_least_digits

from dpcompose.methods.pld.curve import _BLOCK_LOG_SPAN, decaying_sums

U = 2.0**-53


@at_least_digits(40)
def _exact(x: np.ndarray, e: float) -> list:
    """y_j = sum_{i <= j} e^{j-i} x_i with the double e taken exactly (no rounding error)."""
    E = mp.mpf(e)
    out, acc = [], mp.mpf(0)
    for v in x:
        acc = mp.mpf(float(v)) + E * acc
        out.append(acc)
    return out


def _check(x: np.ndarray, e: float) -> None:
    got = decaying_sums(x, e)
    assert got.dtype == np.float64 and got.shape == x.shape
    h = -math.log(e) if e > 0 else math.inf
    block = min(x.size, int(_BLOCK_LOG_SPAN / h)) if 0 < h < math.inf else x.size
    tol = (block + 4) * 2 * U  # the docstring's bound, with a factor 2 to spare
    for g, y in zip(got, _exact(x, e)):
        if y == 0:
            assert g == 0.0
        else:
            assert abs(mp.mpf(float(g)) - y) <= tol * y + mp.mpf(2) ** -1074


@pytest.mark.parametrize("h", [1e-9, 1e-6, 1e-3, 0.05, 0.7, 30.0, 400.0, 800.0])
@pytest.mark.parametrize("n", [1, 2, 7, 1500])
def test_blocked_sums_match_the_exact_recurrence(h, n):
    rng = np.random.default_rng(n + int(h * 1e6))
    x = rng.random(n) * np.exp(-rng.random(n) * rng.choice([1.0, 100.0, 700.0, 740.0]))
    x[rng.random(n) < 0.2] = 0.0
    _check(x, math.exp(-h))


def test_many_blocks_carry_the_sum_across():
    """h = 35: blocks of 10 entries, so 40 entries cross three block edges; x = 1 keeps
    every contribution visible (y_j = sum_k e^{-35 k})."""
    _check(np.ones(40), math.exp(-35.0))
    _check(np.zeros(5), math.exp(-0.1))
    assert decaying_sums(np.array([]), 0.5).size == 0


@settings(max_examples=40, deadline=None)
@given(st.lists(st.floats(0.0, 1.0), min_size=1, max_size=60), st.floats(1e-8, 50.0))
def test_blocked_sums_match_the_exact_recurrence_property(xs, h):
    _check(np.array(xs), math.exp(-h))


@at_least_digits(60)
def _exact_finite(p: np.ndarray, loss: np.ndarray, eps: float):
    """sum over loss_j > eps of p_j (1 - e^{eps - loss_j}), the doubles taken exactly."""
    e = mp.mpf(eps)
    return mp.fsum(mp.mpf(float(pj)) * -mp.expm1(e - mp.mpf(float(lj)))
                   for pj, lj in zip(p, loss) if lj > eps)


@pytest.mark.parametrize("seed", range(6))
def test_delta_finite_rounding_bound_against_mpmath(seed):
    """Curve.delta_finite's stated bound |s - S| <= gamma_{n+3} S (its docstring), against an
    mpmath sum of the same doubles; and the value returned is on the curve's side of S."""
    from dpcompose.methods.pld.curve import Curve, finite_sum_error
    from dpcompose.methods.pld.grid import GridPLD

    rng = np.random.default_rng(seed)
    n = int(rng.integers(2, 3000))
    h = float(rng.choice([1e-4, 3.7e-3, 0.05, 1.0]))
    start = int(rng.integers(-n, n))
    # masses over many orders of magnitude (the worst case for absolute-error sums)
    p = np.exp(rng.uniform(-80.0, 0.0, n))
    p /= p.sum()
    for kind in ("upper", "lower"):
        c = Curve(GridPLD(kind, h, start, p.copy()))
        for q in (0.0, 0.2, 0.5, 0.9, 0.999):
            eps = max(0.0, float(c.loss[0] + q * (c.loss[-1] - c.loss[0])))
            shifted = c._shift(eps)
            j0 = int(np.searchsorted(c.loss, shifted, side="right"))
            m = c.loss.size - j0
            exact = _exact_finite(p, c.loss, shifted)
            # the raw double sum, as delta_finite computes it before rounding outward
            raw = float(np.dot(p[j0:], -np.expm1(shifted - c.loss[j0:])))
            assert abs(mp.mpf(raw) - exact) <= finite_sum_error(m) * exact
            got = c.delta_finite(eps)
            if kind == "upper":
                assert mp.mpf(got) >= exact
            else:
                assert mp.mpf(got) <= exact
            assert abs(mp.mpf(got) - exact) <= 3 * finite_sum_error(m) * exact
