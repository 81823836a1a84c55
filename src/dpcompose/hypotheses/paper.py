r"""The paper's formulas, labelled "guarantee" or "not a guarantee".

**The per-pair-epsilon formula of Sec. V-B.** After Alg. 3 the paper sets
:math:`\varepsilon = \ln\sum_i w_i e^{\varepsilon_i}`, :math:`\delta = \sum_i w_i \delta_i`.
With two composite hypotheses this can under-report (DESIGN note 1); it is valid when one
hypothesis is a point mass and every pair uses the same delta. :func:`paper_formula`
returns its number with a verdict; ``hdp(..., coupling="paper")`` uses it only where valid.

**The uninformative-prior adversary of Sec. V-B.**
The adversary compares "the target is in no database" (:math:`p_0` = point mass on the
zero vector) with "the target is in at least one", :math:`p_1` uniform over the
:math:`2^k - 1` non-zero b-vectors. Hartmann, Bindschaedler and West bound this by

- Eqs. 3-4 (simple composition per pair):
  :math:`\varepsilon = \ln\big[((1 + e^{\varepsilon'})^k - 1)/(2^k - 1)\big]`,
  :math:`\delta = k 2^{k-1} \delta'/(2^k - 1)`;
- Thm 3 (any composition of :math:`M_i` with the later mechanisms subsampled at 1/2),
  Cor. 6 (simple composition of :math:`M_i` with that) and Cor. 7 (everything simple:
  the same numbers as Eqs. 3-4);

and dpcompose computes the exact value (DESIGN note 3) with
:func:`~dpcompose.hypotheses.uniform_nonzero_guarantee`.

All paper bounds here are returned as :class:`PaperFormula`
objects whose ``is_guarantee`` says whether dpcompose has verified the formula for the
given numbers. The formula :math:`\varepsilon = \ln \sum_i w_i e^{\varepsilon_i}`,
:math:`\delta = \sum_i w_i \delta_i` is valid in the direction "mixture vs point mass"
by linearity; in the direction "point mass vs mixture" it holds when
:math:`\sum_i w_i e^{-\varepsilon_i}\delta_i / \sum_i w_i e^{-\varepsilon_i} \le \sum_i w_i \delta_i`
(then, with :math:`1/\sum_i w_i e^{-\varepsilon_i} \le \sum_i w_i e^{\varepsilon_i}`, it follows
from the per-pair inequalities), which holds when every pair has the same delta or the
deltas grow with the epsilons, and is checked numerically otherwise.

References:
    Hartmann, Bindschaedler and West, "On the Choice of Databases in Differential
    Privacy Composition", Sec. V-B (Eqs. 3-4, the per-pair-epsilon formula), Thm 3,
    Cor. 6, Cor. 7 and Appendix A (Alg. 3).
"""

from __future__ import annotations

import math
from typing import Any, Iterable, Sequence

import numpy as np

from .._numerics.lazy import lazy_function
from .._numerics.logspace import log_sub_exp
from .._validation import check_count, check_delta, check_epsilon
from ..compose import compose, normalize
from ..errors import MethodNotApplicableError
from ..guarantee import Guarantee
from ..mechanisms import Subsampled
from ..representations import eps_delta_pair
from .couplings import refine_tuples
from .exact import LossAtoms, atoms_guarantee, finite_pair, has_finite_pair, mix
from .hypothesis import Hypothesis, check_hypothesis_pair
from .release import Composer, InnerComposition, Release

logsumexp = lazy_function("scipy.special", "logsumexp")  # imported on first use (cold start)

__all__ = ["PaperFormula", "paper_formula", "paper_route", "eq4", "cor7", "thm3", "cor6", "point_mass_formula"]


# ---------------------------------------------------------------------------------
# the per-pair-epsilon formula (Sec. V-B)


class PaperFormula:
    r"""The number the paper's formula gives, with a verdict on whether it is a guarantee.

    Attributes:
        epsilon: :math:`\ln \sum_i w_i e^{\varepsilon_i}` over the pairs of Alg. 3.
        delta: :math:`\sum_i w_i \delta_i` (here every pair uses the same delta).
        is_guarantee: True only where dpcompose can prove the formula valid.
        reason: why it is, or is not, a guarantee.
        pairs: ``[(b0, b1, weight, epsilon_i), ...]``.
    """

    __slots__ = ("epsilon", "delta", "is_guarantee", "reason", "pairs")

    def __init__(self, epsilon: float, delta: float, is_guarantee: bool, reason: str, pairs: list) -> None:
        self.epsilon = epsilon
        self.delta = delta
        self.is_guarantee = is_guarantee
        self.reason = reason
        self.pairs = pairs

    @property
    def label(self) -> str:
        """``"guarantee"`` or ``"not a guarantee"``."""
        return "guarantee" if self.is_guarantee else "not a guarantee"

    def __repr__(self) -> str:
        return (f"PaperFormula(epsilon={self.epsilon:.6g}, delta={self.delta:.3g}, "
                f"{self.label}: {self.reason})")


def _paper_pairs(p0: Hypothesis, p1: Hypothesis, inner: InnerComposition) -> list:
    """The pairs of Alg. 3 with positive weight: ``(b0, b1, weight, inner composition)``."""
    U0, U1 = refine_tuples(list(p0.exact_support()), list(p1.exact_support()))
    out = []
    for (b0, w), (b1, _) in zip(U0, U1):
        if w > 0:
            out.append((b0, b1, float(w), inner.of_pair(b0, b1)))
    return out


def _paper_validity(p0: Hypothesis, p1: Hypothesis, eps: Sequence[float]) -> tuple[bool, str]:
    """Whether the per-pair-epsilon formula is proven valid (eps: the per-pair epsilons)."""
    if p0.is_point or p1.is_point:
        return True, ("one hypothesis is a point mass and every pair uses the same delta: "
                      "valid in both directions (mixture vs point by linearity; point vs "
                      "mixture since the harmonic mean of e^eps_i is at most their mean)")
    if len(set(eps)) <= 1:
        return True, "every pair has the same epsilon: the formula is the coupling bound"
    return False, ("both hypotheses are composite and the per-pair epsilons differ: averaging "
                   "e^eps_i can under-report (DESIGN note 1); use the coupling bound at one "
                   "common epsilon instead")


def paper_route(p0: Hypothesis, p1: Hypothesis, inner: InnerComposition) -> tuple[Guarantee, bool, str]:
    """The formula as a guarantee function of delta, with its verdict and the reason (``coupling="paper"``)."""
    pairs = _paper_pairs(p0, p1, inner)
    logw = np.log([w for *_, w, _ in pairs])

    def eps_of(d: float) -> float:
        e = np.array([g.epsilon(d) for *_, g in pairs])
        return float(logsumexp(logw + e))

    same = len({id(g) for *_, g in pairs}) == 1
    ok, why = _paper_validity(p0, p1, [0.0] if same else [0.0, 1.0])
    g = Guarantee("paper-formula", epsilon_upper=eps_of,
                  provenance={"coupling": "Alg. 3 + per-pair-epsilon formula (Sec. V-B)",
                              "validity": why})
    return g, ok, why


def paper_formula(mechanisms: Iterable[Any], *, hypotheses: tuple[Hypothesis, Hypothesis], delta: float,
                  databases: Sequence[int] | None = None, method: str | Composer = "auto",
                  **options: Any) -> PaperFormula:
    r"""The per-pair-epsilon formula of Sec. V-B, labelled "guarantee" or "not a guarantee".

    Runs Alg. 3 on :math:`(p_0, p_1)`, composes each refined pair with ``method`` at the
    common per-pair ``delta`` and returns
    :math:`\varepsilon = \ln\sum_i w_i e^{\varepsilon_i}`, :math:`\delta`.

    Guarantee:
        Valid (``is_guarantee=True``) when one hypothesis is a point mass (both
        directions, with the same delta for every pair) or every pair has the same
        epsilon. Otherwise it is *not* a guarantee: with p0 uniform on {(1,0),(0,1)},
        p1 uniform on {(0,0),(0,1)} and randomized response with epsilon 1 the formula
        gives 0.620 while the truth is 0.814 (DESIGN note 1). Use :func:`hdp` for a
        certified bound.

    References:
        Hartmann, Bindschaedler and West, Sec. V-B ("Computing an HDP guarantee") and
        Appendix A, Alg. 3.
    """
    delta = check_delta("delta", delta)
    release = Release(mechanisms, databases)
    p0, p1 = check_hypothesis_pair(hypotheses, release.n)
    inner = InnerComposition(release, method, dict(options))
    pairs = _paper_pairs(p0, p1, inner)
    eps_i = [g.epsilon(delta) for *_, g in pairs]
    logw = np.log([w for _, _, w, _ in pairs])
    with np.errstate(invalid="ignore"):
        eps = float(logsumexp(logw + np.array(eps_i)))
    ok, why = _paper_validity(p0, p1, eps_i)
    return PaperFormula(eps, delta, ok, why, [(b0, b1, w, e) for (b0, b1, w, _), e in zip(pairs, eps_i)])


# ---------------------------------------------------------------------------------
# the uniform prior (Eqs. 3-4, Thm 3, Cor. 6, Cor. 7)


_LN2 = math.log(2.0)


def _log_2k_minus_1(k: int) -> float:
    return k * _LN2 + math.log1p(-math.exp(-k * _LN2))


def point_mass_formula(log_weights: Sequence[float] | np.ndarray, eps: Sequence[float],
                       deltas: Sequence[float], source: str) -> PaperFormula:
    r""":math:`(\ln\sum w_i e^{\varepsilon_i}, \sum w_i \delta_i)` for a point mass against a mixture, with its validity check."""
    lw = np.asarray(log_weights, dtype=float)
    e = np.asarray(eps, dtype=float)
    d = np.asarray(deltas, dtype=float)
    eps_out = float(logsumexp(lw + e))
    delta_out = float(np.sum(np.exp(lw) * d))
    if np.all(d == d[0]):
        return PaperFormula(eps_out, delta_out, True,
                            f"{source}: every pair has the same delta, so the formula is valid in both directions",
                            [])
    finite = np.isfinite(e)
    if not np.all(finite):
        return PaperFormula(eps_out, delta_out, True, f"{source}: an infinite epsilon; trivially valid", [])
    a = lw - e
    weighted = float(np.exp(logsumexp(a, b=d) - logsumexp(a))) if np.any(d > 0) else 0.0
    ok = weighted <= delta_out * (1.0 + 1e-12)
    why = (f"{source}: the delta average weighted by w_i e^(-eps_i) is {weighted:.6g} "
           f"{'<=' if ok else '>'} sum w_i delta_i = {delta_out:.6g}, so the point-vs-mixture "
           f"direction {'is' if ok else 'is NOT'} implied by the per-pair guarantees")
    return PaperFormula(eps_out, delta_out, ok, why, [])


def eq4(epsilon: float, delta: float, k: int) -> PaperFormula:
    r"""Eqs. 3-4: the uniform prior with simple composition per pair.

    :math:`\varepsilon = \ln\big[\frac{1}{2^k - 1}\sum_{j=1}^k \binom{k}{j} e^{j\varepsilon'}\big]
    = \ln\big[((1 + e^{\varepsilon'})^k - 1)/(2^k - 1)\big]` and
    :math:`\delta = \frac{1}{2^k-1}\sum_j \binom{k}{j} j \delta' = k 2^{k-1}\delta'/(2^k - 1)`.

    Guarantee:
        Upper bound for k mechanisms that are each (epsilon', delta')-DP (verified:
        the per-pair deltas grow with the epsilons).

    References:
        Hartmann, Bindschaedler and West, Sec. V-B, Eqs. 3-4.
    """
    epsilon = check_epsilon("epsilon", epsilon)
    delta = check_delta("delta", delta)
    k = check_count("k", k, minimum=1)
    log_num = log_sub_exp(k * float(np.logaddexp(0.0, epsilon)), 0.0) if epsilon > 0 else _log_2k_minus_1(k)
    eps_out = log_num - _log_2k_minus_1(k)
    delta_out = k * delta * math.exp((k - 1) * _LN2 - _log_2k_minus_1(k))
    # validity: pairs with j ones have (j eps', j delta'): deltas grow with epsilons
    return PaperFormula(eps_out, min(1.0, delta_out), True,
                        "Eqs. 3-4: p0 is a point mass and the per-pair deltas grow with the epsilons", [])


def cor7(epsilon: float, delta: float, k: int) -> PaperFormula:
    r"""Cor. 7: :math:`\varepsilon = \ln[((e^{\varepsilon'}+1)^k - 1)/(2^k-1)]`, :math:`\delta = 2^{k-1} k \delta'/(2^k - 1)`.

    The same numbers as Eqs. 3-4, derived through subsampling (Thm 8 of Balle, Barthe and
    Gaboardi) and simple composition.

    References:
        Hartmann, Bindschaedler and West, Cor. 7.
    """
    out = eq4(epsilon, delta, k)
    out.reason = "Cor. 7: " + out.reason.split(": ", 1)[1]
    return out


def _weights(k: int) -> np.ndarray:
    """log of 2^{k-i}/(2^k - 1) for i = 1..k."""
    i = np.arange(1, k + 1)
    return (k - i) * _LN2 - _log_2k_minus_1(k)


def thm3(mechanisms: Sequence[Any], delta_hat: float, method: str = "auto", **options: Any) -> PaperFormula:
    r"""Thm 3 with the same :math:`\hat\delta` for every summand.

    :math:`\varepsilon = \ln\big[\frac{1}{2^k-1}\sum_i 2^{k-i} e^{\hat\varepsilon_i}\big]`,
    :math:`\delta = \hat\delta`, where :math:`\hat\varepsilon_i` is the epsilon at
    :math:`\hat\delta` of ``compose([M_i, S_{1/2}(M_{i+1}), ..., S_{1/2}(M_k)], method)``.

    ``method="exact"`` computes each summand's pair exactly (finite mechanisms), which
    shows how much of the gap to the exact answer is due to the formula itself.

    Guarantee:
        Upper bound (both directions: p0 is a point mass and every summand has the same
        delta). It is as good as the inner composition of the subsampled mechanisms.

    References:
        Hartmann, Bindschaedler and West, Thm 3 (proof in Appendix C).
    """
    delta_hat = check_delta("delta_hat", delta_hat)
    mechs = list(mechanisms)
    k = len(mechs)
    if k == 0:
        return PaperFormula(0.0, 0.0, True, "empty release", [])
    eps_hat = []
    for i in range(k):
        if method == "exact":
            g = _exact_summand(mechs, i)
        else:
            items = [mechs[i]] + [Subsampled(m, 0.5) for m in mechs[i + 1:]]
            g = compose(normalize(items), method=method, **options)
        eps_hat.append(g.epsilon(delta_hat))
    return point_mass_formula(_weights(k), eps_hat, [delta_hat] * k, "Thm 3")


def _exact_summand(mechs: Sequence[Any], i: int) -> Guarantee:
    """The exact CompGuarantee of summand i of Thm 3: M_i with the target, later ones at rate 1/2.

    This is the pair (P_{B_i}, P_0) itself (both directions), enumerated exactly for
    mechanisms with finite dominating pairs.
    """
    if not all(has_finite_pair(m) for m in mechs):
        raise MethodNotApplicableError(
            "thm3(method='exact') needs PureDP, RandomizedResponse or ApproxDP mechanisms."
        )
    atoms = finite_pair(mechs[i])
    for m in mechs[i + 1:]:
        a = finite_pair(m)
        atoms = atoms.product(LossAtoms.from_logs(mix(a, 0.5), a.logq, a.width))
    return atoms_guarantee(atoms, atoms.swap(), "exact-summand", {})


def cor6(mechanisms: Sequence[Any], delta_hat: float, method: str = "auto", **options: Any) -> PaperFormula:
    r"""Cor. 6: :math:`\varepsilon = \ln\big[\frac{1}{2^k-1}\sum_i 2^{k-i} e^{\varepsilon_i + \hat\varepsilon_i}\big]`,
    :math:`\delta = \frac{1}{2^k-1}\sum_i 2^{k-i}(\delta_i + \hat\delta)`.

    :math:`(\varepsilon_i, \delta_i)` is mechanism i's own pair and :math:`\hat\varepsilon_i`
    the epsilon at :math:`\hat\delta` of the composition of
    :math:`S_{1/2}(M_{i+1}), \dots, S_{1/2}(M_k)`.

    Guarantee:
        Returned with ``is_guarantee`` from the validity check of
        :func:`point_mass_formula` (the per-pair deltas differ when the mechanisms do).

    References:
        Hartmann, Bindschaedler and West, Cor. 6.
    """
    delta_hat = check_delta("delta_hat", delta_hat)
    mechs = list(mechanisms)
    k = len(mechs)
    eps, dels = [], []
    for i in range(k):
        pair = eps_delta_pair(mechs[i])
        if pair is None:
            raise MethodNotApplicableError(
                f"Cor. 6 needs each mechanism's own (epsilon, delta); {mechs[i]!r} has none. Use thm3."
            )
        rest = [Subsampled(m, 0.5) for m in mechs[i + 1:]]
        e_hat = compose(normalize(rest), method=method, **options).epsilon(delta_hat) if rest else 0.0
        d_hat = delta_hat if rest else 0.0
        eps.append(pair[0] + e_hat)
        dels.append(pair[1] + d_hat)
    return point_mass_formula(_weights(k), eps, dels, "Cor. 6")
