r"""The zCDP input: every rule of ``ZCDP(rho)``, a mechanism known only to be :math:`\rho`-zCDP.

Renyi curve :math:`\tau(\alpha) = \rho\alpha` at every order (Bun and Steinke,
"Concentrated Differential Privacy: Simplifications, Extensions, and Lower Bounds", TCC
2016, Def. 1.1), rounded up. Privacy profile: the conversion of Canonne, Kamath and
Steinke ("The Discrete Gaussian for Differential Privacy", NeurIPS 2020, Prop. 12, stated
for zCDP as Cor. 13),

.. math:: \delta(\varepsilon) = \inf_{\alpha > 1}
   \frac{e^{(\alpha-1)(\alpha\rho-\varepsilon)}}{\alpha-1}\Bigl(1-\frac1\alpha\Bigr)^{\alpha},

where every single :math:`\alpha` gives a valid bound: the optimiser only chooses the
order (its accuracy affects tightness, never validity) and the bound is then evaluated
at that order and rounded up.

No dominating pair is known for the class of :math:`\rho`-zCDP mechanisms (the Gaussian
with :math:`\mu^2/2 = \rho` is a member, not the worst case: the class also holds
mechanisms with atoms of large loss), so ``pld`` and ``optimal`` refuse it
(:data:`~.rules.dominating_pair` raises with that reason), and no lower bound is claimed.
No pure epsilon (a Gaussian is :math:`\rho`-zCDP), no (epsilon, delta) pair of its own.

Dominance: the class of :math:`\rho'`-zCDP mechanisms is contained in that of
:math:`\rho \ge \rho'`, and the profile above grows with :math:`\rho`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from .._numerics.rounding import MACHINE_EPSILON
from ..errors import NoRuleError
from ..mechanisms import ZCDP
from .renyi import _orders_arg
from .rules import (
    DominanceKey,
    Quotient,
    dominance_key,
    dominating_pair,
    eps_delta_pair,
    privacy_profile,
    pure_epsilon,
    renyi_curve,
    zcdp_rho,
)
from .syntax import MechanismSyntax, Parameter, register_syntax

__all__ = ["rdp_zcdp", "zcdp_log_delta_at", "zcdp_profile"]

Profile = Callable[[float], float]

_SMALLEST = 5e-324  # the smallest positive double: an upper bound reports it, never 0


def zcdp_log_delta_at(rho: float, epsilon: float, alpha: float) -> float:
    r"""log of the Canonne-Kamath-Steinke bound at one order :math:`\alpha > 1`, rounded up.

    :math:`(\alpha-1)(\alpha\rho-\varepsilon) + \alpha\log(1-1/\alpha) - \log(\alpha-1)`,
    evaluated without cancellation as
    :math:`(\alpha-1)(\alpha\rho-\varepsilon) + (\alpha-1)\log(\alpha-1) - \alpha\log(1 + (\alpha-1))`
    (``log1p(-1/alpha)`` would lose every digit for :math:`\alpha` near 1). Each term is
    within a few ulps of its magnitude (``alpha - 1`` is exact for :math:`\alpha \le 2`,
    Sterbenz, and within half an ulp beyond), and 64 ulps of the sum of the magnitudes
    are added.

    Guarantee:
        never below the exact value of the bound at ``alpha``.
    """
    am1 = alpha - 1.0
    if not am1 > 0.0:
        raise ValueError(f"zcdp_log_delta_at: the order must be a double > 1, got {alpha!r}")
    first = am1 * (alpha * rho - epsilon)
    second = am1 * math.log(am1)
    third = alpha * math.log1p(am1)
    out = first + second - third
    mag = abs(first) + abs(am1 * alpha * rho) + abs(am1 * epsilon) + abs(second) + abs(third) + 1.0
    return out + 64.0 * MACHINE_EPSILON * mag


def _best_order(rho: float, epsilon: float) -> float:
    r"""The order minimising the bound (numerically; any order is valid).

    The exponent's derivative in alpha, :math:`(2\alpha-1)\rho - \varepsilon + \log((\alpha-1)/\alpha)`,
    increases with alpha: in :math:`t = \log(\alpha-1) \in [-35, 650]` (``1 + e^-35`` is a double
    above 1, ``e^650`` is finite) it is :math:`s(t) = (1 + 2e^t)\rho - \varepsilon + t -
    \log(1 + e^t)`, with :math:`s'(t) = 2\rho e^t + 1/(1 + e^t) > 0`. Its root is found by
    Newton's method safeguarded by the bracket (a step that leaves the bracket or does not
    halve the step before it is a bisection step; Numerical Recipes' ``rtsafe``), started
    from the better of two guesses: :math:`\log u = \varepsilon - \rho` (small
    :math:`u = \alpha - 1`) and the root of :math:`2\rho u^2 + (\rho - \varepsilon)u - 1`
    (large :math:`u`, where :math:`\log(u/(1+u)) \approx -1/u`). It stops when a step is
    below 1e-12 relative: about 5-11 evaluations of the slope, where 64 bisection steps in
    [-35, 650] took 66. The bound at the order found agrees with the bound at the exact
    minimiser to the float noise of its evaluation (``tests/test_zcdp_order.py``).
    """

    def slope(t: float) -> float:
        am1 = math.exp(t)
        return (1.0 + 2.0 * am1) * rho - epsilon + t - math.log1p(am1)

    lo, hi = -35.0, 650.0
    if slope(lo) >= 0.0:
        return 1.0 + math.exp(lo)
    if slope(hi) <= 0.0:
        return 1.0 + math.exp(hi)
    # the root's two regimes: alpha - 1 = u small (log u ~ epsilon - rho), or large, where
    # log(u / (1 + u)) ~ -1/u turns the root into that of 2 rho u^2 + (rho - epsilon) u - 1;
    # each guess shrinks the bracket, the better one starts Newton
    b = rho - epsilon
    disc = math.hypot(b, math.sqrt(8.0 * rho))
    u = 2.0 / (b + disc) if b > 0.0 else (disc - b) / (4.0 * rho)
    guesses = [min(max(epsilon - rho, lo), hi)]
    if u > 0.0 and math.isfinite(u):
        guesses.append(min(max(math.log(u), lo), hi))
    t, best = guesses[0], math.inf
    for g in guesses:
        sg = slope(g)
        if sg < 0.0:
            lo = max(lo, g)
        else:
            hi = min(hi, g)
        if abs(sg) < best:
            t, best = g, abs(sg)
    dx_old = dx = hi - lo
    for _ in range(200):  # Newton takes ~5-10 steps; bisection steps at most ~60 more
        am1 = math.exp(t)
        st, dst = slope(t), 2.0 * rho * am1 + 1.0 / (1.0 + am1)
        if st < 0.0:
            lo = t
        else:
            hi = t
        newton = t - st / dst
        if abs(newton - t) <= 1e-12 * (1.0 + abs(t)):
            return 1.0 + math.exp(newton if lo <= newton <= hi else t)
        if lo < newton < hi and abs(2.0 * st) <= abs(dx_old * dst):
            dx_old, dx = dx, t - newton  # Newton: inside the bracket and converging fast
            t = newton
        else:
            dx_old, dx = dx, 0.5 * (hi - lo)  # bisection
            t = lo + dx
        if abs(dx) <= 1e-12 * (1.0 + abs(t)):
            return 1.0 + math.exp(t)
    return 1.0 + math.exp(hi)


def zcdp_profile(rho: float) -> Profile:
    r"""Privacy profile of the class of :math:`\rho`-zCDP mechanisms (module docstring).

    Guarantee:
        a certified upper bound on :math:`\delta(\varepsilon)` for every
        :math:`\rho`-zCDP mechanism: the Canonne-Kamath-Steinke bound at one order,
        rounded up (:func:`zcdp_log_delta_at`), capped at 1; ``0`` at
        :math:`\varepsilon = \infty` (a finite Renyi divergence leaves no mass of
        infinite loss).

    References:
        Canonne, Kamath and Steinke, "The Discrete Gaussian for Differential Privacy"
        (NeurIPS 2020), Prop. 12 and Cor. 13.
    """

    def profile(e: float) -> float:
        if math.isinf(e):
            return 0.0
        if not e >= 0.0:
            return 1.0  # below 0 (or nan): the trivial bound
        if e > 2.0 * rho + 800.0:
            # the bound at alpha = 2 is e^{2 rho - e} / 4 < e^-800, below every positive double
            return _SMALLEST
        log_d = zcdp_log_delta_at(rho, e, _best_order(rho, e))
        # where exp underflows the bound is still positive: the smallest positive double
        return 1.0 if log_d >= 0.0 else max(_SMALLEST, math.exp(log_d))

    return profile


def rdp_zcdp(rho: float, orders: Any = None) -> np.ndarray:
    r""":math:`\tau(\alpha) = \rho\alpha`, rounded up (one product: 8 machine epsilons of margin).

    References:
        Bun and Steinke, "Concentrated Differential Privacy", TCC 2016, Def. 1.1.
    """
    a = _orders_arg(orders)
    return a * rho * (1.0 + 8.0 * MACHINE_EPSILON)


# ---------------------------------------------------------------------------
# rules


@eps_delta_pair.register(ZCDP)
def _(m: ZCDP) -> None:
    return None  # described by its Renyi curve and the profile converted from it


@privacy_profile.register(ZCDP)
def _(m: ZCDP) -> Profile:
    return zcdp_profile(m.rho)


@dominating_pair.register(ZCDP)
def _(m: ZCDP, *, epsilon: float | None = None) -> Any:
    raise NoRuleError(
        f"dominating_pair: ZCDP(rho={m.rho:g}) describes every rho-zCDP mechanism, and no dominating "
        f"pair is known for that class (the Gaussian with mu = sqrt(2 rho) is one member, not the worst "
        f"case), so 'pld' and 'optimal' cannot certify it; use method 'rdp' (or 'auto'). If the "
        f"mechanism is a Gaussian, state it as Gaussian(sigma, sensitivity=...) for the exact pair.",
        rule="dominating_pair", mechanism=m)


@pure_epsilon.register(ZCDP)
def _(m: ZCDP) -> float:
    return math.inf  # a Gaussian is rho-zCDP and has no finite pure epsilon


@renyi_curve.register(ZCDP)
def _(m: ZCDP, orders: Any = None) -> np.ndarray:
    return rdp_zcdp(m.rho, orders)


@dominance_key.register(ZCDP)
def _(m: ZCDP) -> DominanceKey:
    return DominanceKey("zcdp", (m.rho,), size=5.0 * math.sqrt(2.0 * m.rho))


@zcdp_rho.register(ZCDP)
def _(m: ZCDP) -> Quotient:
    return Quotient(m.rho)


register_syntax(MechanismSyntax(
    "zcdp", ZCDP,
    (Parameter("rho", "rho > 0", "rho-zCDP needs a finite rho > 0, e.g. rho = 0.5", gt=0),),
    "Any rho-zCDP mechanism (Renyi curve rho * alpha; upper bounds only).", "ZCDPSpec",
    aliases=("zcdp_rho", "concentrated")))
