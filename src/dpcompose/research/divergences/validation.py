"""Validation of the distributions every divergence takes: non-negative real arrays of the
same shape, each summing to 1 within :data:`SUM_TOLERANCE`; and the pair's privacy losses.

Moved out of the module :mod:`dpcompose.research.divergences` unchanged (issue 15); the package
re-exports every public name, and its docstring states the conventions.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from ...errors import InvalidParameterError


#: how far from 1 a distribution's total mass may be
SUM_TOLERANCE = 1e-9


# ---------------------------------------------------------------------------
# validation


def _as_real_array(name: str, values) -> np.ndarray:
    """``values`` as a float array; strings, booleans and other non-numbers are refused."""
    raw = values if isinstance(values, np.ndarray) else np.asarray(values, dtype=object)
    if raw.dtype.kind == "O":
        flat = raw.reshape(-1).tolist()
        if not all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in flat):
            bad = next(v for v in flat if not isinstance(v, numbers.Real) or isinstance(v, bool))
            raise InvalidParameterError(
                f"{name} must be an array of real numbers, got the entry {bad!r}; "
                f"pass e.g. numpy.array([0.25, 0.75])."
            )
    elif raw.dtype.kind not in "iuf":
        raise InvalidParameterError(
            f"{name} must be an array of real numbers, got dtype {raw.dtype}; "
            f"pass e.g. numpy.array([0.25, 0.75])."
        )
    try:
        return np.array(raw, dtype=float)
    except (TypeError, ValueError) as exc:  # ragged nesting
        raise InvalidParameterError(
            f"{name} must be a rectangular array of real numbers ({exc})."
        ) from None


def check_distribution(name: str, values) -> np.ndarray:
    """``values`` as a flat float array if it is a probability vector, else raise.

    A probability vector here is a non-empty array of finite, non-negative reals that
    sums to 1 within ``1e-9``. The input is copied, never modified.
    """
    arr = _as_real_array(name, values)
    arr = arr.reshape(-1)
    if arr.size == 0:
        raise InvalidParameterError(
            f"{name} is empty; a distribution needs at least one point with mass 1."
        )
    if np.isnan(arr).any():
        raise InvalidParameterError(f"{name} contains NaN; every probability must lie in [0, 1].")
    if np.isinf(arr).any() or (arr < 0).any():
        bad = arr[np.isinf(arr) | (arr < 0)][0]
        raise InvalidParameterError(
            f"{name} contains {bad!r}; every probability must lie in [0, 1]."
        )
    total = math.fsum(arr.tolist())
    if abs(total - 1.0) > SUM_TOLERANCE:
        raise InvalidParameterError(
            f"{name} sums to {total!r}; a distribution must sum to 1 within {SUM_TOLERANCE:g}. "
            f"Normalize it first (values / values.sum())."
        )
    return arr


def _check_pair(p, q, names: tuple[str, str] = ("p", "q")) -> tuple[np.ndarray, np.ndarray]:
    pa = _as_real_array(names[0], p)
    qa = _as_real_array(names[1], q)
    if np.shape(pa) != np.shape(qa):
        raise InvalidParameterError(
            f"{names[0]} and {names[1]} must have the same shape, got {np.shape(pa)} and "
            f"{np.shape(qa)}; both are distributions on the same finite set."
        )
    return check_distribution(names[0], pa), check_distribution(names[1], qa)


def _losses(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """log(p/q) on every point (+inf where q = 0 < p, -inf where p = 0 < q, nan where both 0)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.log(p) - np.log(q)
