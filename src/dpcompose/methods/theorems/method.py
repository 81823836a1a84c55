r"""epsilon(delta) of each theorem for a given input, and the registered theorem methods.

Each ``_*_eps(parts, delta)`` evaluates one theorem at a target delta, choosing the
points of profile-only mechanisms with :mod:`.search`; :func:`_guarantee` wraps it
(with the minimum with basic composition unless ``with_simple=False``).
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache
from typing import Callable

from ..._groups import Groups
from ..._numerics.inversion import invert_delta_to_epsilon
from ..._numerics.rounding import SMALLEST_SUBNORMAL, frac_down, frac_up
from ...errors import MethodNotApplicableError
from ...guarantee import Guarantee
from ..registry import register_method
from .formulas import (
    _advanced_value,
    _check_with_simple,
    _stability_thm1,
    _stability_thm2,
    _tail_value,
    _up,
    decimal_text,
    lower_reading,
)
from .search import _SEARCH_TOL, _allocations, _cached, _lattice_min, _level, _maxed, _parts, _Parts

__all__ = [
    "simple_method",
    "advanced_method",
    "stability_method",
    "tail_independent_method",
    "tail_adaptive_method",
]


def _simple_eps(parts: _Parts, delta: float) -> float:
    if parts.nonprivate:
        return math.inf
    # stated numbers under both readings (formulas.upper_reading/lower_reading): the target
    # delta's smaller reading, the stated pairs' larger
    eps_fixed, delta_fixed = parts.written_sums
    budget = lower_reading(delta) - delta_fixed
    if budget < 0:
        return math.inf
    if not parts.profiled:
        return frac_up(eps_fixed)
    base = frac_up(eps_fixed)
    best = math.inf
    for pts in _allocations(parts.profiled, frac_down(budget)):
        total = base + math.fsum(k * e for e, _, k in pts)  # 0 only if every term is 0
        best = min(best, _up(total) if total > 0.0 else 0.0)
    return best


def _advanced_eps(parts: _Parts, delta: float) -> float:
    if parts.nonprivate:
        return math.inf
    budget = Fraction(delta) - parts.fixed_delta
    if budget <= 0:
        return math.inf
    items = [(e, c) for e, _, c in parts.fixed]
    b = frac_down(budget)
    if not parts.profiled:
        return _advanced_value(items, b)

    def allocs(n: int) -> list[list[tuple[float, float, int]]]:
        return _cached(parts, ("alloc", n), lambda: _allocations(parts.profiled, _level(n)))

    def rest(n: int) -> float:
        # the profile points at level n use at most level(n) of the budget in total
        return (b - _level(n)) * (1.0 - 1e-12)

    def value(n: int) -> float:
        r = rest(n)
        if r <= 0.0:
            return math.inf
        return min((_advanced_value(items + [(e, k) for e, _, k in pts], r) for pts in allocs(n)),
                   default=math.inf)

    def bound(lo: int, hi: int) -> float:
        # below hi every family's epsilons are at least those at hi (the inversions are
        # monotone in their target), and delta' is at most rest(lo)
        r = rest(lo)
        if r <= 0.0:
            return math.inf
        return min((_advanced_value(items + [(e, k) for e, _, k in pts], r) for pts in allocs(hi)),
                   default=math.inf)

    return _lattice_min(b, value, bound)


def _max_reduced(parts: _Parts, level: float) -> tuple[float, float] | None:
    """(eps, delta) that every mechanism satisfies, profile points at per-mechanism delta <= level."""
    eps, dl = parts.fixed_eps_max, parts.fixed_delta_max
    if parts.profiled:
        if level <= 0.0:
            return None
        mx = _maxed(parts.profiled)
        e = invert_delta_to_epsilon(mx, level, side="upper", rel_tol=_SEARCH_TOL)
        if not math.isfinite(e):
            return None
        eps, dl = max(eps, e), max(dl, mx(e))
    return eps, dl


def _tail_eps(parts: _Parts, delta: float, *, adaptive: bool) -> float:
    if parts.nonprivate:
        return math.inf
    k = parts.k_total

    def with_pair(eps: float, dl: float) -> float:
        beta = Fraction(delta) - k * Fraction(dl)
        if not (0 < beta < 1):
            return math.inf
        return _tail_value(eps, k, frac_down(beta), adaptive=adaptive)

    if not parts.profiled:
        return with_pair(parts.fixed_eps_max, parts.fixed_delta_max)
    if delta <= 0.0:
        return math.inf

    def reduced(n: int) -> tuple[float, float] | None:
        return _cached(parts, ("max", n), lambda: _max_reduced(parts, _level(n)))

    def beta(n: int) -> float:
        # every mechanism's delta is at most max(fixed delta, level(n)); rounded down
        used = k * max(parts.fixed_delta_max, _level(n))
        return math.nextafter(delta - math.nextafter(used, math.inf), -math.inf)

    def at(red: tuple[float, float] | None, bt: float) -> float:
        if red is None or not 0.0 < bt < 1.0:
            return math.inf  # no profile point fits here (nor below), or no beta left
        return _tail_value(red[0], k, bt, adaptive=adaptive)

    # below hi the epsilon is at least the one at hi, and beta at most beta(lo)
    return _lattice_min(delta / k, lambda n: at(reduced(n), beta(n)),
                        lambda lo, hi: at(reduced(hi), beta(lo)))


def _stability_eps(parts: _Parts, delta: float) -> float:
    if parts.nonprivate or delta <= 0.0:
        return math.inf
    k = parts.k_total
    if not parts.profiled and parts.fixed_delta_max == 0.0:
        return _stability_thm2(parts.fixed_eps_max, k, delta)  # Thm 2
    level = frac_down(Fraction(delta) / (2 * k))  # Thm 1 at delta_hat = delta / (2k)
    red = _max_reduced(parts, level)
    if red is None:
        return math.inf
    eps, dl = red
    if dl > level or eps > 1.0:
        return math.inf
    # a (0, d)-DP mechanism is (eta, d)-DP for every eta in (0, 1]: evaluate at the
    # smallest positive double (the hypothesis 0 < epsilon holds there)
    eps = max(eps, SMALLEST_SUBNORMAL)
    return _stability_thm1(eps, level, k)


def _guarantee(name: str, parts: _Parts, theorem: Callable[[_Parts, float], float],
               with_simple: bool, info: dict) -> Guarantee:
    @lru_cache(maxsize=4096)
    def eps_fn(delta: float) -> float:
        v = theorem(parts, delta)
        if with_simple:
            v = min(v, _simple_eps(parts, delta))
        return v

    return Guarantee(name, epsilon_upper=eps_fn, infinite_loss_mass=parts.infinite_loss_mass,
                     provenance={"theorem": info, "with_simple": with_simple})


@register_method("simple")
def simple_method(groups: Groups) -> Guarantee:
    r"""Basic composition: the sum of the epsilons and of the deltas.

    ``epsilon(delta) = sum_i eps_i`` when ``delta >= sum_i delta_i``, else ``inf``.
    Profile-only mechanisms (Gaussian) take points of their profiles chosen to spend
    the remaining delta (one common e, or an equal delta per mechanism; the smaller
    sum is kept).

    Guarantee:
        upper bound under adaptive composition, any (common) neighbour relation. See
        :func:`simple_composition`.

    References:
        Roth, CIS 800 lecture 4 "Composition Theorems", Thm 1; lecture notes "Advanced
        Composition", Thm 1; blog post "A Tail of Two Densities", Claim 10.
    """
    parts = _parts(groups)
    prov: dict = {"theorem": {"name": "basic composition", "source": "Roth lecture 4 Thm 1; blog Claim 10"}}
    if not parts.profiled and not parts.nonprivate and parts.decimal is not None:
        # the exact sums of the decimals written, for displays (report.model.exact_decimal);
        # epsilon(delta) itself is certified under both readings of each number
        sums = [sum((c * x[i] for *x, c in parts.decimal), Fraction(0)) for i in (0, 1)]
        texts = [t for t in (decimal_text(q) for q in sums) if t is not None]
        if len(texts) == 2 and max(len(t) for t in texts) <= 40:  # both exact and short: numbers as written
            prov["decimal"] = {"epsilon": texts[0], "delta": texts[1]}
    return Guarantee("simple", epsilon_upper=lru_cache(maxsize=4096)(lambda d: _simple_eps(parts, d)),
                     infinite_loss_mass=parts.infinite_loss_mass, provenance=prov)


@register_method("advanced", check_options=_check_with_simple)
def advanced_method(groups: Groups, *, with_simple: bool = True) -> Guarantee:
    r"""Advanced composition (Dwork-Rothblum-Vadhan; heterogeneous form), delta' optimal.

    At a target delta: :math:`\varepsilon' = \sqrt{2\ln(1/\delta')\sum_i\varepsilon_i^2}
    + \sum_i\varepsilon_i(e^{\varepsilon_i}-1)` with :math:`\delta' = \delta -
    \sum_i\delta_i` (the largest allowed, which is optimal since :math:`\varepsilon'`
    decreases in :math:`\delta'`); for profile-only mechanisms the split of delta
    between their points and :math:`\delta'` is searched. For :math:`k` equal
    mechanisms this is :math:`\sqrt{2k\ln(1/\delta')}\,\varepsilon + k\varepsilon(e^\varepsilon
    - 1)`, total delta :math:`k\delta + \delta'`.

    Args:
        groups: grouped mechanisms.
        with_simple: report the minimum with basic composition (default True).

    Guarantee:
        upper bound under adaptive composition (see :func:`heterogeneous_advanced_epsilon`
        and :func:`advanced_composition_epsilon`).

    References:
        Dwork, Rothblum and Vadhan, "Boosting and Differential Privacy" (2010), Thm III.3;
        Roth, CIS 800 lecture 4, Thm 6; lecture notes "Advanced Composition", Thm 2 (its
        printed statement drops the epsilon factors; corrected per its proof);
        Kairouz, Oh and Viswanath 2015, Thm 3.5 (heterogeneous, implies the form used).
    """
    with_simple = _check_with_simple(with_simple)
    parts = _parts(groups)
    return _guarantee("advanced", parts, _advanced_eps, with_simple, {
        "name": "advanced composition (heterogeneous form)",
        "source": "Dwork-Rothblum-Vadhan 2010 Thm III.3; Kairouz-Oh-Viswanath 2015 Thm 3.5",
        "free_parameter": "delta' = delta - sum_i delta_i",
    })


@register_method("stability", check_options=_check_with_simple)
def stability_method(groups: Groups, *, with_simple: bool = True) -> Guarantee:
    r"""Composition for DP-stability (lecture 5, Thms 1 and 2), for 0 < eps <= 1.

    Every mechanism is :math:`(\varepsilon, \delta)`-DP(-stable) with
    :math:`\varepsilon = \max_i\varepsilon_i`, :math:`\delta = \max_i\delta_i`, and
    :math:`k` is the total count. At a target :math:`\delta_t`:

    - all :math:`\delta_i = 0`: Thm 2, :math:`2k\varepsilon^2 +
      \sqrt{2k\ln(1/\delta_t)}\,\varepsilon` (needs :math:`\delta_t > 0`);
    - otherwise Thm 1 applied with per-mechanism :math:`\hat\delta = \delta_t / (2k)`
      (a mechanism that is :math:`(\varepsilon, \delta)`-stable is also
      :math:`(\varepsilon, \hat\delta)`-stable for :math:`\hat\delta \ge \delta`; Thm 1's
      epsilon decreases in :math:`\hat\delta` and its total is :math:`2k\hat\delta =
      \delta_t`): :math:`2k\varepsilon^2 + \sqrt{2k\ln(2/\delta_t)}\,\varepsilon`, valid
      when :math:`\delta \le \delta_t / (2k)`, else ``inf``. Profile-only mechanisms
      take the smallest :math:`e` whose profile is at most :math:`\hat\delta`; if that
      :math:`e` exceeds 1 the answer at that target is ``inf``.

    Args:
        groups: grouped mechanisms.
        with_simple: report the minimum with basic composition (default True).

    Raises:
        MethodNotApplicableError: a mechanism has :math:`\varepsilon_i > 1`, or every
            mechanism has :math:`\varepsilon_i = 0` (the hypothesis is
            :math:`0 < \varepsilon \le 1`), or :math:`2k\delta \ge 1` (nothing certified).

    Guarantee:
        upper bound under adaptive composition (DP-stability of
        :math:`M(S, p)` for every parameter :math:`p` is DP of each adaptively chosen
        mechanism). See :func:`stability_composition` and
        :func:`stability_composition_pure`.

    References:
        Stemmer, lecture 5 "Azuma-Hoeffding and Composition for DP-Stability" (after
        Roth and Smith), Thms 1 and 2 of "Composition for DP-stability".
    """
    with_simple = _check_with_simple(with_simple)
    parts = _parts(groups)
    k = parts.k_total
    too_big = [e for e, _, _ in parts.fixed if e > 1.0]
    if too_big:
        raise MethodNotApplicableError(
            f"stability (lecture 5, Thms 1-2) needs every mechanism's epsilon in (0, 1]; got "
            f"epsilon = {max(too_big)!r}. Use 'advanced' or 'simple' instead."
        )
    if not parts.profiled and parts.fixed_eps_max == 0.0:
        raise MethodNotApplicableError(
            "stability (lecture 5, Thms 1-2) needs 0 < epsilon <= 1; every mechanism here has "
            "epsilon = 0. Use 'simple' (which gives epsilon 0)."
        )
    if 2 * k * Fraction(parts.fixed_delta_max) >= 1:
        raise MethodNotApplicableError(
            f"stability (lecture 5, Thm 1) certifies only total delta 2 k delta; here 2 k delta = "
            f"{2 * k * parts.fixed_delta_max:g} >= 1 (k = {k}), so it certifies nothing."
        )
    if parts.profiled and 2 * k * _maxed(parts.profiled)(1.0) >= 1.0:
        raise MethodNotApplicableError(
            "stability (lecture 5, Thms 1-2) needs epsilon <= 1 per mechanism, and at epsilon = 1 "
            f"the profile-only mechanisms have delta >= 1/(2k) (k = {k}): nothing is certified. "
            "Use 'advanced' or 'simple' instead."
        )
    return _guarantee("stability", parts, _stability_eps, with_simple, {
        "name": "composition for DP-stability",
        "source": "Stemmer, lecture 5 (after Roth and Smith), Thms 1 and 2",
        "free_parameter": "per-mechanism delta_hat = delta / (2k) (Thm 1)",
    })


@register_method("tail_independent", check_options=_check_with_simple)
def tail_independent_method(groups: Groups, *, with_simple: bool = True) -> Guarantee:
    r"""The blog's a(eps) bound for independent composition (Claims 14, 17), beta optimal.

    With :math:`\varepsilon = \max_i\varepsilon_i`, :math:`\delta = \max_i\delta_i` and
    :math:`k` the total count: :math:`k a(\varepsilon) + \sqrt{2k\log\beta^{-1}}\,\varepsilon`
    at total delta :math:`k\delta + \beta`; at a target :math:`\delta_t` the best
    :math:`\beta = \delta_t - k\delta` (the bound decreases in :math:`\beta`), which must
    lie in (0, 1), else ``inf``. Profile-only mechanisms: the split of :math:`\delta_t`
    between their points and :math:`\beta` is searched.

    Args:
        groups: grouped mechanisms.
        with_simple: report the minimum with basic composition (default True).

    Guarantee:
        upper bound; stated for independent composition, and valid under adaptive
        composition too (see :func:`tail_independent_epsilon`).

    References:
        blog post "A Tail of Two Densities" (2019), Claims 12, 14 and 17.
    """
    with_simple = _check_with_simple(with_simple)
    parts = _parts(groups)
    return _guarantee("tail_independent", parts,
                      lambda p, d: _tail_eps(p, d, adaptive=False), with_simple, {
                          "name": "advanced independent composition, a(eps) form",
                          "source": "A Tail of Two Densities, Claims 14 and 17",
                          "free_parameter": "beta = delta - k delta_max",
                      })


@register_method("tail_adaptive", check_options=_check_with_simple)
def tail_adaptive_method(groups: Groups, *, with_simple: bool = True) -> Guarantee:
    r"""The blog's a(eps) bound for adaptive composition (Claims 16, 18), beta optimal.

    With :math:`\varepsilon = \max_i\varepsilon_i`, :math:`\delta = \max_i\delta_i` and
    :math:`k` the total count: :math:`k a(\varepsilon) + \sqrt{2k\log\beta^{-1}}
    (\varepsilon + a(\varepsilon))` at total delta :math:`k\delta + \beta`, with
    :math:`\beta = \delta_t - k\delta \in (0, 1)` at a target :math:`\delta_t` (else
    ``inf``). Profile-only mechanisms: the split is searched.

    Args:
        groups: grouped mechanisms.
        with_simple: report the minimum with basic composition (default True).

    Guarantee:
        upper bound under adaptive composition (see :func:`tail_adaptive_epsilon`).

    References:
        blog post "A Tail of Two Densities" (2019), Claims 12, 15, 16 and 18.
    """
    with_simple = _check_with_simple(with_simple)
    parts = _parts(groups)
    return _guarantee("tail_adaptive", parts,
                      lambda p, d: _tail_eps(p, d, adaptive=True), with_simple, {
                          "name": "advanced adaptive composition, a(eps) form",
                          "source": "A Tail of Two Densities, Claims 16 and 18",
                          "free_parameter": "beta = delta - k delta_max",
                      })
