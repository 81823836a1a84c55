r"""The discrete Laplace family: every rule of ``DiscreteLaplace(scale, *, sensitivity)``.

Noise :math:`\Pr[Z = k] = c\,r^{|k|}` on the integers, :math:`r = e^{-t}`, :math:`t = 1/b`,
:math:`c = (1 - r)/(1 + r)` (the two-sided geometric distribution: Ghosh, Roughgarden and
Sundararajan, "Universally Utility-Maximizing Privacy Mechanisms", STOC 2009; Canonne,
Kamath and Steinke, "The Discrete Gaussian for Differential Privacy", NeurIPS 2020,
Sec. 2), on a query of integer sensitivity :math:`\Delta`, :math:`\varepsilon = \Delta t`.

Dominating pair (exact, derived here): ``B = DL(0)`` (with the record), ``A = DL(Delta)``.
The loss :math:`\log(B(k)/A(k)) = (|k - \Delta| - |k|)\,t` is :math:`\varepsilon` for
:math:`k \le 0`, :math:`-\varepsilon` for :math:`k \ge \Delta` and :math:`(\Delta - 2k)t` in
between, so merging outputs of equal loss gives :math:`\Delta + 1` atoms
:math:`\ell_j = (\Delta - 2j)t`, :math:`j = 0..\Delta`, with masses

- :math:`j = 0`: :math:`B = 1/(1+r)`, :math:`A = r^\Delta/(1+r)` (the tail :math:`k \le 0`);
- :math:`0 < j < \Delta`: :math:`B = c\,r^j`, :math:`A = c\,r^{\Delta - j}`;
- :math:`j = \Delta`: :math:`B = r^\Delta/(1+r)`, :math:`A = 1/(1+r)` (the tail :math:`k \ge \Delta`).

The pair is symmetric (``k -> Delta - k`` swaps A and B). With :math:`\Delta = 1` it is
randomized response with :math:`\varepsilon = t`, the worst case of :math:`\varepsilon`-DP.

Privacy profile (a finite sum over the atoms above ``e``, summed in closed form here):
with :math:`m` the largest :math:`j` with :math:`\ell_j > e`,
:math:`\delta(e) = \bigl(-\mathrm{expm1}(e - (\Delta - m)t) - r\,\mathrm{expm1}(-mt)\bigr)/(1 + r)`,
two non-negative terms (no cancellation). Renyi curve:
:math:`e^{(\alpha-1)\tau(\alpha)} = \sum_j B_j^\alpha A_j^{1-\alpha}
= \frac{e^{(\alpha-1)\varepsilon} + e^{-\alpha\varepsilon}}{1+r}
+ c\,e^{(\alpha-1)\varepsilon} \sum_{j=1}^{\Delta-1} s^j`, :math:`s = r^{2\alpha-1}`.

Dominance: for a fixed :math:`\Delta`, a larger scale is a post-processing of a smaller
one (``DL(r') = DL(r) + W`` for :math:`r' \ge r`: the ratio of their characteristic
functions, :math:`\bigl(\frac{1-r'}{1-r}\bigr)^2 \bigl|\frac{1 - re^{i\theta}}{1 - r'e^{i\theta}}\bigr|^2`,
is that of a probability law, since :math:`\frac{1 - re^{i\theta}}{1 - r'e^{i\theta}} =
1 + (r' - r)\sum_{n\ge1} r'^{n-1}e^{in\theta}` has non-negative coefficients; derived
here), so its profile is pointwise smaller.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Callable

import numpy as np

from .._numerics.rounding import MACHINE_EPSILON, up
from ..errors import NoRuleError
from ..mechanisms import DiscreteLaplace
from .laplace import _initial_scale
from .pairs import DominatingPair, PairAtom
from .pure import rdp_pure_dp, rdp_randomized_response
from .renyi import _orders_arg, _round_up_curve
from .rules import (
    DominanceKey,
    dominance_key,
    dominating_pair,
    eps_delta_pair,
    is_class_worst_case,
    privacy_profile,
    pure_epsilon,
    renyi_curve,
)
from .syntax import MechanismSyntax, Parameter, register_syntax

__all__ = ["discrete_laplace_profile", "discrete_laplace_pair", "rdp_discrete_laplace", "MAX_PAIR_ATOMS"]

Profile = Callable[[float], float]

#: the largest sensitivity whose pair (sensitivity + 1 atoms) is built; the profile, the
#: Renyi curve and the (epsilon, 0) pair are closed forms and have no limit
MAX_PAIR_ATOMS = 1_000_001


def _largest_j_above(e: float, sens: float, scale: float) -> int:
    """The largest j in [0, sens] with loss (sens - 2 j) / scale > e, or -1 if there is none.

    Compared exactly (as rationals: ``sens - 2 j > e * scale``), so an atom whose loss is
    within rounding of ``e`` is counted on the side it is on.
    """
    es = Fraction(e) * Fraction(scale)
    n = int(sens)
    j = min(n, max(-1, math.ceil((sens - e * scale) / 2.0) - 1))
    while j >= 0 and not n - 2 * j > es:
        j -= 1
    while j + 1 <= n and n - 2 * (j + 1) > es:
        j += 1
    return j


def discrete_laplace_profile(scale: float, sensitivity: float) -> Profile:
    r"""Exact privacy profile of the discrete Laplace mechanism (see the module docstring).

    Guarantee:
        :math:`\delta(e) = \sum_j (B_j - e^e A_j)_+` of the exact pair, each of its two
        non-negative terms over the atoms whose loss exceeds ``e`` (decided exactly, in
        rationals): the argument of the first is lowered by a bound on its rounding, and
        the sum is raised by :math:`8 + 1/b` machine epsilons (the error of
        :math:`r = e^{-1/b}` and of the remaining operations): a certified upper bound.

    References:
        Canonne, Kamath and Steinke, "The Discrete Gaussian for Differential Privacy"
        (NeurIPS 2020), Sec. 2 (the discrete Laplace); the closed form is derived here.
    """
    t = 1.0 / scale
    r = math.exp(-t)

    def profile(e: float) -> float:
        if math.isinf(e):
            return 0.0  # every loss is finite
        m = _largest_j_above(e, sensitivity, scale)
        if m < 0:
            return 0.0
        if m == sensitivity:  # e below every loss: sum(B) - e^e sum(A) = 1 - e^e
            return min(1.0, up(-math.expm1(e), 8.0))
        # the first term's argument e - (sensitivity - m) / scale is negative (it is below
        # e - l_m); it is lowered by a bound on the rounding of the quotient and the
        # difference (2 ulps of each magnitude), so the term is never below its exact value
        arg = e - (sensitivity - m) / scale
        first = -math.expm1(arg - 2.0 * MACHINE_EPSILON * (abs(e) + abs(arg)))
        rest = -r * math.expm1(-m * t)
        # r = exp(-t) carries a relative error of about t ulps (t = 1/scale is rounded);
        # expm1, the products, the sum and the division a few more: 8 + t machine epsilons
        return min(1.0, up((first + rest) / (1.0 + r), 8.0 + t))

    return profile


def _log_masses(scale: float, sensitivity: float) -> tuple[np.ndarray, np.ndarray]:
    """(log B_j, log A_j) for j = 0 .. sensitivity, each accurate to a few ulps of its size."""
    n = int(sensitivity)
    t = 1.0 / scale
    log1pr = math.log1p(math.exp(-t))
    log_c = math.log(-math.expm1(-t)) - log1pr
    j = np.arange(n + 1, dtype=float)
    log_b = log_c - j * t
    log_a = log_c - (n - j) * t
    log_b[0], log_a[0] = -log1pr, -n * t - log1pr
    log_b[n], log_a[n] = -n * t - log1pr, -log1pr
    return log_b, log_a


def discrete_laplace_pair(scale: float, sensitivity: float) -> DominatingPair:
    """The exact pair: ``sensitivity + 1`` atoms at losses ``(sensitivity - 2 j) / scale``.

    Raises:
        NoRuleError: more than :data:`MAX_PAIR_ATOMS` atoms.
    """
    if sensitivity + 1 > MAX_PAIR_ATOMS:
        raise NoRuleError(
            f"dominating_pair: the discrete Laplace pair with sensitivity {sensitivity:g} has "
            f"{sensitivity + 1:g} atoms (limit {MAX_PAIR_ATOMS}); use method 'theorems', "
            f"'optimal' or 'rdp', which read its closed forms.", rule="dominating_pair")
    log_b, log_a = _log_masses(scale, sensitivity)
    n = int(sensitivity)
    atoms = tuple(PairAtom((n - 2.0 * j) / scale, math.exp(la), math.exp(lb), la, lb)
                  for j, (lb, la) in enumerate(zip(log_b.tolist(), log_a.tolist())))
    # grid_anchor None: the losses are multiples of 1/scale, but not exactly so in
    # doubles, and pld's grid placement is exact; its default spacing serves better
    return DominatingPair(atoms, epsilon=None, grid_anchor=None)


def rdp_discrete_laplace(scale: float, sensitivity: float, orders: Any = None) -> np.ndarray:
    r"""Renyi curve of the discrete Laplace mechanism (closed form in the module docstring).

    With sensitivity 1 it is randomized response's curve at :math:`\varepsilon = 1/b`
    (the same pair). Otherwise :math:`\log A_\alpha` is a log-sum-exp of three terms,
    rounded up by :func:`~.renyi._round_up_curve` with the magnitudes combined as its
    error scale, and the result is capped by the tight curve of :math:`\varepsilon`-DP
    (:func:`~.pure.rdp_pure_dp`, also an upper bound), which is tighter where
    :math:`\varepsilon` is so small that the rounding margin dominates.

    Guarantee:
        an upper bound on :math:`D_\alpha` of the exact pair at every order (exact up to
        rounding up); the pair is symmetric.

    References:
        Mironov, "Renyi Differential Privacy" (CSF 2017), definition; the sum over the
        atoms is derived here.
    """
    t = 1.0 / scale
    eps = sensitivity * t
    if sensitivity == 1.0:
        return rdp_randomized_response(eps, orders)
    a = _orders_arg(orders)
    log1pr = math.log1p(math.exp(-t))
    log_c = math.log(-math.expm1(-t)) - log1pr
    u = (2.0 * a - 1.0) * t                      # -log s
    ends = np.logaddexp((a - 1.0) * eps, -a * eps) - log1pr
    with np.errstate(divide="ignore"):
        mid = (log_c + (a - 1.0) * eps - u + np.log(-np.expm1(-(sensitivity - 1.0) * u))
               - np.log(-np.expm1(-u)))
    log_a = np.logaddexp(ends, mid)
    scale_ulps = a * eps + np.abs(mid) + np.abs(ends) + sensitivity * u + 10.0
    curve = _round_up_curve(log_a, a, scale_ulps)
    return np.minimum(curve, rdp_pure_dp(eps, a))


# ---------------------------------------------------------------------------
# rules


@eps_delta_pair.register(DiscreteLaplace)
def _(m: DiscreteLaplace) -> tuple[float, float]:
    return (m.epsilon, 0.0)


@privacy_profile.register(DiscreteLaplace)
def _(m: DiscreteLaplace) -> Profile:
    return discrete_laplace_profile(m.scale, m.sensitivity)


@is_class_worst_case.register(DiscreteLaplace)
def _(m: DiscreteLaplace) -> bool:
    return m.sensitivity == 1.0  # then its pair is randomized response with epsilon = 1/b


@dominating_pair.register(DiscreteLaplace)
def _(m: DiscreteLaplace, *, epsilon: float | None = None) -> DominatingPair:
    # the pair has no epsilon parameter (epsilon=None), so pld asks for none
    return discrete_laplace_pair(m.scale, m.sensitivity)


@pure_epsilon.register(DiscreteLaplace)
def _(m: DiscreteLaplace) -> float:
    return float(m.epsilon)


@renyi_curve.register(DiscreteLaplace)
def _(m: DiscreteLaplace, orders: Any = None) -> np.ndarray:
    return rdp_discrete_laplace(m.scale, m.sensitivity, orders)


@dominance_key.register(DiscreteLaplace)
def _(m: DiscreteLaplace) -> DominanceKey:
    # one order per sensitivity: a smaller scale dominates (module docstring)
    return DominanceKey(f"discrete_laplace:{m.sensitivity!r}", (1.0 / m.scale,))


register_syntax(MechanismSyntax(
    "discrete_laplace", DiscreteLaplace,
    (Parameter("scale", "noise scale b > 0", "the noise scale b must be a finite number > 0, e.g. scale = 20", gt=0),
     Parameter("sensitivity", "integer sensitivity >= 1",
               "the sensitivity of an integer-valued query is a whole number >= 1 (default 1)",
               default=1.0, ge=1)),
    "Discrete Laplace (two-sided geometric) noise of the given scale on an integer query of the "
    "given integer sensitivity.", "DiscreteLaplaceSpec",
    aliases=("discretelaplace", "dlaplace", "geometric"),
    noise="scale", initial_guess=_initial_scale))
