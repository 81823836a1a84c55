"""The rounding vocabulary: the constants and helpers that move a computed number to the safe side.

Names say what a constant is, in every module:

- :data:`UNIT_ROUNDOFF` :math:`u = 2^{-53}`: one correctly rounded operation has relative
  error at most :math:`u` (Higham, "Accuracy and Stability of Numerical Algorithms",
  2nd ed., Sec. 2.1). Error analyses written in :math:`u` use it.
- :data:`MACHINE_EPSILON` :math:`2^{-52} = 2u`: the spacing of the doubles in
  :math:`[1, 2)`, one unit in the last place of 1. Margins written as "n ulps" of a
  magnitude use it.
- :data:`SMALLEST_SUBNORMAL` :math:`2^{-1074}` (about 4.9e-324): the smallest positive
  double. A positive quantity that underflows is reported as this, never as 0, when it
  is an upper bound.

The helpers are the round-up (or round-down) steps that several modules need; each
module keeps its own margin (the factor ``n``) and says beside the call why it covers
the rounding it guards. Nothing here lowers a margin: a module that used 16 machine
epsilons still uses 16.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Callable

__all__ = [
    "UNIT_ROUNDOFF",
    "MACHINE_EPSILON",
    "SMALLEST_SUBNORMAL",
    "SMALLEST_DELTA",
    "LOG_SMALLEST_DELTA",
    "up",
    "down",
    "up_strict",
    "next_up",
    "next_down",
    "inflate",
    "frac_up",
    "frac_down",
    "nudge_up",
]

#: u = 2^-53, the unit roundoff of IEEE-754 doubles (round to nearest)
UNIT_ROUNDOFF = 2.0**-53
#: 2^-52 = 2u, the distance from 1.0 to the next double
MACHINE_EPSILON = 2.0**-52
#: 2^-1074, the smallest positive (subnormal) double
SMALLEST_SUBNORMAL = 5e-324
#: the smallest positive double; deltas below it are reported as this value (upper) or 0 (lower)
SMALLEST_DELTA = SMALLEST_SUBNORMAL
#: log(SMALLEST_DELTA), about -744.44
LOG_SMALLEST_DELTA = math.log(SMALLEST_DELTA)


def up(x: float, n: float) -> float:
    """``x`` (>= 0) raised by a relative ``n`` machine epsilons: ``x * (1 + n * MACHINE_EPSILON)``."""
    return x * (1.0 + n * MACHINE_EPSILON)


def down(x: float, n: float) -> float:
    """``x`` (>= 0) lowered by a relative ``n`` machine epsilons: ``x * (1 - n * MACHINE_EPSILON)``."""
    return x * (1.0 - n * MACHINE_EPSILON)


def up_strict(x: float, n: float) -> float:
    """``x`` raised by ``n`` machine epsilons and by at least one double (0 and inf unchanged).

    For results that must move even where the relative step rounds away (subnormals).
    """
    if x <= 0.0 or math.isinf(x):
        return x
    return max(up(x, n), math.nextafter(x, math.inf))


def next_up(x: float, steps: int = 1) -> float:
    """``x`` moved up by ``steps`` adjacent doubles."""
    for _ in range(steps):
        x = math.nextafter(x, math.inf)
    return x


def next_down(x: float, steps: int = 1) -> float:
    """``x`` moved down by ``steps`` adjacent doubles."""
    for _ in range(steps):
        x = math.nextafter(x, -math.inf)
    return x


def inflate(x: float, relative: float, absolute: float) -> float:
    """``x * (1 + relative) + absolute`` (``inf`` stays ``inf``): a margin for a closed form."""
    if math.isinf(x):
        return x
    return x * (1.0 + relative) + absolute


def frac_up(q: Fraction) -> float:
    """The smallest double >= the exact rational ``q``."""
    x = float(q)
    if Fraction(x) < q:
        x = math.nextafter(x, math.inf)
    return x


def frac_down(q: Fraction) -> float:
    """The largest double <= the exact rational ``q``."""
    x = float(q)
    if Fraction(x) > q:
        x = math.nextafter(x, -math.inf)
    return x


def nudge_up(fn: Callable[[float], float], x: float, target: float, passing: float,
             step: float) -> float:
    """The first of ``x, x + s, x + 2s, x + 4s, ...`` (capped at ``passing``) where ``fn <= target``.

    ``s`` starts at ``step`` and doubles; ``passing`` is a point known to pass. For a
    closed-form estimate of a crossing that may sit a few roundings on the failing side:
    the answer is always a point at which ``fn`` was evaluated and passed (or ``passing``).
    """
    if fn(x) <= target:
        return x
    for _ in range(2000):
        y = x + step
        if y >= passing:
            return passing
        if fn(y) <= target:
            return y
        step *= 2.0
    return passing
