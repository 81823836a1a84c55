r"""The mixture-of-Gaussians family: every rule of ``MixtureOfGaussians(sigma, sensitivities, probabilities)``.

In units of :math:`\sigma` (:math:`z = x/\sigma`, :math:`\mu_i = c_i/\sigma`) the pair is
``A`` = :math:`N(0, 1)` (without the record) and ``B`` = :math:`\sum_i p_i N(\mu_i, 1)`
(with it), with inner loss

.. math:: L(z) = \log\frac{dB}{dA}(z) = \log\sum_i p_i e^{\mu_i z - \mu_i^2/2},

a log-sum-exp of affine functions: convex, and non-decreasing because
:math:`L'(z) = \sum_i w_i(z)\mu_i \ge 0` with the weights
:math:`w_i \propto p_i e^{\mu_i z - \mu_i^2/2}` (strictly increasing, as some
:math:`\mu_i > 0`). It tends to :math:`+\infty` as :math:`z \to \infty` and to
:math:`\log p_0` (the weight of the offsets equal to 0; :math:`-\infty` if none) as
:math:`z \to -\infty`.

The pair is not symmetric: the "remove" orientation is ``(B, A)`` (loss :math:`L` under
``B``) and the "add" orientation ``(A, B)`` (loss :math:`-L` under ``A``); both are
composed (``asymmetric_pair``), as for Poisson subsampling.

- **dominating pair**: one segment over the real line with ``normal_mixture``, so ``pld``
  cuts each component's tails at its own quantiles and counts the cut mass as in the
  Gaussian case (high-loss tail at :math:`+\infty`, low-loss tail moved up);
- **privacy profile**: exact, both orientations, by the threshold where the monotone
  loss crosses :math:`\varepsilon` (:func:`mixture_log_delta`), rounded up;
- **Renyi curve**: an upper bound on both orientations at every order by piecewise
  chord (remove, convex exponent) and tangent (add, concave exponent) bounds integrated in
  closed form against the Gaussian (:func:`rdp_mixture`), not exact;
- **syntax**: ``mixture_of_gaussians(sigma, sensitivities=[...], probabilities=[...])``
  (also ``mog``) in expressions, ``type = "mixture_of_gaussians"`` in plan tables, with
  list-valued parameters checked element-wise; calibrated in ``sigma`` (more noise is more
  private: adding independent :math:`N(0, \tau^2)` to the output is post-processing and
  gives the same mixture at :math:`\sqrt{\sigma^2 + \tau^2}`);
- no (epsilon, delta) pair, no pure epsilon.

Floating point: :math:`\mu_i = c_i/\sigma` is rounded to nearest; the change of the loss
it causes (at most :math:`|z|\mu_i` times an ulp) is inside the 64-ulp margins below,
which are taken over magnitudes that include :math:`|z|\max\mu_i`.
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from .._numerics.lazy import lazy_function
from .._numerics.logspace import LOG_SQRT_2PI
from .._numerics.rounding import MACHINE_EPSILON, SMALLEST_DELTA
from ..mechanisms import MixtureOfGaussians
from .pairs import DominatingPair, PairSegment
from .renyi import _orders_arg, _round_up_curve
from .syntax import MechanismSyntax, Parameter, register_syntax
from .rules import (
    DominanceKey,
    dominance_key,
    dominating_pair,
    eps_delta_pair,
    privacy_profile,
    pure_epsilon,
    renyi_curve,
)

log_ndtr = lazy_function("scipy.special", "log_ndtr")  # imported on first use (cold start)

__all__ = ["mixture_log_delta", "mixture_pair", "rdp_mixture"]

Profile = Callable[[float], float]

#: the relative margin (in machine epsilons, over the magnitudes involved) of every
#: floating-point evaluation below: a few operations of a few ulps each, plus the
#: rounding of mu_i = c_i / sigma (see the module docstring)
_ULPS = 64.0


class _Mixture:
    """The loss L(z) = log sum_i p_i exp(mu_i z - mu_i^2 / 2) of one mixture, vectorised."""

    def __init__(self, means: tuple[float, ...], probabilities: tuple[float, ...]) -> None:
        self.mu = np.asarray(means, dtype=float)
        self.log_p = np.log(np.asarray(probabilities, dtype=float))
        self.p = np.asarray(probabilities, dtype=float)
        self.shift = self.log_p - 0.5 * self.mu * self.mu
        zero = self.mu == 0.0
        self.log_p0 = float(np.logaddexp.reduce(self.log_p[zero])) if zero.any() else -math.inf
        self.mu_max = float(self.mu.max())
        pos = self.mu > 0.0
        self.mu_pos, self.shift_pos = self.mu[pos], self.shift[pos]

    def terms(self, z: np.ndarray) -> np.ndarray:
        return np.asarray(z, dtype=float)[..., None] * self.mu + self.shift

    def loss(self, z: np.ndarray) -> np.ndarray:
        return np.logaddexp.reduce(self.terms(z), axis=-1)

    def loss_margin(self, z: float) -> float:
        """A bound on the floating-point error of :meth:`loss` at ``z``."""
        mags = np.abs(z * self.mu) + np.abs(self.shift)
        return _ULPS * MACHINE_EPSILON * (1.0 + float(mags.max()) + abs(float(self.loss(np.array(z)))))

    def slope(self, z: np.ndarray) -> np.ndarray:
        t = self.terms(z)
        w = np.exp(t - t.max(axis=-1, keepdims=True))
        return (w * self.mu).sum(axis=-1) / w.sum(axis=-1)

    def inverse(self, v: np.ndarray) -> np.ndarray:
        """The z with L(z) = v (``-inf`` where v <= log p0, the infimum of L).

        Newton's method from the right: L is convex and increasing, so from a start above
        the root the iterates decrease monotonically to it. The start
        :math:`\\min_i (v - \\log p_i + \\mu_i^2/2)/\\mu_i` over the positive offsets is
        above the root (each single term is below L).
        """
        v = np.asarray(v, dtype=float)
        out = np.full(v.shape, -math.inf)
        ok = v > self.log_p0
        if not ok.any():
            return out
        vv = v[ok]
        z = np.min((vv[..., None] - self.shift_pos) / self.mu_pos, axis=-1)
        for _ in range(200):
            step = (self.loss(z) - vv) / self.slope(z)
            z_new = z - np.maximum(step, 0.0)  # never step left of the convex chord's root
            if np.all(z_new == z):
                break
            z = z_new
        out[ok] = z
        return out


def mixture_pair(m: MixtureOfGaussians) -> DominatingPair:
    """The pair of ``m`` in units of sigma: one segment over the real line (see the module docstring)."""
    mix = _Mixture(m.means, m.probabilities)
    comps = tuple((float(p), float(mu)) for p, mu in zip(mix.p, mix.mu))

    def b_density(z: np.ndarray) -> np.ndarray:
        z = np.asarray(z, dtype=float)
        return np.exp(np.logaddexp.reduce(mix.log_p - 0.5 * (z[..., None] - mix.mu) ** 2, axis=-1) - LOG_SQRT_2PI)

    segment = PairSegment(
        -math.inf, math.inf,
        loss=mix.loss,
        inverse=mix.inverse,
        a_density=lambda z: np.exp(-0.5 * np.asarray(z, dtype=float) ** 2 - LOG_SQRT_2PI),
        b_density=b_density,
        increasing=True, normal_mixture=comps)
    # the loss accumulates at log p0 (remove) and -log p0 (add): pld aligns its grid to it
    anchor = -mix.log_p0 if 0.0 < -mix.log_p0 < math.inf else None
    return DominatingPair((), (segment,), grid_anchor=anchor, symmetric=False)


# ---------------------------------------------------------------------------
# the privacy profile


def _bracket(mix: _Mixture, target: float) -> tuple[float, float]:
    """``(zl, zh)`` with certainly :math:`L(zl) < target < L(zh)` (target > log p0)."""
    z = float(mix.inverse(np.array([target]))[0])
    eta = 1e-12 * (1.0 + abs(z))
    for _ in range(200):
        zl, zh = z - eta, z + eta
        lo_ok = float(mix.loss(np.array(zl))) + mix.loss_margin(zl) < target
        hi_ok = float(mix.loss(np.array(zh))) - mix.loss_margin(zh) > target
        if lo_ok and hi_ok:
            return zl, zh
        eta *= 4.0
    raise ArithmeticError(f"no certified bracket for L(z) = {target!r}")  # pragma: no cover


def _log_mix_tail(mix: _Mixture, x: np.ndarray) -> float:
    """log sum_i p_i Phi(x_i) (x_i one argument per component)."""
    return float(np.logaddexp.reduce(mix.log_p + log_ndtr(x)))


#: where the crude tail bound's logarithm is below this, it is the answer (large epsilons:
#: the threshold would lie beyond the range where doubles can bracket it)
_CRUDE_ENOUGH = -700.0


def _log_tail_bound(mix: _Mixture, e: float, direction: str) -> float:
    r"""A crude upper bound on :math:`\log\delta` of one orientation: the first law's tail beyond the threshold.

    Remove: :math:`\delta \le B(z > z^*)` and :math:`L(z) \le \mu_{\max} z` for
    :math:`z \ge 0` (each exponent :math:`\mu_i z - \mu_i^2/2 \le \mu_{\max} z`, weights
    summing to 1), so :math:`z^* \ge \varepsilon/\mu_{\max}` and
    :math:`\delta \le \bar\Phi(\varepsilon/\mu_{\max} - \mu_{\max})`. Add:
    :math:`\delta \le A(z < z^*)` and :math:`L \ge \log p_j + \mu_j z - \mu_j^2/2`, so
    :math:`z^* \le \min_j (-\varepsilon - \log p_j + \mu_j^2/2)/\mu_j` over positive
    :math:`\mu_j`. Arguments moved 64 ulps to the safe side.
    """
    slack = _ULPS * MACHINE_EPSILON
    if direction == "remove":
        with np.errstate(over="ignore"):
            x = e / mix.mu_max * (1.0 - slack) - mix.mu_max * (1.0 + slack)
        return float(log_ndtr(-x)) + slack
    with np.errstate(over="ignore"):
        z_up = float(np.min((-e - mix.log_p[mix.mu > 0.0] + 0.5 * mix.mu_pos ** 2) / mix.mu_pos))
    if z_up == -math.inf:
        return -math.inf  # the threshold lies beyond every double: nothing below it
    z_up += slack * (1.0 + abs(z_up) + e)
    return float(log_ndtr(z_up)) + slack


def mixture_log_delta(m: MixtureOfGaussians, e: float, direction: str) -> float:
    r"""An upper bound on :math:`\log H_{e^e}` of one orientation of the mixture pair.

    Args:
        m: the mechanism.
        e: :math:`\varepsilon \ge 0` (finite).
        direction: ``"remove"``, :math:`H(B\|A)`, or ``"add"``, :math:`H(A\|B)`.

    The loss is monotone (module docstring), so with :math:`\gamma = e^{\varepsilon}`:

    - remove: :math:`\delta = X(z^*) - \gamma Y(z^*)` with :math:`L(z^*) = \varepsilon`,
      :math:`X(z) = \sum_i p_i\bar\Phi(z - \mu_i)` (``B`` above z) and
      :math:`Y(z) = \bar\Phi(z)` (``A`` above z);
    - add: :math:`\delta = X(z^*) - \gamma Y(z^*)` with :math:`L(z^*) = -\varepsilon`,
      :math:`X(z) = \Phi(z)` and :math:`Y(z) = \sum_i p_i\Phi(z - \mu_i)`; where
      :math:`-\varepsilon \le \log p_0` (the infimum of L) the divergence is exactly 0.

    Rounding (derived here): :math:`F(z) = X(z) - \gamma Y(z)` is largest at the
    threshold :math:`z^*`, which is bracketed, certainly, as
    :math:`z_l < z^* < z_h` (the loss evaluated with its error margin). At
    :math:`z_l`: :math:`F(z^*) - F(z_l) = \int_{z_l}^{z^*}\gamma a(1 - e^{L - \varepsilon})
    \le \gamma(z_h - z_l)\max a \cdot g` (remove) and
    :math:`\int_{z_l}^{z^*} a(1 - e^{L + \varepsilon}) \le (z_h - z_l)\max a \cdot g` (add),
    with :math:`a` the :math:`N(0,1)` density on the bracket and
    :math:`g = \min(1, t - L(z_l))` (t the threshold's level; :math:`1 - e^{-x} \le \min(1, x)`
    and L is monotone), so the slack is second order in the bracket's width. :math:`F(z_l)` is
    evaluated as :math:`X(1 - e^{d})`, :math:`d = \varepsilon + \log Y - \log X`, with
    ``log_ndtr``, ``log X`` raised and ``d`` lowered by 64 ulps of the magnitudes
    involved. The result is at least the true divergence.
    """
    mix = _Mixture(m.means, m.probabilities)
    target = e if direction == "remove" else -e
    if target <= mix.log_p0:
        return -math.inf  # add direction: the loss -L never exceeds -log p0 <= e
    crude = _log_tail_bound(mix, e, direction)
    if crude < _CRUDE_ENOUGH:
        return crude  # below every double's logarithm but valid: no threshold needed
    zl, zh = _bracket(mix, target)
    if direction == "remove":
        log_x = _log_mix_tail(mix, mix.mu - zl)
        log_y = float(log_ndtr(-zl))
        slack_scale = e
    else:
        log_x = float(log_ndtr(zl))
        log_y = _log_mix_tail(mix, zl - mix.mu)
        slack_scale = 0.0
    mags = (4.0 + abs(log_x) + abs(log_y) + e + float(np.abs(mix.log_p).max())
            + abs(zl) * (1.0 + mix.mu_max) + mix.mu_max ** 2)
    err = _ULPS * MACHINE_EPSILON * mags
    d = e + log_y - log_x - err  # lowered: a smaller Y/X is a larger (safe) F
    log_f = -math.inf
    if d < 0.0:
        log_f = log_x + err + math.log(-math.expm1(d))
    # the bracket's slack: (zh - zl) * gamma^{[remove]} * max of the N(0,1) density on it
    # * min(1, target - L(zl)) (the integrand vanishes at the threshold, see the docstring)
    z_near = 0.0 if zl <= 0.0 <= zh else min(abs(zl), abs(zh))
    gap = min(1.0, target - (float(mix.loss(np.array(zl))) - mix.loss_margin(zl)))
    log_slack = (math.log(zh - zl) + math.log(gap) * (1.0 + 4.0 * MACHINE_EPSILON) + slack_scale
                 - 0.5 * z_near * z_near - LOG_SQRT_2PI)
    out = float(np.logaddexp(log_f, log_slack))
    return out + _ULPS * MACHINE_EPSILON * (1.0 + abs(out))


def mixture_profile(m: MixtureOfGaussians) -> Profile:
    """The exact profile of ``m`` (the larger orientation), rounded up (:func:`mixture_log_delta`)."""

    def profile(e: float) -> float:
        if math.isinf(e):
            return 0.0  # the loss is finite everywhere
        e = max(float(e), 0.0)
        log_d = max(mixture_log_delta(m, e, "remove"), mixture_log_delta(m, e, "add"))
        # the remove orientation's loss is unbounded above: the truth is positive at finite e
        return min(1.0, max(SMALLEST_DELTA, math.exp(log_d)))

    return profile


# ---------------------------------------------------------------------------
# the Renyi curve

#: cells of the piecewise bound per order (the spacing is the larger of _DZ and span / _CELLS)
_CELLS = 4000
_DZ = 5e-3
#: how far beyond the integrand's peak region the cells reach (the tails are bounded in closed form)
_REACH = 15.0


def _log_ndtr_diff(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """log(Phi(b) - Phi(a)) for a < b, and a bound on its absolute error (both arrays)."""
    a, b = np.broadcast_arrays(np.asarray(a, dtype=float), np.asarray(b, dtype=float))
    flip = a >= 0.0  # Phi(b) - Phi(a) = Phi(-a) - Phi(-b): keep both arguments <= 0
    hi = np.where(flip, -a, b)
    lo = np.where(flip, -b, a)
    mid = (a < 0.0) & (b > 0.0)
    l_hi, l_lo = log_ndtr(np.where(mid, 0.0, hi)), log_ndtr(np.where(mid, 0.0, lo))
    d = l_lo - l_hi
    with np.errstate(divide="ignore", invalid="ignore"):
        side = l_hi + np.log(-np.expm1(d))
        # (an infinite endpoint, Phi = 0 there, adds no rounding: then the error is l_hi's)
        l_lo_mag = np.where(np.isfinite(l_lo), np.abs(l_lo), 0.0)
        side_err = np.where(np.isfinite(d), _ULPS * MACHINE_EPSILON * (1.0 + np.abs(l_hi) + l_lo_mag) / np.abs(d),
                            _ULPS * MACHINE_EPSILON * (1.0 + np.abs(l_hi)))
        # straddling 0: 1 - Phi(a) - Phi(-b), each term at most 1/2 (no cancellation)
        both = np.log1p(-(np.exp(log_ndtr(np.where(mid, a, 0.0))) + np.exp(log_ndtr(np.where(mid, -b, 0.0)))))
    out = np.where(mid, both, side)
    err = np.where(mid, _ULPS * MACHINE_EPSILON * 4.0, side_err + _ULPS * MACHINE_EPSILON * (1.0 + np.abs(side)))
    return out, err


def _log_gauss_exp(c: np.ndarray, s: np.ndarray, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r"""log of :math:`\int_a^b \varphi(z) e^{c + s z} dz = e^{c + s^2/2}(\Phi(b - s) - \Phi(a - s))`, and its error bound."""
    log_d, err = _log_ndtr_diff(a - s, b - s)
    out = c + 0.5 * s * s + log_d
    ends = np.where(np.isfinite(a), np.abs(a), 0.0) + np.where(np.isfinite(b), np.abs(b), 0.0)  # inf: no rounding
    err = err + _ULPS * MACHINE_EPSILON * (1.0 + np.abs(c) + s * s + np.abs(log_d) + np.abs(s) * ends)
    return out, err


def _log_moment(mix: _Mixture, alpha: float, direction: str) -> float:
    r"""An upper bound on :math:`\log E_A[e^{\lambda L}]`, :math:`\lambda = \alpha` (remove) or :math:`1 - \alpha` (add).

    Remove (:math:`D_\alpha(B\|A) = \frac{1}{\alpha-1}\log E_A[(dB/dA)^\alpha]`): the exponent
    :math:`\alpha L` is convex, so on each cell of a grid it lies below its chord; beyond
    the last node :math:`L(z) \le L(z_n) + \mu_{\max}(z - z_n)` (:math:`L' \le \mu_{\max}`) and
    before the first :math:`L(z) \le L(z_0)` (L increasing). Add
    (:math:`D_\alpha(A\|B) = \frac{1}{\alpha-1}\log E_A[(dB/dA)^{1-\alpha}]`): the exponent
    :math:`(1-\alpha)L` is concave, so it lies below its tangent at each cell's midpoint (and
    below the tangent at the first node on the whole left half-line); beyond the last node it
    is at most its value there (decreasing). Each piece is :math:`\varphi(z)e^{c + sz}`,
    integrated in closed form (:func:`_log_gauss_exp`); the pieces cover the real line, so the
    sum bounds the moment (derived here). The bound's excess is second order in the spacing.
    Rounding: node values are raised by the loss's error margin (times :math:`|\lambda|`), a
    tangent's slope error times half a cell is added, and every closed-form piece carries its
    own error bound; the sum of positive terms adds a few ulps.
    """
    lam = alpha if direction == "remove" else 1.0 - alpha
    if direction == "remove":
        lo, hi = -_REACH, alpha * mix.mu_max + _REACH
    else:
        lo, hi = -(alpha - 1.0) * mix.mu_max - _REACH, _REACH
    n = max(2, min(_CELLS, int(math.ceil((hi - lo) / _DZ))))
    z = np.linspace(lo, hi, n + 1)
    L = mix.loss(z)
    marg = np.array([mix.loss_margin(float(x)) for x in (z[0], z[-1])])
    # one margin for all nodes: the largest magnitudes are at the ends
    m_all = float(marg.max()) + _ULPS * MACHINE_EPSILON * float(np.abs(L).max())
    logs: list[np.ndarray] = []
    errs: list[np.ndarray] = []
    if direction == "remove":
        G = lam * (L + m_all)
        za, zb = z[:-1], z[1:]
        s = (G[1:] - G[:-1]) / (zb - za)
        c = G[:-1] - s * za
        pad = _ULPS * MACHINE_EPSILON * (np.abs(G[:-1]) + np.abs(G[1:]) + np.abs(s) * (np.abs(za) + np.abs(zb)))
        t, e = _log_gauss_exp(c + pad, s, za, zb)
        logs.append(t)
        errs.append(e)
        s_r = np.array([lam * mix.mu_max])
        t, e = _log_gauss_exp(G[-1:] - s_r * z[-1], s_r, z[-1:], np.array([math.inf]))
        logs += [t, np.array([G[0] + float(log_ndtr(z[0]))])]
        errs += [e, np.array([_ULPS * MACHINE_EPSILON * (1.0 + abs(G[0]) + abs(z[0]) ** 2)])]
    else:
        mids = 0.5 * (z[:-1] + z[1:])
        F = lam * mix.loss(mids) - lam * m_all  # lam < 0: raised
        s = lam * mix.slope(mids)
        half = 0.5 * (z[1:] - z[:-1])
        # the slope (a weighted mean of the mu_i) to a few ulps of the exponents' magnitudes
        slope_scale = mix.mu_max * (4.0 + mix.mu_max * np.abs(mids) + float(np.abs(mix.shift).max()))
        slope_err = abs(lam) * _ULPS * MACHINE_EPSILON * slope_scale
        c = F - s * mids + slope_err * half
        t, e = _log_gauss_exp(c, s, z[:-1], z[1:])
        logs.append(t)
        errs.append(e)
        F0 = lam * float(mix.loss(np.array(z[0]))) - lam * m_all
        # on the left half-line a smaller slope only raises the tangent: lower it by its error
        err0 = abs(lam) * _ULPS * MACHINE_EPSILON * mix.mu_max * (
            4.0 + mix.mu_max * abs(float(z[0])) + float(np.abs(mix.shift).max()))
        s0 = lam * float(mix.slope(np.array([z[0]]))[0]) - err0
        t, e = _log_gauss_exp(np.array([F0 - s0 * z[0]]), np.array([s0]), np.array([-math.inf]), z[:1])
        Fn = lam * float(L[-1]) - lam * m_all
        logs += [t, np.array([Fn + float(log_ndtr(-z[-1]))])]
        errs += [e, np.array([_ULPS * MACHINE_EPSILON * (1.0 + abs(Fn) + z[-1] ** 2)])]
    allt = np.concatenate(logs) + np.concatenate(errs)
    if np.isnan(allt).any() or (allt == math.inf).any():
        return math.inf  # a piece that could not be bounded: the trivial bound
    allt = allt[allt > -math.inf]  # pieces of mass 0
    top = float(allt.max())
    total = math.fsum(np.exp(allt - top).tolist())
    return top + math.log(total) + _ULPS * MACHINE_EPSILON * (4.0 + abs(top))


def rdp_mixture(m: MixtureOfGaussians, orders: Any = None) -> np.ndarray:
    r"""Renyi curve of ``m``: the larger orientation at each order, an upper bound.

    Both orientations by :func:`_log_moment` (piecewise chord / tangent bounds of the
    exponent, integrated in closed form), then divided by :math:`\alpha - 1` and rounded up
    (:func:`~.renyi._round_up_curve`). Not exact: its excess over the truth is second order
    in the cell width (measured in ``tests/test_mixture.py``).

    Guarantee:
        upper bound on :math:`\max(D_\alpha(B\|A), D_\alpha(A\|B))` at every order, for
        add/remove neighbours (the pair of the module docstring).
    """
    a = _orders_arg(orders)
    mix = _Mixture(m.means, m.probabilities)
    log_a = np.array([max(_log_moment(mix, float(al), "remove"), _log_moment(mix, float(al), "add")) for al in a])
    return _round_up_curve(log_a, a, 4.0 + np.abs(log_a))


# ---------------------------------------------------------------------------
# rules


@eps_delta_pair.register(MixtureOfGaussians)
def _(m: MixtureOfGaussians) -> None:
    return None  # described by its profile and pair (like the Gaussian)


@privacy_profile.register(MixtureOfGaussians)
def _(m: MixtureOfGaussians) -> Profile:
    return mixture_profile(m)


@dominating_pair.register(MixtureOfGaussians)
def _(m: MixtureOfGaussians, *, epsilon: float | None = None) -> DominatingPair:
    return mixture_pair(m)


@pure_epsilon.register(MixtureOfGaussians)
def _(m: MixtureOfGaussians) -> float:
    return math.inf  # the loss is unbounded: no pure DP


@renyi_curve.register(MixtureOfGaussians)
def _(m: MixtureOfGaussians, orders: Any = None) -> np.ndarray:
    return rdp_mixture(m, orders)


@dominance_key.register(MixtureOfGaussians)
def _(m: MixtureOfGaussians) -> DominanceKey:
    # only equal mixtures compare (no order between different mixtures is proven here)
    return DominanceKey(f"mixture_of_gaussians:{m.sigma!r}:{m.sensitivities!r}:{m.probabilities!r}", ())


# the noise parameter sigma: a larger sigma is the output plus independent Gaussian noise
# (post-processing), so it is more private; no initial guess (the offsets are not passed to it)
register_syntax(MechanismSyntax(
    "mixture_of_gaussians", MixtureOfGaussians,
    (Parameter("sigma", "noise standard deviation > 0",
               "the noise standard deviation must be a finite number > 0, e.g. sigma = 1", gt=0),
     Parameter("sensitivities", "the offsets c_i >= 0 (L2 norms), at least one positive",
               "give the offsets as a list of numbers >= 0, e.g. sensitivities = [0, 1]",
               ge=0, sequence=True),
     Parameter("probabilities", "the probability p_i of each offset, in [0, 1], summing to 1",
               "give one probability in [0, 1] per offset, summing to 1, e.g. probabilities = [0.99, 0.01]",
               ge=0, le=1, sequence=True, same_length_as="sensitivities")),
    "A Gaussian of standard deviation sigma whose offset is c_i with probability p_i (the MoG mechanism "
    "of amplified matrix mechanisms; (0, 1), (1 - q, q) is the Poisson-subsampled Gaussian).",
    "MixtureOfGaussiansSpec", aliases=("mog", "mixtureofgaussians"), noise="sigma"))
