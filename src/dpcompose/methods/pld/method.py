r"""The registered method ``"pld"``: closed forms where exact, else grids sized within ``max_points``.

See :mod:`dpcompose.methods.pld` for the construction and its error analysis.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..._groups import Groups
from ..._numerics.rounding import MACHINE_EPSILON, SMALLEST_DELTA
from ..._validation import check_real
from ...errors import InvalidParameterError, MethodNotApplicableError
from ...guarantee import Guarantee
from ...mechanisms import Gaussian, Laplace, Mechanism, describe
from ...representations import (
    DominatingPair,
    SubsampledPair,
    gaussian_log_delta,
    gaussian_log_delta_lower,
)
from ..registry import register_method
from .pair_facts import cached_pair

__all__ = ["pld"]


def _check_options(tolerance: Any, discretization: Any, tail_mass: Any, max_points: Any):
    tol = check_real("tolerance", tolerance, low=0.0, high=1.0, low_open=True, high_open=True,
                     remedy="tolerance is the target relative width of the epsilon bracket, e.g. 1e-4.")
    if discretization is not None:
        discretization = check_real(
            "discretization", discretization, low=0.0, high=10.0, low_open=True,
            remedy="discretization is the loss-grid spacing h, e.g. 1e-4 (None: automatic).")
    tail = check_real("tail_mass", tail_mass, low=0.0, high=1e-3, low_open=True,
                      remedy="tail_mass is the total probability the tails may lose, e.g. 1e-14.")
    if isinstance(max_points, bool) or not isinstance(max_points, (int, np.integer)) or max_points < 1024:
        raise InvalidParameterError(
            f"max_points = {max_points!r} must be an integer >= 1024 (the largest grid the "
            f"pld method may build), e.g. 2**22."
        )
    return tol, discretization, tail, int(max_points)


def _gaussian_guarantee(mu2: float, provenance: dict) -> Guarantee:
    """The exact guarantee of a Gaussian composition with mu^2 = mu2 (Balle-Wang closed form).

    Upper: :func:`gaussian_log_delta` at mu rounded up, never below the smallest
    positive double at finite epsilon (the Gaussian's loss is unbounded, so its delta is
    positive there and its epsilon at delta = 0 is infinite). Lower:
    :func:`gaussian_log_delta_lower` at mu rounded down. ``log_delta`` keeps the
    logarithm below the doubles.
    """
    mu = math.sqrt(mu2)
    mu_up = mu * (1.0 + 4 * MACHINE_EPSILON)  # sqrt is correctly rounded: 4 ulps cover mu2's sum too
    mu_dn = mu * (1.0 - 4 * MACHINE_EPSILON)

    def log_up(e: float) -> float:
        return gaussian_log_delta(mu_up, e)

    def d_up(e: float) -> float:
        if math.isinf(e):
            return 0.0  # no infinite loss
        return max(SMALLEST_DELTA, math.exp(log_up(e)))

    def d_lo(e: float) -> float:
        return math.exp(gaussian_log_delta_lower(mu_dn, e))

    prov = dict(provenance)
    prov["closed_form"] = f"Gaussian composition: mu = sqrt(sum mu_i^2) = {mu!r}"
    return Guarantee("pld", delta_upper=d_up, delta_lower=d_lo, log_delta_upper=log_up,
                     exact=True, provenance=prov)


def _laplace_guarantee(m: Laplace, provenance: dict) -> Guarantee:
    """One Laplace mechanism, exactly: delta(e) = 1 - e^{(e - eps)/2} for e < eps, else 0.

    Needs no grid, so it also answers for huge epsilons (Laplace(1e-6) is 1e6-DP).
    Rounding: eps = Delta / b (rounded to within half an ulp) is widened by one ulp each
    way; the subtraction e - eps is one correctly rounded operation (relative error u),
    covered by scaling the (negative) exponent by 1 +- 2u; expm1 is faithful (2u).
    """
    eps_up, eps_dn = m.epsilon * (1.0 + MACHINE_EPSILON), m.epsilon * (1.0 - MACHINE_EPSILON)

    def d_up(e: float) -> float:
        if e >= eps_up:
            return 0.0
        x = 0.5 * (e - eps_up) * (1.0 + MACHINE_EPSILON)
        return min(1.0, -math.expm1(x) * (1.0 + MACHINE_EPSILON))

    def d_lo(e: float) -> float:
        if e >= eps_dn:
            return 0.0
        x = 0.5 * (e - eps_dn) * (1.0 - MACHINE_EPSILON)
        return max(0.0, -math.expm1(x) * (1.0 - MACHINE_EPSILON))

    def e_up(d: float) -> float:
        if d <= 0.0:
            return eps_up
        x = max(0.0, eps_up + 2.0 * math.log1p(-d))
        step = 4 * MACHINE_EPSILON * (eps_up + 1.0)
        while d_up(x) > d:  # ends on the passing side
            x += step
            step *= 2.0
        return x

    def e_lo(d: float) -> float:
        x = eps_dn + 2.0 * math.log1p(-d) - 4 * MACHINE_EPSILON * (eps_dn + 1.0)
        return max(0.0, x)

    prov = dict(provenance)
    prov["closed_form"] = f"one Laplace mechanism: delta(e) = 1 - exp((e - {m.epsilon!r})/2)"
    return Guarantee("pld", delta_upper=d_up, epsilon_upper=e_up, delta_lower=d_lo,
                     epsilon_lower=e_lo, exact=True, provenance=prov)


def _aligned(anchor: float, h0: float, floor: float) -> float:
    """A spacing anchor / n (n a positive integer) near h0 and >= floor, else max(h0, floor).

    The grid then holds the anchor exactly at index n. Below ``floor`` the grid would not
    fit in max_points; if even n = 1 is too fine, the grid is left unaligned.
    """
    h = anchor / math.ceil(anchor / h0) if anchor >= h0 else anchor
    if h >= floor:
        return h
    n = math.floor(anchor / floor)
    return anchor / n if n >= 1 else max(h0, floor)


#: ``dominating_pair(m)``, remembered (shared with the grid code's pair facts)
_pair = cached_pair


def _auto_h(plan: list[tuple[Mechanism, int]], tolerance: float, floor: float = 0.0) -> float:
    """Initial grid spacing from the tolerance and the number of mechanisms, then aligned.

    Alignment puts a singular point of the loss law on the grid, where the lower
    (coarsening) discretization would otherwise lose first-order mass: for subsampled
    mechanisms the accumulation point log(1 - q) of the most frequent one; otherwise the
    smallest grid anchor of a pair (:attr:`~dpcompose.representations.DominatingPair.grid_anchor`:
    the epsilon of an atomic or Laplace pair, the lattice spacing of a discrete one; all of
    them when they are multiples of it).
    The result is never below ``floor`` (the finest spacing whose grids fit in max_points).
    """
    # the bracket of a k-fold composition of a continuous loss law is second order,
    # roughly k h^2 in epsilon: start near sqrt(tolerance / (3 k)) (empirical constant)
    pairs = [(_pair(m), k) for m, k in plan]
    k_cont = sum(k for pair, k in pairs if isinstance(pair, SubsampledPair) or not pair.is_atomic)
    if k_cont:
        h0 = min(max(math.sqrt(tolerance / (3.0 * k_cont)), 2e-5), 1e-3)
    else:
        h0 = max(1e-4 * min(1.0, math.sqrt(tolerance / 1e-4)), 2e-5)
    h0 = max(h0, floor)
    sub = [(k, pair.rate) for pair, k in pairs if isinstance(pair, SubsampledPair) and pair.rate < 1.0]
    if sub:
        _, q = max(sub)
        return _aligned(-math.log1p(-q), h0, floor)
    anchors = [pair.grid_anchor for pair, _ in pairs if isinstance(pair, DominatingPair)]
    eps_atomic = [e for e in anchors if e is not None and 0.0 < e < math.inf]
    if eps_atomic:
        e_min = min(eps_atomic)
        only_atoms = all(isinstance(pair, DominatingPair) and pair.is_atomic for pair, _ in pairs)
        if only_atoms and all(abs(e / e_min - round(e / e_min)) < 1e-9 for e in eps_atomic):
            # every loss is a multiple of e_min: the grid e_min is exact (but not coarser
            # than needed to keep the support small)
            return _aligned(e_min, max(min(e_min, 1.0), floor), floor)
        return _aligned(e_min, h0, floor)
    return h0


@register_method("pld", check_options=_check_options, directional=True)
def pld(groups: Groups, *, tolerance: float = 1e-4, discretization: float | None = None,
        tail_mass: float = 1e-14, max_points: int = 2 ** 22) -> Guarantee:
    r"""Privacy loss distributions: certified upper and lower bounds by FFT composition.

    Args:
        groups: ``((mechanism, count), ...)`` as produced by :func:`dpcompose.compose.normalize`.
        tolerance: target relative width ``(upper - lower) / upper`` of the epsilon bracket;
            the grid spacing is chosen from it (a heuristic: check ``epsilon_bounds``).
            Default 1e-4 (0.01%).
        discretization: a fixed loss-grid spacing ``h`` (disables refinement).
        tail_mass: total probability mass the tail truncations may move (added to delta
            in the upper bound); default 1e-14.
        max_points: the largest grid (number of points) one composed PLD may use; one
            mechanism's grid gets at most half of it. Peak memory is about 200 bytes
            per point (850 MiB at the default 2**22); a composition that needs more
            points gets a coarser grid (``g.provenance["caveats"]``) or a refusal.

    Returns:
        A :class:`~dpcompose.guarantee.Guarantee`; ``epsilon_bounds(delta)`` is a
        certified bracket (no lower bound when an ``Exponential`` mechanism is present,
        since a specific exponential mechanism may be more private than its epsilon).

    Raises:
        MethodNotApplicableError: an unsupported mechanism, or a composition that would
            need more than ``max_points`` grid points.

    Guarantee:
        Upper bound for every mechanism (under the neighbour relation each mechanism
        states; add/remove for Poisson subsampling, substitution for sampling without
        replacement, where it holds for every mix of orientations, also adaptive);
        lower bound for the dominating pairs themselves, which are attained by
        Gaussian, Laplace and randomized response, and by the worst member of the
        (eps, delta) class for ``PureDP``/``ApproxDP`` (for sampling without
        replacement: for the best of four fixed mixes of orientations). A composition
        of Gaussians only is answered exactly (``exact=True``).

    References:
        Koskela, Jälkö and Honkela, "Computing Tight Differential Privacy Guarantees
        Using FFT" (AISTATS 2020); Doroshenko, Ghazi, Kamath, Kumar and Manurangsi,
        "Connect the Dots" (PETS 2022); Zhu, Dong and Wang, "Optimal Accounting of
        Differential Privacy via Characteristic Function" (AISTATS 2022); Kairouz, Oh and
        Viswanath, "The Composition Theorem for Differential Privacy" (2015, the (eps,
        delta) dominating pair); Dong, Roth and Su, "Gaussian Differential Privacy"
        (2022, Cor. 3.3, Gaussian compositions; Thms 3.2 and 4.2, sampling without
        replacement).
    """
    tol, h_fixed, tail, max_pts = _check_options(tolerance, discretization, tail_mass, max_points)
    provenance: dict[str, Any] = {"options": {"tolerance": tol, "discretization": h_fixed,
                                              "tail_mass": tail, "max_points": max_pts}}
    plan: list[tuple[Mechanism, int]] = []
    mu2 = 0.0
    for m, k in groups:
        pair = _pair(m)  # NoRuleError (MethodNotApplicableError) if it has none
        if type(m) is Gaussian:  # exactly the Gaussian: the closed form holds for no other pair
            mu2 += k * m.mu * m.mu
            continue
        if pair.is_identity:
            continue  # a 0-DP mechanism is the identity of composition
        plan.append((m, k))
    if not plan:
        if mu2 == 0.0:
            return Guarantee("pld", delta_upper=lambda e: 0.0, epsilon_upper=lambda d: 0.0,
                             exact=True, provenance=provenance)
        return _gaussian_guarantee(mu2, provenance)
    if mu2 > 0.0:
        # sigma rounded down so that mu = 1/sigma is never below sqrt(mu2)
        sigma = (1.0 / math.sqrt(mu2)) * (1.0 - 4 * MACHINE_EPSILON)
        if not sigma > 0.0:
            raise MethodNotApplicableError(
                f"pld: the Gaussian mechanisms' sum of mu^2 = {mu2!r} overflows a double (noise "
                f"far too small for a loss grid); use method='rdp' or 'simple'.")
        plan.append((Gaussian(sigma=sigma), 1))
    # the grid machinery (numpy FFTs, quadrature) is imported only now: an ``optimal`` or
    # closed-form query that merely registers pld does not load it (cold start, issue 14)
    from .discretize import pair_epsilon
    from .sizing import _accountant

    # a non-private member (infinite epsilon, not subsampled) makes everything non-private
    for m, _ in plan:
        if pair_epsilon(m) == math.inf:
            provenance["pld"] = {"non_private": describe(m)}
            return Guarantee("pld", delta_upper=lambda e: 1.0, epsilon_upper=lambda d: math.inf,
                             exact=True, provenance=provenance)
    if len(plan) == 1 and plan[0][1] == 1 and type(plan[0][0]) is Laplace:
        return _laplace_guarantee(plan[0][0], provenance)
    acc = _accountant(plan, tol, h_fixed, tail, max_pts)
    provenance["pld"] = acc.info
    provenance["error_budget"] = acc.info["error_budget"]
    if "coarsened" in acc.info:
        provenance["caveats"] = [f"pld: {acc.info['coarsened']}"]
    lower = acc.has_lower
    return Guarantee(
        "pld",
        delta_upper=acc.delta_upper,
        epsilon_upper=acc.epsilon_upper,
        delta_lower=acc.delta_lower if lower else None,
        epsilon_lower=acc.epsilon_lower if lower else None,
        provenance=provenance,
    )
