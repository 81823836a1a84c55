"""Validation of user-supplied numbers, with messages that name the remedy.

Never ``assert`` on user input: every check here raises
:class:`~dpcompose.errors.InvalidParameterError` naming the parameter, the value, the
valid range and what to do instead.
"""

from __future__ import annotations

import math
import numbers
from typing import Any, Iterable

from .errors import InvalidParameterError

__all__ = [
    "check_real",
    "check_epsilon",
    "check_delta",
    "check_probability",
    "check_count",
    "check_positive",
    "float_from_text",
    "lost_in_conversion",
    "did_you_mean",
]


def lost_in_conversion(text: str, value: float) -> tuple[str, str] | None:
    """Why ``value = float(text)`` does not represent the number written, or None if it does.

    A decimal that is not zero but underflows to 0.0 (``1e-400``), or that is finite but
    overflows to infinity (``1e400``), has lost its value: dpcompose refuses it rather
    than compute with a different number (a delta of 1e-400 silently read as 0 would be
    a smaller delta than the one given).

    Returns:
        ``(problem, remedy)`` sentences, or None.
    """
    written = text.strip()
    if value == 0.0:
        digits = written.lower().lstrip("+-").split("e")[0]
        if any(c in "123456789" for c in digits):
            return (f"{written} underflows to 0 in double precision (the smallest positive double "
                    f"is about 4.9e-324)", "write 0 if you mean zero, or a larger value")
    elif math.isinf(value) and "inf" not in written.lower():
        return (f"{written} overflows to infinity in double precision (the largest double is "
                f"about 1.8e308)", "write a smaller value")
    return None


def float_from_text(name: str, text: str) -> float:
    """Parse a decimal number typed by a user, refusing one that under- or overflows.

    Raises:
        InvalidParameterError: ``text`` is not a number, or its value is lost in
            conversion to a double (see :func:`lost_in_conversion`).
    """
    try:
        value = float(text)
    except ValueError:
        raise InvalidParameterError(f"{name} = {text!r} is not a number; write e.g. 1e-6.") from None
    lost = lost_in_conversion(text, value)
    if lost is not None:
        raise InvalidParameterError(f"{name} = {lost[0]}; {lost[1]}.")
    return value


def _as_float(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InvalidParameterError(
            f"{name} must be a real number, got {value!r} of type {type(value).__name__}; "
            f"pass a float such as 1.0."
        )
    return float(value)


def check_real(
    name: str,
    value: Any,
    *,
    low: float = -math.inf,
    high: float = math.inf,
    low_open: bool = False,
    high_open: bool = False,
    allow_inf: bool = False,
    remedy: str = "",
) -> float:
    """Return ``value`` as a float if it lies in the interval, else raise.

    The interval is ``[low, high]`` with either end open on request. NaN is always
    rejected; infinities only with ``allow_inf``.
    """
    x = _as_float(name, value)
    lo_b = "(" if low_open else "["
    hi_b = ")" if high_open else "]"
    interval = f"{lo_b}{low:g}, {high:g}{hi_b}"
    hint = f" {remedy}" if remedy else ""
    if math.isnan(x):
        raise InvalidParameterError(f"{name} is NaN; it must lie in {interval}.{hint}")
    if math.isinf(x) and not allow_inf:
        raise InvalidParameterError(
            f"{name} = {x!r} is infinite; it must be a finite number in {interval}.{hint}"
        )
    below = x < low or (low_open and x == low)
    above = x > high or (high_open and x == high)
    if below or above:
        raise InvalidParameterError(f"{name} = {x!r} is outside the valid range {interval}.{hint}")
    return x


def check_positive(name: str, value: Any, *, allow_inf: bool = False, remedy: str = "") -> float:
    """A strictly positive real (finite unless ``allow_inf``)."""
    return check_real(name, value, low=0.0, low_open=True, allow_inf=allow_inf, remedy=remedy)


def check_epsilon(name: str, value: Any, *, allow_inf: bool = False) -> float:
    """A privacy parameter epsilon in [0, inf) (or [0, inf] with ``allow_inf``)."""
    return check_real(
        name,
        value,
        low=0.0,
        allow_inf=allow_inf,
        remedy="epsilon is a non-negative privacy-loss bound (use 0 for perfect privacy).",
    )


def check_delta(name: str, value: Any, *, allow_one: bool = False) -> float:
    """A failure probability delta in [0, 1) (or [0, 1] with ``allow_one``)."""
    return check_real(
        name,
        value,
        low=0.0,
        high=1.0,
        high_open=not allow_one,
        remedy="delta is a probability; typical values are 1e-5 to 1e-10.",
    )


def check_probability(name: str, value: Any, *, low_open: bool = False) -> float:
    """A probability in [0, 1] (or (0, 1] with ``low_open``)."""
    return check_real(
        name, value, low=0.0, high=1.0, low_open=low_open, remedy="it is a probability."
    )


def check_count(name: str, value: Any, *, minimum: int = 0) -> int:
    """A non-negative integer count (booleans and floats are rejected)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise InvalidParameterError(
            f"{name} must be an integer >= {minimum}, got {value!r} of type "
            f"{type(value).__name__}; pass a whole number such as 10."
        )
    n = int(value)
    if n < minimum:
        raise InvalidParameterError(f"{name} = {n} is below the minimum {minimum}.")
    return n


def did_you_mean(value: Any, choices: Iterable[str]) -> str:
    """`` Did you mean 'pld'?`` for a misspelled name (empty when nothing is close).

    Case is ignored; the suggestion is the closest choice by :func:`difflib.get_close_matches`.
    """
    import difflib

    options = list(choices)
    lowered = {c.lower(): c for c in options}
    hits = difflib.get_close_matches(str(value).lower(), list(lowered), n=1, cutoff=0.6)
    return f" Did you mean {lowered[hits[0]]!r}?" if hits else ""
