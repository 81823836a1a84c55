r"""Certified trade-off curves (f-DP) of a guarantee: type II error bands, attack TPR, GDP mu.

A membership attack is a test between the output distributions :math:`P` and :math:`Q`
of a mechanism on two neighbouring datasets. At type I error (false-positive rate)
:math:`\alpha` the best type II error (false-negative rate) is the *trade-off
function* :math:`T(P, Q)(\alpha)`; the tightest :math:`f` such that the mechanism is
:math:`f`-DP (Dong, Roth and Su) is the largest convex function below
:math:`T(P, Q)` for every ordered neighbouring pair, :math:`f^*`. Its attack-side
reading: no attack has a true-positive rate above :math:`1 - f^*(\alpha)` at
false-positive rate :math:`\alpha`.

**From a privacy profile to a curve.** For :math:`\varepsilon \ge 0` let

.. math:: f_{\varepsilon,\delta}(\alpha) = \max\{0,\ 1 - \delta - e^{\varepsilon}\alpha,\
          e^{-\varepsilon}(1 - \delta - \alpha)\}.

A mechanism is :math:`(\varepsilon, \delta)`-DP iff it is
:math:`f_{\varepsilon,\delta}`-DP (Dong, Roth and Su, "Gaussian Differential Privacy",
JRSS-B 2022, Prop. 2.5, after Wasserman and Zhou), and with the true profile
:math:`\delta^*`, :math:`f^* = \sup_{\varepsilon \ge 0} f_{\varepsilon,\delta^*(\varepsilon)}`
(their Prop. 2.12, the primal-dual view). The second term is the negative-epsilon half
of the profile, by symmetry: a guarantee's ``delta(eps)`` bounds the hockey-stick
divergence of *both* orders of every neighbouring pair, and
:math:`H_{e^{-\varepsilon}}(Q\|P) = 1 - e^{-\varepsilon} + e^{-\varepsilon}H_{e^{\varepsilon}}(P\|Q)`,
so the supremum over :math:`\varepsilon \ge 0` of both terms is the supremum over all real
:math:`\varepsilon` of the one-sided duality of Zhu, Dong and Wang ("Optimal Accounting
of Differential Privacy via Characteristic Function", AISTATS 2022, Sec. 2). No method
here supplies a separate negative-epsilon profile, so the symmetric form is always used;
every dpcompose guarantee bounds both orders (the maximum over the add and remove
directions of Poisson subsampling, a hull for sampling without replacement, both
directions of each hypothesis pair in hypothesis DP), as the definition of DP asks.

- **Lower curve** (certified: no attack does better). With a certified upper profile
  :math:`\delta_u \ge \delta^*`, each :math:`f_{\varepsilon,\delta_u(\varepsilon)}` is
  below :math:`f^*`, and so is the maximum over any finite set of epsilons. The finite
  set only costs tightness; it is refined adaptively (below).
- **Upper curve** (certified: some neighbouring pair is at least this distinguishable).
  With a certified lower profile :math:`\delta_l \le \delta^*`, :math:`f^*` is the
  supremum over *every* epsilon, so a finite set is not enough by itself. Between grid
  points, :math:`\delta^*` is bounded below using that it is non-increasing and
  *convex in* :math:`\gamma = e^{\varepsilon}` (a supremum of hockey-stick divergences,
  each convex in :math:`\gamma`): on :math:`[\gamma_i, \gamma_{i+1}]` it lies above
  the lines through :math:`(\gamma_i, \delta_l)` with the slope of the left secant
  :math:`(\delta_l(\gamma_i) - \delta_u(\gamma_{i-1}))/(\gamma_i - \gamma_{i-1})` and through
  :math:`(\gamma_{i+1}, \delta_l)` with the slope of the right secant
  :math:`(\delta_u(\gamma_{i+2}) - \delta_l(\gamma_{i+1}))/(\gamma_{i+2} - \gamma_{i+1})`,
  and above :math:`\delta_l(\gamma_{i+1})`. Each term of :math:`f` is then the minimum
  of functions linear in :math:`\gamma` (first term) or in :math:`1/\gamma` (second
  term), whose maximum over the interval is bounded by linear programming duality:
  for every weight :math:`\lambda \in [0, 1]`,
  :math:`\sup \min(\ell_1, \ell_2) \le \max_{\text{ends}} (\lambda\ell_1 + (1-\lambda)\ell_2)`,
  so only end-point values are used and no weight needs to be exact. The gap to the
  truth is second order in the grid spacing where the profile bracket is narrow. A
  method without a lower profile gives the trivial upper curve :math:`1 - \alpha`.
  Where the trade-off functions of a pair and of its reverse differ, a point of the
  upper curve may be attained only by mixing attacks on the two orders.

Rounding: every value is computed in doubles and then moved toward the safe side by a
bound on its rounding error (:data:`_MARGIN` times the sum of the magnitudes involved:
down for the lower curve, up for the upper curve); slopes of secants are rounded the
way that keeps each line valid; :math:`\gamma_{i+1} - \gamma_i` is computed as
:math:`\gamma_i\,\mathrm{expm1}(\varepsilon_{i+1} - \varepsilon_i)`.

**Refinement and its cost.** The epsilon grid starts at 0, 2^-6, ..., 512 (stopping
where the upper profile falls below 1e-16 or stops changing) and is refined by
bisection where, at a requested alpha, the finite set costs more than ``tolerance``:
on the upper side the cost is certified (the upper curve minus the best grid point);
on the lower side it is estimated by the same interval bound applied to the upper
profile as if it were exact. ``TradeoffCurve.grid_cost`` reports the largest of both
after refinement; it is part of the band, never hidden.

**Other outputs.** The largest attack true-positive rate at a false-positive rate
:math:`\alpha` lies in :math:`[1 - \mathrm{upper}(\alpha), 1 - \mathrm{lower}(\alpha)]`;
the attack advantage :math:`\max_\alpha (\mathrm{TPR} - \mathrm{FPR}) = \delta^*(0)`
in :math:`[\delta_l(0), \delta_u(0)]`; the Gaussian-DP parameter in a certified bracket
(:meth:`TradeoffCurve.gdp_mu`).

Guarantees combined by ``method="auto"`` are evaluated through the components that are
tightest at a few probe epsilons (any subset of the components gives valid bounds; the
others are often slow to evaluate and never win).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Iterable, Sequence

import numpy as np
from scipy.special import ndtr

from ._validation import check_real
from .errors import InvalidParameterError, UnsupportedMechanismError
from .guarantee import CombinedGuarantee, Guarantee
from .representations import gaussian_log_delta, gaussian_log_delta_lower

__all__ = ["TradeoffCurve", "GDPBracket", "tradeoff", "tradeoff_curve", "max_tpr",
           "attack_advantage", "gdp_mu_bracket", "DEFAULT_ALPHAS"]

_U = 2.0 ** -52
#: relative rounding margin applied to every computed value (a bound on the error of a
#: few correctly rounded operations, exp/expm1 within 2 ulps, with room to spare)
_MARGIN = 64.0 * _U
#: largest finite epsilon on the grid (e^700 is finite; beyond it the first term of
#: f_{eps, delta} is -inf for every alpha > 1e-300 and the second term is 0)
_EPS_CAP = 700.0
#: the grid stops growing where the upper profile is below this (its lines then change
#: the lower curve by less than the rounding margin)
_NEGLIGIBLE = 1e-16
#: the initial grid
_INITIAL = (0.0,) + tuple(2.0 ** k for k in range(-6, 10))
#: probe epsilons used to pick the components of an "auto" guarantee
_PROBES = (0.0, 0.5, 2.0, 8.0)
#: default type I errors at which a whole curve is refined (plots, the GDP bracket)
DEFAULT_ALPHAS = np.unique(np.concatenate(([0.0], np.logspace(-10, 0, 41), np.linspace(0.0, 1.0, 41))))
#: GDP parameters beyond this are reported as infinite (no certificate is attempted)
_MU_MAX = 1e3


# ---------------------------------------------------------------------------
# the profile of a guarantee, evaluated through its tightest components


def _components(g: Guarantee) -> list[Guarantee]:
    """The guarantees whose minimum ``g`` is: the components of an "auto" combination, also
    inside a wrapper that behaves as the guarantee it wraps (``DPSGDGuarantee.inner``)."""
    inner = getattr(g, "inner", None)
    if isinstance(inner, Guarantee):
        return _components(inner)
    if isinstance(g, CombinedGuarantee):
        return [c for comp in g.components for c in _components(comp)]
    return [g]


def _cover(comps: list[Guarantee], values: list[list[float]], better) -> list[Guarantee]:
    """Components that matter at the probe points: the best at most probes first, then any
    that beats every kept one somewhere by more than a relative 1e-9 (``better(a, b)``: a beats b)."""
    arr = np.asarray(values, dtype=float)
    order = sorted(range(len(comps)), key=lambda j: -sum(
        all(not better(arr[o, p], arr[j, p]) for o in range(len(comps))) for p in range(arr.shape[1])))
    kept = [order[0]]
    for j in order[1:]:
        if any(all(better(arr[j, p], arr[o, p]) for o in kept) for p in range(arr.shape[1])):
            kept.append(j)
    return [comps[j] for j in sorted(kept)]


def _smaller(a: float, b: float) -> bool:
    return a < b * (1.0 - 1e-9)


def _larger(a: float, b: float) -> bool:
    return a > b * (1.0 + 1e-9)


class _Profile:
    """Certified upper and lower privacy profiles of a guarantee, through chosen components."""

    def __init__(self, g: Guarantee) -> None:
        comps = _components(g)
        self.upper_components = comps
        self.lower_components = [c for c in comps if c.has_lower_bound]
        if len(comps) > 1:
            self.upper_components = _cover(comps, [[c.delta(e) for e in _PROBES] for c in comps],
                                           _smaller)
            if len(self.lower_components) > 1:
                lows = self.lower_components
                self.lower_components = _cover(
                    lows, [[c.delta_lower(e) for e in _PROBES] for c in lows], _larger)
        self.has_lower = bool(self.lower_components)
        self.evaluations = 0

    def upper(self, e: float) -> float:
        self.evaluations += 1
        return min(c.delta(e) for c in self.upper_components)

    def lower(self, e: float) -> float:
        if not self.has_lower:
            return 0.0
        return max(c.delta_lower(e) for c in self.lower_components)

    def methods(self) -> dict[str, list[str]]:
        return {"upper": [c.method for c in self.upper_components],
                "lower": [c.method for c in self.lower_components]}


# ---------------------------------------------------------------------------
# the two bounds on a grid (pure functions of arrays)


def _grid_lines(alphas: np.ndarray, e: np.ndarray, d: np.ndarray, d_inf: float) -> tuple[np.ndarray, np.ndarray]:
    """max over grid points k of f_{e_k, d_k}(alpha) rounded down, and the arg max.

    The point at infinity contributes 1 - d_inf at alpha = 0 (and nothing elsewhere).
    """
    a = alphas[:, None]
    gam = np.exp(e)[None, :]
    inv = np.exp(-e)[None, :]
    dd = d[None, :]
    with np.errstate(over="ignore", invalid="ignore"):
        ga = gam * a
        t1 = (1.0 - dd - ga) - _MARGIN * (1.0 + dd + ga)
        t2 = inv * (1.0 - dd - a) - _MARGIN * (1.0 + dd + a)
    t1 = np.where(np.isnan(t1), -np.inf, t1)
    t = np.maximum(t1, t2)
    k = np.argmax(t, axis=1)
    v = t[np.arange(alphas.size), k]
    at0 = alphas == 0.0
    v = np.where(at0, np.maximum(v, (1.0 - d_inf) - _MARGIN), v)
    return np.maximum(v, 0.0), k


def _div(num: np.ndarray, den: np.ndarray, up: bool) -> np.ndarray:
    """num / den (den > 0) moved up or down by a bound on its error (num exact to u/2, den to 8u)."""
    q = num / den
    m = 16.0 * _U * np.abs(q)
    return q + m if up else q - m


def _pair_bound(l0: np.ndarray, r0: np.ndarray, l1: np.ndarray, r1: np.ndarray) -> np.ndarray:
    r"""An upper bound on :math:`\sup_x \min(\ell_0(x), \ell_1(x))` over an interval.

    ``l*``, ``r*`` are upper bounds on two linear functions at the interval's ends. For
    any :math:`\lambda \in [0, 1]` the sup is at most the larger end value of
    :math:`\lambda\ell_0 + (1 - \lambda)\ell_1`; :math:`\lambda` is chosen to level that
    combination (any choice is valid), and the result is rounded up.
    """
    s0, s1 = r0 - l0, r1 - l1
    den = s1 - s0
    with np.errstate(divide="ignore", invalid="ignore"):
        lam = np.where(den != 0.0, s1 / den, 1.0)
    lam = np.clip(np.nan_to_num(lam, nan=1.0), 0.0, 1.0)
    left = lam * l0 + (1.0 - lam) * l1
    right = lam * r0 + (1.0 - lam) * r1
    mag = np.abs(l0) + np.abs(l1) + np.abs(r0) + np.abs(r1)
    with np.errstate(invalid="ignore"):
        out = np.maximum(left, right) + _MARGIN * mag
    return np.where(np.isnan(out), np.inf, out)


def _sup_min(lines: Sequence[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    """Upper bound on sup over an interval of the minimum of linear functions (given by end values)."""
    best: np.ndarray | None = None
    for i, (l0, r0) in enumerate(lines):
        single = np.maximum(l0, r0)
        best = single if best is None else np.minimum(best, single)
        for l1, r1 in lines[i + 1:]:
            best = np.minimum(best, _pair_bound(l0, r0, l1, r1))
    if best is None:  # internal: every caller passes at least one line
        raise ValueError("_sup_min needs at least one line")
    return best


def _interval_sup(alphas: np.ndarray, e: np.ndarray, lo: np.ndarray, hi: np.ndarray,
                  lo_inf: float) -> tuple[np.ndarray, np.ndarray]:
    r"""Certified upper bound on :math:`\sup_{\varepsilon \ge 0} f_{\varepsilon,\delta(\varepsilon)}(\alpha)`
    for every convex non-increasing (in :math:`\gamma`) profile with ``lo <= delta <= hi``
    at the grid points and ``delta(inf) >= lo_inf``; and the interval attaining it.

    Interval ``i < n - 1`` is :math:`[\varepsilon_i, \varepsilon_{i+1}]`; interval ``n - 1`` is the tail.
    """
    n = e.size
    gam = np.exp(e)
    dg = gam[:-1] * np.expm1(np.diff(e))  # gamma_{i+1} - gamma_i, relative error <= 8u
    a = alphas[None, :]
    # lines bounding delta from below on interval i = 0 .. n-2, as values at its two ends
    i = np.arange(n - 1)
    c = lo[1:]
    # A: through (gamma_i, lo_i) with the left secant's slope (rounded down); none at i = 0
    sA = np.full(n - 1, -np.inf)
    if n > 2:
        sA[1:] = _div(lo[1:-1] - hi[:-2], dg[:-1], up=False)
    hasA = np.isfinite(sA)
    sAc = np.where(hasA, sA, 0.0)
    A0 = np.where(hasA, lo[:-1], c)
    A1 = np.where(hasA, lo[:-1] + sAc * dg, c)
    A1 = A1 - 32.0 * _U * (np.abs(lo[:-1]) + np.abs(sAc * dg))
    # B: through (gamma_{i+1}, lo_{i+1}) with the right secant's slope (rounded up); none at i = n-2
    sB = np.full(n - 1, np.inf)
    if n > 2:
        sB[:-1] = _div(hi[2:] - lo[1:-1], dg[1:], up=True)
    hasB = np.isfinite(sB)
    sBc = np.where(hasB, sB, 0.0)
    B0 = np.where(hasB, lo[1:] - sBc * dg, c)
    B0 = B0 - 32.0 * _U * (np.abs(lo[1:]) + np.abs(sBc * dg))
    B1 = c
    g0, g1 = gam[:-1, None], gam[1:, None]

    def first(h: np.ndarray, g: np.ndarray) -> np.ndarray:  # 1 - h - gamma alpha, rounded up
        h = h[:, None]
        with np.errstate(over="ignore", invalid="ignore"):
            ga = g * a
            v = (1.0 - h - ga) + _MARGIN * (1.0 + np.abs(h) + ga)
        return np.where(np.isnan(v), -np.inf, v)

    def second(h: np.ndarray, g: np.ndarray) -> np.ndarray:  # (1 - alpha - h) / gamma, rounded up
        h = h[:, None]
        return (1.0 - a - h) / g + _MARGIN * (1.0 + a + np.abs(h)) / g

    ends = [(A0, A1), (B0, B1), (c, c)]
    t1 = _sup_min([(first(x0, g0), first(x1, g1)) for x0, x1 in ends])
    # the second term is linear in t = 1/gamma: its ends are the same points
    t2 = _sup_min([(second(x0, g0), second(x1, g1)) for x0, x1 in ends])
    body = np.maximum(t1, t2)  # (n-1, m)

    # the tail [gamma_{n-1}, inf): delta >= lo_inf, and >= the left secant line (if any)
    gl = gam[-1]
    m = alphas.size
    if n >= 2:
        s = float(_div(np.array([lo[-1] - hi[-2]]), np.array([dg[-1]]), up=False)[0])
    else:
        s = -math.inf
    # first term: beyond R = (1 - lo_inf) / alpha the line of c is negative (f clips at 0)
    with np.errstate(divide="ignore", over="ignore"):
        R = np.where(alphas > 0.0, (1.0 - lo_inf) / alphas * (1.0 + 4 * _U), np.inf)
    R = np.maximum(R, gl)
    finite = np.isfinite(R) & (R < 1e300)
    Rf = np.where(finite, R, gl)
    lines1 = [(first(np.array([lo_inf]), np.array([[gl]]))[0], first(np.array([lo_inf]), Rf[None, :])[0])]
    if math.isfinite(s):
        hR = lo[-1] + s * (Rf - gl)
        hR = hR - 32.0 * _U * (abs(lo[-1]) + abs(s) * (Rf + gl))
        l0 = first(np.array([lo[-1]]), np.array([[gl]]))[0]
        with np.errstate(over="ignore", invalid="ignore"):
            ra = Rf * alphas
            r0 = (1.0 - hR - ra) + _MARGIN * (1.0 + np.abs(hR) + ra)
        lines1.append((l0, np.where(np.isnan(r0), -np.inf, r0)))
    tail1 = _sup_min(lines1)
    tail1 = np.where(finite, tail1, (1.0 - lo_inf) + _MARGIN)
    # second term on t in [0, 1/gamma_{n-1}]: at t = 0 the line of c gives 0, line A gives -s
    lines2 = [(np.zeros(m), second(np.array([lo_inf]), np.array([[gl]]))[0])]
    if math.isfinite(s):
        lines2.append((np.full(m, -s * (1.0 + _MARGIN)), second(np.array([lo[-1]]), np.array([[gl]]))[0]))
    tail2 = _sup_min(lines2)
    allv = np.vstack([body, np.maximum(tail1, tail2)[None, :]])
    k = np.argmax(allv, axis=0)
    v = allv[k, np.arange(m)]
    return np.maximum(v, 0.0), k


# ---------------------------------------------------------------------------
# the curve


@dataclass(frozen=True)
class GDPBracket:
    r"""A certified bracket on the Gaussian-DP parameter :math:`\mu` of a guarantee.

    Attributes:
        lower: no :math:`\mu` below it is valid (some epsilon's certified lower profile
            exceeds :math:`\delta_\mu(\varepsilon) + \mathrm{slack}`).
        upper: the mechanism is :math:`(\mu, \mathrm{slack})`-GDP at this :math:`\mu`:
            :math:`\delta^*(\varepsilon) \le \delta_\mu(\varepsilon) + \mathrm{slack}` for all
            :math:`\varepsilon \ge 0`, hence :math:`f^* \ge G_\mu - \mathrm{slack}`.
            ``inf`` when none up to 1000 is certified (``reason`` says why).
        slack: the additive slack in delta (and in the type II error).
        reason: why ``upper`` is infinite, else None.
    """

    lower: float
    upper: float
    slack: float
    reason: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"mu_lower": self.lower, "mu_upper": self.upper, "slack": self.slack,
                "reason": self.reason}


def _check_alphas(alphas: Any, name: str = "alphas") -> np.ndarray:
    try:
        arr = np.asarray(alphas, dtype=float)
    except (TypeError, ValueError):
        raise InvalidParameterError(
            f"{name} = {alphas!r} is not a number or a list of numbers; pass false-positive "
            f"rates in [0, 1], e.g. [0.001, 0.01, 0.1].") from None
    arr = np.atleast_1d(arr)
    if arr.ndim != 1:
        raise InvalidParameterError(f"{name} must be a number or a flat list of numbers, got shape {arr.shape}.")
    for i, x in enumerate(arr):
        check_real(f"{name}[{i}]" if arr.size > 1 else name, float(x), low=0.0, high=1.0,
                   remedy="alpha is a type I error (a false-positive rate), a probability in [0, 1].")
    return arr


def check_guarantee(g: Any) -> Guarantee:
    if not isinstance(g, Guarantee):
        raise UnsupportedMechanismError(
            f"guarantee = {g!r} is not a dpcompose Guarantee; build one with dpc.compose([...]) "
            f"(or dpc.hdp, dpc.dpsgd).")
    return g


class TradeoffCurve:
    r"""The certified trade-off band of a guarantee, on an adaptively refined epsilon grid.

    Args:
        guarantee: any :class:`~dpcompose.guarantee.Guarantee`.
        tolerance: the grid is refined at each requested alpha until the finite set of
            epsilons costs at most this much in type II error (or ``max_points`` is
            reached); default 1e-6.
        max_points: the most grid points (profile evaluations) spent; default 1000.

    Guarantee:
        ``band(alphas)`` returns ``(lower, upper)`` with ``lower <= f* <= upper`` at
        every alpha, where :math:`f^*` is the tightest trade-off function the mechanisms
        described satisfy (for each ordered neighbouring pair, under the guarantee's
        neighbour relation). ``lower`` needs only the certified upper profile; ``upper``
        needs a certified lower profile (else it is ``1 - alpha``).

    References:
        Dong, Roth and Su, "Gaussian Differential Privacy" (JRSS-B 2022), Prop. 2.5,
        Prop. 2.12 and Cor. 2.13; Zhu, Dong and Wang, "Optimal Accounting of
        Differential Privacy via Characteristic Function" (AISTATS 2022), Sec. 2.
    """

    def __init__(self, guarantee: Guarantee, *, tolerance: float = 1e-6, max_points: int = 1000) -> None:
        self.guarantee = check_guarantee(guarantee)
        self.tolerance = check_real("tolerance", tolerance, low=0.0, high=1.0, low_open=True,
                                    remedy="tolerance is in type II error, e.g. 1e-6.")
        if isinstance(max_points, bool) or not isinstance(max_points, int) or max_points < 8:
            raise InvalidParameterError(f"max_points = {max_points!r} must be an integer >= 8, e.g. 1000.")
        self.max_points = max_points
        self._p = _Profile(self.guarantee)
        self._pts: dict[float, tuple[float, float]] = {}
        self.du_inf = self._p.upper(math.inf)
        self.dl_inf = self._p.lower(math.inf)
        self.grid_cost = math.nan
        prev = None
        for e in _INITIAL:
            u, lo = self._eval(e)
            if u <= _NEGLIGIBLE or (prev is not None and prev == (u, lo)):
                break
            prev = (u, lo)
        self._arrays()

    # -- grid -----------------------------------------------------------------------
    def _eval(self, e: float) -> tuple[float, float]:
        v = self._pts.get(e)
        if v is None:
            v = (self._p.upper(e), self._p.lower(e))
            self._pts[e] = v
        return v

    def _arrays(self) -> None:
        es = sorted(self._pts)
        self._e = np.array(es)
        self._du = np.array([self._pts[x][0] for x in es])
        self._dl = np.array([self._pts[x][1] for x in es])

    @property
    def has_lower(self) -> bool:
        """Whether the guarantee has a certified lower profile (else the upper curve is 1 - alpha)."""
        return self._p.has_lower

    @property
    def points(self) -> int:
        """How many epsilons the grid holds."""
        return len(self._pts)

    def _split(self, intervals: Iterable[int]) -> list[float]:
        e, n, new = self._e, self._e.size, set()
        for i in intervals:
            if 0 <= i < n - 1:
                mid = 0.5 * (e[i] + e[i + 1])
                if e[i] < mid < e[i + 1]:
                    new.add(float(mid))
            elif i == n - 1 and e[-1] < _EPS_CAP:
                new.add(min(_EPS_CAP, 2.0 * float(e[-1]) + 1.0))
        return sorted(new)

    def refine(self, alphas: Any = None) -> "TradeoffCurve":
        """Refine the grid at these alphas (default :data:`DEFAULT_ALPHAS`) to ``tolerance``."""
        a = DEFAULT_ALPHAS if alphas is None else _check_alphas(alphas)
        tol = self.tolerance
        cost = 0.0
        while True:
            low, _ = _grid_lines(a, self._e, self._du, self.du_inf)
            est, i_low = _interval_sup(a, self._e, self._du, self._du, self.du_inf)
            cost_low = est - low
            need = set(i_low[cost_low > tol].tolist())
            cost = float(np.max(cost_low, initial=0.0))
            if self.has_lower:
                up, i_up = _interval_sup(a, self._e, self._dl, self._du, self.dl_inf)
                grid_up, _ = _grid_lines(a, self._e, self._dl, self.dl_inf)
                cost_up = up - grid_up
                cost = max(cost, float(np.max(cost_up, initial=0.0)))
                # the secant lines carry the profile bracket's width w into the bound (an
                # error of about w that finer grids do not reduce): refine only above it
                w = self._du - self._dl
                wide = np.maximum(np.concatenate(([0.0], w[:-1])), np.concatenate((w[1:], [0.0])))
                w_int = np.maximum(w, wide)
                n = w.size
                for i, c in zip(i_up.tolist(), cost_up.tolist()):
                    near = float(np.max(w_int[max(0, i - 1):min(n, i + 3)]))
                    if c > max(tol, 4.0 * near):
                        need.update((i - 1, i, i + 1))
            new = self._split(need)
            room = self.max_points - self.points
            if not new or room <= 0:
                break
            for x in new[:room]:
                self._eval(x)
            self._arrays()
        self.grid_cost = cost
        return self

    # -- queries --------------------------------------------------------------------
    def lower(self, alphas: Any) -> np.ndarray:
        """Certified lower bound on the trade-off at each alpha (on the current grid)."""
        a = _check_alphas(alphas)
        return _grid_lines(a, self._e, self._du, self.du_inf)[0]

    def upper(self, alphas: Any) -> np.ndarray:
        """Certified upper bound on the trade-off at each alpha (on the current grid)."""
        a = _check_alphas(alphas)
        cap = np.minimum(1.0, (1.0 - a) + _U)  # every trade-off function is <= 1 - alpha
        if not self.has_lower:
            return cap
        up = np.minimum(_interval_sup(a, self._e, self._dl, self._du, self.dl_inf)[0], cap)
        low = self.lower(a)
        if np.any(up < low):
            j = int(np.argmax(low - up))
            raise ArithmeticError(
                f"internal error: at alpha = {a[j]!r} the certified upper trade-off {up[j]!r} is below "
                f"the lower one {low[j]!r}; a method's lower profile exceeds its upper profile. Please "
                f"report it with the guarantee's provenance.")
        return up

    def band(self, alphas: Any) -> tuple[np.ndarray, np.ndarray]:
        """``(lower, upper)`` certified bounds on the trade-off at each alpha (refined first)."""
        a = _check_alphas(alphas)
        self.refine(a)
        return self.lower(a), self.upper(a)

    def max_tpr(self, fpr: Any) -> tuple[np.ndarray, np.ndarray]:
        """``(lower, upper)`` bounds on the best attack's true-positive rate at each false-positive rate.

        ``upper`` is certified for every attack (1 minus the lower curve, rounded up);
        ``lower`` is attained by some test on some neighbouring pair (1 minus the upper
        curve), or is the trivial ``fpr`` without a lower profile.
        """
        a = _check_alphas(fpr, "fpr")
        lo, up = self.band(a)
        tpr_up = np.minimum(1.0, (1.0 - lo) + _U)
        tpr_lo = np.maximum(a, np.maximum(0.0, (1.0 - up) - _U))
        return tpr_lo, tpr_up

    def advantage(self) -> tuple[float, float]:
        """``(lower, upper)`` bounds on the largest TPR - FPR of any attack: delta(0)."""
        u, lo = self._eval(0.0)
        return lo, u

    def summary(self) -> dict[str, Any]:
        """Grid size, grid cost and the components used (for provenance)."""
        return {"points": self.points, "grid_cost": self.grid_cost, "tolerance": self.tolerance,
                "components": self._p.methods(), "has_lower": self.has_lower}

    # -- Gaussian DP ------------------------------------------------------------------
    def gdp_mu(self, slack: float | None = None, rel_tol: float = 1e-4) -> GDPBracket:
        r"""A certified bracket on the Gaussian-DP parameter :math:`\mu`.

        The mechanism is :math:`\mu`-GDP iff :math:`\delta^*(\varepsilon) \le
        \delta_\mu(\varepsilon) = \Phi(-\varepsilon/\mu + \mu/2) - e^{\varepsilon}
        \Phi(-\varepsilon/\mu - \mu/2)` for every :math:`\varepsilon \ge 0` (Dong, Roth and
        Su, Cor. 2.13). A certified upper profile never reaches 0 for mechanisms with
        unbounded loss (it stops at the smallest double, or at the numerical error floor
        of a pld grid), so the bracket is for :math:`(\mu, s)`-GDP: :math:`\delta^* \le
        \delta_\mu + s`, which implies :math:`f^* \ge G_\mu - s`.

        ``upper``: the smallest :math:`\mu` found (bisection to ``rel_tol``, ending on the
        passing side) for which, on every grid interval, :math:`\delta^*` is below
        :math:`\delta_\mu + s`: checked with :math:`\delta^* \le \delta_u(\varepsilon_i)`
        (monotone) against :math:`\delta_\mu(\varepsilon_{i+1})`, or with the chord of
        :math:`\delta_u` (convexity in :math:`\gamma`) against the tangent of the convex
        :math:`\delta_\mu` at the interval's middle; beyond the grid,
        :math:`\delta_u \le s`. ``lower``: the largest :math:`\mu` found at which some
        grid point has :math:`\delta_l(\varepsilon) > \delta_\mu(\varepsilon) + s`.

        Args:
            slack: the additive slack :math:`s` in [0, 1). Default: 0 when the upper
                profile reaches 0 (pure DP), else the smallest power of ten at or above
                both 1e-12 and the profile's value at the end of the grid.
            rel_tol: relative width targeted for the bracket (the grid is refined where a
                check fails only for want of points), in (0, 0.1].

        Returns:
            :class:`GDPBracket`.
        """
        rel_tol = check_real("rel_tol", rel_tol, low=0.0, high=0.1, low_open=True)
        if slack is None:
            slack = self._auto_slack()
        s = check_real("slack", slack, low=0.0, high=1.0, high_open=True,
                       remedy="slack is an additive delta, e.g. 1e-12 (0 for an exact statement).")
        if self.has_lower and self.dl_inf > s:
            reason: str | None = (f"the certified infinite-loss mass {self.dl_inf:.3g} exceeds slack {s:g}: no "
                      f"finite mu is valid")
            return GDPBracket(math.inf, math.inf, s, reason)
        mu_lo = self._mu_lower(s, rel_tol)
        mu_up, reason = self._mu_upper(s, mu_lo, rel_tol)
        return GDPBracket(mu_lo, mu_up, s, reason)

    def _auto_slack(self) -> float:
        """0 where the upper profile reaches 0 and no numerical error floor is declared; else
        the smallest power of ten >= 1e-12, the declared floor (``provenance["error_budget"]``)
        and the profile at the end of the grid."""
        floor = float(self._du[-1])
        budget = 0.0
        for c in self._p.upper_components:
            eb = c.provenance.get("error_budget")
            if isinstance(eb, dict) and isinstance(eb.get("delta"), (int, float)):
                budget = max(budget, float(eb["delta"]))
        if floor == 0.0 and self.du_inf == 0.0 and budget == 0.0:
            return 0.0
        return max(1e-12, 10.0 ** math.ceil(math.log10(max(floor, budget, 1e-300))))

    def _mu_fails(self, mu: float, s: float) -> list[int]:
        """Grid points showing "certainly not (mu, s)-GDP" (lower profile above delta_mu + s,
        delta_mu rounded up), the largest excess first; empty if none."""
        out = []
        for k, (e, dl) in enumerate(zip(self._e, self._dl)):
            if dl <= s:
                continue
            d_mu = math.exp(gaussian_log_delta(mu, float(e))) * (1.0 + 8 * _U)
            if dl > d_mu + s + _MARGIN:
                out.append((dl - d_mu, k))
        return [k for _, k in sorted(out, reverse=True)]

    def _mu_lower(self, s: float, rel_tol: float) -> float:
        """The largest mu found that some grid point refutes (bisection, ending on a refuted mu),
        with the grid refined around the most refuting point for up to 16 rounds (64 points) (the mu a point
        refutes varies smoothly with epsilon; rounds stop after 3 without progress)."""
        if not self.has_lower or not self._mu_fails(1e-12, s):
            return 0.0
        lo, stale, start = 1e-12, 0, self.points
        for _ in range(16):
            before = lo
            hi = max(2.0 * lo, 1.0)
            while self._mu_fails(hi, s):
                lo, hi = hi, 2.0 * hi
                if hi > _MU_MAX:
                    return lo
            while hi / lo - 1.0 > 1e-9:
                mid = math.sqrt(lo * hi)
                if self._mu_fails(mid, s):
                    lo = mid
                else:
                    hi = mid
            stale = stale + 1 if lo <= before * (1.0 + rel_tol / 64.0) else 0
            new = self._split([j for k in self._mu_fails(lo, s)[:1] for j in (k - 1, k)])
            room = min(self.max_points - self.points, start + 64 - self.points)
            if stale >= 3 or not new or room <= 0:
                break
            for x in new[:room]:
                self._eval(x)
            self._arrays()
        return lo

    def _mu_check(self, mu: float, s: float) -> tuple[bool, list[int]]:
        """(certified (mu, s)-GDP, intervals that failed only for want of grid points)."""
        e, du = self._e, self._du
        n = e.size
        if du[-1] > s:
            return False, [n - 1]
        d_mu = [math.exp(gaussian_log_delta_lower(mu, float(x))) * (1.0 - 8 * _U) for x in e]
        grid = []
        ok = True
        for i in range(n - 1):
            if du[i] <= s or du[i] <= d_mu[i + 1] + s:
                continue  # monotone: delta* <= du_i on the interval, delta_mu >= its right end
            if du[i] > d_mu[i] + s or du[i + 1] > d_mu[i + 1] + s:
                return False, []  # fails at a grid point: mu too small for this profile
            if self._tangent_ok(mu, s, i):
                continue
            ok = False
            grid.append(i)
        return ok, grid

    def _tangent_ok(self, mu: float, s: float, i: int) -> bool:
        """Chord of du on interval i below the tangent of delta_mu at its middle, plus s."""
        e0, e1 = float(self._e[i]), float(self._e[i + 1])
        em = 0.5 * (e0 + e1)
        d_m = math.exp(gaussian_log_delta_lower(mu, em)) * (1.0 - 8 * _U)
        if d_m <= 0.0:
            return False
        # d delta_mu / d gamma = -Phi(-e/mu - mu/2); relative error of ndtr and its argument
        # below 1e-10 for arguments above -38 (beyond, the slope is below 1e-300)
        slope = -float(ndtr(-em / mu - mu / 2.0))
        gm = math.exp(em)
        for x, du in ((e0, self._du[i]), (e1, self._du[i + 1])):
            step = math.exp(x) - gm  # gamma - gamma_m
            step_err = 4 * _U * (math.exp(x) + gm)
            tan = d_m + slope * step
            err = 1e-10 * abs(slope * step) + abs(slope) * step_err + _MARGIN * (d_m + abs(slope * step))
            if du > tan - err + s:
                return False
        return True

    def _mu_upper(self, s: float, mu_lo: float, rel_tol: float) -> tuple[float, str | None]:
        def passes(mu: float) -> bool:
            for _ in range(64):
                ok, grid = self._mu_check(mu, s)
                if ok or not grid:
                    return ok
                new = self._split(grid)
                room = self.max_points - self.points
                if not new or room <= 0:
                    return False
                for x in new[:room]:
                    self._eval(x)
                self._arrays()
            return False

        while self._du[-1] > s and self._e[-1] < _EPS_CAP and self.points < self.max_points:
            self._eval(min(_EPS_CAP, 2.0 * float(self._e[-1]) + 1.0))
            self._arrays()
        if self._du[-1] > s:
            return math.inf, (f"the certified profile stays above slack = {s:g} at epsilon = "
                              f"{self._e[-1]:g} (its value there is {self._du[-1]:.3g}); pass a larger slack")
        known = False  # whether hi is known to pass
        if mu_lo > 0.0:
            # from far above the lower end down: mu_lo (1 + r) for r = 1, 1/2, ... while it passes
            # (a check near mu* needs a fine grid; once the budget is spent the checks fail and
            # the last passing mu stands)
            lo, hi, r = mu_lo, 2.0 * mu_lo, 1.0
            while r >= rel_tol / 2.0:
                cand = mu_lo * (1.0 + r)
                if not passes(cand):
                    lo = cand
                    break
                hi, known, r = cand, True, r / 2.0
        else:
            lo, hi = 0.0, 1e-3
        while not known and not passes(hi):
            lo, hi = hi, 2.0 * hi
            if hi > _MU_MAX:
                return math.inf, (f"no mu up to {_MU_MAX:g} is certified within {self.max_points} grid "
                                  f"points (slack {s:g})")
        while hi - lo > rel_tol * hi:
            mid = 0.5 * (lo + hi)
            if passes(mid):
                hi = mid
            else:
                lo = mid
        return hi, None


# ---------------------------------------------------------------------------
# functions


def tradeoff_curve(guarantee: Guarantee, *, tolerance: float = 1e-6, max_points: int = 1000) -> TradeoffCurve:
    """A :class:`TradeoffCurve` for the guarantee, refined at :data:`DEFAULT_ALPHAS`."""
    return TradeoffCurve(guarantee, tolerance=tolerance, max_points=max_points).refine()


def tradeoff(guarantee: Guarantee, alphas: Any, *, tolerance: float = 1e-6,
             max_points: int = 1000) -> tuple[np.ndarray, np.ndarray]:
    r"""Certified bounds on the trade-off function (type II error at type I error alpha).

    Args:
        guarantee: a :class:`~dpcompose.guarantee.Guarantee` (``dpc.compose(...)``).
        alphas: type I errors (false-positive rates) in [0, 1], a number or a list.
        tolerance: what the finite epsilon grid may cost at each alpha (see
            :class:`TradeoffCurve`).
        max_points: the most profile evaluations spent on the grid.

    Returns:
        ``(lower, upper)`` arrays: ``lower <= f*(alpha) <= upper``.

    Raises:
        InvalidParameterError: an alpha outside [0, 1] or NaN.
        UnsupportedMechanismError: ``guarantee`` is not a Guarantee.

    Guarantee:
        ``lower`` is a certified lower bound on the tightest trade-off function of the
        mechanisms described (no attack has a smaller type II error at that type I
        error); ``upper`` a certified upper bound where the method has a lower profile.

    References:
        Dong, Roth and Su, "Gaussian Differential Privacy" (JRSS-B 2022), Prop. 2.5 and
        Prop. 2.12; Zhu, Dong and Wang (AISTATS 2022), Sec. 2.
    """
    return TradeoffCurve(guarantee, tolerance=tolerance, max_points=max_points).band(alphas)


def max_tpr(guarantee: Guarantee, fpr: Any, **kwargs: Any) -> tuple[np.ndarray, np.ndarray]:
    """``(lower, upper)`` on the best attack's TPR at each FPR (``upper``: certified for every attack)."""
    return TradeoffCurve(guarantee, **kwargs).max_tpr(fpr)


def attack_advantage(guarantee: Guarantee) -> tuple[float, float]:
    r"""``(lower, upper)`` on :math:`\max(\mathrm{TPR} - \mathrm{FPR})` over all attacks, i.e. :math:`\delta^*(0)`.

    Guarantee:
        ``upper`` = the certified ``delta(0)`` (every test has TPR - FPR at most the total
        variation distance); ``lower`` = the certified lower profile at 0.
    """
    g = check_guarantee(guarantee)
    return g.delta_lower(0.0), g.delta(0.0)


def gdp_mu_bracket(guarantee: Guarantee, *, slack: float | None = None, rel_tol: float = 1e-4,
                   max_points: int = 1000) -> GDPBracket:
    """A certified bracket on the Gaussian-DP mu of a guarantee (see :meth:`TradeoffCurve.gdp_mu`).

    dp_accounting's mu is an estimate "not guaranteed to be an upper or lower bound";
    this bracket is certified on both sides, for (mu, slack)-GDP.
    """
    return TradeoffCurve(guarantee, max_points=max_points).gdp_mu(slack=slack, rel_tol=rel_tol)
