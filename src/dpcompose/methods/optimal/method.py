r"""The optimal composition of (epsilon, delta) descriptions: the composition object and the method.

:class:`_Composition` picks the computation (Kairouz-Oh-Viswanath closed form, exact
enumeration, one large group mixed with a small rest, or the lattice bracket; see
:mod:`dpcompose.methods.optimal`) and answers ``delta(eps')`` and ``epsilon(delta)``.
"""

from __future__ import annotations

import functools
import math
from typing import TYPE_CHECKING, Any, Iterable

from ..._numerics.inversion import invert_delta_to_epsilon
from ..._numerics.rounding import UNIT_ROUNDOFF
from ..._validation import check_count, check_delta, check_epsilon, check_positive
from ...errors import InvalidParameterError, MethodNotApplicableError
from ...guarantee import Guarantee, perfect_privacy
from ...mechanisms import describe
from ...representations import eps_delta_pair, is_class_worst_case
from ..registry import register_method
from .sums import _LossSums, _max_loss
from .window import PY_WINDOW_MAX, _Binomial, _WindowSums

if TYPE_CHECKING:  # numpy's modules are imported where they compute (cold start, issue 14)
    from .lattice import _ThresholdLower
    from .lossdist import _MixedDist

__all__ = [
    "optimal_composition",
    "optimal_method",
    "kov_delta",
    "kov_epsilon",
    "DEFAULT_MAX_EXACT_SUPPORT",
    "MAX_WINDOW",
    "MIXED_SMALL_SUPPORT",
]

#: the largest number of outcomes enumerated exactly (product of windowed supports)
DEFAULT_MAX_EXACT_SUPPORT = 2**21
#: the most outcomes of the smaller groups combined on the fly with one large group
MIXED_SMALL_SUPPORT = 2**15
#: the largest binomial window for one group (about k = 1.5e11 at p = 1/2)
MAX_WINDOW = 2**25


class _Composition:
    """delta(eps') bounds for a composition of (eps_i, delta_i) worst cases."""

    def __init__(self, key: tuple[tuple[float, float, int], ...], error: float | None,
                 max_exact_support: int) -> None:
        self.key = key
        self.nonprivate = any(math.isinf(e) for e, _, _ in key)
        s = sum(c * math.log1p(-d) for _, d, c in key)  # log prod (1 - delta_i)
        self.atom = -math.expm1(s)  # P-mass on which some mechanism's loss is infinite
        slack = 16.0 * UNIT_ROUNDOFF * (1.0 + abs(s) + len(key))
        self.atom_up = min(1.0, self.atom * (1.0 + slack))
        self.atom_lo = max(0.0, self.atom * (1.0 - slack))
        groups: dict[float, int] = {}
        for e, _, c in key:
            if e > 0.0 and not math.isinf(e):
                groups[e] = groups.get(e, 0) + c
        self.groups = tuple(sorted(groups.items()))
        self.info: dict[str, Any] = {}
        self.exact = True
        self.dist_up: _LossSums | _MixedDist | None = None
        self.dist_lo: _LossSums | _MixedDist | _ThresholdLower | None = None
        if self.nonprivate or not self.groups:
            self.info["path"] = "non-private" if self.nonprivate else "perfectly private"
            return
        max_loss, loss_err = _max_loss(self.groups)
        if not loss_err < 1.0:
            # beyond ~1e15 a loss is not resolved to 1 in doubles (3e308 is not finite)
            raise MethodNotApplicableError(
                f"method 'optimal': the composed loss reaches {max_loss:.3g}, beyond the range "
                f"where doubles resolve it (about 1e15); use method='simple' (the sum of "
                f"epsilons).")
        if 2 ** min(len(self.groups) - 1, 64) > max(max_exact_support, MIXED_SMALL_SUPPORT):
            # every window has >= 2 outcomes: neither exact path can apply (skip the windows)
            self._lattice(error)
            return
        bins = [_Binomial(e, c) for e, c in self.groups]
        sizes = [b.size for b in bins]
        support = math.prod(sizes)
        if len(bins) == 1:
            if sizes[0] > MAX_WINDOW:
                raise MethodNotApplicableError(
                    f"method 'optimal': k = {self.groups[0][1]} mechanisms of epsilon = "
                    f"{self.groups[0][0]!r} need a binomial window of {sizes[0]} terms, above "
                    f"the limit {MAX_WINDOW}; use method='pld' or method='advanced'."
                )
            d: _LossSums
            if sizes[0] <= PY_WINDOW_MAX:
                d = _WindowSums(bins[0], max_loss, loss_err)  # no numpy (cold start)
            else:
                from .lossdist import _exact_dist

                d = _exact_dist(self.groups, bins)
            self.dist_up = self.dist_lo = d
            self.info.update(path="kov", support=d.size, error=0.0)
        elif support <= max_exact_support:
            from .lossdist import _exact_dist

            d = _exact_dist(self.groups, bins)
            self.dist_up = self.dist_lo = d
            self.info.update(path="exact-enumeration", support=d.size, error=0.0)
        elif (support // max(sizes) <= min(MIXED_SMALL_SUPPORT, max_exact_support)
              and max(sizes) <= MAX_WINDOW):
            from .lossdist import _MixedDist

            j = sizes.index(max(sizes))
            rest = [i for i in range(len(bins)) if i != j]
            mixed = _MixedDist([self.groups[j]], [bins[j]], [self.groups[i] for i in rest],
                               [bins[i] for i in rest])
            self.dist_up = self.dist_lo = mixed
            self.info.update(path="exact-mixed", support=mixed.size, error=0.0)
        else:
            self._lattice(error)

    def _lattice(self, error: float | None) -> None:
        """The certified second-order bracket on a lattice (:mod:`.lattice`)."""
        from .lattice import _choose_step, _ThresholdLower, _upper_dist

        self.exact = False
        eta = _choose_step(self.groups, error)
        k = sum(c for _, c in self.groups)
        self.dist_up = _upper_dist(self.groups, eta)
        self.dist_lo = _ThresholdLower(self.groups, eta)
        self.info.update(path="lattice", eta=eta, error=(2 * k + 1) * eta, support=self.dist_up.size)

    # -- profile ---------------------------------------------------------------
    def delta_upper(self, x: float) -> float:
        if self.nonprivate:
            return 1.0
        rr = self.dist_up.upper(x) if self.dist_up is not None else 0.0
        a = self.atom_up
        return min(1.0, (a + (1.0 - a) * rr) * (1.0 + 4.0 * UNIT_ROUNDOFF))

    def delta_lower(self, x: float) -> float:
        if self.nonprivate:
            return 1.0
        rr = self.dist_lo.lower(x) if self.dist_lo is not None else 0.0
        a = self.atom_lo
        return max(0.0, (a + (1.0 - a) * rr) * (1.0 - 4.0 * UNIT_ROUNDOFF))

    def epsilon_upper(self, delta: float) -> float:
        if self.nonprivate:
            return math.inf
        if self.delta_upper(0.0) <= delta:
            return 0.0
        a = self.atom_up
        if a >= 1.0:
            return math.inf
        t = (delta / (1.0 + 4.0 * UNIT_ROUNDOFF) - a) / (1.0 - a) * (1.0 - 8.0 * UNIT_ROUNDOFF)
        if t < 0.0 or self.dist_up is None:
            return math.inf if self.delta_upper(math.inf) > delta else 0.0
        x = self.dist_up.epsilon_upper(t)
        if math.isinf(x) or self.delta_upper(x) <= delta:
            return x
        # rounding in t: fall back to bisection on the certified profile
        return invert_delta_to_epsilon(self.delta_upper, delta, side="upper")


@functools.lru_cache(maxsize=8)  # a k = 1e9 entry holds ~60 MB of arrays
def _build(key: tuple[tuple[float, float, int], ...], error: float | None,
           max_exact_support: int) -> _Composition:
    return _Composition(key, error, max_exact_support)


def _guarantee(key: tuple[tuple[float, float, int], ...], *, error: float | None,
               max_exact_support: int, worst_case: bool,
               provenance: dict[str, Any] | None = None) -> Guarantee:
    comp = _build(key, error, max_exact_support)
    prov = {"path": comp.info.get("path"), "error": comp.info.get("error", 0.0),
            "lattice_step": comp.info.get("eta"), "support": comp.info.get("support"),
            "lower_bound_certified": worst_case,
            "references": ["Kairouz, Oh and Viswanath, The Composition Theorem for Differential "
                           "Privacy, Thm 3.3",
                           "Murtagh and Vadhan, The Complexity of Computing the Optimal "
                           "Composition of Differential Privacy"]}
    prov.update(provenance or {})
    return Guarantee(
        "optimal",
        delta_upper=comp.delta_upper,
        epsilon_upper=comp.epsilon_upper,
        delta_lower=comp.delta_lower if worst_case else None,
        exact=bool(worst_case and comp.exact),
        provenance=prov,
    )


def _check_error(error: Any) -> float | None:
    if error is None:
        return None
    return check_positive("error", error,
                          remedy="error is the target width epsilon_upper - epsilon_lower of "
                                 "the heterogeneous bracket, e.g. 0.05; None picks the finest "
                                 "grid within the work limit.")


def _check_support(value: Any) -> int:
    return check_count("max_exact_support", value, minimum=1)


def _check_optimal_options(error: Any, max_exact_support: Any) -> None:
    _check_error(error)
    _check_support(max_exact_support)


def _pairs_key(pairs: Iterable[tuple[float, float, int]]) -> tuple[tuple[float, float, int], ...]:
    merged: dict[tuple[float, float], int] = {}
    for e, d, c in pairs:
        if c:
            merged[(e, d)] = merged.get((e, d), 0) + c
    return tuple(sorted((e, d, c) for (e, d), c in merged.items()))


@register_method("optimal", check_options=_check_optimal_options)
def optimal_method(groups, *, error: float | None = None,
                   max_exact_support: int = DEFAULT_MAX_EXACT_SUPPORT) -> Guarantee:
    r"""Optimal composition of (eps, delta) guarantees (Kairouz-Oh-Viswanath; Murtagh-Vadhan), exact or a certified bracket.

    Args:
        groups: ``((mechanism, count), ...)`` from :func:`dpcompose.compose.normalize`.
        error: for many distinct epsilons only: the a-priori width of the certified
            bracket, ``epsilon_upper - epsilon_lower <= error`` at every delta
            (grid step ``error / (2k + 1)``; at most :data:`LATTICE_WORK_LIMIT`
            updates). ``None`` (default) picks a step whose realised width is about
            3e-7 of the sum of the epsilons, or the finest within
            :data:`DEFAULT_WORK` updates; the a-priori width is in
            ``g.provenance["error"]``, the realised one (second order in the step, far
            smaller) is what ``epsilon_bounds`` returns.
        max_exact_support: the largest number of outcomes enumerated exactly when the
            epsilons take several distinct values (default 2**21).

    Returns:
        A :class:`~dpcompose.guarantee.Guarantee`; ``exact=True`` when the value is the
        exact optimum and every mechanism is the worst case of its (eps, delta) class.

    Guarantee:
        Upper bound for any mechanisms that are :math:`(\varepsilon_i, \delta_i)`-DP
        under one common neighbour relation, composed adaptively (the worst case of the
        class does not depend on adaptivity). Lower bounds (``epsilon_bounds``) are
        reported only when every mechanism attains its class's worst case
        (``PureDP``, ``ApproxDP``, ``RandomizedResponse``); for e.g. ``Laplace`` the
        composition of the mechanisms themselves is tighter than the class's worst
        case, so no lower bound is claimed.

    Raises:
        MethodNotApplicableError: a mechanism has no (eps, delta) description
            (Gaussian: use ``method="pld"``), or the problem exceeds the documented
            size limits.

    References:
        Kairouz, Oh and Viswanath, "The Composition Theorem for Differential Privacy",
        ICML 2015 / IEEE Trans. Inf. Theory 2017, Thm 3.3. Murtagh and Vadhan, "The
        Complexity of Computing the Optimal Composition of Differential Privacy",
        TCC 2016 / Theory of Computing 2018 (the exact optimal composition for
        heterogeneous (eps_i, delta_i), its #P-completeness, and the approximation
        by discretization and dynamic programming). Zhu, Dong and Wang, "Optimal
        Accounting of Differential Privacy via Characteristic Function", AISTATS
        2022, Thm 10 (dominating pairs compose: the lattice bracket's upper side).
    """
    error = _check_error(error)
    max_exact_support = _check_support(max_exact_support)
    pairs = []
    worst = True
    for m, c in groups:
        pair = eps_delta_pair(m)
        if pair is None:
            raise MethodNotApplicableError(
                f"method 'optimal' needs an (epsilon, delta) guarantee for every mechanism, "
                f"but {describe(m)} is described only by its privacy profile; use "
                f"method='pld' (or method='rdp') for Gaussian mechanisms."
            )
        pairs.append((float(pair[0]), float(pair[1]), int(c)))
        worst = worst and bool(is_class_worst_case(m))
    return _guarantee(_pairs_key(pairs), error=error, max_exact_support=max_exact_support,
                      worst_case=worst)


def optimal_composition(pairs: Iterable[Any], *, error: float | None = None,
                        max_exact_support: int = DEFAULT_MAX_EXACT_SUPPORT) -> Guarantee:
    r"""Optimal composition of the class of :math:`(\varepsilon_i, \delta_i)`-DP mechanisms.

    Args:
        pairs: items ``(epsilon, delta)`` or ``((epsilon, delta), count)``.
        error: bracket width for many distinct epsilons (see :func:`optimal_method`).
        max_exact_support: see :func:`optimal_method`.

    Returns:
        A Guarantee that is exact (upper = lower up to floating point) when computed
        exactly, else a certified bracket whose width is ``provenance["error"]``.

    Guarantee:
        Upper and lower bounds on the privacy profile of the worst case of the class,
        i.e. the optimal composition theorem. Any neighbour relation, adaptive
        composition.

    References:
        Kairouz, Oh and Viswanath, Thm 3.3; Murtagh and Vadhan, TCC 2016.
    """
    error = _check_error(error)
    max_exact_support = _check_support(max_exact_support)
    items = []
    for i, item in enumerate(pairs):
        if (isinstance(item, tuple) and len(item) == 2 and isinstance(item[0], tuple)):
            (e, d), c = item
            c = check_count(f"pairs[{i}] count", c)
        elif isinstance(item, tuple) and len(item) == 2:
            (e, d), c = item, 1
        else:
            raise InvalidParameterError(
                f"pairs[{i}] = {item!r} is neither (epsilon, delta) nor ((epsilon, delta), count)."
            )
        e = check_epsilon(f"pairs[{i}] epsilon", e, allow_inf=True)
        d = check_delta(f"pairs[{i}] delta", d)
        items.append((e, d, c))
    key = _pairs_key(items)
    if not key:
        return perfect_privacy("optimal")
    return _guarantee(key, error=error, max_exact_support=max_exact_support, worst_case=True)


def kov_delta(epsilon: float, delta: float, k: int, epsilon_prime: float) -> float:
    r"""Exact :math:`\delta'(\varepsilon')` of the k-fold composition of :math:`(\varepsilon, \delta)`-DP.

    .. math::

       \delta' = 1 - (1 - \delta)^k \Bigl(1 - \sum_{l=0}^{k} \binom{k}{l}
       \frac{[e^{(k-l)\varepsilon} - e^{\varepsilon'} e^{l\varepsilon}]_+}{(1 + e^{\varepsilon})^k}\Bigr),

    which at :math:`\varepsilon' = (k - 2i)\varepsilon` is Kairouz, Oh and Viswanath's
    Thm 3.3, and in between is the same hockey-stick divergence of the composed
    dominating pairs.

    Returns:
        A certified upper bound, within a few ulps times the conditioning of the sum.

    Guarantee:
        Upper bound; exact (tight) for the class of :math:`(\varepsilon, \delta)`-DP
        mechanisms, adaptive composition, any neighbour relation.

    References:
        Kairouz, Oh and Viswanath, "The Composition Theorem for Differential Privacy",
        Thm 3.3.
    """
    epsilon = check_epsilon("epsilon", epsilon, allow_inf=True)
    delta = check_delta("delta", delta)
    k = check_count("k", k)
    epsilon_prime = check_epsilon("epsilon_prime", epsilon_prime, allow_inf=True)
    if k == 0:
        return 0.0
    comp = _build(((epsilon, delta, k),), None, DEFAULT_MAX_EXACT_SUPPORT)
    return comp.delta_upper(epsilon_prime)


def kov_epsilon(epsilon: float, delta: float, k: int, target_delta: float) -> float:
    r"""The smallest :math:`\varepsilon'` (certified, rounded up) with :math:`\delta'(\varepsilon') \le` ``target_delta``.

    See :func:`kov_delta`. Returns ``inf`` when no finite epsilon reaches the target
    (e.g. ``1 - (1 - delta)^k > target_delta``).

    Example:
        >>> round(kov_epsilon(0.1, 0.0, 100, 1e-6), 4)
        4.7746

    Guarantee:
        Upper bound: the k-fold (adaptive) composition of any
        :math:`(\varepsilon, \delta)`-DP mechanisms is (result, ``target_delta``)-DP,
        and no smaller epsilon holds for the whole class (up to floating point).

    References:
        Kairouz, Oh and Viswanath, "The Composition Theorem for Differential Privacy",
        Thm 3.3.
    """
    epsilon = check_epsilon("epsilon", epsilon, allow_inf=True)
    delta = check_delta("delta", delta)
    k = check_count("k", k)
    target_delta = check_delta("target_delta", target_delta, allow_one=True)
    if k == 0 or target_delta >= 1.0:
        return 0.0
    comp = _build(((epsilon, delta, k),), None, DEFAULT_MAX_EXACT_SUPPORT)
    return max(0.0, comp.epsilon_upper(target_delta))
