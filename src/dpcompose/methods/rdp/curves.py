r"""Renyi orders and the Renyi curve of each mechanism (:func:`rdp_curve`).

Every curve is rounded up by a margin that covers the rounding error of its
evaluation (:func:`_round_up_curve`), so it is a certified upper bound at each order.
"""

from __future__ import annotations

import math
import numbers
from functools import singledispatch
from typing import Any

import numpy as np

from ..._numerics.logspace import log_expm1
from ..._numerics.rounding import MACHINE_EPSILON
from ..._validation import check_epsilon, check_positive
from ...errors import InvalidParameterError, MethodNotApplicableError
from ...mechanisms import (
    ApproxDP,
    Exponential,
    Gaussian,
    Laplace,
    Mechanism,
    PureDP,
    RandomizedResponse,
    Subsampled,
    describe,
)

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


def _not_applicable(mechanism: Mechanism, why: str) -> MethodNotApplicableError:
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
    from .sampled_gaussian import rdp_subsampled_gaussian

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
