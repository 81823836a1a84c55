r"""Random allocation without amplification: every rule of ``RandomAllocation(mechanism, steps=t, per_epoch=k)``.

One epoch is dominated by the k-fold (adaptive) composition of ``mechanism`` (proof in the
docstring of :class:`~dpcompose.mechanisms.RandomAllocation`: joint convexity of the
hockey-stick divergence over the record's uniform step set, the other records' allocation
coupled). Each rule is the rule of one mechanism *equivalent* to that k-fold composition
(:func:`allocation_equivalent`), where a closed form exists:

- ``k = 1``: the inner mechanism itself;
- ``Gaussian(sigma, sensitivity=s)``: ``Gaussian(sigma, sensitivity=s sqrt(k))``, the
  k-fold composition exactly (:math:`N(0, \sigma^2 I_k)` vs :math:`N(s\mathbf{1}, \sigma^2 I_k)`
  is a one-dimensional pair with shift :math:`s\sqrt{k}`), the sensitivity rounded up;
- ``ZCDP(rho)``: ``ZCDP(k rho)``, rounded up (the Renyi bound :math:`\rho\alpha` of each
  step adds over an adaptive composition, as Renyi DP composes; theorem number not
  verified here);
- anything else with k > 1: :class:`~dpcompose.errors.NoRuleError` naming the remedy
  (compose the inner mechanism ``k * epochs`` times), never a Poisson substitute.

Every answer is an upper bound of the epoch (random allocation amplifies): the pair is
marked not attained and no lower bound is claimed (``is_class_worst_case`` is ``False``).

The Renyi curve is amplified where it is proven: for ``per_epoch = 1`` and a ``Gaussian``
step it is the smaller of the un-amplified curve and the certified balls-in-bins curve of
:mod:`~dpcompose.representations.random_allocation_rdp` (both directions of the exact
epoch pair, at orders up to ``MAX_ORDER``), so ``method="rdp"`` (and ``"auto"``, which takes
the best method) certify the amplification; its provenance (``renyi_curves``) names the
bound. Every other rule stays un-amplified.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from fractions import Fraction
from typing import Any

import numpy as np

from .._numerics.rounding import frac_up, up, up_strict
from ..errors import NoRuleError
from ..mechanisms import ZCDP, Gaussian, Mechanism, RandomAllocation, describe
from .random_allocation_rdp import MAX_MU, allocation_renyi_curve
from .renyi import check_orders, register_curve_note
from .rules import dominating_pair, register_equivalent, renyi_curve

__all__ = ["allocation_equivalent"]


def allocation_equivalent(m: RandomAllocation) -> Mechanism:
    """The mechanism whose rules bound one epoch of ``m`` (module docstring); NoRuleError if none."""
    inner, k = m.mechanism, m.per_epoch
    if k == 1:
        return inner
    kind = type(inner)  # exact types: a subclass gets no closed form by inheritance
    if kind is Gaussian and isinstance(inner, Gaussian):
        # s * sqrt(k): two correctly rounded operations (at most one ulp each), raised by 4
        # machine epsilons and at least one double, so never below the exact product
        return Gaussian(inner.sigma, sensitivity=up_strict(inner.sensitivity * math.sqrt(k), 4.0))
    if kind is ZCDP and isinstance(inner, ZCDP):
        return ZCDP(frac_up(Fraction(k) * Fraction(inner.rho)))
    raise NoRuleError(
        f"random allocation: no closed form of the {k}-fold composition of {describe(inner)} is "
        f"registered (dpcompose has one for Gaussian and ZCDP, and per_epoch = 1 for any mechanism). "
        f"The un-amplified bound of an epoch is that k-fold composition: compose the inner "
        f"mechanism per_epoch * epochs = {k} * epochs times instead, e.g. compose([(inner, {k} * epochs)]).",
        rule="random_allocation", mechanism=m)


# ---------------------------------------------------------------------------
# rules: the equivalent mechanism's, except that the bound is never attained and no lower
# bound is claimed (is_class_worst_case keeps its default False)

register_equivalent(RandomAllocation, allocation_equivalent, without=("is_class_worst_case", "dominance_key"))


@dominating_pair.register(RandomAllocation)
def _(m: RandomAllocation, *, epsilon: float | None = None) -> Any:
    pair = dominating_pair(allocation_equivalent(m), epsilon=epsilon)
    return dataclasses.replace(pair, attained=False, lower=None)  # an upper bound of the epoch, not its pair (nor its thinning)


def _amplified_mu(m: RandomAllocation) -> float | None:
    """mu = sensitivity / sigma rounded up (the curve increases with mu), where the amplified curve applies."""
    inner = m.mechanism
    if m.per_epoch != 1 or m.steps < 2 or type(inner) is not Gaussian or not isinstance(inner, Gaussian):
        return None
    mu = up(inner.sensitivity / inner.sigma, 4.0)  # one division: at most one ulp
    return mu if mu <= MAX_MU else None


@functools.lru_cache(maxsize=32)
def _cached_amplified(mu: float, t: int, orders: tuple[float, ...]) -> np.ndarray:
    out = allocation_renyi_curve(mu, t, np.asarray(orders))
    out.setflags(write=False)
    return out


@renyi_curve.register(RandomAllocation)
def _(m: RandomAllocation, orders: Any = None) -> np.ndarray:
    """The un-amplified curve, or for one Gaussian step per epoch the smaller of it and the amplified one."""
    a = check_orders(orders)
    base = np.asarray(renyi_curve(allocation_equivalent(m), a), dtype=float)
    mu = _amplified_mu(m)
    if mu is None:
        return base
    return np.minimum(base, _cached_amplified(mu, m.steps, tuple(float(x) for x in a)))


def _curve_note(m: RandomAllocation) -> str:
    if _amplified_mu(m) is None:
        return "random allocation without amplification (the k-fold composition of the step)"
    return ("random allocation, amplified: balls-in-bins Gaussian epoch, both directions of the exact pair "
            "(representations.random_allocation_rdp), at each order the smaller of it and the un-amplified curve")


register_curve_note(RandomAllocation, _curve_note)
