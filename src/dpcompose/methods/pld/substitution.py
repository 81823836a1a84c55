r"""One privacy loss distribution per invocation for sampling without replacement.

Part of :mod:`dpcompose.methods.pld` (see ``docs/theory.md``, "Sampling without replacement
under substitution", for the statement and its proof in full).

**The problem.** Under substitution neighbours, an invocation of ``Subsampled(M, q,
"without_replacement")`` has the pair :math:`((1-q)R + qB, (1-q)R + qA)` where
:math:`(B, A)` is the inner dominating pair and :math:`R` the output on the subsamples
that miss the changed record. Queries can make :math:`R` look like :math:`A` in some
invocations (the *remove* pair :math:`((1-q)A + qB, A)`) and like :math:`B` in others
(the *add* pair :math:`(A, (1-q)A + qB)` after relabelling), even adaptively.
Composing all-remove and all-add separately and taking the maximum misses the mixed
products, so one description valid for every invocation is needed.

**The rule.** Dong, Roth and Su ("Gaussian Differential Privacy", JRSS-B 2022,
Thm 4.2) show that the subsampled mechanism is :math:`C_q(f)`-DP with
:math:`C_q(f) = \mathrm{conv}(\min(f_q, f_q^{-1}))`, :math:`f_q = q f + (1-q)\mathrm{Id}`
the trade-off function of the add pair and :math:`f_q^{-1}` that of the remove pair.
The privacy profile of a trade-off function is :math:`1 + f^*(-e^\varepsilon)`, and the
conjugate of the convex hull of a minimum is the maximum of the conjugates, so the
profile of :math:`C_q(f)` is :math:`\max(\delta_{\mathrm{remove}}, \delta_{\mathrm{add}})`
at every real :math:`\varepsilon`. For a *symmetric* inner pair (all pairs in
:mod:`dpcompose.methods.pld.discretize` are) the remove direction is the larger one for
:math:`\varepsilon \ge 0`, and the add pair is the remove pair reversed, so the hull is
the **symmetrization of the remove pair**: the symmetric pair whose profile equals
:math:`\delta_{\mathrm{remove}}` for :math:`\varepsilon \ge 0`. Composition of such
pairs is valid under adaptive composition (Dong, Roth and Su, Thm 3.2; by Blackwell's
theorem each invocation's pair is a post-processing of the hull pair).

**The discrete pair.** Let :math:`r_j` be the upper ("connect the dots") P-masses of
the remove direction at the losses :math:`l_j = jh` and :math:`r_\infty` its mass at
:math:`+\infty`, so that :math:`F_r(x) = \sum_j r_j (1 - x e^{-l_j})_+ + r_\infty \ge
\delta_{\mathrm{remove}}(\log x)` for every :math:`x > 0`. The symmetrized measure keeps
:math:`r_j` for :math:`j \ge 0`, puts :math:`e^{-l_j} r_j` at :math:`-l_j`, keeps
:math:`r_\infty`, and puts :math:`w_0 = \max(0, 1 - S - T - r_\infty)` at loss 0 with
:math:`S = \sum_{j \ge 0} r_j`, :math:`T = \sum_{j \ge 0} r_j e^{-l_j}`. For
:math:`x \ge 1` its profile is :math:`F_r(x)`; for :math:`x < 1` it is
:math:`(1 - x)(S + T + r_\infty + w_0) + x F_r(1/x) \ge 1 - x + x\,\delta_{\mathrm{remove}}(-\log x)
= \delta_{\mathrm{add}}(\log x)`. So it dominates the hull at every real
:math:`\varepsilon` (it need not be a probability pair: composition of non-negative
measures whose profiles dominate pointwise preserves the domination, since the profile
of a product is an integral of one factor's profile with non-negative weights).

Floating point: the mirrored masses are rounded up, :math:`S + T + r_\infty` is rounded
down (so :math:`w_0` is rounded up), and the loss-evaluation slack :math:`s` of the
remove direction (masses may sit up to :math:`s` below their true loss, see
:class:`dpcompose.methods.pld.grid.GridPLD`) is carried over: shifting the remove measure up
by :math:`s` and symmetrizing gives masses at or below those stored here shifted up by
:math:`s`, with :math:`T` multiplied by :math:`e^{-s} \ge 1 - s`.
"""

from __future__ import annotations

import math

import numpy as np

from ..._numerics.rounding import SMALLEST_SUBNORMAL, UNIT_ROUNDOFF
from .discretize import Discretized

__all__ = ["substitution_hull"]


def substitution_hull(remove: Discretized, h: float, slack: float) -> Discretized:
    """The symmetrized upper discretization of a without-replacement invocation.

    Args:
        remove: the upper discretization of the remove pair ``((1-q)A + qB, A)``.
        h: the grid spacing.
        slack: how far below its true loss any mass of ``remove`` may sit (>= 0).

    Returns:
        A measure on the same grid (plus an atom at +inf) whose privacy profile is at
        least ``max(delta_remove, delta_add)`` at every real epsilon, evaluated with
        the same query slack.

    Guarantee:
        upper bound on the per-invocation privacy profile of sampling without
        replacement under substitution neighbours, for any mix of orientations (see the
        module docstring).

    References:
        Dong, Roth and Su, "Gaussian Differential Privacy", JRSS-B 2022, Thms 3.2 and
        4.2; Zhu, Dong and Wang, "Optimal Accounting of Differential Privacy via
        Characteristic Function", AISTATS 2022 (symmetrized pairs).
    """
    p = remove.p
    idx = remove.start + np.arange(p.size)
    keep = idx >= 0
    pos = p[keep]
    pos_idx = idx[keep]
    top = int(pos_idx[-1]) if pos.size else 0
    out = np.zeros(2 * top + 1)  # indices -top .. top
    if pos.size:
        out[top + pos_idx] = pos
        # mirror: e^{-l_j} r_j at -l_j (j > 0). The product j * h carries a relative
        # error of one ulp, so exp(-fl(j h)) is within (1 + |l_j|) ulps of e^{-l_j};
        # numpy's exp and the product add a few more (16 allowed), and a subnormal
        # product may be off by half the smallest double: each mirrored mass is rounded
        # up and T rounded down
        loss = pos_idx.astype(float) * h
        raw = pos * np.exp(-loss)
        rel = (18.0 + loss) * UNIT_ROUNDOFF
        j_pos = pos_idx > 0
        up = np.where(pos > 0.0, np.maximum(raw * (1.0 + rel), SMALLEST_SUBNORMAL), 0.0)
        out[top - pos_idx[j_pos]] += up[j_pos]
        # S and T rounded down (fsum is correctly rounded)
        s_low = math.fsum(pos.tolist()) * (1.0 - 2 * UNIT_ROUNDOFF)
        t_low = math.fsum((raw * (1.0 - rel)).tolist()) * (1.0 - 2 * UNIT_ROUNDOFF) - pos.size * SMALLEST_SUBNORMAL
        t_low = max(0.0, t_low) * (1.0 - slack - 4 * UNIT_ROUNDOFF)  # e^{-s} >= 1 - s
        zero = float(pos[0]) if pos_idx[0] == 0 else 0.0
    else:
        s_low = t_low = zero = 0.0
    total_low = (s_low + t_low + remove.inf) * (1.0 - 4 * UNIT_ROUNDOFF)
    w0 = max(0.0, math.nextafter(1.0 - total_low, math.inf)) if total_low < 1.0 else 0.0
    # loss 0: the remove mass there, its mirror (at most itself) and w0, rounded up
    out[top] = (zero + zero + w0) * (1.0 + 4 * UNIT_ROUNDOFF)
    nz = np.flatnonzero(out > 0.0)
    if nz.size == 0:
        return Discretized(0, np.zeros(0), remove.inf)
    return Discretized(-top + int(nz[0]), np.ascontiguousarray(out[nz[0]: nz[-1] + 1]), remove.inf)
