r"""Structured priors: exact answers for point, product and uniform-over-non-zero hypotheses.

- **Product priors** (and point masses): each database is an independent mixture of its
  pair (the target present with probability :math:`q_d`), so the two views are products
  of per-database pairs, enumerated exactly (:func:`exact_structured`).
- **The uniform prior over the non-zero vectors** against the zero vector (DESIGN note 3):
  with :math:`K = 2^n` and :math:`P_h` the view under Poisson subsampling at rate 1/2,
  :math:`H_\gamma(P_1\|P_0)` and :math:`H_\gamma(P_0\|P_1)` follow exactly from
  :math:`(P_h, P_0)`; enumerated in a cancellation-free form for finite mechanisms.
- **Small tables** (n <= 14): every output of every database enumerated.
- **The subsampling route** (:func:`subsampled_route`): a point mass against a product or
  the uniform prior is Poisson subsampling per database, composed by the inner method
  (an upper bound for any mechanisms).

Exact routes need mechanisms with finite dominating pairs (:mod:`.exact`).

References:
    Hartmann, Bindschaedler and West, "On the Choice of Databases in Differential
    Privacy Composition", Sec. V-B (the uniform prior); DESIGN note 3.
"""

from __future__ import annotations

import math
from typing import Callable, Sequence

import numpy as np

from .._numerics.lazy import lazy_function
from .._numerics.rounding import MACHINE_EPSILON
from ..compose import Groups, normalize
from ..errors import MethodNotApplicableError
from ..guarantee import Guarantee, perfect_privacy
from ..mechanisms import Subsampled
from ._results import upper_only
from .exact import MAX_ATOMS, LossAtoms, atoms_guarantee, finite_atoms, mix
from .hypothesis import Hypothesis, ProductHypothesis, UniformNonzeroHypothesis
from .release import InnerComposition, Release

logsumexp = lazy_function("scipy.special", "logsumexp")  # imported on first use (cold start)

__all__ = ["exact_structured", "subsampled_route"]


def exact_structured(release: Release, p0: Hypothesis, p1: Hypothesis) -> Guarantee:
    """The exact guarantee for product / point priors, the uniform prior or small tables (``coupling="exact"``).

    Guarantee:
        Exact (upper and lower bounds, within :data:`~.exact.SAFETY`) for mechanisms with
        finite dominating pairs, both directions.

    Raises:
        MethodNotApplicableError: other hypotheses or mechanisms, or too many atoms.
    """
    q0, q1 = p0.independent_probabilities(), p1.independent_probabilities()
    if q0 is not None and q1 is not None:
        return _exact_product(release, q0, q1)
    if _uniform_vs_zero(p0, p1):
        return _exact_uniform(release)
    if p0.support_size() * p1.support_size() <= 2 ** 16 and release.n <= 14:
        return _exact_tables(release, p0, p1)
    raise MethodNotApplicableError(
        "coupling='exact' needs point / product priors, the zero vector against uniform_nonzero, "
        "or small tables (n <= 14) with finite mechanisms."
    )


def _exact_product(release: Release, q0: Sequence[float], q1: Sequence[float]) -> Guarantee:
    grouped: dict[tuple, int] = {}
    for d in range(release.n):
        if not release.items[d] or q0[d] == q1[d]:
            continue  # identical views under both hypotheses: no information
        grouped[(release.items[d], q0[d], q1[d])] = grouped.get((release.items[d], q0[d], q1[d]), 0) + 1
    total = LossAtoms(np.array([0.0]), np.array([0.0]))
    for (items, a, b), count in grouped.items():
        atoms = finite_atoms(items)
        if atoms is None:
            raise MethodNotApplicableError("exact product prior needs finite dominating pairs")
        pair = LossAtoms.from_logs(mix(atoms, a), mix(atoms, b), atoms.width)
        total = total.product(pair.power(count))
    return atoms_guarantee(total, total.swap(), "exact-product-prior",
                           {"coupling": "exact (independent per-database mixtures, enumerated)"})


def _uniform_vs_zero(p0: Hypothesis, p1: Hypothesis) -> bool:
    """Whether one hypothesis is uniform_nonzero and the other the point mass on the zero vector."""
    return any(isinstance(a, UniformNonzeroHypothesis) and b.is_point and not any(b.point_vector())
               for a, b in ((p0, p1), (p1, p0)))


def _uniform_combine(x: LossAtoms, y: LossAtoms) -> LossAtoms:
    r"""Combine (D, P_0) atoms of two independent groups of databases.

    For the uniform-over-non-zero prior, :math:`(K-1) P_1 = K P_h - P_0 = D` with
    :math:`K P_h = \prod_d (P_{0,d} + P_{1,d})`. Writing :math:`T = P_0 + D` per group,
    :math:`D_{12} = T_1 T_2 - P_{0,1} P_{0,2} = P_{0,1} D_2 + D_1 P_{0,2} + D_1 D_2`: a sum of
    non-negative terms, so D stays accurate where :math:`K P_h - P_0` would cancel (large
    epsilons). Atoms are merged by the loss :math:`\log(D/P_0)`.
    """
    if len(x) * len(y) > MAX_ATOMS:
        raise MethodNotApplicableError("exact uniform prior: too many atoms to enumerate")
    d1, p1 = x.logp[:, None], x.logq[:, None]
    d2, p2 = y.logp[None, :], y.logq[None, :]
    log_d = np.logaddexp(np.logaddexp(p1 + d2, d1 + p2), d1 + d2)
    return LossAtoms.from_logs(log_d.ravel(), (p1 + p2).ravel(), x.width + y.width)


def _uniform_power(x: LossAtoms, k: int) -> LossAtoms:
    result = LossAtoms(np.array([-np.inf]), np.array([0.0]))  # one database-free group: D = 0, P0 = 1
    base = x
    while k:
        if k & 1:
            result = _uniform_combine(result, base)
        k >>= 1
        if k:
            base = _uniform_combine(base, base)
    return result


def _exact_uniform(release: Release) -> Guarantee:
    total = LossAtoms(np.array([-np.inf]), np.array([0.0]))
    grouped: dict[Groups, int] = {}
    for d in range(release.n):
        grouped[release.items[d]] = grouped.get(release.items[d], 0) + 1
    for items, count in grouped.items():
        if not items:
            continue
        atoms = finite_atoms(items)  # (P_1, P_0) of one database: D = P_1 there
        if atoms is None:
            raise MethodNotApplicableError("exact uniform prior needs finite dominating pairs")
        total = _uniform_combine(total, _uniform_power(atoms, count))
    n = release.n
    log_km1 = n * math.log(2.0) + math.log1p(-math.exp(-n * math.log(2.0)))  # log(2^n - 1)
    pair = LossAtoms(total.logp - log_km1, total.logq,
                     total.width + 8.0 * MACHINE_EPSILON * (1.0 + log_km1))
    return atoms_guarantee(pair, pair.swap(), "exact-uniform-prior",
                           {"coupling": "exact (uniform prior over the non-zero vectors; DESIGN note 3, "
                                        "P1 = (K P_h - P_0)/(K - 1) kept in a cancellation-free form)"})


def _exact_tables(release: Release, p0: Hypothesis, p1: Hypothesis) -> Guarantee:
    """Exact divergences of two mixtures by enumerating every database's loss atoms (small n)."""
    per: dict[int, LossAtoms] = {}  # (P_d^1, P_d^0): database d with / without the target
    for d in range(release.n):
        if not release.items[d]:
            continue
        atoms = finite_atoms(release.items[d])
        if atoms is None:
            raise MethodNotApplicableError("exact tables need finite dominating pairs")
        per[d] = atoms
    used = sorted(per)
    sizes = [len(per[d]) for d in used]
    total = math.prod(sizes) if sizes else 1
    if total * (p0.support_size() + p1.support_size()) > 2 * 10 ** 7:
        raise MethodNotApplicableError("exact tables: too many outputs to enumerate")
    grids = np.meshgrid(*[np.arange(s) for s in sizes], indexing="ij") if sizes else []
    idx = [g.ravel() for g in grids]

    def log_mixture(h: Hypothesis) -> np.ndarray:
        terms = []
        for b, w in h.support():
            lp = np.full(total, math.log(w))
            for j, d in enumerate(used):
                src = per[d].logp if b[d] else per[d].logq
                lp = lp + src[idx[j]]
            terms.append(lp)
        return logsumexp(np.vstack(terms), axis=0)

    a = log_mixture(p0)
    b = log_mixture(p1)
    fwd = LossAtoms.from_logs(a, b, 2.0 * sum(per[d].width for d in used))  # each log-likelihood within +-sum
    return atoms_guarantee(fwd, fwd.swap(), "exact-enumeration",
                           {"coupling": "exact (all outputs enumerated)"})


def _uniform_formulas(n: int, h_forward: Callable[[float], float],
                      h_backward: Callable[[float], float]) -> Callable[[float], float]:
    r"""DESIGN note 3: exact relation between the uniform prior and Poisson subsampling at 1/2.

    With :math:`K = 2^n`, :math:`P_h = (P_0 + (K-1) P_1)/K`:
    :math:`H_{\gamma}(P_1\|P_0) = \frac{K}{K-1} H_{e^a}(P_h\|P_0)`,
    :math:`e^a = (1 + (K-1)\gamma)/K`, and
    :math:`H_{\gamma}(P_0\|P_1) = (1 + \gamma/(K-1)) H_{e^c}(P_0\|P_h)`,
    :math:`e^c = K\gamma/(K - 1 + \gamma)`.

    Given upper bounds ``h_forward``, ``h_backward`` it returns an upper bound. Both a and
    c are >= 0; they are moved down by a few ulps (the safe side for an upper bound, since H
    is non-increasing) and clipped at 0.
    """

    def safe(x: float) -> float:
        return max(0.0, x - 8.0 * MACHINE_EPSILON * (1.0 + abs(x)))

    ln2 = math.log(2.0)
    log_inv_k = -n * ln2                       # log(1/K)
    log1m = math.log1p(-math.exp(log_inv_k))    # log(1 - 1/K)
    log_km1 = n * ln2 + log1m                   # log(K - 1)
    ratio = -1.0 / math.expm1(log_inv_k)        # K / (K - 1)

    def delta(e: float) -> float:
        if math.isinf(e):
            return max(ratio * h_forward(math.inf), h_backward(math.inf))
        a = float(np.logaddexp(log_inv_k, log1m + e))
        c = e + n * ln2 - float(np.logaddexp(log_km1, e))
        fwd = ratio * h_forward(safe(a))
        hb = h_backward(safe(c))
        # (1 + e^eps / (K - 1)) * hb in log space: the factor overflows for large eps
        bwd = math.exp(min(700.0, float(np.logaddexp(0.0, e - log_km1)) + math.log(hb))) if hb > 0 else 0.0
        return min(1.0, max(fwd, bwd))

    return delta


def subsampled_route(release: Release, p0: Hypothesis, p1: Hypothesis, inner: InnerComposition) -> Guarantee:
    """Point vs product / uniform priors through composed Poisson-subsampled mechanisms (upper bound)."""
    for d in range(release.n):
        items = release.items[d]
        if len(items) > 1 or (items and items[0][1] != 1):
            raise MethodNotApplicableError(
                "the subsampling route needs one invocation per database (a shared bit across "
                "several invocations is not a per-invocation subsample)."
            )
    if _uniform_vs_zero(p0, p1):
        mechs = [Subsampled(release.items[d][0][0], 0.5) for d in range(release.n) if release.items[d]]
        g = inner.of_groups(normalize(mechs)) if mechs else perfect_privacy("inner")
        delta = _uniform_formulas(release.n, g.delta, g.delta)
        return Guarantee("uniform-subsampled", delta_upper=lambda e: min(1.0, delta(e) * (1.0 + 1e-12)),
                         provenance={"coupling": "uniform prior via composed Subsampled(m, 1/2) "
                                                 "(DESIGN note 3 with an upper bound on the subsampled part)"})
    for point, other in ((p0, p1), (p1, p0)):
        if point.is_point and isinstance(other, ProductHypothesis):
            c = point.point_vector()
            mechs = []
            for d in range(release.n):
                if not release.items[d]:
                    continue
                q = other.probabilities[d]
                rate = q if c[d] == 0 else 1.0 - q
                if rate > 0.0:
                    mechs.append(Subsampled(release.items[d][0][0], rate))
            if not mechs:
                return perfect_privacy("product-subsampled")
            g = inner.of_groups(normalize(mechs), mixed=any(c) and not all(c))
            return upper_only(g, "product-subsampled",
                              {"coupling": "point vs product prior = Poisson subsampling per database"})
    raise MethodNotApplicableError("the subsampling route needs a point mass against a product or uniform prior.")
