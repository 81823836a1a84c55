r"""The input as the theorems see it, and the search over points of privacy profiles.

A mechanism with its own :math:`(\varepsilon, \delta)` pair enters the theorems with
it; a mechanism known only by its profile (Gaussian) is :math:`(e, \delta(e))`-DP for
every :math:`e`, and :func:`_allocations` and :func:`_lattice_min` choose the points
(see :mod:`dpcompose.methods.theorems` for the rules and why they keep the query laws).
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Callable, Sequence, TypeVar

from ..._groups import Groups
from ..._numerics.inversion import invert_delta_to_epsilon
from ..._numerics.rounding import MACHINE_EPSILON
from ...mechanisms import ApproxDP, PureDP
from ...representations import eps_delta_pair, privacy_profile
from .formulas import as_written, upper_reading

Profile = Callable[[float], float]

#: at most this many distinct profile-only mechanisms get the per-mechanism split
_MAX_EQUAL_SPLIT_GROUPS = 20
_T = TypeVar("_T")
#: the 1-D search over the delta given to profile-only mechanisms uses levels 2^(n/64)
_LATTICE = 64  # lattice points per octave of delta levels
_LATTICE_MIN = -_LATTICE * 1074  # 2^-1074, the smallest positive double
#: relative precision of the profile inversions inside the search (any point found is
#: valid: the delta used is the profile's value at the epsilon found)
_SEARCH_TOL = 1e-9


@dataclass(frozen=True)
class _Parts:
    fixed: tuple[tuple[float, float, int], ...]  # (eps, delta, count) with own pair
    profiled: tuple[tuple[Profile, int], ...]    # (profile, count), profile-only mechanisms
    k_total: int
    infinite_loss_mass: float  # certified upper bound on delta(inf) of the composition
    #: the fixed pairs as exact rationals for sums: for PureDP/ApproxDP (parameters a user
    #: states) the larger of the double and the decimal written (formulas.upper_reading),
    #: for derived pairs the exact double (already rounded to the safe side)
    written: tuple[tuple[Fraction, Fraction, int], ...] = ()
    #: the decimals written, for displays, when every fixed pair is stated (else None)
    decimal: tuple[tuple[Fraction, Fraction, int], ...] | None = None
    cache: dict = field(default_factory=dict, compare=False, repr=False)

    @property
    def nonprivate(self) -> bool:
        return any(math.isinf(e) for e, _, _ in self.fixed)

    @property
    def fixed_delta(self) -> Fraction:
        return _cached(self, ("fixed_delta",),
                       lambda: sum((c * Fraction(d) for _, d, c in self.fixed), Fraction(0)))

    @property
    def written_sums(self) -> tuple[Fraction, Fraction]:
        """(sum of epsilons, sum of deltas) of :attr:`written`, exact (computed once: every query reads them)."""
        def sums() -> tuple[Fraction, Fraction]:
            return (sum((c * e for e, _, c in self.written), Fraction(0)),
                    sum((c * d for _, d, c in self.written), Fraction(0)))
        return _cached(self, ("written_sums",), sums)  # type: ignore[return-value]

    @property
    def fixed_eps_max(self) -> float:
        return max((e for e, _, _ in self.fixed), default=0.0)

    @property
    def fixed_delta_max(self) -> float:
        return max((d for _, d, _ in self.fixed), default=0.0)


def _parts(groups: Groups) -> _Parts:
    fixed: list[tuple[float, float, int]] = []
    profiled: list[tuple[Profile, int]] = []
    written: list[tuple[Fraction, Fraction, int]] = []
    decimal: list[tuple[Fraction, Fraction, int]] | None = []
    for m, k in groups:
        pair = eps_delta_pair(m)
        if pair is None:
            profiled.append((privacy_profile(m), k))
        else:
            e, d = float(pair[0]), float(pair[1])
            fixed.append((e, d, k))
            stated = type(m) in (PureDP, ApproxDP) and math.isfinite(e)
            exact = upper_reading if stated else Fraction
            written.append((exact(e) if math.isfinite(e) else Fraction(0), exact(d), k))
            if stated and decimal is not None:
                decimal.append((as_written(e), as_written(d), k))
            else:
                decimal = None
    return _Parts(tuple(fixed), tuple(profiled), sum(k for _, k in groups),
                  _infinite_loss_mass(groups), tuple(written),
                  None if decimal is None else tuple(decimal))


def _infinite_loss_mass(groups: Groups) -> float:
    r"""Certified upper bound on the probability of infinite privacy loss, delta(inf).

    Mechanism :math:`i` has infinite loss with probability at most
    :math:`u_i = \delta_i(\infty)` (its privacy profile at infinity: :math:`\delta_i` for
    (eps_i, delta_i)-DP, 0 for Laplace and Gaussian); under adaptive composition each
    step, whatever came before, avoids it with probability at least :math:`1 - u_i`, so
    the composition has infinite loss with probability at most
    :math:`1 - \prod_i (1 - u_i)^{k_i}`. Computed as
    :math:`-\mathrm{expm1}(\sum_i k_i \mathrm{log1p}(-u_i))` with the sum pushed away
    from 0 by 16 ulps per term and the result raised by 4 ulps (their rounding errors).
    """
    terms = []
    for m, k in groups:
        u = float(privacy_profile(m)(math.inf))
        if u >= 1.0:
            return 1.0
        if u > 0.0:
            terms.append(k * math.log1p(-u))
    if not terms:
        return 0.0
    s = math.fsum(terms) * (1.0 + 16.0 * len(terms) * MACHINE_EPSILON)
    return min(1.0, -math.expm1(s) * (1.0 + 4.0 * MACHINE_EPSILON))


def _summed(profiled: Sequence[tuple[Profile, int]]) -> Profile:
    return lambda e: math.fsum(k * p(e) for p, k in profiled)


def _maxed(profiled: Sequence[tuple[Profile, int]]) -> Profile:
    return lambda e: max(p(e) for p, _ in profiled)


def _allocations(profiled: Sequence[tuple[Profile, int]], budget: float) -> list[list[tuple[float, float, int]]]:
    """Candidate points ``[(e_j, delta_j, k_j)]`` with ``sum_j k_j delta_j <= budget``.

    Two families: one common e (the smallest with the summed profile within budget), and
    (for few groups) an equal delta per mechanism. Empty when no point fits.
    """
    if budget <= 0.0 or not profiled:
        return []
    budget *= 1.0 - 1e-12  # margin for the rounding of the sum of k_j * delta_j
    out = []
    e = invert_delta_to_epsilon(_summed(profiled), budget, side="upper", rel_tol=_SEARCH_TOL)
    if math.isfinite(e):
        out.append([(e, p(e), k) for p, k in profiled])
    if 1 < len(profiled) <= _MAX_EQUAL_SPLIT_GROUPS:
        n = sum(k for _, k in profiled)
        per = budget / n
        pts = []
        for p, k in profiled:
            ej = invert_delta_to_epsilon(p, per, side="upper", rel_tol=_SEARCH_TOL)
            if not math.isfinite(ej):
                break
            pts.append((ej, p(ej), k))
        else:
            out.append(pts)
    return out


def _level(n: int) -> float:
    """The n-th point of the lattice of delta levels, 2^(n/_LATTICE)."""
    return 2.0 ** (n / _LATTICE)


def _lattice_min(top: float, value: Callable[[int], float],
                 bound: Callable[[int, int], float]) -> float:
    """The exact minimum of an objective over the lattice levels in (0, top).

    ``value(n)`` is the objective at the lattice level ``2^(n/_LATTICE)``;
    ``bound(lo, hi)`` is a lower bound on it at every lattice index in ``[lo, hi]``.
    Branch and bound over dyadic blocks of indices (aligned to the bottom of the
    lattice, 2^-1074, so that the points evaluated, and the allocations cached for them,
    do not depend on ``top``): the block with the smallest bound is split and each half's
    top point evaluated, until no block's bound is below the best value. The answer is
    therefore the exact minimum over the fixed set of lattice levels below ``top``, so it
    is non-increasing in ``top`` whenever the objective at each fixed level is: the query
    laws of the theorem methods rest on this (see :mod:`dpcompose.guarantee`). Every value
    returned is one the objective produced, so a valid bound stays valid.
    """
    if not top > 0.0:
        return math.inf
    n_top = math.floor(_LATTICE * math.log2(top))
    while n_top >= _LATTICE_MIN and _level(n_top) >= top:
        n_top -= 1
    while _level(n_top + 1) < top:
        n_top += 1
    if n_top < _LATTICE_MIN:
        return math.inf
    last = n_top - _LATTICE_MIN  # offsets 0..last
    best = value(n_top)
    heap = [(bound(_LATTICE_MIN, n_top), 0, last.bit_length())]  # (bound, start, log2 size)
    while heap:
        b, start, size = heapq.heappop(heap)
        if b >= best:
            break  # every remaining block is bounded below by the best value
        half = 1 << (size - 1)
        for child in (start, start + half):
            if child > last:
                continue
            lo, hi = _LATTICE_MIN + child, _LATTICE_MIN + min(child + half - 1, last)
            best = min(best, value(hi))
            if lo < hi:
                cb = bound(lo, hi)
                if cb < best:
                    heapq.heappush(heap, (cb, child, size - 1))
    return best


def _cached(parts: "_Parts", key: tuple, make: Callable[[], _T]) -> _T:
    """Per-input cache of allocations on lattice levels (they do not depend on the query)."""
    if key not in parts.cache:
        parts.cache[key] = make()
    return parts.cache[key]
