r"""The windowed loss law of c-fold randomized response, and its prefix sums in pure Python.

:class:`_Binomial` is the loss distribution of c-fold :math:`\varepsilon`-randomized
response under :math:`P` (the class worst case of :math:`\varepsilon`-DP, Kairouz, Oh and
Viswanath), restricted to a Chernoff window: with :math:`l \sim \mathrm{Bin}(c, a)` flips,
:math:`a = 1/(1 + e^\varepsilon)`, the loss is :math:`(c - 2l)\varepsilon`.

:class:`_WindowSums` builds the prefix sums of :class:`~.sums._LossSums` for one window
without numpy, so that the first ``optimal`` query on k identical mechanisms starts in
well under 0.2 s (issue 14, cold start: numpy's import alone takes about 0.16 s). It is
used for windows of at most :data:`PY_WINDOW_MAX` outcomes (k up to about 2.7 million at small epsilon);
larger windows, and every product of windows, go to numpy (:mod:`.lossdist`).

Blocks. The kept outcomes (loss above :math:`-\mathrm{tol}`, l ascending) are cut into
blocks of at most :data:`ANCHOR_SPACING` (fewer where the ratios below could leave
:math:`e^{\pm 600}`). A block's first outcome :math:`l_0` gets Loader's log-mass with its
error bound (:func:`~dpcompose._numerics.binomial_scalar.log_binom_pmf_scalar`), and its
log Q-mass :math:`\log P_{l_0} - (c - 2l_0)\varepsilon`. Inside the block the masses over the
first's follow from the exact ratios

.. math::

   \frac{P_l}{P_{l-1}} = \frac{c - l + 1}{l} e^{-\varepsilon}, \qquad
   \frac{Q_l}{Q_{l-1}} = \frac{c - l + 1}{l} e^{\varepsilon}

(exact for the true masses, since :math:`a/(1-a) = e^{-\varepsilon}`), in linear scale:
``w = w * r * re`` with ``r = (c - l + 1) / l`` and ``re = exp(-eps)``, one division, two
products and ``exp``'s error (within one ulp): at most :math:`5u` per step; the partial sums
of these positive terms add :math:`u` per step. So every log-mass and every log partial sum of
a block errs by at most Loader's bound plus the loss rounding plus :math:`8ku` plus the
rounding of the logs (:math:`2u(|\log P_{l_0}| + \log s_A + |\log Q_{l_0}| + \log s_B + 2)`);
the largest over the blocks is ``term_err``.

Prefix sums. :math:`\log A_m = \mathrm{logaddexp}(\log A_{\text{before the block}},
\log P_{l_0} + \log s_A)` (and so for B), with numpy's ``logaddexp`` operations: each
joining step errs by at most :math:`u(|\text{result}| + 4)`. The relative error bound
:math:`\rho_m = \mathrm{expm1}(\text{term\_err} + u \sum (|\log A| + |\log B| + 8))
\cdot 1.01 + 4u`, the sum over the joins up to m, is the expression of
:class:`~.lossdist._LossDist` with one join per block instead of per outcome (about 40 times
tighter at k = 10^6). Items are computed on demand: a query reads a few dozen of them.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from fractions import Fraction
from typing import TYPE_CHECKING, Callable

from ..._numerics.binomial_scalar import LOADER_MIN_N, chernoff_window, log_binom_pmf_scalar
from ..._numerics.rounding import UNIT_ROUNDOFF
from ...errors import MethodNotApplicableError
from ...representations.pairs import rr_atoms
from .sums import _LossSums

if TYPE_CHECKING:
    import numpy as np

__all__ = ["_Binomial", "_WindowSums", "PY_WINDOW_MAX", "ANCHOR_SPACING"]

#: Chernoff exponent of the binomial window: the mass left out is <= 2 e^{-T} per group
_TAIL_EXPONENT = 800.0
#: the largest window (outcomes before dropping the losses <= 0) built in pure Python; the
#: numpy build is faster above (k = 10^6 at small epsilon: about 40,000 outcomes)
PY_WINDOW_MAX = 2**16
#: outcomes between two evaluations of Loader's form (the ratio recurrence in between)
ANCHOR_SPACING = 128

_U = UNIT_ROUNDOFF


class _Binomial:
    """The windowed loss distribution of c-fold eps-randomized response (under P).

    Randomized response is the class worst case of eps-DP; its masses (and their logs)
    are read from its dominating pair (:func:`dpcompose.representations.pairs.rr_atoms`).
    """

    __slots__ = ("eps", "c", "lo", "hi", "truncated", "atom")

    def __init__(self, eps: float, c: int) -> None:
        self.eps, self.c = eps, c
        self.atom = rr_atoms(eps)[0]  # loss +eps: A-mass 1/(1+e^eps), B-mass e^eps/(1+e^eps)
        self.lo, self.hi = chernoff_window(c, self.atom.a, _TAIL_EXPONENT)
        self.truncated = self.lo > 0 or self.hi < c

    @property
    def size(self) -> int:
        return self.hi - self.lo + 1

    def arrays(self) -> tuple[np.ndarray, np.ndarray, float]:
        """(losses, log P-mass, bound on the absolute error of the log-masses), as arrays."""
        import numpy as np

        from ..._numerics.binomial import log_binom_pmf, log_factorial

        eps, c = self.eps, self.c
        log_p = self.atom.log_b  # log(e^eps / (1 + e^eps))
        log_q = self.atom.log_a  # log(1 / (1 + e^eps))
        l = np.arange(self.lo, self.hi + 1, dtype=np.float64)
        losses = (c - 2.0 * l) * eps
        if c < LOADER_MIN_N:
            g = float(log_factorial(c))
            logp = g - log_factorial(l) - log_factorial(c - l) + (c - l) * log_p + l * log_q
            log_err = 16.0 * _U * (3.0 * g + c * (abs(log_p) + abs(log_q)) + 16.0)
        else:
            logp, log_err = log_binom_pmf(c, l, self.atom.a, self.atom.b,
                                          log_p, log_q)
        return losses, logp, log_err



def _logaddexp(x: float, y: float) -> float:
    """log(e^x + e^y) as numpy's ``logaddexp`` computes it (x, y not nan; -inf allowed)."""
    if x == y:
        return x + 0.6931471805599453  # log 2 (numpy's NPY_LOGE2)
    d = x - y
    if d > 0.0:
        return x + math.log1p(math.exp(-d))
    return y + math.log1p(math.exp(d))


class _Indexed:
    """A read-only sequence of length ``n`` whose items are computed on demand."""

    __slots__ = ("_item", "_n")

    def __init__(self, item: Callable[[int], float], n: int) -> None:
        self._item, self._n = item, n

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, i: int) -> float:
        if i < 0:
            i += self._n
        if not 0 <= i < self._n:
            raise IndexError(i)
        return self._item(i)


class _WindowSums(_LossSums):
    r"""The prefix sums of one binomial window in pure Python (the one-group ``optimal`` path).

    The same quantities as ``_exact_dist(groups, [b])`` (a :class:`~.lossdist._LossDist`):
    the outcomes of the window with loss above :math:`-\mathrm{tol}`, in order of
    non-increasing loss (l ascending), and for every m the logs of the prefix sums
    :math:`A_m, B_m` with a relative error bound :math:`\rho_m`. They are built in blocks
    (see the module docstring) and read on demand: ``logA[i]``, ``logB[i]``, ``lp[i]`` and
    ``negL[i]`` compute item i from its block.
    """

    def __init__(self, b: _Binomial, max_loss: float, loss_err: float) -> None:
        eps, c, lo, hi = b.eps, b.c, b.lo, b.hi
        atom = b.atom
        q, p, log_p, log_q = atom.a, atom.b, atom.log_b, atom.log_a
        self.max_loss = float(max_loss)
        self.tol = float(loss_err) + 2.0 * _U * (self.max_loss + 1.0)
        self._c, self._eps, self._lo = c, eps, lo
        cut = -self.tol  # keep the losses > -tol (those above the smallest threshold, 0)
        end = _end_of_kept(c, eps, lo, hi + 1, cut)
        # (above eps = 600 every block is one outcome, below: the span rule; re, rf unused there)
        re, rf = math.exp(-min(eps, 700.0)), math.exp(min(eps, 700.0))
        # per outcome: its mass over its block's first (w), and the block's partial sums of
        # P- and Q-masses over the first's (sa, sb)
        W: list[float] = []
        SA: list[float] = []
        SB: list[float] = []
        w_add, sa_add, sb_add = W.append, SA.append, SB.append
        # per block: first outcome's index, log P-mass and log Q-mass, the log prefix sums
        # before it and the accumulated rounding bound (in units of u) of those
        starts: list[int] = []
        blk_lp: list[float] = []
        blk_lq: list[float] = []
        blk_la: list[float] = []
        blk_lb: list[float] = []
        blk_round: list[float] = []
        term_err = 0.0
        la = lb = -math.inf
        rounding = 0.0
        l0 = lo
        while l0 < end:
            k = min(ANCHOR_SPACING, end - l0)
            if k > 1:
                # keep every ratio to the block's first within e^{+-600} (no overflow)
                span = max(abs(math.log((c - l0) / (l0 + 1))),
                           abs(math.log((c - l0 - k + 2) / (l0 + k - 1)))) + eps
                if k * span > 600.0:
                    k = max(1, int(600.0 / span))
            lp0, e0 = log_binom_pmf_scalar(c, l0, q, p, log_p, log_q)
            lq0 = lp0 - (c - 2.0 * l0) * eps
            starts.append(l0 - lo)
            blk_lp.append(lp0)
            blk_lq.append(lq0)
            blk_la.append(la)
            blk_lb.append(lb)
            blk_round.append(rounding)
            w = v = sa = sb = 1.0
            w_add(1.0)
            sa_add(1.0)
            sb_add(1.0)
            for l in range(l0 + 1, l0 + k):
                r = (c - l + 1) / l
                w = w * r * re
                v = v * r * rf
                sa += w
                sb += v
                w_add(w)
                sa_add(sa)
                sb_add(sb)
            lsa, lsb = math.log(sa), math.log(sb)
            # error of every log-mass and log partial sum of the block (the docstring's terms)
            e_blk = (e0 + float(loss_err) + 8.0 * k * _U
                     + 2.0 * _U * (abs(lp0) + lsa + abs(lq0) + lsb + 2.0))
            if e_blk > term_err:
                term_err = e_blk
            xa, xb = lp0 + lsa, lq0 + lsb
            la = xa if la == -math.inf else _logaddexp(la, xa)
            lb = xb if lb == -math.inf else _logaddexp(lb, xb)
            rounding += abs(la) + abs(lb) + 8.0
            l0 += k
        self._W, self._SA, self._SB = W, SA, SB
        self._starts, self._blk_lp, self._blk_lq = starts, blk_lp, blk_lq
        self._blk_la, self._blk_lb, self._blk_round = blk_la, blk_lb, blk_round
        self._term_err = term_err
        n = len(W)
        self.size = n
        self.negL = _Indexed(self._neg_loss, n)
        self.lp = _Indexed(self._log_mass, n)
        self.logA = _Indexed(lambda i: self._log_sums(i)[0], n)
        self.logB = _Indexed(lambda i: self._log_sums(i)[1], n)
        self.orig = range(n)
        exact_eps = Fraction(eps)
        self.exact_loss = lambda r: (c - 2 * (lo + r)) * exact_eps
        self.tail = 5e-324 if b.truncated else 0.0  # <= 2 e^{-790} of P-mass, infinite loss
        self.abs_err = 0.0
        if n and not math.isfinite(self._rho(n - 1)):
            raise MethodNotApplicableError(
                f"method 'optimal': losses up to {max_loss:.3g} are too large to bound the "
                f"rounding of the composed masses; use method='simple' (the sum of epsilons) "
                f"or 'pld'.")

    # -- items on demand ------------------------------------------------------------
    def _neg_loss(self, i: int) -> float:
        return -((self._c - 2.0 * (self._lo + i)) * self._eps)

    def _log_mass(self, i: int) -> float:
        j = bisect_right(self._starts, i) - 1
        return self._blk_lp[j] + math.log(self._W[i])

    def _log_sums(self, i: int) -> tuple[float, float, float]:
        """(log A_{i+1}, log B_{i+1}, accumulated rounding bound in units of u)."""
        j = bisect_right(self._starts, i) - 1
        xa = self._blk_lp[j] + math.log(self._SA[i])
        xb = self._blk_lq[j] + math.log(self._SB[i])
        la, lb = self._blk_la[j], self._blk_lb[j]
        if la != -math.inf:
            xa = _logaddexp(la, xa)
            xb = _logaddexp(lb, xb)
        return xa, xb, self._blk_round[j] + abs(xa) + abs(xb) + 8.0

    def _rho(self, i: int) -> float:
        rounding = self._log_sums(i)[2]
        try:
            return math.expm1(self._term_err + rounding * _U) * 1.01 + 4.0 * _U
        except OverflowError:
            return math.inf

    def _count_above(self, x: float) -> int:
        return bisect_left(self.negL, -x)

    def _count_at_least(self, x: float) -> int:
        return bisect_right(self.negL, -x)


def _end_of_kept(c: int, eps: float, start: int, stop: int, cut: float) -> int:
    """The first l in [start, stop) whose computed loss ``(c - 2l) eps`` is <= cut (else stop).

    The computed loss is non-increasing in l (exact integers times eps, rounded), so a
    binary search finds it.
    """
    lo, hi = start, stop  # loss(l) > cut for l < lo; loss(hi) <= cut or hi = stop
    while lo < hi:
        mid = (lo + hi) // 2
        if (c - 2.0 * mid) * eps > cut:
            lo = mid + 1
        else:
            hi = mid
    return lo
