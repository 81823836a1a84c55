r"""Renyi differential privacy (``method="rdp"``): Renyi curves, their composition and conversion.

A mechanism is :math:`(\alpha, \tau)`-RDP (Mironov, "Renyi Differential Privacy", CSF 2017,
Def. 4) when :math:`D_\alpha(M(x) \| M(x')) \le \tau` for all neighbours, with the Renyi
divergence :math:`D_\alpha(P\|Q) = \frac{1}{\alpha-1}\log E_Q[(P/Q)^\alpha]`. Its *Renyi
curve* is the function :math:`\alpha \mapsto \tau(\alpha)` on a grid of orders
:math:`\alpha > 1`. The pipeline of this module is

1. a Renyi curve per mechanism (:func:`rdp_curve`, dispatched per mechanism class):

   - ``Gaussian``: :math:`\alpha\mu^2/2` with :math:`\mu = \Delta/\sigma` (Mironov 2017,
     Table II);
   - ``Laplace``: closed form, :func:`rdp_laplace` (Mironov 2017, Table II);
   - ``RandomizedResponse``: closed form, :func:`rdp_randomized_response` (Mironov 2017,
     Table II);
   - ``PureDP``, ``Exponential`` and ``ApproxDP`` with delta = 0: the randomized-response
     curve, which is tight for the class of :math:`\varepsilon`-DP mechanisms (Steinke,
     "Sharp RDP & zCDP from Pure DP", DifferentialPrivacy.org 2024, Thm 4);
   - Poisson ``Subsampled(Gaussian)``: :func:`rdp_subsampled_gaussian`, the exact binomial
     sum at integer orders and a certified series upper bound at fractional orders
     (Mironov, Talwar and Zhang, "Renyi Differential Privacy of the Sampled Gaussian
     Mechanism", 2019, Sec. 3).

   ``ApproxDP`` with :math:`\delta > 0` has no finite Renyi curve, and no rule is
   implemented for sampling without replacement or for subsampled mechanisms other than
   the Gaussian; these raise :class:`~dpcompose.errors.MethodNotApplicableError`.

2. composition: Renyi curves add (Mironov 2017, Prop. 1, which holds for adaptive
   composition), so a composition's curve is :math:`\sum_i k_i \tau_i(\alpha)` at every
   order of the grid (:func:`compose_rdp`);

3. conversion to :math:`(\varepsilon, \delta)`-DP, minimised over the grid
   (:func:`rdp_to_epsilon`, :func:`rdp_to_delta`) with the conversion of Canonne, Kamath and
   Steinke, "The Discrete Gaussian for Differential Privacy" (NeurIPS 2020), Prop. 12:

       *Suppose M is* :math:`(\alpha, \tau)`-*RDP with* :math:`\alpha > 1`. *Then M is*
       :math:`(\varepsilon, \delta)`-*DP for every* :math:`\varepsilon \ge 0` *with*
       :math:`\delta = \frac{e^{(\alpha-1)(\tau-\varepsilon)}}{\alpha-1}\left(1-\frac1\alpha\right)^{\alpha}`.

   Solved for :math:`\varepsilon` it is the same statement as Balle, Barthe, Gaboardi, Hsu
   and Sato, "Hypothesis Testing Interpretations and Renyi Differential Privacy"
   (AISTATS 2020), Thm 21:
   :math:`\varepsilon = \tau + \log\frac{\alpha-1}{\alpha} - \frac{\log\delta + \log\alpha}{\alpha-1}`.
   It is never worse than Mironov's original :math:`\tau + \log(1/\delta)/(\alpha-1)`
   (Mironov 2017, Prop. 3), since :math:`\log(1-1/\alpha) - \log(\alpha)/(\alpha-1) < 0`. Where every mechanism is pure DP the order
   :math:`\alpha = \infty` is also used: the composition is :math:`(\sum_i k_i\varepsilon_i, 0)`-DP.

The neighbour relation is the one under which each mechanism's sensitivity is stated; for
the Poisson-subsampled Gaussian it is adding or removing one record (both directions are
covered, see :func:`rdp_subsampled_gaussian`).

Floating-point rounding: every curve is rounded up by a margin that covers the rounding
error of its evaluation (a few hundred units in the last place of the quantities involved),
and the conversion rounds up again, so results are certified upper bounds.
"""

from __future__ import annotations

import math
import numbers
from functools import singledispatch
from typing import Any, Iterable

import numpy as np
from scipy.special import gammaln, log_ndtr

from ._numerics.logspace import log_expm1, logsumexp_fsum
from ._numerics.rounding import MACHINE_EPSILON, SMALLEST_DELTA
from ._validation import check_delta, check_epsilon, check_positive, check_probability
from .compose import Groups, normalize, register_method
from .errors import InvalidParameterError, MethodNotApplicableError
from .guarantee import Guarantee
from .mechanisms import (
    ApproxDP,
    Exponential,
    Gaussian,
    Laplace,
    Mechanism,
    PureDP,
    RandomizedResponse,
    Subsampled,
)

__all__ = [
    "DEFAULT_ORDERS",
    "check_orders",
    "rdp_gaussian",
    "rdp_laplace",
    "rdp_randomized_response",
    "rdp_pure_dp",
    "rdp_subsampled_gaussian",
    "rdp_curve",
    "pure_dp_epsilon",
    "compose_rdp",
    "rdp_to_epsilon",
    "rdp_to_delta",
    "rdp",
]


#: The default grid of Renyi orders: fractional orders from 1.001 (useful for very long
#: compositions), quarter steps up to 10, every integer up to 64, then a sparse tail up to
#: 4096 (useful for short, very private compositions).
DEFAULT_ORDERS: np.ndarray = np.unique(
    np.concatenate(
        [
            [1.001, 1.002, 1.005, 1.01, 1.02, 1.05, 1.1, 1.15, 1.2],
            np.arange(1.25, 10.0, 0.25),
            np.arange(10.0, 65.0),
            [72.0, 80.0, 96.0, 112.0, 128.0, 160.0, 192.0, 256.0, 384.0, 512.0, 1024.0, 2048.0, 4096.0],
        ]
    )
)
DEFAULT_ORDERS.setflags(write=False)

#: orders above this are not evaluated for the sampled Gaussian (their curve is reported as
#: +inf, a trivial upper bound): the sums have about alpha terms
_MAX_SGM_ORDER = 1e5

_CONVERSION = (
    "Canonne, Kamath and Steinke 2020, Prop. 12 (= Balle et al. 2020, Thm 21): "
    "eps = tau + log((alpha-1)/alpha) - (log delta + log alpha)/(alpha-1), minimised over orders"
)


# ---------------------------------------------------------------------------
# validation


def check_orders(orders: Any = None) -> np.ndarray:
    r"""Validate a grid of Renyi orders; ``None`` gives :data:`DEFAULT_ORDERS`.

    Returns a sorted float array of distinct finite orders :math:`\alpha > 1`.

    Raises:
        InvalidParameterError: an order is NaN, infinite, :math:`\le 1`, not a real number,
            or the grid is empty.
    """
    if orders is None:
        return DEFAULT_ORDERS
    if isinstance(orders, numbers.Real) and not isinstance(orders, bool):
        orders = [orders]
    try:
        items = list(orders)
    except TypeError:
        raise InvalidParameterError(
            f"orders = {orders!r} is not a sequence of Renyi orders; pass e.g. orders=[1.5, 2, 4, 8, 16, 32]."
        ) from None
    if not items:
        raise InvalidParameterError("orders is empty; pass at least one Renyi order alpha > 1 (or None for the default grid).")
    values = []
    for i, a in enumerate(items):
        if isinstance(a, bool) or not isinstance(a, numbers.Real):
            raise InvalidParameterError(
                f"orders[{i}] = {a!r} is not a real number; Renyi orders are real numbers alpha > 1."
            )
        x = float(a)
        if math.isnan(x):
            raise InvalidParameterError(f"orders[{i}] is NaN; Renyi orders must be finite numbers alpha > 1.")
        if math.isinf(x):
            raise InvalidParameterError(
                f"orders[{i}] = {x!r} is infinite; Renyi orders must be finite numbers alpha > 1 "
                f"(the order alpha = inf, pure DP, is used automatically where it applies)."
            )
        if x <= 1.0:
            raise InvalidParameterError(
                f"orders[{i}] = {x!r} is outside the valid range (1, inf); Renyi DP is defined "
                f"for orders alpha > 1."
            )
        values.append(x)
    return np.unique(np.asarray(values, dtype=float))


def _orders_arg(orders: Any) -> np.ndarray:
    return check_orders(orders)


# ---------------------------------------------------------------------------
# numerical helpers (all in log space)


def _log_g(x: np.ndarray) -> np.ndarray:
    r"""log(e^x - 1 - x) (a positive quantity for x != 0; -inf at 0), accurate for every real x.

    For :math:`|x| < 1/2` it uses :math:`e^x - 1 - x = x^2 \sum_{n\ge2} x^{n-2}/n!` (25 terms,
    truncation below 1e-30 relative); otherwise it is evaluated directly, in log space for
    large positive x.
    """
    x = np.atleast_1d(np.asarray(x, dtype=float))
    out = np.empty_like(x)
    small = np.abs(x) < 0.5
    if np.any(small):
        xs = x[small]
        h = np.zeros_like(xs)
        for n in range(26, 1, -1):  # Horner for sum_{n>=2} x^{n-2}/n!
            h = h * xs + 1.0 / math.factorial(n)
        with np.errstate(divide="ignore"):
            out[small] = 2.0 * np.log(np.abs(xs)) + np.log(h)
    pos = (~small) & (x > 0)
    if np.any(pos):
        xp = x[pos]
        out[pos] = xp + np.log1p(-(1.0 + xp) * np.exp(-xp))
    neg = (~small) & (x < 0)
    if np.any(neg):
        y = -x[neg]
        out[neg] = np.log(y + np.expm1(-y))
    return out


def _round_up_curve(log_a: np.ndarray, orders: np.ndarray, scale: np.ndarray | float) -> np.ndarray:
    r"""Turn :math:`\log A_\alpha` into a rounded-up Renyi curve :math:`\log A_\alpha/(\alpha-1)`.

    ``scale`` bounds the absolute rounding error of the computed :math:`\log A_\alpha` in
    units of the last place (the magnitudes of the floating-point quantities combined to
    get it); adding ``256 ulp (|log A| + scale)`` before dividing, and rounding the quotient
    up by 16 ulps, makes the result a certified upper bound on the exact value. Curves are
    clamped at 0 (Renyi divergences are non-negative).
    """
    pad = 256.0 * MACHINE_EPSILON * (np.abs(log_a) + np.asarray(scale, dtype=float))
    with np.errstate(invalid="ignore"):
        tau = (log_a + pad) / (orders - 1.0)
        tau = tau * (1.0 + 16.0 * MACHINE_EPSILON)
    tau = np.where(np.isnan(tau), np.inf, tau)
    return np.maximum(tau, 0.0)


# ---------------------------------------------------------------------------
# Renyi curves of single mechanisms


def rdp_gaussian(mu: float, orders: Any = None) -> np.ndarray:
    r"""Renyi curve of the Gaussian mechanism, :math:`\tau(\alpha) = \alpha\mu^2/2`.

    Args:
        mu: :math:`\Delta/\sigma` (sensitivity over noise standard deviation), > 0.
        orders: Renyi orders (default :data:`DEFAULT_ORDERS`).

    Returns:
        :math:`\tau(\alpha)` at each order, rounded up.

    Guarantee:
        exact (up to rounding up): :math:`D_\alpha(N(\Delta,\sigma^2)\|N(0,\sigma^2)) = \alpha\Delta^2/(2\sigma^2)`,
        symmetric in the pair, for the neighbour relation under which :math:`\Delta` is the
        L2 sensitivity.

    References:
        Mironov, "Renyi Differential Privacy", CSF 2017, Table II (Gaussian row).
    """
    mu = check_positive("mu", mu)
    a = _orders_arg(orders)
    return a * (mu * mu / 2.0) * (1.0 + 8.0 * MACHINE_EPSILON)


def rdp_randomized_response(epsilon: float, orders: Any = None) -> np.ndarray:
    r"""Renyi curve of binary randomized response with parameter :math:`\varepsilon`.

    With :math:`p = e^\varepsilon/(1+e^\varepsilon)`,
    :math:`\tau(\alpha) = \frac{1}{\alpha-1}\log\left(p^\alpha(1-p)^{1-\alpha} + (1-p)^\alpha p^{1-\alpha}\right)`
    (Mironov 2017, Table II). It is evaluated through the identity (derived here)
    :math:`A_\alpha - 1 = \frac{\mathrm{expm1}((\alpha-1)\varepsilon)\,\mathrm{expm1}(\alpha\varepsilon)\,e^{-(\alpha-1)\varepsilon}}{1+e^\varepsilon}`
    for :math:`A_\alpha = e^{(\alpha-1)\tau(\alpha)}`, which has no cancellation, in log space.

    Args:
        epsilon: in :math:`[0, \infty]`.
        orders: Renyi orders (default :data:`DEFAULT_ORDERS`).

    Guarantee:
        exact for randomized response (up to rounding up), symmetric in the pair. It is
        also the tight Renyi curve of the whole class of :math:`\varepsilon`-DP mechanisms
        (Steinke, "Sharp RDP & zCDP from Pure DP", DifferentialPrivacy.org 2024, Thm 4),
        and it is below both :math:`\varepsilon` (Mironov 2017, Prop. 3) and
        :math:`\alpha\varepsilon^2/2` (Bun and Steinke, "Concentrated Differential Privacy:
        Simplifications, Extensions, and Lower Bounds", TCC 2016, Prop. 3.3).

    References:
        Mironov, "Renyi Differential Privacy", CSF 2017, Table II; Steinke (above), Thm 4.
    """
    epsilon = check_epsilon("epsilon", epsilon, allow_inf=True)
    a = _orders_arg(orders)
    if math.isinf(epsilon):
        return np.full_like(a, np.inf)
    if epsilon == 0.0:
        return np.zeros_like(a)
    u = (a - 1.0) * epsilon
    log_am1 = log_expm1(u) + log_expm1(a * epsilon) - u - np.logaddexp(0.0, epsilon)
    log_a = np.logaddexp(0.0, log_am1)
    scale = np.abs(u) + np.abs(a * epsilon) + epsilon + np.abs(log_am1) + 10.0
    # relative accuracy of A - 1 makes log1p accurate relatively; pad proportionally too
    tau = _round_up_curve(log_a, a, scale * np.exp(np.minimum(log_am1, 0.0)))
    return tau


def rdp_pure_dp(epsilon: float, orders: Any = None) -> np.ndarray:
    r"""Tight Renyi curve of the class of :math:`\varepsilon`-DP mechanisms.

    The class's worst case is randomized response (Steinke, "Sharp RDP & zCDP from Pure
    DP", DifferentialPrivacy.org 2024, Thm 4, which also proves tightness), so this is
    :func:`rdp_randomized_response`.

    Guarantee:
        upper bound for every :math:`\varepsilon`-DP mechanism, attained by randomized
        response; either neighbour relation (the one the :math:`\varepsilon` refers to).

    References:
        Steinke, "Sharp RDP & zCDP from Pure DP" (2024), Thm 4.
    """
    return rdp_randomized_response(epsilon, orders)


def rdp_laplace(epsilon: float, orders: Any = None) -> np.ndarray:
    r"""Renyi curve of the Laplace mechanism with :math:`\varepsilon = \Delta/b`.

    :math:`\tau(\alpha) = \frac{1}{\alpha-1}\log\left(\frac{\alpha}{2\alpha-1}e^{(\alpha-1)\varepsilon}
    + \frac{\alpha-1}{2\alpha-1}e^{-\alpha\varepsilon}\right)` (Mironov 2017, Table II, with
    :math:`1/\lambda = \varepsilon`). Evaluated as
    :math:`A_\alpha - 1 = \frac{\alpha\,g((\alpha-1)\varepsilon) + (\alpha-1)\,g(-\alpha\varepsilon)}{2\alpha-1}`
    with :math:`g(x) = e^x - 1 - x \ge 0` (an identity derived here: the first-order terms
    cancel exactly), which avoids cancellation for small :math:`\varepsilon`.

    Args:
        epsilon: :math:`\Delta/b > 0`.
        orders: Renyi orders (default :data:`DEFAULT_ORDERS`).

    Guarantee:
        exact for the Laplace mechanism (up to rounding up); the pair is symmetric.

    References:
        Mironov, "Renyi Differential Privacy", CSF 2017, Table II (Laplace row).
    """
    epsilon = check_epsilon("epsilon", epsilon)
    a = _orders_arg(orders)
    if epsilon == 0.0:
        return np.zeros_like(a)
    t1 = np.log(a) + _log_g((a - 1.0) * epsilon)
    t2 = np.log(a - 1.0) + _log_g(-a * epsilon)
    log_am1 = np.logaddexp(t1, t2) - np.log(2.0 * a - 1.0)
    log_a = np.logaddexp(0.0, log_am1)
    scale = (np.abs((a - 1.0) * epsilon) + np.abs(a * epsilon) + np.log(2.0 * a) + np.abs(log_am1) + 10.0)
    return _round_up_curve(log_a, a, scale * np.exp(np.minimum(log_am1, 0.0)))


def _log_a_integer(log_q: float, log_1mq: float, sigma: float, alpha: int) -> tuple[float, float]:
    r"""log A_alpha of the sampled Gaussian at integer alpha, and its rounding scale (ulps).

    Since :math:`\sum_k \binom{\alpha}{k}(1-q)^{\alpha-k}q^k = 1`, the binomial sum gives
    :math:`A_\alpha - 1 = \sum_{k\ge2}\binom{\alpha}{k}(1-q)^{\alpha-k}q^k\,\mathrm{expm1}((k^2-k)/2\sigma^2)`,
    a sum of positive terms (the terms k = 0, 1 vanish), so :math:`A_\alpha - 1` and hence
    :math:`\log A_\alpha = \mathrm{log1p}(A_\alpha - 1)` are computed to a small *relative*
    error even when :math:`q` is tiny.
    """
    if alpha < 2:
        return 0.0, 0.0
    k = np.arange(2, alpha + 1, dtype=float)
    g = gammaln(alpha + 1.0)
    gk, gak = gammaln(k + 1.0), gammaln(alpha - k + 1.0)
    log_binom = g - gk - gak
    expo = (k * k - k) / (2.0 * sigma * sigma)
    terms = log_binom + k * log_q + (alpha - k) * log_1mq + log_expm1(expo)
    log_am1 = logsumexp_fsum(terms)
    log_a = float(np.logaddexp(0.0, log_am1))
    # each term's log carries an absolute error of a few ulps of the magnitudes combined in
    # it; weighted by the terms' shares of the sum this is a relative error of A - 1, to
    # which the correctly rounded summation adds a few ulps
    comp = g + gk + gak + np.abs(k * log_q) + np.abs((alpha - k) * log_1mq) + 2.0 * expo + 4.0
    w = np.exp(terms - log_am1)
    rel = float(np.sum(w * comp)) + abs(log_am1) + 8.0
    return log_a, abs(log_a) * rel


def _log_a_integer_many(log_q: float, log_1mq: float, sigma: float,
                        alphas: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_log_a_integer` for many integer orders at once (the same sums, one 2-D pass)."""
    al = np.asarray(alphas, dtype=float)
    if al.size == 0:
        return np.empty(0), np.empty(0)
    A = al[:, None]
    k = np.arange(2.0, float(np.max(al)) + 1.0)[None, :]
    valid = k <= A
    g = gammaln(A + 1.0)
    gk = gammaln(k + 1.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        gak = np.where(valid, gammaln(np.where(valid, A - k + 1.0, 1.0)), 0.0)
    expo = (k * k - k) / (2.0 * sigma * sigma)
    terms = np.where(valid, g - gk - gak + k * log_q + (A - k) * log_1mq + log_expm1(expo), -np.inf)
    comp = g + gk + gak + np.abs(k * log_q) + np.abs((A - k) * log_1mq) + 2.0 * expo + 4.0
    m = np.max(terms, axis=1)
    w = np.exp(terms - m[:, None])
    sums = np.array([math.fsum(r) for r in w.tolist()])
    log_am1 = m + np.log(sums)
    rel = np.sum(w * np.where(valid, comp, 0.0), axis=1) / sums + np.abs(log_am1) + 8.0
    log_a = np.logaddexp(0.0, log_am1)
    return log_a, np.abs(log_a) * rel


def _series_terms(log_q: float, log_1mq: float, sigma: float, alpha: Any, z0: float,
                  k: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Log-magnitudes of the two series' terms at indices k, their signs and a magnitude scale.

    ``alpha`` is a float or a column of orders (then the results are 2-D, one row per order).
    """
    log_abs_binom = gammaln(alpha + 1.0) - gammaln(k + 1.0) - gammaln(alpha - k + 1.0)
    j = alpha - k
    s2 = 2.0 * sigma * sigma
    e1 = (k * k - k) / s2
    e2 = (j * j - j) / s2
    n1 = log_ndtr((z0 - k) / sigma)
    n2 = log_ndtr((j - z0) / sigma)
    t1 = log_abs_binom + k * log_q + j * log_1mq + e1 + n1
    t2 = log_abs_binom + j * log_q + k * log_1mq + e2 + n2
    neg_count = np.maximum(0.0, k - 1.0 - np.floor(alpha))
    sign = np.where(np.mod(neg_count, 2.0) == 0.0, 1.0, -1.0)
    scale = (np.abs(log_abs_binom) + gammaln(alpha + 1.0) + np.abs(k * log_q) + np.abs(j * log_1mq)
             + np.abs(j * log_q) + np.abs(k * log_1mq) + np.abs(e1) + np.abs(e2) + np.abs(n1) + np.abs(n2))
    return t1, t2, sign, scale


def _bernoulli_gap(q: float, alpha: float) -> tuple[float, float]:
    r""":math:`(1-q)^\alpha - 1 + \alpha q \ge 0` (Bernoulli's inequality) and a bound on its error.

    For :math:`q \le 1/2` by the series :math:`\sum_{n\ge2}\binom{\alpha}{n}(-q)^n`; its terms
    beyond :math:`n > \alpha + 1` have one sign and ratio below :math:`q`, so the remainder
    after the last term :math:`T_N` is at most :math:`|T_N|\,q/(1-q)`. Otherwise directly.
    """
    if q > 0.5:
        v = math.expm1(alpha * math.log1p(-q)) + alpha * q
        return max(v, 0.0), 8.0 * MACHINE_EPSILON * (1.0 + alpha * q + abs(alpha * math.log1p(-q)))
    n = np.arange(2.0, 2.0 + 96.0 + math.ceil(alpha))
    log_abs = gammaln(alpha + 1.0) - gammaln(n + 1.0) - gammaln(alpha - n + 1.0) + n * math.log(q)
    neg_count = np.maximum(0.0, n - 1.0 - math.floor(alpha)) + n
    sign = np.where(np.mod(neg_count, 2.0) == 0.0, 1.0, -1.0)
    mags = np.exp(log_abs)
    v = float(np.sum(sign * mags))
    comp = np.abs(log_abs) + 2.0 * gammaln(alpha + n + 1.0) + 8.0
    err = float(mags[-1]) * q / (1.0 - q) + 32.0 * MACHINE_EPSILON * float(np.sum(mags * comp)) + (n.size + 2) * MACHINE_EPSILON * float(np.sum(mags))
    return max(v, 0.0), err


def _log_a_fractional(log_q: float, log_1mq: float, sigma: float, alpha: float,
                      max_terms: int = 1 << 17) -> tuple[float, float]:
    r"""Certified upper bound on :math:`\log A_\alpha` of the sampled Gaussian, fractional :math:`\alpha`.

    Mironov, Talwar and Zhang (2019, Sec. 3) split :math:`A_\alpha = \int \mu_0
    ((1-q) + qL)^\alpha`, :math:`L = \mu_1/\mu_0`, at :math:`z_0 = \sigma^2\log(1/q - 1) + 1/2`,
    where :math:`qL = 1-q`, and expand each side in a generalized binomial series whose
    ratio is at most 1 there:

    - :math:`z \le z_0`: terms :math:`T^{(1)}_k = \binom{\alpha}{k}(1-q)^{\alpha-k}q^k e^{(k^2-k)/2\sigma^2}\Phi((z_0-k)/\sigma)`;
    - :math:`z \ge z_0`: terms :math:`T^{(2)}_k = \binom{\alpha}{k}q^{\alpha-k}(1-q)^{k} e^{(j^2-j)/2\sigma^2}\Phi((j-z_0)/\sigma)`, :math:`j = \alpha - k`.

    Truncation (the rigorous part, derived here): for :math:`k > \alpha` the coefficients
    alternate in sign and :math:`|\binom{\alpha}{k+1}| / |\binom{\alpha}{k}| = (k-\alpha)/(k+1) < 1`;
    with the ratio :math:`x(z) \le 1` the pointwise series is alternating with
    non-increasing terms (Leibniz), so the remainder after index :math:`K \ge \lfloor\alpha\rfloor`
    is at most the first omitted term in absolute value, pointwise and hence after
    integration. We add the absolute values of both first omitted terms, growing K until
    they are below ``1e-11`` of :math:`A_\alpha - 1` (or ``max_terms``).

    Precision near :math:`A_\alpha = 1` (derived here): since
    :math:`\int\mu_0(1 - \alpha q + \alpha q L) = 1`, we compute :math:`A_\alpha - 1` as the
    series minus that linear function integrated over each side, i.e.
    :math:`((1-q)^\alpha - 1 + \alpha q)\Phi(z_0/\sigma) + \alpha q((1-q)^{\alpha-1} - 1)\Phi((z_0-1)/\sigma) + \sum_{k\ge2}T^{(1)}_k + \sum_k T^{(2)}_k - (1-\alpha q)\Phi(-z_0/\sigma) - \alpha q\Phi((1-z_0)/\sigma)`,
    which keeps a small relative error when :math:`q` is tiny.
    """
    q = math.exp(log_q)
    z0 = sigma * sigma * (log_1mq - log_q) + 0.5
    # the linear correction and the k = 0, 1 terms of side 1
    gap, gap_err = _bernoulli_gap(q, alpha)
    ln0, ln1 = float(log_ndtr(z0 / sigma)), float(log_ndtr((z0 - 1.0) / sigma))
    lm0, lm1 = float(log_ndtr(-z0 / sigma)), float(log_ndtr((1.0 - z0) / sigma))
    log_aq = math.log(alpha) + log_q
    extra_pos, extra_neg = [], []
    if gap > 0.0:
        extra_pos.append(math.log(gap) + ln0)
    shrink = -math.expm1((alpha - 1.0) * log_1mq)  # 1 - (1-q)^(alpha-1) > 0
    if shrink > 0.0:
        extra_neg.append(log_aq + math.log(shrink) + ln1)
    c = 1.0 - alpha * q
    if c > 0.0:
        extra_neg.append(math.log(c) + lm0)
    elif c < 0.0:
        extra_pos.append(math.log(-c) + lm0)
    extra_neg.append(log_aq + lm1)
    extra = np.array(extra_pos + extra_neg)
    # grow K until the truncation bound is below 1e-11 of (an estimate of) A - 1, which
    # keeps the curve's relative error from truncation near 1e-11; the bound is added in
    # any case, so stopping early only loosens, never invalidates
    K = math.floor(alpha) + 32
    while True:
        k = np.arange(K + 2, dtype=float)
        t1, t2, sign, scale = _series_terms(log_q, log_1mq, sigma, alpha, z0, k)
        log_tail = float(np.logaddexp(t1[-1], t2[-1]))
        ref = max(float(np.max(t1[2:-1], initial=-np.inf)), float(np.max(t2[:-1])), float(np.max(extra)))
        est = abs(float(np.sum(sign[2:-1] * np.exp(t1[2:-1] - ref))) + float(np.sum(sign[:-1] * np.exp(t2[:-1] - ref)))
                  + float(np.sum(np.exp(np.array(extra_pos) - ref))) - float(np.sum(np.exp(np.array(extra_neg) - ref))))
        if (est > 0.0 and log_tail - ref <= math.log(1e-11 * est)) or K + 2 > max_terms:
            break
        K = 2 * K
    body1, s1, c1 = t1[2:-1], sign[2:-1], scale[2:-1]
    body2, s2, c2 = t2[:-1], sign[:-1], scale[:-1]
    pos = np.concatenate([body1[s1 > 0], body2[s2 > 0], np.array(extra_pos)])
    neg = np.concatenate([body1[s1 < 0], body2[s2 < 0], np.array(extra_neg)])
    log_pos, log_neg = logsumexp_fsum(pos), logsumexp_fsum(neg)
    # absolute error bound, relative to exp(log_pos): rounding of each term (a few ulps of
    # the magnitudes combined in its log), of the two correctly rounded sums (fsum), of the
    # Bernoulli gap, and the truncation (both first omitted terms)
    terms = np.concatenate([body1, body2])
    comps = np.concatenate([c1, c2])
    err = 32.0 * MACHINE_EPSILON * (float(np.sum(np.exp(terms - log_pos) * (1.0 + comps)))
                         + float(np.sum(np.exp(extra - log_pos) * (8.0 + np.abs(extra)))))
    err += 8.0 * MACHINE_EPSILON * (1.0 + math.exp(min(log_neg - log_pos, 0.0)))
    err += math.exp(log_tail - log_pos)
    err += gap_err * math.exp(ln0 - log_pos) if gap_err > 0.0 else 0.0
    frac = -math.expm1(log_neg - log_pos) if log_neg > -math.inf else 1.0
    log_am1 = log_pos + math.log(max(frac, 0.0) + err)
    log_a = float(np.logaddexp(0.0, log_am1))
    return log_a, 4.0 * abs(log_a)


def _log_a_fractional_many(log_q: float, log_1mq: float, sigma: float,
                           alphas: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r""":func:`_log_a_fractional` for many orders at once (same bounds, one vectorized pass).

    All orders share one truncation index :math:`K = \lfloor\max\alpha\rfloor + 256`
    (valid for each, since :math:`K \ge \lfloor\alpha\rfloor`); an order whose truncation
    bound is not yet below ``1e-11`` of :math:`A_\alpha - 1` is recomputed by
    :func:`_log_a_fractional`, which grows K.
    """
    al = np.asarray(alphas, dtype=float)
    n_ord = al.size
    out_a, out_s = np.empty(n_ord), np.empty(n_ord)
    if n_ord == 0:
        return out_a, out_s
    q = math.exp(log_q)
    z0 = sigma * sigma * (log_1mq - log_q) + 0.5
    A = al[:, None]
    K = int(math.floor(float(np.max(al)))) + 256
    k = np.arange(K + 2, dtype=float)[None, :]
    t1, t2, sign, scale = _series_terms(log_q, log_1mq, sigma, A, z0, k)
    # Bernoulli gap (1-q)^a - 1 + a q and its error, per order
    if q > 0.5:
        gap = np.maximum(np.expm1(al * log_1mq) + al * q, 0.0)
        gap_err = 8.0 * MACHINE_EPSILON * (1.0 + al * q + np.abs(al * log_1mq))
    else:
        nn = np.arange(2.0, 2.0 + 96.0 + math.ceil(float(np.max(al))))[None, :]
        log_abs = gammaln(A + 1.0) - gammaln(nn + 1.0) - gammaln(A - nn + 1.0) + nn * log_q
        nsign = np.where(np.mod(np.maximum(0.0, nn - 1.0 - np.floor(A)) + nn, 2.0) == 0.0, 1.0, -1.0)
        mags = np.exp(log_abs)
        gap = np.maximum(np.array([math.fsum(r) for r in (nsign * mags).tolist()]), 0.0)
        comp = np.abs(log_abs) + 2.0 * gammaln(A + nn + 1.0) + 8.0
        gap_err = (mags[:, -1] * q / (1.0 - q) + 32.0 * MACHINE_EPSILON * np.sum(mags * comp, axis=1)
                   + (nn.size + 2) * MACHINE_EPSILON * np.sum(mags, axis=1))
    ln0, ln1 = float(log_ndtr(z0 / sigma)), float(log_ndtr((z0 - 1.0) / sigma))
    lm0, lm1 = float(log_ndtr(-z0 / sigma)), float(log_ndtr((1.0 - z0) / sigma))
    log_aq = np.log(al) + log_q
    shrink = -np.expm1((al - 1.0) * log_1mq)
    c = 1.0 - al * q
    ninf = -np.inf
    with np.errstate(divide="ignore"):
        # extras: columns (gap, shrink, c-term, aq-term) with their signs
        ex = np.stack([np.log(gap) + ln0, log_aq + np.log(shrink) + ln1,
                       np.log(np.abs(c)) + lm0, log_aq + lm1], axis=1)
    ex = np.where(np.isnan(ex), ninf, ex)
    ex_sign = np.stack([np.ones(n_ord), -np.ones(n_ord), np.where(c > 0.0, -1.0, 1.0), -np.ones(n_ord)], axis=1)
    body = np.concatenate([t1[:, 2:-1], t2[:, :-1]], axis=1)
    bsign = np.concatenate([sign[:, 2:-1], sign[:, :-1]], axis=1)
    bscale = np.concatenate([scale[:, 2:-1], scale[:, :-1]], axis=1)
    log_tail = np.logaddexp(t1[:, -1], t2[:, -1])
    allv = np.concatenate([body, ex], axis=1)
    alls = np.concatenate([bsign, ex_sign], axis=1)
    ref = np.max(allv, axis=1)
    w = np.exp(allv - ref[:, None])
    pos_rows = np.where(alls > 0, w, 0.0).tolist()
    neg_rows = np.where(alls < 0, w, 0.0).tolist()
    wb = w[:, :body.shape[1]]
    wx = w[:, body.shape[1]:]
    for i in range(n_ord):
        P, N = math.fsum(pos_rows[i]), math.fsum(neg_rows[i])
        tail = math.exp(log_tail[i] - ref[i])
        if not (P - N > 0.0 and tail <= 1e-11 * (P - N)):
            out_a[i], out_s[i] = _log_a_fractional(log_q, log_1mq, sigma, float(al[i]))
            continue
        exv = allv[i, body.shape[1]:]
        err = 32.0 * MACHINE_EPSILON * (float(np.dot(wb[i], 1.0 + bscale[i]))
                             + float(np.dot(wx[i], 8.0 + np.where(np.isfinite(exv), np.abs(exv), 0.0))))
        err += 8.0 * MACHINE_EPSILON * (P + N)
        err += tail
        err += float(gap_err[i]) * math.exp(ln0 - ref[i])
        log_am1 = float(ref[i]) + math.log(max(P - N, 0.0) + err)
        la = float(np.logaddexp(0.0, log_am1))
        out_a[i], out_s[i] = la, 4.0 * abs(la)
    return out_a, out_s


def rdp_subsampled_gaussian(rate: float, noise_multiplier: float, orders: Any = None) -> np.ndarray:
    r"""Renyi curve of the Poisson-subsampled Gaussian mechanism (the sampled Gaussian mechanism).

    With :math:`\mu_0 = N(0, \sigma^2)`, :math:`\mu_1 = N(1, \sigma^2)` (``noise_multiplier``
    :math:`\sigma` = noise standard deviation / L2 sensitivity) and sampling rate
    :math:`q`, the curve is :math:`\tau(\alpha) = \frac{1}{\alpha-1}\log A_\alpha` with
    :math:`A_\alpha = E_{z\sim\mu_0}[((1-q) + q\mu_1(z)/\mu_0(z))^\alpha]`:

    - integer :math:`\alpha`: exactly
      :math:`A_\alpha = \sum_{k=0}^{\alpha}\binom{\alpha}{k}(1-q)^{\alpha-k}q^k e^{(k^2-k)/(2\sigma^2)}`
      (Mironov, Talwar and Zhang, "Renyi Differential Privacy of the Sampled Gaussian
      Mechanism", 2019, Sec. 3), summed in log space as :math:`\log(1 + (A_\alpha - 1))`
      (see :func:`_log_a_integer`);
    - fractional :math:`\alpha`: their two-sided series with a certified truncation bound
      (see :func:`_log_a_fractional`); the value is an upper bound;
    - orders above 1e5 are not evaluated and reported as ``inf`` (a trivial upper bound).

    Args:
        rate: the Poisson sampling rate :math:`q \in (0, 1]`.
        noise_multiplier: :math:`\sigma > 0`.
        orders: Renyi orders (default :data:`DEFAULT_ORDERS`).

    Guarantee:
        upper bound on the Renyi divergence for neighbours by adding or removing one record.
        :math:`A_\alpha` is the divergence :math:`D_\alpha((1-q)\mu_0+q\mu_1 \| \mu_0)`; the
        other direction :math:`D_\alpha(\mu_0 \| (1-q)\mu_0+q\mu_1)` is never larger, as
        Mironov, Talwar and Zhang (2019, Sec. 3) show for the sampled Gaussian (this is also
        what every RDP accountant for DP-SGD relies on); the tests check it numerically
        (mpmath, both directions) on a grid of rates, noise levels and orders.

    References:
        Mironov, Talwar and Zhang, "Renyi Differential Privacy of the Sampled Gaussian
        Mechanism", arXiv:1908.10530, 2019, Sec. 3; Abadi et al., "Deep Learning with
        Differential Privacy", CCS 2016 (the moments accountant).
    """
    q = check_probability("rate", rate, low_open=True)
    sigma = check_positive("noise_multiplier", noise_multiplier)
    a = _orders_arg(orders)
    if q == 1.0:
        return rdp_gaussian(1.0 / sigma, a)
    log_q, log_1mq = math.log(q), math.log1p(-q)
    log_a = np.empty_like(a)
    scale = np.zeros_like(a)
    log_a[a > _MAX_SGM_ORDER] = math.inf  # not evaluated: +inf is a valid (trivial) upper bound
    frac = np.flatnonzero((a <= _MAX_SGM_ORDER) & (a != np.floor(a)))
    ints = np.flatnonzero((a <= _MAX_SGM_ORDER) & (a == np.floor(a)))
    few = ints[a[ints] <= 64.0]
    log_a[few], scale[few] = _log_a_integer_many(log_q, log_1mq, sigma, a[few])
    for i in ints[a[ints] > 64.0]:
        log_a[i], scale[i] = _log_a_integer(log_q, log_1mq, sigma, int(a[i]))
    # fractional orders: in one vectorized pass when they are few enough to share K
    small = frac[a[frac] <= 64.0]
    log_a[small], scale[small] = _log_a_fractional_many(log_q, log_1mq, sigma, a[small])
    for i in frac[a[frac] > 64.0]:
        log_a[i], scale[i] = _log_a_fractional(log_q, log_1mq, sigma, float(a[i]))
    return _round_up_curve(log_a, a, scale)


# ---------------------------------------------------------------------------
# dispatch per mechanism


def _not_applicable(mechanism: Mechanism, why: str) -> MethodNotApplicableError:
    from .mechanisms import describe

    return MethodNotApplicableError(f"method 'rdp' cannot certify {describe(mechanism)}: {why}")


@singledispatch
def rdp_curve(mechanism: Mechanism, orders: Any = None) -> np.ndarray:
    r"""The Renyi curve :math:`\tau(\alpha)` of one mechanism at each order (an upper bound).

    Raises:
        MethodNotApplicableError: no Renyi rule is implemented for this mechanism.
    """
    raise _not_applicable(mechanism, "no Renyi-DP rule for this mechanism type")


@rdp_curve.register
def _(m: Gaussian, orders: Any = None) -> np.ndarray:
    return rdp_gaussian(m.mu, orders)


@rdp_curve.register
def _(m: Laplace, orders: Any = None) -> np.ndarray:
    return rdp_laplace(m.epsilon, orders)


@rdp_curve.register
def _(m: RandomizedResponse, orders: Any = None) -> np.ndarray:
    return rdp_randomized_response(m.epsilon, orders)


@rdp_curve.register
def _(m: PureDP, orders: Any = None) -> np.ndarray:
    return rdp_pure_dp(m.epsilon, orders)


@rdp_curve.register
def _(m: Exponential, orders: Any = None) -> np.ndarray:
    # accounted as an epsilon-DP mechanism (an upper bound)
    return rdp_pure_dp(m.epsilon, orders)


@rdp_curve.register
def _(m: ApproxDP, orders: Any = None) -> np.ndarray:
    if m.delta > 0.0:
        raise _not_applicable(
            m, "an (epsilon, delta)-DP description with delta > 0 has no finite Renyi curve "
               "(its dominating pair has an atom of infinite loss); use method='pld' or 'optimal'."
        )
    return rdp_pure_dp(m.epsilon, orders)


@rdp_curve.register
def _(m: Subsampled, orders: Any = None) -> np.ndarray:
    if m.rate == 1.0:
        return rdp_curve(m.mechanism, orders)
    if m.scheme != "poisson":
        raise _not_applicable(
            m, "no Renyi rule is implemented for sampling without replacement; use method='pld'."
        )
    if not isinstance(m.mechanism, Gaussian):
        raise _not_applicable(
            m, "Renyi curves of Poisson subsampling are implemented only for the Gaussian "
               "mechanism (the sampled Gaussian mechanism); use method='pld'."
        )
    g = m.mechanism
    return rdp_subsampled_gaussian(m.rate, g.sigma / g.sensitivity, orders)


def pure_dp_epsilon(mechanism: Mechanism) -> float:
    r"""The mechanism's Renyi curve at :math:`\alpha = \infty` (its pure-DP epsilon, or inf)."""
    if isinstance(mechanism, (PureDP, RandomizedResponse, Exponential, Laplace)):
        return float(mechanism.epsilon)
    if isinstance(mechanism, ApproxDP):
        return float(mechanism.epsilon) if mechanism.delta == 0.0 else math.inf
    if isinstance(mechanism, Subsampled) and mechanism.rate == 1.0:
        return pure_dp_epsilon(mechanism.mechanism)
    return math.inf


# ---------------------------------------------------------------------------
# composition and conversion


def compose_rdp(mechanisms: Iterable[Any], orders: Any = None) -> tuple[np.ndarray, np.ndarray]:
    r"""Renyi curve of a composition: :math:`\sum_i k_i \tau_i(\alpha)` at each order.

    Args:
        mechanisms: a list of mechanisms and ``(mechanism, count)`` pairs (as for
            :func:`dpcompose.compose`), or already grouped ``((m, k), ...)``.
        orders: Renyi orders (default :data:`DEFAULT_ORDERS`).

    Returns:
        ``(orders, tau)``: the grid and the composed curve (an upper bound at each order).

    Guarantee:
        upper bound; Renyi DP composes additively, also adaptively (Mironov, "Renyi
        Differential Privacy", CSF 2017, Prop. 1).
    """
    a = _orders_arg(orders)
    groups = normalize(mechanisms)
    total = np.zeros_like(a)
    for m, k in groups:
        total = total + float(k) * rdp_curve(m, a)
    # one ulp of rounding per addition and per multiplication
    total = total * (1.0 + 4.0 * (len(groups) + 1) * MACHINE_EPSILON)
    return a, total


def _log_delta_at(orders: np.ndarray, tau: np.ndarray, epsilon: float) -> np.ndarray:
    """log delta of CKS Prop. 12 at each order (+inf where tau is infinite)."""
    am1 = orders - 1.0
    with np.errstate(invalid="ignore", over="ignore"):
        out = am1 * (tau - epsilon) + orders * np.log1p(-1.0 / orders) - np.log(am1)
    return np.where(np.isfinite(tau), out, np.inf)


def rdp_to_delta(orders: Any, tau: Any, epsilon: float, *, pure_epsilon: float = math.inf) -> tuple[float, float]:
    r"""Smallest certified :math:`\delta(\varepsilon)` over the orders, and the order attaining it.

    :math:`\delta = \min_\alpha \frac{e^{(\alpha-1)(\tau(\alpha)-\varepsilon)}}{\alpha-1}\left(1-\frac1\alpha\right)^\alpha`
    (Canonne, Kamath and Steinke 2020, Prop. 12), capped at 1; 0 when
    :math:`\varepsilon \ge` ``pure_epsilon`` (the order :math:`\infty`).

    Args:
        orders: Renyi orders (each > 1).
        tau: the Renyi curve at those orders (same length; non-negative, may be inf).
        epsilon: in :math:`[0, \infty]`.
        pure_epsilon: the curve at :math:`\alpha = \infty`, if finite.

    Returns:
        ``(delta, order)``; ``order`` is ``inf`` when the pure-DP bound wins.

    Guarantee:
        certified upper bound (the exponent is rounded up by a relative 1e-12).

    References:
        Canonne, Kamath and Steinke, "The Discrete Gaussian for Differential Privacy",
        NeurIPS 2020, Prop. 12.
    """
    a, t = _curve_args(orders, tau)
    epsilon = check_epsilon("epsilon", epsilon, allow_inf=True)
    if math.isinf(epsilon):
        # delta(inf) is the mass of infinite loss: none if some Renyi divergence of order
        # > 1 is finite (P is then absolutely continuous w.r.t. Q), else up to all of it
        if math.isfinite(pure_epsilon) or np.any(np.isfinite(t)):
            return 0.0, (math.inf if math.isfinite(pure_epsilon) else float(a[np.argmax(np.isfinite(t))]))
        return 1.0, math.nan
    if epsilon >= pure_epsilon:
        return 0.0, math.inf
    log_d = _log_delta_at(a, t, epsilon)
    i = int(np.argmin(log_d))
    best = float(log_d[i])
    if not math.isfinite(best):
        return 1.0, math.nan
    best = best + 1e-12 * abs(best) + 64.0 * MACHINE_EPSILON * (1.0 + abs(float(a[i] - 1.0) * float(t[i])))
    # below pure_epsilon the bound is positive: where exp underflows, report the smallest
    # positive double (never 0, which would claim more than the bound proves)
    return (1.0 if best >= 0.0 else max(SMALLEST_DELTA, math.exp(best))), float(a[i])


def rdp_to_epsilon(orders: Any, tau: Any, delta: float, *, pure_epsilon: float = math.inf) -> tuple[float, float]:
    r"""Smallest certified :math:`\varepsilon(\delta)` over the orders, and the order attaining it.

    :math:`\varepsilon = \min_\alpha\ \tau(\alpha) + \log\frac{\alpha-1}{\alpha} - \frac{\log\delta + \log\alpha}{\alpha-1}`
    clamped at 0 (Canonne, Kamath and Steinke 2020, Prop. 12, solved for
    :math:`\varepsilon`; the same as Balle et al. 2020, Thm 21), and at most
    ``pure_epsilon`` (the order :math:`\infty`, valid for every :math:`\delta \ge 0`).

    Args:
        orders: Renyi orders (each > 1).
        tau: the Renyi curve at those orders.
        delta: in :math:`[0, 1]`; at 0 only the order :math:`\infty` gives a finite bound.
        pure_epsilon: the curve at :math:`\alpha = \infty`, if finite.

    Returns:
        ``(epsilon, order)``; ``order`` is ``inf`` when the pure-DP bound wins.

    Guarantee:
        certified upper bound (rounded up by a relative 1e-12 plus a few ulps).

    References:
        Canonne, Kamath and Steinke, "The Discrete Gaussian for Differential Privacy",
        NeurIPS 2020, Prop. 12; Balle, Barthe, Gaboardi, Hsu and Sato, "Hypothesis Testing
        Interpretations and Renyi Differential Privacy", AISTATS 2020, Thm 21.
    """
    a, t = _curve_args(orders, tau)
    delta = check_delta("delta", delta, allow_one=True)
    if delta >= 1.0:
        return 0.0, math.nan
    if delta == 0.0:
        return (pure_epsilon, math.inf)
    log_delta = math.log(delta)
    am1 = a - 1.0
    with np.errstate(invalid="ignore"):
        eps = t + np.log1p(-1.0 / a) - (log_delta + np.log(a)) / am1
    eps = np.where(np.isfinite(t), eps, np.inf)
    i = int(np.argmin(eps))
    best = float(eps[i])
    if math.isfinite(best):
        mag = abs(float(t[i])) + abs(log_delta / float(am1[i])) + abs(math.log(float(a[i]))) + 1.0
        best = best + 1e-12 * abs(best) + 64.0 * MACHINE_EPSILON * mag
    best = max(0.0, best)
    if pure_epsilon <= best:
        return float(pure_epsilon), math.inf
    return best, float(a[i]) if math.isfinite(best) else math.nan


def _curve_args(orders: Any, tau: Any) -> tuple[np.ndarray, np.ndarray]:
    a = np.atleast_1d(np.asarray(orders, dtype=float))
    t = np.atleast_1d(np.asarray(tau, dtype=float))
    if a.shape != t.shape or a.ndim != 1 or a.size == 0:
        raise InvalidParameterError(
            f"orders and tau must be non-empty 1-D arrays of the same length, got shapes {a.shape} and {t.shape}."
        )
    if np.any(np.isnan(a)) or np.any(~np.isfinite(a)) or np.any(a <= 1.0):
        raise InvalidParameterError("every Renyi order must be a finite number alpha > 1.")
    if np.any(np.isnan(t)) or np.any(t < 0.0):
        raise InvalidParameterError("a Renyi curve tau must be non-negative (inf allowed), never NaN.")
    return a, t


# ---------------------------------------------------------------------------
# the method


@register_method("rdp", check_options=check_orders)
def rdp(groups: Groups, *, orders: Any = None) -> Guarantee:
    r"""Renyi DP: additive composition of Renyi curves, converted with Canonne-Kamath-Steinke Prop. 12.

    Args:
        groups: ``((mechanism, count), ...)`` from :func:`dpcompose.compose`.
        orders: Renyi orders to optimise over (default :data:`DEFAULT_ORDERS`: 1.001 to 4096).

    Returns:
        A :class:`~dpcompose.guarantee.Guarantee` with native ``epsilon(delta)`` and
        ``delta(epsilon)`` upper bounds, each minimised over the orders.

    Guarantee:
        certified upper bound, for adaptive composition, under the neighbour relation of
        the mechanisms' own parameters (adding or removing one record for the
        Poisson-subsampled Gaussian). No lower bound is claimed.

    Raises:
        MethodNotApplicableError: a mechanism has no Renyi rule here (``ApproxDP`` with
            delta > 0, sampling without replacement, subsampled non-Gaussian mechanisms).

    References:
        Mironov, "Renyi Differential Privacy", CSF 2017 (Prop. 1 composition, Table II
        curves); Mironov, Talwar and Zhang 2019 (sampled Gaussian); Canonne, Kamath and
        Steinke, "The Discrete Gaussian for Differential Privacy", NeurIPS 2020, Prop. 12.
    """
    a, tau = compose_rdp(groups, orders)
    pure = 0.0
    for m, k in groups:
        pure += float(k) * pure_dp_epsilon(m)
    if math.isfinite(pure):
        pure = pure * (1.0 + 4.0 * (len(groups) + 1) * MACHINE_EPSILON)
    tau.setflags(write=False)

    def epsilon_upper(delta: float) -> float:
        return rdp_to_epsilon(a, tau, delta, pure_epsilon=pure)[0]

    def delta_upper(epsilon: float) -> float:
        return rdp_to_delta(a, tau, epsilon, pure_epsilon=pure)[0]

    provenance = {
        "orders": [float(x) for x in a],
        "conversion": _CONVERSION,
        "pure_dp_epsilon": pure,
        "neighbours": "as stated by each mechanism (add/remove one record for Poisson subsampling)",
    }
    return Guarantee("rdp", epsilon_upper=epsilon_upper, delta_upper=delta_upper, provenance=provenance)
