r"""Representations: what each composition method needs to know about a mechanism.

Dispatch is per mechanism class through :func:`functools.singledispatch`, so adding a
mechanism means registering its rules here (or in the module that defines them), not
editing every method.

- :func:`eps_delta_pair` -- the mechanism's own (epsilon, delta) guarantee, when it has
  one that needs no free choice (Laplace: (Delta/b, 0)); ``None`` for mechanisms that
  are only described by a profile (Gaussian).
- :func:`privacy_profile` -- :math:`\delta(\varepsilon)` for :math:`\varepsilon \in [0, \infty]`,
  the hockey-stick divergence of the mechanism's dominating pair (exact for the
  mechanism or, for class descriptions such as ``PureDP``, exact for the worst member
  of the class). Subsampled profiles are certified upper bounds.
- :func:`is_class_worst_case` -- whether the mechanism *is* the worst case of its
  (epsilon, delta) description, so that results exact for the class (optimal
  composition) are also lower bounds for it.

Privacy profile convention: :math:`\delta(\varepsilon) = \sup_{x \sim x'}
H_{e^\varepsilon}(M(x) \| M(x'))` with the hockey-stick divergence
:math:`H_\gamma(P\|Q) = \int (p - \gamma q)_+`; a mechanism is
:math:`(\varepsilon, \delta)`-DP iff :math:`\delta(\varepsilon) \le \delta`.
"""

from __future__ import annotations

import math
from functools import singledispatch
from typing import Callable

from scipy.special import erf, log_ndtr

from ._numerics.rounding import MACHINE_EPSILON, SMALLEST_DELTA
from .errors import UnsupportedMechanismError
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
    "eps_delta_pair",
    "privacy_profile",
    "is_class_worst_case",
    "pure_dp_profile",
    "approx_dp_profile",
    "laplace_profile",
    "gaussian_profile",
    "gaussian_log_delta",
    "gaussian_log_delta_lower",
]

Profile = Callable[[float], float]


def _unsupported(kind: str, mechanism: object) -> UnsupportedMechanismError:
    return UnsupportedMechanismError(
        f"{kind} has no rule for {mechanism!r} (type {type(mechanism).__name__}); "
        f"use one of PureDP, ApproxDP, Laplace, Gaussian, RandomizedResponse, Exponential, Subsampled."
    )


# ---------------------------------------------------------------------------
# closed-form profiles


def pure_dp_profile(epsilon: float) -> Profile:
    r"""Profile of randomized response with parameter epsilon (worst case of epsilon-DP).

    :math:`\delta(e) = (e^{\varepsilon} - e^{e}) / (1 + e^{\varepsilon})` for
    :math:`e < \varepsilon`, else 0; evaluated as
    :math:`-\mathrm{expm1}(e - \varepsilon) / (1 + e^{-\varepsilon})`.
    """
    return approx_dp_profile(epsilon, 0.0)


def approx_dp_profile(epsilon: float, delta: float) -> Profile:
    r"""Profile of the dominating pair of (epsilon, delta)-DP (Kairouz, Oh and Viswanath 2015).

    :math:`\delta(e) = \delta + (1 - \delta)(e^{\varepsilon} - e^{e})/(1 + e^{\varepsilon})`
    for :math:`e < \varepsilon`, and :math:`\delta` for :math:`e \ge \varepsilon`.
    """

    def profile(e: float) -> float:
        if math.isinf(epsilon):
            # non-private: the loss is +inf with probability 1, so delta(e) = 1 for
            # every e, including e = inf (the mass of infinite loss)
            return 1.0
        if e >= epsilon:
            return delta
        rr = -math.expm1(e - epsilon) / (1.0 + math.exp(-epsilon))
        return min(1.0, delta + (1.0 - delta) * rr)

    return profile


def laplace_profile(epsilon: float) -> Profile:
    r"""Exact profile of the Laplace mechanism with :math:`\varepsilon = \Delta/b`.

    :math:`\delta(e) = 1 - e^{(e - \varepsilon)/2}` for :math:`0 \le e < \varepsilon`,
    else 0 (Balle, Barthe and Gaboardi 2018, privacy profiles of the Laplace mechanism).
    """

    def profile(e: float) -> float:
        if e >= epsilon:
            return 0.0
        return -math.expm1(0.5 * (e - epsilon))

    return profile


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


# ---------------------------------------------------------------------------
# dispatch: (eps, delta) pair


@singledispatch
def eps_delta_pair(mechanism: Mechanism) -> tuple[float, float] | None:
    """The mechanism's own (epsilon, delta) guarantee, or None if it has only a profile."""
    raise _unsupported("eps_delta_pair", mechanism)


@eps_delta_pair.register
def _(m: PureDP) -> tuple[float, float]:
    return (m.epsilon, 0.0)


@eps_delta_pair.register
def _(m: ApproxDP) -> tuple[float, float]:
    return (m.epsilon, m.delta)


@eps_delta_pair.register
def _(m: Laplace) -> tuple[float, float]:
    return (m.epsilon, 0.0)


@eps_delta_pair.register
def _(m: RandomizedResponse) -> tuple[float, float]:
    return (m.epsilon, 0.0)


@eps_delta_pair.register
def _(m: Exponential) -> tuple[float, float]:
    return (m.epsilon, 0.0)


@eps_delta_pair.register
def _(m: Gaussian) -> None:
    return None


@eps_delta_pair.register
def _(m: Subsampled) -> tuple[float, float] | None:
    from .subsampling import amplified_pair

    inner = eps_delta_pair(m.mechanism)
    if inner is None:
        return None
    return amplified_pair(inner[0], inner[1], m.rate, m.scheme)


# ---------------------------------------------------------------------------
# dispatch: privacy profile


@singledispatch
def privacy_profile(mechanism: Mechanism) -> Profile:
    """delta(eps) for eps in [0, inf]: exact for the mechanism or its class's worst case."""
    raise _unsupported("privacy_profile", mechanism)


@privacy_profile.register
def _(m: PureDP) -> Profile:
    return pure_dp_profile(m.epsilon)


@privacy_profile.register
def _(m: RandomizedResponse) -> Profile:
    return pure_dp_profile(m.epsilon)


@privacy_profile.register
def _(m: Exponential) -> Profile:
    return pure_dp_profile(m.epsilon)


@privacy_profile.register
def _(m: ApproxDP) -> Profile:
    return approx_dp_profile(m.epsilon, m.delta)


@privacy_profile.register
def _(m: Laplace) -> Profile:
    return laplace_profile(m.epsilon)


@privacy_profile.register
def _(m: Gaussian) -> Profile:
    return gaussian_profile(m.mu)


@privacy_profile.register
def _(m: Subsampled) -> Profile:
    from .subsampling import amplified_profile

    return amplified_profile(privacy_profile(m.mechanism), m.rate, m.scheme)


# ---------------------------------------------------------------------------
# dispatch: is the (eps, delta) description attained?


@singledispatch
def is_class_worst_case(mechanism: Mechanism) -> bool:
    """True when the mechanism attains the worst case of its (epsilon, delta) pair."""
    return False


@is_class_worst_case.register
def _(m: PureDP) -> bool:
    return True


@is_class_worst_case.register
def _(m: ApproxDP) -> bool:
    return True


@is_class_worst_case.register
def _(m: RandomizedResponse) -> bool:
    return True
