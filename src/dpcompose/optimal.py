r"""Optimal composition of (epsilon, delta)-DP mechanisms: method ``"optimal"``.

The question answered here: given only that mechanism :math:`i` is
:math:`(\varepsilon_i, \delta_i)`-DP, what is the smallest :math:`\delta'` such that
*every* composition of such mechanisms is :math:`(\varepsilon', \delta')`-DP?

The answer is the privacy profile of the composition of the class's worst cases. The
worst case of :math:`(\varepsilon, \delta)`-DP is randomized response with an extra atom
of mass :math:`\delta` on which the privacy loss is infinite (Kairouz, Oh and
Viswanath), so

.. math::

   \delta'(\varepsilon') = 1 - \prod_i (1 - \delta_i)\,\bigl(1 - \delta_{RR}(\varepsilon')\bigr),
   \qquad
   \delta_{RR}(\varepsilon') = H_{e^{\varepsilon'}}\Bigl(\textstyle\bigotimes_i P_i \,\Big\|\, \bigotimes_i Q_i\Bigr),

where :math:`(P_i, Q_i)` is binary randomized response with parameter
:math:`\varepsilon_i` and :math:`H_\gamma(P\|Q) = \sum (P - \gamma Q)_+`. Writing
:math:`L` for the privacy loss of the product under :math:`P`,
:math:`\delta_{RR}(\varepsilon') = E_P[(1 - e^{\varepsilon' - L})_+]`.

Three computations, chosen automatically:

1. **k identical mechanisms** (one group): the Kairouz-Oh-Viswanath closed form,
   :math:`\delta_{RR}(\varepsilon') = \sum_{l} \binom{k}{l} [e^{(k-l)\varepsilon} - e^{\varepsilon'} e^{l\varepsilon}]_+ / (1+e^{\varepsilon})^k`,
   evaluated for *every* :math:`\varepsilon' \ge 0` (not only the grid points
   :math:`(k - 2i)\varepsilon` of the theorem). On each interval between grid points it
   is :math:`A_m - e^{\varepsilon'} B_m` with prefix sums :math:`A_m, B_m` computed once
   in log space, so ``delta(eps)`` is O(log k) and ``epsilon(delta)`` is a binary search
   plus a closed-form solve. The binomial is restricted to a window outside which a
   Chernoff bound puts less than :math:`e^{-790}` of the mass; that mass is counted
   as extra delta (5e-324, the smallest double), so k up to about 10^11 works, k = 10^9
   in well under a second.
2. **A few groups of equal** :math:`\varepsilon_i` (whose windowed binomial supports
   multiply to at most ``max_exact_support`` outcomes): the exact distribution of
   :math:`L` by enumerating the product of the groups' binomials in log space, then the
   same prefix-sum machinery. This is the exact optimal composition of Murtagh and
   Vadhan for small k or few distinct epsilons. When one group is large (say k = 10^9)
   and the others together have at most :data:`MIXED_SMALL_SUPPORT` outcomes (and at
   most ``max_exact_support``), the large group keeps its prefix sums and the small
   outcomes are summed over on the fly, :math:`\sum_o P_o D_{big}(\varepsilon' - L_o)`
   (path ``"exact-mixed"``; ``epsilon(delta)`` by certified bisection).
3. **Many distinct** :math:`\varepsilon_i`: computing the exact optimum is #P-complete
   in general (Murtagh and Vadhan), so we return a certified bracket. Each loss value
   :math:`\pm\varepsilon_i` is rounded *up* to a grid of step :math:`\eta` for the upper
   bound and *down* for the lower bound, with the true probabilities kept; since
   :math:`\ell \mapsto (1 - e^{\varepsilon' - \ell})_+` is non-decreasing, the
   pointwise coupling gives lower <= exact <= upper. The rounded losses live on the
   integer lattice :math:`\eta\mathbb{Z}` and are composed exactly by direct
   convolution (shift-and-add of non-negative numbers in float64; no FFT, so relative
   error stays below :math:`2uk` and deep tails survive down to underflow, whose total
   effect is bounded absolutely and added). Rounding moves every outcome's loss by
   less than :math:`\eta` per mechanism between the two, so
   :math:`\delta_{up}(\varepsilon' + k\eta) \le \delta_{low}(\varepsilon')` and
   ``epsilon_upper - epsilon_lower <= k * eta = error`` (plus floating-point slack,
   relatively about 1e-6 of it). Murtagh and Vadhan's polynomial-time approximation
   algorithm (a modification of Dyer's dynamic program for counting knapsack
   solutions) also discretizes the :math:`\varepsilon_i` and counts by dynamic
   programming; we chose this coupling form because the same computation rounded the
   other way gives the matching certified lower bound, and the direct convolution
   keeps the error analysis elementary.
   ``error`` defaults to :data:`DEFAULT_ERROR` (1e-3) when that costs at most
   :data:`LATTICE_WORK_LIMIT` lattice updates, else the finest affordable grid; the
   width reached is in ``g.provenance["error"]``. More than :data:`LATTICE_MAX_K`
   mechanisms (or two large groups whose product is too big to enumerate) are refused
   with a pointer to ``method="pld"``.

Floating-point error is bounded and added on the safe side: every prefix sum carries
a relative error bound :math:`\rho_m` (the log-masses: Loader's saddle-point form of the
binomial, ``stirlerr`` and ``bd0``, for k >= 64, so the error is a few ulps of the
log-mass's own size rather than of :math:`\log k!`; ``logaddexp.accumulate``:
u (|result| + 4) per step, summed),
:math:`A_m - e^{\varepsilon'}B_m` is widened by :math:`2\rho_m A_m`, and the few
outcomes whose computed loss lies within rounding of :math:`\varepsilon'` are resolved
with their exact rational loss (``fractions.Fraction``), so the value at the grid
points themselves is exact too. ``epsilon(delta)`` returns a value at which the
certified ``delta`` was evaluated and passed.

Size limits: one group of k identical mechanisms up to a binomial window of
:data:`MAX_WINDOW` terms (k up to about 1.5e11 at small epsilon; k = 10^9 takes about
a second, k = 10^6 milliseconds); above that a clear MethodNotApplicableError.
"""

from __future__ import annotations

import functools
import math
from fractions import Fraction
from typing import Any, Callable, Iterable, Sequence

import numpy as np
from scipy.special import expit, gammaln

from ._numerics.binomial import LOADER_MIN_N, chernoff_window, log_binom_pmf
from ._numerics.inversion import invert_delta_to_epsilon
from ._numerics.rounding import SMALLEST_SUBNORMAL, UNIT_ROUNDOFF, nudge_up
from ._validation import check_count, check_delta, check_epsilon, check_positive
from .compose import register_method
from .errors import InvalidParameterError, MethodNotApplicableError
from .guarantee import Guarantee
from .mechanisms import describe
from .representations import eps_delta_pair, is_class_worst_case

__all__ = [
    "optimal_composition",
    "kov_delta",
    "kov_epsilon",
    "DEFAULT_MAX_EXACT_SUPPORT",
    "LATTICE_WORK_LIMIT",
    "LATTICE_MAX_K",
    "DEFAULT_ERROR",
    "MAX_WINDOW",
    "MIXED_SMALL_SUPPORT",
]

#: Chernoff exponent of the binomial window: the mass left out is <= 2 e^{-T} per group
_TAIL_EXPONENT = 800.0
#: the largest number of outcomes enumerated exactly (product of windowed supports)
DEFAULT_MAX_EXACT_SUPPORT = 2**21
#: the most outcomes of the smaller groups combined on the fly with one large group
MIXED_SMALL_SUPPORT = 2**15
#: the largest binomial window for one group (about k = 1.5e11 at p = 1/2)
MAX_WINDOW = 2**25
#: lattice updates allowed for the heterogeneous approximation (about a second or two)
LATTICE_WORK_LIMIT = 6e8
#: default target width of the heterogeneous bracket (epsilon_upper - epsilon_lower)
DEFAULT_ERROR = 1e-3
#: the most mechanisms the lattice bracket takes (its work grows at least like k^2)
LATTICE_MAX_K = 20000


# ---------------------------------------------------------------------------
# the privacy-loss distribution with certified evaluation


class _LossDist:
    r"""A finitely supported privacy-loss distribution under :math:`P`, evaluated safely.

    ``upper(x)`` and ``lower(x)`` bracket :math:`\sum_s P_s (1 - e^{x - L_s})_+` plus
    ``tail`` (mass whose loss is unknown, counted as infinite loss in ``upper``).
    """

    __slots__ = ("negL", "lp", "orig", "logA", "logB", "rho", "tol", "tail", "abs_err",
                 "max_loss", "size", "exact_loss")

    def __init__(self, losses: np.ndarray, logp: np.ndarray, *, max_loss: float, tail: float,
                 log_err: float, loss_err: float, abs_err: float = 0.0,
                 exact_loss: Callable[[int], Fraction] | None = None,
                 keep_above: float = 0.0) -> None:
        self.max_loss = float(max_loss)
        # |computed loss - exact loss| <= loss_err; the comparison with x is exact
        self.tol = float(loss_err) + 2.0 * UNIT_ROUNDOFF * (self.max_loss + 1.0)
        finite = np.isfinite(logp)
        # only losses above the smallest threshold ever queried can contribute
        keep = np.flatnonzero(finite & (losses > keep_above - self.tol))
        losses, logp = losses[keep], logp[keep]
        order = np.argsort(-losses, kind="stable")
        L = losses[order]
        self.lp = logp[order]
        self.orig = keep[order]
        self.exact_loss = exact_loss
        self.size = int(L.size)
        self.negL = -L
        lq = self.lp - L
        self.logA = np.logaddexp.accumulate(self.lp) if L.size else self.lp
        self.logB = np.logaddexp.accumulate(lq) if L.size else lq
        # Relative error bound of A_m and B_m (index m - 1). Each term's log carries
        # log_err (+ loss_err and one rounding for log Q = log P - L); each step of
        # logaddexp.accumulate adds at most u (|result| + 4) in the log domain.
        term_err = log_err + loss_err + 2.0 * UNIT_ROUNDOFF * (float(np.max(np.abs(lq))) if L.size else 0.0)
        steps = np.cumsum(np.abs(self.logA) + np.abs(self.logB) + 8.0) * UNIT_ROUNDOFF if L.size else lq
        with np.errstate(over="ignore"):
            self.rho = np.expm1(term_err + steps) * 1.01 + 4.0 * UNIT_ROUNDOFF
        if not np.all(np.isfinite(self.rho)):
            # the masses' rounding cannot be bounded (losses near the double range)
            raise MethodNotApplicableError(
                f"method 'optimal': losses up to {max_loss:.3g} are too large to bound the "
                f"rounding of the composed masses; use method='simple' (the sum of epsilons) "
                f"or 'pld'.")
        self.tail = float(tail)
        self.abs_err = float(abs_err)

    # -- evaluation ------------------------------------------------------------
    def _count_above(self, x: float) -> int:
        return int(np.searchsorted(self.negL, -x, side="left"))

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
        rho = float(self.rho[m - 1]) + 4.0 * UNIT_ROUNDOFF * (abs(lb) + abs(x) + abs(la) + 1.0)
        return a * -math.expm1(r), a, rho

    def _parts(self, x: float) -> tuple[float, float, float, float]:
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

    def _many(self, ys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Vectorized (D, A, rho, unresolved) at thresholds ys (boundary terms bounded)."""
        m_sure = np.searchsorted(self.negL, -(ys + self.tol), side="left")
        m_maybe = np.searchsorted(self.negL, -(ys - self.tol), side="left")
        has = m_sure > 0
        idx = np.maximum(m_sure - 1, 0)
        if self.size == 0:
            z = np.zeros_like(ys)
            return z, z, z, z
        la = np.where(has, self.logA[idx], -np.inf)
        lb = np.where(has, self.logB[idx], -np.inf)
        a = np.exp(la)
        with np.errstate(invalid="ignore"):
            r = np.where(has, np.minimum(0.0, lb + ys - la), 0.0)
        d = np.where(has, a * -np.expm1(r), 0.0)
        rho = np.where(has, self.rho[idx] + 4.0 * UNIT_ROUNDOFF * (np.abs(np.where(has, lb, 0.0))
                                                        + np.abs(ys) + np.abs(np.where(has, la, 0.0)) + 1.0), 0.0)
        amaybe = np.where(m_maybe > 0, np.exp(self.logA[np.maximum(m_maybe - 1, 0)]), 0.0)
        unres = np.where(m_maybe > m_sure, 2.0 * self.tol * amaybe, 0.0)
        return d, a, rho, unres

    def upper_many(self, ys: np.ndarray) -> np.ndarray:
        d, a, rho, unres = self._many(ys)
        up = d + 2.0 * rho * a + unres + self.tail + self.abs_err
        up = up + np.where((a > 0) | (unres > 0), 1e-322, 0.0)
        return np.where(ys >= self.max_loss, 0.0, up)

    def lower_many(self, ys: np.ndarray) -> np.ndarray:
        d, a, rho, _ = self._many(ys)
        lo = np.maximum(0.0, d - 2.0 * rho * a - self.abs_err)
        return np.where(ys >= self.max_loss, 0.0, lo)

    def mass_above(self, ys: np.ndarray) -> np.ndarray:
        """Upper bound on the P-mass of losses > ys (used for the Lipschitz slack)."""
        m = np.searchsorted(self.negL, -(ys - self.tol), side="left")
        mass = np.where(m > 0, np.exp(self.logA[np.maximum(m - 1, 0)]), 0.0) if self.size else 0.0 * ys
        return mass * (1.0 + self.rho[-1] if self.size else 1.0) + self.tail

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
        L = -self.negL
        n = L.size
        # upper(L[j]) is non-decreasing in j; find the largest j with upper(L[j]) <= t
        lo_j, hi_j = -1, n  # upper(L[lo_j]) <= t (or lo_j = -1), upper(L[hi_j]) > t (or n)
        while hi_j - lo_j > 1:
            mid = (lo_j + hi_j) // 2
            if L[mid] < 0.0 or self.upper(float(L[mid])) > t:
                hi_j = mid
            else:
                lo_j = mid
        if lo_j == -1:
            start, passing = (float(L[0]) if n else 0.0), self.max_loss
            cand = start
        else:
            passing = float(L[lo_j])
            m = self._count_above(passing - 0.0) + int(np.count_nonzero(L == L[lo_j]))
            nxt = float(L[m]) if m < n else 0.0
            start = max(0.0, nxt)
            a = self._A(m)
            c = 2.0 * float(self.rho[m - 1]) * a + self.tail + self.abs_err + 1e-322 if m else 0.0
            num = a + c - t
            if num <= 0.0 or m == 0:
                cand = start
            else:
                cand = math.log(num) - float(self.logB[m - 1])
                cand = min(max(cand, start), passing)
        # the closed-form estimate may sit a few roundings on the failing side: step up
        # from it by 4u of its magnitude, doubling
        return nudge_up(self.upper, cand, t, passing, max(abs(cand), 1.0) * 4.0 * UNIT_ROUNDOFF)


# ---------------------------------------------------------------------------
# building blocks: binomial windows, exact enumeration, lattice


class _Binomial:
    """The windowed loss distribution of c-fold eps-randomized response (under P)."""

    __slots__ = ("eps", "c", "lo", "hi", "truncated")

    def __init__(self, eps: float, c: int) -> None:
        self.eps, self.c = eps, c
        q = float(expit(-eps))
        self.lo, self.hi = chernoff_window(c, q, _TAIL_EXPONENT)
        self.truncated = self.lo > 0 or self.hi < c

    @property
    def size(self) -> int:
        return self.hi - self.lo + 1

    def arrays(self) -> tuple[np.ndarray, np.ndarray, float]:
        """(losses, log P-mass, bound on the absolute error of the log-masses)."""
        eps, c = self.eps, self.c
        log_p = -float(np.logaddexp(0.0, -eps))  # log(e^eps / (1 + e^eps))
        log_q = -float(np.logaddexp(0.0, eps))   # log(1 / (1 + e^eps))
        l = np.arange(self.lo, self.hi + 1, dtype=np.float64)
        losses = (c - 2.0 * l) * eps
        if c < LOADER_MIN_N:
            g = float(gammaln(c + 1.0))
            logp = g - gammaln(l + 1.0) - gammaln(c - l + 1.0) + (c - l) * log_p + l * log_q
            log_err = 16.0 * UNIT_ROUNDOFF * (3.0 * g + c * (abs(log_p) + abs(log_q)) + 16.0)
        else:
            logp, log_err = log_binom_pmf(c, l, float(expit(-eps)), float(expit(eps)),
                                          log_p, log_q)
        return losses, logp, log_err


def _enumerate(bins: Sequence[_Binomial]) -> tuple[np.ndarray, np.ndarray, float, float]:
    """(losses, log P-masses, log error bound, tail mass) of the product of the windows."""
    losses = np.zeros(1)
    logp = np.zeros(1)
    log_err = 0.0
    tail = 0.0
    for b in bins:
        lb, pb, err = b.arrays()
        losses = (losses[:, None] + lb[None, :]).ravel()
        logp = (logp[:, None] + pb[None, :]).ravel()
        log_err += err
        if b.truncated:
            tail += SMALLEST_SUBNORMAL  # <= 2 e^{-790} of P-mass, counted as infinite loss
    return losses, logp, log_err, tail


def _max_loss(groups: Sequence[tuple[float, int]]) -> tuple[float, float]:
    """(certified upper bound on every loss, bound on the rounding of computed losses)."""
    max_loss = sum(c * e for e, c in groups) * (1.0 + 8.0 * UNIT_ROUNDOFF * (len(groups) + 1))
    loss_err = 2.0 * UNIT_ROUNDOFF * (len(groups) + 1) * max_loss  # one rounding per product and per sum
    return max_loss, loss_err


def _exact_dist(groups: Sequence[tuple[float, int]], bins: Sequence[_Binomial],
                keep_above: float = 0.0) -> _LossDist:
    """Exact enumeration of the product of the groups' (windowed) binomials."""
    losses, logp, log_err, tail = _enumerate(bins)
    max_loss, loss_err = _max_loss(groups)
    sizes = tuple(b.size for b in bins)
    exact_eps = [Fraction(b.eps) for b in bins]

    def exact_loss(r: int) -> Fraction:
        idx = np.unravel_index(r, sizes)
        return sum(((b.c - 2 * (b.lo + int(i))) * fe for b, i, fe in zip(bins, idx, exact_eps)),
                   Fraction(0))

    return _LossDist(losses, logp, max_loss=max_loss, tail=tail, log_err=log_err,
                     loss_err=loss_err, exact_loss=exact_loss, keep_above=keep_above)


class _MixedDist:
    r"""One large group (prefix sums) composed on the fly with a small enumerated rest.

    :math:`\delta_{RR}(x) = \sum_o P_o\, D_{big}(x - L_o)` over the outcomes o of the
    small groups. Each :math:`D_{big}` value is certified; the rounding of
    :math:`x - L_o` is covered by the Lipschitz bound
    :math:`|D_{big}(y) - D_{big}(y')| \le |y - y'|\, P_{big}(L > \min(y, y'))`.
    """

    def __init__(self, big_groups, big_bins, small_groups, small_bins) -> None:
        s_losses, s_logp, s_log_err, s_tail = _enumerate(small_bins)
        s_max, s_loss_err = _max_loss(small_groups)
        self.big = _exact_dist(big_groups, big_bins, keep_above=-s_max)
        keep = np.isfinite(s_logp)
        self.sL = s_losses[keep]
        self.sP = np.exp(s_logp[keep])
        self.s_rho = math.expm1(s_log_err + 4.0 * UNIT_ROUNDOFF * (self.sL.size + 2)) * 1.01 + 4.0 * UNIT_ROUNDOFF
        self.s_tail = s_tail
        self.shift_err = s_loss_err + 4.0 * UNIT_ROUNDOFF * (s_max + self.big.max_loss + 1.0)
        self.max_loss = self.big.max_loss + s_max
        self.size = self.big.size * self.sL.size

    def upper(self, x: float) -> float:
        if x >= self.max_loss:
            return 0.0
        ys = x - self.sL
        vals = self.big.upper_many(ys) + self.shift_err * self.big.mass_above(ys - self.shift_err)
        total = math.fsum(self.sP * vals) * (1.0 + self.s_rho + 4.0 * UNIT_ROUNDOFF * self.sL.size)
        return total + self.s_tail

    def lower(self, x: float) -> float:
        if x >= self.max_loss:
            return 0.0
        ys = x - self.sL
        vals = np.maximum(0.0, self.big.lower_many(ys)
                          - self.shift_err * self.big.mass_above(ys - self.shift_err))
        return max(0.0, math.fsum(self.sP * vals) * (1.0 - self.s_rho - 4.0 * UNIT_ROUNDOFF * self.sL.size))

    def epsilon_upper(self, t: float) -> float:
        return invert_delta_to_epsilon(self.upper, t, side="upper")


def _grid_steps(eps: float, eta: float) -> tuple[int, int]:
    """(floor, ceil) of eps / eta, checked so that floor * eta <= eps <= ceil * eta."""
    r = eps / eta
    fl, ce = int(math.floor(r)), int(math.ceil(r))
    fe, feta = Fraction(eps), Fraction(eta)  # exact comparisons of the lattice points
    while fl > 0 and fl * feta > fe:
        fl -= 1
    while ce * feta < fe:
        ce += 1
    return fl, ce


def _lattice_plan(groups: Sequence[tuple[float, int]], eta: float, upper: bool):
    """The per-group shifts of the lattice convolution and its exact number of updates."""
    steps = []
    for eps, c in groups:
        fl, ce = _grid_steps(eps, eta)
        plus, minus = (ce, fl) if upper else (fl, ce)
        steps.append((plus, minus, c, float(expit(eps)), float(expit(-eps))))
    tot_plus = sum(c * p for p, _, c, _, _ in steps)
    tot_minus = sum(c * m for _, m, c, _, _ in steps)
    # replay the window arithmetic of _lattice_dist (no arrays) to count the work
    lo = hi = offset = tot_minus
    remaining = tot_plus
    work = 0
    for plus, minus, c, _, _ in steps:
        for _ in range(c):
            lo -= minus
            hi += plus
            remaining -= plus
            work += hi - lo + 1
            keep_from = offset - remaining + 1
            if keep_from > lo:
                lo = min(keep_from, hi)
    return steps, tot_plus, tot_minus, work


def _lattice_work(groups: Sequence[tuple[float, int]], eta: float) -> float:
    return float(_lattice_plan(groups, eta, True)[3] + _lattice_plan(groups, eta, False)[3])


def _lattice_dist(groups: Sequence[tuple[float, int]], eta: float, upper: bool) -> _LossDist:
    r"""Losses :math:`\pm\varepsilon_i` rounded up (``upper``) or down to :math:`\eta\mathbb{Z}`, composed exactly."""
    steps, tot_plus, tot_minus, _ = _lattice_plan(groups, eta, upper)
    offset = tot_minus
    arr = np.zeros(tot_plus + tot_minus + 1)
    arr[offset] = 1.0
    lo = hi = offset
    remaining = tot_plus
    k = 0
    work = 0
    for plus, minus, c, p, q in steps:
        for _ in range(c):
            k += 1
            seg = arr[lo:hi + 1].copy()
            arr[lo:hi + 1] = 0.0
            arr[lo + plus:hi + plus + 1] += p * seg
            arr[lo - minus:hi - minus + 1] += q * seg
            lo -= minus
            hi += plus
            remaining -= plus
            work += hi - lo + 1
            # an entry whose loss cannot become positive any more never contributes
            keep_from = offset - remaining + 1
            if keep_from > lo:
                arr[lo:min(keep_from, hi + 1)] = 0.0
                lo = min(keep_from, hi)
    idx = np.arange(lo, hi + 1)
    vals = arr[lo:hi + 1]
    with np.errstate(divide="ignore"):
        logp = np.log(vals)
    losses = (idx - offset).astype(np.float64) * eta
    max_loss = (tot_plus * eta) * (1.0 + 8.0 * UNIT_ROUNDOFF)
    loss_err = 8.0 * UNIT_ROUNDOFF * (max_loss + sum(c * e for e, c in groups) + 1.0)
    # each step is a convex combination of non-negative numbers: <= 2 ulps per step
    log_err = 4.0 * UNIT_ROUNDOFF * (k + 2)
    # underflow (flush to subnormal / zero) loses at most 2^-1074 per operation
    abs_err = 4.0 * (work + arr.size) * SMALLEST_SUBNORMAL
    exact_eta = Fraction(eta)

    def exact_loss(r: int) -> Fraction:
        return (lo + r - offset) * exact_eta

    return _LossDist(losses, logp, max_loss=max_loss, tail=0.0, log_err=log_err,
                     loss_err=loss_err, abs_err=abs_err, exact_loss=exact_loss)


def _finest_step(groups: Sequence[tuple[float, int]]) -> float:
    """The smallest grid step (to ~10%) whose lattice work stays within the limit."""
    k = sum(c for _, c in groups)
    sum_eps = sum(c * e for e, c in groups)
    eta = 0.5 * 2.0 * k * sum_eps / LATTICE_WORK_LIMIT
    for _ in range(200):
        if _lattice_work(groups, eta) <= LATTICE_WORK_LIMIT:
            return eta
        eta *= 1.1
    return math.inf


def _choose_step(groups: Sequence[tuple[float, int]], error: float | None) -> float:
    """Grid step for the heterogeneous bracket (width <= k * step), or a clear refusal."""
    k = sum(c for _, c in groups)
    if k > LATTICE_MAX_K:
        raise MethodNotApplicableError(
            f"method 'optimal': {k} mechanisms with {len(groups)} distinct epsilons are too "
            f"many for an exact enumeration and for the certified lattice bracket (at most "
            f"{LATTICE_MAX_K} mechanisms); use method='pld', or group the mechanisms into "
            f"fewer distinct epsilons."
        )
    if error is None:
        # width DEFAULT_ERROR when cheap, else the finest grid within the work limit
        eta = DEFAULT_ERROR / k
        if _lattice_work(groups, eta) <= LATTICE_WORK_LIMIT:
            return eta
        eta = _finest_step(groups)
        if not math.isfinite(eta):
            raise MethodNotApplicableError(
                f"method 'optimal': no lattice for {k} mechanisms with {len(groups)} distinct "
                f"epsilons fits the work limit {LATTICE_WORK_LIMIT:.3g}; use method='pld'."
            )
        return eta
    eta = error / k
    if _lattice_work(groups, eta) > LATTICE_WORK_LIMIT:
        best = k * _finest_step(groups)
        if not math.isfinite(best):
            raise MethodNotApplicableError(
                f"method 'optimal': no lattice for {k} mechanisms with {len(groups)} distinct "
                f"epsilons fits the work limit {LATTICE_WORK_LIMIT:.3g}; use method='pld'."
            )
        raise MethodNotApplicableError(
            f"method 'optimal': a bracket of width error = {error!r} for {k} mechanisms with "
            f"{len(groups)} distinct epsilons needs more than {LATTICE_WORK_LIMIT:.3g} lattice "
            f"updates; pass error >= {best:.3g} (or error=None for the finest feasible), or "
            f"use method='pld'."
        )
    return eta


# ---------------------------------------------------------------------------
# the composition object behind a Guarantee


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
        self.dist_up: _LossDist | None = None
        self.dist_lo: _LossDist | None = None
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
            d = _exact_dist(self.groups, bins)
            self.dist_up = self.dist_lo = d
            self.info.update(path="kov", support=d.size, error=0.0)
        elif support <= max_exact_support:
            d = _exact_dist(self.groups, bins)
            self.dist_up = self.dist_lo = d
            self.info.update(path="exact-enumeration", support=d.size, error=0.0)
        elif (support // max(sizes) <= min(MIXED_SMALL_SUPPORT, max_exact_support)
              and max(sizes) <= MAX_WINDOW):
            j = sizes.index(max(sizes))
            rest = [i for i in range(len(bins)) if i != j]
            d = _MixedDist([self.groups[j]], [bins[j]], [self.groups[i] for i in rest],
                           [bins[i] for i in rest])
            self.dist_up = self.dist_lo = d
            self.info.update(path="exact-mixed", support=d.size, error=0.0)
        else:
            self.exact = False
            eta = _choose_step(self.groups, error)
            k = sum(c for _, c in self.groups)
            self.dist_up = _lattice_dist(self.groups, eta, upper=True)
            self.dist_lo = _lattice_dist(self.groups, eta, upper=False)
            self.info.update(path="lattice", eta=eta, error=k * eta,
                             support=self.dist_up.size)

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


# ---------------------------------------------------------------------------
# options and public functions


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
        error: for many distinct epsilons only: the target width of the certified
            bracket, ``epsilon_upper - epsilon_lower <= error`` at every delta
            (grid step ``error / k``). ``None`` (default) picks the finest grid whose
            direct convolution takes at most :data:`LATTICE_WORK_LIMIT` updates and
            records the resulting width in ``g.provenance["error"]``.
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
        by discretization and dynamic programming).
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
        from .guarantee import perfect_privacy

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
