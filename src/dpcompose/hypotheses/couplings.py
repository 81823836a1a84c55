r"""Couplings of two hypotheses and the bounds they give: Alg. 3, optimal transport, monotone in epsilon.

Joint convexity of the hockey-stick divergence gives, for *any* coupling
:math:`\pi` of :math:`p_0` and :math:`p_1` (a joint distribution with these marginals),

.. math::
    H_{e^\varepsilon}\Big(\sum_b p_0(b) P_b \,\Big\|\, \sum_b p_1(b) P_b\Big)
    \le \sum_{b_0, b_1} \pi(b_0, b_1)\, H_{e^\varepsilon}(P_{b_0} \| P_{b_1})

at one common :math:`\varepsilon`. Alg. 3 of Hartmann, Bindschaedler and West
("RefineTuples", Appendix A) produces one coupling; the tightest is the optimal
transport plan for the cost :math:`c(b_0, b_1) = H_{e^\varepsilon}(P_{b_0}\|P_{b_1})`,
found with :func:`scipy.optimize.linprog` and then repaired into an exactly feasible plan
so that the bound it gives is certified.

**The bound used.** So every coupling gives, at one common epsilon,

.. math::
    \delta(\varepsilon) \le B_\pi(\varepsilon) = \sum_{b_0, b_1} \pi(b_0, b_1)\, \delta_{b_0 b_1}(\varepsilon),

where :math:`\delta_{b_0 b_1}` is a certified upper bound on the profile of the
deterministic pair (both directions). Each :math:`B_\pi` is non-increasing, because every
:math:`\delta_{b_0 b_1}` is. The best coupling at each epsilon (a transport LP) would be
non-increasing too, but an LP solved *per epsilon* in floating point is not: with costs
below the solver's tolerance it may return a worse plan at a larger epsilon (issue 9,
item 7: 0 at eps = 1.01, 2.8e-13 at eps = 2.0). So the bound used here is

.. math::
    \delta(\varepsilon) \le \min_{\pi \in F} B_\pi(\varepsilon)

over a **fixed finite family** :math:`F` of couplings chosen before any query: the coupling
of Alg. 3 and the LP optima at a deterministic grid of epsilons. A minimum of
non-increasing functions is non-increasing, every member is a valid bound, the result
never exceeds the Alg. 3 bound, and it does not depend on the order of queries.

Floating point: a plan from the LP (or Alg. 3's exact rational weights rounded to
doubles) is an exact coupling only up to rounding; :func:`coupling_margin`
bounds its L1 distance to an exact coupling, and that distance times the largest pair
delta is added, with a relative margin for the sum.

Cost: one inner composition per *distinct* pair (pairs differing on databases with the
same releases share one), memoized pair deltas, and at most ``grid_size(n0 * n1)`` LPs
of ``n0 * n1`` variables, all before the first query returns. The callers refuse
problems above :data:`MAX_SUPPORT_PAIRS` or :data:`MAX_PAIR_COMPOSITIONS` with a reason.

References:
    Hartmann, Bindschaedler and West, "On the Choice of Databases in Differential
    Privacy Composition", Sec. V-B and Appendix A (Alg. 3); joint convexity of
    f-divergences (e.g. Liese and Vajda, "On Divergences and Informations in Statistics
    and Information Theory", IEEE Trans. IT 2006, Thm 2 / Lemma 1).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Callable, Hashable, Sequence

import numpy as np

from .._numerics.lazy import lazy_function
from .._numerics.rounding import MACHINE_EPSILON
from ..errors import MethodNotApplicableError
from ..guarantee import Guarantee
from .hypothesis import BVector, Hypothesis
from .release import DELTA_NATIVE_METHODS, InnerComposition, mixed

#: scipy.optimize loads when a coupling is first solved (the demo and most hdp queries never do)
linprog = lazy_function("scipy.optimize", "linprog")

__all__ = [
    "refine_tuples",
    "alg3_coupling",
    "optimal_coupling",
    "repair_coupling",
    "coupling_margin",
    "Coupling",
    "PairCosts",
    "Plan",
    "alg3_plan",
    "lp_plans",
    "family_guarantee",
    "grid_size",
    "alg3_guarantee",
    "lp_guarantee",
    "MAX_SUPPORT_PAIRS",
    "MAX_PAIR_COMPOSITIONS",
    "REFERENCE_DELTAS",
]

Tuple_ = tuple[BVector, Fraction]
Coupling = list[tuple[BVector, BVector, float]]

def refine_tuples(T0: Sequence[Tuple_], T1: Sequence[Tuple_]) -> tuple[list[Tuple_], list[Tuple_]]:
    r"""Alg. 3 (RefineTuples) exactly as written, with exact rational weights.

    "Take and remove some tuple" takes the first tuple of each list; a remainder
    :math:`(\mathbf b, w - w')` is put back at the front of its list, so it is taken
    next (any choice is allowed by the algorithm; this one makes it deterministic).
    Weights are :class:`fractions.Fraction`, so the loop ends exactly when ``T0`` is
    empty and the returned lists match tuple by tuple (``U0[i]`` with ``U1[i]``, equal
    weights). As written, a zero remainder is put back and later matched with weight
    0; such pairs carry no weight.

    Args:
        T0, T1: ``(b, weight)`` tuples of :math:`p_0` and :math:`p_1`; each list's
            weights sum to 1.

    Returns:
        ``(U0, U1)`` refined tuples of equal length with ``U0[i][1] == U1[i][1]``.

    References:
        Hartmann, Bindschaedler and West, "On the Choice of Databases in Differential
        Privacy Composition", Appendix A, Alg. 3.
    """
    t0 = [(b, Fraction(w)) for b, w in T0]
    t1 = [(b, Fraction(w)) for b, w in T1]
    U0: list[Tuple_] = []
    U1: list[Tuple_] = []
    while t0:
        if not t1:  # only if the weights did not sum to the same total
            raise MethodNotApplicableError("refine_tuples: the two hypotheses' weights have different totals.")
        b0, w0 = t0.pop(0)
        b1, w1 = t1.pop(0)
        if w0 <= w1:
            U0.append((b0, w0))
            U1.append((b1, w0))
            t1.insert(0, (b1, w1 - w0))
        else:
            U0.append((b0, w1))
            U1.append((b1, w1))
            t0.insert(0, (b0, w0 - w1))
    return U0, U1


def _alg3_weights(p0: Hypothesis, p1: Hypothesis) -> dict[tuple[BVector, BVector], Fraction]:
    """The exact weights of the coupling of Alg. 3 by pair, zero weights dropped."""
    U0, U1 = refine_tuples(list(p0.exact_support()), list(p1.exact_support()))
    merged: dict[tuple[BVector, BVector], Fraction] = {}
    for (b0, w), (b1, _) in zip(U0, U1):
        if w > 0:
            merged[(b0, b1)] = merged.get((b0, b1), Fraction(0)) + w
    return merged


def alg3_coupling(p0: Hypothesis, p1: Hypothesis) -> Coupling:
    """The coupling that Alg. 3 produces: ``[(b0, b1, weight), ...]`` with zero weights dropped."""
    return [(b0, b1, float(w)) for (b0, b1), w in _alg3_weights(p0, p1).items()]


def repair_coupling(plan: np.ndarray, p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Turn an approximately feasible transport plan into an exactly feasible one.

    Negative entries are clipped, the plan is scaled down until no row or column
    exceeds its marginal, and the leftover row and column masses (equal totals) are
    coupled by the north-west corner rule. The result has marginals ``p`` and ``q``
    up to floating-point rounding of the sums, so its cost is a valid coupling bound.
    """
    P = np.clip(np.asarray(plan, dtype=float), 0.0, None)
    rows, cols = P.sum(axis=1), P.sum(axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.where(rows > 0, p / rows, np.inf)
        c = np.where(cols > 0, q / cols, np.inf)
    t = min(1.0, float(np.min(r)), float(np.min(c)))
    P = P * t
    ru = np.clip(p - P.sum(axis=1), 0.0, None)
    cu = np.clip(q - P.sum(axis=0), 0.0, None)
    i = j = 0
    while i < len(ru) and j < len(cu):
        m = min(ru[i], cu[j])
        P[i, j] += m
        ru[i] -= m
        cu[j] -= m
        if ru[i] <= 0.0:
            i += 1
        else:
            j += 1
    return P


def _transport_constraints(n0: int, n1: int):
    """The sparse equality constraints of an n0 x n1 transport problem (row sums, column sums)."""
    from scipy.sparse import csr_matrix

    idx = np.arange(n0 * n1)
    rows = np.concatenate([idx // n1, n0 + idx % n1])
    cols = np.concatenate([idx, idx])
    return csr_matrix((np.ones(2 * n0 * n1), (rows, cols)), shape=(n0 + n1, n0 * n1))


def optimal_coupling(p: np.ndarray, q: np.ndarray, cost: np.ndarray) -> tuple[float, np.ndarray]:
    r"""Minimum-cost coupling of ``p`` and ``q`` (a transport LP), repaired to be exactly feasible.

    Returns ``(value, plan)`` where ``value = sum(plan * cost)`` for the repaired plan:
    an upper bound on the LP optimum and a valid coupling bound (up to the rounding of
    the marginals, see :func:`coupling_margin`). The costs are scaled to a maximum of 1
    before solving, so the solver's absolute tolerances are relative to the largest cost.

    Raises:
        MethodNotApplicableError: if the LP solver fails.
    """
    cost = np.asarray(cost, dtype=float)
    n0, n1 = cost.shape
    top = float(np.max(cost)) if cost.size else 0.0
    scale = top if top > 0.0 else 1.0
    res = linprog((cost / scale).ravel(), A_eq=_transport_constraints(n0, n1), b_eq=np.concatenate([p, q]),
                  bounds=(0, None), method="highs-ds",
                  options={"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10})
    if res.status != 0 or res.x is None:
        raise MethodNotApplicableError(f"optimal coupling: the transport LP failed ({res.message}).")
    plan = repair_coupling(res.x.reshape(n0, n1), p, q)
    return float(np.sum(plan * cost)), plan


def coupling_margin(plan_rows: np.ndarray, plan_cols: np.ndarray, weights: np.ndarray,
                    p: np.ndarray, q: np.ndarray) -> float:
    r"""How far a floating-point plan can be from an exact coupling of ``p`` and ``q`` (in L1).

    With row sums :math:`a` and column sums :math:`b` of the plan, removing the excess
    over the marginals and coupling the residuals by the north-west corner rule gives
    an exact coupling :math:`\pi^*` with
    :math:`\|\pi^* - \pi\|_1 \le 2(\|a - p\|_1 + \|b - q\|_1)`; costs are non-negative,
    so :math:`\sum \pi^* c \le \sum \pi c + \text{margin} \cdot \max c`. A further
    :math:`8 n u` (u the unit roundoff) covers the rounding of the sums and of the
    marginals themselves (exact rationals rounded to doubles).
    """
    a = np.bincount(plan_rows, weights=weights, minlength=len(p))
    b = np.bincount(plan_cols, weights=weights, minlength=len(q))
    n = len(weights) + len(p) + len(q)
    return float(2.0 * (np.sum(np.abs(a - p)) + np.sum(np.abs(b - q))) + 8.0 * n * MACHINE_EPSILON)


# ---------------------------------------------------------------------------------
# a fixed family of couplings: monotone bounds in epsilon

#: the transport LP is refused above this many support pairs (n0 * n1 variables)
MAX_SUPPORT_PAIRS = 40_000
#: ... and above this many distinct inner compositions (one per distinct differing release)
MAX_PAIR_COMPOSITIONS = 256
#: the LP grid: at each of these deltas, the smallest, median and largest pair epsilon
REFERENCE_DELTAS = (1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-8, 1e-10, 1e-12, 1e-15, 1e-20, 1e-30)

#: a sparse coupling: (row indices, column indices, weights)
Plan = tuple[np.ndarray, np.ndarray, np.ndarray]



def grid_size(support_pairs: int) -> int:
    """How many epsilons the LP is solved at, by problem size (each LP costs about 1 s at 40,000)."""
    if support_pairs <= 2_500:
        return 24
    if support_pairs <= 10_000:
        return 12
    return 6


class PairCosts:
    """The distinct deterministic pairs of a coupling problem, composed lazily, deltas memoized.

    Args:
        s0, s1: the supports ``[(b, weight), ...]`` of the two hypotheses.
        key: ``key(b0, b1)`` -- pairs with equal keys have the same composition.
        compose: ``compose(b0, b1)`` -- a certified Guarantee for the pair.
        full: index every pair of ``s0 x s1`` (for the LP); otherwise pairs are indexed on use.
    """

    def __init__(self, s0: Sequence[tuple[BVector, Any]], s1: Sequence[tuple[BVector, Any]],
                 key: Callable[[BVector, BVector], Hashable], compose: Callable[[BVector, BVector], Guarantee],
                 full: bool) -> None:
        self.s0, self.s1 = list(s0), list(s1)
        self._key, self._compose = key, compose
        self._index: dict[Hashable, int] = {}
        self._rep: list[tuple[BVector, BVector]] = []
        self._g: dict[int, Guarantee] = {}
        self._memo: dict[tuple[int, float], float] = {}
        self.matrix: np.ndarray | None = None
        if full:
            self.matrix = np.array([[self.index(b0, b1) for b1, _ in self.s1] for b0, _ in self.s0],
                                   dtype=np.int64)

    def index(self, b0: BVector, b1: BVector) -> int:
        k = self._key(b0, b1)
        if k not in self._index:
            self._index[k] = len(self._rep)
            self._rep.append((b0, b1))
        return self._index[k]

    def __len__(self) -> int:
        return len(self._rep)

    def guarantee(self, k: int) -> Guarantee:
        if k not in self._g:
            self._g[k] = self._compose(*self._rep[k])
        return self._g[k]

    def delta(self, k: int, e: float) -> float:
        key = (k, e)
        if key not in self._memo:
            self._memo[key] = self.guarantee(k).delta(e)
        return self._memo[key]

    def deltas(self, e: float, ks: np.ndarray) -> np.ndarray:
        return np.array([self.delta(int(k), e) for k in ks], dtype=float)


def _dense(values: Sequence[Any]) -> np.ndarray:
    return np.array([float(w) for w in values], dtype=float)


def alg3_plan(p0: Hypothesis, p1: Hypothesis, s0: Sequence[tuple[BVector, Any]],
              s1: Sequence[tuple[BVector, Any]]) -> Plan:
    """The coupling of Alg. 3 as a sparse plan over the supports ``s0``, ``s1``."""
    i0 = {b: i for i, (b, _) in enumerate(s0)}
    i1 = {b: j for j, (b, _) in enumerate(s1)}
    merged = _alg3_weights(p0, p1)
    rows = np.array([i0[b0] for b0, _ in merged], dtype=np.int64)
    cols = np.array([i1[b1] for _, b1 in merged], dtype=np.int64)
    return rows, cols, _dense(list(merged.values()))


def _eps_grid(costs: PairCosts, size: int) -> list[float]:
    """A deterministic grid of epsilons for the LP plans.

    Half of it: where the pair profiles change (the smallest, median and largest pair
    epsilon at each of :data:`REFERENCE_DELTAS`, merged where closer than 1%, thinned
    evenly); the other half evenly spaced from 0 to the largest of those, so that no
    stretch of epsilon is left without a plan.
    """
    points: set[float] = set()
    for d in REFERENCE_DELTAS:
        eps = sorted(e for e in (costs.guarantee(k).epsilon(d) for k in range(len(costs))) if math.isfinite(e))
        if eps:
            points.update((eps[0], eps[len(eps) // 2], eps[-1]))
    merged: list[float] = []
    for e in sorted(points):
        if not merged or e > merged[-1] * 1.01 + 1e-9:
            merged.append(e)
    half = max(1, size // 2)
    if len(merged) > half:
        idx = np.unique(np.round(np.linspace(0, len(merged) - 1, half)).astype(int))
        merged = [merged[i] for i in idx]
    top = max(merged, default=0.0)
    even = list(np.linspace(0.0, top, size - len(merged) + 1)) if top > 0 else [0.0]
    return sorted({0.0, *merged, *(float(x) for x in even)})


def lp_plans(costs: PairCosts, p: np.ndarray, q: np.ndarray) -> tuple[list[Plan], list[float]]:
    """Optimal transport plans at a grid of epsilons (repaired to be feasible), and the grid."""
    if costs.matrix is None:  # pragma: no cover - the caller indexes every pair
        raise MethodNotApplicableError("optimal coupling needs every support pair indexed")
    n0, n1 = costs.matrix.shape
    grid = _eps_grid(costs, grid_size(n0 * n1))
    ks = np.arange(len(costs))
    plans: list[Plan] = []
    seen: set[bytes] = set()
    for e in grid:
        C = costs.deltas(e, ks)[costs.matrix]
        if not np.any(C > C.flat[0]) and not np.any(C < C.flat[0]):
            continue  # every coupling costs the same here
        try:
            _, P = optimal_coupling(p, q, C)
        except MethodNotApplicableError:
            continue  # the solver failed here: the family keeps its other (valid) members
        rows, cols = np.nonzero(P > 0.0)
        plan = (rows.astype(np.int64), cols.astype(np.int64), P[rows, cols])
        sig = b"".join(a.tobytes() for a in plan)
        if sig not in seen:
            seen.add(sig)
            plans.append(plan)
    return plans, grid


def family_guarantee(name: str, plans: Sequence[Plan], costs: PairCosts, p: np.ndarray, q: np.ndarray,
                     provenance: dict) -> Guarantee:
    r"""The guarantee :math:`\min_{\pi \in F} B_\pi(\varepsilon)` of a fixed family of couplings."""
    prepared = []
    for rows, cols, w in plans:
        ks = np.array([costs.index(costs.s0[i][0], costs.s1[j][0]) for i, j in zip(rows, cols)], dtype=np.int64)
        margin = coupling_margin(rows, cols, w, p, q)
        prepared.append((ks, w, margin, 1.0 + 4.0 * (len(w) + 2) * MACHINE_EPSILON))

    def delta_upper(e: float) -> float:
        best = 1.0
        for ks, w, margin, rel in prepared:
            d = costs.deltas(e, ks)
            val = float(np.dot(w, d)) * rel + margin * float(np.max(d, initial=0.0))
            best = min(best, val)
            if best == 0.0:
                break
        return min(1.0, best)

    prov = dict(provenance)
    prov.update({"couplings_in_family": len(prepared), "distinct_pair_compositions": len(costs)})
    return Guarantee(name, delta_upper=delta_upper, provenance=prov)


# ---------------------------------------------------------------------------------
# the coupling bounds of hdp(..., coupling="alg3" / "optimal")


def _coupling_costs(p0: Hypothesis, p1: Hypothesis, inner: InnerComposition, full: bool) -> PairCosts:
    """The pairs of a coupling problem, refused before any composition if too many."""
    sizes = (p0.support_size(), p1.support_size())
    if max(sizes) > 2 ** 16:
        raise MethodNotApplicableError(
            f"coupling bounds enumerate both hypotheses, which have {sizes[0]} and {sizes[1]} "
            f"vectors (limit 65536); use coupling='exact' or 'subsampled' for structured priors."
        )
    if full and sizes[0] * sizes[1] > MAX_SUPPORT_PAIRS:
        raise MethodNotApplicableError(
            f"optimal coupling: {sizes[0]} x {sizes[1]} = {sizes[0] * sizes[1]} support pairs exceed the "
            f"transport LP limit of {MAX_SUPPORT_PAIRS}; use coupling='alg3' (at most "
            f"{sizes[0] + sizes[1] - 1} pairs) or fewer vectors per hypothesis."
        )
    cost_inner = inner.for_costs()
    keys: dict[tuple, Any] = {}

    def key(b0: BVector, b1: BVector) -> Any:
        pattern = (tuple(x != y for x, y in zip(b0, b1)), mixed(b0, b1))
        if pattern not in keys:
            keys[pattern] = cost_inner.pair_key(b0, b1)
        return keys[pattern]

    costs = PairCosts(list(p0.support()), list(p1.support()), key=key, compose=cost_inner.of_pair, full=full)
    if full and len(costs) > MAX_PAIR_COMPOSITIONS:
        raise MethodNotApplicableError(
            f"optimal coupling: the {sizes[0]} x {sizes[1]} support pairs need {len(costs)} distinct inner "
            f"compositions (limit {MAX_PAIR_COMPOSITIONS}); use coupling='alg3' (at most "
            f"{sizes[0] + sizes[1] - 1}) or coupling='exact' where it applies."
        )
    return costs


def _marginals(costs: PairCosts) -> tuple[np.ndarray, np.ndarray]:
    return (np.array([float(w) for _, w in costs.s0]), np.array([float(w) for _, w in costs.s1]))


_COST_NOTE = ("pair deltas from the inner method" + " (with 'auto': its methods with a direct delta(eps), "
              + ", ".join(DELTA_NATIVE_METHODS) + ", and exact enumeration)")


def alg3_guarantee(p0: Hypothesis, p1: Hypothesis, inner: InnerComposition) -> Guarantee:
    """The coupling bound of Alg. 3 (``coupling="alg3"``)."""
    costs = _coupling_costs(p0, p1, inner, full=False)
    p, q = _marginals(costs)
    plan = alg3_plan(p0, p1, costs.s0, costs.s1)
    return family_guarantee("alg3-coupling", [plan], costs, p, q,
                            {"coupling": "Alg. 3 (RefineTuples), delta <= sum_i w_i delta_i at one common eps",
                             "pair_costs": _COST_NOTE})


def lp_guarantee(p0: Hypothesis, p1: Hypothesis, inner: InnerComposition) -> Guarantee:
    """The best of Alg. 3's coupling and the transport-LP optima at a grid of epsilons (``coupling="optimal"``)."""
    costs = _coupling_costs(p0, p1, inner, full=True)
    p, q = _marginals(costs)
    plans, grid = lp_plans(costs, p, q)
    plans = [alg3_plan(p0, p1, costs.s0, costs.s1), *plans]
    return family_guarantee(
        "optimal-coupling", plans, costs, p, q,
        {"coupling": "the best of a fixed family of couplings: Alg. 3's and the transport-LP optima "
                     "(scipy.optimize.linprog/HiGHS) at a grid of epsilons; monotone in eps and never "
                     "above Alg. 3",
         "lp_grid": grid, "support": (len(costs.s0), len(costs.s1)), "pair_costs": _COST_NOTE})
