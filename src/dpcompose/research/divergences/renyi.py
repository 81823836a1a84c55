r"""The Kullback-Leibler and Renyi divergences (KL is the Renyi divergence of order 1).

Moved out of the module :mod:`dpcompose.research.divergences` unchanged (issue 15); the package
re-exports every public name, and its docstring states the conventions.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import logsumexp, rel_entr

from ..._validation import check_real
from .max_divergence import max_divergence
from .validation import _check_pair, _losses


def kl_divergence(p, q) -> float:
    r"""Kullback-Leibler divergence :math:`D(p\|q) = \sum_y p(y) \log(p(y)/q(y))`.

    Terms with :math:`p(y) = 0` are 0; a point with :math:`q(y) = 0 < p(y)` makes it
    :math:`+\infty`. It equals the mean of the divergence variable,
    :math:`\mathbb E L(p\|q)`. Natural logarithm (nats). Rounding that would make the
    sum negative is clipped to 0 (the true value is :math:`\ge 0`, Proposition 5 of the
    notes).

    Args:
        p, q: distributions on the same finite set.

    Returns:
        :math:`D(p\|q) \in [0, \infty]`.

    References:
        "Advanced Composition" lecture notes, Definition 3 and Proposition 5; A. Roth,
        CIS 800 lecture 4 "Composition Theorems", Definition 3.
    """
    p, q = _check_pair(p, q)
    terms = rel_entr(p, q)
    if np.isinf(terms).any():
        return math.inf
    return max(0.0, math.fsum(terms.tolist()))


def renyi_divergence(p, q, alpha: float) -> float:
    r"""Renyi divergence of order :math:`\alpha \in [0, \infty]`.

    .. math:: D_\alpha(p\|q) = \frac{1}{\alpha - 1} \log \sum_{y: p(y) > 0}
              p(y)^\alpha q(y)^{1 - \alpha}, \qquad \alpha \in (0, 1) \cup (1, \infty),

    with the limits :math:`D_1 = D(p\|q)` (KL, :func:`kl_divergence`),
    :math:`D_\infty = D_\infty(p\|q)` (:func:`max_divergence`) and
    :math:`D_0 = -\log q(\mathrm{Supp}(p))`. Non-decreasing in :math:`\alpha`. For
    :math:`\alpha > 1` a point with :math:`q(y) = 0 < p(y)` gives :math:`+\infty`; for
    :math:`\alpha < 1` only disjoint supports do. The sum is evaluated with
    ``logsumexp``; rounding below 0 is clipped to 0.

    Args:
        p, q: distributions on the same finite set.
        alpha: the order, in [0, inf].

    References:
        A. Renyi, "On measures of entropy and information" (1961); T. van Erven and
        P. Harremoes, "Renyi divergence and Kullback-Leibler divergence" (2014),
        Theorems 3 and 5 (limits, monotonicity in the order).
    """
    p, q = _check_pair(p, q)
    alpha = check_real("alpha", alpha, low=0.0, allow_inf=True,
                       remedy="the Renyi order alpha lies in [0, inf] (1 is KL, inf is max divergence).")
    if alpha == 1.0:
        return kl_divergence(p, q)
    if math.isinf(alpha):
        return max_divergence(p, q)
    support = p > 0
    ps, qs = p[support], q[support]
    if alpha == 0.0:
        mass = math.fsum(qs.tolist())
        return math.inf if mass <= 0.0 else max(0.0, -math.log(min(1.0, mass)))
    if alpha > 1.0 and (qs <= 0).any():
        return math.inf
    # log(p^a q^(1-a)) = log p + (a - 1) log(p/q): no inf - inf even when a is huge
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        log_terms = np.log(ps) + (alpha - 1.0) * _losses(ps, qs)
    log_sum = float(logsumexp(log_terms))
    if log_sum == -math.inf:  # alpha < 1 and disjoint supports
        return math.inf
    return max(0.0, log_sum / (alpha - 1.0))
