r"""Skip bounds: cheap certified lower bounds on what one method would report (see :mod:`dpcompose.auto`).

Two providers: ``optimal`` on its lattice path (below), and the five theorem methods where
some mechanism is described only by its privacy profile (:class:`TheoremSkipBound`).

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

from .._groups import Groups
from .._numerics.inversion import invert_delta_to_epsilon
from .._numerics.rounding import UNIT_ROUNDOFF
from ..representations import eps_delta_pair, is_class_worst_case
from .optimal.method import optimal_method
from .registry import register_skip_bound

__all__ = ["SKIP_WORK", "MAX_PROFILED_GROUPS", "OptimalSkipBound", "TheoremSkipBound"]

#: the theorems have a skip bound for at most this many distinct profile-only mechanisms
MAX_PROFILED_GROUPS = 4
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


@register_skip_bound("optimal", optimal_method)
def optimal_skip_bound(groups: Groups, *, error: float | None = None,
                       max_exact_support: int | None = None) -> OptimalSkipBound | None:
    """optimal's skip bound where it would build a lattice (many distinct epsilons), else None.

    Only the lattice path is expensive; the closed form and the exact enumerations
    (one group, or a small product of binomial windows) are run eagerly.
    """
    from .optimal.lattice import LATTICE_MAX_K
    from .optimal.lossdist import _Binomial
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
    r"""Lower bounds on what one theorem method reports for profile-only mechanisms (Gaussian, zCDP).

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
        if not parts.profiled or len(parts.profiled) > MAX_PROFILED_GROUPS:
            # closed forms: cheap, run at once; many distinct profiles: the bound's own
            # inversions (one per profile per delta tried) would cost about as much
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
