r"""The privacy loss (the blog's divergence variable): its exact law, samples and tails.

Moved out of the module :mod:`dpcompose.research.divergences` unchanged (issue 15); the package
re-exports every public name, and its docstring states the conventions.
"""

from __future__ import annotations

import math

import numpy as np

from ..._validation import check_count, check_real
from .validation import _check_pair, _losses


# ---------------------------------------------------------------------------
# the privacy loss (divergence variable)


def privacy_loss(p, q) -> tuple[np.ndarray, np.ndarray]:
    r"""The exact law of the divergence variable :math:`L(p\|q)`.

    Returns:
        ``(values, probabilities)``: the loss :math:`\log(p(y)/q(y))` at each point of
        :math:`\mathrm{Supp}(p)` (:math:`+\infty` where :math:`q(y) = 0`) and its
        probability :math:`p(y)`, sorted by value (equal values are not merged).

    References:
        The blog "A Tail of Two Densities", Definition (Divergence Variable); "privacy
        loss" after Claim 6.
    """
    p, q = _check_pair(p, q)
    support = p > 0
    losses = _losses(p[support], q[support])
    order = np.argsort(losses, kind="stable")
    return losses[order], p[support][order]


def sample_privacy_loss(p, q, size: int, *, rng=None) -> np.ndarray:
    r"""Samples of the divergence variable :math:`L(p\|q) = \log(p(\xi)/q(\xi))`, :math:`\xi \sim p`.

    Args:
        p, q: distributions on the same finite set.
        size: number of samples (a non-negative integer).
        rng: a ``numpy.random.Generator``, a seed, or None (fresh entropy).

    Returns:
        A float array of ``size`` losses; :math:`+\infty` where :math:`q(\xi) = 0`.
        Its mean estimates :math:`D(p\|q)`.

    References:
        The blog "A Tail of Two Densities", Definition (Divergence Variable).
    """
    values, probs = privacy_loss(p, q)
    size = check_count("size", size)
    gen = rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)
    idx = gen.choice(values.size, size=size, p=probs / probs.sum())
    return values[idx]


def privacy_loss_tail(p, q, epsilon: float) -> float:
    r""":math:`\mathbb P(L(p\|q) > \varepsilon) = p(\{y : \log(p(y)/q(y)) > \varepsilon\})`.

    Exact (a finite sum). Infinite losses (:math:`q(y) = 0`) count for every finite
    :math:`\varepsilon`; at :math:`\varepsilon = \infty` the tail is 0 (use
    :func:`hockey_stick` with ``gamma=inf`` for the mass of infinite loss).

    Args:
        p, q: distributions on the same finite set.
        epsilon: a real threshold (may be negative), or +inf.
    """
    p, q = _check_pair(p, q)
    eps = check_real("epsilon", epsilon, allow_inf=True,
                     remedy="epsilon is a threshold for the privacy loss log(p/q).")
    support = p > 0
    losses = _losses(p[support], q[support])
    return min(1.0, math.fsum(p[support][losses > eps].tolist()))
