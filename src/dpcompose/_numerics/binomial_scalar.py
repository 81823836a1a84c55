r"""Binomial numerics for one outcome at a time, without numpy (the first ``optimal`` query).

The same formulas and error bounds as the array forms in :mod:`.binomial` (Loader, "Fast
and Accurate Computation of Binomial Probabilities", 2000: ``stirlerr`` and ``bd0``), for a
single point, so that the optimal method's one-group path (:mod:`dpcompose.methods.optimal.window`)
needs no numpy import (issue 14, cold start). :func:`chernoff_window` and
:func:`kl_bernoulli` live here too; :mod:`.binomial` re-exports them.
"""

from __future__ import annotations

import math
from typing import Callable

from .logspace import LOG_SQRT_2PI
from .rounding import UNIT_ROUNDOFF

__all__ = ["kl_bernoulli", "chernoff_window", "stirlerr_scalar", "bd0_scalar",
           "log_binom_pmf_scalar", "LOADER_MIN_N", "LOG_FACTORIAL"]

#: below this many trials, log-factorial differences are accurate enough
LOADER_MIN_N = 64

#: log(n!) for n = 0..LOADER_MIN_N from the exact integer n!: one rounding to a double, one
#: of the log (error within 2 ulps of log(n!))
LOG_FACTORIAL = tuple(math.log(math.factorial(n)) for n in range(LOADER_MIN_N + 1))

_U = UNIT_ROUNDOFF


def _rel_entr(x: float, y: float) -> float:
    """``scipy.special.rel_entr`` for scalars: x log(x/y), 0 at x = 0 (y >= 0), inf elsewhere."""
    if math.isnan(x) or math.isnan(y):
        return math.nan
    if x > 0.0 and y > 0.0:
        return x * math.log(x / y)
    return 0.0 if x == 0.0 and y >= 0.0 else math.inf


def kl_bernoulli(x: float, q: float) -> float:
    """The Kullback-Leibler divergence D(Bernoulli(x) || Bernoulli(q))."""
    return _rel_entr(x, q) + _rel_entr(1.0 - x, 1.0 - q)


def _last_true(lo: int, hi: int, holds: Callable[[int], bool]) -> int:
    """The largest a in [lo, hi) with ``holds(a)``, for ``holds`` taken as true at lo and false at
    hi, and switching once between (binary search; neither end is asked)."""
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if holds(mid):
            lo = mid
        else:
            hi = mid
    return lo


def chernoff_window(c: int, q: float, exponent: float) -> tuple[int, int]:
    """[lo, hi] with P[X < lo] and P[X > hi] each <= e^{-exponent} for X ~ Bin(c, q).

    Chernoff: P[X <= a] <= exp(-c D(a/c || q)) for a <= cq (and symmetrically above).
    """
    T = exponent
    mean = c * q

    def far(a: int) -> bool:
        return c * kl_bernoulli(a / c, q) >= T

    # lower end: the largest a <= mean with c D(a/c || q) >= T (D falls towards the mean), lo = a + 1
    lo = 0 if c * kl_bernoulli(0.0, q) < T else _last_true(0, int(math.floor(mean)), far) + 1
    # upper end: the first b >= mean with c D(b/c || q) >= T (D rises from the mean; b = c is
    # one), hi = b - 1: the last b before it
    if c * kl_bernoulli(1.0, q) < T:
        hi = c
    else:
        hi = min(_last_true(int(math.ceil(mean)), c, lambda b: not far(b)), c - 1)
    lo = max(0, min(lo, c))
    hi = max(lo, min(hi, c))
    return lo, hi


def stirlerr_scalar(n: int) -> tuple[float, float]:
    r"""(:math:`\log n! - (n + 1/2)\log n + n - \log\sqrt{2\pi}`, absolute error bound), integer n >= 1.

    As :func:`dpcompose._numerics.binomial.stirlerr`: the series
    :math:`1/(12n) - 1/(360n^3) + 1/(1260n^5) - 1/(1680n^7) + 1/(1188n^9)` for n >= 16
    (truncation below 1e-17 there), the exact log-factorial table below.
    """
    if n >= 16:
        r = 1.0 / n
        r2 = r * r
        series = r2 / 1188
        for coef in (1.0 / 1680, 1.0 / 1260, 1.0 / 360):
            series = (coef - series) * r2
        series = (1.0 / 12 - series) * r
        return series, abs(series) * 8.0 * _U + 1e-17 * r
    g = LOG_FACTORIAL[n]
    lg = (n + 0.5) * math.log(n)
    return g - lg + n - LOG_SQRT_2PI, 32.0 * _U * (abs(g) + abs(lg) + n + 1.0)


def bd0_scalar(x: float, m: float) -> tuple[float, float]:
    r"""(:math:`x \log(x/m) + m - x` without cancellation, absolute error bound).

    As :func:`dpcompose._numerics.binomial.bd0`: near :math:`x = m` (:math:`|x - m| < 0.1
    (x + m)`) the series in :math:`v = (x - m)/(x + m)`,
    :math:`(x - m) v + 2x \sum_{j \ge 1} v^{2j+1}/(2j+1)`, with as many terms as put the rest
    below :math:`2.1 x \cdot 10^{-27}`; elsewhere the direct form.
    """
    d = x - m
    s = x + m
    if abs(d) < 0.1 * s:
        v = d / s
        v2 = v * v
        term = 2.0 * x * v
        acc = d * v
        terms = 12
        if 0.0 < v2 < 0.01:
            terms = max(1, min(12, int(math.ceil(-27.0 * math.log(10.0) / math.log(v2) / 2.0))))
        elif v2 == 0.0:
            terms = 1
        for j in range(1, terms + 1):
            term *= v2
            acc += term * (1.0 / (2 * j + 1))
        err = (abs(acc) + abs(d) + abs(v) * m + 1.0) * (16.0 * _U) + x * 3e-27
        return acc, err
    xlog = x * math.log(x / m) if x > 0 else 0.0
    direct = xlog + m - x
    return direct, 16.0 * _U * (abs(direct) + abs(xlog) + m + x + 1.0)


def log_binom_pmf_scalar(c: int, l: int, q: float, p: float, log_p: float,
                         log_q: float) -> tuple[float, float]:
    r"""log of the Bin(c, q) pmf at the integer l (p = 1 - q) and a bound on its absolute error.

    Loader's form (as :func:`dpcompose._numerics.binomial.log_binom_pmf`):
    :math:`\log f(l) = \mathrm{stirlerr}(c) - \mathrm{stirlerr}(l) - \mathrm{stirlerr}(c-l)
    - \mathrm{bd0}(l, cq) - \mathrm{bd0}(c-l, cp) + \tfrac12\log\frac{c}{2\pi l (c-l)}`;
    l = 0 and l = c use :math:`c\log p` and :math:`c \log q`. Below :data:`LOADER_MIN_N`
    trials, the exact log-factorial table.
    """
    if c < LOADER_MIN_N:
        g = LOG_FACTORIAL[c]
        val = g - LOG_FACTORIAL[l] - LOG_FACTORIAL[c - l] + (c - l) * log_p + l * log_q
        return val, 16.0 * _U * (3.0 * g + c * (abs(log_p) + abs(log_q)) + 16.0)
    if l <= 0:
        return c * log_p, 8.0 * _U * (c * abs(log_p) + 1.0)
    if l >= c:
        return c * log_q, 8.0 * _U * (c * abs(log_q) + 1.0)
    r = c - l
    s_c, e_c = stirlerr_scalar(c)
    s_l, e_l = stirlerr_scalar(l)
    s_r, e_r = stirlerr_scalar(r)
    b_l, eb_l = bd0_scalar(float(l), c * q)
    b_r, eb_r = bd0_scalar(float(r), c * p)
    log_c = math.log(c)
    half = (log_c - math.log(l) - math.log(r)) * 0.5 - LOG_SQRT_2PI
    val = s_c - s_l - s_r - b_l - b_r + half
    err = (e_c + e_l + e_r + eb_l + eb_r
           + 8.0 * _U * (abs(half) + 2.0 * log_c + abs(b_l) + abs(b_r) + abs(val) + 1.0)
           + 4.0 * _U * (abs(b_l) + abs(b_r)))
    return val, err
