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
- no Renyi curve (``rdp`` refuses: the "add" orientation's Renyi divergence has no
  certified evaluation here), no (epsilon, delta) pair, no pure epsilon, no syntax (the
  expression language has no list-valued parameters).

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
from ..errors import NoRuleError
from ..mechanisms import MixtureOfGaussians
from .pairs import DominatingPair, PairSegment
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

__all__ = ["mixture_log_delta", "mixture_pair"]

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
def _(m: MixtureOfGaussians, orders: Any = None) -> Any:
    raise NoRuleError(
        "no certified Renyi curve is implemented for MixtureOfGaussians: the 'add' orientation's "
        "Renyi divergence has no exact expansion and no bound here; use method='pld' (or 'auto'), "
        "which composes the exact pair in both orientations.", rule="renyi_curve", mechanism=m)


@dominance_key.register(MixtureOfGaussians)
def _(m: MixtureOfGaussians) -> DominanceKey:
    # only equal mixtures compare (no order between different mixtures is proven here)
    return DominanceKey(f"mixture_of_gaussians:{m.sigma!r}:{m.sensitivities!r}:{m.probabilities!r}", ())
