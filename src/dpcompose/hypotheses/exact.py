r"""Exact hockey-stick divergences for products of finite-output pairs.

Randomized response, :math:`\varepsilon`-DP (its worst case is randomized response) and
:math:`(\varepsilon, \delta)`-DP (its dominating pair of Kairouz, Oh and Viswanath,
"The Composition Theorem for Differential Privacy") have finite dominating pairs. A
product of such pairs, and mixtures of the two members of a pair (a database whose
membership bit is random), are handled exactly: atoms are merged only when their
privacy loss agrees to about 1e-12 (the likelihood ratio is a sufficient statistic for
any mixture of the pair, so merging only blurs the loss values). Atom counts grow
with the number of distinct loss values, not with the number of outputs.

:class:`LossAtoms` holds ``(log P, log Q)`` per merged loss value and a ``width``: a
bound on how far the loss of any original atom can be from the loss of the atom it
was merged into (merging rounds, floating-point sums, and mixtures, whose log-ratio is
1-Lipschitz in the loss, all add to it). Since an atom of loss at most :math:`L + w`
has :math:`(p - \gamma q)_+ \le p(1 - \gamma e^{-(L + w)})_+`,
:math:`H_\gamma \le \tilde H_{\gamma e^{-w}}` and :math:`H_\gamma \ge \tilde H_{\gamma e^{w}}`:
:meth:`LossAtoms.hockey_upper` and :meth:`LossAtoms.hockey_lower` are certified.

On top of them: :func:`finite_atoms` (the exact pair of a composed release),
:func:`atoms_guarantee` (a Guarantee from enumerated pairs, with a rounding margin) and
:func:`mix` (a database whose membership bit is random). The exact routes for structured
priors are in :mod:`.priors`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._numerics.logspace import segment_logsumexp, softplus, sum_exp
from .._numerics.rounding import MACHINE_EPSILON, SMALLEST_SUBNORMAL
from ..compose import Groups
from ..errors import MethodNotApplicableError
from ..guarantee import Guarantee
from ..mechanisms import ApproxDP, Mechanism, PureDP, RandomizedResponse

__all__ = ["LossAtoms", "finite_pair", "has_finite_pair", "finite_atoms", "finite_estimate", "atoms_guarantee",
           "mix", "MAX_ATOMS", "SAFETY"]

#: the largest number of atoms an exact computation may hold
MAX_ATOMS = 2_000_000
#: relative margin added to exact upper bounds (and removed from lower bounds) for rounding
SAFETY = 1e-11

_KEY_SCALE = 1e12
_MERGE_WIDTH = 1.0 / _KEY_SCALE  # atoms merged under one key differ by less than this
#: relative error of a log of a sum of exponentials, per term (4 machine epsilons)
_LOG_SUM_ERROR = 4.0 * MACHINE_EPSILON
_INF_KEY = np.int64(2 ** 62)


@dataclass(frozen=True)
class LossAtoms:
    """A pair of distributions (P, Q) on finitely many atoms, merged by privacy loss."""

    logp: np.ndarray
    logq: np.ndarray
    width: float = 0.0

    @staticmethod
    def from_logs(logp: np.ndarray, logq: np.ndarray, width: float = 0.0) -> "LossAtoms":
        logp = np.asarray(logp, dtype=float).ravel()
        logq = np.asarray(logq, dtype=float).ravel()
        keep = ~(np.isneginf(logp) & np.isneginf(logq))
        logp, logq = logp[keep], logq[keep]
        with np.errstate(invalid="ignore"):
            llr = logp - logq
        finite = np.where(np.isfinite(llr), llr, 0.0)
        # floating-point error of the sums that produced these logs
        width = width + _LOG_SUM_ERROR * (1.0 + float(np.max(np.abs(finite), initial=0.0))) * 4.0
        scaled = np.round(finite * _KEY_SCALE)
        key = np.where(np.isposinf(llr), _INF_KEY, np.where(np.isneginf(llr), -_INF_KEY, scaled))
        key = key.astype(np.int64)
        uniq, inv = np.unique(key, return_inverse=True)
        if len(uniq) == len(key):
            return LossAtoms(logp, logq, width)
        order = np.argsort(inv, kind="stable")
        starts = np.concatenate([[0], np.flatnonzero(np.diff(inv[order])) + 1])
        return LossAtoms(segment_logsumexp(logp[order], starts), segment_logsumexp(logq[order], starts),
                         width + _MERGE_WIDTH)

    def __len__(self) -> int:
        return len(self.logp)

    def product(self, other: "LossAtoms") -> "LossAtoms":
        """The pair of product distributions (P x P', Q x Q'), merged by loss."""
        if len(self) * len(other) > MAX_ATOMS:
            raise MethodNotApplicableError(
                f"exact enumeration needs {len(self) * len(other)} atoms (limit {MAX_ATOMS}); "
                f"use a composition method instead."
            )
        return LossAtoms.from_logs(np.add.outer(self.logp, other.logp), np.add.outer(self.logq, other.logq),
                                   self.width + other.width)

    def power(self, k: int) -> "LossAtoms":
        """The k-fold product (binary exponentiation, merging by loss at each step)."""
        result = LossAtoms(np.array([0.0]), np.array([0.0]))
        base = self
        while k:
            if k & 1:
                result = result.product(base)
            k >>= 1
            if k:
                base = base.product(base)
        return result

    def swap(self) -> "LossAtoms":
        """The pair (Q, P)."""
        return LossAtoms(self.logq, self.logp, self.width)

    def hockey_upper(self, log_gamma: float) -> float:
        """A certified upper bound on the divergence of the unmerged pair (see the module doc)."""
        return self.hockey(log_gamma - self.width, upper=True)

    def hockey_lower(self, log_gamma: float) -> float:
        """A certified lower bound on the divergence of the unmerged pair."""
        return self.hockey(log_gamma + self.width)

    def hockey(self, log_gamma: float, upper: bool = False) -> float:
        r""":math:`H_\gamma(P\|Q) = \sum (P - \gamma Q)_+` with :math:`\gamma = e^{\text{log\_gamma}}`.

        ``upper``: a positive divergence that underflows is returned as the smallest
        positive double (never 0), so it stays an upper bound.
        """
        if math.isinf(log_gamma):
            terms = self.logp[np.isneginf(self.logq)]
        else:
            with np.errstate(invalid="ignore"):
                llr = self.logp - self.logq
            sel = llr > log_gamma
            if not np.any(sel):
                return 0.0
            lp, lr = self.logp[sel], llr[sel]
            with np.errstate(divide="ignore"):
                terms = lp + np.log(-np.expm1(np.minimum(log_gamma - lr, 0.0)))
        val = sum_exp(terms)
        if upper and val == 0.0 and np.any(np.isfinite(terms)):
            val = SMALLEST_SUBNORMAL  # the truth is positive but below the smallest double
        return min(1.0, val)


def has_finite_pair(m: Mechanism) -> bool:
    """Whether :func:`finite_pair` has an exact pair for this mechanism."""
    return isinstance(m, (PureDP, RandomizedResponse, ApproxDP))


def finite_pair(m: Mechanism) -> LossAtoms:
    r"""The dominating pair (P = M(x'), Q = M(x)) of a pure / approximate DP description.

    Randomized response with parameter :math:`\varepsilon`: P = (p, 1 - p), Q = (1 - p, p)
    with :math:`p = e^\varepsilon/(1 + e^\varepsilon)`; for (eps, delta) the pair of
    Kairouz, Oh and Viswanath: P = (delta, (1-delta) p, (1-delta)(1-p), 0), Q reversed.
    Both are symmetric (swapping P and Q gives the same divergences), so the
    orientation (add or remove) does not matter.
    """
    if isinstance(m, (PureDP, RandomizedResponse)):
        eps, delta = m.epsilon, 0.0
    elif isinstance(m, ApproxDP):
        eps, delta = m.epsilon, m.delta
    else:
        raise MethodNotApplicableError(f"no finite dominating pair for {m!r}")
    if math.isinf(eps):
        lp = np.array([0.0, -np.inf])
        lq = np.array([-np.inf, 0.0])
    else:
        lp = np.array([-softplus(-eps), -softplus(eps)])
        lq = lp[::-1].copy()
    if delta > 0.0:
        l1d = math.log1p(-delta)
        lp = np.concatenate([[math.log(delta)], lp + l1d, [-np.inf]])
        lq = np.concatenate([[-np.inf], lq + l1d, [math.log(delta)]])
    return LossAtoms.from_logs(lp, lq)


def finite_atoms(groups: Groups) -> LossAtoms | None:
    """The exact pair of a composed release (None if some mechanism has no finite pair, or none runs)."""
    if not groups or not all(has_finite_pair(m) for m, _ in groups):
        return None
    atoms = LossAtoms(np.array([0.0]), np.array([0.0]))
    for m, c in groups:
        atoms = atoms.product(finite_pair(m).power(c))
    return atoms


def finite_estimate(groups: Groups) -> float:
    """An upper bound on the number of distinct losses of the exact enumeration (inf if not finite)."""
    est = 1.0
    for m, c in groups:
        if not has_finite_pair(m):
            return math.inf
        est *= c * (len(finite_pair(m)) - 1) + 1
    return est


def atoms_guarantee(fwd: LossAtoms, bwd: LossAtoms | None, name: str, provenance: dict) -> Guarantee:
    """An exact guarantee from enumerated pairs: the larger direction, bounds widened by :data:`SAFETY`.

    ``bwd``: the other direction where it differs (None: ``fwd`` is symmetric).
    """

    def upper(e: float) -> float:
        h = fwd.hockey_upper(e)
        if bwd is not None:
            h = max(h, bwd.hockey_upper(e))
        return min(1.0, h * (1.0 + SAFETY))

    def lower(e: float) -> float:
        h = fwd.hockey_lower(e)
        if bwd is not None:
            h = max(h, bwd.hockey_lower(e))
        return max(0.0, h * (1.0 - SAFETY))

    return Guarantee(name, delta_upper=upper, delta_lower=lower, exact=True, provenance=provenance)


def mix(atoms: LossAtoms, w: float) -> np.ndarray:
    """log of (1 - w) Q + w P per atom, for the pair (P, Q) = (with, without the target); w = P(present)."""
    if w <= 0.0:
        return atoms.logq.copy()
    if w >= 1.0:
        return atoms.logp.copy()
    return np.logaddexp(math.log1p(-w) + atoms.logq, math.log(w) + atoms.logp)
