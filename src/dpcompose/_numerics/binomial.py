r"""Binomial log-masses with a bound on their floating-point error (the optimal method's engine).

:func:`log_binom_pmf` is Loader's saddle-point form of the binomial pmf (Loader, "Fast
and Accurate Computation of Binomial Probabilities", 2000): ``stirlerr`` and ``bd0``
keep the error of a log-mass a few ulps of its own size rather than of
:math:`\log c!`. :func:`chernoff_window` cuts a binomial to the outcomes outside of
which a Chernoff bound leaves a given mass (it and :func:`kl_bernoulli` live in the numpy-free
:mod:`.binomial_scalar`, with the one-point forms of the log-mass).
"""

from __future__ import annotations

import math

import numpy as np

from .binomial_scalar import LOADER_MIN_N, LOG_FACTORIAL, chernoff_window, kl_bernoulli
from .lazy import lazy_function
from .logspace import LOG_SQRT_2PI
from .rounding import UNIT_ROUNDOFF

gammaln = lazy_function("scipy.special", "gammaln")  # imported on first use (cold start)

__all__ = ["kl_bernoulli", "chernoff_window", "stirlerr", "bd0", "log_binom_pmf", "log_factorial",
           "LOADER_MIN_N"]

#: log(n!) for n = 0..LOADER_MIN_N (:data:`.binomial_scalar.LOG_FACTORIAL`) as an array: no
#: SciPy import for small binomials
_LOG_FACTORIAL = np.array(LOG_FACTORIAL)


def log_factorial(n: np.ndarray | float) -> np.ndarray:
    """log(n!) elementwise, i.e. ``gammaln(n + 1)``.

    Integers 0..:data:`LOADER_MIN_N` come from a table of the exact factorials' logs (at
    least as accurate as ``gammaln``); anything else goes to ``scipy.special.gammaln``.
    """
    a = np.asarray(n, dtype=np.float64)
    if a.size == 0 or bool(np.all((a >= 0.0) & (a <= LOADER_MIN_N) & (a == np.floor(a)))):
        return _LOG_FACTORIAL[a.astype(np.intp)]
    return gammaln(a + 1.0)


def _stirlerr_series(n: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`stirlerr`'s series branch (every n >= 16): (value, absolute error bound)."""
    r = 1.0 / n
    r2 = r * r
    # r (1/12 - r2 (1/360 - r2 (1/1260 - r2 (1/1680 - r2/1188)))), evaluated in place
    series = r2 / 1188
    for coef in (1.0 / 1680, 1.0 / 1260, 1.0 / 360):
        np.subtract(coef, series, out=series)
        series *= r2
    np.subtract(1.0 / 12, series, out=series)
    series *= r
    err = np.abs(series)
    err *= 8.0 * UNIT_ROUNDOFF
    err += 1e-17 * r
    return series, err


def stirlerr(n: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r"""(:math:`\log n! - (n + 1/2)\log n + n - \log\sqrt{2\pi}`, absolute error bound), n >= 1.

    Series :math:`1/(12n) - 1/(360n^3) + 1/(1260n^5) - 1/(1680n^7) + 1/(1188n^9)` for
    n >= 16 (truncation below 1e-17 there), :func:`log_factorial` below.
    """
    n = np.asarray(n, dtype=np.float64)
    big = n >= 16.0
    if n.size and bool(big.all()):
        # the usual case (every n in a large window): the series alone, no masked copies
        return _stirlerr_series(n)
    val = np.empty_like(n)
    err = np.empty_like(n)
    val[big], err[big] = _stirlerr_series(n[big])
    small = ~big
    ns = n[small]
    g = log_factorial(ns)
    lg = (ns + 0.5) * np.log(ns)
    val[small] = g - lg + ns - LOG_SQRT_2PI
    err[small] = 32.0 * UNIT_ROUNDOFF * (np.abs(g) + np.abs(lg) + ns + 1.0)
    return val, err


def _bd0_series(xn: np.ndarray, d: np.ndarray, s: np.ndarray, m: float) -> tuple[np.ndarray, np.ndarray]:
    """:func:`bd0` where every :math:`|x - m| < 0.1 (x + m)`: d = x - m, s = x + m."""
    v = d / s
    v2 = v * v
    term = 2.0 * xn
    term *= v
    acc = d * v
    v2max = float(np.max(v2)) if v2.size else 0.0  # < 0.01
    terms = 12
    if 0.0 < v2max < 0.01:
        terms = max(1, min(12, int(math.ceil(-27.0 * math.log(10.0) / math.log(v2max) / 2.0))))
    elif v2max == 0.0:
        terms = 1
    scaled = np.empty_like(term)
    for j in range(1, terms + 1):
        term *= v2
        np.multiply(term, 1.0 / (2 * j + 1), out=scaled)
        acc += scaled
    # truncation: the rest is at most 2x |v|^(2 terms + 3) / (1 - v^2) <= 2.1x * 1e-27
    # (terms chosen for that); |x - m| carries the rounding of m (u m):
    # err = 16 u (|acc| + |d| + m |v| + 1) + 3e-27 x, evaluated in place
    err = np.abs(acc)
    err += np.abs(d)
    np.abs(v, out=v)
    v *= m
    err += v
    err += 1.0
    err *= 16.0 * UNIT_ROUNDOFF
    np.multiply(xn, 3e-27, out=scaled)
    err += scaled
    return acc, err


def bd0(x: np.ndarray, m: float) -> tuple[np.ndarray, np.ndarray]:
    r"""(:math:`x \log(x/m) + m - x` computed without cancellation, absolute error bound).

    Near :math:`x = m` the series in :math:`v = (x - m)/(x + m)`,
    :math:`(x - m) v + 2x \sum_{j \ge 1} v^{2j+1}/(2j+1)` (Loader's saddle-point method).
    """
    x = np.asarray(x, dtype=np.float64)
    d_all = x - m
    s_all = x + m
    near = np.abs(d_all) < 0.1 * s_all
    if x.size and bool(near.all()):
        # the usual case (a window around the mean): the series alone, no masked copies
        return _bd0_series(x, d_all, s_all, m)
    val = np.empty_like(x)
    err = np.empty_like(x)
    val[near], err[near] = _bd0_series(x[near], d_all[near], s_all[near], m)
    far = ~near
    xf = x[far]
    with np.errstate(divide="ignore", invalid="ignore"):
        xlog = np.where(xf > 0, xf * np.log(np.where(xf > 0, xf, 1.0) / m), 0.0)
    direct = xlog + m - xf
    val[far] = direct
    err[far] = 16.0 * UNIT_ROUNDOFF * (np.abs(direct) + np.abs(xlog) + m + xf + 1.0)
    return val, err


def log_binom_pmf(c: int, l: np.ndarray, q: float, p: float, log_p: float,
                   log_q: float) -> tuple[np.ndarray, float]:
    r"""log of the Bin(c, q) pmf at l (with p = 1 - q) and a bound on its absolute error.

    Loader's form
    :math:`\log f(l) = \mathrm{stirlerr}(c) - \mathrm{stirlerr}(l) - \mathrm{stirlerr}(c-l)
    - \mathrm{bd0}(l, cq) - \mathrm{bd0}(c-l, cp) + \tfrac12\log\frac{c}{2\pi l (c-l)}`
    keeps the error a few ulps of the log-pmf's own size, where ``gammaln`` differences
    would lose :math:`u \log c!` (1e-5 at c = 1e9). l = 0 and l = c use
    :math:`c\log p` and :math:`c \log q`.
    """
    l = np.asarray(l, dtype=np.float64)
    inner = (l > 0) & (l < c)
    if l.size and bool(inner.all()):
        # the usual case (a window inside 1..c-1): no edge outcomes to patch in
        val, err = _loader_inner(c, l, c - l, q, p)
        return val, float(np.max(err))
    val, err = _loader_inner(c, np.where(inner, l, 1.0), np.where(inner, c - l, 1.0), q, p)
    edge_val = np.where(l <= 0, c * log_p, c * log_q)
    edge_err = np.where(l <= 0, 8.0 * UNIT_ROUNDOFF * (c * abs(log_p) + 1.0), 8.0 * UNIT_ROUNDOFF * (c * abs(log_q) + 1.0))
    logp = np.where(inner, val, edge_val)
    errs = np.where(inner, err, edge_err)
    return logp, float(np.max(errs)) if errs.size else 0.0


def _loader_inner(c: int, li: np.ndarray, ri: np.ndarray, q: float, p: float) -> tuple[np.ndarray, np.ndarray]:
    """:func:`log_binom_pmf` at 0 < l < c, li = l, ri = c - l: (log-masses, their error bounds).

    The operations (and their order) are those of the formula in :func:`log_binom_pmf`,
    done in place on fresh arrays: the same roundings, fewer temporaries.
    """
    s_c, e_c = stirlerr(np.array([float(c)]))
    s_l, e_l = stirlerr(li)
    s_r, e_r = stirlerr(ri)
    b_l, eb_l = bd0(li, c * q)
    b_r, eb_r = bd0(ri, c * p)
    log_c = math.log(c)
    # half = 0.5 (log c - log l - log(c - l)) - log sqrt(2 pi)
    half = np.log(li)
    np.subtract(log_c, half, out=half)
    half -= np.log(ri)
    half *= 0.5
    half -= LOG_SQRT_2PI
    # val = stirlerr(c) - stirlerr(l) - stirlerr(c - l) - bd0(l, cq) - bd0(c - l, cp) + half
    val = np.subtract(s_c[0], s_l, out=s_l)
    val -= s_r
    val -= b_l
    val -= b_r
    val += half
    abs_bl, abs_br = np.abs(b_l), np.abs(b_r)
    # err = e_c + e_l + e_r + eb_l + eb_r + 8u (|half| + 2 log c + |b_l| + |b_r| + |val| + 1)
    #       + 4u (|b_l| + |b_r|)   (the last: rounding of c q and c p)
    err = np.add(e_c[0], e_l, out=e_l)
    err += e_r
    err += eb_l
    err += eb_r
    rounding = np.abs(half, out=half)
    rounding += 2.0 * log_c
    rounding += abs_bl
    rounding += abs_br
    rounding += np.abs(val, out=s_r)
    rounding += 1.0
    rounding *= 8.0 * UNIT_ROUNDOFF
    err += rounding
    np.add(abs_bl, abs_br, out=abs_bl)
    abs_bl *= 4.0 * UNIT_ROUNDOFF
    err += abs_bl
    return val, err
