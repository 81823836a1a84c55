r"""Mechanisms as finite tables of output distributions: their exact delta, and the blog's
Claims 6 and 7 (delta from loss tails, delta via conditioning events).

Moved out of the module :mod:`dpcompose.research.divergences` unchanged (issue 15); the package
re-exports every public name, and its docstring states the conventions.
"""

from __future__ import annotations

from typing import Iterable, Sequence

import numpy as np

from ..._validation import check_count, check_epsilon
from ...errors import InvalidParameterError
from .claims import _claim4, delta_from_loss_tails
from .hockey_stick import _hockey_stick_log
from .validation import _as_real_array, check_distribution


def _check_mechanism(outputs, neighbours) -> tuple[np.ndarray, list[tuple[int, int]]]:
    arr = _as_real_array("outputs", outputs)
    if arr.ndim != 2 or arr.shape[0] < 1:
        raise InvalidParameterError(
            f"outputs must be a 2-D array with one row (output distribution) per dataset, "
            f"got shape {np.shape(arr)}."
        )
    rows = [check_distribution(f"outputs[{i}]", arr[i]) for i in range(arr.shape[0])]
    pairs = []
    for pair in neighbours:
        try:
            i, j = pair
        except (TypeError, ValueError):
            raise InvalidParameterError(
                f"each neighbour must be a pair of row indices (i, j), got {pair!r}."
            ) from None
        for name, v in (("i", i), ("j", j)):
            idx = check_count(f"neighbour index {name}", v)
            if idx >= arr.shape[0]:
                raise InvalidParameterError(
                    f"neighbour index {idx} is out of range; outputs has {arr.shape[0]} rows."
                )
        pairs.append((int(i), int(j)))
    if not pairs:
        raise InvalidParameterError("neighbours is empty; give at least one pair (i, j).")
    return np.vstack(rows), pairs


def mechanism_delta(outputs, neighbours: Iterable[Sequence[int]], epsilon: float) -> float:
    r"""Blog Claim 0: the exact :math:`\delta(\varepsilon)` of a mechanism on a finite output set.

    Claim 0. :math:`M` is :math:`(\varepsilon, \delta)`-dp iff :math:`M(x)` and
    :math:`M(x')` are :math:`(\varepsilon, \delta)`-ind for all :math:`x, x'` with
    distance 1. So the smallest :math:`\delta` is the maximum over the neighbour pairs
    (both orders) of :math:`H_{e^\varepsilon}`.

    Args:
        outputs: 2-D array, row :math:`x` the distribution of :math:`M(x)`.
        neighbours: pairs :math:`(x, x')` of row indices at distance 1 (each pair is
            checked in both orders).
        epsilon: in [0, inf].
    """
    rows, pairs = _check_mechanism(outputs, neighbours)
    eps = check_epsilon("epsilon", epsilon, allow_inf=True)
    return max(max(_hockey_stick_log(rows[i], rows[j], eps), _hockey_stick_log(rows[j], rows[i], eps))
               for i, j in pairs)


def mechanism_delta_from_loss_tails(outputs, neighbours: Iterable[Sequence[int]], epsilon: float) -> float:
    r"""Blog Claim 6: a :math:`\delta` from the tails of the privacy loss of a mechanism.

    Claim 6. If for all :math:`x, x' \in X` with distance 1,
    :math:`\mathbb P(L(M(x)\|M(x')) \le \varepsilon) \ge 1 - \delta`, then :math:`M` is
    :math:`(\varepsilon, \delta)`-dp.

    Returns the smallest such :math:`\delta`: the maximum over neighbour pairs, in both
    orders (the relation is symmetric), of :math:`\mathbb P(L > \varepsilon)`.

    Guarantee:
        Upper bound: :math:`M` is :math:`(\varepsilon, \delta)`-DP with the returned
        :math:`\delta` (never below :func:`mechanism_delta`).

    References:
        The blog "A Tail of Two Densities" (2019), Claim 6 (from Claims 0 and 1).
    """
    rows, pairs = _check_mechanism(outputs, neighbours)
    eps = check_epsilon("epsilon", epsilon, allow_inf=True)
    return max(delta_from_loss_tails(rows[i], rows[j], eps) for i, j in pairs)


def mechanism_delta_via_events(outputs, neighbours: Iterable[Sequence[int]], epsilon: float) -> float:
    r"""Blog Claim 7: :math:`(\varepsilon, \delta)`-DP through conditioning events.

    Claim 7. :math:`M` is :math:`(\varepsilon, \delta)`-dp if and only if for every
    :math:`x, x'` with distance 1 there exist events :math:`E, F \subset \Omega` with
    :math:`\mathbb P(E) = \mathbb P(F) \ge 1 - \delta` such that :math:`M(x) | E` and
    :math:`M(x') | F` are :math:`\varepsilon`-ind.

    Returns the smallest such :math:`\delta`, :math:`\max` over pairs of :math:`1 -
    \mathbb P(E)` for the events of :func:`conditioning_events`; it equals
    :func:`mechanism_delta` up to rounding.

    References:
        The blog "A Tail of Two Densities" (2019), Claim 7 (from Claims 0 and 4).
    """
    rows, pairs = _check_mechanism(outputs, neighbours)
    eps = check_epsilon("epsilon", epsilon, allow_inf=True)
    return max(_claim4(rows[i], rows[j], eps).delta for i, j in pairs)
