r"""Random allocation of a Gaussian, amplified: a certified Renyi curve of one balls-in-bins epoch.

One epoch of ``RandomAllocation(Gaussian(sigma, sensitivity=s), steps=t)`` (each record in
exactly one uniformly chosen step of t, ``per_epoch = 1``; each step adds Gaussian noise to
an adaptively chosen sum of per-record vectors of norm at most s: the adaptive batch linear
queries of DP-SGD). With :math:`\mu = s/\sigma` the epoch is dominated (in every
hockey-stick divergence, for add/remove neighbours and adaptive queries) by the pair below:
Chua et al. (AISTATS 2025), Sec. 3, identify it as a tight dominating pair of
balls-and-bins ABLQ (their theorem number is not verified here; Feldman and Shenfeld
analyse the same pair). Domination in every hockey-stick divergence
:math:`H_\gamma`, :math:`\gamma \ge 0`, implies domination in every Renyi divergence:
:math:`E_Q[f(P/Q)] = f(0) + f'(0) + \int_0^\infty f''(\gamma) H_\gamma(P\|Q)\,d\gamma`
for :math:`f(x) = x^\alpha` (Taylor with integral remainder, :math:`f(x) = f(0) + f'(0)x +
\int_0^\infty (x - \gamma)_+ f''(\gamma)\,d\gamma`; domination at :math:`\gamma \ge 1` in both
orientations gives it at :math:`\gamma < 1` too, as :math:`H_\gamma(A\|B) = 1 - \gamma +
\gamma H_{1/\gamma}(B\|A)`), and epochs compose as Renyi DP does
(Mironov 2017, Prop. 1). The un-amplified proof of
:class:`~dpcompose.mechanisms.RandomAllocation` (conditioning on the record's step) is not
used here.

.. math:: Q = N(0, I_t) \text{ (without the record)}, \qquad
          P = \frac1t \sum_{i=1}^t N(\mu e_i, I_t) \text{ (with it)},

whose likelihood ratio is :math:`M = dP/dQ = \frac1t\sum_i w_i`, :math:`w_i = e^{\mu z_i -
\mu^2/2}`, the :math:`z_i` independent :math:`N(0, 1)` under Q, so the :math:`w_i` are
independent with moments :math:`E[w^j] = e^{\mu^2 j(j-1)/2}` (all real j). Add/remove
neighbours need both directions at each order :math:`\alpha > 1`:

- remove, :math:`D_\alpha(P\|Q) = \frac{1}{\alpha-1}\log E_Q[M^\alpha]`;
- add, :math:`D_\alpha(Q\|P) = \frac{1}{\alpha-1}\log E_P[M^{-\alpha}] =
  \frac{1}{\alpha-1}\log E_Q[M^{-(\alpha-1)}]`.

**Remove direction, exact at integer orders** (:func:`remove_log_moments`). For an integer n,
:math:`E[(\sum_i w_i)^n] = n!\,[x^n]\big(\sum_{j\ge0} E[w^j] x^j/j!\big)^t` (the multinomial
expansion with independent factors, grouped by exponential generating function), a finite
sum of positive terms computed in log space by repeated squaring of the truncated series.
Fractional orders: :math:`\gamma \mapsto \log E[M^\gamma]` is convex (Hoelder's inequality),
so between consecutive integers n < alpha < n + 1 the chord is an upper bound (and
:math:`E[M] = 1` at n = 1); so is the next integer order's divergence (Renyi divergences do
not decrease with the order, van Erven and Harremoes 2014, Thm 3); the smaller of the two is
used. Between 1 and 2 both give the order-2 divergence, which makes the remove direction
loose at orders near 1 (long compositions at small mu/t).

**Add direction, every order** (:func:`add_log_moment`). For :math:`\beta = \alpha - 1 > 0`
and m > 0, :math:`m^{-\beta} = \Gamma(\beta)^{-1}\int_0^\infty s^{\beta-1}e^{-sm}\,ds`; by
Tonelli and independence

.. math:: E[M^{-\beta}] = \int_0^\infty \gamma_\beta(s)\, R(s)\, ds, \qquad
          R(s) = \big(e^{s/t}\varphi(s/t)\big)^t, \quad \varphi(u) = E[e^{-u w}],

with :math:`\gamma_\beta` the Gamma(beta, 1) density. :math:`R` is non-decreasing:
:math:`\frac{d}{du}\log(e^u\varphi(u)) = 1 - E_u[w]`, where :math:`E_u` is the law tilted by
:math:`e^{-uw}`, whose mean decreases in u (its derivative is minus a variance) from
:math:`E[w] = 1`. So on a grid :math:`0 = s_0 < \dots < s_N` the sum
:math:`\sum_j \bar R(s_{j+1}) \Pr[s_j < S \le s_{j+1}]`, S ~ Gamma(beta, 1), is an upper bound
of the integral over :math:`[0, s_N]` whenever :math:`\bar R \ge R`. The tail beyond
:math:`s_N`: :math:`e^{-x} \le (p/(e x))^p` for x > 0 gives :math:`\varphi(u) \le K_p u^{-p}`,
:math:`K_p = (p/e)^p E[w^{-p}] = (p/e)^p e^{\mu^2 p(p+1)/2}`, so for :math:`pt > \beta`

.. math:: E[R(S); S > s_N] \le \frac{(K_p t^p)^t\, s_N^{\beta - pt}}{(pt - \beta)\,\Gamma(\beta)}.

:math:`\bar\varphi(u) \ge \varphi(u)`: the integral of :math:`g(z) = e^{-u w(z)}` against the
normal density on cells of width ``_DZ`` over [-Z, Z] (Z = 10) plus the two tails (g <= 1:
their mass, :math:`2\Phi(-10) < 1.6\cdot10^{-23}`). On a cell g is bounded above by a line
integrated exactly against the density (:math:`\int_a^b\phi = \Phi(b) - \Phi(a)`,
:math:`\int_a^b z\phi = \phi(a) - \phi(b)`): :math:`g'' = \mu^2 y(y - 1)e^{-y}` with
:math:`y = u w(z)`, so g is concave where y <= 1 (the tangent at the cell's midpoint lies
above it) and convex where y >= 1 (the chord lies above it); on the one cell where y crosses
1, g <= g(a) (g decreases). Both errors are second order in the width, which matters because
t multiplies them.

Rounding (each direction rounded up): the remove direction's log-space convolutions are
increasing functions of their inputs, and each is raised by 8 ulps of (its largest term's
magnitude + the number of terms + 8), more than a log-sum-exp's rounding error (a few ulps
of the magnitude plus one per term); the margins double with each squaring, so the remove
direction's log-moments carry about ``t`` such ulps (1e-8 at t = 1e5: loose only where
the log-moment itself is that small); :math:`\bar\varphi` is raised by an absolute
:math:`10^{-12}(1 + \mu)` (the cells' floating-point sums: at most about
:math:`4\cdot10^{4}` terms, each below 1, with a few ulps each; ``scipy.special.ndtr``
errs by a few ulps) and capped at 1; each Gamma cell mass is raised by
:math:`10^{-10}` times the larger of its two end-point tail masses (``scipy.special``'s
``gammainc``/``gammaincc``, Cephes, document relative errors near :math:`10^{-14}`); the
logarithms then get 64 ulps of their magnitudes. Orders above ``MAX_ORDER`` and mu above
``MAX_MU`` are not computed here (the caller keeps the un-amplified bound there).

Poisson comparison (sigma 1, delta 1e-5, epsilon by ``method="rdp"`` unless named;
Poisson is t steps at rate 1/t per epoch, the same expected use):

- t = 100, 1 epoch: this bound 1.166; Poisson 1/t 1.215 (rdp), 0.718 (pld); un-amplified 4.377 (pld);
- t = 1000, 1 epoch: this bound 0.678; Poisson 0.678 (rdp), 0.149 (pld); un-amplified 4.377;
- t = 1000, 10 epochs: this bound 0.784; Poisson 0.788 (rdp), 0.476 (pld); un-amplified 17.857.

The Monte Carlo estimate (research.allocation_estimate, not a bound) at t = 100, one epoch,
is 0.62 (upper confidence limit 0.75): most of the remaining gap is the Renyi-to-(eps, delta)
conversion, which pld avoids for Poisson. Feldman and Shenfeld show that random allocation
is dominated by Poisson subsampling at a rate :math:`(1 + o(1))/t` asymptotically; this
module does not use that statement.

Guarantee:
    upper bound of the Renyi divergence of one epoch in each direction at each order
    (exact mathematics above; the numerics rounded up as stated), for add/remove
    neighbours, Gaussian steps, one step per record per epoch. Not a lower bound.

References:
    Chua, Ghazi, Harrison, Leeman, Kamath, Kumar, Manurangsi, Sinha and Zhang,
    "Balls-and-Bins Sampling for DP-SGD" (AISTATS 2025), Sec. 3 (the pair);
    Mironov, "Renyi Differential Privacy" (CSF 2017) (definition, composition);
    van Erven and Harremoes, "Renyi Divergence and Kullback-Leibler Divergence" (IEEE
    Trans. Inf. Theory 2014), Thm 3 (monotone in the order);
    Feldman and Shenfeld, "Privacy Amplification by Random Allocation" (arXiv 2502.08202,
    2025) (context: the remove direction's moments in their RDP analysis; no theorem of
    theirs is used here); the rest is proved above.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

from .._numerics.lazy import lazy_function
from .._numerics.rounding import MACHINE_EPSILON
from .renyi import check_orders

__all__ = ["MAX_ORDER", "MAX_MU", "remove_log_moments", "add_log_moment", "allocation_renyi_curve"]

ndtr = lazy_function("scipy.special", "ndtr")  # imported on first use (cold start)
gammainc = lazy_function("scipy.special", "gammainc")
gammaincc = lazy_function("scipy.special", "gammaincc")
gammaln = lazy_function("scipy.special", "gammaln")

#: orders above this keep the caller's un-amplified bound (the amplification vanishes there)
MAX_ORDER = 1024
#: mu = s / sigma above this keeps the un-amplified bound (exp(mu^2 p (p+1) / 2) overflows)
MAX_MU = 8.0

_Z = 12.0           # the z-cells cover [-Z, Z]; each tail has mass Phi(-12) < 1.8e-33
_DZ = 0.01          # cell width in z (error of phi-bar about mu^2 u _DZ^2 / 8, absolute)
_CELL_PAD = 1e-9    # margin of each cell, relative to its first-order bound (rounding, module docstring)
_GAMMA_PAD = 1e-10  # relative margin of each Gamma cell mass
_S_MIN = 1e-6       # first grid point in s


def _pad(x: Any, magnitude: Any, n: float = 64.0) -> Any:
    """``x`` raised by ``n`` ulps of ``magnitude`` (an absolute margin)."""
    return x + n * MACHINE_EPSILON * (np.abs(magnitude) + 1.0)


# ---------------------------------------------------------------------------
# remove direction: exact moments at integer orders


def _log_convolve(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """log of the coefficients of the product of two series (given as logs), truncated, rounded up."""
    n = len(a)
    idx = np.arange(n)
    degree = (idx[:, None] + idx[None, :]).ravel()
    table = (a[:, None] + b[None, :]).ravel()  # table[i, j] -> degree i + j
    keep = (degree < n) & np.isfinite(table)
    degree, table = degree[keep], table[keep]
    top = np.full(n, -np.inf)
    np.maximum.at(top, degree, table)
    count = np.bincount(degree, minlength=n)
    with np.errstate(invalid="ignore"):
        total = np.bincount(degree, weights=np.exp(table - top[degree]), minlength=n)
    with np.errstate(divide="ignore"):
        out = top + np.log(total)
    # log-sum-exp: a few ulps of |top|, one per term and a few for exp/log; 8 ulps of
    # (|top| + terms + 8) covers it
    return np.where(count > 0, out + 8.0 * MACHINE_EPSILON * (np.abs(top) + count + 8.0), -np.inf)


@functools.lru_cache(maxsize=32)
def _remove_table(mu: float, t: int, n_max: int) -> np.ndarray:
    j = np.arange(n_max + 1, dtype=float)
    # log(E[w^j] / j!), raised by 16 ulps of its magnitude (one product, one lgamma of a few ulps)
    base = mu * mu * j * (j - 1.0) / 2.0 - gammaln(j + 1.0)
    base = base + 16.0 * MACHINE_EPSILON * (np.abs(mu * mu * j * (j - 1.0) / 2.0) + np.abs(gammaln(j + 1.0)) + 1.0)
    result = np.full(n_max + 1, -np.inf)
    result[0] = 0.0
    power, e = base, t
    while e:
        if e & 1:
            result = _log_convolve(result, power)
        e >>= 1
        if e:
            power = _log_convolve(power, power)
    # log E[M^n] = log n! + log [x^n] f^t - n log t, rounded up
    out = gammaln(j + 1.0) + result - j * math.log(t)
    out = _pad(out, np.abs(gammaln(j + 1.0)) + np.abs(result) + j * math.log(t) + 1.0)
    out[0] = 0.0
    out[1] = max(0.0, float(out[1]))  # E[M] = 1 exactly; keep the computed (larger) value
    out.setflags(write=False)
    return out


def remove_log_moments(mu: float, t: int, n_max: int) -> np.ndarray:
    r"""Upper bounds of :math:`\log E_Q[M^n]`, n = 0..n_max (the remove direction's moments).

    Guarantee:
        exact up to rounding, rounded up (module docstring).
    """
    return _remove_table(float(mu), int(t), int(n_max))


def _remove_log_moment(mu: float, t: int, gamma: np.ndarray) -> np.ndarray:
    """Upper bounds of log E[M^gamma] for real gamma in [1, MAX_ORDER]: chords of the log-convex moments."""
    table = remove_log_moments(mu, t, MAX_ORDER + 1)
    lo = np.floor(gamma).astype(int)
    frac = gamma - lo
    hi = np.minimum(lo + 1, len(table) - 1)
    value = (1.0 - frac) * table[lo] + frac * table[hi]
    # D_gamma is non-decreasing in the order: also at most D_{ceil(gamma)} (gamma - 1)
    up_order = np.ceil(gamma).astype(int)
    with np.errstate(invalid="ignore", divide="ignore"):
        monotone = np.where(up_order > 1, table[up_order] / (up_order - 1.0) * (gamma - 1.0), np.inf)
    value = np.minimum(value, monotone)
    return np.asarray(_pad(value, np.abs(table[lo]) + np.abs(table[hi]) + np.abs(table[up_order]), 8.0))


# ---------------------------------------------------------------------------
# add direction: the Gamma mixture of R(s)


def _phi_upper(mu: float, u: np.ndarray) -> np.ndarray:
    r"""Upper bounds of :math:`\varphi(u) = E[e^{-u w}]` at each u > 0 (module docstring)."""
    edges = np.arange(-_Z, _Z + 0.5 * _DZ, _DZ)
    a, b = edges[:-1], edges[1:]
    mass = np.where(b <= 0.0, ndtr(b) - ndtr(a), ndtr(-a) - ndtr(-b))    # Phi(b) - Phi(a)
    pdf = np.exp(-0.5 * edges * edges) / math.sqrt(2.0 * math.pi)
    first = pdf[:-1] - pdf[1:]                                              # int_a^b z phi(z) dz
    c = 0.5 * (a + b)
    tail = float(ndtr(edges[0])) + float(ndtr(-edges[-1]))  # g <= 1 beyond the cells
    out = np.empty(len(u))
    rows = max(1, (1 << 19) // len(a))
    for start in range(0, len(u), rows):
        lu = np.log(u[start:start + rows])[:, None] - mu * mu / 2.0
        y, yc = np.exp(lu + mu * edges), np.exp(lu + mu * c)     # y = u w(z) at the edges, midpoints
        g, gc = np.exp(-y), np.exp(-yc)
        ya, yb, ga, gb = y[:, :-1], y[:, 1:], g[:, :-1], g[:, 1:]
        chord = ga * mass + (gb - ga) / (b - a) * (first - a * mass)        # convex cells (ya >= 1)
        tangent = gc * mass - mu * yc * gc * (first - c * mass)             # concave cells (yb <= 1)
        cell = np.where(ya >= 1.0, chord, np.where(yb <= 1.0, tangent, ga * mass))
        # the cells' rounding: below 1e-9 of the first-order bound ga * mass of each cell
        out[start:start + rows] = np.sum(np.maximum(cell, 0.0) + _CELL_PAD * ga * mass, axis=1) + tail
    return np.minimum(out * (1.0 + _CELL_PAD), 1.0)


def _s_grid(mu: float, t: int) -> np.ndarray:
    """The s grid: ratio 1.4 below 0.01, then ratio 1.02 up to the top (where the tail bound is small).

    Small t and large mu move the mass of the Gamma mixture out to log s near
    (alpha - 2) mu^2 / t (M can be small): the top grows with mu^2 / t (up to e^100 more).
    """
    top = 8.0 * (MAX_ORDER + t) * math.exp(mu * mu + min(100.0, 64.0 * mu * mu / t))
    low = np.geomspace(_S_MIN, 0.01, 42)
    high = np.exp(np.arange(math.log(0.01), math.log(top) + 0.01, math.log(1.02)))
    return np.unique(np.concatenate([low, high]))


@functools.lru_cache(maxsize=32)
def _add_table(mu: float, t: int) -> tuple[np.ndarray, np.ndarray]:
    """(s grid, upper bounds of L(s) = t log phi(s / t) = log R(s) - s at each grid point)."""
    s = _s_grid(mu, t)
    log_phi = np.log(_phi_upper(mu, s / t))  # phi-bar >= 2 Phi(-Z) > 0
    big_l = _pad(t * log_phi, t * np.abs(log_phi))
    s.setflags(write=False)
    big_l.setflags(write=False)
    return s, big_l


def _log_tail(mu: float, t: int, beta: float, s_n: np.ndarray) -> np.ndarray:
    """log of the bound on E[R(S); S > s_n] (module docstring) at each s_n, the best p of a geometric grid."""
    best = np.full(len(s_n), np.inf)
    log_s = np.log(s_n)
    for p in np.geomspace(0.25, 4.0 * MAX_ORDER, 97):
        if p * t > beta:
            log_k = p * math.log(p) - p + mu * mu * p * (p + 1.0) / 2.0
            head = t * log_k + p * t * math.log(t) - math.log(p * t - beta) - float(gammaln(beta))
            value = head + (beta - p * t) * log_s
            value = _pad(value, abs(head) + abs(beta - p * t) * np.abs(log_s))
            best = np.minimum(best, value)
    return best


def _log_tilted_cells(beta: float, k: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    r"""Upper bounds of :math:`\log\big(e^{k\,lo}\int_{lo}^{hi} s^{\beta-1}e^{-ks}\,ds/\Gamma(\beta)\big)`, k > 0.

    That is :math:`e^{k\,lo}k^{-\beta}(P(\beta, k\,hi) - P(\beta, k\,lo))`. With x = k lo:
    for x <= 600, scipy's regularized incomplete gamma from the smaller side (no
    cancellation), raised by ``_GAMMA_PAD`` of that side's mass; for x > 600 (or where the
    scipy mass is below 1e-280) closed bounds, :math:`P(\beta, x) \le x^\beta/\Gamma(\beta+1)`
    (:math:`e^{-s} \le 1`) and, for x > beta - 1, :math:`Q(\beta, x) \le
    x^{\beta-1}e^{-x}/\Gamma(\beta)\cdot\max(1, x/(x - \beta + 1))` (from
    :math:`s^{\beta-1} \le x^{\beta-1}e^{(\beta-1)(s-x)/x}`), in which :math:`e^{k\,lo}`
    cancels exactly.
    """
    x_lo, x_hi = k * lo, k * hi
    small = x_lo <= 600.0
    xs_lo, xs_hi = np.where(small, x_lo, 0.0), np.where(small, x_hi, 1.0)
    below = xs_hi <= beta
    cell = np.empty(len(k))
    side = np.empty(len(k))
    side[below] = gammainc(beta, xs_hi[below])
    cell[below] = side[below] - gammainc(beta, xs_lo[below])
    above = ~below
    side[above] = gammaincc(beta, xs_lo[above])
    cell[above] = side[above] - gammaincc(beta, xs_hi[above])
    cell = np.maximum(cell, 0.0) + _GAMMA_PAD * side
    log_k = np.log(k)
    with np.errstate(divide="ignore", invalid="ignore"):
        scipy_side = np.log(cell) + xs_lo - beta * log_k
        scipy_side = _pad(scipy_side, np.abs(np.log(cell)) + xs_lo + beta * np.abs(log_k) + 1.0)
        ratio = np.where(x_lo > beta - 1.0, x_lo / (x_lo - beta + 1.0), np.inf)
        q_closed = (beta - 1.0) * np.log(lo) - log_k - float(gammaln(beta)) + np.log(np.maximum(1.0, ratio))
        p_closed = np.where(small, xs_lo, np.inf) + beta * np.log(hi) - float(gammaln(beta + 1.0))
        closed = np.minimum(q_closed, p_closed)
        closed = _pad(closed, np.abs(closed) + np.abs(beta * np.log(hi)) + beta * np.abs(log_k) + 700.0)
    return np.where(small & (cell > 1e-280), scipy_side, closed)


def add_log_moment(mu: float, t: int, beta: float) -> float:
    r"""An upper bound of :math:`\log E_Q[M^{-\beta}]`, beta > 0 (the add direction at order beta + 1).

    Guarantee:
        upper bound (module docstring: the Gamma mixture, the convex L, the tail bound).
    """
    s, big_l = _add_table(float(mu), int(t))
    beta = float(beta)
    lo, hi, l_lo, l_hi = s[:-1], s[1:], big_l[:-1], big_l[1:]
    k = -(l_hi - l_lo) / (hi - lo)  # L is convex: L(s) <= l_lo - k (s - lo) on the cell
    tilt = k > 1e-9
    with np.errstate(divide="ignore", invalid="ignore"):
        tilted = l_lo + _log_tilted_cells(beta, np.where(tilt, k, 1.0), lo, hi)
        tilted = _pad(tilted, np.abs(l_lo) + np.abs(l_hi) + np.abs(k) * hi + 1.0)
    # k near 0 (or below, by rounding): the chord is at most its larger end value, and
    # s^{b-1} / Gamma(b) integrates to (hi^b - lo^b) / Gamma(b + 1)
    flat = (np.maximum(l_lo, l_hi) + beta * np.log(lo) + np.log(np.expm1(beta * np.log(hi / lo)))
            - float(gammaln(beta + 1.0)))
    flat = _pad(flat, np.abs(l_lo) + np.abs(l_hi) + beta * np.abs(np.log(hi)) + 100.0)
    first = beta * math.log(float(s[0])) - float(gammaln(beta + 1.0))  # L <= L(0) = 0 on [0, s_0]
    first = float(_pad(first, abs(first) + 10.0))
    # the grid up to s_j plus the tail beyond s_j, for every j; the smallest total is the bound
    cells = np.concatenate([[first], np.where(tilt, tilted, flat)])
    prefix = np.logaddexp.accumulate(cells)
    prefix = _pad(prefix, np.abs(prefix) + np.arange(1, len(prefix) + 1))
    total = np.logaddexp(prefix, _log_tail(mu, t, beta, s))
    return float(_pad(float(np.min(total)), float(np.max(np.abs(prefix))) + len(prefix)))


# ---------------------------------------------------------------------------
# the curve


def allocation_renyi_curve(mu: float, t: int, orders: Any = None) -> np.ndarray:
    r"""Upper bounds of the Renyi divergence of one epoch, the larger direction, at each order.

    Orders above :data:`MAX_ORDER` (and every order when mu > :data:`MAX_MU`) are ``inf``:
    the caller takes the minimum with the un-amplified curve.

    Args:
        mu: sensitivity over sigma, > 0.
        t: steps per epoch, >= 1.
        orders: Renyi orders (default :data:`~.renyi.DEFAULT_ORDERS`).

    Guarantee:
        upper bound at each order (module docstring).
    """
    a = check_orders(orders)
    out = np.full(len(a), np.inf)
    if not (mu <= MAX_MU):
        return out
    inside = a <= MAX_ORDER
    if not np.any(inside):
        return out
    alpha = a[inside]
    remove = _remove_log_moment(mu, t, alpha)
    add = np.array([add_log_moment(mu, t, x - 1.0) for x in alpha])
    log_moment = np.maximum(remove, add)
    with np.errstate(invalid="ignore"):
        tau = log_moment / (alpha - 1.0) * (1.0 + 16.0 * MACHINE_EPSILON)
    out[inside] = np.maximum(np.where(np.isnan(tau), np.inf, tau), 0.0)
    return out
