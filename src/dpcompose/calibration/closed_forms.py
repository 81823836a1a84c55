r"""Closed-form calibration of one release: the Laplace scale and the Gaussian sigma.

One job: the noise of a single :math:`\varepsilon`-DP or :math:`(\varepsilon, \delta)`-DP
release, from closed forms or one exact inversion: :func:`laplace_scale`
(:math:`b = \Delta/\varepsilon`), :func:`gaussian_sigma` by the analytic Gaussian
mechanism (Balle and Wang 2018) or any of the blog's closed-form bounds (Claim 9: (6.8),
(6.81)-(6.84)) and Dwork and Roth's Thm A.1 as the blog states it, and
:func:`gaussian_sigmas` side by side. A closed form is rounded *up* by 16 ulps (more noise
is the safe side).
"""

from __future__ import annotations

import math
from typing import Any

from .._numerics.rounding import SMALLEST_SUBNORMAL, up
from .._validation import check_delta, check_positive, check_real
from ..errors import CalibrationError, InvalidParameterError, MethodNotApplicableError
from ..mechanisms import Laplace
from ..representations import gaussian_log_delta


#: names accepted by :func:`gaussian_sigma` ``bound=``, with each one's validity range
GAUSSIAN_BOUNDS: dict[str, str] = {
    "analytic": "exact (Balle and Wang 2018, Thm 8 profile, inverted numerically); any epsilon > 0",
    "6.8": "blog Claim 9, (6.8) solved exactly for sigma; any epsilon > 0",
    "6.81": "blog Claim 9, (6.81); any epsilon > 0",
    "6.82": "blog Claim 9, (6.82); any epsilon > 0",
    "6.83": "blog Claim 9, (6.83); any epsilon > 0",
    "6.84": "blog Claim 9, (6.84); any epsilon > 0",
    "dwork-roth-a1": "Dwork and Roth Thm A.1 as the blog states it; 0 < epsilon <= 1",
}


# ---------------------------------------------------------------------------
# single mechanisms


def laplace_scale(epsilon: float, sensitivity: float = 1.0) -> float:
    r"""The Laplace scale :math:`b` that makes one release :math:`\varepsilon`-DP.

    Args:
        epsilon: the target :math:`\varepsilon > 0` (finite).
        sensitivity: the query's L1 sensitivity :math:`\Delta > 0`.

    Returns:
        :math:`b = \Delta/\varepsilon`, nudged up by ulps if needed so that
        ``Laplace(b, sensitivity).epsilon <= epsilon`` holds (that epsilon is the exact
        quotient rounded up, so the exact :math:`\Delta/b` is at most epsilon too).

    Guarantee:
        :math:`\mathrm{Lap}(b)` noise on a query of L1 sensitivity :math:`\Delta` is
        :math:`\Delta/b`-DP, under whichever neighbour relation :math:`\Delta` was
        computed for.

    References:
        Dwork and Roth, "The Algorithmic Foundations of Differential Privacy", Thm 3.6;
        blog post "A Tail of Two Densities", the Laplace mechanism.
    """
    epsilon = check_positive("epsilon", epsilon, remedy="pass the target epsilon, e.g. 1.0.")
    sensitivity = check_positive("sensitivity", sensitivity)
    b = sensitivity / epsilon
    if b == 0.0 or math.isinf(b):
        raise InvalidParameterError(
            f"the Laplace scale sensitivity/epsilon = {sensitivity!r}/{epsilon!r} is not a "
            f"positive finite float; rescale the query."
        )
    while Laplace(b, sensitivity=sensitivity).epsilon > epsilon:
        b = math.nextafter(b, math.inf)
    return b


def blog_gaussian_delta(sigma: float, epsilon: float, sensitivity: float = 1.0) -> float:
    r"""The blog's (6.8): the Gaussian mechanism is :math:`(\varepsilon, \delta)`-DP with this delta.

    :math:`\delta = \exp(-t^2/2)` with :math:`t = \varepsilon\sigma/S_f - S_f/(2\sigma)`.

    Args:
        sigma: the noise standard deviation.
        epsilon: :math:`\varepsilon > 0`.
        sensitivity: the L2 sensitivity :math:`S_f`.

    Returns:
        the (6.8) delta, rounded up by 16 ulps (at least 5e-324, the smallest double).

    Raises:
        MethodNotApplicableError: when :math:`t \le 0`, i.e.
            :math:`\sigma \le (2\varepsilon)^{-1/2} S_f`; the proof needs :math:`t > 0`
            for the tail bound.

    Guarantee:
        upper bound on the Gaussian mechanism's exact :math:`\delta(\varepsilon)`
        (Chernoff tail bound :math:`\Pr[\xi > t] < e^{-t^2/2}` applied to the privacy
        loss :math:`N(\mu^2/2, \mu^2)`). Typo corrected in the source: the proof says it
        uses (6.3) here and (6.5) for (6.82)/(6.84); it is the other way round.

    References:
        blog post "A Tail of Two Densities" (2019), Claim 8 (6.5) and Claim 9 (6.8).
    """
    sigma = check_positive("sigma", sigma)
    epsilon = check_positive("epsilon", epsilon)
    s = check_positive("sensitivity", sensitivity)
    t = epsilon * sigma / s - s / (2.0 * sigma)
    if not t > 0.0:
        raise MethodNotApplicableError(
            f"blog bound (6.8) needs sigma > (2 epsilon)^(-1/2) * sensitivity = "
            f"{s / math.sqrt(2.0 * epsilon):.6g}; got sigma = {sigma:g} at epsilon = {epsilon:g}. "
            f"Use the exact analytic Gaussian profile instead."
        )
    # below the double range the value is reported as the smallest positive double
    return min(1.0, max(SMALLEST_SUBNORMAL, up(math.exp(-0.5 * t * t), 16)))


def analytic_gaussian_sigma(epsilon: float, delta: float, sensitivity: float = 1.0,
                            *, rel_tol: float = 1e-12) -> float:
    r"""The smallest :math:`\sigma` whose exact Gaussian profile meets :math:`(\varepsilon, \delta)`.

    Bisection over :math:`\log\sigma` on the certified profile
    :func:`~dpcompose.representations.gaussian_log_delta` (evaluated at
    :math:`\mu = \Delta/\sigma` exactly as :class:`~dpcompose.Gaussian` computes it),
    ending on the passing side: the returned :math:`\sigma` satisfies
    :math:`\delta_\sigma(\varepsilon) \le \delta` and is within ``rel_tol`` (relative)
    of the smallest such.

    Args:
        epsilon: :math:`\varepsilon > 0` (finite).
        delta: :math:`\delta \in (0, 1)`.
        sensitivity: L2 sensitivity :math:`\Delta > 0`.
        rel_tol: relative width of the final bracket, in (0, 0.1].

    Guarantee:
        exact up to ``rel_tol``: ``Gaussian(sigma, sensitivity)`` is
        :math:`(\varepsilon, \delta)`-DP, and no :math:`\sigma' < \sigma(1 - \text{rel\_tol})`
        is. Neighbour relation: whichever :math:`\Delta` was computed for.

    References:
        Balle and Wang, "Improving the Gaussian Mechanism for Differential Privacy:
        Analytical Calibration and Optimal Denoising", ICML 2018, Thm 8 (profile) and
        Alg. 1 (calibration by numerical inversion).
    """
    epsilon = check_positive("epsilon", epsilon, remedy="pass the target epsilon, e.g. 1.0.")
    delta = _check_open_delta(delta)
    s = check_positive("sensitivity", sensitivity)
    rel_tol = check_real("rel_tol", rel_tol, low=0.0, high=0.1, low_open=True)
    log_target = math.log(delta)

    def passes(sigma: float) -> bool:
        return gaussian_log_delta(s / sigma, epsilon) <= log_target

    hi = _blog_bound("6.83", epsilon, delta, s)  # a valid bound: a good starting point
    while not passes(hi):
        hi *= 2.0
        if hi > 1e300:  # pragma: no cover - not reachable for finite inputs
            raise CalibrationError(f"no sigma <= 1e300 meets (epsilon={epsilon}, delta={delta}).")
    lo = hi / 2.0
    while passes(lo):
        hi, lo = lo, lo / 2.0
        if lo < 1e-300:
            return hi
    while hi / lo - 1.0 > rel_tol:
        mid = math.sqrt(lo * hi)
        if not lo < mid < hi:
            break
        if passes(mid):
            hi = mid
        else:
            lo = mid
    return hi


def _blog_bound(bound: str, epsilon: float, delta: float, s: float) -> float:
    log_inv_delta = -math.log(delta)
    if bound == "6.8":
        # the sigma at which (6.8) equals delta: eps*sigma - 1/(2 sigma) = sqrt(2 log(1/delta))
        c = math.sqrt(2.0 * log_inv_delta)
        value = (c + math.sqrt(c * c + 2.0 * epsilon)) / (2.0 * epsilon)
    elif bound == "6.81":
        value = math.sqrt(2.0 * log_inv_delta) / epsilon + 1.0 / math.sqrt(2.0 * epsilon)
    elif bound == "6.82":
        inner = 2.0 * log_inv_delta - math.log(2.0 * math.pi)  # log((2 pi)^-1 delta^-2)
        value = max(1.0, math.sqrt(max(0.0, inner))) / epsilon + 1.0 / math.sqrt(2.0 * epsilon)
    elif bound == "6.83":
        value = math.sqrt(epsilon + 2.0 * log_inv_delta) / epsilon  # log(e^eps delta^-2)
    elif bound == "6.84":
        inner = epsilon - math.log(2.0 * math.pi) + 2.0 * log_inv_delta  # log(e^eps (2pi)^-1 delta^-2)
        value = max(math.sqrt(1.0 + epsilon), math.sqrt(max(0.0, inner))) / epsilon
    elif bound == "dwork-roth-a1":
        if epsilon > 1.0:
            raise MethodNotApplicableError(
                f"Dwork and Roth's Thm A.1 (as the blog states it, alpha = 1) needs "
                f"0 < epsilon <= 1; got epsilon = {epsilon:g}. Use bound='6.84' or 'analytic'."
            )
        inner = 2.0 * (math.log(1.25) + log_inv_delta)  # 2 log(5/4 delta^-1)
        value = max(1.5, math.sqrt(max(0.0, inner))) / epsilon
    else:
        raise InvalidParameterError(
            f"bound = {bound!r} is not one of {sorted(GAUSSIAN_BOUNDS)}."
        )
    return up(value * s, 16)


def gaussian_sigma(epsilon: float, delta: float, sensitivity: float = 1.0,
                   *, bound: str = "analytic") -> float:
    r"""The Gaussian :math:`\sigma` that makes one release :math:`(\varepsilon, \delta)`-DP.

    Args:
        epsilon: :math:`\varepsilon > 0` (finite).
        delta: :math:`\delta \in (0, 1)`.
        sensitivity: the query's L2 sensitivity :math:`S_f > 0`.
        bound: which result to use (see :data:`GAUSSIAN_BOUNDS`):

            - ``"analytic"``: the smallest valid sigma (Balle and Wang 2018), see
              :func:`analytic_gaussian_sigma`.
            - ``"6.8"``: the sigma at which (6.8),
              :math:`\exp(-(\varepsilon\sigma/S_f - S_f/(2\sigma))^2/2)`, equals delta:
              :math:`\sigma = S_f(\sqrt{2\log\delta^{-1}} + \sqrt{2\log\delta^{-1} + 2\varepsilon})/(2\varepsilon)`.
            - ``"6.81"``: :math:`\sigma > (\varepsilon^{-1}\sqrt{2\log\delta^{-1}} + (2\varepsilon)^{-1/2}) S_f`.
            - ``"6.82"``: :math:`\sigma > (\varepsilon^{-1}(1 \vee \sqrt{(\log (2\pi)^{-1}\delta^{-2})_+}) + (2\varepsilon)^{-1/2}) S_f`.
            - ``"6.83"``: :math:`\sigma > \varepsilon^{-1}\sqrt{\log e^\varepsilon\delta^{-2}}\, S_f`.
            - ``"6.84"``: :math:`\sigma > \varepsilon^{-1}(\sqrt{1+\varepsilon} \vee \sqrt{(\log e^\varepsilon(2\pi)^{-1}\delta^{-2})_+})\, S_f`.
            - ``"dwork-roth-a1"``: :math:`\sigma > \varepsilon^{-1}(3/2 \vee \sqrt{(2\log(5/4)\delta^{-1})_+})\, S_f`,
              only for :math:`0 < \varepsilon \le 1`.

    Returns:
        sigma; closed forms are rounded up by 16 ulps so their strict inequality holds.

    Raises:
        MethodNotApplicableError: ``"dwork-roth-a1"`` with epsilon > 1.
        InvalidParameterError: bad epsilon, delta, sensitivity or bound name.

    Guarantee:
        ``Gaussian(sigma, sensitivity)`` is :math:`(\varepsilon, \delta)`-DP. Every
        closed form is >= the analytic sigma (they are sufficient conditions); the
        analytic one is the smallest within 1e-12 relative. Neighbour relation:
        whichever :math:`S_f` was computed for. (6.81)-(6.84) hold for every
        :math:`\varepsilon > 0`; the blog's remark that Dwork and Roth's form needs
        :math:`\varepsilon \le \alpha = 1` is enforced (Dwork and Roth state
        :math:`\varepsilon \in (0, 1)`).

    References:
        blog post "A Tail of Two Densities" (2019), Claim 9 and the remark after it;
        Dwork and Roth, "The Algorithmic Foundations of Differential Privacy", Thm A.1;
        Balle and Wang, "Improving the Gaussian Mechanism for Differential Privacy",
        ICML 2018.
    """
    epsilon = check_positive("epsilon", epsilon, remedy="pass the target epsilon, e.g. 1.0.")
    delta = _check_open_delta(delta)
    s = check_positive("sensitivity", sensitivity)
    if bound == "analytic":
        return analytic_gaussian_sigma(epsilon, delta, s)
    return _blog_bound(bound, epsilon, delta, s)


def gaussian_sigmas(epsilon: float, delta: float, sensitivity: float = 1.0) -> dict[str, float]:
    """Every applicable bound of :func:`gaussian_sigma` side by side (name -> sigma).

    Bounds outside their validity range (Dwork-Roth for epsilon > 1) are left out.
    """
    out: dict[str, float] = {}
    for name in GAUSSIAN_BOUNDS:
        try:
            out[name] = gaussian_sigma(epsilon, delta, sensitivity, bound=name)
        except MethodNotApplicableError:
            continue
    return out


def _check_open_delta(delta: Any) -> float:
    d = check_delta("delta", delta)
    if d == 0.0:
        raise InvalidParameterError(
            "delta = 0.0 is outside (0, 1): the Gaussian mechanism is never (epsilon, 0)-DP; "
            "pass a delta such as 1e-6."
        )
    return d
