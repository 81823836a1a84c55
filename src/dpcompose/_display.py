"""How numbers are shown: bounds rounded toward the safe side, digits that scale with magnitude.

Rules (every view of dpcompose uses them: tables, review documents, the CLI, the ledger):

- an **upper bound** is rounded *up*, a **lower bound** *down*, from the double's exact
  binary value (``Decimal(x)``), so the text, read as a decimal, never crosses the bound;
- :data:`SIGNIFICANT` significant digits at every magnitude (``0.0012346``, ``4.7746``,
  ``2845.1``), in fixed notation between 1e-4 and 1e6 and in scientific notation outside;
- a value that the digits hold **exactly** is shown without trailing zeros (``10``,
  ``0.5``): a zero that is shown (``10.000``) means the value was rounded;
- a **noise parameter** (a Laplace scale, a Gaussian sigma) is rounded toward *more
  noise* (:func:`fmt_noise`), so that the number a user copies is at least as private as
  the one that was certified;
- a value that a plan's own decimals make exact (``provenance["decimal"]``, e.g. simple
  composition of numbers as written) is shown as that decimal (:func:`fmt_decimal`).
"""

from __future__ import annotations

import math
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal

__all__ = ["SIGNIFICANT", "fmt_upper", "fmt_lower", "fmt_noise", "fmt_decimal", "fmt_target",
           "fmt_time", "fmt_number"]

#: significant digits of every displayed bound
SIGNIFICANT = 5
#: fixed notation for magnitudes in [FIXED_LOW, FIXED_HIGH), scientific outside
FIXED_LOW, FIXED_HIGH = Decimal("1e-4"), Decimal("1e6")


def fmt_upper(x: float | None, kind: str = "epsilon") -> str:
    """Display text for an upper bound, rounded up (the text, as a decimal, is >= x)."""
    return _fmt(x, up=True)


def fmt_lower(x: float | None, kind: str = "epsilon") -> str:
    """Display text for a lower bound, rounded down ("—" when unknown; as a decimal, <= x)."""
    return _fmt(x, up=False)


def fmt_noise(x: float, more_private: str = "larger", digits: int = 6) -> str:
    """A noise parameter rounded toward more privacy (``"larger"``: up; ``"smaller"``: down).

    Six significant digits by default; a value the digits hold exactly is shown as is.
    """
    return _fmt(x, up=more_private != "smaller", digits=digits)


def fmt_number(x: float, digits: int = SIGNIFICANT) -> str:
    """A number that is not a bound (a target, a parameter as given), to nearest, trimmed."""
    if math.isinf(x) or math.isnan(x):
        return "∞" if x > 0 else ("-∞" if x < 0 else "nan")
    if x == 0:
        return "0"
    return _text(_round(Decimal(repr(float(x))), digits, None).normalize())


def fmt_decimal(text: str, up: bool = True) -> str:
    """A decimal given as text (an exact value), shown with the same digit rules."""
    return _show(Decimal(text), up, SIGNIFICANT)


def fmt_target(kind: str, value: float) -> str:
    """``δ = 1e-06`` for an epsilon row (its target is a delta), ``ε = 1`` for a delta row."""
    return f"δ = {value:g}" if kind == "epsilon" else f"ε = {value:g}"


def fmt_time(seconds: float) -> str:
    """``12 µs``, ``3.4 ms``, ``1.25 s``."""
    if seconds < 1e-3:
        return f"{seconds * 1e6:.0f} µs"
    if seconds < 1:
        return f"{seconds * 1e3:.1f} ms"
    return f"{seconds:.2f} s"


def _fmt(x: float | None, up: bool, digits: int = SIGNIFICANT) -> str:
    if x is None:
        return "—"
    if math.isnan(x):
        raise ArithmeticError("internal error: a bound is NaN; please report it")
    if math.isinf(x):
        return "∞" if x > 0 else "-∞"
    if x == 0:
        return "0"
    return _show(Decimal(x), up, digits)


def _show(d: Decimal, up: bool, digits: int) -> str:
    q = _round(d, digits, ROUND_CEILING if up else ROUND_FLOOR)
    if q == d:  # held exactly: no trailing zeros
        return _text(q.normalize())
    return _text(q)


def _round(d: Decimal, digits: int, rounding: str | None) -> Decimal:
    """``d`` to ``digits`` significant digits (half-even when ``rounding`` is None)."""
    e = d.adjusted() - digits + 1
    q = d.quantize(Decimal(1).scaleb(e), rounding=rounding or "ROUND_HALF_EVEN")
    if q.adjusted() > d.adjusted():  # 9.99995 -> 10.0000: one digit too many, exact anyway
        q = q.quantize(Decimal(1).scaleb(e + 1), rounding=rounding or "ROUND_HALF_EVEN")
    return q


def _text(q: Decimal) -> str:
    mag = abs(q)
    if FIXED_LOW <= mag < FIXED_HIGH:
        text = format(q, "f")
        return text
    mant, _, exp = format(q, "e").partition("e")
    return f"{mant}e{int(exp):+03d}"
