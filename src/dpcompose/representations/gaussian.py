r"""The Gaussian family: every rule of ``Gaussian(sigma, sensitivity)``, :math:`\mu = \Delta/\sigma`.

Dominating pair (exact): ``A = N(0, 1)``, ``B = N(mu, 1)``, loss :math:`\mu z - \mu^2/2`,
one segment over the real line. Exact profile of Balle and Wang ("Improving the
Gaussian Mechanism for Differential Privacy", ICML 2018, Thm 8), evaluated in log space
with certified rounding both ways (:func:`gaussian_log_delta`,
:func:`gaussian_log_delta_lower`); Renyi curve :math:`\alpha\mu^2/2` (Mironov 2017,
Table II). A Gaussian has no (epsilon, delta) pair of its own and no pure epsilon.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Callable

import numpy as np

from .._numerics.lazy import lazy_function
from .._numerics.logspace import LOG_SQRT_2PI
from .._numerics.rounding import MACHINE_EPSILON, SMALLEST_DELTA
from .._validation import check_positive
from ..mechanisms import Gaussian
from .pairs import DominatingPair, PairSegment
from .renyi import _orders_arg
from .rules import (
    DominanceKey,
    Quotient,
    dominance_key,
    dominating_pair,
    eps_delta_pair,
    gdp_mu,
    privacy_profile,
    pure_epsilon,
    renyi_curve,
    zcdp_rho,
)
from .syntax import MechanismSyntax, Parameter, register_syntax

erf = lazy_function("scipy.special", "erf")  # imported on first use (cold start)
log_ndtr = lazy_function("scipy.special", "log_ndtr")  # imported on first use (cold start)

__all__ = ["gaussian_profile", "gaussian_log_delta", "gaussian_log_delta_lower", "rdp_gaussian"]

Profile = Callable[[float], float]


def gaussian_log_delta(mu: float, e: float) -> float:
    r"""log of the Gaussian mechanism's profile, :math:`\log\delta(e)` with :math:`\mu = \Delta/\sigma`.

    :math:`\delta(e) = \Phi(\mu/2 - e/\mu) - e^{e}\Phi(-\mu/2 - e/\mu)` (Balle and Wang
    2018, Thm 8), computed as
    :math:`\log A + \log(-\mathrm{expm1}(\log B - \log A))` with ``log_ndtr`` for both
    tails, so it stays accurate down to :math:`\delta \approx 10^{-300}` and below.

    Rounding is accounted for on the safe side: ``log B - log A`` is lowered, and
    ``log A`` raised, by a bound on their floating-point error (16 ulps of the
    magnitudes involved; the largest error seen against mpmath is about 3), so the
    result is an upper bound on the true :math:`\log\delta(e)`. Where ``A`` and ``B``
    nearly cancel (tiny :math:`\mu`) the bound is loose instead of under-reporting:
    measured against mpmath for :math:`\delta \ge 10^{-300}`, the excess in
    :math:`\log\delta` is below 4e-8 for :math:`\mu \ge 10^{-3}`, 4e-5 for
    :math:`\mu \ge 10^{-6}` and 0.03 for :math:`\mu \ge 10^{-9}`.
    """
    if math.isinf(e):
        return -math.inf
    # delta(0) = Phi(mu/2) - Phi(-mu/2) = erf(mu / 2^1.5) is free of cancellation, and
    # bounds delta(e) for every e >= 0; erf(x) <= 2x / sqrt(pi) where erf underflows
    v = float(erf(mu / (2.0 * math.sqrt(2.0))))
    if v > 0.0:
        log_at_zero = min(0.0, math.log(v) + 16.0 * MACHINE_EPSILON * (1.0 + abs(math.log(v))))
    else:
        log_at_zero = math.log(mu) - 0.5 * math.log(2.0 * math.pi) + 1e-12
    if e == 0.0:
        return log_at_zero
    terms = _gaussian_terms(mu, e)
    if terms is None:
        return -math.inf
    log_a, log_ratio, err_a, err_d = terms
    d = log_ratio - err_d  # lowered: a smaller B/A means a larger (safe) delta
    if not d < 0.0:  # cannot happen within the error model; A >= delta always holds
        return min(log_at_zero, log_a + err_a)
    return min(log_at_zero, _log_a_minus_b(log_a + err_a, d, +1.0))


def _gaussian_terms(mu: float, e: float) -> tuple[float, float, float, float] | None:
    """``(log A, log B - log A, err_a, err_d)`` of the Balle-Wang form at finite e > 0.

    ``err_a`` and ``err_d`` bound the floating-point error of ``log A`` and of
    ``log B - log A`` (16 ulps of the magnitudes involved, arguments included). None
    when ``A`` underflows (delta is then below every double).
    """
    log_a = float(log_ndtr(mu / 2.0 - e / mu))
    if log_a == -math.inf:
        return None
    log_phi_b = float(log_ndtr(-mu / 2.0 - e / mu))
    err_a = 16.0 * MACHINE_EPSILON * (1.0 + abs(log_a))
    err_d = 16.0 * MACHINE_EPSILON * (1.0 + abs(log_a) + abs(e) + abs(log_phi_b))
    return log_a, e + log_phi_b - log_a, err_a, err_d


def _log_a_minus_b(log_a: float, d: float, direction: float) -> float:
    """log(A (1 - e^d)) for d < 0, moved by a bound on the rounding of the last steps.

    ``direction`` +1 rounds up, -1 down: ``expm1`` and ``log`` are within an ulp, so the
    error is at most 4 ulps of the magnitudes of the two terms and the result.
    """
    tail = math.log(-math.expm1(d))
    out = log_a + tail
    return out + direction * 4.0 * MACHINE_EPSILON * (1.0 + abs(tail) + abs(out))


def gaussian_log_delta_lower(mu: float, e: float) -> float:
    r"""Certified *lower* bound on :math:`\log\delta(e)` of the Gaussian mechanism (``-inf``: none).

    The same closed form as :func:`gaussian_log_delta` (Balle and Wang 2018, Thm 8),
    :math:`\delta(e) = A - B` with :math:`A = \Phi(\mu/2 - e/\mu)` and
    :math:`B = e^{e}\Phi(-\mu/2 - e/\mu)`, rounded the other way under the same error
    model (16 ulps of the magnitudes involved for each ``log_ndtr`` and the arguments):
    ``log A`` is lowered, ``log B - log A`` raised, and the result lowered by a bound on
    the rounding of the final ``expm1``, ``log`` and sum. Where the raised ratio
    :math:`B/A` reaches 1 (the two tails agree to the error bound, i.e. tiny
    :math:`\mu` or :math:`\delta` near underflow of the ratio), no positive lower bound is
    certified and the result is ``-inf``.

    Guarantee:
        lower bound on the true :math:`\log\delta(e)`, checked against mpmath (50
        digits) for :math:`\mu \in [10^{-9}, 10^{3}]` and :math:`\delta \ge 10^{-300}`
        (``tests/test_gaussian_profile.py``). Measured gap to the truth in
        :math:`\log\delta` (6000 random points, :math:`\delta \ge 10^{-300}`): below
        1e-9 for :math:`\mu \ge 0.1`, 1.2e-7 for :math:`\mu \ge 10^{-3}`, 1e-4 for
        :math:`\mu \ge 10^{-6}` and 0.08 for :math:`\mu \ge 10^{-9}`: it grows as
        :math:`\mu` shrinks, with the cancellation between the tails, like the excess
        of :func:`gaussian_log_delta`.

    References:
        Balle and Wang, "Improving the Gaussian Mechanism for Differential Privacy"
        (ICML 2018), Thm 8.
    """
    if math.isinf(e):
        return -math.inf
    if e == 0.0:
        v = float(erf(mu / (2.0 * math.sqrt(2.0))))
        if v <= 0.0:
            return -math.inf
        return math.log(v) - 16.0 * MACHINE_EPSILON * (1.0 + abs(math.log(v)))
    terms = _gaussian_terms(mu, e)
    if terms is None:
        return -math.inf
    log_a, log_ratio, err_a, err_d = terms
    d = log_ratio + err_d  # raised: a larger B/A means a smaller delta
    if not d < 0.0:
        return -math.inf
    return _log_a_minus_b(log_a - err_a, d, -1.0)


def gaussian_profile(mu: float) -> Profile:
    """Exact privacy profile of the Gaussian mechanism with mu = sensitivity / sigma.

    A certified upper bound (see :func:`gaussian_log_delta`); at finite e the truth is
    positive, so where it underflows the profile reports the smallest positive double.
    """

    def profile(e: float) -> float:
        if math.isinf(e):
            return 0.0  # the Gaussian's privacy loss is never infinite
        return max(SMALLEST_DELTA, math.exp(gaussian_log_delta(mu, e)))

    return profile


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


def gaussian_pair(mu: float) -> DominatingPair:
    """The Gaussian pair with ``mu = sensitivity / sigma`` (one segment in z over the reals)."""
    half = 0.5 * mu * mu
    segment = PairSegment(
        -math.inf, math.inf,
        loss=lambda z: mu * z - half,
        inverse=lambda v: (v + half) / mu,
        a_density=lambda z: np.exp(-0.5 * z * z - LOG_SQRT_2PI),
        b_density=lambda z: np.exp(-0.5 * (z - mu) ** 2 - LOG_SQRT_2PI),
        increasing=True, normal_mu=mu)
    return DominatingPair((), (segment,))


# ---------------------------------------------------------------------------
# rules


@eps_delta_pair.register(Gaussian)
def _(m: Gaussian) -> None:
    return None  # described only by its profile


@privacy_profile.register(Gaussian)
def _(m: Gaussian) -> Profile:
    return gaussian_profile(m.mu)


@dominating_pair.register(Gaussian)
def _(m: Gaussian, *, epsilon: float | None = None) -> DominatingPair:
    return gaussian_pair(m.mu)


@pure_epsilon.register(Gaussian)
def _(m: Gaussian) -> float:
    return math.inf  # the Gaussian's loss is unbounded


@renyi_curve.register(Gaussian)
def _(m: Gaussian, orders: Any = None) -> np.ndarray:
    return rdp_gaussian(m.mu, orders)


@dominance_key.register(Gaussian)
def _(m: Gaussian) -> DominanceKey:
    return DominanceKey("gaussian", (m.mu,), size=5.0 * m.mu)


@gdp_mu.register(Gaussian)
def _(m: Gaussian) -> Quotient:
    # mu = Delta / sigma: the pair N(0, 1) vs N(mu, 1) (Dong, Roth and Su, Thm 2.7)
    return Quotient(m.sensitivity, m.sigma)


@zcdp_rho.register(Gaussian)
def _(m: Gaussian) -> Quotient:
    # rho = Delta^2 / (2 sigma^2) (Bun and Steinke, "Concentrated Differential Privacy", TCC 2016, Prop. 1.6)
    return Quotient(m.sensitivity, m.sigma, power=2, scale=Fraction(1, 2))


def _initial_sigma(epsilon: float, delta: float, count: int, rate: float | None, s: float) -> float:
    if not delta > 0.0:
        return 1.0
    from ..calibration import gaussian_sigma  # calibration's own single-release formula

    # k Gaussians compose to one with mu * sqrt(k); subsampling shrinks it about q-fold
    q = 1.0 if rate is None else rate
    return gaussian_sigma(epsilon, delta, s) * math.sqrt(count) * max(q, 1.0 / math.sqrt(count))


register_syntax(MechanismSyntax(
    "gaussian", Gaussian,
    (Parameter("sigma", "noise standard deviation > 0",
               "the noise standard deviation must be a finite number > 0, e.g. sigma = 1.1", gt=0),
     Parameter("sensitivity", "L2 sensitivity > 0", "the sensitivity must be a finite number > 0 (default 1)",
               default=1.0, gt=0)),
    "Gaussian noise of standard deviation sigma on a query of the given L2 sensitivity.", "GaussianSpec",
    noise="sigma", initial_guess=_initial_sigma))
