r"""Discrete privacy loss distributions on a uniform grid: composition and queries.

The second half of :mod:`dpcompose.methods.pld` (with :mod:`.curve`, which answers the
queries). A :class:`GridPLD` is a non-negative measure on the loss grid :math:`\{ih\}` (``p[j]`` at loss ``(start + j) h``) plus an atom at
:math:`+\infty`, tagged ``"upper"`` (it dominates the true loss law) or ``"lower"``
(it is dominated), with two numerical error terms:

- ``err``: a bound on the :math:`\ell_1` distance between the stored finite masses and
  its reference below (FFT round-off, aliasing); for the
  upper kind it also covers the error of the mass a tail cut moved to ``inf`` (below);
- ``inf_err``: a bound on the error of ``inf`` from its other sources (the inputs' own
  ``inf``, propagated through composition).

The reference for ``err`` and ``inf_err`` is the measure the same operations (the same tail
cuts, windows and foldings) give in exact arithmetic from the exact discretized inputs.
Upper kind: ``err + inf_err`` bounds the :math:`\ell_1` norm of the error of the whole
extended measure (finite entries and the atom at :math:`+\infty` together). A high tail
cut moves computed entries, errors included, to ``inf``: that error was already part of
``err``'s :math:`\ell_1` sum and moves with the mass, so the joint bound is unchanged
(it is not counted twice). Every upper query weighs each entry and the atom by a factor
in :math:`[0, 1]`, so the joint bound is all it needs. Lower kind: tails are dropped, never
moved to ``inf``, and ``err`` and ``inf_err`` bound the finite entries' and the atom's
errors separately.

Then, for every :math:`\varepsilon \ge 0`, with
:math:`\delta_p(\varepsilon) = \sum_{l_j > \varepsilon} p_j (1 - e^{\varepsilon - l_j})`,

- upper: :math:`\delta(\varepsilon) \le \delta_p(\varepsilon) + \mathrm{inf} + \mathrm{inf\_err} + \mathrm{err}`
  below the exact composition's largest loss ``hi * h`` (see below), and exactly its
  mass at :math:`+\infty` (``ie``) from there on;
- lower: :math:`\delta(\varepsilon) \ge \delta_p(\varepsilon) + \mathrm{inf} - \mathrm{inf\_err} - \mathrm{err}`,

because every weight :math:`(1 - e^{\varepsilon - l})_+` lies in :math:`[0, 1]`.

Beside the arrays, three facts about the *exact* composition of the discretized pairs
(before any tail cut or aliasing; the arrays approximate it) are carried through
composition in closed form, from the single mechanisms' grids:

- ``hi``: its largest finite loss index (``None``: no finite mass). Above ``hi * h``
  its privacy profile is exactly its mass at :math:`+\infty`, so the upper curve needs
  no error term there, and ``epsilon_upper(delta)`` is at most ``hi * h`` whenever
  ``delta`` covers that mass: a pure-DP composition is (sum of epsilons, 0)-DP, not
  (inf, 0)-DP because a tail was cut from the arrays.
- ``ie`` and ``fin`` (upper kind): upper bounds on its mass at :math:`+\infty` and on its
  finite mass. Composition: :math:`ie_{ab} = ie_a (fin_b + ie_b) + fin_a\, ie_b`,
  k-fold :math:`(fin + ie)^k - fin^k`, both increasing in every argument and rounded up.
- ``hi_logmass`` (lower kind): a lower bound on the log of its mass at ``hi``; then
  :math:`\delta(\varepsilon) \ge e^{\mathrm{hi\_logmass}} (1 - e^{\varepsilon - hi\,h})`,
  which keeps the lower bound useful far in the tail (e.g. ``epsilon_lower(0)`` of a
  pure-DP composition is the sum of the epsilons).

Size: no array here grows beyond ``max_points`` entries; a composition that would need
more raises :class:`GridTooLargeError` *before* allocating, with the number of points
it needs, so the caller can choose a coarser grid.

Grids of different spacing or rounding direction refuse to combine
(:class:`GridMismatchError`).

FFT round-off: for a length-:math:`N` transform the componentwise error of the forward
FFT is at most :math:`c\,u \log_2 N \|x\|_1` and the normwise relative error of the
inverse at most :math:`c\,u \log_2 N` (Higham, "Accuracy and Stability of Numerical
Algorithms", 2nd ed., Thm 24.2, with :math:`c` = :data:`FFT_C` covering the twiddle
factor error of pocketfft), :math:`u = 2^{-53}`. Propagated to the output by Parseval,
an :math:`\ell_2` bound on the spectrum error is an :math:`\ell_1` bound on the error of
the result (``||x||_1 <= sqrt(N) ||x||_2 = ||X||_2``). Negative outputs are clipped to
zero (the exact values are non-negative, so clipping never increases the error).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from ..._numerics.fft import irfft, next_fast_len, rfft
from ..._numerics.rounding import SMALLEST_SUBNORMAL, UNIT_ROUNDOFF
from ...errors import MethodNotApplicableError


__all__ = ["GridPLD", "GridMismatchError", "GridTooLargeError", "compose_pair", "self_compose",
           "FFT_C", "mass_upper"]

# queries on a composed grid (delta(eps), eps(delta)) are in :mod:`.curve`

#: constant in the FFT error bound (see module docstring)
FFT_C = 8.0
#: direct convolution when len(a) * len(b) is at most this (upper kind; FFT beyond). The
#: FFT is faster from about 500 x 500 but its round-off bound is larger; for the upper kind
#: that is paid for by the joint error bound (module docstring), which the lower kind
#: does not have, so lower grids keep the direct path up to :data:`_DIRECT_MAX_LOWER`
_DIRECT_MAX = 1_000_000
_DIRECT_MAX_LOWER = 4_000_000


class GridMismatchError(ValueError):
    """Two discretized PLDs with different grids or rounding directions were combined."""


class GridTooLargeError(MethodNotApplicableError):
    """A composition needs a grid of more than ``max_points`` points (nothing was allocated).

    ``points`` is the number it needs at spacing ``h``: a grid about ``points /
    max_points`` times coarser fits.
    """

    def __init__(self, message: str, *, points: int, h: float, max_points: int) -> None:
        super().__init__(message)
        self.points = points
        self.h = h
        self.max_points = max_points


@dataclass
class GridPLD:
    kind: str
    h: float
    start: int
    p: np.ndarray
    inf: float = 0.0
    err: float = 0.0
    inf_err: float = 0.0
    #: absolute bound on how far below its true loss floating-point rounding may have
    #: placed any mass (the loss of each composed mechanism is evaluated in doubles);
    #: it adds up under composition, and upper queries shift epsilon down by it
    slack: float = 0.0
    #: facts about the exact composition of the discretized pairs (module docstring);
    #: filled in from ``p`` and ``inf`` when not given (a single mechanism's grid)
    hi: int | None = None
    ie: float | None = None
    fin: float | None = None
    hi_logmass: float | None = None

    def __post_init__(self) -> None:
        n = self.p.size
        if self.hi is None and n:
            self.hi = self.start + n - 1
        if self.hi_logmass is None:
            top = float(self.p[-1]) if n else 0.0
            # log rounds to within one ulp of its result: step down by two
            self.hi_logmass = (math.log(top) - 2.0 * UNIT_ROUNDOFF * (abs(math.log(top)) + 1.0)
                               if top > 0.0 else -math.inf)
        if self.ie is None:
            self.ie = self.inf
        if self.fin is None:
            # fsum is correctly rounded; one more ulp covers it
            self.fin = math.fsum(self.p.tolist()) * (1.0 + 2.0 * UNIT_ROUNDOFF) if n else 0.0

    def exact_facts(self) -> tuple[float, float, float]:
        """``(ie, fin, hi_logmass)``, filled in by ``__post_init__`` (module docstring)."""
        if self.ie is None or self.fin is None or self.hi_logmass is None:
            raise ValueError("GridPLD facts are filled in by __post_init__; one was reset to None")
        return self.ie, self.fin, self.hi_logmass

    @property
    def stop(self) -> int:
        """Index one past the last grid point."""
        return self.start + self.p.size

    def mass(self) -> float:
        return float(self.p.sum())

    def check_compatible(self, other: "GridPLD") -> None:
        if self.kind != other.kind or self.h != other.h:
            raise GridMismatchError(
                f"cannot compose a {self.kind!r} PLD on grid h={self.h!r} with a "
                f"{other.kind!r} PLD on grid h={other.h!r}: rounding directions and grids must match."
            )


# ---------------------------------------------------------------------------
# composition


def mass_upper(p: np.ndarray) -> float:
    r"""An upper bound on the exact sum of the non-negative doubles ``p`` (a ``fin`` fact).

    NumPy's sum in any order of ``n`` non-negative terms is within
    :math:`\gamma_{n-1} = (n-1)u / (1 - (n-1)u)` of the exact sum, relatively (Higham,
    "Accuracy and Stability of Numerical Algorithms", 2nd ed., eq. (4.4)), so for
    :math:`n u \le 10^{-3}` the factor :math:`1 + 2(n + 1)u` (which also covers the rounding of
    the product) lifts it above the exact sum. Longer arrays take ``math.fsum`` (correctly
    rounded) and one ulp, as ``GridPLD`` does.
    """
    n = p.size
    if n * UNIT_ROUNDOFF <= 1e-3:
        return float(p.sum()) * (1.0 + 2.0 * (n + 1) * UNIT_ROUNDOFF) if n else 0.0
    return math.fsum(p.tolist()) * (1.0 + 2.0 * UNIT_ROUNDOFF)


def dot(x: np.ndarray, y: np.ndarray) -> float:
    """sum_j x_j y_j by NumPy's pairwise summation, not BLAS ``ddot``.

    Speed, not a different value: OpenBLAS runs ``ddot`` of more than a few thousand
    entries on a thread pool, and waking that pool between FFTs cost milliseconds per
    call on a loaded machine (24 ms per composition step, most of the hospitals
    workload's pld time). Pairwise summation needs no threads, and its rounding error
    (at most about ``log2(n) u sum |x_j y_j|``) is below ``ddot``'s sequential ``n u``,
    so every error bound written for a dot product holds for it.
    """
    return float(np.multiply(x, y).sum())


def _fft_norms(x: np.ndarray) -> tuple[float, float]:
    return float(np.abs(x).sum()), math.sqrt(dot(x, x))


def _prefix_sums(p: np.ndarray, tau: float) -> np.ndarray:
    """The running sums of ``p`` up to the first one above ``tau`` (or all of them).

    NumPy's cumsum adds in order, so these are exactly the first entries of ``cumsum(p)``;
    the tail mass cut is tiny, so a sixteenth of the array usually holds the crossing.
    """
    k = max(64, p.size >> 4)
    if k < p.size:
        head = np.cumsum(p[:k])
        if head[-1] > tau:
            return head
    return np.cumsum(p)


def _truncate(g: GridPLD, tau: float) -> GridPLD:
    """Cut at most ``tau`` mass from each end (upper: low end moved up, high end to +inf)."""
    p = g.p
    if p.size <= 2 or tau <= 0.0:
        return g
    c_lo = _prefix_sums(p, tau)
    i0 = int(np.searchsorted(c_lo, tau, side="right"))      # drop p[:i0], sum <= tau
    c_hi = _prefix_sums(p[::-1], tau)
    n_hi = int(np.searchsorted(c_hi, tau, side="right"))    # drop last n_hi, sum <= tau
    i1 = p.size - n_hi
    if i0 >= i1 or (i0 == 0 and n_hi == 0):
        return g
    low = float(c_lo[i0 - 1]) if i0 > 0 else 0.0
    high = float(c_hi[n_hi - 1]) if n_hi > 0 else 0.0
    q = p[i0:i1].copy()
    inf = g.inf
    if g.kind == "upper":
        q[0] += low
        # the moved entries' errors move with them: still inside err's l1 sum, which for
        # the upper kind bounds the finite entries and the moved mass jointly (module
        # docstring), so err is not added to inf_err again
        inf += high
    return replace(g, start=g.start + i0, p=q, inf=inf)


def _exact_pair_facts(a: GridPLD, b: GridPLD) -> dict:
    """``hi``, ``ie``, ``fin``, ``hi_logmass`` of the exact composition of a and b."""
    hi = a.hi + b.hi if a.hi is not None and b.hi is not None else None
    a_ie, a_fin, a_lm = a.exact_facts()
    b_ie, b_fin, b_lm = b.exact_facts()
    lm = a_lm + b_lm
    if math.isfinite(lm):
        lm -= 2.0 * UNIT_ROUNDOFF * abs(lm)
    # both expressions are sums of products of non-negative upper bounds: round up
    ie = (a_ie * (b_fin + b_ie) + a_fin * b_ie) * (1.0 + 4.0 * UNIT_ROUNDOFF)
    fin = a_fin * b_fin * (1.0 + 2.0 * UNIT_ROUNDOFF)
    return {"hi": hi, "ie": ie, "fin": fin, "hi_logmass": lm}


def compose_pair(a: GridPLD, b: GridPLD, tau: float, max_points: int | None = None) -> GridPLD:
    """The composition of two discretized PLDs (linear convolution), tails cut by ``tau``.

    Raises :class:`GridTooLargeError` (before allocating) when the convolution would
    have more than ``max_points`` points.
    """
    a.check_compatible(b)
    na, nb = a.p.size, b.p.size
    fa, fb = a.mass(), b.mass()
    inf = a.inf * fb + b.inf * fa + a.inf * b.inf
    # the error of (exact input A + error) (x) (exact B + error), over the finite entries
    # and the atom: E_a (x) B + A (x) E_b, |.| <= e_a |B| + (|A| + e_a) e_b with e = err +
    # inf_err and |.| = finite mass + inf. Split: prop (finite errors times finite masses),
    # inf_err (the rest: every term with an inf or an inf_err); the atom's own rounding
    # (three products and two sums of doubles, the masses summed by numpy within n u) is
    # covered by a relative (na + nb + 8) u of it
    inf_err = (a.inf_err * (fb + b.inf) + b.inf_err * (fa + a.inf) + a.inf_err * b.inf_err
               + a.err * (b.inf + b.inf_err) + b.err * (a.inf + a.inf_err)
               + inf * (na + nb + 8) * UNIT_ROUNDOFF)
    prop = a.err * (fb + b.err) + b.err * fa
    facts = _exact_pair_facts(a, b)
    if na == 0 or nb == 0:
        return GridPLD(a.kind, a.h, a.start + b.start, np.zeros(0), inf, 0.0, inf_err + prop,
                       a.slack + b.slack, **facts)
    if max_points is not None and na + nb - 1 > max_points:
        raise GridTooLargeError(
            f"pld: composing two grids of {na} and {nb} points at spacing h = {a.h:g} needs "
            f"{na + nb - 1} points, more than max_points = {max_points}; pass a larger "
            f"discretization or max_points, or use method='rdp' or 'optimal'.",
            points=na + nb - 1, h=a.h, max_points=max_points)
    if na * nb <= (_DIRECT_MAX if a.kind == "upper" else _DIRECT_MAX_LOWER) or min(na, nb) <= 32:
        c = np.convolve(a.p, b.p)
        # sums of non-negative products: relative error <= min(na, nb) u per entry
        fresh = 2.0 * min(na, nb) * UNIT_ROUNDOFF * float(c.sum())
    else:
        n = na + nb - 1
        N = next_fast_len(n)
        c = irfft(rfft(a.p, N) * rfft(b.p, N), N)[:n]
        a1, a2 = _fft_norms(a.p)
        b1, b2 = _fft_norms(b.p)
        c2 = math.sqrt(dot(c, c))
        fresh = math.sqrt(N) * FFT_C * UNIT_ROUNDOFF * math.log2(N) * (a1 * b2 + b1 * a2 + c2)
        np.clip(c, 0.0, None, out=c)
        if a.kind == "upper":
            start, c, fresh = _trim_noise(a.start + b.start, c, fresh, N)
            out = GridPLD(a.kind, a.h, start, c, inf, prop + fresh, inf_err, a.slack + b.slack, **facts)
            return _truncate(out, tau)
    out = GridPLD(a.kind, a.h, a.start + b.start, c, inf, prop + fresh, inf_err, a.slack + b.slack,
                  **facts)
    return _truncate(out, tau)


def _trim_noise(start: int, c: np.ndarray, fresh: float, N: int) -> tuple[int, np.ndarray, float]:
    """Drop the ends of an upper FFT result up to its first entries above ``fresh / N``.

    The FFT's round-off leaves entries of about 1e-21 across the far tails (the hospitals'
    last compositions: a third of the array), whose running sums pass the tail cut's ``tau``
    long before the exact tails do, so :func:`_truncate` cannot cut them. Dropping computed
    entries moves the array away from its reference by at most their sum ``S``, in l1, so
    ``err`` grows by ``S`` (rounded up by :func:`mass_upper`) and stays a bound on the
    distance to the same reference (upper kind: jointly with the atom, module docstring).
    Nothing is moved to ``inf``, and the tail budget is not used. The threshold, the round-off
    bound per entry on average, keeps ``S`` far below ``fresh`` in practice (noise sits below it).

    Returns the new start, the kept entries and ``fresh + S``.
    """
    theta = fresh / N
    big = np.flatnonzero(c[:: max(1, c.size - 1)] > theta)  # both ends first: usually kept whole
    if big.size == 2:
        return start, c, fresh
    above = np.flatnonzero(c > theta)
    if above.size == 0:
        return start, c, fresh  # nothing above the noise: _truncate and the error terms as before
    lo, hi = int(above[0]), int(above[-1]) + 1
    dropped = mass_upper(c[:lo]) + mass_upper(c[hi:])
    return start + lo, c[lo:hi].copy(), fresh + dropped


def _log_mgf(p: np.ndarray, loss: np.ndarray, lam: float) -> float:
    """log sum_j p_j e^{lam l_j} (p > 0), with the max factored out."""
    x = lam * loss
    xm = float(x.max())
    return math.log(dot(p, np.exp(x - xm))) + xm


def _chernoff_window(g: GridPLD, k: int, tau: float) -> tuple[int, int]:
    """Indices [w0, w1] outside which the k-fold composition has at most tau mass per side.

    Any lambda > 0 gives a valid bound; a few multiples of the Gaussian-optimal
    lambda* = sqrt(2 log(1/tau) / (k var)) are tried and the best is kept.
    """
    p = g.p
    loss = np.arange(g.start, g.stop, dtype=float) * g.h
    tot = float(p.sum())
    mean = dot(p, loss) / tot
    var = max(dot(p, (loss - mean) ** 2) / tot, g.h * g.h)
    # the bulk (entries >= 1e-6 of the largest) is used exactly; the tails are pooled
    # into blocks of 64 with each block's largest loss (for the upper tail bound) or
    # smallest loss (lower tail): both over-estimate the MGF, so the bounds stay valid
    big = np.flatnonzero(p >= 1e-6 * float(p.max()))
    c0, c1 = int(big[0]), int(big[-1]) + 1
    parts_p, parts_lo, parts_hi = [p[c0:c1]], [loss[c0:c1]], [loss[c0:c1]]
    for seg_lo, seg_hi in ((0, c0), (c1, p.size)):
        if seg_hi <= seg_lo:
            continue
        sub = p[seg_lo:seg_hi]
        bs = 64
        nb = -(-sub.size // bs)
        pad = np.zeros(nb * bs)
        pad[: sub.size] = sub
        parts_p.append(pad.reshape(nb, bs).sum(axis=1))
        first = (g.start + seg_lo + np.arange(nb) * bs).astype(float) * g.h
        parts_lo.append(first)
        parts_hi.append(np.minimum(first + (bs - 1) * g.h, (g.start + seg_hi - 1) * g.h))
    pb = np.concatenate(parts_p)
    l_min = np.concatenate(parts_lo)
    l_max = np.concatenate(parts_hi)
    keep = pb > 0.0
    pb, l_min, l_max = pb[keep], l_min[keep], l_max[keep]
    log_tau = math.log(tau)
    lam_star = math.sqrt(2.0 * -log_tau / (k * var))
    t_hi, t_lo = math.inf, -math.inf
    # any lambda is valid; heavy-tailed steps (subsampled Gaussians) need lambdas far below
    # the Gaussian-optimal one, so scan down to lam_star / 2**12
    for f in (2.0 ** -12, 2.0 ** -10, 2.0 ** -8, 2.0 ** -6, 2.0 ** -4, 2.0 ** -3, 0.25, 0.5, 1.0, 2.0):
        lam = lam_star * f
        t_hi = min(t_hi, (k * _log_mgf(pb, l_max, lam) - log_tau) / lam)
        t_lo = max(t_lo, (log_tau - k * _log_mgf(pb, l_min, -lam)) / lam)
    full_lo, full_hi = k * g.start, k * (g.stop - 1)
    w1 = min(full_hi, math.ceil(t_hi / g.h) + 1)
    w0 = max(full_lo, math.floor(t_lo / g.h) - 1)
    return w0, w1


def self_compose(g: GridPLD, k: int, tau: float, max_points: int) -> GridPLD:
    r"""The k-fold composition of ``g`` by one FFT, an elementwise power and one inverse FFT.

    If the full support (``k (n - 1) + 1`` points) fits in ``max_points`` and is not much
    larger than the Chernoff window, it is computed without aliasing. Otherwise a window
    is chosen by the Chernoff bound
    :math:`\mu^{*k}(S > t) \le \exp(k K(\lambda) - \lambda t)` with
    :math:`K(\lambda) = \log \sum_j p_j e^{\lambda l_j}` evaluated on the discretized
    measure itself, so that at most ``tau`` of the composed mass lies outside on each
    side. The circular convolution folds that mass into the window: harmless for an
    upper bound once the high tail's ``tau`` is added to the infinity atom, and
    subtracted (``2 tau`` in ``err``) for a lower bound.

    Round-off of the power: with :math:`\eta` the forward-FFT error bound, the spectrum
    error is at most :math:`k(|\hat A_m| + \eta)^{k-1}\eta` (input error) plus
    :math:`3ku\,|\hat A_m^k|` (binary powering: each complex product adds a relative
    error of at most :math:`\sqrt 5 u` (Brent, Percival and Zimmermann, "Error Bounds on
    Complex Floating-Point Multiplication", Math. Comp. 2007), so a chain for :math:`k`
    adds at most :math:`(k-1)\sqrt 5 u` to first order).
    """
    if k == 1:
        return g
    n = g.p.size
    fa = g.mass()
    # numpy's sum of n non-negative doubles errs by at most n u of it: (b + e)^k - b^k grows
    # with b, so the bounds below take the sum raised by that much (and the lower kind's atom
    # the sum lowered), a relative k n u of the excess that the computed sum alone could miss
    slack = (n + 2) * UNIT_ROUNDOFF
    fa_up, fa_down = fa * (1.0 + slack), fa * (1.0 - slack)
    total = fa_up + g.inf
    # (fa + inf)^k - fa^k, (total + inf_err)^k - total^k, (fa + err)^k - fa^k, in log space
    if fa > 0.0:
        inf = _pow_excess(fa_up if g.kind == "upper" else fa_down, g.inf, k, up=g.kind == "upper")
        prop = _pow_excess(fa_up, g.err, k)
    else:
        inf, prop = _pow(g.inf, k, up=g.kind == "upper"), 0.0
    inf_err = _pow_excess(total, g.inf_err, k) if total > 0.0 else 0.0
    if g.err > 0.0 and (g.inf > 0.0 or g.inf_err > 0.0):
        # an input with errors on both parts (a composed grid; the accountant's singles have
        # none): ||C^k - R^k|| <= (|C| + e)^k - |C|^k for e >= ||C - R|| jointly (upper
        # kind: err + inf_err, see the module docstring); the atom's share is below the
        # whole, so the lower kind's inf_err takes the same bound
        joint = _pow_excess(total, g.err + g.inf_err, k)
        prop, inf_err = joint, (0.0 if g.kind == "upper" else joint)
    facts = _exact_power_facts(g, k)
    if n == 0:
        return GridPLD(g.kind, g.h, k * g.start, np.zeros(0), inf, 0.0, inf_err + prop, k * g.slack,
                       **facts)
    if n == 1:
        return GridPLD(g.kind, g.h, k * g.start, np.array([_pow(float(g.p[0]), k, up=g.kind == "upper")]),
                       inf, prop, inf_err, k * g.slack, **facts)
    full = k * (n - 1) + 1
    alias = False
    w0, length = k * g.start, full
    if full > 4096:
        cw0, cw1 = _chernoff_window(g, k, tau)
        if full > max_points or (cw1 - cw0 + 1) * 1.5 < full:
            w0, length = cw0, cw1 - cw0 + 1
            alias = True
    if alias:
        if length <= 0:
            # the window is empty: the composed finite measure has total mass <= 2 tau
            # (e.g. (1 - delta)^k underflows). Upper: all of it goes to +inf; lower:
            # dropped. Both are valid; the exact facts (hi, ie) still bound the truth.
            if g.kind == "upper":
                inf += min(2.0 * tau, _pow(fa_up, k) + prop)
            return GridPLD(g.kind, g.h, k * g.start, np.zeros(0), inf, 0.0, inf_err + prop,
                           k * g.slack, **facts)
        if length > max_points:
            raise GridTooLargeError(
                f"pld: the {k}-fold composition needs a grid of {length} points at spacing "
                f"h = {g.h:g} (more than max_points = {max_points}); pass a larger "
                f"discretization or max_points, or use method='rdp' or 'optimal'.",
                points=length, h=g.h, max_points=max_points)
    N = next_fast_len(length)
    # the N-point DFT of the input *folded* modulo N (rfft(x, N) would crop a longer x and
    # drop its mass: the window can be narrower than one copy's support, e.g. Laplace with
    # a large epsilon, whose loss spans [-eps, eps] but whose k-fold mass is concentrated)
    A = rfft(_fold(g.p, N), N)
    C = _int_power(A, k)
    c = irfft(C, N)
    shift = (w0 - k * g.start) % N
    c = np.roll(c, -shift)[:length]
    # round-off bound (see docstring)
    logN = math.log2(N)
    eta = FFT_C * UNIT_ROUNDOFF * logN * fa
    absA = np.abs(A)
    with np.errstate(divide="ignore", under="ignore", over="ignore"):
        t1 = (k * eta) * np.exp((k - 1) * np.log(absA + eta))
    # binary powering: relative error <= (k - 1) sqrt(5) u to first order (each complex
    # product adds sqrt(5) u); 3 k u also covers the second-order terms for k u < 1e-3
    t2 = np.abs(C) * (3.0 * k * UNIT_ROUNDOFF)
    dC = t1 + t2
    w = np.full(dC.shape, 2.0)
    w[0] = 1.0
    if N % 2 == 0:
        w[-1] = 1.0
    spec_err = math.sqrt(dot(w * dC, dC))
    c2 = math.sqrt(dot(c, c))
    fresh = spec_err + math.sqrt(N) * FFT_C * UNIT_ROUNDOFF * logN * c2
    np.clip(c, 0.0, None, out=c)
    err = prop + fresh
    if alias:
        if g.kind == "upper":
            inf += tau
        else:
            err += 2.0 * tau
    return GridPLD(g.kind, g.h, w0, c, inf, err, inf_err, k * g.slack, **facts)


def _fold(p: np.ndarray, N: int) -> np.ndarray:
    """p folded modulo N: out[j] = sum of p[j + m N] (p itself when it is not longer than N).

    The N-point DFT of the folded vector equals the DFT of p at the N-th roots of unity,
    so circular convolution (and powers) commute with folding. The sums are of
    non-negative numbers (relative error <= (p.size / N) u, far inside FFT_C's bound).
    """
    if p.size <= N:
        return p
    m = -(-p.size // N)
    pad = np.zeros(m * N)
    pad[: p.size] = p
    return pad.reshape(m, N).sum(axis=0)


def _exact_power_facts(g: GridPLD, k: int) -> dict:
    """``hi``, ``ie``, ``fin``, ``hi_logmass`` of the exact k-fold composition of g."""
    ie, fin, hi_logmass = g.exact_facts()
    lm = k * hi_logmass
    if math.isfinite(lm):
        lm -= 2.0 * UNIT_ROUNDOFF * abs(lm)
    return {"hi": k * g.hi if g.hi is not None else None,
            "ie": _pow_excess(fin, ie, k) if fin > 0.0 else _pow(ie, k),
            "fin": _pow(fin, k), "hi_logmass": lm}


def _int_power(A: np.ndarray, k: int) -> np.ndarray:
    """A**k elementwise by binary powering (k >= 1)."""
    result: np.ndarray | None = None
    base = A
    while True:
        if k & 1:
            result = base.copy() if result is None else result * base
        k >>= 1
        if not k:
            if result is None:  # only when k was 0
                raise ValueError("_int_power needs k >= 1")
            return result
        base = base * base


def _pow(x: float, k: int, up: bool = True) -> float:
    """x**k for x >= 0 without OverflowError (inf above the double range), rounded ``up`` or down.

    exp and log are faithful (within one ulp); k log x carries a rounding of
    u |k log x|, so the relative error is below 4u (|k log x| + 1).
    """
    if x <= 0.0:
        return 0.0
    lx = k * math.log(x)
    if lx > 709.0:
        return math.inf if up else math.exp(709.0)
    rel = 4.0 * UNIT_ROUNDOFF * (abs(lx) + 1.0)
    if up:
        return max(math.exp(lx) * (1.0 + rel), SMALLEST_SUBNORMAL)  # positive, even if it underflows
    return math.exp(lx) * (1.0 - rel)


def _pow_excess(base: float, extra: float, k: int, up: bool = True) -> float:
    """(base + extra)^k - base^k for base > 0, extra >= 0, without cancellation or overflow.

    Written as e^{lb} expm1(x) with lb = k log(base), x = k log1p(extra / base), and
    evaluated as the exponential of its logarithm, so neither factor can overflow on its
    own (base^k may underflow while (1 + extra/base)^k overflows: e.g. base = 0.99,
    extra = 0.01, k = 10^5). Returns ``inf`` above the double range. Rounded ``up``
    (or down) by a relative 8u (|lb| + |x| + |log value| + 2), which covers the
    roundings of the logarithms, of their products with k, of their sum and of the
    exponential; a positive value that underflows is rounded up to the smallest double.
    """
    if extra <= 0.0:
        return 0.0
    lb = k * math.log(base)
    x = k * math.log1p(extra / base)
    if x <= 0.0:
        # k log1p(extra / base) underflowed: the value is below 2^-1074 base^k
        return SMALLEST_SUBNORMAL if up else 0.0
    # log(e^x - 1) = x + log1p(-e^{-x}) for large x, log(expm1(x)) otherwise
    log_val = lb + (x + math.log1p(-math.exp(-x)) if x > 1.0 else math.log(math.expm1(x)))
    if log_val > 709.0:
        return math.inf if up else math.exp(709.0)
    # log_val and its parts carry absolute roundings of a few ulps of their magnitudes
    rel = 8.0 * UNIT_ROUNDOFF * (abs(lb) + abs(x) + abs(log_val) + 2.0)
    if up:
        # a positive value that underflows is still positive: the smallest double bounds it
        return max(math.exp(log_val) * (1.0 + rel), SMALLEST_SUBNORMAL)
    return math.exp(log_val) * (1.0 - rel)
