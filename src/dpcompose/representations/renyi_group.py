r"""The Renyi group rule: a Renyi curve for databases that differ in g records, from the curve for one.

For distributions :math:`P, Q, R`, orders :math:`\alpha > 1` and Hölder exponents
:math:`p, q > 1` with :math:`1/p + 1/q = 1`, the weak triangle inequality of Renyi
divergences (Mironov, "Renyi Differential Privacy", CSF 2017, the proposition "weak triangle
inequality"; its numbering differs between the paper's versions, and the proof below is
self-contained) is

.. math::

    D_\alpha(P\|R) \le \frac{\alpha - 1/p}{\alpha - 1} D_{p\alpha}(P\|Q) + D_{q(\alpha-1)+1}(Q\|R).

Proof (written out here, since the rounding below follows it): write
:math:`\int P^\alpha R^{1-\alpha} = E_Q[(P/Q)^\alpha (Q/R)^{\alpha-1}]` and apply Hölder's
inequality with exponents :math:`p, q` under :math:`Q`:
:math:`\le (E_Q[(P/Q)^{p\alpha}])^{1/p} (E_Q[(Q/R)^{q(\alpha-1)}])^{1/q}
= e^{(p\alpha-1) D_{p\alpha}(P\|Q)/p} \, e^{(\alpha-1) D_{q(\alpha-1)+1}(Q\|R)}`; take logarithms
and divide by :math:`\alpha - 1`. With :math:`c = q(\alpha - 1)` (so :math:`1 - 1/p = 1/q`
gives :math:`p = c / (c - \alpha + 1)` and the factor :math:`1 + 1/c`), for every
:math:`c > \alpha - 1`:

.. math::

    D_\alpha(P\|R) \le \Bigl(1 + \frac{1}{c}\Bigr) D_{\alpha c/(c-\alpha+1)}(P\|Q) + D_{c+1}(Q\|R).

**Group privacy.** Databases :math:`x_0, x_g` that differ in g records are joined by a chain
:math:`x_0, x_1, \ldots, x_g` of neighbours (add or remove one record at a time). Split the
chain at :math:`x_a`, :math:`a = \lfloor g/2 \rfloor`: the two halves differ in a and
:math:`b = g - a` records, so their divergences are bounded by the group curves of sizes a and
b (for either order of the two databases, as the neighbour relation is symmetric), and the
inequality above gives the curve of size g (Mironov's group-privacy proposition is this
recursion with :math:`p = q = 2` on sizes :math:`2^c`; the minimum over c here is never worse). The
recursion holds for **any** mechanism whose one-record curve bounds both directions, whatever
it does inside (subsampling included): it only uses the curve on neighbouring databases.
The chain's databases are all inputs of the *same* mechanism: a sampler that draws each
record on its own (``Subsampled``) is covered; a pipeline that samples a person's records
together is a different mechanism (``Subsampled`` of the per-person one, sensitivity g C).

**Evaluation on a grid.** Renyi divergence is nondecreasing in the order (van Erven and
Harremoës, "Rényi Divergence and Kullback-Leibler Divergence", IEEE Trans. Inf. Theory
2014, Theorem 3), so a curve's value at the smallest grid order :math:`\ge` a needed order
bounds the divergence at the needed order. Each size's curve is computed on one grid of
orders :math:`G`; c runs over :math:`o - 1` for the grid orders :math:`o > \alpha`, so the
second term is read at a grid order exactly; the first term's order is raised by 4 machine
epsilons before the look-up (it is computed in floating point), and an order above the grid
reads as ``inf`` (a true, useless bound). The factor :math:`1 + 1/c` and the sum are rounded
up by a margin of 4 machine epsilons each (a few correctly rounded operations).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from .._numerics.arrays import sorted_unique
from .._numerics.rounding import MACHINE_EPSILON
from .renyi import DEFAULT_ORDERS

__all__ = ["group_renyi_curve", "group_grid"]

#: the highest order of the grid (unless a higher one is requested): one-record curves of
#: subsampled mechanisms are slow to evaluate at very high orders, and the group curve at an
#: order alpha reads orders a few times alpha at its optimum
TOP_ORDER = 8192.0


def group_grid(orders: np.ndarray) -> np.ndarray:
    """The grid the group curves are computed on: the requested orders, the default grid and a
    geometric grid up to :data:`TOP_ORDER` (the recursion reads the one-record curve at orders
    above the requested ones; above the grid it reads ``inf``, a true bound)."""
    orders = np.asarray(orders, dtype=float)
    top = max(TOP_ORDER, float(np.max(orders)))
    extension = np.geomspace(1.001, top, 300)
    defaults = DEFAULT_ORDERS[DEFAULT_ORDERS <= top]
    return sorted_unique(np.concatenate([orders, defaults, extension]))


def _look_up(grid: np.ndarray, values: np.ndarray, orders: np.ndarray) -> np.ndarray:
    """The value at the smallest grid order >= each order (raised 4 ulps first); inf above the grid."""
    raised = orders * (1.0 + 4.0 * MACHINE_EPSILON)
    index = np.searchsorted(grid, raised, side="left")
    out = np.full(orders.shape, math.inf)
    inside = index < grid.size
    out[inside] = values[index[inside]]
    return out


def _next_size(grid: np.ndarray, half: np.ndarray, other: np.ndarray) -> np.ndarray:
    """One step of the recursion: the curve of size a + b on the grid from those of sizes a, b.

    Row i is the order alpha = grid[i], column j the second-term order o = grid[j] = c + 1,
    used where o > alpha (c > alpha - 1); other entries are inf and never the minimum.
    """
    alpha = grid[:, None]
    above = grid[None, :] > alpha
    c = np.where(above, grid[None, :] - 1.0, np.nan)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        first_order = alpha * c / (c - (alpha - 1.0))
        first = np.where(above, _look_up(grid, half, np.where(above, first_order, grid[-1])), math.inf)
        factor = (1.0 + 1.0 / c) * (1.0 + 4.0 * MACHINE_EPSILON)
        total = (factor * first + other[None, :]) * (1.0 + 4.0 * MACHINE_EPSILON)
    total = np.where(above & ~np.isnan(total), total, math.inf)  # a nan can only come from masked cells
    return np.min(total, axis=1)


def group_renyi_curve(one_record: Callable[[np.ndarray], np.ndarray], size: int, orders: np.ndarray) -> np.ndarray:
    r"""A certified Renyi curve for databases differing in ``size`` records (module docstring).

    Args:
        one_record: the mechanism's certified Renyi curve for neighbouring databases (both
            directions), evaluated at an array of orders.
        size: g >= 1, the number of records that differ.
        orders: the orders at which to return the group curve (each > 1).

    Guarantee:
        Upper bound at every order: :math:`D_\alpha(M(x)\|M(x')) \le` result for all x, x'
        differing in ``size`` records, by the weak triangle inequality (Mironov, "Renyi
        Differential Privacy", CSF 2017; proved by Hölder's inequality in the module
        docstring; his group-privacy proposition is its power-of-two case), the monotonicity of Renyi divergence in the order and the safe-side look-ups
        and margins of the module docstring. Not attained in general (for the Gaussian it is
        within a few percent of the exact :math:`g^2\alpha/(2\sigma^2)` at moderate orders).
    """
    orders = np.asarray(orders, dtype=float)
    if size == 1:
        return np.asarray(one_record(orders), dtype=float)
    grid = group_grid(orders)
    base = np.asarray(one_record(grid), dtype=float)
    curves: dict[int, np.ndarray] = {1: base}

    def curve(h: int) -> np.ndarray:
        if h not in curves:
            a = h // 2
            curves[h] = _next_size(grid, curve(a), curve(h - a))
        return curves[h]

    full = curve(size)
    return full[np.searchsorted(grid, orders)]
