r"""The certified trade-off band of a guarantee (:class:`TradeoffCurve`) on an adaptively
refined epsilon grid, with its derived outputs (attack TPR, advantage) and the certified
Gaussian-DP bracket (:class:`GDPBracket`).

Moved out of :mod:`dpcompose.fdp` unchanged (issue 15); the mathematics is in its docstring.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Iterable

import numpy as np
from scipy.special import ndtr

from .._validation import check_real
from ..errors import InvalidParameterError, UnsupportedMechanismError
from ..guarantee import Guarantee
from ..representations import gaussian_log_delta, gaussian_log_delta_lower
from .bounds import _MARGIN, _U, _grid_lines, _interval_sup
from .profile import _Profile


#: largest finite epsilon on the grid (e^700 is finite; beyond it the first term of
#: f_{eps, delta} is -inf for every alpha > 1e-300 and the second term is 0)
_EPS_CAP = 700.0
#: the grid stops growing where the upper profile is below this (its lines then change
#: the lower curve by less than the rounding margin)
_NEGLIGIBLE = 1e-16
#: the initial grid
_INITIAL = (0.0,) + tuple(2.0 ** k for k in range(-6, 10))
#: default type I errors at which a whole curve is refined (plots, the GDP bracket)
DEFAULT_ALPHAS = np.unique(np.concatenate(([0.0], np.logspace(-10, 0, 41), np.linspace(0.0, 1.0, 41))))
#: GDP parameters beyond this are reported as infinite (no certificate is attempted)
_MU_MAX = 1e3


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
