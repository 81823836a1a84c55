"""Per-mechanism units of the ledger's currencies, each rounded up (moved from :mod:`.currencies`).

Each function maps one mechanism to its cost in one currency (pure epsilon, an
(epsilon, delta) pair, zCDP rho, GDP mu^2) as an exact ``Decimal`` rounded up, or None
when the mechanism has no such description. The numbers come from the mechanism's rules
(:data:`~dpcompose.representations.exact_pair`, :data:`~dpcompose.representations.zcdp_rho`,
:data:`~dpcompose.representations.gdp_mu`: exact quotients of the parameters, evaluated
here with each parameter read as the decimal written); this module adds only the
generic conversions (subsampling, eps-DP to GDP) and the rounding.
"""

from __future__ import annotations

import math
from decimal import Decimal, localcontext
from typing import Callable

from scipy.special import erfinv, ndtri_exp

from .._numerics.rounding import next_down, next_up
from ..errors import NoRuleError
from ..mechanisms import Mechanism, Subsampled
from ..representations import Quotient, exact_pair, gdp_mu, zcdp_rho
from . import exact


def _written_floor(x: float) -> float:
    """The largest float not above the number as written (for float computations of limits)."""
    return exact.float_down(exact.param(x))


def _written_ceil(x: float) -> float:
    """The smallest float not below the number as written."""
    return exact.float_up(exact.param(x))


def _mul(k: int, d: Decimal) -> Decimal:
    # an integer times a 20-digit decimal is exact in the 1000-digit context
    with localcontext(exact._EXACT):
        return Decimal(k) * d


def value_up(q: Quotient) -> Decimal | None:
    """``q`` rounded up to 20 digits, each parameter read as the decimal written; None if one is infinite.

    Rounding: an inner quotient is rounded up first (the value increases with it), the
    powers and products are exact, and the one division is rounded up.
    """
    if isinstance(q.num, Quotient):
        num = value_up(q.num)
        if num is None:
            return None
    elif math.isfinite(q.num):
        num = exact.param(q.num)
    else:
        return None
    if not math.isfinite(q.den):
        return None
    den = Decimal(1) if q.den == 1.0 else exact.param(q.den)  # 1: no parameter (an exact one)
    with localcontext(exact._EXACT):
        n, d = num, den
        for _ in range(q.power - 1):
            n, d = n * num, d * den
        n, d = n * q.scale.numerator, d * q.scale.denominator
    return exact.UP.divide(n, d)


def _rule_value(rule: Callable[[Mechanism], Quotient], m: Mechanism) -> Decimal | None:
    """The rule's exact description rounded up, or None (no rule, or an infinite parameter)."""
    try:
        return value_up(rule(m))
    except NoRuleError:
        return None


def _exact_pair(m: Mechanism) -> tuple[Decimal, Decimal] | None:
    try:
        eps, delta = exact_pair(m)
    except NoRuleError:
        return None
    e, d = value_up(eps), value_up(delta)
    return None if e is None or d is None else (e, d)


# ---------------------------------------------------------------------------
# per-mechanism descriptions, each rounded up; every family's numbers come from its rules
# (dpcompose.representations: exact_pair, zcdp_rho, gdp_mu); the one type test is for
# subsampling, whose amplification the ledger computes here at the rate as written


def pure_epsilon(m: Mechanism) -> Decimal | None:
    """The mechanism's pure-DP epsilon rounded up, or None if it has none."""
    if isinstance(m, Subsampled):
        inner = pure_epsilon(m.mechanism)
        if inner is None:
            return None
        if m.rate == 1.0:
            return inner
        from ..subsampling import amplified_epsilon  # rounded up by 8 ulps there

        return exact.up(amplified_epsilon(exact.float_up(inner), min(1.0, _written_ceil(m.rate))))
    pair = _exact_pair(m)
    return pair[0] if pair is not None and pair[1] == 0 else None


def approx_pair(m: Mechanism) -> tuple[Decimal, Decimal] | None:
    """The mechanism's own (epsilon, delta) rounded up, or None (a Gaussian has none)."""
    e = pure_epsilon(m)
    if e is not None:
        return e, exact.ZERO
    if isinstance(m, Subsampled):
        inner = _exact_pair(m.mechanism)  # delta > 0 here (a pure inner pair is priced above)
        if inner is None:
            return None
        from ..subsampling import amplified_pair  # both rounded up there

        # float_up of the inner values rounded up = the smallest floats not below the numbers written
        eps, delta = amplified_pair(exact.float_up(inner[0]), min(exact.float_up(inner[1]), next_down(1.0, 1)),
                                    min(1.0, _written_ceil(m.rate)), m.scheme)
        return exact.up(eps), exact.up(delta)
    return _exact_pair(m)


def _square_over(num: Decimal, den: Decimal, two: bool) -> Decimal:
    """num^2 / den^2 (/ 2 when ``two``), rounded up."""
    with localcontext(exact._EXACT):
        n2 = num * num
        d2 = den * den * (2 if two else 1)
    return exact.UP.divide(n2, d2)


def gdp_mu_of_pure(eps: Decimal) -> float | None:
    r"""The smallest mu with eps-DP => mu-GDP: :math:`2\Phi^{-1}(e^\varepsilon/(1+e^\varepsilon))`, rounded up.

    The trade-off curve of eps-DP is f(a) = max(0, 1 - e^eps a, e^-eps (1 - a)) (Dong,
    Roth and Su, Prop. 2.5, after Wasserman and Zhou); G_mu is convex and symmetric with
    G_mu(0) = 1, so G_mu <= f everywhere iff G_mu(a*) <= a* at the kink
    a* = 1/(1+e^eps), i.e. mu >= 2 Phi^{-1}(1 - a*). Computed without cancellation:
    2 sqrt(2) erfinv(tanh(eps/2)) for eps < 1 (1 - a* = (1 + tanh(eps/2))/2), else
    -2 ndtri_exp(log a*); raised by a relative 1e-9 (the worst error measured against
    mpmath over eps in [1e-8, 700] is 6e-16; tests check).
    """
    e = exact.float_up(eps)
    if e < 1.0:
        mu = 2.0 * math.sqrt(2.0) * float(erfinv(math.tanh(e / 2.0)))
    else:  # log a* = -eps - log1p(e^-eps), never underflows
        mu = -2.0 * float(ndtri_exp(-e - math.log1p(math.exp(-e))))
    if not math.isfinite(mu):
        return None
    return next_up(mu * (1.0 + 1e-9), 8)

def _describe(m: Mechanism) -> str:
    from ..mechanisms import describe

    return describe(m)


def _unwrapped(m: Mechanism) -> Mechanism:
    """A mechanism subsampled at rate 1 is the mechanism itself."""
    return m.mechanism if isinstance(m, Subsampled) and m.rate == 1.0 else m


def _zcdp_unit(m: Mechanism) -> Decimal | None:
    m = _unwrapped(m)
    rho = _rule_value(zcdp_rho, m)
    if rho is not None:
        return rho
    e = pure_epsilon(m)  # a subsampled eps-DP mechanism: eps^2 / 2 of its amplified eps (Prop. 1.4)
    if e is None:
        return None
    return _square_over(e, Decimal(1), two=True)


def _gdp_unit(m: Mechanism) -> Decimal | None:
    m = _unwrapped(m)
    try:
        return value_up(gdp_mu(m).squared())
    except NoRuleError:
        pass
    e = pure_epsilon(m)  # eps-DP implies mu(eps)-GDP (gdp_mu_of_pure)
    if e is None:
        return None
    mu = gdp_mu_of_pure(e)
    if mu is None:
        return None
    return _square_over(exact.up(mu), Decimal(1), two=False)  # mu rounded up to 20 digits, squared exactly
