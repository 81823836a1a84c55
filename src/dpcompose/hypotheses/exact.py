r"""Exact hockey-stick divergences for products of finite dominating pairs (hypothesis DP).

The finite pairs themselves, and :class:`~dpcompose.representations.finite.LossAtoms`
(log-space tables merged by privacy loss, with certified hockey-stick bounds), are in
:mod:`dpcompose.representations.finite`: any mechanism whose dominating pair is a finite
table attained by it (randomized response, epsilon-DP and (epsilon, delta)-DP
descriptions, the discrete Laplace mechanism) is enumerated exactly.

On top of them: :func:`finite_atoms` (the exact pair of a composed release),
:func:`atoms_guarantee` (a Guarantee from enumerated pairs, with a rounding margin) and
:func:`mix` (a database whose membership bit is random). The exact routes for structured
priors are in :mod:`.priors`.
"""

from __future__ import annotations

import math

import numpy as np

from ..compose import Groups
from ..guarantee import Guarantee
from ..representations.finite import MAX_ATOMS, LossAtoms, finite_pair, has_finite_pair

__all__ = ["LossAtoms", "finite_pair", "has_finite_pair", "finite_atoms", "finite_estimate", "atoms_guarantee",
           "mix", "MAX_ATOMS", "SAFETY"]

#: relative margin added to exact upper bounds (and removed from lower bounds) for rounding
SAFETY = 1e-11


def finite_atoms(groups: Groups) -> LossAtoms | None:
    """The exact pair of a composed release (None if some mechanism has no finite pair, or none runs)."""
    if not groups or not all(has_finite_pair(m) for m, _ in groups):
        return None
    atoms = LossAtoms(np.array([0.0]), np.array([0.0]))
    for m, c in groups:
        atoms = atoms.product(finite_pair(m).power(c))
    return atoms


def finite_estimate(groups: Groups) -> float:
    """An upper bound on the number of distinct losses of the exact enumeration (inf if not finite)."""
    est = 1.0
    for m, c in groups:
        if not has_finite_pair(m):
            return math.inf
        est *= c * (len(finite_pair(m)) - 1) + 1
    return est


def atoms_guarantee(fwd: LossAtoms, bwd: LossAtoms | None, name: str, provenance: dict) -> Guarantee:
    """An exact guarantee from enumerated pairs: the larger direction, bounds widened by :data:`SAFETY`.

    ``bwd``: the other direction where it differs (None: ``fwd`` is symmetric).
    """

    def upper(e: float) -> float:
        h = fwd.hockey_upper(e)
        if bwd is not None:
            h = max(h, bwd.hockey_upper(e))
        return min(1.0, h * (1.0 + SAFETY))

    def lower(e: float) -> float:
        h = fwd.hockey_lower(e)
        if bwd is not None:
            h = max(h, bwd.hockey_lower(e))
        return max(0.0, h * (1.0 - SAFETY))

    return Guarantee(name, delta_upper=upper, delta_lower=lower, exact=True, provenance=provenance)


def mix(atoms: LossAtoms, w: float) -> np.ndarray:
    """log of (1 - w) Q + w P per atom, for the pair (P, Q) = (with, without the target); w = P(present)."""
    if w <= 0.0:
        return atoms.logq.copy()
    if w >= 1.0:
        return atoms.logp.copy()
    return np.logaddexp(math.log1p(-w) + atoms.logq, math.log(w) + atoms.logp)
