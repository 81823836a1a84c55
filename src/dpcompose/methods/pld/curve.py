r"""Queries on one composed grid: delta(eps) and eps(delta) in its rounding direction.

See :mod:`.grid` for what a :class:`~.grid.GridPLD` bounds and why: ``upper`` adds
``inf + inf_err + err`` below the exact composition's largest loss, ``lower`` subtracts
them, and every weight :math:`(1 - e^{\varepsilon - l})_+` lies in :math:`[0, 1]`.
"""

from __future__ import annotations

import math

import numpy as np

from ..._numerics.rounding import UNIT_ROUNDOFF
from .grid import GridPLD, dot

__all__ = ["Curve", "finite_sum_error"]

#: each block of :func:`decaying_sums` spans at most this much decay (e^350 < 2^506), so its
#: scaled terms and their sums stay far from overflow (x <= 1 here: probabilities)
_BLOCK_LOG_SPAN = 350.0


def decaying_sums(x: np.ndarray, e: float) -> np.ndarray:
    r"""``y[j] = x[j] + e y[j-1]`` (``y[-1] = 0``, ``0 <= e < 1``), i.e.
    :math:`y_j = \sum_{i \le j} e^{j-i} x_i`, vectorised in blocks.

    In a block starting at ``j0`` with carry ``c = e y[j0-1]``,
    :math:`y_j = e^{j-j0} (c + \sum_{j0 \le i \le j} x_i e^{-(i-j0)})`: one ``cumsum`` of
    scaled terms, then one division. A block spans at most :data:`_BLOCK_LOG_SPAN` of decay,
    so the scale factors stay within :math:`2^{\pm 506}`; a few blocks cover any grid.

    Rounding rule: none is needed toward a side. Every term is >= 0, so the blocked sum has
    relative error at most about ``(block length + 3) u`` in each entry (the recurrence
    itself has the same kind of error). :class:`Curve` uses these sums only to *locate* the
    crossing of delta(eps) with the target (``_solve``); the epsilon it returns is accepted
    only after the certified check with :meth:`Curve.delta_finite` (a direct dot product
    evaluated at the shifted epsilon): the upper search moves up until the check passes,
    the lower one down until it fails. A located point that is off only changes how many
    steps the search takes, never which side it ends on.
    """
    x = np.asarray(x, dtype=np.float64)
    n = x.size
    if n == 0 or e <= 0.0:
        return x.copy()
    h = -math.log(e)
    block = max(1, min(n, int(_BLOCK_LOG_SPAN / h) if h > 0.0 else n))
    # e^{-k} for k < block, as powers of the same e the recurrence uses
    grow = np.power(e, -np.arange(block, dtype=np.float64))
    y = np.empty_like(x)
    carry = 0.0
    for j0 in range(0, n, block):
        m = min(block, n - j0)
        w = grow[:m]
        s = np.cumsum(x[j0:j0 + m] * w)
        s += carry
        blk = s / w
        y[j0:j0 + m] = blk
        carry = e * float(blk[-1])
    return y


def finite_sum_error(n: int) -> float:
    r""":math:`\gamma_{n+3} = (n + 3) u / (1 - (n + 3) u)`: the relative rounding bound of
    :meth:`Curve.delta_finite`'s sum of ``n`` non-negative terms (see there)."""
    m = (n + 3) * UNIT_ROUNDOFF
    return m / (1.0 - m)


class Curve:
    """delta(eps) and eps(delta) of one final GridPLD, in its rounding direction."""

    def __init__(self, g: GridPLD) -> None:
        self.g = g
        p = g.p
        self.h = g.h
        self.loss = (np.arange(g.start, g.stop, dtype=float)) * g.h
        self.lmax = float(self.loss[-1]) if p.size else -math.inf
        # S0[j] = sum_{i > j} p_i ; Y[j] = sum_{i >= j} p_i e^{-(l_i - l_j)} ;
        # G[j] = sum_{i > j} p_i e^{-(l_i - l_j)} = e^{-h} Y[j + 1]  (positive recurrences)
        e = math.exp(-g.h)
        if p.size:
            rev = p[::-1]
            s0 = np.empty_like(p)
            s0[:-1] = np.cumsum(rev)[::-1][1:]
            s0[-1] = 0.0
            Y = decaying_sums(rev, e)[::-1]
            G = np.empty_like(p)
            G[:-1] = e * Y[1:]
            G[-1] = 0.0
            self.total = float(s0[0] + p[0])
            self.Y0 = float(Y[0])
        else:
            s0 = G = p
            self.total = 0.0
            self.Y0 = 0.0
        self.S0 = s0
        self.G = G
        self.D = np.maximum(s0 - G, 0.0)   # finite-part delta at each grid point (to locate)
        # the largest finite loss of the exact composition (the arrays may have lost it)
        self.top = g.hi * g.h if g.hi is not None else -math.inf
        # from eps_top on, the exact composition of the discretized upper pairs has only
        # its mass at +inf left above epsilon
        self.eps_top = self._first_eps_beyond(self.top) if g.kind == "upper" else math.inf

    def _margin(self, eps: float) -> float:
        scale = max(abs(eps), abs(self.lmax) if math.isfinite(self.lmax) else 0.0,
                    abs(self.top) if math.isfinite(self.top) else 0.0,
                    abs(self.g.start) * self.h, self.h)
        return self.g.slack + 4.0 * UNIT_ROUNDOFF * scale

    def _first_eps_beyond(self, t: float) -> float:
        """An epsilon >= 0, within a few ulps of the smallest, whose shifted value is >= t."""
        if not math.isfinite(t):
            return 0.0 if t < 0 else math.inf
        eps = t + 2.0 * self._margin(t)
        step = 4.0 * UNIT_ROUNDOFF * max(abs(eps), 1e-300)
        while self._shift(eps) < t:
            eps += step
            step *= 2.0
        return max(0.0, eps)

    def _shift(self, eps: float) -> float:
        """The epsilon at which to evaluate so that rounding cannot favour the answer.

        Grid losses are exact multiples ``i h``, evaluated here as ``fl(i h)``, which may
        lie half an ulp below; and each composed mechanism's losses were computed in
        doubles (``g.slack`` bounds how far below its true loss any mass sits). The upper
        curve is evaluated ``margin`` lower (a larger delta), the lower curve higher.
        """
        if math.isinf(eps):
            return eps
        margin = self._margin(eps)
        return eps - margin if self.g.kind == "upper" else eps + margin

    def delta_finite(self, eps: float) -> float:
        r"""The finite part of delta at ``eps``, rounded up (upper curve) or down (lower curve).

        With :math:`\varepsilon'` the shifted epsilon (:meth:`_shift`), ``p_j`` and the
        losses ``l_j = fl((start + j) h)`` as stored, the sum is
        :math:`S = \sum_{l_j > \varepsilon'} p_j w_j`, :math:`w_j = 1 - e^{\varepsilon' - l_j}`,
        over :math:`n` terms, all non-negative.

        Rounding bound: the value computed in doubles, ``s``, satisfies
        :math:`|s - S| \le \gamma_{n+3} S` with :math:`\gamma_m = m u / (1 - m u)`,
        :math:`u = 2^{-53}` (:func:`finite_sum_error`), because

        - the argument :math:`x_j = \varepsilon' - l_j < 0` is one correctly rounded
          subtraction, :math:`\hat x = x (1 + \theta)`, :math:`|\theta| \le u`, which
          moves :math:`1 - e^{x}` by a relative at most
          :math:`u\, y e^{y u} / (e^{y} - 1) \le u` (mean value theorem, :math:`y = -x > 0`);
        - ``expm1`` is faithful (within one ulp: :math:`2u` relative) and the negation is exact;
        - an inner product of :math:`n` terms in any order of summation (BLAS blocks and
          pairs) has :math:`|fl(x^T y) - x^T y| \le \gamma_n |x|^T |y|` (Higham, "Accuracy
          and Stability of Numerical Algorithms", 2nd ed., Sec. 3.1, eq. (3.5)), and
          :math:`|x|^T |y| = x^T y` here since every term is non-negative;
        - together each term carries :math:`n + 3` factors :math:`1 + \delta`,
          :math:`|\delta| \le u` (the ``expm1`` ulp counted as two), so the relative error
          is at most :math:`\gamma_{n+3}` (Higham, Lemma 3.1).

        The result is multiplied by :math:`1 \pm (\gamma_{n+3} + 4u)` toward the curve's side
        (the :math:`4u` covers the rounding of that factor and of the product), so the upper curve's value is
        never below ``S`` and the lower curve's never above it. The losses' own rounding
        (``fl(i h)`` against ``i h``, and ``g.slack``) is covered by the shift, not here.
        ``tests/test_pld_decaying_sums.py::test_delta_finite_rounding_bound_against_mpmath``
        checks the bound against an mpmath sum of the same doubles.
        """
        eps = self._shift(eps)
        if not self.g.p.size or eps >= self.lmax:
            return 0.0
        j0 = max(0, int(np.searchsorted(self.loss, eps, side="right")))
        l = self.loss[j0:]
        # pairwise summation (grid.dot): its error is within the recursive sum's bound used here
        s = dot(self.g.p[j0:], -np.expm1(eps - l))
        rel = finite_sum_error(l.size) + 4.0 * UNIT_ROUNDOFF
        return s * (1.0 + rel) if self.g.kind == "upper" else s * (1.0 - rel)

    # -- upper ------------------------------------------------------------------
    def delta_upper(self, eps: float) -> float:
        g = self.g
        ie = g.exact_facts()[0]
        if math.isinf(eps):
            return min(1.0, ie, g.inf + g.inf_err + g.err)
        if eps >= self.eps_top:
            # above the largest finite loss only the mass at +inf counts: ie bounds it; so
            # does the atom with its error (err shares it, grid module docstring)
            return min(1.0, ie, g.inf + g.inf_err + g.err)
        # below it the exact composition may hold mass the arrays lost (entries rounded to
        # zero and trimmed, e.g. the top atom of 100 x RR(0.5), 2.6e-21): err covers it
        return min(1.0, self.delta_finite(eps) + g.inf + g.inf_err + g.err)

    def _top_mass(self) -> float:
        """A lower bound on the exact composition's mass at its largest finite loss."""
        lm = self.g.exact_facts()[2]
        return math.exp(lm) * (1.0 - 4.0 * UNIT_ROUNDOFF) if math.isfinite(lm) else 0.0

    def delta_lower(self, eps: float) -> float:
        g = self.g
        if math.isinf(eps):
            return max(0.0, g.inf - g.inf_err)
        out = max(0.0, self.delta_finite(eps) + g.inf - g.inf_err - g.err)
        # one term of the exact sum: the top atom, p_top (1 - e^{eps - top}); the
        # subtraction is correctly rounded and expm1 faithful, so 8 ulps cover it
        e = self._shift(eps)
        pt = self._top_mass()
        if pt > 0.0 and e < self.top:
            out = max(out, pt * -math.expm1(e - self.top) * (1.0 - 8.0 * UNIT_ROUNDOFF))
        return min(1.0, out)

    def _solve(self, target: float) -> float:
        """The eps >= 0 with delta_finite(eps) = target (target > 0), approximately."""
        D = self.D
        loss = self.loss
        # first grid index j with D[j] <= target (D non-increasing)
        j = int(np.searchsorted(-D, -target, side="left"))
        if j >= D.size:
            return self.lmax
        if j == 0:
            # crossing below l_0: delta(eps) = total - e^{eps - l_0} Y[0]
            if self.Y0 <= 0.0 or self.total <= target:
                return float(loss[0])
            return float(loss[0]) + math.log((self.total - target) / self.Y0)
        # crossing in [l_{j-1}, l_j]: delta(l_{j-1} + t) = S0[j-1] - e^{t} G[j-1]
        s0, gg = self.S0[j - 1], self.G[j - 1]
        if gg <= 0.0 or s0 <= target:
            return float(loss[j])
        t = math.log((s0 - target) / gg)
        t = min(max(t, 0.0), self.h)
        return float(loss[j - 1]) + t

    def epsilon_upper(self, delta: float) -> float:
        # remembered by delta: a Curve and its grid's arrays never change after __init__, so a
        # remembered answer is what recomputing gives (pld's lower query asks every upper
        # curve again to skip directions that cannot win: PLDAccountant._best_lower)
        answers: dict[float, float] = self.__dict__.setdefault("_epsilon_upper_answers", {})
        if delta not in answers:
            e = self._epsilon_upper_arrays(delta)
            # the exact composition has nothing but its +inf mass above eps_top
            answers[delta] = min(e, self.eps_top) if self.g.exact_facts()[0] <= delta else e
        return answers[delta]

    def _epsilon_upper_arrays(self, delta: float) -> float:
        g = self.g
        target = delta - (g.inf + g.inf_err) - g.err
        if target <= 0.0:
            # the arrays cannot certify it below eps_top (see delta_upper)
            return math.inf
        if self.delta_finite(0.0) <= target:
            return 0.0
        eps = max(0.0, self._solve(target))
        # move up until the certified check passes (it ends on the passing side)
        step = max(1e-13 * eps, 1e-15)
        eps += step
        tries = 0
        while self.delta_finite(eps) > target:
            step *= 4.0
            eps += step
            tries += 1
            if tries > 200:
                return math.inf
        return eps

    def epsilon_lower(self, delta: float) -> float:
        e = self._epsilon_lower_arrays(delta)
        pt = self._top_mass()
        if pt > delta and math.isfinite(self.top):
            # delta_lower(eps) >= p_top (1 - e^{eps + margin - top}) > delta below this
            x = self.top + math.log1p(-delta / pt)
            x -= self._margin(x) + 8.0 * UNIT_ROUNDOFF * (abs(x) + abs(self.top) + 1.0)
            e = max(e, x)
        return max(0.0, e)

    def _epsilon_lower_arrays(self, delta: float) -> float:
        g = self.g
        if g.inf - g.inf_err > delta:
            return math.inf
        target = delta - (g.inf - g.inf_err) + g.err
        if target >= 1.0 or self.delta_finite(0.0) <= target:
            return 0.0
        eps = max(0.0, self._solve(target))
        step = max(1e-13 * eps, 1e-15)
        eps -= step
        tries = 0
        while eps > 0.0 and self.delta_finite(eps) <= target:
            step *= 4.0
            eps -= step
            tries += 1
            if tries > 200:
                return 0.0
        return max(0.0, eps)

