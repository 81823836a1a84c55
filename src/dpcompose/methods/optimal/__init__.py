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
   in general (Murtagh and Vadhan), so we return a certified bracket from two exact
   compositions on the lattice :math:`\eta\mathbb{Z}` (direct convolution of
   non-negative numbers in float64; no FFT, so relative error stays below a few
   :math:`u` per step and deep tails survive down to underflow, whose total effect is
   bounded absolutely and added), both *second order* in :math:`\eta`
   (:mod:`.lattice` states the theorems):

   - upper: each :math:`RR(\varepsilon_i)` is replaced by the flagged mixture
     :math:`\lambda_i RR(b_i) + (1 - \lambda_i) RR(a_i)` of its two neighbouring lattice
     points, with the smallest :math:`\lambda_i` (rounded up) for which the mixture's
     hockey-stick divergence is at least :math:`RR(\varepsilon_i)`'s at every
     :math:`\gamma`; the mixtures dominate, and dominating pairs compose;
   - lower: :math:`\delta_{RR}(x) = \sup_A P(A) - e^x Q(A)`, evaluated at the sets
     :math:`\{N \ge m\}` where :math:`N = \sum_i s_i n_i` rounds each loss to its nearest
     lattice point (one convolution gives :math:`P(N \ge m)` and :math:`Q(N \ge m) =
     P(N \le -m)`).

   A-priori width: ``epsilon_upper - epsilon_lower <= (2k + 1) * eta`` at every delta;
   ``error`` sets :math:`\eta = \text{error} / (2k + 1)`. By default the step is
   :math:`\sqrt{q \sum_i \varepsilon_i / k}`, :math:`q` = :data:`DEFAULT_QUALITY`
   (realised width about :math:`3\cdot 10^{-7} \sum_i \varepsilon_i`), or the finest
   step within :data:`DEFAULT_WORK` lattice updates where that one costs more; the
   realised width is second order and far below the a-priori one (W2 of
   ``benchmarks/bench_accountants.py``, 1000 distinct epsilons in [0.01, 0.2]:
   relative width about 8e-5). The a-priori width is
   in ``g.provenance["error"]``. Murtagh and Vadhan's polynomial-time approximation also
   discretizes the :math:`\varepsilon_i` and counts by dynamic programming; the
   mixture and threshold forms here make both sides certified and second order. More
   than :data:`LATTICE_MAX_K` mechanisms (or two large groups whose product is too big
   to enumerate) are refused with a pointer to ``method="pld"``.

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

Modules: :mod:`.sums` (certified evaluation of a sorted finite loss distribution from its
prefix sums, shared by both builds), :mod:`.window` (the binomial window of one group, and
its prefix sums built in pure Python, in blocks, for windows up to
:data:`~.window.PY_WINDOW_MAX` outcomes: the first query at k = 10^6 needs no numpy),
:mod:`.lossdist` (the numpy build: larger windows, exact enumeration of products of windows,
the mixed path), :mod:`.lattice` (the certified bracket for many distinct epsilons),
:mod:`.method` (the composition object, the registered method and the public functions).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .method import (
    DEFAULT_MAX_EXACT_SUPPORT,
    MAX_WINDOW,
    MIXED_SMALL_SUPPORT,
    kov_delta,
    kov_epsilon,
    optimal_composition,
    optimal_method,
)

#: the lattice bracket's constants, read from :mod:`.lattice` on first access: the exact
#: paths (the first query at k = 1e6 among them) never import the lattice (cold start, issue 14)
_FROM_LATTICE = ("DEFAULT_QUALITY", "DEFAULT_WORK", "LATTICE_MAX_K", "LATTICE_WORK_LIMIT")

if TYPE_CHECKING:  # what __getattr__ gives, for type checkers
    from .lattice import DEFAULT_QUALITY, DEFAULT_WORK, LATTICE_MAX_K, LATTICE_WORK_LIMIT


def __getattr__(name: str) -> Any:
    if name not in _FROM_LATTICE:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.lattice"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


__all__ = [
    "optimal_composition",
    "optimal_method",
    "kov_delta",
    "kov_epsilon",
    "DEFAULT_MAX_EXACT_SUPPORT",
    "LATTICE_WORK_LIMIT",
    "DEFAULT_WORK",
    "LATTICE_MAX_K",
    "DEFAULT_QUALITY",
    "MAX_WINDOW",
    "MIXED_SMALL_SUPPORT",
]
