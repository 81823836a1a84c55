r"""The engine of :class:`dpcompose.accountant.Accountant`: a composed PLD kept in Fourier form.

A *track* is the composition of the recorded steps for one neighbouring direction
(``remove``/``add``), one rounding direction (``upper``/``lower``) and one grid
:math:`h\mathbb{Z}`, stored as the half spectrum of its circular array of length
:math:`N`:

.. math:: C_m = \prod_s \hat A_{s,m}^{k_s}, \qquad \hat A_s = \mathrm{rfft}(a_s, N),

with :math:`a_s` the discretized one-step PLD of mechanism :math:`s`
(:func:`dpcompose.methods.pld.discretize.discretize`, the same upper and lower
discretizations as :mod:`dpcompose.methods.pld`). More steps multiply :math:`C` by
:math:`\hat A_s^{\Delta}` (binary powering of the new count).

**Band.** For a continuous loss law :math:`|\hat A_{s,m}| < 1` away from
:math:`m = 0`, so after many steps only a few frequencies carry weight. Each track keeps
the magnitude bound :math:`\beta_m = \prod_s (|A_{s,m}| + \eta_s)^{k_s}`, which bounds the
exact :math:`|C^*_m|` whatever the round-off (``eta`` bounds the forward-FFT error), and
drops the frequencies with :math:`\beta_m < 10^{-32}`, keeping
:math:`T = \sum_{\text{dropped}} w_m \beta_m` (weights :math:`w_m` = 1 at :math:`m = 0` and
at Nyquist, 2 elsewhere). Later products can only shrink a dropped coefficient when
every later factor has :math:`|A_m| + \eta \le 1` there (checked; otherwise :math:`T` is
scaled up accordingly), so :math:`T` stays a bound.

**Queries.** A query needs sums of the composed masses over the grid points above a
loss: :math:`\mathcal A_J = \sum_{i=J}^{w_1} \tilde p_i` and
:math:`\mathcal B_J = \sum_{i=J}^{w_1} \tilde p_i e^{-(i - J)h}`, where :math:`\tilde p` is
the circular array and :math:`[w_0, w_1]` the Chernoff window (as in
:func:`dpcompose.methods.pld.grid.self_compose`: the mass outside it is at most
:math:`\tau` per side and is counted at :math:`+\infty` in the upper bound and subtracted
in the lower). Then :math:`\delta(\varepsilon) = \mathcal A_J - e^{\varepsilon - Jh}\mathcal B_J`
for :math:`(J-1)h \le \varepsilon < Jh`. Two ways to get the sums, both certified:

- *direct*: one inverse FFT and the :class:`dpcompose.methods.pld.curve.Curve` machinery
  (used when many frequencies are kept, e.g. lattice laws of pure-DP mechanisms);
- *Parseval*: :math:`\sum_r \tilde p_r W_r = N^{-1}\sum_m w_m \mathrm{Re}(C_m \overline{\hat W_m})`
  with the DFT of the weights in closed form (geometric sums), over the kept
  frequencies only; a query then costs a few passes over them. Error bound, for a
  weight vector with :math:`0 \le W \le 1` on :math:`n` points:
  :math:`N^{-1}\big[\sum_{\text{kept}} w_m (d_m |\hat W_m| (1 + c) + |C_m| c |\hat W_m|) +
  T \sum_r W_r\big]` plus the rounding of the sum, with :math:`d_m` the spectrum error
  (forward-FFT errors propagated through the powers, and the relative error of the
  products, as in :func:`dpcompose.methods.pld.grid.self_compose`) and :math:`c` the relative
  error of the closed forms.

References: Koskela, Jälkö and Honkela, "Computing Tight Differential Privacy
Guarantees Using FFT" (AISTATS 2020); Higham, "Accuracy and Stability of Numerical
Algorithms", Thm 24.2 (FFT error); Brent, Percival and Zimmermann, "Error Bounds on
Complex Floating-Point Multiplication" (Math. Comp. 2007).

Layout (issue 15): this module holds the state (:class:`Track`: the spectrum, its error
bounds, the Chernoff window); :mod:`.queries` the certified query objects it returns
(:class:`DirectCurve`, :class:`BandCurve`).
"""

from __future__ import annotations

import math
from typing import Any, Callable, Mapping

import numpy as np

from ..._numerics.lazy import lazy_module
from ..._numerics.rounding import UNIT_ROUNDOFF
from .grid import FFT_C, GridPLD, _int_power, dot

# the query objects live in their own module (issue 15); importable from here as before
from .queries import BandCurve, DirectCurve

sfft = lazy_module("scipy.fft")  # imported on first use (cold start)

__all__ = ["Track", "Regrid", "DirectCurve", "BandCurve"]

_SQRT5U = math.sqrt(5.0) * UNIT_ROUNDOFF * 1.01  # one complex product (Brent, Percival, Zimmermann)
#: frequencies whose magnitude bound falls below exp(_LOG_THR) are dropped (see module docstring)
_LOG_THR = math.log(1e-32)
#: the Parseval path is used while at most this fraction of the half spectrum is kept
_BAND_FRACTION = 1.0 / 16.0
#: the Chernoff parameters scanned (any lambda > 0 gives a valid window)
_LAMBDAS = np.geomspace(1e-3, 1e5, 97)


class Regrid(Exception):
    """A track outgrew its FFT length (the owner rebuilds it longer)."""

    def __init__(self, needed: int) -> None:
        super().__init__(needed)
        self.needed = needed


class _Pooled:
    """A one-step measure pooled for Chernoff bounds: the bulk exactly, the tails in blocks.

    Entries holding at least 1e-6 of the largest mass are kept as they are; the rest are
    pooled in blocks of 64 at the block's largest loss (for bounds on the upper tail) or
    smallest loss (lower tail). Both over-estimate the MGF, so the bounds stay valid.
    The log-MGF at every scanned lambda is computed once.
    """

    __slots__ = ("start", "stop", "k_hi", "k_lo")

    def __init__(self, g: GridPLD) -> None:
        p = g.p
        self.start, self.stop = g.start, g.stop - 1
        idx = np.arange(g.start, g.stop, dtype=float)
        big = np.flatnonzero(p >= 1e-6 * float(p.max()))
        c0, c1 = int(big[0]), int(big[-1]) + 1
        ps, lo, hi = [p[c0:c1]], [idx[c0:c1]], [idx[c0:c1]]
        for a, b in ((0, c0), (c1, p.size)):
            if b <= a:
                continue
            nb = -(-(b - a) // 64)
            pad = np.zeros(nb * 64)
            pad[: b - a] = p[a:b]
            ps.append(pad.reshape(nb, 64).sum(axis=1))
            first = g.start + a + 64.0 * np.arange(nb)
            lo.append(first)
            hi.append(np.minimum(first + 63.0, g.start + b - 1.0))
        pool = np.concatenate(ps)
        keep = pool > 0.0
        pool = pool[keep]
        self.k_hi = self._log_mgf(pool, np.concatenate(hi)[keep] * g.h, +1)
        self.k_lo = self._log_mgf(pool, np.concatenate(lo)[keep] * g.h, -1)

    @staticmethod
    def _log_mgf(p: np.ndarray, loss: np.ndarray, sign: int) -> np.ndarray:
        """log sum_j p_j e^{sign lambda l_j} at every lambda of ``_LAMBDAS``."""
        out = np.empty(_LAMBDAS.size)
        for i in range(0, _LAMBDAS.size, 16):  # blocks keep the temporary small
            x = (sign * _LAMBDAS[i:i + 16])[:, None] * loss[None, :]
            xm = x.max(axis=1)
            out[i:i + 16] = np.log(np.exp(x - xm[:, None]) @ p) + xm
        return out


class _Factor:
    """One mechanism on a track: its one-step PLD and its spectrum on the kept frequencies."""

    __slots__ = ("g", "A", "log_bound", "ratio", "eta", "out_max", "powers")

    def __init__(self, g: GridPLD, n_fft: int, keep: np.ndarray | None) -> None:
        self.g = g
        A = sfft.rfft(g.p, n_fft)
        # componentwise forward-FFT error (dpcompose.methods.pld.grid): eta = c u log2 N ||g||_1
        self.eta = FFT_C * UNIT_ROUNDOFF * math.log2(n_fft) * float(g.p.sum())
        mag = np.abs(A) + self.eta
        with np.errstate(divide="ignore"):
            log_bound = np.log(mag)
        ratio = self.eta / mag
        self.out_max = -math.inf
        if keep is not None:
            if keep.size < A.size:
                mask = np.ones(A.size, dtype=bool)
                mask[keep] = False
                self.out_max = float(log_bound[mask].max())
            A, log_bound, ratio = A[keep], log_bound[keep], ratio[keep]
        self.A, self.log_bound, self.ratio = A, log_bound, ratio
        self.powers: dict[int, tuple[np.ndarray, float]] = {}

    def power(self, k: int) -> tuple[np.ndarray, float]:
        """``A**k`` by binary powering and its relative error bound 3 k u (cached)."""
        hit = self.powers.get(k)
        if hit is None:
            if len(self.powers) >= 4:
                self.powers.clear()
            hit = (_int_power(self.A, k), 3.0 * k * UNIT_ROUNDOFF)
            self.powers[k] = hit
        return hit

    def restrict(self, keep: np.ndarray) -> None:
        """Drop the frequencies not in ``keep`` (a boolean mask over the kept ones)."""
        dropped = self.log_bound[~keep]
        if dropped.size:
            self.out_max = max(self.out_max, float(dropped.max()))
        self.A, self.log_bound, self.ratio = self.A[keep], self.log_bound[keep], self.ratio[keep]
        self.powers.clear()


class Track:
    """The composed PLD of one (neighbouring direction, rounding direction, grid), in Fourier form.

    Args:
        kind: ``"upper"`` or ``"lower"``.
        h: the grid spacing.
        n_fft: the circular length N.
        one_step: ``mechanism -> GridPLD`` (the discretized one-step PLD on this grid).
        tail_mass: the total mass the Chernoff window may cut (``tau = tail_mass / 8``
            per side, as in :mod:`dpcompose.methods.pld`).
        pooled: a cache of Chernoff summaries shared by tracks (keyed by the one-step PLD).
    """

    def __init__(self, kind: str, h: float, n_fft: int,
                 one_step: Callable[[Any], GridPLD], tail_mass: float,
                 pooled: dict[int, tuple[GridPLD, _Pooled]] | None = None) -> None:
        self.kind = kind
        self.h = h
        self.n = n_fft
        self.one_step = one_step
        self.pooled = {} if pooled is None else pooled
        self.steps: dict[Any, GridPLD] = {}  # the one-step PLDs this track uses, fixed once taken
        self.tau = tail_mass / 8.0
        self.factors: dict[Any, _Factor] = {}
        self.counts: dict[Any, int] = {}
        self.freq = np.arange(n_fft // 2 + 1, dtype=np.int64)  # kept frequencies
        self.C: np.ndarray | None = None
        self.rel = 0.0
        self.log_bound: np.ndarray | None = None
        self.ratio_sum: np.ndarray | None = None
        self.out_sum = 0.0  # T: bound on sum of w_m |C*_m| over the dropped frequencies

    def weights(self, freq: np.ndarray) -> np.ndarray:
        w = np.full(freq.shape, 2.0)
        w[freq == 0] = 1.0
        if self.n % 2 == 0:
            w[freq == self.n // 2] = 1.0
        return w

    def step_pld(self, m: Any) -> GridPLD:
        g = self.steps.get(m)
        if g is None:
            g = self.steps[m] = self.one_step(m)
        return g

    def factor(self, m: Any) -> _Factor:
        f = self.factors.get(m)
        if f is None:
            keep = None if self.freq.size == self.n // 2 + 1 else self.freq
            f = _Factor(self.step_pld(m), self.n, keep)
            self.factors[m] = f
        return f

    # -- composition --------------------------------------------------------------
    def extend(self, m: Any, k: int) -> None:
        """Multiply ``k`` more steps of ``m`` into the spectrum (binary power of the new count)."""
        f = self.factor(m)
        B, r_b = f.power(k)
        if self.C is None:
            self.C = B.copy()
            self.rel = r_b
            self.log_bound = k * f.log_bound
            self.ratio_sum = k * f.ratio
        else:
            self.C *= B
            self.rel = (1.0 + self.rel) * (1.0 + r_b) * (1.0 + _SQRT5U) - 1.0
            self.log_bound += k * f.log_bound
            self.ratio_sum += k * f.ratio
        if f.out_max > 0.0:
            # a dropped coefficient can grow only by (|A| + eta)^k <= e^{k out_max}
            self.out_sum *= math.exp(k * f.out_max)
        self.counts[m] = self.counts.get(m, 0) + k

    def spectrum(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(C, log_bound, ratio_sum)``, set by the first :meth:`extend`."""
        if self.C is None or self.log_bound is None or self.ratio_sum is None:
            raise ValueError("Track: no step composed yet (call extend first)")
        return self.C, self.log_bound, self.ratio_sum

    def prune(self) -> None:
        """Drop the frequencies whose magnitude bound is below exp(_LOG_THR)."""
        C, log_bound, ratio_sum = self.spectrum()
        keep: np.ndarray = log_bound >= _LOG_THR
        n_drop = keep.size - int(keep.sum())
        if n_drop == 0 or n_drop < 0.2 * keep.size:
            return
        dropped = self.freq[~keep]
        with np.errstate(under="ignore"):
            self.out_sum += dot(self.weights(dropped), np.exp(log_bound[~keep]))
        self.freq = self.freq[keep]
        self.C = C[keep]
        self.log_bound = log_bound[keep]
        self.ratio_sum = ratio_sum[keep]
        for f in self.factors.values():
            f.restrict(keep)

    def spectrum_error(self) -> np.ndarray:
        """Per kept frequency, a bound on |C_m - C*_m| (C* the exact spectrum of the discrete law)."""
        C, log_bound, ratio_sum = self.spectrum()
        with np.errstate(over="ignore", under="ignore"):
            t1 = np.exp(log_bound)
        t1 *= ratio_sum
        return 1.01 * t1 + (1.01 * self.rel) * np.abs(C)

    # -- window and masses -------------------------------------------------------
    def window(self, counts: Mapping[Any, int]) -> tuple[int, int, bool]:
        """Grid indices [w0, w1] outside which the composition has at most ``tau`` mass per side.

        Chernoff: for every :math:`\\lambda > 0` the composed (unnormalised) measure has
        mass at most :math:`\\exp(\\sum_s k_s K_s(\\lambda) - \\lambda t)` above :math:`t`,
        with :math:`K_s` the log-MGF of the one-step measure (and the mirror bound below);
        any :math:`\\lambda` gives a valid window, so a grid of values is scanned and the
        best kept. Returns ``(w0, w1, cut)``; ``cut`` is False for the full support.
        """
        live = [(self.tail(m), k) for m, k in counts.items() if k > 0]
        full0 = sum(k * t.start for t, k in live)
        full1 = sum(k * t.stop for t, k in live)
        if full1 - full0 + 1 <= 4096:
            return full0, full1, False
        log_tau = math.log(self.tau)
        k_hi = sum(k * t.k_hi for t, k in live)
        k_lo = sum(k * t.k_lo for t, k in live)
        t_hi = float(np.min((k_hi - log_tau) / _LAMBDAS))
        t_lo = float(np.max((log_tau - k_lo) / _LAMBDAS))
        w1 = min(full1, math.ceil(t_hi / self.h) + 1)
        w0 = max(full0, math.floor(t_lo / self.h) - 1)
        return w0, w1, (w0, w1) != (full0, full1)

    def tail(self, m: Any) -> _Pooled:
        """The Chernoff summary of the very one-step PLD this track composes."""
        g = self.step_pld(m)
        hit = self.pooled.get(id(g))
        if hit is None or hit[0] is not g:
            hit = (g, _Pooled(g))
            self.pooled[id(g)] = hit
        return hit[1]

    def masses(self) -> tuple[float, float]:
        """``(inf, slack)``: the mass at +infinity and the loss rounding slack of the composition."""
        log_f = log_t = 0.0
        slack = 0.0
        for m, k in self.counts.items():
            g = self.factors[m].g
            fm = float(g.p.sum())
            log_f += k * math.log(fm) if fm > 0.0 else -math.inf
            log_t += k * math.log(fm + g.inf)
            slack += k * g.slack
        if math.isfinite(log_f):
            inf = math.exp(log_f) * math.expm1(log_t - log_f)
        else:
            inf = math.exp(log_t)
        # the sums of logs carry a relative error far below 1e-12: round to the safe side
        inf *= (1.0 + 1e-12) if self.kind == "upper" else (1.0 - 1e-12)
        return min(inf, 1.0), slack

    def start(self) -> int:
        """Grid index of circular position 0."""
        return sum(k * self.factors[m].g.start for m, k in self.counts.items())

    # -- queries ------------------------------------------------------------------
    def curve(self) -> "DirectCurve | BandCurve":
        """A certified query object for the composition as it is now."""
        self.prune()
        w0, w1, cut = self.window(self.counts)
        if w1 - w0 + 1 > self.n:
            raise Regrid(w1 - w0 + 1)
        inf, slack = self.masses()
        if self.freq.size <= _BAND_FRACTION * (self.n // 2 + 1):
            return BandCurve(self, w0, w1, cut, inf, slack)
        return DirectCurve(self.materialize(w0, w1, cut, inf, slack))

    def materialize(self, w0: int, w1: int, cut: bool, inf: float, slack: float) -> GridPLD:
        """The composed discrete PLD in the direct domain (one inverse FFT), with error terms."""
        N = self.n
        length = w1 - w0 + 1
        spec = self.C
        if self.freq.size != N // 2 + 1:
            spec = np.zeros(N // 2 + 1, dtype=complex)
            spec[self.freq] = self.C
        full = sfft.irfft(spec, N)
        shift = (w0 - self.start()) % N
        if shift + length <= N:
            c = full[shift:shift + length].copy()
        else:
            c = np.concatenate([full[shift:], full[:shift + length - N]])
        # weighted l2 norm of the spectrum error (Parseval: an l1 bound on the array
        # error); the dropped frequencies add at most out_sum (l2 <= l1 for weights >= 1)
        d = self.spectrum_error()
        spec_err = math.sqrt(dot(self.weights(self.freq) * d, d)) + self.out_sum
        c2 = math.sqrt(dot(c, c))
        err = spec_err + math.sqrt(N) * FFT_C * UNIT_ROUNDOFF * math.log2(N) * c2
        np.clip(c, 0.0, None, out=c)
        if cut:
            if self.kind == "upper":
                inf += self.tau  # high-tail mass cut or folded down counts as infinite loss
            else:
                err += 2.0 * self.tau
        return GridPLD(self.kind, self.h, w0, c, min(inf, 1.0), err, 0.0, slack)


