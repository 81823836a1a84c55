r"""The certified bracket for many distinct epsilons: two exact lattice compositions, second order in the step.

Computing the optimal composition of heterogeneous :math:`(\varepsilon_i, \delta_i)` is
#P-complete (Murtagh and Vadhan), so for many distinct epsilons we bracket it. Both sides
are exact computations on the lattice :math:`\eta\mathbb{Z}` (direct convolution of
non-negative numbers in float64, no FFT: relative error below a few ``u`` per step, and
underflow bounded absolutely and added), and both are *second order* in the step
:math:`\eta` for epsilons that are not lattice points.

**Upper bound (a dominating mixture).** Let :math:`a = n\eta \le \varepsilon < b = (n+1)\eta`.
The flagged mixture :math:`M = \lambda\,RR(b) + (1 - \lambda)\,RR(a)` (the flag that says
which one ran is part of the output) has privacy losses :math:`\pm a, \pm b`, on the lattice.
Its hockey-stick divergence is :math:`\lambda H_\gamma(RR_b) + (1-\lambda) H_\gamma(RR_a)`,
with :math:`H_\gamma(RR_e) = (e^e - \gamma)_+ / (1 + e^e)` for :math:`\gamma \ge 1`. As a
function of :math:`\gamma` the difference :math:`H_\gamma(M) - H_\gamma(RR_\varepsilon)` is
piecewise linear with kinks at :math:`e^a, e^\varepsilon, e^b`, zero from :math:`e^b` on and
non-negative at :math:`e^\varepsilon`, so it is non-negative for every :math:`\gamma \ge 1`
iff it is at :math:`\gamma = 1` and :math:`\gamma = e^a`, i.e. iff
:math:`\lambda \ge \max(\lambda_0, \lambda_1)` with

.. math::

   \lambda_0 = \frac{\tanh(\varepsilon/2) - \tanh(a/2)}{\tanh(b/2) - \tanh(a/2)}
             = \frac{\sinh((\varepsilon - a)/2)\cosh(b/2)}{\sinh(\eta/2)\cosh(\varepsilon/2)},
   \qquad
   \lambda_1 = \frac{(e^\varepsilon - e^a)(1 + e^b)}{(1 + e^\varepsilon)(e^b - e^a)}
             = \frac{\operatorname{expm1}(\varepsilon - a)\,(1 + e^b)}{\operatorname{expm1}(\eta)\,(1 + e^\varepsilon)}.

Both pairs are symmetric, so :math:`H_\gamma(P\|Q) = 1 - \gamma + \gamma H_{1/\gamma}(P\|Q)`
covers :math:`\gamma < 1`. Dominance of every hockey-stick divergence makes :math:`M` a
dominating pair of :math:`RR(\varepsilon)` (Blackwell; equivalently the trade-off function
of :math:`M` is below), and dominating pairs compose: the product of the :math:`M_i`
dominates the product of the :math:`RR(\varepsilon_i)` (Zhu, Dong and Wang, "Optimal
Accounting of Differential Privacy via Characteristic Function", AISTATS 2022, Thm 10).
:math:`\lambda` is computed in floating point and raised by a relative margin that covers
its rounding (a larger :math:`\lambda` only dominates more). The mixture has the mean and
almost the variance of :math:`RR(\varepsilon)`'s loss, so the bound is second order in
:math:`\eta`; it is never above the composition of the :math:`RR(b_i)` (first order).

**Lower bound (a threshold test).** :math:`\delta_{RR}(x) = \sup_A P(A) - e^x Q(A)` over
sets of outcomes :math:`s \in \{\pm1\}^k` of the randomized responses, so *every* set
gives a lower bound. With :math:`n_i` the lattice point nearest to :math:`\varepsilon_i`
and :math:`N(s) = \sum_i s_i n_i`, the sets :math:`A_m = \{N \ge m\}` give

.. math::

   \delta_{RR}(x) \ge \max_m\; P(N \ge m) - e^x\, P(N \le -m),

because :math:`Q(s) = P(-s)` and :math:`N(-s) = -N(s)`. One convolution gives the law of
:math:`N` under :math:`P` (true masses, rounded exponents). It misses only outcomes whose
loss :math:`L = \sum s_i\varepsilon_i` and :math:`\eta N` fall on different sides of the
threshold, each costing :math:`P(s)|1 - e^{x - L(s)}| \approx P(s)|L(s) - x|`: second order.

For large x, where :math:`P(N \le -m)` underflows, the larger of this and the first-order
rounding bound :math:`E_P[(1 - e^{x + R - \eta N})_+]`, :math:`R \ge \sum_i|\varepsilon_i -
n_i\eta| \ge \eta N - L`, is used.

**A-priori width.** :math:`|L - \eta N| \le k\eta/2`, and each mixture is :math:`b_i`-DP, so
:math:`RR(b_i)` dominates it, and the composition of the :math:`RR(b_i)` is at most the
truth shifted by :math:`k\eta` (the coupling that rounds every loss up). Hence
``epsilon_upper - epsilon_lower <= (2k + 1) * eta`` at every delta (the lower threshold
:math:`m = \lceil (x + k\eta/2)/\eta\rceil` alone achieves it), up to the floating-point
slack and the cut-off mass below.

**Windows.** Both convolutions drop the far right tail, and the upper one the far left
tail too (Hoeffding windows, :func:`_run`): at most ``_TRIM`` = 1e-50 of mass in all,
counted as infinite loss on the upper side (so deltas below about 1e-45 are answered
loosely, never wrongly). An explicit ``error``
chooses :math:`\eta = \text{error}/(2k + 1)`. The default step is
:math:`\sqrt{q \sum_i \varepsilon_i / k}` with :math:`q` = :data:`DEFAULT_QUALITY`
(realised width about :math:`0.3 k\eta^2 = 3\cdot 10^{-7}\sum_i\varepsilon_i`), or the
finest step within :data:`DEFAULT_WORK` lattice updates if that one costs more; the
realised width is far below the a-priori one (1000 distinct epsilons in [0.01, 0.2]:
relative width 7.6e-5).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import NamedTuple, Sequence

import numpy as np

from ..._numerics.rounding import SMALLEST_SUBNORMAL, UNIT_ROUNDOFF
from ...errors import MethodNotApplicableError
from .lossdist import _LossDist

#: lattice updates allowed for an explicit ``error`` (about a second or two)
LATTICE_WORK_LIMIT = 6e8
#: lattice updates of the default grid at most (about 0.2 s on W2)
DEFAULT_WORK = 1e8
#: the default step is sqrt(DEFAULT_QUALITY * sum(eps) / k) (when affordable): the realised,
#: second-order width is then about 0.3 k eta^2, i.e. 3e-7 of the sum of the epsilons
DEFAULT_QUALITY = 1e-6
#: the most mechanisms the lattice bracket takes (its work grows at least like k^2)
LATTICE_MAX_K = 20000

#: mass cut off the composed law's two tails in all (Hoeffding windows, counted as error)
_TRIM = 1e-50
#: the most mechanisms on one lattice point merged into one kernel of the lower bound
_RUN = 32



class _Step(NamedTuple):
    """One kernel of the convolution, applied ``times`` times."""

    atoms: tuple[tuple[int, float], ...]  # (shift, mass), sorted by shift
    times: int
    mean: float  # the kernel's mean shift (for the Hoeffding window)
    spans2: float  # sum of the squared spans of the independent mechanisms it merges
    err: float  # relative error of one application, in units of u (masses included)


def _kernel(atoms: Sequence[tuple[int, float]], count: int, spans2: float, err: float) -> _Step:
    atoms = tuple(sorted((s, w) for s, w in atoms if w > 0.0))
    mean = math.fsum(s * w for s, w in atoms)
    return _Step(atoms, count, mean, spans2, err)


def _grid_steps(eps: float, eta: float) -> tuple[int, int]:
    """(floor, ceil) of eps / eta, checked so that floor * eta <= eps <= ceil * eta."""
    r = eps / eta
    fl = int(math.floor(r))
    if r < 1e6 and 1e-9 < r - fl < 1.0 - 1e-9:
        # |computed r - eps/eta| <= u r < 1e-10: strictly between fl and fl + 1
        return fl, fl + 1
    ce = int(math.ceil(r))
    fe, feta = Fraction(eps), Fraction(eta)  # exact comparisons of the lattice points
    while fl > 0 and fl * feta > fe:
        fl -= 1
    while ce * feta < fe:
        ce += 1
    return fl, ce


def _rr_masses(eps: float) -> tuple[float, float]:
    """(e^eps / (1 + e^eps), 1 / (1 + e^eps)), each within 4u relatively (exp within 1 ulp)."""
    e = math.exp(-eps)
    return 1.0 / (1.0 + e), e / (1.0 + e)


def _log_cosh(x: float) -> float:
    x = abs(x)
    return x + math.log1p(math.exp(-2.0 * x)) - math.log(2.0)


def _softplus(x: float) -> float:
    return x + math.log1p(math.exp(-x)) if x > 0.0 else math.log1p(math.exp(x))


def _mixture_weight(eps: float, n: int, eta: float) -> float:
    r"""The weight :math:`\lambda \ge \max(\lambda_0, \lambda_1)` of ``RR(b)`` (module docstring), rounded up.

    ``a = n eta <= eps < b = (n + 1) eta`` exactly (:func:`_grid_steps`). ``d = eps - a``
    is computed as ``eps - fl(n eta)``: the subtraction is exact (Sterbenz: eps/2 <= a
    <= eps for n >= 1; for n = 0 it is eps itself) and the product errs by at most
    ``u a``, an absolute error of at most ``u a / eta = u n`` times the slope
    (<= 2 / eta in d, as sinh(d/2)/sinh(eta/2) and expm1(d)/expm1(eta) times factors <= 2)
    in lambda: covered by the absolute margin ``8 u (n + 2)``. Every other factor is a
    few correctly rounded elementary functions of arguments with relative error <= u
    (and <= u |b| for the exponentials of b): each quotient is within
    ``(16 + 2 (a + b + eps)) u`` relatively; the relative margin is twice that.
    """
    # may round to 0 (or below) while the exact d is positive: the margin covers it
    d = max(0.0, eps - n * eta)
    a, b = n * eta, (n + 1) * eta
    lam0 = (math.sinh(0.5 * d) / math.sinh(0.5 * eta)
            * math.exp(_log_cosh(0.5 * b) - _log_cosh(0.5 * eps)))
    lam1 = math.expm1(d) / math.expm1(eta) * math.exp(_softplus(b) - _softplus(eps))
    margin = (32.0 + 4.0 * (a + b + eps)) * UNIT_ROUNDOFF
    return min(1.0, max(lam0, lam1) * (1.0 + margin) + 8.0 * UNIT_ROUNDOFF * (n + 2))


def _upper_steps(groups: Sequence[tuple[float, int]], eta: float) -> list[_Step]:
    """Per group: the mixture of RR(a) and RR(b) (or RR(eps) itself on a lattice point).

    Masses: 4u (:func:`_rr_masses`), the weight or its complement (exact or within u:
    ``1 - lam`` is exact for lam >= 1/2 and within u/2 above 1/2) and one product: 6u,
    plus ``u (a + b)`` for the rounded arguments ``fl(n eta)`` (``|d log p / dx| <= 1``);
    each application adds ``len(atoms) + 1`` u (:func:`_convolve`).
    """
    steps: list[_Step] = []
    for eps, c in groups:
        fl, ce = _grid_steps(eps, eta)
        if fl == ce:  # on the lattice: randomized response itself, exactly
            p, q = _rr_masses(eps)
            steps.append(_kernel(((ce, p), (-ce, q)), c, (2.0 * ce) ** 2, 4.0 + 3.0))
            continue
        lam = _mixture_weight(eps, fl, eta)
        pa, qa = _rr_masses(fl * eta)
        pb, qb = _rr_masses(ce * eta)
        atoms = [(ce, lam * pb), (-ce, lam * qb), (fl, (1.0 - lam) * pa), (-fl, (1.0 - lam) * qa)]
        # the arguments fl(n eta) err by <= u n eta, which moves p and q by <= that relatively
        steps.append(_kernel(atoms, c, (2.0 * ce) ** 2, 6.0 + 5.0 + 2.0 * ce * eta))
    return steps


def _nearest(groups: Sequence[tuple[float, int]], eta: float) -> list[int]:
    """A nearest lattice point of each epsilon (rounded in floating point; any choice is valid)."""
    return [int(round(eps / eta)) for eps, _ in groups]


def _lower_steps(groups: Sequence[tuple[float, int]], eta: float) -> list[_Step]:
    """Randomized response with its true masses at a nearest lattice point, runs of one point merged.

    Consecutive mechanisms on the same lattice point n (up to :data:`_RUN`) become one
    kernel: the law of ``n * (sum of their signs)``, a Poisson binomial computed by the
    non-negative recursion (per mechanism: masses 4u, one product and one sum per entry,
    so 7u per merged mechanism), applied with ``c + 2`` u. Any lattice points give a valid
    lower bound; the nearest (rounded in floating point) make it tight.
    """
    per: list[tuple[int, float, float]] = []
    for (eps, c), n in zip(groups, _nearest(groups, eta)):
        p, q = _rr_masses(eps)
        per.extend([(n, p, q)] * c)
    steps: list[_Step] = []
    i = 0
    while i < len(per):
        n = per[i][0]
        j = i
        while j < len(per) and j - i < _RUN and per[j][0] == n:
            j += 1
        g = [1.0]
        for _, p, q in per[i:j]:
            g = [a * q + b * p for a, b in zip(g + [0.0], [0.0] + g)]
        c = j - i
        if n == 0:  # every sign gives loss 0: the kernel is the identity
            steps.append(_kernel(((0, math.fsum(g)),), 1, 0.0, 8.0 * c + 2.0))
        else:
            steps.append(_kernel(tuple((n * (2 * l - c), float(w)) for l, w in enumerate(g)),
                                 1, c * (2.0 * n) ** 2, 8.0 * c + 2.0))
        i = j
    return steps


def _extent(steps: Sequence[_Step]) -> tuple[int, int]:
    """(total up-shift, total down-shift) of the steps: the lattice the law can reach."""
    return (sum(st.times * max(0, st.atoms[-1][0]) for st in steps),
            sum(st.times * max(0, -st.atoms[0][0]) for st in steps))


def _run(steps: Sequence[_Step], prune: bool, arrays: list[np.ndarray] | None,
         ) -> tuple[int, int, int, int, int]:
    r"""The window arithmetic of the convolution; with ``arrays = [cur, nxt, tmp]`` it also convolves.

    Returns ``(total up-shift, total down-shift, updates, lo, hi)``; the result is
    ``arrays[0][lo:hi + 1]``. The window after each step is cut above the mean
    :math:`+ t` (with ``prune``, the upper side's law, also below the mean :math:`- t`),
    where Hoeffding's inequality puts at most ``_TRIM / (2 n)`` (n steps) of the mass of
    the full law beyond each side: :math:`P(S - ES \ge t) \le e^{-2t^2 / \sum_i r_i^2}`,
    :math:`r_i` the span of each mechanism's shifts. The computed entries are never above
    the full law's (every operation is a non-negative linear map), so the mass cut off in
    all is at most ``_TRIM`` (times 1 + the relative error). The lower side keeps its
    left tail (it is where :math:`P(N \le -m)` lives), and mass cut from its right tail
    only lowers :math:`P(N \ge m)`: no accounting needed there.
    """
    tot_plus, tot_minus = _extent(steps)
    n_steps = sum(st.times for st in steps)
    log_tail = math.log(2.0 * max(n_steps, 1) / _TRIM)
    lo = hi = offset = tot_minus
    remaining = tot_plus
    work = 0
    mean = 0.0
    spans = 0.0
    for st in steps:
        (s0, w0), rest = st.atoms[0], st.atoms[1:]
        up_, down = max(0, st.atoms[-1][0]), max(0, -s0)
        for _ in range(st.times):
            if arrays is not None:
                cur, nxt, tmp_buf = arrays
                seg = cur[lo:hi + 1]
                tmp = tmp_buf[:hi + 1 - lo]
                # the lowest shift writes its range; the rest of the new window is zeroed
                np.multiply(seg, w0, out=nxt[lo + s0:hi + s0 + 1])
                nxt[hi + s0 + 1:hi + up_ + 1] = 0.0
                for s, w in rest:
                    dst = nxt[lo + s:hi + s + 1]
                    np.multiply(seg, w, out=tmp)
                    np.add(dst, tmp, out=dst)
                arrays[0], arrays[1] = nxt, cur
            lo -= down
            hi += up_
            remaining -= up_
            work += (hi - lo + 1) * len(st.atoms)
            mean += st.mean
            spans += st.spans2
            t = math.sqrt(0.5 * spans * log_tail) + 2.0
            hi = min(hi, int(math.floor(offset + mean + t)))
            if prune:
                lo = max(lo, int(math.ceil(offset + mean - t)), min(offset - remaining + 1, hi))
    return tot_plus, tot_minus, work, lo, hi


def _convolve(steps: Sequence[_Step], prune: bool) -> tuple[np.ndarray, int, int, float, float, float]:
    """The composed law on the lattice: ``(vals, offset, lo, log_err, abs_err, cut)``.

    ``vals[j]`` is the mass of lattice point ``lo + j - offset``; ``cut`` bounds the mass
    cut off (:func:`_run`). With ``prune``, points whose value can no longer become
    positive are dropped as they appear (they never contribute to the profile at x >= 0).
    Each entry of a step is a sum of at most ``len(atoms)`` products of non-negative
    numbers, added into zero: relative error <= (len(atoms) + 1) u, plus the rounding
    of the kernel's masses (``_Step.err`` counts both); underflow loses <= 2^-1074 per
    update.
    """
    tot_plus, tot_minus = _extent(steps)
    size = tot_plus + tot_minus + 1
    arrays = [np.zeros(size), np.zeros(size), np.empty(size)]
    arrays[0][tot_minus] = 1.0
    _, _, work, lo, hi = _run(steps, prune, arrays)
    log_err = sum(st.times * st.err for st in steps) * UNIT_ROUNDOFF
    abs_err = 4.0 * (work + size) * SMALLEST_SUBNORMAL
    cut = _TRIM * (1.0 + math.expm1(log_err) * 1.01 + 4.0 * UNIT_ROUNDOFF)
    return arrays[0][lo:hi + 1].copy(), tot_minus, lo, log_err, abs_err, cut


def _upper_dist(groups: Sequence[tuple[float, int]], eta: float) -> _LossDist:
    r"""The composed dominating mixtures: an upper bound on :math:`\delta_{RR}`, second order in eta."""
    steps = _upper_steps(groups, eta)
    vals, offset, lo, log_err, abs_err, cut = _convolve(steps, prune=True)
    tot_plus = _extent(steps)[0]
    idx = np.arange(lo, lo + vals.size)
    with np.errstate(divide="ignore"):
        logp = np.log(vals)
    losses = (idx - offset).astype(np.float64) * eta
    max_loss = (tot_plus * eta) * (1.0 + 8.0 * UNIT_ROUNDOFF)
    loss_err = 8.0 * UNIT_ROUNDOFF * (max_loss + sum(c * e for e, c in groups) + 1.0)
    exact_eta = Fraction(eta)

    def exact_loss(r: int) -> Fraction:
        return (lo + r - offset) * exact_eta

    # the cut-off mass is counted as infinite loss
    return _LossDist(losses, logp, max_loss=max_loss, tail=cut, log_err=log_err,
                     loss_err=loss_err, abs_err=abs_err, exact_loss=exact_loss)


class _ThresholdLower:
    r"""Lower bound on :math:`\delta_{RR}(x)` from the law of :math:`N = \sum_i s_i n_i` (module docstring).

    The larger of two valid bounds: the threshold sets,
    :math:`\max_m P(N \ge m) - e^x P(N \le -m)` (second order in eta), and, for large x
    where :math:`P(N \le -m)` underflows, the rounding bound
    :math:`E_P[(1 - e^{x + R - \eta N})_+]` with :math:`R \ge \sum_i |\varepsilon_i - n_i\eta|
    \ge \eta N - L` pointwise (first order).
    """

    __slots__ = ("sp", "sq", "floor", "base", "size", "max_loss", "eta", "reach", "dist", "shift")

    def __init__(self, groups: Sequence[tuple[float, int]], eta: float) -> None:
        steps = _lower_steps(groups, eta)
        vals, offset, lo, log_err, abs_err, _ = _convolve(steps, prune=False)
        n = vals.size
        # suffix sums P(N >= lo - offset + j) and prefix sums P(N <= lo - offset + j): sums of
        # n non-negative terms, relative error <= (n - 1) u on top of the entries' own
        rho = math.expm1(log_err + (n + 1) * UNIT_ROUNDOFF) * 1.01 + 4.0 * UNIT_ROUNDOFF
        suffix = np.cumsum(vals[::-1])[::-1]
        prefix = np.cumsum(vals)
        self.sp = np.maximum(0.0, suffix * (1.0 - rho) - abs_err)
        self.floor = abs_err + SMALLEST_SUBNORMAL
        self.sq = prefix * (1.0 + rho) + self.floor
        self.base = offset - lo  # index of N = 0
        self.size = n
        self.eta = eta
        self.max_loss = sum(c * e for e, c in groups)
        # the thresholds tried: within k/2 + 64 lattice points of x / eta (every threshold
        # gives a valid bound; the best lies where eta N crosses x, |L - eta N| <= k eta / 2)
        self.reach = sum(c for _, c in groups) // 2 + 64
        # R >= sum of the rounding distances |eps - n eta|: the product n eta errs by <= u n eta
        # and the difference by <= u of itself, each term is raised by 2u (n eta + d) and
        # the correctly rounded sum (fsum) by 4u
        terms = []
        for (eps, c), m in zip(groups, _nearest(groups, eta)):
            d = abs(eps - m * eta)
            terms.append(c * (d + 2.0 * UNIT_ROUNDOFF * (m * eta + d)))
        self.shift = math.fsum(terms) * (1.0 + 4.0 * UNIT_ROUNDOFF)
        with np.errstate(divide="ignore"):
            logp = np.log(vals)
        losses = (np.arange(lo, lo + n) - offset).astype(np.float64) * eta
        max_n = self.max_loss + self.shift
        self.dist = _LossDist(losses, logp, max_loss=max_n * (1.0 + 8.0 * UNIT_ROUNDOFF), tail=0.0,
                              log_err=log_err, loss_err=4.0 * UNIT_ROUNDOFF * (max_n + 1.0),
                              abs_err=abs_err)

    def lower(self, x: float) -> float:
        if x >= self.max_loss or not math.isfinite(x):
            return 0.0
        return max(self._threshold(x), self.dist.lower(x + self.shift))

    def _threshold(self, x: float) -> float:
        center = self.base + int(math.floor(x / self.eta))
        j = np.arange(max(0, center - self.reach), min(self.size, center + self.reach + 1))
        if j.size == 0:
            return 0.0
        q_idx = 2 * self.base - j  # P(N <= -m) with m = j - base
        sq = np.where(q_idx < 0, self.floor, self.sq[np.clip(q_idx, 0, self.size - 1)])
        sq = np.where(q_idx >= self.size, self.sq[-1], sq)
        if x <= 700.0:
            ex = math.exp(x) * (1.0 + 4.0 * UNIT_ROUNDOFF)
            q_part = ex * sq * (1.0 + 4.0 * UNIT_ROUNDOFF)
        else:
            # e^x overflows: exp(x + log sq), whose argument errs by <= u (|x| + 2 |log sq|)
            log_sq = np.log(sq)
            slack = 4.0 * UNIT_ROUNDOFF * (abs(x) + 2.0 * np.abs(log_sq) + 4.0)
            with np.errstate(over="ignore"):
                q_part = np.exp(x + log_sq + slack)
        # the products and the difference each round once: take 4u off the positive part
        vals = self.sp[j] * (1.0 - 4.0 * UNIT_ROUNDOFF) - q_part
        best = float(np.max(vals))
        return max(0.0, best * (1.0 - 4.0 * UNIT_ROUNDOFF))


def _lattice_work(groups: Sequence[tuple[float, int]], eta: float) -> float:
    """An estimate of the updates of both convolutions at step ``eta`` (:func:`_run`'s windows).

    Vectorized over the mechanisms, from the shifts alone (means from the randomized
    responses'); it only sizes the grid, so it need not be exact (it is within a few
    percent of the count :func:`_run` makes).
    """
    eps = np.repeat(np.array([e for e, _ in groups], dtype=np.float64),
                    np.array([c for _, c in groups], dtype=np.int64))
    if eps.size == 0:
        return 0.0
    log_tail = math.log(2.0 * eps.size / _TRIM)
    r = eps / eta
    ce = np.ceil(r)
    mean = np.cumsum(r * np.tanh(0.5 * eps))
    # upper: up to 4 atoms, both tails cut, and the part that can no longer become positive
    reach = np.cumsum(ce)
    t = np.sqrt(0.5 * np.cumsum((2.0 * ce) ** 2) * log_tail) + 2.0
    hi = np.minimum(reach, mean + t)
    lo = np.maximum.reduce([-reach, mean - t, reach - reach[-1] + 1.0])
    upper = 4.0 * float(np.sum(np.maximum(hi - lo, 0.0) + 1.0))
    # lower: runs of one lattice point merged (c + 1 atoms per run), the left tail kept
    n = np.rint(r)
    reach = np.cumsum(n)
    t = np.sqrt(0.5 * np.cumsum((2.0 * n) ** 2) * log_tail) + 2.0
    window = np.minimum(reach, mean + t) + reach + 1.0
    ends = np.flatnonzero(np.diff(n, append=-1.0))  # the last mechanism of each run
    runs = np.diff(ends, prepend=-1)
    lower = float(np.sum(window[ends] * (np.minimum(runs, _RUN) + 1.0)
                         * np.ceil(runs / _RUN)))
    return upper + lower


def _finest_step(groups: Sequence[tuple[float, int]], eta: float, work: float, limit: float) -> float:
    """The smallest grid step (to ~10%, at least ``eta``, whose work is ``work``) within ``limit`` updates."""
    if work <= limit:
        return eta
    # the work is about proportional to 1 / eta: two proportional corrections (never
    # below the given eta), then steps up until it fits
    floor = eta
    for _ in range(2):
        eta = max(floor, eta * work / (0.97 * limit))
        work = _lattice_work(groups, eta)
    for _ in range(200):
        if work <= limit:
            return eta
        eta *= 1.05
        work = _lattice_work(groups, eta)
    return math.inf


def _choose_step(groups: Sequence[tuple[float, int]], error: float | None) -> float:
    """Grid step for the heterogeneous bracket (a-priori width <= (2k + 1) step), or a clear refusal."""
    k = sum(c for _, c in groups)
    if k > LATTICE_MAX_K:
        raise MethodNotApplicableError(
            f"method 'optimal': {k} mechanisms with {len(groups)} distinct epsilons are too "
            f"many for an exact enumeration and for the certified lattice bracket (at most "
            f"{LATTICE_MAX_K} mechanisms); use method='pld', or group the mechanisms into "
            f"fewer distinct epsilons."
        )
    if error is None:
        # the realised width is second order (about 0.3 k eta^2 on W2): aim at
        # DEFAULT_QUALITY, within DEFAULT_WORK updates (else the finest grid within them)
        eta = math.sqrt(DEFAULT_QUALITY * math.fsum(c * e for e, c in groups) / k)
        work = _lattice_work(groups, eta)
        if work <= DEFAULT_WORK:
            return eta
        # the finest grid within DEFAULT_WORK, else (many mechanisms) within the hard limit
        best = _finest_step(groups, eta, work, DEFAULT_WORK)
        if not math.isfinite(best):
            best = _finest_step(groups, eta, work, LATTICE_WORK_LIMIT)
        if not math.isfinite(best):
            raise MethodNotApplicableError(
                f"method 'optimal': no lattice for {k} mechanisms with {len(groups)} distinct "
                f"epsilons fits the work limit {LATTICE_WORK_LIMIT:.3g}; use method='pld'.")
        return best
    eta = error / (2 * k + 1)
    work = _lattice_work(groups, eta)
    if work > LATTICE_WORK_LIMIT:
        best = (2 * k + 1) * _finest_step(groups, eta, work, LATTICE_WORK_LIMIT)
        if not math.isfinite(best):
            raise MethodNotApplicableError(
                f"method 'optimal': no lattice for {k} mechanisms with {len(groups)} distinct "
                f"epsilons fits the work limit {LATTICE_WORK_LIMIT:.3g}; use method='pld'."
            )
        raise MethodNotApplicableError(
            f"method 'optimal': a bracket of width error = {error!r} for {k} mechanisms with "
            f"{len(groups)} distinct epsilons needs more than {LATTICE_WORK_LIMIT:.3g} lattice "
            f"updates; pass error >= {best:.3g} (or error=None for the finest feasible), or "
            f"use method='pld'."
        )
    return eta
