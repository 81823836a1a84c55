"""Exact amounts: decimals rounded toward refusal, sums without rounding.

Rules (docs/ledger.md, "Arithmetic"):

- a cost is rounded **up** to :data:`DIGITS` significant digits (:func:`up`), a limit
  **down** (:func:`down`); both from the exact binary value of a float or from an exact
  decimal computation;
- totals are exact sums of stored decimals (:func:`add`); the context traps
  ``Inexact``, so a sum that would need rounding raises instead of rounding silently;
- a decimal shown as a float is rounded outward in the direction asked
  (:func:`float_up`, :func:`float_down`).
"""

from __future__ import annotations

import math
from decimal import (
    ROUND_CEILING,
    ROUND_FLOOR,
    Context,
    Decimal,
    DivisionByZero,
    Inexact,
    InvalidOperation,
    Overflow,
)
from typing import Iterable, Sequence

__all__ = ["DIGITS", "up", "down", "add", "total", "float_up", "float_down", "dec", "text",
           "ZERO", "UP", "DOWN", "CAP", "param", "capped"]

#: significant digits kept when a cost or limit is rounded
DIGITS = 20
#: a cost component is stored as at most this: it is above every limit (promises are at most
#: 10^4), so a larger value could only ever be refused, or make its component unusable (an
#: rdp order) exactly as this one does; it keeps every sum exact (docs/ledger.md, "Arithmetic")
CAP = Decimal("1e60")
_E = 10**6
UP = Context(prec=DIGITS, rounding=ROUND_CEILING, Emin=-_E, Emax=_E)
DOWN = Context(prec=DIGITS, rounding=ROUND_FLOOR, Emin=-_E, Emax=_E)
# exact sums: 20-digit decimals between 1e-400 and 1e100 add exactly within 600 digits
_EXACT = Context(prec=1000, Emin=-_E, Emax=_E,
                 traps=[Inexact, InvalidOperation, Overflow, DivisionByZero])
ZERO = Decimal(0)


def dec(x: float | int | str | Decimal) -> Decimal:
    """The exact decimal value of ``x`` (a float's exact binary value)."""
    if isinstance(x, float) and not math.isfinite(x):
        raise ValueError(f"{x!r} is not a finite amount")
    d = x if isinstance(x, Decimal) else Decimal(x)
    if not d.is_finite():
        raise ValueError(f"{x!r} is not a finite amount")
    return d


def param(x: float | int) -> Decimal:
    """A parameter as the decimal number written: the shortest decimal that reads back as
    the same double (``0.1`` -> ``Decimal("0.1")``), so ten charges of ``pure(0.1)`` fit a
    budget of 1. Only for numbers a person typed; computed values use :func:`up`/:func:`down`.
    """
    if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x):
        raise ValueError(f"{x!r} is not a finite number")
    return Decimal(repr(float(x)))


def up(x: float | int | str | Decimal) -> Decimal:
    """``x`` rounded up to :data:`DIGITS` significant digits (toward refusal, for costs)."""
    return UP.plus(dec(x))


def down(x: float | int | str | Decimal) -> Decimal:
    """``x`` rounded down to :data:`DIGITS` significant digits (toward refusal, for limits)."""
    return DOWN.plus(dec(x))


def capped(cost: Sequence[Decimal]) -> tuple[Decimal, ...]:
    """A cost vector with each component at most :data:`CAP` (the same admissions, exact sums)."""
    return tuple(min(c, CAP) for c in cost)


def add(a: Decimal, b: Decimal) -> Decimal:
    """The exact sum (raises ``decimal.Inexact`` rather than round)."""
    return _EXACT.add(a, b)


def total(values: Iterable[Decimal]) -> Decimal:
    """The exact sum of ``values``."""
    s = ZERO
    for v in values:
        s = _EXACT.add(s, v)
    return s


def vec_add(a: Sequence[Decimal], b: Sequence[Decimal]) -> tuple[Decimal, ...]:
    """Componentwise exact sum."""
    return tuple(_EXACT.add(x, y) for x, y in zip(a, b, strict=True))


def vec_sub(a: Sequence[Decimal], b: Sequence[Decimal]) -> tuple[Decimal, ...]:
    """Componentwise exact difference."""
    return tuple(_EXACT.subtract(x, y) for x, y in zip(a, b, strict=True))


def float_up(d: Decimal) -> float:
    """The smallest float >= d."""
    f = float(d)
    return math.nextafter(f, math.inf) if Decimal(f) < d else f


def float_down(d: Decimal) -> float:
    """The largest float <= d."""
    f = float(d)
    return math.nextafter(f, -math.inf) if Decimal(f) > d else f


def text(d: Decimal) -> str:
    """Canonical decimal text (no exponent for ordinary magnitudes, no trailing zeros)."""
    d = d.normalize(_EXACT) if d else ZERO
    s = format(d, "f") if -30 <= d.adjusted() <= 30 else str(d)
    return s
