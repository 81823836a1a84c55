"""What pld reads from a mechanism's dominating pair: the epsilon it is built from, and
whether (and on which grid) it has a model for lower bounds. Moved out of
:mod:`.discretize` (which re-exports every name) to keep that module near 600 lines.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any, Iterable

from ...mechanisms import Mechanism
from ...representations import DominatingPair, dominating_pair, lower_pair

__all__ = ["cached_pair", "pair_epsilon", "has_lower_model", "lower_model_is_own", "lower_grid_spacing"]


@lru_cache(maxsize=1 << 12)
def cached_pair(m: Mechanism) -> Any:
    """``dominating_pair(m)``, remembered: pld reads every mechanism's pair for its grid
    spacing (once per spacing tried), its epsilon and its lower model (365 hospitals: three
    pairs each). Mechanisms and pairs are frozen values, so a remembered pair is the one
    that would be built again."""
    return dominating_pair(m)


def pair_epsilon(m: Mechanism) -> float | None:
    """The epsilon the mechanism's (not subsampled) pair is built from, else None.

    It decides the lower model's smaller epsilon, 0-DP and non-private members.
    """
    pair = cached_pair(m)
    return pair.epsilon if isinstance(pair, DominatingPair) else None


def has_lower_model(m: Mechanism) -> bool:
    """Whether ``m`` has a pair for lower bounds: its own if attained, else a thinning of it.

    (:func:`~dpcompose.representations.lower_pair`; the discretized lower bound of either is one.)
    """
    return lower_pair(cached_pair(m)) is not None


def lower_model_is_own(m: Mechanism) -> bool:
    """Whether the lower model of ``m`` reads a pair other than the upper model's (a thinning).

    Callers that cache loss models key the lower one apart exactly then (otherwise both
    kinds share one model and its quadrature).
    """
    pair = cached_pair(m)
    return lower_pair(pair) is not pair


def lower_grid_spacing(mechanisms: Iterable[Mechanism], h: float) -> float:
    """The lower grids' spacing: ``a / ceil(a / h)`` when every mechanism's lower pair is a
    thinning on one loss lattice ``a Z`` (its ``grid_anchor``; the discrete Gaussian) or has
    no atoms (the Gaussian), else ``h``.

    On that grid every atom of the thinnings sits on a grid point (to a few ulps, which the
    lower placement absorbs), so the lower discretization loses no first-order mass
    (rounding each atom down to the grid would shift every loss by up to ``h``). Only a
    spacing in ``[h/2, h]`` is taken (at most twice the points; a caller whose grid does not
    fit falls back to ``h``); any spacing gives a valid lower bound.
    """
    anchors = set()
    for m in mechanisms:
        pair = dominating_pair(m)
        thin = lower_pair(pair)
        if isinstance(thin, DominatingPair) and not thin.atoms:
            continue  # a continuous pair (the Gaussian's): second order on any grid
        if thin is pair or not isinstance(thin, DominatingPair) or thin.grid_anchor is None:
            return h
        anchors.add(thin.grid_anchor)
    if len(anchors) != 1:
        return h
    a = anchors.pop()
    if not (math.isfinite(a) and a >= 0.5 * h):
        return h
    return a / math.ceil(a / h)
