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
"""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction
from typing import Any

from .._numerics.rounding import frac_up, up_strict
from ..errors import NoRuleError
from ..mechanisms import ZCDP, Gaussian, Mechanism, RandomAllocation, describe
from .rules import dominating_pair, register_equivalent

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
