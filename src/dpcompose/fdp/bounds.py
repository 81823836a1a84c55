r"""The two bounds of a trade-off band on an epsilon grid: pure functions of arrays.

:func:`_grid_lines` is the certified lower curve (the maximum of
:math:`f_{\varepsilon,\delta_u(\varepsilon)}` over the grid, rounded down);
:func:`_interval_sup` the certified upper bound between grid points (secant lines of a
convex profile and linear-programming duality, rounded up). The mathematics and the
rounding rule are in :mod:`dpcompose.fdp`'s docstring.

Moved out of :mod:`dpcompose.fdp` unchanged (issue 15).
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np


_U = 2.0 ** -52
#: relative rounding margin applied to every computed value (a bound on the error of a
#: few correctly rounded operations, exp/expm1 within 2 ulps, with room to spare)
_MARGIN = 64.0 * _U


# ---------------------------------------------------------------------------
# the two bounds on a grid (pure functions of arrays)


def _grid_lines(alphas: np.ndarray, e: np.ndarray, d: np.ndarray, d_inf: float) -> tuple[np.ndarray, np.ndarray]:
    """max over grid points k of f_{e_k, d_k}(alpha) rounded down, and the arg max.

    The point at infinity contributes 1 - d_inf at alpha = 0 (and nothing elsewhere).
    """
    a = alphas[:, None]
    gam = np.exp(e)[None, :]
    inv = np.exp(-e)[None, :]
    dd = d[None, :]
    with np.errstate(over="ignore", invalid="ignore"):
        ga = gam * a
        t1 = (1.0 - dd - ga) - _MARGIN * (1.0 + dd + ga)
        t2 = inv * (1.0 - dd - a) - _MARGIN * (1.0 + dd + a)
    t1 = np.where(np.isnan(t1), -np.inf, t1)
    t = np.maximum(t1, t2)
    k = np.argmax(t, axis=1)
    v = t[np.arange(alphas.size), k]
    at0 = alphas == 0.0
    v = np.where(at0, np.maximum(v, (1.0 - d_inf) - _MARGIN), v)
    return np.maximum(v, 0.0), k


def _div(num: np.ndarray, den: np.ndarray, up: bool) -> np.ndarray:
    """num / den (den > 0) moved up or down by a bound on its error (num exact to u/2, den to 8u)."""
    q = num / den
    m = 16.0 * _U * np.abs(q)
    return q + m if up else q - m


def _pair_bound(l0: np.ndarray, r0: np.ndarray, l1: np.ndarray, r1: np.ndarray) -> np.ndarray:
    r"""An upper bound on :math:`\sup_x \min(\ell_0(x), \ell_1(x))` over an interval.

    ``l*``, ``r*`` are upper bounds on two linear functions at the interval's ends. For
    any :math:`\lambda \in [0, 1]` the sup is at most the larger end value of
    :math:`\lambda\ell_0 + (1 - \lambda)\ell_1`; :math:`\lambda` is chosen to level that
    combination (any choice is valid), and the result is rounded up.
    """
    s0, s1 = r0 - l0, r1 - l1
    den = s1 - s0
    with np.errstate(divide="ignore", invalid="ignore"):
        lam = np.where(den != 0.0, s1 / den, 1.0)
    lam = np.clip(np.nan_to_num(lam, nan=1.0), 0.0, 1.0)
    left = lam * l0 + (1.0 - lam) * l1
    right = lam * r0 + (1.0 - lam) * r1
    mag = np.abs(l0) + np.abs(l1) + np.abs(r0) + np.abs(r1)
    with np.errstate(invalid="ignore"):
        out = np.maximum(left, right) + _MARGIN * mag
    return np.where(np.isnan(out), np.inf, out)


def _sup_min(lines: Sequence[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    """Upper bound on sup over an interval of the minimum of linear functions (given by end values)."""
    best: np.ndarray | None = None
    for i, (l0, r0) in enumerate(lines):
        single = np.maximum(l0, r0)
        best = single if best is None else np.minimum(best, single)
        for l1, r1 in lines[i + 1:]:
            best = np.minimum(best, _pair_bound(l0, r0, l1, r1))
    if best is None:  # internal: every caller passes at least one line
        raise ValueError("_sup_min needs at least one line")
    return best


def _interval_sup(alphas: np.ndarray, e: np.ndarray, lo: np.ndarray, hi: np.ndarray,
                  lo_inf: float) -> tuple[np.ndarray, np.ndarray]:
    r"""Certified upper bound on :math:`\sup_{\varepsilon \ge 0} f_{\varepsilon,\delta(\varepsilon)}(\alpha)`
    for every convex non-increasing (in :math:`\gamma`) profile with ``lo <= delta <= hi``
    at the grid points and ``delta(inf) >= lo_inf``; and the interval attaining it.

    Interval ``i < n - 1`` is :math:`[\varepsilon_i, \varepsilon_{i+1}]`; interval ``n - 1`` is the tail.
    """
    n = e.size
    gam = np.exp(e)
    dg = gam[:-1] * np.expm1(np.diff(e))  # gamma_{i+1} - gamma_i, relative error <= 8u
    a = alphas[None, :]
    # lines bounding delta from below on interval i = 0 .. n-2, as values at its two ends
    i = np.arange(n - 1)
    c = lo[1:]
    # A: through (gamma_i, lo_i) with the left secant's slope (rounded down); none at i = 0
    sA = np.full(n - 1, -np.inf)
    if n > 2:
        sA[1:] = _div(lo[1:-1] - hi[:-2], dg[:-1], up=False)
    hasA = np.isfinite(sA)
    sAc = np.where(hasA, sA, 0.0)
    A0 = np.where(hasA, lo[:-1], c)
    A1 = np.where(hasA, lo[:-1] + sAc * dg, c)
    A1 = A1 - 32.0 * _U * (np.abs(lo[:-1]) + np.abs(sAc * dg))
    # B: through (gamma_{i+1}, lo_{i+1}) with the right secant's slope (rounded up); none at i = n-2
    sB = np.full(n - 1, np.inf)
    if n > 2:
        sB[:-1] = _div(hi[2:] - lo[1:-1], dg[1:], up=True)
    hasB = np.isfinite(sB)
    sBc = np.where(hasB, sB, 0.0)
    B0 = np.where(hasB, lo[1:] - sBc * dg, c)
    B0 = B0 - 32.0 * _U * (np.abs(lo[1:]) + np.abs(sBc * dg))
    B1 = c
    g0, g1 = gam[:-1, None], gam[1:, None]

    def first(h: np.ndarray, g: np.ndarray) -> np.ndarray:  # 1 - h - gamma alpha, rounded up
        h = h[:, None]
        with np.errstate(over="ignore", invalid="ignore"):
            ga = g * a
            v = (1.0 - h - ga) + _MARGIN * (1.0 + np.abs(h) + ga)
        return np.where(np.isnan(v), -np.inf, v)

    def second(h: np.ndarray, g: np.ndarray) -> np.ndarray:  # (1 - alpha - h) / gamma, rounded up
        h = h[:, None]
        return (1.0 - a - h) / g + _MARGIN * (1.0 + a + np.abs(h)) / g

    ends = [(A0, A1), (B0, B1), (c, c)]
    t1 = _sup_min([(first(x0, g0), first(x1, g1)) for x0, x1 in ends])
    # the second term is linear in t = 1/gamma: its ends are the same points
    t2 = _sup_min([(second(x0, g0), second(x1, g1)) for x0, x1 in ends])
    body = np.maximum(t1, t2)  # (n-1, m)

    # the tail [gamma_{n-1}, inf): delta >= lo_inf, and >= the left secant line (if any)
    gl = gam[-1]
    m = alphas.size
    if n >= 2:
        s = float(_div(np.array([lo[-1] - hi[-2]]), np.array([dg[-1]]), up=False)[0])
    else:
        s = -math.inf
    # first term: beyond R = (1 - lo_inf) / alpha the line of c is negative (f clips at 0)
    with np.errstate(divide="ignore", over="ignore"):
        R = np.where(alphas > 0.0, (1.0 - lo_inf) / alphas * (1.0 + 4 * _U), np.inf)
    R = np.maximum(R, gl)
    finite = np.isfinite(R) & (R < 1e300)
    Rf = np.where(finite, R, gl)
    lines1 = [(first(np.array([lo_inf]), np.array([[gl]]))[0], first(np.array([lo_inf]), Rf[None, :])[0])]
    if math.isfinite(s):
        hR = lo[-1] + s * (Rf - gl)
        hR = hR - 32.0 * _U * (abs(lo[-1]) + abs(s) * (Rf + gl))
        l0 = first(np.array([lo[-1]]), np.array([[gl]]))[0]
        with np.errstate(over="ignore", invalid="ignore"):
            ra = Rf * alphas
            r0 = (1.0 - hR - ra) + _MARGIN * (1.0 + np.abs(hR) + ra)
        lines1.append((l0, np.where(np.isnan(r0), -np.inf, r0)))
    tail1 = _sup_min(lines1)
    tail1 = np.where(finite, tail1, (1.0 - lo_inf) + _MARGIN)
    # second term on t in [0, 1/gamma_{n-1}]: at t = 0 the line of c gives 0, line A gives -s
    lines2 = [(np.zeros(m), second(np.array([lo_inf]), np.array([[gl]]))[0])]
    if math.isfinite(s):
        lines2.append((np.full(m, -s * (1.0 + _MARGIN)), second(np.array([lo[-1]]), np.array([[gl]]))[0]))
    tail2 = _sup_min(lines2)
    allv = np.vstack([body, np.maximum(tail1, tail2)[None, :]])
    k = np.argmax(allv, axis=0)
    v = allv[k, np.arange(m)]
    return np.maximum(v, 0.0), k
