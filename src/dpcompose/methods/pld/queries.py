r"""The certified query objects of an incremental track (:class:`~.incremental.Track`):
:class:`DirectCurve` (after one inverse FFT, through :class:`~.curve.Curve`) and
:class:`BandCurve` (Parseval sums over the kept frequencies, no inverse FFT).

Moved out of :mod:`.incremental` unchanged (issue 15); :mod:`.incremental` re-exports both
classes, and its docstring states the sums, their error bounds and the references.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Callable

import numpy as np

from ..._numerics.rounding import UNIT_ROUNDOFF
from .curve import Curve

if TYPE_CHECKING:
    from .incremental import Track


#: relative error of the closed-form weight transforms (sin, cos, expm1, division: a few
#: ulps each; 64 ulps is generous)
_C_W = 64.0 * UNIT_ROUNDOFF


def _margin(slack: float, eps: float, lmax: float, lmin: float, h: float) -> float:
    """How far the losses may sit below (upper) / above (lower) their grid values, plus rounding."""
    scale = max(abs(eps) + 1.0, abs(lmax) if math.isfinite(lmax) else 0.0, abs(lmin), h)
    return slack + 4.0 * UNIT_ROUNDOFF * scale


class DirectCurve(Curve):
    """:class:`dpcompose.methods.pld.curve.Curve` whose epsilon queries start past the rounding margin.

    A long composition carries a large ``slack`` (the doubles in which each step's losses
    were computed), so the certified check of ``Curve`` would step up from the closed-form
    solution many times; starting at solution + margin usually needs one check. The
    answer is returned only after the check passes, as in ``Curve``.
    """

    def _m(self, eps: float) -> float:
        return _margin(self.g.slack, eps, self.lmax, self.g.start * self.h, self.h)

    def epsilon_upper(self, delta: float) -> float:
        g = self.g
        fixed = g.inf + g.inf_err
        if fixed > delta:
            return math.inf
        target = delta - fixed - g.err
        if target <= 0.0:
            return max(0.0, self.lmax) if g.p.size else 0.0
        e0 = self._solve(target)
        return _step_up(lambda e: self.delta_finite(e) <= target,
                        e0 + 1.5 * self._m(e0) + 1e-13 * abs(e0) + 1e-15)

    def epsilon_lower(self, delta: float) -> float:
        g = self.g
        if g.inf - g.inf_err > delta:
            return math.inf
        target = delta - (g.inf - g.inf_err) + g.err
        if target >= 1.0:
            return 0.0
        e0 = self._solve(target)
        return _step_down(lambda e: self.delta_finite(e) > target,
                          e0 - 1.5 * self._m(e0) - 1e-13 * abs(e0) - 1e-15)


def _step_up(passes: Callable[[float], bool], eps: float) -> float:
    """The first of eps, eps + s, eps + 5s, ... (s growing 4-fold) at which ``passes`` holds."""
    if eps <= 0.0:
        if passes(0.0):
            return 0.0
        eps = 1e-15
    step = max(1e-13 * eps, 1e-15)
    for _ in range(200):
        if passes(eps):
            return eps
        step *= 4.0
        eps += step
    return math.inf


def _step_down(holds: Callable[[float], bool], eps: float) -> float:
    """The first of eps, eps - s, ... (down to 0) at which ``holds`` (a certified lower check) holds."""
    step = max(1e-13 * abs(eps), 1e-15)
    for _ in range(200):
        if eps <= 0.0:
            return 0.0
        if holds(eps):
            return eps
        step *= 4.0
        eps -= step
    return 0.0


class BandCurve:
    r"""Certified queries from the kept frequencies (Parseval), without an inverse FFT.

    Same interface and semantics as :class:`dpcompose.methods.pld.curve.Curve`:
    ``delta_upper``/``delta_lower`` (the finite part plus the mass at infinity, with the
    rounding margin applied to epsilon), ``epsilon_upper``/``epsilon_lower`` (ending on
    the passing side of a certified check).
    """

    def __init__(self, track: Track, w0: int, w1: int, cut: bool, inf: float, slack: float) -> None:
        self.kind = track.kind
        self.h = track.h
        self.n = track.n
        self.w0, self.w1 = w0, w1
        self.freq = track.freq
        self.wt = track.weights(track.freq)
        self.C = track.spectrum()[0].copy()
        self.absC = np.abs(self.C)
        self.d = track.spectrum_error()
        self.out_sum = track.out_sum
        self.start = track.start()
        self.slack = slack
        self.inf = inf + (track.tau if cut and self.kind == "upper" else 0.0)
        self.alias_err = 2.0 * track.tau if cut and self.kind == "lower" else 0.0
        self.lmax = w1 * self.h
        self.lmin = w0 * self.h
        theta = 2.0 * math.pi * self.freq / self.n
        self.half_sin = np.sin(0.5 * theta)          # sin(theta/2) >= 0 on [0, pi]
        # 1 - e^{-h - i theta}, without cancellation
        self.one_minus_y = (-math.expm1(-self.h) * np.cos(theta) + 2.0 * self.half_sin ** 2) \
            + 1j * (math.exp(-self.h) * np.sin(theta))
        self._cache: dict[int, tuple[float, float, float, float]] = {}

    def _angle(self, mult: int, period: int) -> np.ndarray:
        """2 pi (freq * mult mod period) / period, reduced exactly in integers."""
        r = (self.freq * (mult % period)) % period
        return (2.0 * math.pi / period) * r

    def sums(self, J: int) -> tuple[float, float, float, float]:
        r"""``(A, eA, B, eB)``: :math:`\mathcal A_J`, :math:`\mathcal B_J` and bounds on their errors."""
        hit = self._cache.get(J)
        if hit is not None:
            return hit
        n = self.w1 - J + 1
        if n <= 0:
            return (0.0, 0.0, 0.0, 0.0)
        N = self.n
        f = self.freq
        # phase of the first weight: position (J - start) mod N on the circle
        phase = np.exp(-1j * self._angle(J - self.start, N))
        # G1 = sum_{t<n} e^{-i theta t} = e^{-i theta (n-1)/2} sin(n theta/2) / sin(theta/2)
        nz = f != 0
        g1 = np.empty(f.shape, dtype=complex)
        g1[~nz] = n
        sin_n = np.sin(self._angle(n, 2 * N)[nz])             # sin(n theta / 2)
        g1[nz] = np.exp(-1j * self._angle(n - 1, 2 * N)[nz]) * (sin_n / self.half_sin[nz])
        # G2 = sum_{t<n} (e^{-h - i theta})^t = (1 - y^n) / (1 - y), 1 - y^n = -expm1(n(-h - i theta))
        b = -self._angle(n, N)
        a = -n * self.h
        one_minus_yn = (-(math.expm1(a)) * np.cos(b) + 2.0 * np.sin(0.5 * b) ** 2) \
            - 1j * (math.exp(a) * np.sin(b))
        g2 = one_minus_yn / self.one_minus_y
        wa = phase * g1
        wb = phase * g2
        scale = 1.0 / N
        A = scale * float(np.dot(self.wt, (self.C * np.conj(wa)).real))
        B = scale * float(np.dot(self.wt, (self.C * np.conj(wb)).real))
        abs_wa, abs_wb = np.abs(wa), np.abs(wb)
        m = self.freq.size

        def err(abs_w: np.ndarray, w_sum: float) -> float:
            spec = float(np.dot(self.wt, self.d * abs_w * (1.0 + _C_W) + self.absC * (_C_W * abs_w)))
            rounding = 2.0 * (m + 8) * UNIT_ROUNDOFF * float(np.dot(self.wt, self.absC * abs_w)) * (1.0 + _C_W)
            return 1.01 * scale * (spec + rounding + self.out_sum * w_sum)

        geo = -1.0 / math.expm1(-self.h)  # sum of e^{-t h} over all t >= 0
        out = (A, err(abs_wa, float(n)), B, err(abs_wb, min(float(n), geo)))
        if len(self._cache) > 256:
            self._cache.clear()
        self._cache[J] = out
        return out

    def _first_above(self, eps: float) -> int:
        """The first grid index i >= w0 with i h > eps (exactly, in the doubles i * h)."""
        i = max(self.w0, math.floor(eps / self.h) + 1)
        while i > self.w0 and (i - 1) * self.h > eps:
            i -= 1
        while i * self.h <= eps:
            i += 1
        return i

    def _finite(self, eps: float, side: str) -> float:
        """A certified upper (``side="upper"``) or lower bound on sum_{l_i > eps} p_i (1 - e^{eps - l_i})."""
        if eps >= self.lmax:
            return 0.0
        J = self._first_above(eps)
        if J > self.w1:
            return 0.0
        A, eA, B, eB = self.sums(J)
        x = math.exp(eps - J * self.h)
        if side == "upper":
            v = A + eA - x * (B - eB)
            v = min(v, A + eA)
        else:
            v = A - eA - x * (B + eB)
        v += (1.0 if side == "upper" else -1.0) * 4.0 * UNIT_ROUNDOFF * (abs(A) + eA + abs(B) + eB)
        return max(0.0, v)

    def _m(self, eps: float) -> float:
        return _margin(self.slack, eps, self.lmax, self.lmin, self.h)

    def delta_upper(self, eps: float) -> float:
        if math.isinf(eps):
            return min(1.0, self.inf)
        return min(1.0, self._finite(eps - self._m(eps), "upper") + self.inf)

    def delta_lower(self, eps: float) -> float:
        if math.isinf(eps):
            return max(0.0, self.inf - self.alias_err)
        return max(0.0, self._finite(eps + self._m(eps), "lower") + self.inf - self.alias_err)

    def _cell_root(self, J: int, target: float, side: str) -> float | None:
        """The root of A_J - e^{eps - l_J} B_J = target (bounds on the chosen side), or None."""
        A, eA, B, eB = self.sums(J)
        a, b = (A + eA, B - eB) if side == "upper" else (A - eA, B + eB)
        if b <= 0.0 or a <= target:
            return None
        return J * self.h + math.log((a - target) / b)

    def _search(self, target: float, side: str, hint: float | None = None) -> float:
        """About the eps at which the finite part crosses ``target`` (not yet certified).

        For every J, :math:`F_J(\\varepsilon) = \\mathcal A_J - e^{\\varepsilon - l_J}\\mathcal B_J`
        is at most the finite part everywhere and equal to it on :math:`[l_{J-1}, l_J)`,
        so the roots of the :math:`F_J` at the current cell form an increasing sequence
        that reaches the crossing (Newton's method on minorants); a bisection over the
        grid is the fallback. Each step costs one pair of sums.
        """
        if hint is not None and max(0.0, self.lmin) <= hint < self.lmax \
                and self._finite(hint, side) > target:
            eps = hint         # below the crossing: Newton's method on minorants
            for _ in range(8):
                J = self._first_above(eps)
                root = self._cell_root(J, target, side)
                if root is None:
                    break
                if root <= eps or root < J * self.h:
                    return max(eps, root)     # the crossing lies in this cell
                eps = root
        if self._finite(0.0, side) <= target:
            return 0.0
        lo = max(self.w0, 1)   # bisection over grid points J with (J - 1) h >= 0
        hi = self.w1 + 1       # the finite part is 0 there
        while hi - lo > 1:     # smallest J with finite part at l_{J-1} <= target
            mid = (lo + hi) // 2
            if self._finite((mid - 1) * self.h, side) <= target:
                hi = mid
            else:
                lo = mid
        root = self._cell_root(hi - 1, target, side) if hi - 1 >= self.w0 else None
        return max(0.0, (hi - 1) * self.h if root is None else min((hi - 1) * self.h, root))

    def epsilon_upper(self, delta: float, hint: float | None = None) -> float:
        if self.inf > delta:
            return math.inf
        target = delta - self.inf
        if target <= 0.0:
            return max(0.0, self.lmax)
        e0 = self._search(target, "upper", hint)
        return _step_up(lambda e: self._finite(e - self._m(e), "upper") <= target,
                        e0 + 1.5 * self._m(e0) + 1e-13 * abs(e0) + 1e-15)

    def epsilon_lower(self, delta: float, hint: float | None = None) -> float:
        fixed = self.inf - self.alias_err
        if fixed > delta:
            return math.inf
        target = delta - fixed
        if target >= 1.0:
            return 0.0
        e0 = self._search(target, "lower", hint)
        return _step_down(lambda e: self._finite(e + self._m(e), "lower") > target,
                          e0 - 1.5 * self._m(e0) - 1e-13 * abs(e0) - 1e-15)
