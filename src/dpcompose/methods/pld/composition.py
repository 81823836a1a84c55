r"""The grids computed for one pld composition and the certified bounds they give.

:class:`PLDAccountant` builds, per grid level, one composed :class:`~.grid.GridPLD` per
direction ("remove", "add" or "substitution") and rounding kind, lazily, and answers
from them: the tightest over levels, the maximum over directions (see
:mod:`dpcompose.methods.pld`).
"""

from __future__ import annotations

import heapq
import math
from functools import lru_cache
from typing import Any

from ..._numerics.rounding import MACHINE_EPSILON
from ...errors import MethodNotApplicableError
from ...mechanisms import Laplace, Mechanism, Subsampled, describe
from ...representations import dominating_pair
from .curve import Curve
from .discretize import (
    Discretized,
    LossModel,
    discretize,
    has_lower_model,
    loss_model,
    lower_grid_spacing,
    lower_model_is_own,
    pair_epsilon,
)
from .grid import GridPLD, _truncate, compose_pair, mass_upper, self_compose
from .laplace_batch import batchable, laplace_upper_grids
from .substitution import substitution_hull

__all__ = ["PLDAccountant", "cached_loss_model"]

_COARSE = 8  # secondary directions start on a grid this many times coarser
#: a lower single grid whose mass deficit times its count exceeds this is rounded down
#: instead (see PLDAccountant._grid)
_ROUND_DOWN_LOSS = 1.0
#: a query whose delta is below the grids' round-off divided by _TILT_ABOVE (and whose answer
#: that round-off moves by more than a tenth of the tolerance) is answered also from a tilted
#: composition (methods.pld.tilted), and the tighter answer is kept
_TILT_ABOVE = 1e-2


def cached_loss_model(m: Mechanism, direction: str, tail: float,
                      eps_override: float | None = None, lower: bool = False) -> LossModel:
    """:func:`~.discretize.loss_model`, remembered: the grid sizing reads each mechanism's
    loss range twice before the accountant discretizes it (365 distinct hospitals: three
    models each). Mechanisms are frozen values and a model is not changed after it is
    built, so a remembered one is the one that would be built again."""
    return _remembered_loss_model(m, direction, tail, eps_override, lower)


@lru_cache(maxsize=1 << 12)
def _remembered_loss_model(m: Mechanism, direction: str, tail: float, eps_override: float | None,
                           lower: bool) -> LossModel:
    # every argument positional: lru_cache keys f(a, b, c) and f(a, b, c, None) apart;
    # ``lower``: the model of the pair's thinning (a sub-probability pair), kept apart
    return loss_model(m, direction, tail=tail, eps_override=eps_override, lower=lower)


def _floor_to_grid(eps: float, h: float) -> float:
    """The grid point at or below eps, in double arithmetic (for the lower model).

    A grid aligned to eps (h = eps / n) has fl(n h) within a few ulps of eps, possibly
    above it; that point is kept (not n - 1, which would lower the bound by a relative
    1/n): the lower model's losses then sit at most 8u eps above a dominated pair's, and
    the lower queries are evaluated ``slack`` (>= 32u eps per copy) higher.
    """
    n = round(eps / h)
    if n >= 1 and abs(n * h - eps) <= 4.0 * MACHINE_EPSILON * eps:
        return n * h
    i = math.floor(eps / h)
    while i * h > eps:
        i -= 1
    return i * h


def _is_wor(m: Mechanism) -> bool:
    """Sampling without replacement at a rate below 1 (rate 1 is the inner mechanism)."""
    return isinstance(m, Subsampled) and m.scheme == "without_replacement" and m.rate < 1.0


def _directions(plan: list[tuple[Mechanism, int]]) -> tuple[tuple[str, ...], dict[str, Any]]:
    """The directions composed for the upper bound, and the mixes for the lower bound.

    Poisson subsampling (add/remove neighbours): each pair of datasets has one
    orientation for every invocation, so "remove" and "add" are composed separately and
    the maximum is taken, for both bounds. Sampling without replacement (substitution
    neighbours): the orientation can change from one invocation to the next, so the
    upper bound composes one pair valid for every orientation ("substitution", the hull
    of both, see :mod:`dpcompose.methods.pld.substitution`), and the lower bound is the
    largest over a few deterministic mixes, each attained: all "remove", all "add",
    "mixed-one" (one invocation "add", the rest "remove") and "mixed-half" (half of
    each group's invocations each way). Brute force over randomized response
    (``tests/test_wor_mixing.py``) finds the best of these four within 5% of the best
    of all mixes. The last two are composed only when an inner mechanism is atomic
    (randomized response, pure or (eps, delta) DP): for Gaussian and Laplace inner
    mechanisms all-remove was the largest mix in every case measured (the mixes grow
    with the number of remove invocations), and any subset of attained mixes gives a
    valid lower bound. A family with an asymmetric pair (``asymmetric_pair``, the mixture
    of Gaussians) is composed in both directions like Poisson subsampling. Otherwise
    every pair is symmetric: "remove" only.

    Returns:
        ``(upper_directions, mixes)``: ``mixes`` maps each lower direction to the number
        of "remove" invocations of each group of ``plan`` (the rest are "add"); for
        Poisson subsampling it maps "remove" and "add" to ``None``.
    """
    counts = tuple(k if _is_wor(m) else 0 for m, k in plan)
    if any(counts):
        first = next(i for i, c in enumerate(counts) if c)
        one = tuple(c - (i == first) for i, c in enumerate(counts))
        half = tuple((c + 1) // 2 for c in counts)
        candidates = [("remove", counts), ("add", (0,) * len(counts))]
        if any(_is_wor(m) and dominating_pair(m).is_atomic for m, _ in plan):
            candidates += [("mixed-one", one), ("mixed-half", half)]
        mixes: dict[str, Any] = {}
        for name, split in candidates:
            if split not in mixes.values():
                mixes[name] = split
        return ("substitution",), mixes
    if any(isinstance(m, Subsampled) or m.asymmetric_pair for m, _ in plan):
        return ("remove", "add"), {"remove": None, "add": None}
    return ("remove",), {"remove": None}


class PLDAccountant:
    """The grids computed for one composition and the certified bounds they give.

    Not usually built directly: ``compose(..., method="pld")`` returns a
    :class:`~dpcompose.guarantee.Guarantee` backed by one of these
    (``g.provenance["pld"]`` describes the grids).
    """

    def __init__(self, plan: list[tuple[Mechanism, int]], *, h0: float,
                 tolerance: float, tail_mass: float, max_points: int) -> None:
        self.plan = sorted(plan, key=lambda mk: (describe(mk[0]), mk[1]))
        self.upper_directions, self.mixes = _directions(self.plan)
        self.lower_directions = tuple(self.mixes)
        self.has_lower = all(has_lower_model(m) for m, _ in plan)
        self.kinds = ("upper", "lower") if self.has_lower else ("upper",)
        self.tolerance = tolerance
        self.tail_mass = tail_mass
        self.max_points = max_points
        self.total_count = sum(k for _, k in plan)
        self.levels: list[dict[str, Any]] = []
        self._tilted_cache: dict[Any, Any] = {}  # tilted compositions (methods.pld.tilted), by tilt
        self._singles: dict[Any, GridPLD] = {}  # single grids, by (m, direction, kind, h, count)
        self.info: dict[str, Any] = {
            "tolerance": tolerance, "tail_mass": tail_mass, "max_points": max_points,
            "directions": {"upper": list(self.upper_directions), "lower": list(self.lower_directions)},
            "grids": [],
            # a bound on what the numerics add to any upper delta, over the curves built
            # so far (a live dict: curves are built lazily, at query time)
            "error_budget": {"delta": 0.0},
        }
        self._add_level(h0)

    # -- building -----------------------------------------------------------------
    def _grid(self, m: Mechanism, direction: str, kind: str, h: float, count: int = 1) -> GridPLD:
        """One invocation of ``m`` in ``direction`` ("remove", "add" or "substitution").

        ``count``: how many copies will be composed. For the lower kind, the balanced
        coarsening removes a surplus of mass per copy; where ``count`` times what it
        removes beyond the rounded-down model exceeds :data:`_ROUND_DOWN_LOSS`, the composed
        lower measure would keep less than about ``e^-1`` of its mass, and the model that rounds losses down (keeping all of it,
        :func:`~.discretize._round_down`) is used instead. Both are dominated by the true
        composition, so the choice changes tightness only.
        """
        skey = (m, direction, kind, h, count if kind == "lower" else 1)  # the upper grid ignores count
        cached = self._singles.get(skey)
        if cached is not None:
            return cached
        override = None
        if kind == "lower":
            eps = pair_epsilon(m)  # None for subsampled and continuous (Gaussian) pairs
            if eps is not None and math.isfinite(eps):
                override = _floor_to_grid(eps, h)
        base = "remove" if direction == "substitution" else direction
        own = kind == "lower" and lower_model_is_own(m)  # a thinning: a model of its own
        model = cached_loss_model(m, base, self.tail_mass / (8.0 * self.total_count), override, own)
        d = discretize(model, h, kind)
        if kind == "lower" and count > 1 and d.p.size:
            down = discretize(model, h, kind, round_down=True)  # from the same cached bin sums
            if count * (float(down.p.sum()) - float(d.p.sum())) > _ROUND_DOWN_LOSS:
                d = down
                self.info.setdefault("lower_rounded_down", []).append(describe(m))
        single = self._single(m, direction, kind, h, d)
        self._singles[skey] = single  # read again by the tilted compositions (methods.pld.tilted)
        return single

    @staticmethod
    def _single(m: Mechanism, direction: str, kind: str, h: float, d: Discretized,
                fin: float | None = None) -> GridPLD:
        """The single grid of one discretized invocation of ``m`` (``fin``: an upper bound on
        its finite mass, else ``GridPLD`` sums it exactly)."""
        # the losses of one mechanism are computed in doubles: allow 16 ulps of the
        # largest loss magnitude on its grid support per copy (see GridPLD.slack)
        top = max(abs(d.start), abs(d.start + d.p.size)) * h if d.p.size else 0.0
        slack = 16.0 * MACHINE_EPSILON * (top + h)
        if direction == "substitution" and _is_wor(m):
            d = substitution_hull(d, h, slack)
        return GridPLD(kind, h, d.start, d.p, d.inf, slack=slack, fin=fin)

    def _split(self, i: int, direction: str) -> list[tuple[str, int]]:
        """The (direction, count) pieces of group ``i`` of the plan in a composed direction."""
        m, k = self.plan[i]
        if not _is_wor(m):
            return [("remove" if direction not in ("remove", "add") else direction, k)]
        if direction == "substitution":
            return [(direction, k)]
        j = self.mixes[direction][i]
        return [("remove", j), ("add", k - j)]

    def _pieces(self, direction: str) -> list[tuple[Mechanism, str, int]]:
        """(mechanism, its direction, count) of every group composed in ``direction``."""
        return [(m, d, c) for i, (m, k) in enumerate(self.plan) for d, c in self._split(i, direction) if c]

    def _build(self, direction: str, kind: str, h: float) -> GridPLD:
        pieces = self._pieces(direction)
        if kind == "upper":
            self._batch_laplace([m for m, d, _ in pieces if d == "remove"], h)
        return self._compose([(self._grid(m, d, kind, h, c), c) for m, d, c in pieces])

    def _batch_laplace(self, mechanisms: list[Mechanism], h: float) -> None:
        """The upper single grids of the (plain) Laplace mechanisms, in one NumPy pass.

        :mod:`.laplace_batch` computes the same connect-the-dots measure as
        :meth:`_grid` (closed-form bin integrals instead of quadrature); it is stored
        where :meth:`_grid` looks first. Mechanisms it does not take (another family,
        a huge epsilon whose low-loss tail the general path cuts) are left to
        :meth:`_grid`.
        """
        tail = self.tail_mass / (8.0 * self.total_count)
        todo = [m for m in mechanisms if type(m) is Laplace and (m, "remove", "upper", h, 1) not in self._singles
                and batchable(m.epsilon, h, tail)]
        if len(todo) < 2:
            return  # one mechanism: the general path costs the same
        for m, d in zip(todo, laplace_upper_grids([m.epsilon for m in todo], h)):
            # fin by grid.mass_upper (a bounded numpy sum), not an exact fsum per grid: a
            # Laplace grid has no mass at +inf, so fin multiplies only zeros (the facts' ie)
            self._singles[(m, "remove", "upper", h, 1)] = self._single(m, "remove", "upper", h, d,
                                                                       mass_upper(d.p))

    def _compose(self, singles: list[tuple[GridPLD, int]]) -> GridPLD:
        """The composition of ``count`` copies of each single grid (also used by :mod:`.tilted`)."""
        tau_op = self.tail_mass / (8.0 * (2 * len(singles) + 1))
        parts: list[GridPLD] = []
        for single, c in singles:
            g = self_compose(single, c, tau_op, self.max_points)
            parts.append(_truncate(g, tau_op))
        # the two smallest first (ties: the earlier part), on a heap keyed (size, arrival)
        heap: list[tuple[int, int, GridPLD]] = [(g.p.size, i, g) for i, g in enumerate(parts)]
        heapq.heapify(heap)
        arrival = len(heap)
        while len(heap) > 1:
            first = heapq.heappop(heap)[2]
            second = heapq.heappop(heap)[2]
            both = compose_pair(first, second, tau_op, self.max_points)
            heapq.heappush(heap, (both.p.size, arrival, both))
            arrival += 1
        return heap[0][2]

    def _add_level(self, h: float) -> None:
        level: dict[str, Any] = {"h": h, "curves": {}, "points": 0}
        self.levels.append(level)
        info = {"h": h, "points": 0, "numerical_error": {}}
        self.info["grids"].append(info)
        level["info"] = info
        try:
            # the primary direction's upper curve is always built; the others start on a
            # coarser grid and are refined only where they could decide the maximum
            self._curve(level, self.upper_directions[0], "upper")
        except Exception:
            self.levels.pop()
            self.info["grids"].pop()
            raise

    def _curve(self, level: dict[str, Any], direction: str, kind: str, coarse: int = 1) -> Curve:
        key = (direction, kind, coarse)
        c = level["curves"].get(key)
        if c is None:
            h = level["h"] * coarse
            # a lower grid aligned to a lattice thinning's spacing (valid at any spacing)
            h_lower = lower_grid_spacing([m for m, _ in self.plan], h) if kind == "lower" and coarse == 1 else h
            try:
                g = self._build(direction, kind, h_lower)
            except MethodNotApplicableError:
                if h_lower == h:
                    raise
                g = self._build(direction, kind, h)  # the aligned grid did not fit: the level's
            c = Curve(g)
            level["curves"][key] = c
            level["points"] = max(level["points"], g.p.size)
            level["info"]["points"] = level["points"]
            name = f"{direction}/{kind}" + (f"/h*{coarse}" if coarse > 1 else "")
            # what the numerics may add to a delta: round-off, aliasing, truncated tails
            num = g.err + g.inf_err + (max(0.0, g.inf - g.exact_facts()[0]) if kind == "upper" else 0.0)
            level["info"]["numerical_error"][name] = num
            if kind == "upper":
                budget = self.info["error_budget"]
                budget["delta"] = max(budget["delta"], num)
        return c

    def _dir_values(self, lv: dict[str, Any], query: str, x: float) -> dict[str, float]:
        """Upper bounds per direction (``query`` "eps" or "delta") at this level.

        A secondary direction is first answered on a grid 8 times coarser (a valid,
        looser upper bound); only when that could exceed the primary direction's value is
        it recomputed on the level's own grid. The maximum over directions is unchanged.
        """
        def val(c: Curve) -> float:
            return c.epsilon_upper(x) if query == "eps" else c.delta_upper(x)

        first = self.upper_directions[0]
        out = {first: val(self._curve(lv, first, "upper"))}
        for d in self.upper_directions[1:]:
            v = math.inf
            if lv["h"] * _COARSE <= 0.05:
                try:
                    v = val(self._curve(lv, d, "upper", _COARSE))
                except MethodNotApplicableError:
                    v = math.inf
            if v > out[first]:
                v = val(self._curve(lv, d, "upper"))
            out[d] = v
        return out

    # -- bounds (tightest over grids; max over directions) ---------------------------
    def _level_eps_upper(self, lv: dict[str, Any], delta: float) -> dict[str, float]:
        return self._dir_values(lv, "eps", delta)

    def _eps_upper(self, delta: float) -> float:
        return min(max(self._level_eps_upper(lv, delta).values()) for lv in self.levels)

    def _best_lower(self, query: str, x: float) -> float:
        """The largest lower bound over levels and lower directions (``query`` "eps"/"delta").

        A direction cannot raise the best lower bound so far when an upper bound on it is
        not above it: its own upper bound (the directions of Poisson subsampling), else
        the hull's, tightened for a mix of sampling without replacement by that mix's
        upper bound on a grid 8 times coarser (valid and cheaper) before its lower curve
        is built.
        """
        def val(c: Curve, kind: str) -> float:
            if query == "eps":
                return c.epsilon_upper(x) if kind == "upper" else c.epsilon_lower(x)
            return c.delta_upper(x) if kind == "upper" else c.delta_lower(x)

        best = 0.0
        for lv in self.levels:
            ups = self._dir_values(lv, query, x)
            top = max(ups.values())
            # largest cap first: a good lower bound early lets the others be skipped
            for d in sorted(self.lower_directions, key=lambda d: -ups.get(d, top)):
                cap = ups.get(d, top)
                built = (d, "lower", 1) in lv["curves"]
                if cap > best and d not in ups and not built and lv["h"] * _COARSE <= 0.05:
                    try:
                        cap = min(cap, val(self._curve(lv, d, "upper", _COARSE), "upper"))
                    except MethodNotApplicableError:
                        pass
                if cap <= best:
                    continue
                c = self._lower_curve(lv, d)
                if c is not None:
                    best = max(best, val(c, "lower"))
        return best

    def _eps_lower(self, delta: float) -> float:
        return self._best_lower("eps", delta)

    def _lower_curve(self, lv: dict[str, Any], direction: str) -> Curve | None:
        """The lower curve, or None where it does not fit in max_points (the trivial 0 then)."""
        try:
            return self._curve(lv, direction, "lower")
        except MethodNotApplicableError as exc:
            lv["info"].setdefault("lower_unavailable", {})[direction] = str(exc)
            return None

    # -- tiny delta: the round-off relative to the tail (methods.pld.tilted) -------------
    def _round_off(self, kind: str) -> float:
        """The largest numerical error of the finest level's ``kind`` curves built so far."""
        errs = self.levels[-1]["info"]["numerical_error"]
        return max((v for k, v in errs.items() if k.split("/")[1] == kind), default=0.0)

    def _tilted(self, kind: str, near: float = 0.25, **query: float) -> list[Any] | None:
        """One tilted curve per direction of ``kind`` on the finest grid (None: one failed)."""
        from .tilted import tilted_curve

        dirs = self.upper_directions if kind == "upper" else self.lower_directions
        h = self.levels[-1]["h"]
        curves = [tilted_curve(self, d, kind, h, near=near, **query) for d in dirs]
        if any(c is None for c in curves):
            return None
        # the tilts used so far (provenance)
        self.info["tilted"] = sorted({c.lam for c in curves if c is not None} | set(self.info.get("tilted", [])))
        return curves

    def _tilted_delta(self, kind: str, eps: float) -> float | None:
        """The tightest delta at ``eps`` over every tilted curve built so far (any tilt is valid),
        the maximum over directions; None where a direction has none."""
        from .tilted import TiltedCurve

        h = self.levels[-1]["h"]
        dirs = self.upper_directions if kind == "upper" else self.lower_directions
        built = any(key[1:3] == (kind, h) and isinstance(c, TiltedCurve)
                    for key, c in self._tilted_cache.items())
        # a delta query builds a tilted curve (at its own best tilt) only where none exists:
        # an epsilon query's inversion asks delta at many epsilons near its answer, where the
        # curve its epsilon_upper built is the right one (any curve gives a valid bound)
        if not built and self._tilted(kind, eps=eps) is None:
            return None
        vals = []
        for d in dirs:
            cs = [c for key, c in self._tilted_cache.items()
                  if key[:3] == (d, kind, h) and isinstance(c, TiltedCurve)]
            if not cs:
                return None
            ds = [c.delta(eps) for c in cs]
            vals.append(min(ds) if kind == "upper" else max(ds))
        return max(vals)

    def _shift_small(self, moved: float, at: float) -> bool:
        """Whether the round-off moved an epsilon by at most a tenth of the tolerance."""
        return moved <= 0.1 * self.tolerance * max(at, 1.0)

    def _plain_delta_upper(self, eps: float) -> float:
        return min(max(self._dir_values(lv, "delta", eps).values()) for lv in self.levels)

    # Where the tilted curves are built: the plain grid's round-off ``ro`` exceeds
    # _TILT_ABOVE of the queried delta and, without it, the answer would move by more than a
    # tenth of the tolerance (relative, in epsilon). Either answer is certified.
    def epsilon_upper(self, delta: float) -> float:
        e = self._eps_upper(delta)
        ro = self._round_off("upper")
        if 0.0 < delta and ro > _TILT_ABOVE * delta and not (
                math.isfinite(e) and self._shift_small(e - self._eps_upper(delta + 2.0 * ro), e)):
            curves = self._tilted("upper", delta=delta)
            if curves is not None:
                hi = e if math.isfinite(e) else max(c.lmax for c in curves) + 1.0
                e = min(e, max(c.epsilon(delta, 0.0, hi) for c in curves))
        return e

    def epsilon_lower(self, delta: float) -> float:
        e = self._eps_lower(delta)
        ro = self._round_off("lower")
        if 0.0 < delta and ro > _TILT_ABOVE * delta and not (
                delta > 2.0 * ro and self._shift_small(self._eps_lower(delta - 2.0 * ro) - e, e)):
            curves = self._tilted("lower", delta=delta)
            if curves is not None:
                hi = self.epsilon_upper(delta)  # certified, tilted too where it helps
                if math.isfinite(hi):
                    e = max(e, max(c.epsilon(delta, e, hi) for c in curves))
        return e

    def delta_upper(self, eps: float) -> float:
        d = self._plain_delta_upper(eps)
        ro = self._round_off("upper")
        if math.isfinite(eps) and d > 0.0 and ro > _TILT_ABOVE * d:
            # small shift: the curve rises by more than 2 ro within a tenth of the tolerance
            near = eps - 0.1 * self.tolerance * max(eps, 1.0)
            if not (near > 0.0 and self._plain_delta_upper(near) - d >= 2.0 * ro):
                t = self._tilted_delta("upper", eps)
                if t is not None:
                    d = min(d, t)
        return d

    def delta_lower(self, eps: float) -> float:
        d = self._best_lower("delta", eps)
        ro = self._round_off("lower")
        if math.isfinite(eps) and ro > _TILT_ABOVE * max(d, 1e-300):
            far = eps + 0.1 * self.tolerance * max(eps, 1.0)
            if not (d - self._best_lower("delta", far) >= 2.0 * ro):
                t = self._tilted_delta("lower", eps)
                if t is not None:
                    d = max(d, t)
        return d
