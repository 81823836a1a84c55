r"""Finite privacy-loss distributions evaluated with certified error bounds.

:class:`_LossDist` holds the losses and log-masses of a finitely supported privacy-loss
distribution under :math:`P`, sorted, with prefix sums in log space and a relative
error bound for each; ``upper(x)``/``lower(x)`` bracket
:math:`\sum_s P_s (1 - e^{x - L_s})_+` (the evaluation is :class:`~.sums._LossSums`'; this
module builds the arrays with numpy). :func:`_exact_dist` enumerates a product of binomial
windows (:class:`~.window._Binomial`, the windowed loss law of c-fold randomized response;
one window alone up to :data:`~.window.PY_WINDOW_MAX` outcomes is built without numpy by
:class:`~.window._WindowSums`) and :class:`_MixedDist` composes one large window with a small
enumerated rest on the fly (see :mod:`dpcompose.methods.optimal` for the error analysis).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Callable, Sequence

import numpy as np

from ..._numerics.inversion import invert_delta_to_epsilon
from ..._numerics.rounding import SMALLEST_SUBNORMAL, UNIT_ROUNDOFF
from ...errors import MethodNotApplicableError
from .sums import _LossSums, _max_loss
from .window import _Binomial

__all__ = ["_LossDist", "_Binomial", "_exact_dist", "_MixedDist", "_max_loss"]


class _LossDist(_LossSums):
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
        if bool(np.all(losses[:-1] >= losses[1:])):
            # already non-increasing (a binomial window): the stable sort below is the identity
            L, self.lp, self.orig = losses, logp, keep
        else:
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
        if L.size:
            # steps = cumsum(|logA| + |logB| + 8) u; rho = expm1(term_err + steps) 1.01 + 4u (in place)
            steps = np.abs(self.logA)
            steps += np.abs(self.logB)
            steps += 8.0
            np.cumsum(steps, out=steps)
            steps *= UNIT_ROUNDOFF
            steps += term_err
            with np.errstate(over="ignore"):
                np.expm1(steps, out=steps)
            steps *= 1.01
            steps += 4.0 * UNIT_ROUNDOFF
            self.rho = steps
        else:
            with np.errstate(over="ignore"):
                self.rho = np.expm1(term_err + lq) * 1.01 + 4.0 * UNIT_ROUNDOFF
        if not np.all(np.isfinite(self.rho)):
            # the masses' rounding cannot be bounded (losses near the double range)
            raise MethodNotApplicableError(
                f"method 'optimal': losses up to {max_loss:.3g} are too large to bound the "
                f"rounding of the composed masses; use method='simple' (the sum of epsilons) "
                f"or 'pld'.")
        self.tail = float(tail)
        self.abs_err = float(abs_err)

    # -- evaluation (the scalar forms are :class:`~.sums._LossSums`') ---------------
    def _rho(self, i: int) -> float:
        return float(self.rho[i])

    def _count_above(self, x: float) -> int:
        return int(np.searchsorted(self.negL, -x, side="left"))

    def _count_at_least(self, x: float) -> int:
        return int(np.searchsorted(self.negL, -x, side="right"))

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
