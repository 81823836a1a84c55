r"""Finite dominating pairs in log space, merged by privacy loss: :class:`LossAtoms`.

An atomic dominating pair (:class:`~.pairs.DominatingPair` with no continuous part, and
attained by its mechanism) is a finite table; products of such pairs, and mixtures of
the two members of a pair (a database whose membership bit is random), are handled
exactly: atoms are merged only when their privacy loss agrees to about 1e-12 (the
likelihood ratio is a sufficient statistic for any mixture of the pair, so merging only
blurs the loss values). Atom counts grow with the number of distinct loss values, not
with the number of outputs.

:class:`LossAtoms` holds ``(log P, log Q)`` per merged loss value and a ``width``: a
bound on how far the loss of any original atom can be from the loss of the atom it
was merged into (merging rounds, floating-point sums, and mixtures, whose log-ratio is
1-Lipschitz in the loss, all add to it). Since an atom of loss at most :math:`L + w`
has :math:`(p - \gamma q)_+ \le p(1 - \gamma e^{-(L + w)})_+`,
:math:`H_\gamma \le \tilde H_{\gamma e^{-w}}` and :math:`H_\gamma \ge \tilde H_{\gamma e^{w}}`:
:meth:`LossAtoms.hockey_upper` and :meth:`LossAtoms.hockey_lower` are certified.

:func:`finite_pair` is the one place that turns a mechanism into such a table: it reads
the mechanism's :data:`~.rules.dominating_pair` (so a new atomic family gets exact
enumeration for free). Hypothesis DP builds on it (:mod:`dpcompose.hypotheses.exact`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._numerics.logspace import segment_logsumexp, sum_exp
from .._numerics.rounding import MACHINE_EPSILON, SMALLEST_SUBNORMAL
from ..errors import MethodNotApplicableError, NoRuleError
from ..mechanisms import Mechanism, describe
from .pairs import DominatingPair
from .rules import dominating_pair

__all__ = ["LossAtoms", "finite_pair", "has_finite_pair", "MAX_ATOMS"]

#: the largest number of atoms an exact computation may hold
MAX_ATOMS = 2_000_000

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


def _atomic_pair(m: Mechanism) -> DominatingPair | None:
    """The mechanism's pair if it is a finite table attained by the mechanism, else None."""
    try:
        pair = dominating_pair(m)
    except NoRuleError:
        return None
    if isinstance(pair, DominatingPair) and pair.is_atomic and pair.attained:
        return pair
    return None


def has_finite_pair(m: Mechanism) -> bool:
    """Whether :func:`finite_pair` has an exact pair for this mechanism."""
    return _atomic_pair(m) is not None


def finite_pair(m: Mechanism) -> LossAtoms:
    r"""The dominating pair (P = M(x'), Q = M(x)) of an atomic mechanism, as :class:`LossAtoms`.

    P is the law with the target record (the pair's ``B``), Q without it (``A``). For
    randomized response with parameter :math:`arepsilon`: P = (p, 1 - p), Q = (1 - p, p)
    with :math:`p = e^arepsilon/(1 + e^arepsilon)`; for (eps, delta) the pair of
    Kairouz, Oh and Viswanath: P = (delta, (1-delta) p, (1-delta)(1-p), 0), Q reversed.
    These pairs are symmetric (swapping P and Q gives the same divergences), so the
    orientation (add or remove) does not matter.

    Raises:
        MethodNotApplicableError: the mechanism has no finite pair attained by it
            (continuous noise, a subsampled mechanism, or a description that only
            bounds it, such as the exponential mechanism).
    """
    pair = _atomic_pair(m)
    if pair is None:
        raise MethodNotApplicableError(f"no finite dominating pair for {describe(m)}")
    lp = np.array([at.log_b for at in pair.atoms])
    lq = np.array([at.log_a for at in pair.atoms])
    return LossAtoms.from_logs(lp, lq)
