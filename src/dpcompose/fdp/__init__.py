r"""Certified trade-off curves (f-DP) of a guarantee: type II error bands, attack TPR, GDP mu.

A membership attack is a test between the output distributions :math:`P` and :math:`Q`
of a mechanism on two neighbouring datasets. At type I error (false-positive rate)
:math:`\alpha` the best type II error (false-negative rate) is the *trade-off
function* :math:`T(P, Q)(\alpha)`; the tightest :math:`f` such that the mechanism is
:math:`f`-DP (Dong, Roth and Su) is the largest convex function below
:math:`T(P, Q)` for every ordered neighbouring pair, :math:`f^*`. Its attack-side
reading: no attack has a true-positive rate above :math:`1 - f^*(\alpha)` at
false-positive rate :math:`\alpha`.

**From a privacy profile to a curve.** For :math:`\varepsilon \ge 0` let

.. math:: f_{\varepsilon,\delta}(\alpha) = \max\{0,\ 1 - \delta - e^{\varepsilon}\alpha,\
          e^{-\varepsilon}(1 - \delta - \alpha)\}.

A mechanism is :math:`(\varepsilon, \delta)`-DP iff it is
:math:`f_{\varepsilon,\delta}`-DP (Dong, Roth and Su, "Gaussian Differential Privacy",
JRSS-B 2022, Prop. 2.5, after Wasserman and Zhou), and with the true profile
:math:`\delta^*`, :math:`f^* = \sup_{\varepsilon \ge 0} f_{\varepsilon,\delta^*(\varepsilon)}`
(their Prop. 2.12, the primal-dual view). The second term is the negative-epsilon half
of the profile, by symmetry: a guarantee's ``delta(eps)`` bounds the hockey-stick
divergence of *both* orders of every neighbouring pair, and
:math:`H_{e^{-\varepsilon}}(Q\|P) = 1 - e^{-\varepsilon} + e^{-\varepsilon}H_{e^{\varepsilon}}(P\|Q)`,
so the supremum over :math:`\varepsilon \ge 0` of both terms is the supremum over all real
:math:`\varepsilon` of the one-sided duality of Zhu, Dong and Wang ("Optimal Accounting
of Differential Privacy via Characteristic Function", AISTATS 2022, Sec. 2). No method
here supplies a separate negative-epsilon profile, so the symmetric form is always used;
every dpcompose guarantee bounds both orders (the maximum over the add and remove
directions of Poisson subsampling, a hull for sampling without replacement, both
directions of each hypothesis pair in hypothesis DP), as the definition of DP asks.

- **Lower curve** (certified: no attack does better). With a certified upper profile
  :math:`\delta_u \ge \delta^*`, each :math:`f_{\varepsilon,\delta_u(\varepsilon)}` is
  below :math:`f^*`, and so is the maximum over any finite set of epsilons. The finite
  set only costs tightness; it is refined adaptively (below).
- **Upper curve** (certified: some neighbouring pair is at least this distinguishable).
  With a certified lower profile :math:`\delta_l \le \delta^*`, :math:`f^*` is the
  supremum over *every* epsilon, so a finite set is not enough by itself. Between grid
  points, :math:`\delta^*` is bounded below using that it is non-increasing and
  *convex in* :math:`\gamma = e^{\varepsilon}` (a supremum of hockey-stick divergences,
  each convex in :math:`\gamma`): on :math:`[\gamma_i, \gamma_{i+1}]` it lies above
  the lines through :math:`(\gamma_i, \delta_l)` with the slope of the left secant
  :math:`(\delta_l(\gamma_i) - \delta_u(\gamma_{i-1}))/(\gamma_i - \gamma_{i-1})` and through
  :math:`(\gamma_{i+1}, \delta_l)` with the slope of the right secant
  :math:`(\delta_u(\gamma_{i+2}) - \delta_l(\gamma_{i+1}))/(\gamma_{i+2} - \gamma_{i+1})`,
  and above :math:`\delta_l(\gamma_{i+1})`. Each term of :math:`f` is then the minimum
  of functions linear in :math:`\gamma` (first term) or in :math:`1/\gamma` (second
  term), whose maximum over the interval is bounded by linear programming duality:
  for every weight :math:`\lambda \in [0, 1]`,
  :math:`\sup \min(\ell_1, \ell_2) \le \max_{\text{ends}} (\lambda\ell_1 + (1-\lambda)\ell_2)`,
  so only end-point values are used and no weight needs to be exact. The gap to the
  truth is second order in the grid spacing where the profile bracket is narrow. A
  method without a lower profile gives the trivial upper curve :math:`1 - \alpha`.
  Where the trade-off functions of a pair and of its reverse differ, a point of the
  upper curve may be attained only by mixing attacks on the two orders.

Rounding: every value is computed in doubles and then moved toward the safe side by a
bound on its rounding error (:data:`_MARGIN` times the sum of the magnitudes involved:
down for the lower curve, up for the upper curve); slopes of secants are rounded the
way that keeps each line valid; :math:`\gamma_{i+1} - \gamma_i` is computed as
:math:`\gamma_i\,\mathrm{expm1}(\varepsilon_{i+1} - \varepsilon_i)`.

**Refinement and its cost.** The epsilon grid starts at 0, 2^-6, ..., 512 (stopping
where the upper profile falls below 1e-16 or stops changing) and is refined by
bisection where, at a requested alpha, the finite set costs more than ``tolerance``:
on the upper side the cost is certified (the upper curve minus the best grid point);
on the lower side it is estimated by the same interval bound applied to the upper
profile as if it were exact. ``TradeoffCurve.grid_cost`` reports the largest of both
after refinement; it is part of the band, never hidden.

**Other outputs.** The largest attack true-positive rate at a false-positive rate
:math:`\alpha` lies in :math:`[1 - \mathrm{upper}(\alpha), 1 - \mathrm{lower}(\alpha)]`;
the attack advantage :math:`\max_\alpha (\mathrm{TPR} - \mathrm{FPR}) = \delta^*(0)`
in :math:`[\delta_l(0), \delta_u(0)]`; the Gaussian-DP parameter in a certified bracket
(:meth:`TradeoffCurve.gdp_mu`).

Guarantees combined by ``method="auto"`` are evaluated through the components that are
tightest at a few probe epsilons (any subset of the components gives valid bounds; the
others are often slow to evaluate and never win).

Layout (issue 15): :mod:`.profile` evaluates the guarantee's profiles, :mod:`.bounds` turns
them into the two bounds on a grid, :mod:`.curve` holds :class:`TradeoffCurve` (band, TPR,
advantage, GDP bracket); this module is the front door (:func:`tradeoff`, :func:`max_tpr`,
:func:`attack_advantage`, :func:`gdp_mu_bracket`) and re-exports the names others import.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..guarantee import Guarantee

# the band's pieces live in their own modules (issue 15); the names others import stay here
from .curve import DEFAULT_ALPHAS, GDPBracket, TradeoffCurve, _check_alphas, check_guarantee  # noqa: F401

__all__ = ["TradeoffCurve", "GDPBracket", "tradeoff", "tradeoff_curve", "max_tpr",
           "attack_advantage", "gdp_mu_bracket", "DEFAULT_ALPHAS"]


# ---------------------------------------------------------------------------
# functions


def tradeoff_curve(guarantee: Guarantee, *, tolerance: float = 1e-6, max_points: int = 1000) -> TradeoffCurve:
    """A :class:`TradeoffCurve` for the guarantee, refined at :data:`DEFAULT_ALPHAS`."""
    return TradeoffCurve(guarantee, tolerance=tolerance, max_points=max_points).refine()


def tradeoff(guarantee: Guarantee, alphas: Any, *, tolerance: float = 1e-6,
             max_points: int = 1000) -> tuple[np.ndarray, np.ndarray]:
    r"""Certified bounds on the trade-off function (type II error at type I error alpha).

    Args:
        guarantee: a :class:`~dpcompose.guarantee.Guarantee` (``dpc.compose(...)``).
        alphas: type I errors (false-positive rates) in [0, 1], a number or a list.
        tolerance: what the finite epsilon grid may cost at each alpha (see
            :class:`TradeoffCurve`).
        max_points: the most profile evaluations spent on the grid.

    Returns:
        ``(lower, upper)`` arrays: ``lower <= f*(alpha) <= upper``.

    Raises:
        InvalidParameterError: an alpha outside [0, 1] or NaN.
        UnsupportedMechanismError: ``guarantee`` is not a Guarantee.

    Guarantee:
        ``lower`` is a certified lower bound on the tightest trade-off function of the
        mechanisms described (no attack has a smaller type II error at that type I
        error); ``upper`` a certified upper bound where the method has a lower profile.

    References:
        Dong, Roth and Su, "Gaussian Differential Privacy" (JRSS-B 2022), Prop. 2.5 and
        Prop. 2.12; Zhu, Dong and Wang (AISTATS 2022), Sec. 2.
    """
    return TradeoffCurve(guarantee, tolerance=tolerance, max_points=max_points).band(alphas)


def max_tpr(guarantee: Guarantee, fpr: Any, **kwargs: Any) -> tuple[np.ndarray, np.ndarray]:
    """``(lower, upper)`` on the best attack's TPR at each FPR (``upper``: certified for every attack)."""
    return TradeoffCurve(guarantee, **kwargs).max_tpr(fpr)


def attack_advantage(guarantee: Guarantee) -> tuple[float, float]:
    r"""``(lower, upper)`` on :math:`\max(\mathrm{TPR} - \mathrm{FPR})` over all attacks, i.e. :math:`\delta^*(0)`.

    Guarantee:
        ``upper`` = the certified ``delta(0)`` (every test has TPR - FPR at most the total
        variation distance); ``lower`` = the certified lower profile at 0.
    """
    g = check_guarantee(guarantee)
    return g.delta_lower(0.0), g.delta(0.0)


def gdp_mu_bracket(guarantee: Guarantee, *, slack: float | None = None, rel_tol: float = 1e-4,
                   max_points: int = 1000) -> GDPBracket:
    """A certified bracket on the Gaussian-DP mu of a guarantee (see :meth:`TradeoffCurve.gdp_mu`).

    dp_accounting's mu is an estimate "not guaranteed to be an upper or lower bound";
    this bracket is certified on both sides, for (mu, slack)-GDP.
    """
    return TradeoffCurve(guarantee, max_points=max_points).gdp_mu(slack=slack, rel_tol=rel_tol)
