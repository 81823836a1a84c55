r"""From a Renyi curve to (epsilon, delta): Canonne, Kamath and Steinke 2020, Prop. 12, minimised over orders."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..._numerics.rounding import MACHINE_EPSILON, SMALLEST_DELTA
from ..._validation import check_delta, check_epsilon
from ...errors import InvalidParameterError


_CONVERSION = (
    "Canonne, Kamath and Steinke 2020, Prop. 12 (= Balle et al. 2020, Thm 21): "
    "eps = tau + log((alpha-1)/alpha) - (log delta + log alpha)/(alpha-1), minimised over orders"
)


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
