"""Exact grid-index arithmetic: which grid point a loss rounds up to, compared as
rationals. Moved out of :mod:`.discretize` (which re-exports every name).
"""

from __future__ import annotations

import math
from fractions import Fraction

__all__ = ["grid_index_up", "on_grid"]


def grid_index_up(loss: float, h: float) -> int:
    """The i with (i - 1) h < loss <= i h, compared exactly (as rationals).

    Grid index arithmetic under composition is exact (index i stands for the exact
    value i * h), so "on the grid" must mean exact equality: e.g. 10 * 0.01 == 0.1 in
    doubles, but the exact product of the doubles is below the double 0.1, and placing
    randomized response's loss 0.1 at index 10 under-reported delta.
    """
    i = math.ceil(loss / h)
    fl, fh = Fraction(loss), Fraction(h)
    while i * fh < fl:
        i += 1
    while (i - 1) * fh >= fl:
        i -= 1
    return i


def _grid_index_up_float(loss: float, h: float) -> int:
    """The i with (i - 1) h < loss <= i h in the floating-point arithmetic of i * h."""
    i = math.ceil(loss / h)
    while i * h < loss:
        i += 1
    while (i - 1) * h >= loss:
        i -= 1
    return i


def on_grid(loss: float, i: int, h: float) -> bool:
    """Whether loss is exactly i * h (exact rational comparison)."""
    return Fraction(loss) == i * Fraction(h)
