r"""Privacy loss distributions (``method="pld"``): certified upper *and* lower bounds.

The privacy loss distribution (PLD) of a dominating pair :math:`(P, Q)` is the law of
:math:`L = \log(dP/dQ)(X)` for :math:`X \sim P`; composition multiplies pairs, so PLDs
convolve, and the privacy profile is

.. math:: \delta(\varepsilon) = E\big[(1 - e^{\varepsilon - L})_+\big]
          = \sum_{l > \varepsilon} p(l)\,(1 - e^{\varepsilon - l}) + p(+\infty).

(Meiser and Mohammadi, "Tight on Budget?", CCS 2018; Sommer, Meiser and Mohammadi,
"Privacy Loss Classes", PoPETs 2019; Koskela, Jälkö and Honkela, "Computing Tight
Differential Privacy Guarantees Using FFT", AISTATS 2020.)

How dpcompose computes it (modules :mod:`dpcompose._pld_discretize` and
:mod:`dpcompose._pld_arrays` hold the details):

1. **Dominating pairs** for every mechanism. Mechanisms that are not subsampled have
   symmetric pairs (one direction suffices). Poisson subsampling (add/remove
   neighbours): the *remove* and the *add* direction are composed separately and kept
   apart until query time; the guarantee is the maximum over both (one pair of
   datasets has one orientation in every invocation). The add direction is first
   evaluated on a grid 8 times coarser (a valid, looser upper bound) and refined only
   where it could decide the maximum. Sampling without replacement (substitution
   neighbours): the orientation may change from one invocation to the next, even
   adaptively, so the upper bound composes one pair per invocation valid for both, the
   hull with profile :math:`\max(\delta_{\mathrm{remove}}, \delta_{\mathrm{add}})`
   (:mod:`dpcompose._pld_substitution`, proof in ``docs/theory.md``); the lower bound
   is the largest over four attained deterministic mixes (:func:`_directions`).
   Poisson and without-replacement members in one composition are refused
   (:func:`dpcompose.subsampling.composition_relation`).
2. **Two discretizations** on the grid :math:`h\mathbb{Z}`: ``upper`` (connect the
   dots: a randomised refinement, so the discrete pair *dominates* the true one) and
   ``lower`` (a randomised coarsening with surplus mass removed, so it *is dominated*).
   Both errors are second order in :math:`h` for continuous loss laws; atomic
   mechanisms use their epsilon rounded down to the grid for the lower bound (exact when
   the grid is aligned to it, as the automatic grid is for the smallest epsilon).
3. **Composition**: ``(mechanism, count)`` by one FFT, an elementwise complex power
   (binary powering) and one inverse FFT (the Fourier form of repeated squaring, with
   no re-discretization between squarings), on a window sized by a Chernoff bound of
   the discrete measure; different groups by linear FFT (or direct) convolution in a balanced tree.
   Tails of at most ``tail_mass`` in total are cut: in the upper bound the high tail
   goes to the infinity atom and the low tail is moved up; in the lower bound both are
   dropped or, where aliasing folds them into the window, subtracted.
4. **Queries** :math:`\delta(\varepsilon)` sum positive terms
   :math:`p_j\,(-\mathrm{expm1}(\varepsilon - l_j))` (a sum of non-negative doubles,
   accurate to a relative :math:`n u`, so no log space is needed down to the smallest
   normal double); :math:`\varepsilon(\delta)` is solved in closed form between two
   grid points and then checked on the passing side.

Error analysis (what the bracket contains). For every :math:`\varepsilon`:

.. math:: \delta_{\mathrm{lower}}(\varepsilon) - e_{\mathrm{num}}
          \le \delta_{\mathrm{true}}(\varepsilon)
          \le \delta_{\mathrm{upper}}(\varepsilon) + e_{\mathrm{num}}

where :math:`\delta_{\mathrm{upper}}` / :math:`\delta_{\mathrm{lower}}` are the exact
profiles of the discretized pairs (valid bounds by data processing, which composition
preserves) and :math:`e_{\mathrm{num}}` collects (a) FFT round-off, bounded a priori
(:data:`dpcompose._pld_arrays.FFT_C`), (b) aliasing mass (Chernoff), (c) the relative
safety factor :data:`dpcompose._pld_discretize.MASS_SAFETY` on every discretized mass.
Both :math:`e_{\mathrm{num}}` terms are added on the safe side of every answer. The
*width* of the bracket is dominated by the discretization: for a k-fold composition of
a continuous PLD it behaves like :math:`k h^2` times a curvature term (not a
certified quantity; the certified quantity is the bracket itself). With
``tolerance`` set, the grid is sized from it (:math:`h \approx
\sqrt{\mathrm{tolerance}/(3k)}` for k continuous mechanisms, an empirical rule: the
bracket itself is the certified quantity and is *not* guaranteed to meet the
tolerance). The grids are fixed when the guarantee is built, so every query is a pure
function of its argument. Measured: DP-SGD (q = 256/60000, sigma 1.1, 14,062 steps,
delta 1e-5) gives [2.381547, 2.381633] in about 0.08 s; see ``benchmarks/README.md``.

Size and time are bounded before the work starts (see :func:`_accountant`): one
mechanism's grid holds at most ``max_points / 2`` points, a composed grid at most
``max_points`` (default :math:`2^{22}`, 32 MiB of doubles per array; peak memory is
linear in it, measured at about 200 bytes per point, 850 MiB at the default, for
1000 x Laplace(2e-3), Laplace(1e-4) and three groups of 10^6 Laplace copies), and at
most :data:`_MAX_ATTEMPTS` grids are tried, each coarser by the factor the previous one
needed; a mechanism whose loss spans too wide a range for any such grid (Laplace with
epsilon in the tens of thousands) is refused, and ``method="auto"`` answers from the
methods that can. A coarsened grid is named in ``g.provenance["pld"]["coarsened"]``
and in ``g.provenance["caveats"]``.

Numerical error floor: ``g.provenance["error_budget"]["delta"]`` bounds what the
numerics (tail truncation, aliasing, FFT round-off, ``inf_err``) add to an upper delta,
over the curves built so far (they are built lazily, so the value can grow with the
first queries). Where it is not small against a target delta, the answer there is
dominated by it (epsilon(delta) is then the composition's largest loss, or inf);
reports mark such rows with a caveat.

Closed form: one Laplace mechanism (count 1, nothing else) is answered by its exact
profile :math:`\delta(e) = 1 - e^{(e - \varepsilon)/2}` (``exact=True``, any epsilon).
A composition of Gaussian mechanisms only is exactly the Gaussian
mechanism with :math:`\mu = \sqrt{\sum_i \mu_i^2}` (Dong, Roth and Su, "Gaussian
Differential Privacy", JRSS-B 2022, Cor. 3.3), answered by the exact profile of Balle
and Wang (``exact=True``). Plain Gaussians inside a mixed list are merged the same way
before discretization.

Neighbour relation: as stated by each mechanism; ``Subsampled(..., "poisson")`` is
add/remove-one (both directions), ``"without_replacement"`` is substitution, for which
each invocation is described by the hull of the two orders (Dong, Roth and Su,
"Gaussian Differential Privacy", JRSS-B 2022, Thm 4.2; its (eps, delta) consequence is
Balle, Barthe and Gaboardi 2018, Thm 9).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ._pld_arrays import (Curve, GridPLD, GridMismatchError, GridTooLargeError, _truncate,
                          compose_pair, self_compose)
from ._pld_discretize import MAX_DZ, atomic_epsilon, discretize, has_lower_model, loss_model
from ._pld_substitution import substitution_hull
from ._validation import check_real
from .compose import Groups, register_method
from .errors import InvalidParameterError, MethodNotApplicableError
from .guarantee import Guarantee
from .mechanisms import (
    ApproxDP,
    Exponential,
    Gaussian,
    Laplace,
    Mechanism,
    PureDP,
    RandomizedResponse,
    Subsampled,
    describe,
)
from ._numerics.rounding import MACHINE_EPSILON, SMALLEST_DELTA
from .representations import gaussian_log_delta, gaussian_log_delta_lower

__all__ = ["pld", "PLDAccountant", "GridMismatchError"]

_SUPPORTED = (PureDP, ApproxDP, Laplace, Gaussian, RandomizedResponse, Exponential)
_ATOMIC = (PureDP, ApproxDP, RandomizedResponse, Exponential)
_COARSE = 8  # secondary directions start on a grid this many times coarser
#: one mechanism's grid may fill at most 1/_SINGLE_SHARE of max_points, and its
#: quadrature at most as many pieces (4 nodes each), so several still compose
_SINGLE_SHARE = 2
#: grids tried before refusing (each costs O(max_points log max_points))
_MAX_ATTEMPTS = 6
#: the largest finite loss (and loss range) of one mechanism a grid is built for
#: (beyond it the loss values lose their resolution in doubles, and grid indices and
#: their k-fold sums approach the range of int64)
_MAX_SPAN = 1e9


def _check_options(tolerance: Any, discretization: Any, tail_mass: Any, max_points: Any):
    tol = check_real("tolerance", tolerance, low=0.0, high=1.0, low_open=True, high_open=True,
                     remedy="tolerance is the target relative width of the epsilon bracket, e.g. 1e-4.")
    if discretization is not None:
        discretization = check_real(
            "discretization", discretization, low=0.0, high=10.0, low_open=True,
            remedy="discretization is the loss-grid spacing h, e.g. 1e-4 (None: automatic).")
    tail = check_real("tail_mass", tail_mass, low=0.0, high=1e-3, low_open=True,
                      remedy="tail_mass is the total probability the tails may lose, e.g. 1e-14.")
    if isinstance(max_points, bool) or not isinstance(max_points, (int, np.integer)) or max_points < 1024:
        raise InvalidParameterError(
            f"max_points = {max_points!r} must be an integer >= 1024 (the largest grid the "
            f"pld method may build), e.g. 2**22."
        )
    return tol, discretization, tail, int(max_points)


def _inner(m: Mechanism) -> Mechanism:
    return m.mechanism if isinstance(m, Subsampled) else m


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
    of both, see :mod:`dpcompose._pld_substitution`), and the lower bound is the
    largest over a few deterministic mixes, each attained: all "remove", all "add",
    "mixed-one" (one invocation "add", the rest "remove") and "mixed-half" (half of
    each group's invocations each way). Brute force over randomized response
    (``tests/test_wor_mixing.py``) finds the best of these four within 5% of the best
    of all mixes. The last two are composed only when an inner mechanism is atomic
    (randomized response, pure or (eps, delta) DP): for Gaussian and Laplace inner
    mechanisms all-remove was the largest mix in every case measured (the mixes grow
    with the number of remove invocations), and any subset of attained mixes gives a
    valid lower bound. Otherwise every pair is symmetric: "remove" only.

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
        if any(_is_wor(m) and isinstance(m.mechanism, _ATOMIC) for m, _ in plan):
            candidates += [("mixed-one", one), ("mixed-half", half)]
        mixes: dict[str, Any] = {}
        for name, split in candidates:
            if split not in mixes.values():
                mixes[name] = split
        return ("substitution",), mixes
    if any(isinstance(m, Subsampled) for m, _ in plan):
        return ("remove", "add"), {"remove": None, "add": None}
    return ("remove",), {"remove": None}


def _gaussian_guarantee(mu2: float, provenance: dict) -> Guarantee:
    """The exact guarantee of a Gaussian composition with mu^2 = mu2 (Balle-Wang closed form).

    Upper: :func:`gaussian_log_delta` at mu rounded up, never below the smallest
    positive double at finite epsilon (the Gaussian's loss is unbounded, so its delta is
    positive there and its epsilon at delta = 0 is infinite). Lower:
    :func:`gaussian_log_delta_lower` at mu rounded down. ``log_delta`` keeps the
    logarithm below the doubles.
    """
    mu = math.sqrt(mu2)
    mu_up = mu * (1.0 + 4 * MACHINE_EPSILON)  # sqrt is correctly rounded: 4 ulps cover mu2's sum too
    mu_dn = mu * (1.0 - 4 * MACHINE_EPSILON)

    def log_up(e: float) -> float:
        return gaussian_log_delta(mu_up, e)

    def d_up(e: float) -> float:
        if math.isinf(e):
            return 0.0  # no infinite loss
        return max(SMALLEST_DELTA, math.exp(log_up(e)))

    def d_lo(e: float) -> float:
        return math.exp(gaussian_log_delta_lower(mu_dn, e))

    prov = dict(provenance)
    prov["closed_form"] = f"Gaussian composition: mu = sqrt(sum mu_i^2) = {mu!r}"
    return Guarantee("pld", delta_upper=d_up, delta_lower=d_lo, log_delta_upper=log_up,
                     exact=True, provenance=prov)


def _laplace_guarantee(m: Laplace, provenance: dict) -> Guarantee:
    """One Laplace mechanism, exactly: delta(e) = 1 - e^{(e - eps)/2} for e < eps, else 0.

    Needs no grid, so it also answers for huge epsilons (Laplace(1e-6) is 1e6-DP).
    Rounding: eps = Delta / b (rounded to within half an ulp) is widened by one ulp each
    way; the subtraction e - eps is one correctly rounded operation (relative error u),
    covered by scaling the (negative) exponent by 1 +- 2u; expm1 is faithful (2u).
    """
    eps_up, eps_dn = m.epsilon * (1.0 + MACHINE_EPSILON), m.epsilon * (1.0 - MACHINE_EPSILON)

    def d_up(e: float) -> float:
        if e >= eps_up:
            return 0.0
        x = 0.5 * (e - eps_up) * (1.0 + MACHINE_EPSILON)
        return min(1.0, -math.expm1(x) * (1.0 + MACHINE_EPSILON))

    def d_lo(e: float) -> float:
        if e >= eps_dn:
            return 0.0
        x = 0.5 * (e - eps_dn) * (1.0 - MACHINE_EPSILON)
        return max(0.0, -math.expm1(x) * (1.0 - MACHINE_EPSILON))

    def e_up(d: float) -> float:
        if d <= 0.0:
            return eps_up
        x = max(0.0, eps_up + 2.0 * math.log1p(-d))
        step = 4 * MACHINE_EPSILON * (eps_up + 1.0)
        while d_up(x) > d:  # ends on the passing side
            x += step
            step *= 2.0
        return x

    def e_lo(d: float) -> float:
        x = eps_dn + 2.0 * math.log1p(-d) - 4 * MACHINE_EPSILON * (eps_dn + 1.0)
        return max(0.0, x)

    prov = dict(provenance)
    prov["closed_form"] = f"one Laplace mechanism: delta(e) = 1 - exp((e - {m.epsilon!r})/2)"
    return Guarantee("pld", delta_upper=d_up, epsilon_upper=e_up, delta_lower=d_lo,
                     epsilon_lower=e_lo, exact=True, provenance=prov)


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
        self._models: dict[Any, Any] = {}
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
    def _grid(self, m: Mechanism, direction: str, kind: str, h: float) -> GridPLD:
        """One invocation of ``m`` in ``direction`` ("remove", "add" or "substitution")."""
        override = None
        if kind == "lower" and not isinstance(m, Subsampled):
            eps = atomic_epsilon(m)
            if eps is not None and math.isfinite(eps):
                override = _floor_to_grid(eps, h)
        base = "remove" if direction == "substitution" else direction
        key = (m, base, override)
        model = self._models.get(key)
        if model is None:
            model = loss_model(m, base, tail=self.tail_mass / (8.0 * self.total_count),
                               eps_override=override)
            self._models[key] = model
        d = discretize(model, h, kind)
        # the losses of one mechanism are computed in doubles: allow 16 ulps of the
        # largest loss magnitude on its grid support per copy (see GridPLD.slack)
        top = max(abs(d.start), abs(d.start + d.p.size)) * h if d.p.size else 0.0
        slack = 16.0 * MACHINE_EPSILON * (top + h)
        if direction == "substitution" and _is_wor(m):
            d = substitution_hull(d, h, slack)
        return GridPLD(kind, h, d.start, d.p, d.inf, slack=slack)

    def _split(self, i: int, direction: str) -> list[tuple[str, int]]:
        """The (direction, count) pieces of group ``i`` of the plan in a composed direction."""
        m, k = self.plan[i]
        if not _is_wor(m):
            return [("remove" if direction not in ("remove", "add") else direction, k)]
        if direction == "substitution":
            return [(direction, k)]
        j = self.mixes[direction][i]
        return [("remove", j), ("add", k - j)]

    def _build(self, direction: str, kind: str, h: float) -> GridPLD:
        pieces = [(m, d, c) for i, (m, k) in enumerate(self.plan)
                  for d, c in self._split(i, direction) if c]
        tau_op = self.tail_mass / (8.0 * (2 * len(pieces) + 1))
        parts: list[GridPLD] = []
        for m, d, c in pieces:
            g = self_compose(self._grid(m, d, kind, h), c, tau_op, self.max_points)
            parts.append(_truncate(g, tau_op))
        while len(parts) > 1:
            parts.sort(key=lambda g: g.p.size)
            a, b = parts[0], parts[1]
            parts = parts[2:] + [compose_pair(a, b, tau_op, self.max_points)]
        return parts[0]

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
            g = self._build(direction, kind, level["h"] * coarse)
            c = Curve(g)
            level["curves"][key] = c
            level["points"] = max(level["points"], g.p.size)
            level["info"]["points"] = level["points"]
            name = f"{direction}/{kind}" + (f"/h*{coarse}" if coarse > 1 else "")
            # what the numerics may add to a delta: round-off, aliasing, truncated tails
            num = g.err + g.inf_err + (max(0.0, g.inf - g.ie) if kind == "upper" else 0.0)
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

    def epsilon_upper(self, delta: float) -> float:
        return self._eps_upper(delta)

    def epsilon_lower(self, delta: float) -> float:
        return self._eps_lower(delta)

    def delta_upper(self, eps: float) -> float:
        return min(max(self._dir_values(lv, "delta", eps).values()) for lv in self.levels)

    def delta_lower(self, eps: float) -> float:
        return self._best_lower("delta", eps)


def _aligned(anchor: float, h0: float, floor: float) -> float:
    """A spacing anchor / n (n a positive integer) near h0 and >= floor, else max(h0, floor).

    The grid then holds the anchor exactly at index n. Below ``floor`` the grid would not
    fit in max_points; if even n = 1 is too fine, the grid is left unaligned.
    """
    h = anchor / math.ceil(anchor / h0) if anchor >= h0 else anchor
    if h >= floor:
        return h
    n = math.floor(anchor / floor)
    return anchor / n if n >= 1 else max(h0, floor)


def _auto_h(plan: list[tuple[Mechanism, int]], tolerance: float, floor: float = 0.0) -> float:
    """Initial grid spacing from the tolerance and the number of mechanisms, then aligned.

    Alignment puts a singular point of the loss law on the grid, where the lower
    (coarsening) discretization would otherwise lose first-order mass: for subsampled
    mechanisms the accumulation point log(1 - q) of the most frequent one; otherwise the
    smallest epsilon of an atomic mechanism (all of them when they are multiples of it).
    The result is never below ``floor`` (the finest spacing whose grids fit in max_points).
    """
    # the bracket of a k-fold composition of a continuous loss law is second order,
    # roughly k h^2 in epsilon: start near sqrt(tolerance / (3 k)) (empirical constant)
    k_cont = sum(k for m, k in plan if isinstance(m, (Gaussian, Laplace, Subsampled)))
    if k_cont:
        h0 = min(max(math.sqrt(tolerance / (3.0 * k_cont)), 2e-5), 1e-3)
    else:
        h0 = max(1e-4 * min(1.0, math.sqrt(tolerance / 1e-4)), 2e-5)
    h0 = max(h0, floor)
    sub = [(k, m.rate) for m, k in plan if isinstance(m, Subsampled) and m.rate < 1.0]
    if sub:
        _, q = max(sub)
        return _aligned(-math.log1p(-q), h0, floor)
    eps_atomic = [atomic_epsilon(m) for m, _ in plan]
    eps_atomic = [e for e in eps_atomic if e is not None and 0.0 < e < math.inf]
    if eps_atomic:
        e_min = min(eps_atomic)
        only_atoms = all(isinstance(m, (PureDP, RandomizedResponse, ApproxDP, Exponential))
                         for m, _ in plan)
        if only_atoms and all(abs(e / e_min - round(e / e_min)) < 1e-9 for e in eps_atomic):
            # every loss is a multiple of e_min: the grid e_min is exact (but not coarser
            # than needed to keep the support small)
            return _aligned(e_min, max(min(e_min, 1.0), floor), floor)
        return _aligned(e_min, h0, floor)
    return h0


def _loss_range(m: Mechanism, direction: str, tail: float) -> tuple[float, float, float]:
    """(lowest finite loss, highest finite loss, quadrature pieces) of m's loss law.

    Read from the loss model (atoms and segment end points), without building arrays.
    """
    model = loss_model(m, direction, tail=tail)
    lo, hi, pieces = math.inf, -math.inf, 0.0
    for x in model.atom_loss:
        lo, hi = min(lo, x), max(hi, x)
    for seg in model.segments:
        ends = [float(seg.loss(np.array(z))) for z in (seg.z0, seg.z1)]
        lo, hi = min(lo, *ends), max(hi, *ends)
        pieces += (seg.z1 - seg.z0) / MAX_DZ
    return lo, hi, pieces


def _spacing_floor(plan: list[tuple[Mechanism, int]], tail_mass: float, max_points: int) -> float:
    """The finest grid spacing at which every single mechanism's grid fits, or a refusal.

    A mechanism whose loss spans ``[lo, hi]`` needs ``(hi - lo) / h`` grid points and
    its quadrature ``(z1 - z0) / MAX_DZ + (hi - lo) / h`` pieces; both are held to
    ``max_points / _SINGLE_SHARE``. Huge epsilons (Laplace(1e-6) is 1e6-DP) make the span
    huge; where the quadrature alone would not fit, pld refuses (their pure-DP bound is
    then nearly exact, and method="auto" answers from "optimal").
    """
    tau = tail_mass / (8.0 * sum(k for _, k in plan))  # as PLDAccountant._build
    budget = max_points / _SINGLE_SHARE
    floor = 0.0
    for m, _ in plan:
        for direction in (("remove", "add") if isinstance(m, Subsampled) else ("remove",)):
            lo, hi, pieces = _loss_range(m, direction, tau)
            span = hi - lo if hi > lo else 0.0
            if pieces > budget or not max(span, abs(lo), abs(hi)) <= _MAX_SPAN:
                raise MethodNotApplicableError(
                    f"pld: the privacy loss of {describe(m)} spans [{lo:.6g}, {hi:.6g}]; a grid "
                    f"for it would exceed max_points = {max_points} (or the resolution of "
                    f"doubles). Its epsilon-DP description is nearly tight at this scale: use "
                    f"method='optimal' or 'simple' (method='auto' does), 'rdp' for Gaussian "
                    f"noise, or raise max_points.")
            floor = max(floor, span / budget)
    return floor


def _accountant(plan: list[tuple[Mechanism, int]], tol: float, h_fixed: float | None,
                tail: float, max_pts: int) -> PLDAccountant:
    """Build the accountant on the automatic grid (or ``h_fixed``), within max_points.

    Work is bounded before anything is built: no single mechanism's grid exceeds
    ``max_points / 2`` points (:func:`_spacing_floor`), no composed grid exceeds
    ``max_points`` (checked before its arrays are allocated, :class:`GridTooLargeError`),
    and at most :data:`_MAX_ATTEMPTS` grids are tried, each coarser by the factor the
    failed one reported. Every grid gives certified bounds, so coarsening only widens
    the bracket (``epsilon_bounds`` shows it, the provenance says so).
    """
    floor = _spacing_floor(plan, tail, max_pts)
    if h_fixed is not None:
        if h_fixed < floor:
            raise MethodNotApplicableError(
                f"pld: discretization = {h_fixed!r} is too fine for these mechanisms: their "
                f"grids would exceed max_points = {max_pts}; pass discretization >= {floor:.3g}, "
                f"a larger max_points, or leave discretization = None (automatic).")
        return PLDAccountant(plan, h0=h_fixed, tolerance=tol, tail_mass=tail, max_points=max_pts)
    h_tol = _auto_h(plan, tol)
    for _ in range(_MAX_ATTEMPTS):
        h0 = _auto_h(plan, tol, floor)
        try:
            acc = PLDAccountant(plan, h0=h0, tolerance=tol, tail_mass=tail, max_points=max_pts)
        except GridTooLargeError as exc:
            # the composed window scales like 1/h: aim 20% below the limit
            floor = max(2.0 * h0, h0 * exc.points / (0.8 * exc.max_points))
            continue
        if h0 > h_tol * (1.0 + 1e-9):
            acc.info["coarsened"] = (
                f"grid spacing h = {h0:.3g} instead of {h_tol:.3g} (the tolerance's) to stay "
                f"within max_points = {max_pts}; the bracket is wider than the tolerance")
        return acc
    raise MethodNotApplicableError(
        f"pld: this composition does not fit in max_points = {max_pts} grid points even at "
        f"spacing h = {floor:.3g}; raise max_points or use method='rdp' or 'optimal'.")


@register_method("pld", check_options=_check_options, directional=True)
def pld(groups: Groups, *, tolerance: float = 1e-4, discretization: float | None = None,
        tail_mass: float = 1e-14, max_points: int = 2 ** 22) -> Guarantee:
    r"""Privacy loss distributions: certified upper and lower bounds by FFT composition.

    Args:
        groups: ``((mechanism, count), ...)`` as produced by :func:`dpcompose.compose.normalize`.
        tolerance: target relative width ``(upper - lower) / upper`` of the epsilon bracket;
            the grid spacing is chosen from it (a heuristic: check ``epsilon_bounds``).
            Default 1e-4 (0.01%).
        discretization: a fixed loss-grid spacing ``h`` (disables refinement).
        tail_mass: total probability mass the tail truncations may move (added to delta
            in the upper bound); default 1e-14.
        max_points: the largest grid (number of points) one composed PLD may use; one
            mechanism's grid gets at most half of it. Peak memory is about 200 bytes
            per point (850 MiB at the default 2**22); a composition that needs more
            points gets a coarser grid (``g.provenance["caveats"]``) or a refusal.

    Returns:
        A :class:`~dpcompose.guarantee.Guarantee`; ``epsilon_bounds(delta)`` is a
        certified bracket (no lower bound when an ``Exponential`` mechanism is present,
        since a specific exponential mechanism may be more private than its epsilon).

    Raises:
        MethodNotApplicableError: an unsupported mechanism, or a composition that would
            need more than ``max_points`` grid points.

    Guarantee:
        Upper bound for every mechanism (under the neighbour relation each mechanism
        states; add/remove for Poisson subsampling, substitution for sampling without
        replacement, where it holds for every mix of orientations, also adaptive);
        lower bound for the dominating pairs themselves, which are attained by
        Gaussian, Laplace and randomized response, and by the worst member of the
        (eps, delta) class for ``PureDP``/``ApproxDP`` (for sampling without
        replacement: for the best of four fixed mixes of orientations). A composition
        of Gaussians only is answered exactly (``exact=True``).

    References:
        Koskela, Jälkö and Honkela, "Computing Tight Differential Privacy Guarantees
        Using FFT" (AISTATS 2020); Doroshenko, Ghazi, Kamath, Kumar and Manurangsi,
        "Connect the Dots" (PETS 2022); Zhu, Dong and Wang, "Optimal Accounting of
        Differential Privacy via Characteristic Function" (AISTATS 2022); Kairouz, Oh and
        Viswanath, "The Composition Theorem for Differential Privacy" (2015, the (eps,
        delta) dominating pair); Dong, Roth and Su, "Gaussian Differential Privacy"
        (2022, Cor. 3.3, Gaussian compositions; Thms 3.2 and 4.2, sampling without
        replacement).
    """
    tol, h_fixed, tail, max_pts = _check_options(tolerance, discretization, tail_mass, max_points)
    provenance: dict[str, Any] = {"options": {"tolerance": tol, "discretization": h_fixed,
                                              "tail_mass": tail, "max_points": max_pts}}
    plan: list[tuple[Mechanism, int]] = []
    mu2 = 0.0
    for m, k in groups:
        inner = _inner(m)
        if not isinstance(inner, _SUPPORTED):
            raise MethodNotApplicableError(
                f"pld has no privacy loss distribution for {m!r}; it supports PureDP, ApproxDP, "
                f"Laplace, Gaussian, RandomizedResponse, Exponential and Subsampled(one of these)."
            )
        if isinstance(m, Gaussian):
            mu2 += k * m.mu * m.mu
            continue
        eps = atomic_epsilon(m)
        if eps == 0.0 and not isinstance(m, ApproxDP):
            continue  # a 0-DP mechanism is the identity of composition
        if isinstance(m, ApproxDP) and m.epsilon == 0.0 and m.delta == 0.0:
            continue
        plan.append((m, k))
    if not plan:
        if mu2 == 0.0:
            return Guarantee("pld", delta_upper=lambda e: 0.0, epsilon_upper=lambda d: 0.0,
                             exact=True, provenance=provenance)
        return _gaussian_guarantee(mu2, provenance)
    if mu2 > 0.0:
        # sigma rounded down so that mu = 1/sigma is never below sqrt(mu2)
        sigma = (1.0 / math.sqrt(mu2)) * (1.0 - 4 * MACHINE_EPSILON)
        if not sigma > 0.0:
            raise MethodNotApplicableError(
                f"pld: the Gaussian mechanisms' sum of mu^2 = {mu2!r} overflows a double (noise "
                f"far too small for a loss grid); use method='rdp' or 'simple'.")
        plan.append((Gaussian(sigma=sigma), 1))
    # a non-private member (infinite epsilon, not subsampled) makes everything non-private
    for m, _ in plan:
        if not isinstance(m, Subsampled) and atomic_epsilon(m) == math.inf:
            provenance["pld"] = {"non_private": describe(m)}
            return Guarantee("pld", delta_upper=lambda e: 1.0, epsilon_upper=lambda d: math.inf,
                             exact=True, provenance=provenance)
    if len(plan) == 1 and plan[0][1] == 1 and type(plan[0][0]) is Laplace:
        return _laplace_guarantee(plan[0][0], provenance)
    acc = _accountant(plan, tol, h_fixed, tail, max_pts)
    provenance["pld"] = acc.info
    provenance["error_budget"] = acc.info["error_budget"]
    if "coarsened" in acc.info:
        provenance["caveats"] = [f"pld: {acc.info['coarsened']}"]
    lower = acc.has_lower
    return Guarantee(
        "pld",
        delta_upper=acc.delta_upper,
        epsilon_upper=acc.epsilon_upper,
        delta_lower=acc.delta_lower if lower else None,
        epsilon_lower=acc.epsilon_lower if lower else None,
        provenance=provenance,
    )
