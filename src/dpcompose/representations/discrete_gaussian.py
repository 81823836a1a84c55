r"""The discrete Gaussian family: every rule of ``DiscreteGaussian(sigma, *, sensitivity)``.

Noise :math:`\Pr[Z = k] = e^{-k^2/(2\sigma^2)}/\Theta` on the integers,
:math:`\Theta = \sum_k e^{-k^2/(2\sigma^2)}` (Canonne, Kamath and Steinke, "The Discrete
Gaussian for Differential Privacy", NeurIPS 2020), on a query of integer sensitivity
:math:`\Delta`. Never merged with the continuous Gaussian: these rules are registered for
the exact type ``DiscreteGaussian`` and use no Gaussian closed form.

Dominating pair (exact, on the lattice): ``B = N_Z(Delta)``, ``A = N_Z(0)``. Shifting by an
integer leaves :math:`\Theta` unchanged, so the loss at output k is exactly
:math:`\ell_k = \Delta(2k - \Delta)/(2\sigma^2)`, and the pair is symmetric
(``k -> Delta - k`` swaps A and B). The pair is built on the window
:math:`k \in [-K, K + \Delta]` with :math:`K = \lceil\sigma\sqrt{1400}\rceil` (outputs where a mass is below the
smallest normal double are left out too, each weighing at most :math:`2^{-1022}`): the
left-out mass beyond the window of
each law is bounded by :math:`2e^{-(K+1)^2/(2\sigma^2)}/(1 - e^{-(2K+3)/(2\sigma^2)})`
(the tail of a Gaussian series over its first term, :math:`\Theta \ge 1`) and is put
on atoms of infinite loss (B's tail at :math:`+\infty`, A's at :math:`-\infty`), which
dominates it; the pair is therefore not attained (no lower bound is claimed from it), and
its left-out mass is below 1e-300. Within the window :math:`\Theta` is replaced by the window's sum
(:math:`\le \Theta`), which scales every mass up: the profile only grows.

Lower pair (the pair's ``lower``, read by ``pld`` and the Accountant for their lower
bounds): the window's atoms alone, no atom at infinite loss, each mass lowered below the
true :math:`e^{-x}/\Theta` (the window's masses are :math:`e^{-x}/\Theta_W` with
:math:`\Theta_W \ge \Theta/(1 + T)`, :math:`T < 10^{-300}` the tail bound, lowered by more than
their rounding bound). It is a *thinning* of the true pair (the true losses, smaller
masses: a sub-probability pair, :math:`B' \le B` and :math:`A' \le A` pointwise), so its
loss law under either side is a sub-measure of the true one; the hockey-stick
divergence of a product (or a subsampling) of sub-measures is at most that of the true
product, because the integrand :math:`(1 - e^{e - L})_+` is non-negative and convolution
is monotone (proof in :mod:`~dpcompose.representations.pairs`). Composing the window
alone therefore gives lower bounds; they miss at most the composed left-out mass
(:math:`k T`, below :math:`10^{-290}` for :math:`k \le 10^{10}`). The losses are those of the upper
pair, the double nearest :math:`\Delta(2k - \Delta)/(2\sigma^2)` (two roundings); ``pld``'s
lower query covers such displacements of atoms (its ``GridPLD.slack``).

Privacy profile: :math:`\delta(e) = \sum_k (B_k - e^e A_k)_+` plus the tail bound, summed
over the window with each loss raised by a bound on its rounding (so a term near a tie
is never lost), and the sum raised by a bound on the rounding of the masses.

Renyi curve: :math:`\sum_k B_k^\alpha A_k^{1-\alpha} = e^{\alpha(\alpha-1)\Delta^2/(2\sigma^2)}
\Theta(\alpha\Delta)/\Theta(0)` with :math:`\Theta(c) = \sum_k e^{-(k-c)^2/(2\sigma^2)}`
(completing the square), so
:math:`\tau(\alpha) = \frac{\alpha\Delta^2}{2\sigma^2} + \frac{\log(\Theta(\alpha\Delta)/\Theta(0))}{\alpha - 1}`.
By Jacobi's triple product, :math:`\Theta(c) = \prod_m (1-q^{2m})(1 + 2q^{2m-1}\cos 2\pi c + q^{4m-2})`
with :math:`q = e^{-2\pi^2\sigma^2}`, each factor positive and decreasing in the distance
of c to the nearest integer, so :math:`\Theta(c) \le \Theta(0)` and the continuous
:math:`\alpha\Delta^2/(2\sigma^2)` (Canonne, Kamath and Steinke's zCDP bound) is an upper
bound; the second term is evaluated at a distance rounded down (so the ratio is rounded
up) and capped at 0.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any

import numpy as np

from .._numerics.rounding import MACHINE_EPSILON, frac_down, up
from ..errors import NoRuleError
from ..mechanisms import DiscreteGaussian
from .pairs import DominatingPair, PairAtom, delta_atoms
from .renyi import _orders_arg
from .rules import (
    dominating_pair,
    eps_delta_pair,
    privacy_profile,
    pure_epsilon,
    renyi_curve,
)
from .syntax import MechanismSyntax, Parameter, register_syntax

__all__ = ["MAX_PAIR_ATOMS", "discrete_gaussian_pair", "discrete_gaussian_profile", "rdp_discrete_gaussian"]

Profile = Callable[[float], float]

#: the largest window (2K + sensitivity + 1 outputs) whose pair and profile are built
MAX_PAIR_ATOMS = 2_000_001
#: the window reaches exponent 700 on each side (its left-out mass is about e^-700 < 1e-300)
_EXPONENT = 700.0
_NORMAL = 2.0**-1022
_LOG_NORMAL = math.log(_NORMAL)


class _Lattice:
    """The window of outputs with log-masses, losses and the tail bound (module docstring)."""

    def __init__(self, sigma: float, sensitivity: float) -> None:
        n = int(sensitivity)
        k_max = math.ceil(sigma * math.sqrt(2.0 * _EXPONENT))
        size = 2 * k_max + n + 1
        if size > MAX_PAIR_ATOMS:
            raise NoRuleError(
                f"the discrete Gaussian with sigma = {sigma:g} spans {size} lattice points (limit "
                f"{MAX_PAIR_ATOMS}); use method 'rdp' (its Renyi curve has no limit).", rule="dominating_pair")
        two_var = 2.0 * sigma * sigma
        ks = np.arange(-k_max, k_max + n + 1, dtype=float)
        x_a = ks * ks / two_var
        x_b = (ks - n) ** 2 / two_var
        # Theta over the window [-K, K] (a lower bound on Theta), summed accurately
        log_theta = math.log(math.fsum(np.exp(-x_a[: 2 * k_max + 1]).tolist()))
        log_a, log_b = -x_a - log_theta, -x_b - log_theta
        # outputs where a mass is below the smallest normal double are left out with the tail
        # (each such mass is below 2^-1022, so `dropped` of them weigh at most dropped * 2^-1022)
        keep = (log_a > _LOG_NORMAL) & (log_b > _LOG_NORMAL)
        dropped = int(np.count_nonzero(~keep))
        self.log_a, self.log_b = log_a[keep], log_b[keep]
        self.loss = (n * (2.0 * ks - n) / two_var)[keep]
        self.spacing = n / two_var  # every loss is an integer multiple (2k - n) of it
        # relative error of a mass: the exponent's (3 ulps of x, a few of log Theta), through exp
        self.mass_ulps = 3.0 * float(np.max(x_a)) + abs(log_theta) + 16.0
        # left-out mass of each law beyond the window, rounded up, plus the dropped outputs
        log_tail = (math.log(2.0) - (k_max + 1) ** 2 / two_var
                    - math.log(-math.expm1(-(2 * k_max + 3) / two_var)))
        self.tail = up(math.exp(log_tail), 64.0) + (dropped + 1) * _NORMAL


def _atoms(loss: np.ndarray, log_a: np.ndarray, log_b: np.ndarray) -> list[PairAtom]:
    a, b = np.exp(log_a), np.exp(log_b)
    return [PairAtom(float(ell), float(pa), float(pb), float(la), float(lb))
            for ell, pa, pb, la, lb in zip(loss.tolist(), a.tolist(), b.tolist(),
                                           log_a.tolist(), log_b.tolist(), strict=True)]


@functools.lru_cache(maxsize=16)
def discrete_gaussian_pair(sigma: float, sensitivity: float) -> DominatingPair:
    r"""The pair on the window, plus the infinite-loss atoms that carry the left-out mass.

    Guarantee:
        an upper bound (not attained): every window mass is raised (normalised by the
        window's :math:`\Theta`) and the left-out mass sits at infinite loss. Its ``lower``
        is a thinning of the true pair (:mod:`~dpcompose.representations.pairs`): the same
        window outputs with the same losses, each mass lowered to at most the true one,
        nothing at infinite loss, so bounds computed from it are lower bounds (the
        module docstring's "Lower pair"). Cached (the pair is immutable).
    """
    lat = _Lattice(sigma, sensitivity)
    top, bottom = delta_atoms(lat.tail)
    # lower masses (rounded down): the true mass is e^{-x}/Theta >= (e^{-x}/Theta_W)(1 - T),
    # T < 1e-300 far below an ulp; exp(log mass) is within mass_ulps of e^{-x}/Theta_W, the
    # subtraction below rounds the exponent by at most half an ulp of |log mass| <= mass_ulps,
    # exp by one ulp: 1.5 mass_ulps + 1 < 2 mass_ulps + 8 ulps in all
    shift = (2.0 * lat.mass_ulps + 8.0) * MACHINE_EPSILON
    # its losses are the multiples (2k - Delta) of Delta/(2 sigma^2), to 2 ulps: pld aligns its
    # lower grid to that spacing (an upper grid is never aligned to it: see discrete_laplace)
    thin = DominatingPair(tuple(_atoms(lat.loss, lat.log_a - shift, lat.log_b - shift)),
                          epsilon=None, grid_anchor=lat.spacing, attained=False)
    # not attained: the left-out mass (below 1e-300) sits at infinite loss, an upper bound only
    return DominatingPair((top, *_atoms(lat.loss, lat.log_a, lat.log_b), bottom), epsilon=None,
                          grid_anchor=None, attained=False, lower=thin)


def discrete_gaussian_profile(sigma: float, sensitivity: float) -> Profile:
    r"""Exact privacy profile of the discrete Gaussian mechanism, by enumeration of the window.

    Guarantee:
        a certified upper bound: each loss is raised by 4 ulps of the magnitudes of
        ``e`` and the loss before it enters :math:`-\mathrm{expm1}(e - \ell)`, the sum
        (``math.fsum``) is raised by the masses' rounding bound, and the tail bound is
        added (module docstring).

    References:
        Canonne, Kamath and Steinke, "The Discrete Gaussian for Differential Privacy"
        (NeurIPS 2020): the (epsilon, delta) formula as a sum over the lattice.
    """
    lat = _Lattice(sigma, sensitivity)
    b = np.exp(lat.log_b)

    def profile(e: float) -> float:
        if math.isinf(e):
            return lat.tail  # every loss in the window is finite; the left-out mass counts as infinite
        raised = lat.loss + 4.0 * MACHINE_EPSILON * (abs(e) + np.abs(lat.loss))
        keep = raised > e
        terms = b[keep] * -np.expm1(e - raised[keep])
        total = math.fsum(terms.tolist())
        return min(1.0, up(total, lat.mass_ulps + 8.0) + lat.tail)

    return profile


def _log_theta(d: float, sigma: float) -> tuple[float, float]:
    """(log sum_k exp(-(k - d)^2 / (2 sigma^2)) over k in [-K-1, K+1], its rounding bound in ulps)."""
    k_max = math.ceil(sigma * math.sqrt(2.0 * _EXPONENT)) + 1
    ks = np.arange(-k_max, k_max + 1, dtype=float)
    x = (ks - d) ** 2 / (2.0 * sigma * sigma)
    return math.log(math.fsum(np.exp(-x).tolist())), 3.0 * float(np.max(x)) + 16.0


def rdp_discrete_gaussian(sigma: float, sensitivity: float, orders: Any = None) -> np.ndarray:
    r"""Renyi curve of the discrete Gaussian (module docstring): exact, rounded up.

    Guarantee:
        an upper bound at every order: :math:`\alpha\Delta^2/(2\sigma^2)` (rounded up) plus
        the log-ratio :math:`\log(\Theta(c)/\Theta(0))/(\alpha - 1)` evaluated at the
        distance of :math:`c = \alpha\Delta` to the nearest integer rounded down (in exact
        rationals), with the ratio raised by the rounding bounds of both sums and the
        truncated mass of :math:`\Theta(c)` (below :math:`e^{-690}` of it; :math:`e^{-600}` is added), then capped
        at 0 (:math:`\Theta(c) \le \Theta(0)`).

    References:
        Canonne, Kamath and Steinke, "The Discrete Gaussian for Differential Privacy"
        (NeurIPS 2020): the discrete Gaussian is :math:`\Delta^2/(2\sigma^2)`-zCDP;
        Jacobi's triple product for the ratio (derived here).
    """
    a = _orders_arg(orders)
    n = int(sensitivity)
    base = a * (n * n / (2.0 * sigma * sigma)) * (1.0 + 8.0 * MACHINE_EPSILON)
    if not sigma <= 50.0:
        # for sigma > 50, q = e^{-2 pi^2 sigma^2} underflows: Theta(c)/Theta(0) = 1 to every digit
        return base
    log_theta0, ulps0 = _log_theta(0.0, sigma)
    out = np.empty_like(a)
    for i, alpha in enumerate(a.tolist()):
        c = Fraction(alpha) * n
        frac = c - math.floor(c)
        d = frac_down(min(frac, 1 - frac))
        log_c, ulps_c = _log_theta(d, sigma)
        # log Theta(c) raised (its rounding, and e^-600 for the truncated tail), log Theta(0) lowered
        ratio = (log_c + (ulps_c + 8.0) * MACHINE_EPSILON + math.exp(-600.0)) - (
            log_theta0 - (ulps0 + 8.0) * MACHINE_EPSILON)
        ratio = ratio + 4.0 * MACHINE_EPSILON * (abs(log_c) + abs(log_theta0))
        second = min(0.0, ratio / (alpha - 1.0))
        # a negative quotient rounded to nearest may be half an ulp low: raise it by 2 ulps
        second = second + 2.0 * MACHINE_EPSILON * abs(second)
        out[i] = base[i] + second
    # the sum of a positive and a negative double: one more rounding, raised by an ulp of base
    return np.maximum(out + 2.0 * MACHINE_EPSILON * base, 0.0)


# ---------------------------------------------------------------------------
# rules


@eps_delta_pair.register(DiscreteGaussian)
def _(m: DiscreteGaussian) -> None:
    return None  # described by its profile (no finite pure epsilon)


@privacy_profile.register(DiscreteGaussian)
def _(m: DiscreteGaussian) -> Profile:
    return discrete_gaussian_profile(m.sigma, m.sensitivity)


@dominating_pair.register(DiscreteGaussian)
def _(m: DiscreteGaussian, *, epsilon: float | None = None) -> DominatingPair:
    return discrete_gaussian_pair(m.sigma, m.sensitivity)


@pure_epsilon.register(DiscreteGaussian)
def _(m: DiscreteGaussian) -> float:
    return math.inf  # the loss grows without bound over the lattice


@renyi_curve.register(DiscreteGaussian)
def _(m: DiscreteGaussian, orders: Any = None) -> np.ndarray:
    return rdp_discrete_gaussian(m.sigma, m.sensitivity, orders)


def _initial_sigma(epsilon: float, delta: float, count: int, rate: float | None, s: float) -> float:
    # the continuous Gaussian's sigma is a fine starting point (speed only, never validity)
    return max(1.0, s * math.sqrt(2.0 * count * math.log(1.25 / max(delta, 1e-300))) / max(epsilon, 1e-3))


register_syntax(MechanismSyntax(
    "discrete_gaussian", DiscreteGaussian,
    (Parameter("sigma", "scale sigma > 0", "the scale sigma must be a finite number > 0, e.g. sigma = 3", gt=0),
     Parameter("sensitivity", "integer sensitivity >= 1",
               "the sensitivity of an integer-valued query is a whole number >= 1 (default 1)",
               default=1.0, ge=1)),
    "Discrete Gaussian noise P(k) ∝ exp(-k^2 / (2 sigma^2)) on an integer query of the given integer "
    "sensitivity.", "DiscreteGaussianSpec",
    aliases=("discretegaussian", "dgaussian"),
    noise="sigma", initial_guess=_initial_sigma))
