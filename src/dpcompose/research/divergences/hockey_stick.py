r"""The hockey-stick divergence and what it decides: the privacy profile of a pair, the
total variation distance (its value at 1) and (epsilon, delta)-indistinguishability.

Moved out of the module :mod:`dpcompose.research.divergences` unchanged (issue 15); the package
re-exports every public name, and its docstring states the conventions.
"""

from __future__ import annotations

import math
from typing import Callable

import numpy as np

from ..._validation import check_delta, check_epsilon, check_real
from .validation import _check_pair, _losses


def _hockey_stick_log(p: np.ndarray, q: np.ndarray, log_gamma: float) -> float:
    """sum (p - e^log_gamma q)_+ as sum over {L > log_gamma} of p * (-expm1(log_gamma - L))."""
    if log_gamma == -math.inf:
        return 1.0
    support = p > 0
    ps = p[support]
    losses = _losses(ps, q[support])
    above = losses > log_gamma  # +inf losses (q = 0) are always above a finite log_gamma
    if log_gamma == math.inf:
        return min(1.0, math.fsum(ps[np.isposinf(losses)].tolist()))
    with np.errstate(over="ignore", invalid="ignore"):
        factors = -np.expm1(log_gamma - losses[above])  # in (0, 1]; inf loss gives 1
    value = math.fsum((ps[above] * factors).tolist())
    return min(1.0, max(0.0, value))


def hockey_stick(p, q, gamma: float) -> float:
    r"""Hockey-stick divergence :math:`H_\gamma(p\|q) = \sum_y (p(y) - \gamma q(y))_+`.

    Defined for :math:`\gamma \in [0, \infty]`; :math:`H_0 = 1`, :math:`H_1` is the
    total variation distance, and :math:`H_\infty(p\|q) = p(\{q = 0\})` (the limit, the
    mass of infinite privacy loss). Non-increasing and convex in :math:`\gamma`.

    It equals :math:`\max_S\, p(S) - \gamma q(S)` (the maximum is at :math:`S = \{p >
    \gamma q\}`), so :math:`p(S) \le e^\varepsilon q(S) + \delta` for all :math:`S` iff
    :math:`H_{e^\varepsilon}(p\|q) \le \delta`.

    Args:
        p, q: distributions on the same finite set.
        gamma: in [0, inf].

    Returns:
        :math:`H_\gamma(p\|q) \in [0, 1]`, computed in log space (see module notes).

    References:
        The blog "A Tail of Two Densities", the measure :math:`\mu = (p - e^\varepsilon
        q)_+` of Claim 10's proof ("Trick 2"); Balle, Barthe and Gaboardi 2018
        (privacy profiles).
    """
    p, q = _check_pair(p, q)
    gamma = check_real("gamma", gamma, low=0.0, allow_inf=True,
                       remedy="gamma = e^epsilon is a non-negative likelihood-ratio threshold.")
    log_gamma = -math.inf if gamma == 0.0 else math.log(gamma)
    return _hockey_stick_log(p, q, log_gamma)


def pair_privacy_profile(p, q, *, symmetric: bool = True) -> Callable[[float], float]:
    r"""The privacy profile of a pair: :math:`\varepsilon \mapsto \delta(\varepsilon)`.

    With ``symmetric=True``, :math:`\delta(\varepsilon) = \max(H_{e^\varepsilon}(p\|q),
    H_{e^\varepsilon}(q\|p))`, the smallest :math:`\delta` for which :math:`p, q` are
    :math:`(\varepsilon, \delta)`-indistinguishable; with ``symmetric=False`` only
    :math:`H_{e^\varepsilon}(p\|q)` (the one-sided profile, inequality (3) of the blog
    alone).

    Returns:
        A function defined on :math:`[0, \infty]`, non-increasing, with values in [0, 1];
        its value at :math:`\infty` is the mass of infinite loss. Exact up to rounding.
    """
    pa, qa = _check_pair(p, q)

    def profile(epsilon: float) -> float:
        eps = check_epsilon("epsilon", epsilon, allow_inf=True)
        forward = _hockey_stick_log(pa, qa, eps)
        if not symmetric:
            return forward
        return max(forward, _hockey_stick_log(qa, pa, eps))

    return profile


def total_variation(p, q) -> float:
    r"""Total variation (statistical) distance :math:`\mathrm{SD}(p, q) = \tfrac12 \sum_y |p(y) - q(y)|`.

    Equals :math:`\max_T |p(T) - q(T)|` (Stemmer, lecture 5, reminder on statistical
    distance) and :math:`H_1(p\|q) = H_1(q\|p)`.

    References:
        U. Stemmer (after A. Roth and A. Smith), lecture 5 "Azuma-Hoeffding and
        Composition for DP-Stability", the reminder in the proof of Auxiliary Claim 4.
    """
    p, q = _check_pair(p, q)
    return min(1.0, 0.5 * math.fsum(np.abs(p - q).tolist()))


def indistinguishable(p, q, epsilon: float, delta: float) -> bool:
    r"""Whether :math:`p, q` are :math:`(\varepsilon, \delta)`-indistinguishable.

    That is, for every set :math:`S`: :math:`p(S) \le e^\varepsilon q(S) + \delta` (3)
    and :math:`q(S) \le e^\varepsilon p(S) + \delta` (4); checked exactly as
    :math:`H_{e^\varepsilon}(p\|q) \le \delta` and :math:`H_{e^\varepsilon}(q\|p) \le
    \delta` (the worst set is :math:`\{p > e^\varepsilon q\}`). Values within rounding
    of the boundary can fall either way.

    Args:
        p, q: distributions on the same finite set.
        epsilon: in [0, inf].
        delta: in [0, 1].

    References:
        The blog "A Tail of Two Densities", Definition (Indistinguishability) and
        Claim 0; A. Roth, CIS 800 lecture 4, Remark after Definition 2.
    """
    p, q = _check_pair(p, q)
    eps = check_epsilon("epsilon", epsilon, allow_inf=True)
    delta = check_delta("delta", delta, allow_one=True)
    return _hockey_stick_log(p, q, eps) <= delta and _hockey_stick_log(q, p, eps) <= delta
