r"""The monotone search of calibration, ending on the passing side.

One job: find the parameter at which a certified epsilon meets a target, for
:func:`~.composition.calibrate` and for :func:`solve` (questions that are not a
``compose`` of a list: a plan's report, a hypothesis-DP guarantee). Geometric
bracketing, then safeguarded secant/bisection steps (:func:`_shrink`) for real
parameters or bisection for integers; the direction is given or detected. Every
returned parameter is one that was evaluated and passed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

from .._validation import check_positive, check_real
from ..errors import CalibrationError, DPComposeError, InvalidParameterError


def _shrink(lo: float, hi: float, eps_of: Callable[[float], float], target: float,
            rel_tol: float) -> tuple[float, float]:
    """Shrink a bracket (``lo`` fails, ``hi`` passes) until ``hi / lo - 1 <= rel_tol``.

    Safeguarded secant steps on ``log(eps / target)`` against ``log p`` (epsilon is
    close to a power law in the noise, so one or two steps usually land within
    ``rel_tol``), each followed by a probe ``rel_tol`` below the new passing point to
    close the bracket; a bisection step whenever the secant is unusable or made poor
    progress. Every bracket end is a point that was evaluated: ``hi`` always passed.
    """

    def f(p: float) -> float:
        eps = eps_of(p)
        if eps <= 0.0:
            return -math.inf
        return math.log(eps / target)

    f_lo, f_hi = f(lo), f(hi)
    poor = False
    while hi / lo - 1.0 > rel_tol:
        width = math.log(hi / lo)
        cand = None
        if not poor and math.isfinite(f_lo) and math.isfinite(f_hi) and f_lo > f_hi:
            x = math.log(lo) + f_lo * width / (f_lo - f_hi)
            cand = math.exp(x) * (1.0 + 0.5 * rel_tol)  # aim just above the root
            # stay strictly inside, at least a little away from each end
            margin = min(0.25 * rel_tol, 0.1 * width)
            cand = min(hi * math.exp(-margin), max(lo * math.exp(margin), cand))
            if not lo < cand < hi:
                cand = None
        from_secant = cand is not None
        if cand is None:
            cand = math.sqrt(lo * hi)
            if not lo < cand < hi:
                break
        f_c = f(cand)
        if f_c <= 0.0:
            hi, f_hi = cand, f_c
            probe = hi / (1.0 + rel_tol)
            if from_secant and lo < probe < hi:
                f_p = f(probe)
                if f_p <= 0.0:
                    hi, f_hi = probe, f_p
                else:
                    lo, f_lo = probe, f_p
        else:
            lo, f_lo = cand, f_c
        poor = from_secant and math.log(hi / lo) > 0.5 * width
    return lo, hi


@dataclass(frozen=True, slots=True)
class SolveResult:
    """The outcome of :func:`solve`: a parameter that was evaluated and met the target.

    Attributes:
        parameter: the passing parameter (an int when ``integer``).
        epsilon: the certified epsilon there (``<= target``).
        failing_parameter: its neighbour on the other side, which failed (None when the
            end of the range passed).
        more_private: ``"larger"`` or ``"smaller"``.
        evaluations: how many times ``epsilon_of`` was called (distinct parameters).
    """

    parameter: float
    epsilon: float
    failing_parameter: float | None
    more_private: str
    evaluations: int


def solve(epsilon_of: Callable[[float], float], *, epsilon: float,
          search_range: tuple[float, float] = (1e-6, 1e12), more_private: str = "auto",
          integer: bool = False, guess: float | None = None, rel_tol: float = 1e-6,
          label: str = "the parameter") -> SolveResult:
    r"""The parameter at which a certified ``epsilon_of(parameter)`` meets ``epsilon``: the search of :func:`calibrate`.

    For questions that are not a ``compose`` of a list (a plan's report, a hypothesis-DP
    guarantee): ``epsilon_of`` returns a certified upper bound on epsilon (``math.inf``
    where nothing is certified). The search ends on the passing side, exactly as in
    :func:`calibrate`.

    Raises:
        InvalidParameterError: bad arguments.
        CalibrationError: nothing in the range meets the target, or the direction cannot
            be detected.
    """
    target = check_positive("epsilon", epsilon, remedy="the target epsilon must be a positive number.")
    lo_limit = check_positive("search_range[0]", search_range[0])
    hi_limit = check_positive("search_range[1]", search_range[1])
    if not lo_limit < hi_limit:
        raise InvalidParameterError(f"search_range = {search_range!r} needs low < high.")
    if more_private not in ("larger", "smaller", "auto"):
        raise InvalidParameterError(
            f"more_private = {more_private!r} is not 'larger', 'smaller' or 'auto'.")
    rel_tol = check_real("rel_tol", rel_tol, low=0.0, high=0.1, low_open=True)
    if integer:
        lo_limit, hi_limit = float(math.ceil(lo_limit)), float(math.floor(hi_limit))
        if not lo_limit < hi_limit:
            raise InvalidParameterError(f"search_range = {search_range!r} holds fewer than two whole numbers.")
    if guess is None:
        guess = 1.0 if lo_limit <= 1.0 <= hi_limit else math.sqrt(lo_limit * hi_limit)
    guess = min(hi_limit, max(lo_limit, float(round(guess)) if integer else float(guess)))
    cache: dict[float, float] = {}

    def eps_of(p: float) -> float:
        if p not in cache:
            cache[p] = float(epsilon_of(int(p) if integer else p))
        return cache[p]

    text = f"epsilon <= {target:g} for {label}"
    direction = more_private
    if direction == "auto":
        direction = _detect_direction(eps_of, guess, lo_limit, hi_limit, integer, text)
    if integer:
        lo, hi = _search_integer(lambda p: eps_of(p) <= target, guess, lo_limit, hi_limit, direction)
    else:
        lo, hi = _search_real(eps_of, target, guess, lo_limit, hi_limit, direction, rel_tol)
    if hi is None:
        end = hi_limit if direction == "larger" else lo_limit
        raise CalibrationError(
            f"no value of {label} in [{lo_limit:g}, {hi_limit:g}] gives {text}: at {end:g} the "
            f"certified epsilon is {eps_of(end):g}. Widen the range or relax the target.")
    conv = int if integer else float
    return SolveResult(conv(hi), eps_of(hi), None if lo is None else conv(lo), direction, len(cache))


def _returns_list(family: Callable[[float], Any], probe: float, integer: bool) -> bool:
    """Whether a callable family is a factory (returns a list), judged from one call."""
    try:
        out = family(int(probe) if integer else probe)
    except DPComposeError:
        return False  # let the family path report it with its own message
    return isinstance(out, (list, tuple))


def _detect_direction(eps_of: Callable[[float], float], guess: float, lo: float, hi: float,
                      integer: bool, target_text: str) -> str:
    """"larger" or "smaller": which way the parameter lowers epsilon, from two evaluations."""
    for f in (2.0, 16.0, 256.0):
        a = max(lo, guess / f)
        b = min(hi, guess * f)
        if integer:
            a, b = float(math.floor(a)), float(math.ceil(b))
            a, b = max(lo, a), min(hi, b)
        if not a < b:
            continue
        ea, eb = eps_of(a), eps_of(b)
        if ea != eb and not (math.isinf(ea) and math.isinf(eb)):
            return "larger" if eb < ea else "smaller"
    raise CalibrationError(
        f"cannot tell which way the parameter makes the composition more private for {target_text}: "
        f"epsilon did not change between the values tried; pass more_private='larger' or 'smaller'.")


def _search_real(eps_of: Callable[[float], float], target: float, guess: float, lo_limit: float,
                 hi_limit: float, direction: str, rel_tol: float) -> tuple[float | None, float | None]:
    """``(failing, passing)`` parameters around the boundary; ``passing`` None if none passes.

    In the coordinate x = p ("larger") or x = 1/p ("smaller") a larger x is more private;
    every returned parameter is one at which epsilon was evaluated.
    """
    if direction == "larger":
        to_p = from_p = _identity
        x_lo_limit, x_hi_limit = lo_limit, hi_limit
    else:
        to_p = from_p = _reciprocal
        x_lo_limit, x_hi_limit = 1.0 / hi_limit, 1.0 / lo_limit

    def passes(x: float) -> bool:
        return eps_of(to_p(x)) <= target

    lo: float | None = None
    hi: float | None = None
    x = from_p(guess)
    if passes(x):
        hi = x
        while True:
            nxt = max(x_lo_limit, x / 2.0)
            if nxt == x:
                break  # the bottom of the range passes
            if passes(nxt):
                hi = x = nxt
            else:
                lo = nxt
                break
    else:
        lo = x
        while True:
            nxt = min(x_hi_limit, x * 2.0)
            if nxt == x:
                break
            if passes(nxt):
                hi = nxt
                break
            lo = x = nxt
        if hi is None:
            return (None if lo is None else to_p(lo)), None
    if lo is not None:
        lo, hi = _shrink(lo, hi, lambda x: eps_of(to_p(x)), target, rel_tol)
    return (None if lo is None else to_p(lo)), to_p(hi)


def _identity(x: float) -> float:
    return x


def _reciprocal(x: float) -> float:
    return 1.0 / x


def _search_integer(passes: Callable[[float], bool], guess: float, lo_limit: float, hi_limit: float,
                    direction: str) -> tuple[float | None, float | None]:
    """``(failing, passing)`` neighbouring integers at the boundary (passing None if none passes).

    "larger": the smallest passing integer; "smaller": the largest passing integer.
    """
    sign = 1 if direction == "larger" else -1
    # t = sign * p: a larger t is more private
    t_lo_limit, t_hi_limit = sorted((sign * lo_limit, sign * hi_limit))
    t = sign * guess
    lo: float | None = None
    hi: float | None = None
    step = 1.0
    if passes(sign * t):
        hi = t
        while True:
            nxt = max(t_lo_limit, hi - step)
            if nxt == hi:
                break
            if passes(sign * nxt):
                hi = nxt
                step *= 2.0
            else:
                lo = nxt
                break
    else:
        lo = t
        while True:
            nxt = min(t_hi_limit, lo + step)
            if nxt == lo:
                return sign * lo, None
            if passes(sign * nxt):
                hi = nxt
                break
            lo = nxt
            step *= 2.0
    if lo is not None:
        while hi - lo > 1.0:
            mid = math.floor((lo + hi) / 2.0)
            if passes(sign * mid):
                hi = mid
            else:
                lo = mid
    return (None if lo is None else sign * lo), sign * hi
