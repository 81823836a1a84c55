"""The shared rounding vocabulary (dpcompose._numerics.rounding) against exact arithmetic."""

from __future__ import annotations

import math
from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from dpcompose._numerics.logspace import log1mexp, log_sub_exp, softplus
from dpcompose._numerics.rounding import (
    MACHINE_EPSILON,
    SMALLEST_SUBNORMAL,
    UNIT_ROUNDOFF,
    frac_down,
    frac_up,
    next_down,
    next_up,
    nudge_up,
    up_strict,
)

fractions = st.fractions(min_value=Fraction(-10**6), max_value=Fraction(10**6), max_denominator=10**12)


def test_constants_are_what_they_are_named():
    assert MACHINE_EPSILON == math.ulp(1.0) == 2 * UNIT_ROUNDOFF
    assert SMALLEST_SUBNORMAL == math.nextafter(0.0, 1.0)


@given(fractions)
def test_frac_up_and_down_are_the_nearest_doubles_on_each_side(q):
    hi, lo = frac_up(q), frac_down(q)
    assert Fraction(lo) <= q <= Fraction(hi)
    assert Fraction(math.nextafter(hi, -math.inf)) < q or Fraction(hi) == q
    assert Fraction(math.nextafter(lo, math.inf)) > q or Fraction(lo) == q


@given(st.floats(min_value=0.0, max_value=1e300, allow_subnormal=True), st.integers(1, 64))
def test_up_strict_moves_at_least_one_double_and_next_steps_count(x, n):
    y = up_strict(x, n)
    assert y >= x
    if x > 0.0:
        assert y > x
        assert y >= x * (1.0 + n * MACHINE_EPSILON)
    assert next_down(next_up(x, n), n) == x or x == 0.0


@given(st.floats(min_value=-50.0, max_value=50.0))
def test_log_space_helpers_against_direct_formulas(x):
    assert math.isclose(softplus(x), math.log1p(math.exp(x)), rel_tol=1e-14, abs_tol=1e-300)
    if x < -1e-3:
        assert math.isclose(log1mexp(x), math.log(1.0 - math.exp(x)), rel_tol=1e-10)
        assert math.isclose(log_sub_exp(0.0, x), math.log(1.0 - math.exp(x)), rel_tol=1e-10)


def test_nudge_up_ends_on_a_passing_point():
    calls = []

    def fn(v: float) -> float:
        calls.append(v)
        return 1.0 if v < 2.0 else 0.0

    x = nudge_up(fn, 1.0, 0.5, 10.0, 1e-3)
    assert 2.0 <= x < 10.0 and fn(x) <= 0.5
    assert nudge_up(fn, 1.0, 0.5, 1.5, 1e-3) == 1.5  # capped at the known passing point
