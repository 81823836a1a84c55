r"""Group privacy: every rule of ``Group(mechanism, size=g)``, a person contributing up to g records.

Each rule of a group is the rule of one *equivalent* mechanism (:func:`group_equivalent`):

- **Noise on a query** (``Laplace``, ``Gaussian``, ``DiscreteLaplace``, ``DiscreteGaussian``): the same
  mechanism with sensitivity :math:`g\Delta`. Databases differing in g records are joined
  by a chain of g neighbours, so the query moves by at most :math:`g\Delta` (triangle
  inequality in the L1 / L2 / integer norm that defines :math:`\Delta`), and the noise
  mechanism's pair at sensitivity :math:`g\Delta` dominates; it is attained by a sum query
  whose g records move together, so this is exact (lower bounds included). For the
  Gaussian, :math:`\mu \mapsto g\mu`.
- **Tree aggregation** (``TreeAggregation(sigma, n)``, one pass, the zero-out relation): the
  Gaussian with :math:`\mu = g\sqrt{\text{nodes}}/\sigma`, exact. Zeroing out g records
  changes node v by at most :math:`c_v C` (:math:`c_v` of them in its leaves, triangle
  inequality), and :math:`\sum_v c_v^2 \le g \sum_v c_v \le g^2\,\text{nodes}` (each
  record lies in at most ``nodes`` released nodes, :math:`c_v \le g`), so by the adaptive
  composition of Gaussian DP (Dong, Roth and Su, "Gaussian Differential Privacy", Cor. 3.3)
  the run is :math:`g\sqrt{\text{nodes}}/\sigma`-GDP; g records in one leaf with aligned
  gradients attain it. (Replacing one record by another is two zero-outs: ``Group(tree, 2)``.)
- **zCDP** (``ZCDP(rho)``): ``ZCDP(g^2 rho)`` (Bun and Steinke, "Concentrated
  Differential Privacy: Simplifications, Extensions, and Lower Bounds", TCC 2016, the
  group privacy proposition of Sec. 5); tight for the Gaussian member
  (:math:`\mu \mapsto g\mu`, :math:`\rho = \mu^2/2 \mapsto g^2\rho`).
- **A mechanism with its own (epsilon, delta) pair** (``PureDP``, ``ApproxDP``,
  ``RandomizedResponse``, ``Exponential``): ``ApproxDP(g eps, delta_g)`` with
  :math:`\delta_g = \delta\sum_{i=0}^{g-1} e^{i\varepsilon} = \delta\,\frac{e^{g\varepsilon}-1}{e^\varepsilon-1}`,
  by chaining :math:`P_0(S) \le e^\varepsilon P_1(S) + \delta` g times (Dwork and Roth,
  "The Algorithmic Foundations of Differential Privacy", Thm 2.2 for :math:`\delta = 0`,
  and the remark after it, which states the weaker
  :math:`(g\varepsilon, g e^{(g-1)\varepsilon}\delta)`; the geometric sum is what the
  same chain gives before bounding each term by the largest). It is an upper bound only:
  the pair is marked not attained and no lower bound is claimed
  (``is_class_worst_case`` is ``False``). With :math:`\delta = 0` its Renyi curve is
  the tight curve of :math:`g\varepsilon`-DP (an upper bound).
- **Bounded range** (``BoundedRange(eps)``): ``BoundedRange(g eps)`` (the loss over a chain of
  g neighbours is a sum of g losses each ranging over an interval of width eps); an upper
  bound (its pair is not attained).
- **Subsampled mechanisms** (``Subsampled(...)``): no equivalent mechanism. Their Renyi
  curve is the Renyi group rule (:func:`~.renyi_group.group_renyi_curve`, the weak triangle
  inequality over a chain of g neighbours) applied to the one-record curve of the
  ``Subsampled`` mechanism, which samples **each record on its own** (its one-record curve
  holds for every pair of neighbouring databases, so the chain applies). It does not cover a
  pipeline that samples a person's records together (user-level sampling): there the
  one-record curve of record-level sampling does not hold between databases that hold
  some of the person's records (with the person drawn, the difference is not thinned by
  q), and the person is ``Subsampled(Gaussian(sigma, sensitivity=g*C), q)``, a larger loss
  (sigma 1.1, q 256/60000, 14062 steps, g = 2: eps 14.7 at delta 1e-5 against 5.7 here).
  Its pure epsilon is g times the inner one (the pure-DP chain). Where the
  subsampled mechanism has its own (epsilon, delta) pair (a subsampled ``PureDP``, ...) the
  pair is chained as above; otherwise every other rule raises
  :class:`~dpcompose.errors.NoRuleError` saying that ``method='rdp'`` certifies it.
- **Renyi curve of every group**: the equivalent's curve and, where the group is not exact,
  the Renyi group rule of the inner curve; the elementwise minimum of those that exist
  (each is an upper bound).
- **Anything else** (nested groups: refused when the ``Group`` is built; families without
  a group rule: :class:`~dpcompose.errors.NoRuleError` from every rule, naming the reason).
"""

from __future__ import annotations

import dataclasses
import functools
import math
from fractions import Fraction
from typing import Any

import numpy as np

from .._numerics.rounding import frac_up, up
from ..errors import NoRuleError
from ..mechanisms import (
    ZCDP,
    ApproxDP,
    BoundedRange,
    DiscreteGaussian,
    DiscreteLaplace,
    Gaussian,
    Group,
    Laplace,
    Mechanism,
    Subsampled,
    TreeAggregation,
    describe,
)
from .renyi import check_orders
from .renyi_group import group_renyi_curve
from .rules import dominating_pair, eps_delta_pair, is_class_worst_case, pure_epsilon, register_equivalent, renyi_curve

__all__ = ["group_delta", "group_equivalent"]


def _times_up(g: int, x: float) -> float:
    """g * x rounded up (the smallest double >= the exact product); inf stays inf."""
    if math.isinf(x):
        return x
    return frac_up(Fraction(g) * Fraction(x))


def group_delta(epsilon: float, delta: float, size: int) -> float:
    r""":math:`\delta\sum_{i<g} e^{i\varepsilon}`, rounded up (``inf`` where it overflows).

    Guarantee:
        never below the exact value: ``expm1`` ratio (or :math:`g\delta` at
        :math:`\varepsilon = 0`) raised by :math:`8 + g + g\varepsilon` machine epsilons
        (a few ulps of each of the two ``expm1``, the quotient and the product, and the
        rounding of :math:`g\varepsilon` through ``expm1``).
    """
    if delta == 0.0 or size == 1:
        return delta
    if epsilon == 0.0:
        return _times_up(size, delta)
    if math.isinf(epsilon):
        return math.inf
    g_eps = size * epsilon
    if g_eps > 700.0:
        return math.inf
    # g_eps is rounded to nearest (half an ulp of it: a relative g_eps / 2 ulps in expm1)
    return up(delta * (math.expm1(g_eps) / math.expm1(epsilon)), 8.0 + size + g_eps)


def group_equivalent(m: Group) -> Mechanism:
    """The mechanism whose rules are the group's (module docstring); NoRuleError if none."""
    inner, g = m.mechanism, m.size
    kind = type(inner)
    # exact types (a subclass gets no rule by inheritance); isinstance only tells the type checker
    if kind in (Laplace, Gaussian) and isinstance(inner, (Laplace, Gaussian)):
        return kind(**{**_fields(inner), "sensitivity": _times_up(g, inner.sensitivity)})
    if kind in (DiscreteLaplace, DiscreteGaussian) and isinstance(inner, (DiscreteLaplace, DiscreteGaussian)):
        # whole numbers: the product is exact (the class checks its range)
        return kind(**{**_fields(inner), "sensitivity": inner.sensitivity * g})
    if kind is TreeAggregation and isinstance(inner, TreeAggregation):
        # g sqrt(nodes) clip norms (module docstring): the tree's Gaussian with g times its sensitivity
        tree = inner.gaussian
        return Gaussian(tree.sigma, sensitivity=_times_up(g, tree.sensitivity))
    if kind is ZCDP and isinstance(inner, ZCDP):
        return ZCDP(frac_up(Fraction(g) ** 2 * Fraction(inner.rho)))
    if kind is BoundedRange and isinstance(inner, BoundedRange):
        # the loss over a chain of g neighbours is a sum of g losses, each ranging over an
        # interval of width eps: its range is at most g eps (an upper bound, not attained)
        return BoundedRange(_times_up(g, inner.epsilon))
    pair = _own_pair(m)
    eps, delta = pair
    g_eps = _times_up(g, eps)
    g_delta = group_delta(eps, delta, g)
    if not g_delta < 1.0:
        # the chain bounds nothing: the trivial description (every mechanism is (inf, 0)-DP)
        return ApproxDP(math.inf, 0.0)
    return ApproxDP(g_eps, g_delta)


def _fields(m: Any) -> dict[str, Any]:
    return {f.name: getattr(m, f.name) for f in dataclasses.fields(m)}


def _own_pair(m: Group) -> tuple[float, float]:
    inner = m.mechanism
    try:
        pair = eps_delta_pair(inner)
    except NoRuleError:
        pair = None
    if pair is None and type(inner) is Subsampled:
        raise NoRuleError(
            f"group privacy: {describe(m)} has no equivalent mechanism, so this rule has no certified "
            f"answer (no amplification-aware group pair or profile is proven here); method='rdp' certifies "
            f"it (the Renyi group rule) where the subsampled mechanism has a Renyi curve (the "
            f"Poisson-subsampled Gaussian), and compose(..., method='auto') then uses it.",
            rule="group", mechanism=m)
    if pair is None:
        raise NoRuleError(
            f"group privacy: no certified group rule for {describe(inner)}. dpcompose scales the "
            f"sensitivity of Laplace, Gaussian, DiscreteLaplace, DiscreteGaussian and TreeAggregation noise and chains "
            f"the (epsilon, delta) pair of PureDP, ApproxDP, RandomizedResponse and Exponential, and maps ZCDP(rho) to "
            f"ZCDP(g^2 rho); for other mechanisms account "
            f"per person directly (state the mechanism with the per-person sensitivity).",
            rule="group", mechanism=inner)
    return pair


def _is_exact(m: Group) -> bool:
    return type(m.mechanism) in (Laplace, Gaussian, DiscreteLaplace, DiscreteGaussian, ZCDP, TreeAggregation)


# ---------------------------------------------------------------------------
# rules: the equivalent mechanism's, except that a chained bound is never attained

register_equivalent(Group, group_equivalent)


@dominating_pair.register(Group)
def _(m: Group, *, epsilon: float | None = None) -> Any:
    pair = dominating_pair(group_equivalent(m), epsilon=epsilon)
    if _is_exact(m):
        return pair
    return dataclasses.replace(pair, attained=False, lower=None)  # an upper bound of the group, not its pair (nor its thinning)


@is_class_worst_case.register(Group)
def _(m: Group) -> bool:
    return _is_exact(m) and is_class_worst_case(group_equivalent(m))


# the Renyi curve: the equivalent's and the Renyi group rule's, whichever is smaller

def _curve_or_none(compute: Any) -> np.ndarray | None:
    try:
        curve = np.asarray(compute(), dtype=float)
    except NoRuleError:
        return None
    return None if np.any(np.isnan(curve)) else curve


def _group_curve(m: Group, orders: tuple[float, ...]) -> np.ndarray:
    try:
        hash(m)
    except TypeError:  # a mechanism that is not hashable: computed, not cached
        return _compute_group_curve(m, orders)
    return _cached_group_curve(m, orders)


def _compute_group_curve(m: Group, orders: tuple[float, ...]) -> np.ndarray:
    a = np.asarray(orders, dtype=float)
    candidates = [_curve_or_none(lambda: renyi_curve(group_equivalent(m), a))]
    if not _is_exact(m):  # exact: the equivalent's curve is the group's, nothing is tighter
        candidates.append(_curve_or_none(
            lambda: group_renyi_curve(lambda o: renyi_curve(m.mechanism, o), m.size, a)))
    curves = [c for c in candidates if c is not None]
    if not curves:
        renyi_curve(m.mechanism, a)  # raises the inner mechanism's NoRuleError, naming it
        group_equivalent(m)  # or the group's own
        raise NoRuleError(f"renyi_curve: no Renyi rule for {describe(m)}.", rule="renyi_curve", mechanism=m)
    out = np.minimum.reduce(curves)
    out.setflags(write=False)
    return out


#: the Renyi group rule takes a second or two for a subsampled mechanism; rdp, auto and the
#: ledger ask for the same curve repeatedly (mechanisms are frozen, the result is read-only)
_cached_group_curve = functools.lru_cache(maxsize=32)(_compute_group_curve)


@renyi_curve.register(Group)
def _(m: Group, orders: Any = None) -> np.ndarray:
    """Upper bound at each order: the minimum of two upper bounds (module docstring)."""
    a = check_orders(orders)
    return np.array(_group_curve(m, tuple(float(x) for x in a)))


@pure_epsilon.register(Group)
def _(m: Group) -> float:
    if type(m.mechanism) is not Subsampled:
        return pure_epsilon(group_equivalent(m))
    # the pure-DP chain: g neighbours at eps each (Dwork and Roth, Thm 2.2); inf stays inf
    chained = _times_up(m.size, pure_epsilon(m.mechanism))
    try:
        # a subsampled mechanism with its own (eps, 0) pair: the equivalent's (both are upper bounds)
        return min(chained, pure_epsilon(group_equivalent(m)))
    except NoRuleError:
        return chained
