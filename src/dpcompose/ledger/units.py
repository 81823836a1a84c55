"""Per-mechanism units of the ledger's currencies, each rounded up (moved from :mod:`.currencies`).

Each function maps one mechanism to its cost in one currency (pure epsilon, an
(epsilon, delta) pair, zCDP rho, GDP mu^2) as an exact ``Decimal`` rounded up, or None
when the mechanism has no such description.
"""

from __future__ import annotations

import math
from decimal import Decimal, localcontext

from scipy.special import erfinv, ndtri_exp

from .._numerics.rounding import next_down, next_up
from ..mechanisms import (
    ApproxDP,
    Exponential,
    Gaussian,
    Laplace,
    Mechanism,
    PureDP,
    RandomizedResponse,
    Subsampled,
)
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


# ---------------------------------------------------------------------------
# per-mechanism descriptions, each rounded up


def pure_epsilon(m: Mechanism) -> Decimal | None:
    """The mechanism's pure-DP epsilon rounded up, or None if it has none."""
    if isinstance(m, Laplace):
        return exact.UP.divide(exact.param(m.sensitivity), exact.param(m.scale))
    if isinstance(m, (PureDP, RandomizedResponse, Exponential)):
        return exact.up(exact.param(m.epsilon)) if math.isfinite(m.epsilon) else None
    if isinstance(m, ApproxDP):
        return exact.up(exact.param(m.epsilon)) if m.delta == 0.0 and math.isfinite(m.epsilon) else None
    if isinstance(m, Subsampled):
        inner = pure_epsilon(m.mechanism)
        if inner is None:
            return None
        if m.rate == 1.0:
            return inner
        from ..subsampling import amplified_epsilon  # rounded up by 8 ulps there

        return exact.up(amplified_epsilon(exact.float_up(inner), min(1.0, _written_ceil(m.rate))))
    return None


def approx_pair(m: Mechanism) -> tuple[Decimal, Decimal] | None:
    """The mechanism's own (epsilon, delta) rounded up, or None (a Gaussian has none)."""
    e = pure_epsilon(m)
    if e is not None:
        return e, exact.ZERO
    if isinstance(m, ApproxDP) and math.isfinite(m.epsilon):
        return exact.up(exact.param(m.epsilon)), exact.up(exact.param(m.delta))
    if isinstance(m, Subsampled) and isinstance(m.mechanism, ApproxDP):
        from ..subsampling import amplified_pair  # both rounded up there

        inner = m.mechanism
        if not math.isfinite(inner.epsilon):
            return None
        eps, delta = amplified_pair(_written_ceil(inner.epsilon), min(_written_ceil(inner.delta), next_down(1.0, 1)),
                                    min(1.0, _written_ceil(m.rate)), m.scheme)
        return exact.up(eps), exact.up(delta)
    return None


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


def _zcdp_unit(m: Mechanism) -> Decimal | None:
    if isinstance(m, Subsampled) and m.rate == 1.0:
        m = m.mechanism
    if isinstance(m, Gaussian):
        return _square_over(exact.param(m.sensitivity), exact.param(m.sigma), two=True)
    e = pure_epsilon(m)
    if e is None:
        return None
    return _square_over(e, Decimal(1), two=True)


def _gdp_unit(m: Mechanism) -> Decimal | None:
    if isinstance(m, Subsampled) and m.rate == 1.0:
        m = m.mechanism
    if isinstance(m, Gaussian):
        return _square_over(exact.param(m.sensitivity), exact.param(m.sigma), two=False)
    e = pure_epsilon(m)
    if e is None:
        return None
    mu = gdp_mu_of_pure(e)
    if mu is None:
        return None
    return _square_over(exact.up(mu), Decimal(1), two=False)  # mu rounded up to 20 digits, squared exactly
