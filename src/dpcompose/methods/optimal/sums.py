r"""Certified evaluation of a sorted, finitely supported privacy-loss distribution (no numpy).

:class:`_LossSums` holds the losses :math:`L_s` (sorted non-increasing, stored negated in
``negL``), their log P-masses ``lp`` and the prefix sums
:math:`\log A_m = \log\sum_{s<m} P_s`, :math:`\log B_m = \log\sum_{s<m} P_s e^{-L_s}` with
a relative error bound :math:`\rho_m` for both; ``upper(x)``/``lower(x)`` bracket
:math:`\sum_s P_s (1 - e^{x - L_s})_+ = A_m - e^x B_m` (m = the number of losses above x)
plus ``tail`` (mass whose loss is unknown, counted as infinite loss in ``upper``).

Two subclasses build the sums: :class:`~.lossdist._LossDist` from numpy arrays (exact
enumeration, the lattice), and :class:`~.window._WindowSums` in pure Python for one
binomial window (the first ``optimal`` query needs no numpy, issue 14). The evaluation
here only indexes the stored sequences, so it serves both.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Callable, Sequence

from ..._numerics.rounding import UNIT_ROUNDOFF, nudge_up

__all__ = ["_LossSums", "_max_loss"]


def _max_loss(groups: Sequence[tuple[float, int]]) -> tuple[float, float]:
    """(certified upper bound on every loss, bound on the rounding of computed losses)."""
    max_loss = sum(c * e for e, c in groups) * (1.0 + 8.0 * UNIT_ROUNDOFF * (len(groups) + 1))
    loss_err = 2.0 * UNIT_ROUNDOFF * (len(groups) + 1) * max_loss  # one rounding per product and per sum
    return max_loss, loss_err


class _LossSums:
    r"""Evaluation of :math:`\sum_s P_s (1 - e^{x - L_s})_+` from stored prefix sums.

    A subclass sets ``negL`` (ascending), ``lp``, ``logA``, ``logB`` (indexable, length
    ``size``), ``orig`` (the index passed to ``exact_loss``), ``tol`` (a bound on
    |computed loss - exact loss| plus rounding), ``max_loss``, ``tail``, ``abs_err``,
    ``exact_loss`` and implements :meth:`_rho` and :meth:`_count_above`/:meth:`_count_at_least`.
    """

    # indexable by int (numpy arrays in _LossDist, computed-on-demand sequences in _WindowSums)
    negL: Any
    lp: Any
    logA: Any
    logB: Any
    orig: Any
    tol: float
    max_loss: float
    tail: float
    abs_err: float
    size: int
    exact_loss: Callable[[int], Fraction] | None

    def _rho(self, i: int) -> float:
        """The relative error bound of A_{i+1} and B_{i+1}."""
        raise NotImplementedError

    def _count_above(self, x: float) -> int:
        """The number of stored losses > x (searchsorted left on ``negL``)."""
        raise NotImplementedError

    def _count_at_least(self, x: float) -> int:
        """The number of stored losses >= x (searchsorted right on ``negL``)."""
        raise NotImplementedError

    # -- evaluation ------------------------------------------------------------
    def _A(self, m: int) -> float:
        return math.exp(self.logA[m - 1]) if m > 0 else 0.0

    def _D(self, m: int, x: float) -> tuple[float, float, float]:
        """(A_m - e^x B_m, A_m, relative error bound of A_m and B_m), m = number of terms."""
        if m == 0:
            return 0.0, 0.0, 0.0
        la, lb = float(self.logA[m - 1]), float(self.logB[m - 1])
        a = math.exp(la)
        r = min(0.0, lb + x - la)
        # the rounding of lb + x - la is a relative error u (|lb| + |x| + |la|) of e^x B
        rho = self._rho(m - 1) + 4.0 * UNIT_ROUNDOFF * (abs(lb) + abs(x) + abs(la) + 1.0)
        return a * -math.expm1(r), a, rho

    def _parts(self, x: float) -> tuple[float, float, float, float, float]:
        """(D over the surely positive terms, their mass, its relative error, exact boundary terms, unresolved bound).

        Terms whose computed loss is within ``tol`` of x are resolved with the exact
        (rational) loss when known, otherwise bounded by ``2 tol`` times their mass.
        """
        m_sure = self._count_above(x + self.tol)
        m_maybe = self._count_above(x - self.tol)
        d, a, rho = self._D(m_sure, x)
        boundary, unresolved = 0.0, 0.0
        if m_maybe > m_sure:
            if self.exact_loss is not None and m_maybe - m_sure <= 64:
                fx = Fraction(x)
                for s in range(m_sure, m_maybe):
                    gap = self.exact_loss(int(self.orig[s])) - fx
                    if gap > 0:
                        boundary += math.exp(self.lp[s]) * -math.expm1(-float(gap))
            else:
                unresolved = 2.0 * self.tol * self._A(m_maybe)
        return d, a, rho, boundary, unresolved

    def upper(self, x: float) -> float:
        if x >= self.max_loss:
            return 0.0
        d, a, rho, bd, unres = self._parts(x)
        up = d + 2.0 * rho * a + bd * (1.0 + rho + 8.0 * UNIT_ROUNDOFF) + unres
        up += self.tail + self.abs_err
        if a > 0.0 or bd > 0.0 or unres > 0.0:
            up += 1e-322  # covers underflow of the terms
        return up

    def lower(self, x: float) -> float:
        if x >= self.max_loss:
            return 0.0
        d, a, rho, bd, _ = self._parts(x)
        return max(0.0, d - 2.0 * rho * a + bd * (1.0 - rho - 8.0 * UNIT_ROUNDOFF) - self.abs_err)

    def epsilon_upper(self, t: float) -> float:
        """A loss threshold x with ``upper(x) <= t`` near the smallest such (inf if none)."""
        if t < 0.0:
            return math.inf
        if self.upper(0.0) <= t:
            return 0.0
        if self.tail + self.abs_err > t:
            # the truncated tail's loss is unknown but never above max_loss, where upper()
            # is 0: pure-DP composition is (sum of epsilons, 0)-DP, not (inf, 0)
            return self.max_loss
        negL = self.negL
        n = self.size
        # upper(L[j]) is non-decreasing in j; find the largest j with upper(L[j]) <= t
        lo_j, hi_j = -1, n  # upper(L[lo_j]) <= t (or lo_j = -1), upper(L[hi_j]) > t (or n)
        while hi_j - lo_j > 1:
            mid = (lo_j + hi_j) // 2
            L_mid = -float(negL[mid])
            if L_mid < 0.0 or self.upper(L_mid) > t:
                hi_j = mid
            else:
                lo_j = mid
        if lo_j == -1:
            start, passing = (-float(negL[0]) if n else 0.0), self.max_loss
            cand = start
        else:
            passing = -float(negL[lo_j])
            m = self._count_at_least(passing)
            nxt = -float(negL[m]) if m < n else 0.0
            start = max(0.0, nxt)
            a = self._A(m)
            c = 2.0 * self._rho(m - 1) * a + self.tail + self.abs_err + 1e-322 if m else 0.0
            num = a + c - t
            if num <= 0.0 or m == 0:
                cand = start
            else:
                cand = math.log(num) - float(self.logB[m - 1])
                cand = min(max(cand, start), passing)
        # the closed-form estimate may sit a few roundings on the failing side: step up
        # from it by 4u of its magnitude, doubling
        return nudge_up(self.upper, cand, t, passing, max(abs(cand), 1.0) * 4.0 * UNIT_ROUNDOFF)
