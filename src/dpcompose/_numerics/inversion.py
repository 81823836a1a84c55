"""Monotone inversion that ends on the safe side: epsilon(delta) from delta(epsilon) and back.

The rule for every search here: the value returned as an *upper* bound is one at which
the certified bound function was evaluated and passed; the value returned as a *lower*
bound is one at which the lower-bound function was evaluated and failed. Bisection
never returns a point it did not check.

The searches narrow brackets of *bit patterns* of non-negative doubles (whose integer
order is their numeric order), so that by default they end on two adjacent doubles:
the upper answer is then the smallest double at which a monotone function passes,
exactly. That makes a guarantee's two queries exact inverses (``delta(epsilon(d)) <= d``
and ``epsilon(delta(e)) <= e`` with no tolerance; see :mod:`dpcompose.guarantee`). The
exact searches interpolate to save evaluations (:func:`_solve`); with ``rel_tol`` a
search is a plain bisection on a fixed tree of intervals (the tree depends only on the
starting bracket, never on the function values beyond pass/fail), so its answer is
monotone in the target even when the function is not (the theorems' inner searches
rely on this).
"""

from __future__ import annotations

import math
import sys
import struct
from typing import Callable, Literal

from .rounding import SMALLEST_DELTA

__all__ = [
    "invert_delta_to_epsilon",
    "invert_epsilon_to_delta",
]

_EPS_CAP = sys.float_info.max  # searches run over every finite double
#: interpolation rounds of :func:`_solve` allowed to miss halving the bracket
_MAX_MISSES = 3


def _bits(x: float) -> int:
    """The IEEE-754 bit pattern of a non-negative double, as an integer (order-preserving)."""
    return struct.unpack("<q", struct.pack("<d", x))[0]


def _double(n: int) -> float:
    return struct.unpack("<d", struct.pack("<q", n))[0]


def _bisect(passes: Callable[[float], bool], lo: float, hi: float, rel_tol: float | None) -> tuple[float, float]:
    """Narrow ``[lo, hi]`` (``lo`` fails, ``hi`` passes, ``0 <= lo < hi`` finite) by halving bit patterns.

    Ends when ``lo`` and ``hi`` are adjacent doubles, or (with ``rel_tol``) when
    ``hi - lo <= rel_tol * hi``. Returns the final ``(lo, hi)``: ``lo`` failed and ``hi``
    passed when evaluated (or were given as such).
    """
    a, b = _bits(lo), _bits(hi)
    while b - a > 1:
        if rel_tol is not None and hi - lo <= rel_tol * hi:
            break
        m = (a + b) // 2
        x = _double(m)
        if passes(x):
            b, hi = m, x
        else:
            a, lo = m, x
    return lo, hi


def _interpolate(xa: float, xb: float, fa: float, fb: float, target: float, log_x: bool,
                 log_f: bool) -> float | None:
    """Where the line through (xa, fa), (xb, fb) meets ``target`` (in log scales on request)."""
    if log_f and fb > 0.0 and target > 0.0:
        fa, fb, target = math.log(fa), math.log(fb), math.log(target)
    if not (math.isfinite(fa) and math.isfinite(fb) and fa > fb):
        return None
    t = (fa - target) / (fa - fb)
    if log_x and xa > 0.0:
        guess = math.exp(math.log(xa) + (math.log(xb) - math.log(xa)) * t)
    else:
        guess = xa + (xb - xa) * t
    return guess if math.isfinite(guess) and guess >= 0.0 else None


def _solve(f: Callable[[float], float], target: float, a: int, fa: float, b: int, fb: float,
           *, log_x: bool, log_f: bool) -> tuple[float, float]:
    """Narrow the bit patterns ``a < b`` (``f`` fails at ``a``, passes at ``b``) to adjacent ones.

    Each round interpolates the crossing (in log scales on request), evaluates there and
    then on the other side of it at the distance the estimate last moved (so a good
    estimate is bracketed from both sides); a round that does not halve the bracket is
    followed by a halving of the bit patterns, and after :data:`_MAX_MISSES` such rounds
    only halving is left. On a smooth function this converges like the secant method (a
    few evaluations from a 1e-11 bracket); at worst it costs a bisection plus
    ``3 * _MAX_MISSES`` evaluations. Only pass/fail decides the bracket, so the result for
    a monotone ``f`` is the smallest passing double whatever the estimates.
    """
    last: int | None = None
    halve = False
    misses = 0  # interpolation rounds that did not halve the bracket
    while b - a > 1:
        width = b - a
        guess = None if halve or misses >= _MAX_MISSES or width <= 2 else _interpolate(
            _double(a), _double(b), fa, fb, target, log_x, log_f)
        if guess is None:
            m = (a + b) // 2
            v = f(_double(m))
            a, fa, b, fb = (a, fa, m, v) if v <= target else (m, v, b, fb)
        else:
            m = min(max(_bits(guess), a + 1), b - 1)
            step = max(1, abs(m - last)) if last is not None else max(1, width >> 16)
            last = m
            v = f(_double(m))
            if v <= target:
                b, fb = m, v
                m2 = m - step
                if m2 > a:
                    v2 = f(_double(m2))
                    a, fa, b, fb = (a, fa, m2, v2) if v2 <= target else (m2, v2, b, fb)
            else:
                a, fa = m, v
                m2 = m + step
                if m2 < b:
                    v2 = f(_double(m2))
                    a, fa, b, fb = (a, fa, m2, v2) if v2 <= target else (m2, v2, b, fb)
            misses += b - a > width // 2
        halve = b - a > width // 2
    return _double(a), _double(b)


def _solve_near(f: Callable[[float], float], target: float, hint: float) -> tuple[float, float] | None:
    """Adjacent doubles ``(lo, hi)`` with ``f(lo) > target >= f(hi)``, searched from ``hint``.

    For a non-increasing ``f`` on the non-negative doubles; ``f(0)`` is asked only when
    the walk down reaches 0, and ``(0.0, 0.0)`` is returned when it passes there (the
    answer is 0). The bracket widens from the hint by factors of 256 ulps until the other side is
    found, then :func:`_solve` closes it. A hint within 1e-10 of the answer and a smooth
    ``f`` cost about ten evaluations. None when the widening passes the largest double without a
    passing point (the caller then searches from scratch).
    """
    if not (0.0 < hint <= _EPS_CAP):
        return None
    n, fh = _bits(hint), f(hint)
    gap = 1
    if fh <= target:  # walk down to a failing point
        b, fb = n, fh
        while True:
            a = max(b - gap, 0)
            fa = f(_double(a))
            if fa > target:
                break
            if a == 0:
                return 0.0, 0.0  # f passes at 0: no failing double
            b, fb, gap = a, fa, gap * 256
    else:  # walk up to a passing point
        a, fa = n, fh
        limit = _bits(_EPS_CAP)
        while True:
            b = a + gap
            if b >= limit:
                return None
            fb = f(_double(b))
            if fb <= target:
                break
            a, fa, gap = b, fb, gap * 256
    return _solve(f, target, a, fa, b, fb, log_x=False, log_f=True)


def invert_delta_to_epsilon(
    delta_fn: Callable[[float], float],
    delta: float,
    *,
    side: Literal["upper", "lower"] = "upper",
    rel_tol: float | None = None,
    hint: float | None = None,
) -> float:
    """The epsilon at which a non-increasing ``delta_fn(eps)`` crosses ``delta``.

    With ``side="upper"`` (``delta_fn`` an upper bound on the true privacy profile) it
    returns an epsilon ``e`` with ``delta_fn(e) <= delta``: by default the smallest
    double with that property (exactly, when ``delta_fn`` is monotone), with ``rel_tol``
    one within that relative distance of it. It is a certified upper bound on the true
    epsilon(delta), and ``inf`` when even ``delta_fn(inf) > delta`` (or only ``inf``
    passes within the finite doubles).

    With ``side="lower"`` (``delta_fn`` a lower bound on the true profile) it returns an
    ``e`` with ``delta_fn(e) > delta`` (or 0): the true epsilon(delta) is at least ``e``.

    ``hint``: a guess of the answer (e.g. a method's own epsilon); the search starts
    around it (see :func:`_solve_near`). The answer does not depend on the hint when
    ``delta_fn`` is monotone.
    """
    upper = side == "upper"

    def passes(e: float) -> bool:
        return delta_fn(e) <= delta

    if hint is not None and rel_tol is None:
        # from the hint first: the ends 0 and inf are only asked where the answer may be
        # there (delta_fn(0) can cost more than the whole search, e.g. pld's second
        # direction, built at full resolution for it); the result is unchanged
        found = _solve_near(delta_fn, delta, hint)
        if found is not None:
            lo, hi = found
            return hi if upper else lo
    if passes(0.0):
        return 0.0
    if not passes(math.inf):
        return math.inf
    lo, hi = 0.0, 1.0
    f_lo, f_hi = delta_fn(lo), delta_fn(hi)
    while not f_hi <= delta:
        if hi >= _EPS_CAP:
            # passes only at infinity within doubles: report the last finite failure
            return math.inf if upper else hi
        lo, hi, f_lo = hi, min(hi * 2.0, _EPS_CAP), f_hi
        f_hi = delta_fn(hi)
    if rel_tol is None:
        lo, hi = _solve(delta_fn, delta, _bits(lo), f_lo, _bits(hi), f_hi, log_x=False, log_f=True)
    else:
        lo, hi = _bisect(passes, lo, hi, rel_tol)
    return hi if upper else lo


def invert_epsilon_to_delta(
    epsilon_fn: Callable[[float], float],
    epsilon: float,
    *,
    side: Literal["upper", "lower"] = "upper",
    rel_tol: float | None = None,
) -> float:
    """The delta at which a non-increasing ``epsilon_fn(delta)`` crosses ``epsilon``.

    ``side="upper"``: returns ``d`` with ``epsilon_fn(d) <= epsilon``, by default the
    smallest double with that property (exactly, when ``epsilon_fn`` is monotone), with
    ``rel_tol`` one within that relative distance of it; ``epsilon_fn`` must be a
    certified upper bound, so the mechanism is (epsilon, d)-DP. ``side="lower"``:
    returns ``d`` with ``epsilon_fn(d) > epsilon`` (or 0), a lower bound on the true delta.

    ``epsilon = inf`` asks for the mass of infinite privacy loss: the answer is the
    smallest ``d`` at which ``epsilon_fn(d)`` is *finite* (a composition that is
    (E, d)-DP for some finite E has at most d of infinite loss).

    The search runs over the doubles in [5e-324, 1]; ``epsilon_fn(1.0)`` is taken to be
    0 (every mechanism is (0, 1)-DP).
    """
    upper = side == "upper"
    if math.isinf(epsilon):
        def passes(d: float) -> bool:
            return epsilon_fn(d) < math.inf
    else:
        def passes(d: float) -> bool:
            return epsilon_fn(d) <= epsilon

    if passes(0.0):
        return 0.0
    if passes(SMALLEST_DELTA):
        return SMALLEST_DELTA if upper else 0.0
    if rel_tol is None and math.isfinite(epsilon):
        # interpolate epsilon against log(delta); 1 passes by convention (epsilon 0 there)
        lo, hi = _solve(epsilon_fn, epsilon, 1, float(epsilon_fn(SMALLEST_DELTA)), _bits(1.0), 0.0,
                        log_x=True, log_f=False)
    else:
        lo, hi = _bisect(passes, SMALLEST_DELTA, 1.0, rel_tol)
    return hi if upper else lo
