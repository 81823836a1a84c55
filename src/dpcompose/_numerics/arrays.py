"""Array helpers that keep numpy's lazily loaded parts unloaded (cold start, issue 15).

``np.unique(a)`` (without ``return_index``/``return_inverse``/``return_counts``) asks
``np.ma.is_masked`` and so imports ``numpy.ma`` (about 20 ms) on first use;
:func:`sorted_unique` gives the same array without it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["sorted_unique"]


def sorted_unique(a: Any) -> np.ndarray:
    """The sorted distinct values of ``a`` (flattened): ``np.unique(a)`` for arrays without NaN.

    The same steps as numpy's ``_unique1d``: sort (numpy's default kind), keep each value
    that differs from its predecessor.
    """
    s = np.sort(np.asarray(a).ravel())
    if s.size == 0:
        return s
    keep = np.empty(s.shape, dtype=bool)
    keep[0] = True
    np.not_equal(s[1:], s[:-1], out=keep[1:])
    return s[keep]
