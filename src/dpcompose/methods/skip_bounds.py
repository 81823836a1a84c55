r"""Skip bounds: cheap certified lower bounds on what one method would report (see :mod:`dpcompose.auto`).

Three providers: ``optimal`` on its lattice path (below), the five theorem methods where
some mechanism is described only by its privacy profile or where there are many distinct
stated pairs (:class:`TheoremSkipBound`), and
``rdp`` on many distinct Laplace mechanisms (:class:`LaplaceRdpSkipBound`).

A skip bound for method M and input G bounds from below the values M would *report* for G
(not only the truth): ``auto`` skips M at a query where that bound already exceeds another
method's reported upper bound (:mod:`dpcompose.auto` states the rule and why the answer is
unchanged). A provider returns None where M is cheap anyway (it is then run eagerly).

``optimal``: its reported profile is a certified *upper* bound on the exact optimal
composition of the (eps_i, delta_i) classes, :math:`\delta^\star(x)` (Kairouz-Oh-Viswanath
Thm 3.3; Murtagh-Vadhan), whatever the mechanisms are (for Laplace it is not tight, and
it still bounds :math:`\delta^\star`). The lower half of optimal's own bracket
(``optimal.lattice._ThresholdLower``: events of the nearest-point lattice law, each a valid
set in :math:`\delta^\star(x) = \sup_A P(A) - e^x Q(A)`) at a coarse step is
:math:`\le \delta^\star(x) \le` optimal's ``delta(x)``, and its inverse (``side="lower"``) is :math:`\le` optimal's ``epsilon(delta)``
(optimal's epsilon passes its own profile: ``delta_upper(e) <= delta``). This is the lower
half of optimal's own bracket at a coarser step, here with at most :data:`SKIP_WORK`
lattice updates (optimal's own default allows 6e8).
"""

from __future__ import annotations

import functools
import math
from typing import Any, Callable

import numpy as np

from .._groups import Groups
from .._numerics.inversion import invert_delta_to_epsilon
from .._numerics.rounding import UNIT_ROUNDOFF
from ..representations import eps_delta_pair, is_class_worst_case, pure_epsilon
from ..representations.renyi import check_orders
from .optimal.method import optimal_method
from .rdp.method import rdp as rdp_method
from .registry import register_skip_bound

__all__ = ["SKIP_WORK", "MAX_PROFILED_GROUPS", "THEOREM_SKIP_MIN_FIXED", "OptimalSkipBound", "TheoremSkipBound",
           "LaplaceRdpSkipBound"]

#: the theorems have a skip bound for at most this many distinct profile-only mechanisms
MAX_PROFILED_GROUPS = 4
#: the theorems have a skip bound on stated pairs only (pure DP, Laplace, (eps, delta)) from this
#: many distinct pairs: building each method reads every pair exactly (as rationals), about
#: 10 ms per method on the 365 hospitals, where the bound is one sum and one formula
THEOREM_SKIP_MIN_FIXED = 32
#: lattice updates spent on optimal's skip bound (about 0.05-0.1 s on 365 distinct epsilons)
SKIP_WORK = 1.2e7


class OptimalSkipBound:
    """Lower bounds on optimal's reported epsilon(delta) and delta(epsilon) (module docstring)."""

    def __init__(self, groups: tuple[tuple[float, int], ...], log_keep: float, terms: int,
                 has_lower: bool) -> None:
        self.groups = groups
        # the mass of some infinite loss, 1 - prod (1 - delta_i)^c_i = -expm1(log_keep) with
        # log_keep a sum of ``terms`` rounded terms, lowered by optimal's own slack for it
        slack = 16.0 * UNIT_ROUNDOFF * (1.0 + abs(log_keep) + terms)
        self.atom_lo = max(0.0, -math.expm1(log_keep) * (1.0 - slack))
        self.has_lower = has_lower

    @functools.cached_property
    def _dist(self) -> Any:
        from .optimal.lattice import _lattice_work, _ThresholdLower

        k = sum(c for _, c in self.groups)
        total = sum(c * e for e, c in self.groups)
        eta = max(k * total / (2.0 * SKIP_WORK), 1e-12)
        while _lattice_work(self.groups, eta) > SKIP_WORK:
            eta *= 1.25
        # optimal's own lower bound on the class composition (threshold events of the
        # nearest-point lattice law), at a coarser step: <= delta* <= optimal's delta
        return _ThresholdLower(self.groups, eta)

    def delta(self, epsilon: float) -> float:
        """<= optimal's delta(epsilon): the class profile with losses rounded down, lower error bounds."""
        rr = self._dist.lower(epsilon)
        a = self.atom_lo
        return max(0.0, (a + (1.0 - a) * rr) * (1.0 - 8.0 * UNIT_ROUNDOFF))

    def epsilon(self, delta: float) -> float:
        """<= optimal's epsilon(delta): the inverse of :meth:`delta` from below."""
        return invert_delta_to_epsilon(self.delta, delta, side="lower")

    def epsilon_exceeds(self, delta: float, x: float) -> bool:
        """True only when optimal's epsilon(delta) is above ``x`` (one evaluation, no inversion).

        :meth:`delta` is at most the exact profile of the class composition that optimal
        bounds, and every privacy profile is non-increasing: if ``delta(x) > delta``, the
        exact profile exceeds ``delta`` at every epsilon up to ``x``, so its epsilon(delta),
        and optimal's certified one above it, is larger than ``x`` (the reasoning of
        :meth:`epsilon`'s lower inversion, at one point).
        """
        return self.delta(x) > delta


@register_skip_bound("optimal", optimal_method)
def optimal_skip_bound(groups: Groups, *, error: float | None = None,
                       max_exact_support: int | None = None) -> OptimalSkipBound | None:
    """optimal's skip bound where it would build a lattice (many distinct epsilons), else None.

    Only the lattice path is expensive; the closed form and the exact enumerations
    (one group, or a small product of binomial windows) are run eagerly.
    """
    from .optimal.lattice import LATTICE_MAX_K
    from .optimal.window import _Binomial
    from .optimal.method import DEFAULT_MAX_EXACT_SUPPORT, MAX_WINDOW, MIXED_SMALL_SUPPORT

    support_limit = DEFAULT_MAX_EXACT_SUPPORT if max_exact_support is None else max_exact_support
    merged: dict[float, int] = {}
    log_keep = 0.0
    worst = True
    for m, c in groups:
        pair = eps_delta_pair(m)
        if pair is None:
            return None  # optimal refuses at once
        e, d = float(pair[0]), float(pair[1])
        if math.isinf(e):
            return None  # non-private: optimal answers at once
        log_keep += c * math.log1p(-d)
        if e > 0.0:
            merged[e] = merged.get(e, 0) + c
        worst = worst and bool(is_class_worst_case(m))
    keyed = tuple(sorted(merged.items()))
    if len(keyed) < 2 or sum(c for _, c in keyed) > LATTICE_MAX_K:
        return None  # the closed form, or optimal's own refusal: both at once
    sizes = [_Binomial(e, c).size for e, c in keyed]
    support = math.prod(sizes)
    if support <= support_limit or (support // max(sizes) <= min(MIXED_SMALL_SUPPORT, support_limit)
                                    and max(sizes) <= MAX_WINDOW):
        return None  # an exact enumeration: cheap
    return OptimalSkipBound(keyed, log_keep, len(groups), worst)


# ---------------------------------------------------------------------------
# the theorems, where some mechanism is described only by its privacy profile


class TheoremSkipBound:
    r"""Lower bounds on what one theorem method reports for profile-only mechanisms (Gaussian, zCDP),
    or for many stated pairs alone (365 distinct Laplace: no :math:`a_i`, the formulas at the
    stated epsilons).

    Every theorem method evaluates its formula at points :math:`(e_i, \delta_i)` of the
    profiles :math:`p_i`, one point per group of :math:`c_i` equal mechanisms, with
    :math:`p_i(e_i) \le \delta_i` and :math:`c_i \delta_i \le \delta`: simple and advanced
    spend at most the target on :math:`\sum_i c_i \delta_i` (``search._allocations``), the
    tail theorems and stability put every mechanism at one level below :math:`\delta / k`.
    So :math:`e_i \ge a_i`, the inverse of :math:`p_i` at :math:`\delta / c_i` taken from
    below (every e with :math:`p_i(e) \le \delta / c_i` is above it). Each formula grows
    with every :math:`e_i` and shrinks as its free delta (:math:`\delta'`, :math:`\beta`,
    or stability's level) grows, and that free delta is at most delta. So, with the stated
    pairs :math:`(\varepsilon_j, \delta_j)` as they are:

    - simple: :math:`\ge \sum_j c_j \varepsilon_j + \sum_i c_i a_i`;
    - advanced: :math:`\ge` the heterogeneous formula at the :math:`a_i` with
      :math:`\delta' = \delta` (Dwork-Rothblum-Vadhan Thm III.3, as ``_advanced_value``);
    - tail (both): :math:`\ge` the formula at :math:`\max(a_i, \varepsilon_j)` with
      :math:`\beta = \delta`;
    - stability: :math:`\ge 2k\varepsilon^2 + \sqrt{2k\ln(1/\delta)}\,\varepsilon` at that
      maximum (Thm 2's value; Thm 1 has :math:`\ln(2/\delta)` and is larger);

    and with ``with_simple`` (the default) the method reports the smaller of its theorem and
    simple, so the bound is the smaller of the two bounds. ``delta(epsilon)``: the methods'
    delta is the inverse of their epsilon, so the inverse of this epsilon bound from below
    bounds it.
    """

    has_lower = False  # the theorem methods report no lower bounds

    def __init__(self, method: str, parts: "_ProfilePoints", with_simple: bool) -> None:
        self.method = method
        self.parts = parts
        self.fixed = parts.fixed
        self.with_simple = with_simple
        self.k = parts.k
        self._cache: dict[float, float] = {}

    def _points(self, delta: float) -> list[tuple[float, int]]:
        return self.parts.at(delta)

    def _value(self, delta: float) -> float:
        from .theorems.formulas import _advanced_value, _tail_value

        if delta >= 1.0:
            return 0.0
        delta = max(delta, 5e-324)  # the methods' epsilon does not increase as delta grows
        pts = self._points(delta)
        simple = math.fsum(c * e for e, c in self.fixed + pts)
        if self.method == "simple":
            return simple
        top = max(e for e, _ in self.fixed + pts)
        if self.method == "advanced":
            own = _advanced_value(self.fixed + pts, delta)
        elif self.method in ("tail_independent", "tail_adaptive"):
            own = _tail_value(top, self.k, delta, adaptive=self.method == "tail_adaptive")
        else:  # stability
            own = 2.0 * self.k * top * top + math.sqrt(2.0 * self.k * -math.log(delta)) * top
        return min(own, simple) if self.with_simple else own

    def epsilon(self, delta: float) -> float:
        """<= the method's epsilon(delta) (class docstring)."""
        hit = self._cache.get(delta)
        if hit is None:
            hit = self._value(delta)
            if len(self._cache) < 256:
                self._cache[delta] = hit
        return hit

    def delta(self, epsilon: float) -> float:
        """<= the method's delta(epsilon): the inverse of :meth:`epsilon` from below."""
        from .._numerics.inversion import invert_epsilon_to_delta

        if math.isinf(epsilon):
            return 0.0  # the methods' delta(inf) may be their infinite-loss mass: nothing to claim
        return invert_epsilon_to_delta(self.epsilon, epsilon, side="lower", rel_tol=_BOUND_TOL)


#: relative accuracy of the searches inside the theorems' skip bounds (taken on the low side)
_BOUND_TOL = 1e-6


class _ProfilePoints:
    """The stated pairs and, per delta, the profiles' inverses from below (shared by the five bounds)."""

    def __init__(self, groups: Groups) -> None:
        from ..representations import privacy_profile

        self.fixed: list[tuple[float, int]] = []
        self.profiled: list[tuple[Any, int]] = []
        for m, c in groups:
            pair = eps_delta_pair(m)
            if pair is None:
                self.profiled.append((privacy_profile(m), c))
            else:
                self.fixed.append((float(pair[0]), c))
        self.k = sum(c for _, c in groups)
        self._at: dict[float, list[tuple[float, int]]] = {}

    def at(self, delta: float) -> list[tuple[float, int]]:
        """``[(a_i, c_i)]``: a_i below every e with ``p_i(e) <= delta / c_i`` (``side="lower"``).

        ``delta / c_i`` is rounded up (``nextafter``): a larger target only lowers a_i.
        """
        hit = self._at.get(delta)
        if hit is None:
            hit = [(invert_delta_to_epsilon(p, min(1.0, math.nextafter(delta / c, math.inf)), side="lower",
                                            rel_tol=_BOUND_TOL), c)
                   for p, c in self.profiled]
            if len(self._at) < 1024:
                self._at[delta] = hit
        return hit


@functools.lru_cache(maxsize=16)
def _profile_points(groups: Groups) -> _ProfilePoints:
    return _ProfilePoints(groups)


def _theorem_skip_bound(method: str) -> Callable[..., TheoremSkipBound | None]:
    def provider(groups: Groups, *, with_simple: bool = True) -> TheoremSkipBound | None:
        parts = _profile_points(groups)
        if not parts.profiled and len(parts.fixed) < THEOREM_SKIP_MIN_FIXED:
            return None  # closed forms on a few stated pairs: cheap, run at once
        if len(parts.profiled) > MAX_PROFILED_GROUPS:
            # many distinct profiles: the bound's own inversions (one per profile per delta
            # tried) would cost about as much
            return None
        return TheoremSkipBound(method, parts, bool(with_simple))

    provider.__name__ = f"{method}_skip_bound"
    return provider


def _register_theorems() -> None:
    from .theorems import method as th

    for name, fn in (("simple", th.simple_method), ("advanced", th.advanced_method),
                     ("stability", th.stability_method), ("tail_independent", th.tail_independent_method),
                     ("tail_adaptive", th.tail_adaptive_method)):
        register_skip_bound(name, fn)(_theorem_skip_bound(name))


_register_theorems()


# ---------------------------------------------------------------------------
# rdp on many distinct Laplace mechanisms

#: rdp gets a skip bound for Laplace compositions of more than this many distinct scales
#: (below it, rdp's one curve per mechanism costs less than a millisecond or so in all)
RDP_SKIP_MIN_GROUPS = 32
#: the Laplace epsilons are pooled into at most this many blocks of consecutive values
RDP_SKIP_BLOCKS = 32


def _laplace_log_a_lower(orders: np.ndarray, eps: np.ndarray) -> np.ndarray:
    r"""A lower bound on :math:`\log A_\alpha(\varepsilon)` for each (epsilon row, order column).

    :math:`A_\alpha = \frac{\alpha e^{(\alpha-1)\varepsilon} + (\alpha-1)e^{-\alpha\varepsilon}}{2\alpha-1}`
    (Mironov 2017, Table II), evaluated by ``logaddexp`` and ``log``: each result is within a
    few ulps of the magnitudes combined, so ``16 u`` times their sum is subtracted, and the
    result is clamped at 0 (:math:`A_\alpha \ge 1`).
    """
    a = orders[None, :]
    e = eps[:, None]
    x, y = (a - 1.0) * e, a * e
    log_num = np.logaddexp(np.log(a) + x, np.log(a - 1.0) + -y)
    log_den = np.log(2.0 * a - 1.0)
    err = 16.0 * UNIT_ROUNDOFF * (np.abs(x) + y + np.abs(np.log(a)) + np.abs(np.log(a - 1.0)) + log_den + 2.0)
    return np.maximum(log_num - log_den - err, 0.0)


class LaplaceRdpSkipBound:
    r"""Lower bounds on what ``rdp`` reports for a composition of many distinct Laplace mechanisms.

    rdp composes :math:`\tau(\alpha) = \sum_i k_i \tau_\alpha(\varepsilon_i)` (each curve
    rounded up, the sum rounded up) and reports the smaller of the pure-DP sum and
    :math:`\min_\alpha \tau(\alpha) + \log(1 - 1/\alpha) - (\log\delta + \log\alpha)/(\alpha-1)`
    (rounded up). For a fixed order, the Laplace curve
    :math:`\tau_\alpha(\varepsilon) = \frac{1}{\alpha - 1}\log A_\alpha(\varepsilon)` is convex in
    :math:`\varepsilon`: :math:`\log A_\alpha` is the log of a positive combination of
    exponentials of linear functions of :math:`\varepsilon` (log-sum-exp of affine maps is
    convex). So by Jensen, over each block :math:`B` of the sorted epsilons,
    :math:`\sum_{i \in B} k_i \tau_\alpha(\varepsilon_i) \ge K_B\,\tau_\alpha(\bar\varepsilon_B)` with
    :math:`\bar\varepsilon_B` the :math:`k`-weighted mean, and :math:`\tau_\alpha` grows with
    :math:`\varepsilon`, so a mean rounded down only lowers it. Summing the blocks, taking
    :math:`\log A` from below (:func:`_laplace_log_a_lower`) and rounding every step down
    gives a curve below rdp's at every order, and the conversion evaluated from below is
    below rdp's epsilon (the conversion grows with the curve). ``delta(epsilon)``: 0
    (rdp's delta is computed natively; this bound does not skip it there).
    """

    has_lower = False  # rdp reports no lower bounds

    def __init__(self, orders: np.ndarray, eps: list[tuple[float, int]]) -> None:
        self.orders = orders
        eps = sorted(eps)
        blocks = np.array_split(np.arange(len(eps)), min(RDP_SKIP_BLOCKS, len(eps)))
        means, weights = [], []
        for idx in blocks:
            k = sum(eps[i][1] for i in idx)
            # fsum is correctly rounded and the division adds half an ulp: 4u covers both
            means.append(math.fsum(eps[i][0] * eps[i][1] for i in idx) / k * (1.0 - 4.0 * UNIT_ROUNDOFF))
            weights.append(float(k))
        log_a = _laplace_log_a_lower(orders, np.array(means))
        # the block sum: each product and addition rounds by at most one ulp
        total = (np.array(weights)[:, None] * (log_a / (orders[None, :] - 1.0))).sum(axis=0)
        self.tau = np.maximum(total * (1.0 - 4.0 * (len(blocks) + 2) * UNIT_ROUNDOFF), 0.0)
        self.pure = math.fsum(e * k for e, k in eps) * (1.0 - 4.0 * UNIT_ROUNDOFF)

    def epsilon(self, delta: float) -> float:
        """<= rdp's epsilon(delta) (class docstring)."""
        if delta >= 1.0:
            return 0.0
        if delta <= 0.0:
            return self.pure
        a, t = self.orders, self.tau
        log_delta = math.log(delta)
        val = t + np.log1p(-1.0 / a) - (log_delta + np.log(a)) / (a - 1.0)
        # each term is within a few ulps of its magnitude: take 16 u of their sum off
        mag = t + np.abs(np.log1p(-1.0 / a)) + (abs(log_delta) + np.log(a)) / (a - 1.0)
        low = float(np.min(val - 16.0 * UNIT_ROUNDOFF * mag))
        return min(max(0.0, low), self.pure)

    def delta(self, epsilon: float) -> float:
        """<= rdp's delta(epsilon): 0, so delta queries never skip rdp (class docstring)."""
        return 0.0


@register_skip_bound("rdp", rdp_method)
def rdp_skip_bound(groups: Groups, *, orders: Any = None) -> LaplaceRdpSkipBound | None:
    """rdp's skip bound where every mechanism is Laplace and there are many distinct ones, else None."""
    from ..mechanisms import Laplace

    if len(groups) <= RDP_SKIP_MIN_GROUPS or any(type(m) is not Laplace for m, _ in groups):
        return None
    # rdp's curve and pure-DP sum use pure_epsilon(m), the quotient rounded up, as here
    return LaplaceRdpSkipBound(check_orders(orders), [(float(pure_epsilon(m)), int(c)) for m, c in groups])
