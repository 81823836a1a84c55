"""Extremes of pld and optimal (issue 9, items 6a, 6b, 9, 12).

Every reproduction from the issue gets the truth (or a certified bound on the safe side
of it) or a clear MethodNotApplicableError; never an OverflowError, a nan, an inf where
a finite answer is exact, or a grid beyond ``max_points``. Truth is independent of the
code under test: closed forms and enumerations in mpmath (``tests/oracles``), and for
the compositions whose truth is "delta is 1" the mass of infinite loss, 1 - (1 - delta)^k.
Caps are tested by a clear error or a coarse answer that still brackets the truth, never
by measuring memory.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest

import dpcompose as dpc
from dpcompose.methods.pld.grid import GridPLD, GridTooLargeError, _pow_excess, compose_pair, self_compose
from dpcompose.mechanisms import describe
from dpcompose.report import compare, to_dict, to_markdown
from oracles import kov_delta_mp
from oracles.laplace import (epsilon_bracket_mp, laplace2_delta_mp, laplace_delta_mp, laplace_epsilon_mp,
                             laplace_kfold_delta_mp)


@pytest.fixture(autouse=True, scope="module")
def _mp_precision():
    """50 digits for this module's mpmath oracles, given back afterwards (never set globally:
    a global setting leaks into other modules' references)."""
    with mp.workdps(50):
        yield


# ---------------------------------------------------------------------------
# 6a: overflow from huge counts of (eps, delta)-DP mechanisms


@pytest.mark.parametrize("base,extra,k", [
    (0.99, 0.01, 10**5),             # base^k underflows while (1 + extra/base)^k overflows
    (1.0 - 1e-5, 1e-5, 10**8),
    (0.5, 0.5, 3000),
    (1.0 + 1e-10, 1e-3, 10**9),      # inflated masses (MASS_SAFETY) over many copies
    (0.3, 1e-300, 7),
    (1e-300, 1e-300, 2),
    (0.9, 1e-20, 10**9),
])
def test_pow_excess_never_overflows_and_rounds_outward(base, extra, k):
    """(base + extra)^k - base^k, against mpmath; up >= exact >= down, inf only beyond doubles."""
    b, x = mp.mpf(base), mp.mpf(extra)
    exact = b ** k * mp.expm1(k * mp.log1p(x / b))  # (b + x)^k - b^k without cancellation
    up, down = _pow_excess(base, extra, k, up=True), _pow_excess(base, extra, k, up=False)
    assert not math.isnan(up) and not math.isnan(down)
    if exact > mp.mpf("1.7e308"):
        assert up == math.inf
        return
    assert up >= exact and down <= exact
    assert up <= exact * (1 + 1e-9) + mp.mpf("5e-324")


@pytest.mark.parametrize("eps,delta,k", [(0.1, 0.01, 10**5), (0.1, 1e-5, 10**8)])
@pytest.mark.parametrize("method", ["pld", "optimal", "auto"])
def test_approx_dp_huge_count_answers_instead_of_overflowing(eps, delta, k, method):
    """Reproduction: OverflowError from pld/auto (CLI exit 1). The truth: the mass of infinite
    loss 1 - (1 - delta)^k is 1 - e^{-1005} (resp. 1 - e^{-1000}), so delta(e) rounds to 1 for
    every e and epsilon(d) is infinite for every d < 1."""
    inf_mass = 1 - (1 - mp.mpf(delta)) ** k
    g = dpc.compose([(dpc.ApproxDP(eps, delta), k)], method=method)
    for e in (0.0, 1.0, 50.0, 1e4):
        assert g.delta(e) >= float(inf_mass)  # the double nearest 1 - e^{-1000} is 1.0
    for d in (1e-5, 0.5, 1.0 - 1e-12):
        assert g.epsilon(d) == math.inf
    lo, hi = g.epsilon_bounds(1e-5)
    assert lo <= hi == math.inf


def test_approx_dp_infinite_mass_below_one_gives_the_finite_kov_answer():
    """(1, 1e-3) x 10 at delta just above the infinite mass 1 - 0.999^10: the truth is finite
    (KOV, mpmath) and at most the sum of epsilons; pld and optimal give it, not inf."""
    k, eps, dlt = 10, 1.0, 1e-3
    inf_mass = 1 - (1 - mp.mpf(dlt)) ** k

    def exact(e):
        return 1 - (1 - mp.mpf(dlt)) ** k * (1 - kov_delta_mp(eps, k, e))

    target = float(inf_mass) * (1 + 1e-8)
    lo_x, hi_x = epsilon_bracket_mp(exact, target, hi=16.0)
    for method in ("pld", "optimal"):
        g = dpc.compose([(dpc.ApproxDP(eps, dlt), k)], method=method)
        lo, hi = g.epsilon_bounds(target)
        assert hi >= lo_x and hi <= 10.0 * (1 + 1e-9), method
        assert lo <= hi_x, method


# ---------------------------------------------------------------------------
# 6b: grids bounded by max_points, refusals that name the remedy


@pytest.mark.parametrize("mech", [dpc.Laplace(1e-6), dpc.Laplace(1.0, sensitivity=1e6),
                                  dpc.Laplace(1.0), dpc.Laplace(20.0), dpc.Laplace(1e-300),
                                  dpc.Laplace(1e300)])
@pytest.mark.parametrize("method", ["pld", "auto", "optimal"])
def test_one_laplace_any_epsilon_is_answered_on_the_safe_side(mech, method):
    """Reproduction: a 15 GiB allocation for Laplace(1e-6). One Laplace mechanism needs no
    grid: pld answers with its closed form (exact, both bounds), auto and optimal from the
    pure-DP bound (optimal refuses losses beyond ~1e15, which doubles do not resolve).
    Truth: epsilon(delta) = eps + 2 log(1 - delta), delta(e) = 1 - e^{(e - eps)/2}."""
    eps = mech.epsilon
    if method == "optimal" and eps > 1e15:
        with pytest.raises(dpc.MethodNotApplicableError, match="simple"):
            dpc.compose([mech], method=method)
        return
    g = dpc.compose([mech], method=method)
    # pld takes eps = sensitivity / scale exactly; the other methods take the double
    # Laplace.epsilon, rounded to nearest (see the xfail test below)
    eps_true = mp.mpf(mech.sensitivity) / mp.mpf(mech.scale) if method == "pld" else mp.mpf(eps)
    for d in (0.0, 1e-300, 1e-12, 1e-6, 0.5, 0.999):
        exact = laplace_epsilon_mp(eps_true, d)
        lo, hi = g.epsilon_bounds(d)
        assert lo <= exact <= hi <= eps * (1 + 1e-12) + 1e-300
        assert g.delta(hi) <= d
    for e in (0.0, eps * 0.5, eps * (1 - 1e-12), eps, 2 * eps):
        exact = laplace_delta_mp(eps_true, e)
        lo, hi = g.delta_bounds(e)
        assert lo <= exact <= hi
        if method == "pld" and e <= eps * 0.5:
            assert hi <= exact * (1 + 1e-12) + 1e-300  # exact, up to rounding


@pytest.mark.parametrize("method", ["optimal", "simple"])
def test_laplace_epsilon_is_never_below_sensitivity_over_scale(method):
    mech = dpc.Laplace(1e-6)
    exact = laplace_epsilon_mp(mp.mpf(mech.sensitivity) / mp.mpf(mech.scale), 1e-12)
    assert dpc.compose([mech], method=method).epsilon(1e-12) >= exact  # 1000000.00000000004


@pytest.mark.parametrize("mechs", [[(dpc.Laplace(1e-6), 2)], [dpc.Laplace(1e-6), dpc.PureDP(1.0)]])
def test_huge_epsilon_laplace_compositions_are_refused_by_pld_and_answered_by_auto(mechs):
    """A composition with a 1e6-DP Laplace: pld refuses before building (naming max_points and
    the methods that can); auto answers from them, on the safe side of the truth (for two
    copies the Gamma-mixture profile, mpmath; it errs low by at most 2 e^{-1e6})."""
    with pytest.raises(dpc.MethodNotApplicableError, match="max_points") as exc:
        dpc.compose(mechs, method="pld")
    assert "optimal" in str(exc.value)
    g = dpc.compose(mechs, method="auto")
    total = sum((m.epsilon * k for m, k in ((x, 1) if not isinstance(x, tuple) else x for x in mechs)))
    for d in (1e-12, 1e-6):
        assert g.epsilon(d) <= total * (1 + 1e-12)
    if mechs[0] == (dpc.Laplace(1e-6), 2):
        for e in (0.0, 2e6 - 50.0, 2e6 - 1.0):
            assert g.delta(e) >= laplace_kfold_delta_mp(1e6, 2, e)
        lo_x, _ = epsilon_bracket_mp(lambda e: laplace_kfold_delta_mp(1e6, 2, e), 1e-6, hi=2e6)
        assert g.epsilon(1e-6) >= lo_x


def test_large_epsilon_laplace_gets_a_coarser_certified_grid():
    """Laplace(1e-3) x 2 (epsilon 1000 each) with a small max_points: a grid coarse enough to
    fit, said so in the provenance, and a bracket around the truth (Gamma mixture, mpmath)."""
    g = dpc.compose([(dpc.Laplace(1e-3), 2)], method="pld", max_points=2 ** 17)
    info = g.provenance["pld"]
    assert info["grids"][0]["points"] <= 2 ** 17
    assert "coarsened" in info and any("grid spacing" in c for c in g.provenance["caveats"])
    for d in (1e-9, 1e-3, 0.3):
        lo, hi = g.epsilon_bounds(d)
        lo_x, hi_x = epsilon_bracket_mp(lambda e: laplace_kfold_delta_mp(1000.0, 2, e), d, hi=2000.0)
        assert lo <= hi_x and hi >= lo_x  # the kfold oracle errs low by 2 e^{-1000} only
        assert hi <= 2000.0 * (1 + 1e-9)


def test_coarsened_two_fold_laplace_brackets_the_quadrature_truth():
    """Laplace(0.05) x 2 (epsilon 20 each) with max_points = 4096: the coarse grid still
    brackets the exact two-fold profile (mpmath quadrature)."""
    g = dpc.compose([(dpc.Laplace(0.05), 2)], method="pld", max_points=2 ** 12)
    assert g.provenance["pld"]["grids"][0]["h"] >= 40 / (2 ** 12 / 2) * 0.99  # span / budget
    for e in (0.0, 10.0, 30.0, 39.0):
        lo, hi = g.delta_bounds(e)
        exact = laplace2_delta_mp(20.0, e)
        assert lo <= exact * (1 + 1e-12) and hi >= exact * (1 - 1e-12)


def test_huge_count_of_large_epsilon_laplace_is_bounded():
    """Reproduction: Laplace(1e-3) x 10^6 ran for minutes. Now the grid is coarsened by the
    factor the Chernoff window needs (here under a small max_points), and the answer lies
    between an independent lower bound on the truth and simple composition (1e9).

    Lower bound: the loss of one copy is eps - 2 min(X+, eps) with X ~ Lap(0, 1), so the sum
    is at least k eps - 2 S, S a sum of k independent X+ (mean 1/2, variance 3/4). Cantelli:
    P(S <= k/2 + sd) >= 1/2, so delta(e) >= (1 - e^{-1})/2 > 1e-6 at
    e = k eps - k - 2 sd - 1, hence epsilon(1e-6) >= that e.
    """
    k, eps = 10 ** 6, 1000.0
    g = dpc.compose([(dpc.Laplace(1e-3), k)], method="pld", max_points=2 ** 18)
    lo, hi = g.epsilon_bounds(1e-6)
    floor = k * eps - k - 2 * math.sqrt(0.75 * k) - 1
    assert floor <= hi <= k * eps
    assert lo <= hi
    assert g.provenance["pld"]["grids"][0]["points"] <= 2 ** 18


def test_window_narrower_than_one_copy_keeps_its_mass():
    """Regression (found while testing 6b): when the composed window is narrower than one
    copy's grid (a Laplace with epsilon 500 spans [-500, 500], its 50-fold mass sits within a
    few hundred of 25000), the input was cropped to the window (rfft(x, N) with N < x.size)
    and the top atom lost: epsilon(1e-6) of 1000 x Laplace(2e-3) was 0.0. The input is now
    folded modulo N. Truth: the Gamma-mixture profile (mpmath), which errs low by at most
    k e^{-500}."""
    k, eps = 50, 500.0
    g = dpc.compose([(dpc.Laplace(2e-3), k)], method="pld")
    grid = g.provenance["pld"]["grids"][0]
    assert grid["points"] < 2 * eps / grid["h"]  # the window is narrower than one copy
    lo, hi = g.epsilon_bounds(1e-6)
    slack = k * mp.exp(-eps)
    assert laplace_kfold_delta_mp(eps, k, hi) <= 1e-6             # (hi, 1e-6) holds
    assert laplace_kfold_delta_mp(eps, k, lo) + slack >= 1e-6     # (lo, 1e-6) does not
    for e in (k * eps - 200.0, k * eps - 60.0, k * eps - 5.0):
        d_lo, d_hi = g.delta_bounds(e)
        exact = laplace_kfold_delta_mp(eps, k, e)
        assert d_lo <= exact + slack and d_hi >= exact


def test_fixed_discretization_too_fine_is_refused_with_the_minimum():
    with pytest.raises(dpc.MethodNotApplicableError, match="discretization"):
        dpc.compose([(dpc.Laplace(1e-3), 2)], method="pld", discretization=1e-6, max_points=2 ** 17)


def test_grid_too_large_is_raised_before_allocating():
    p = np.full(3000, 1.0 / 3000)
    g = GridPLD("upper", 0.01, -1500, p)
    with pytest.raises(GridTooLargeError) as exc:
        self_compose(g, 10 ** 6, 1e-16, 2 ** 12)
    assert exc.value.points > 2 ** 12 and exc.value.max_points == 2 ** 12
    with pytest.raises(GridTooLargeError):
        compose_pair(g, g, 1e-16, max_points=4096)


@pytest.mark.parametrize("mechs", [
    [dpc.Gaussian(1e-200), dpc.Laplace(1.0)],      # sum of mu^2 overflows
    [dpc.Gaussian(1e-12), dpc.Laplace(1.0)],       # loss spans ~1e13
])
def test_absurdly_small_gaussian_noise_in_a_mix_is_refused_clearly(mechs):
    with pytest.raises(dpc.MethodNotApplicableError, match="pld"):
        dpc.compose(mechs, method="pld")


# ---------------------------------------------------------------------------
# 9: reports use the library default grid and say when numerics dominate


def _kov_epsilon_bracket(eps, k, delta):
    return epsilon_bracket_mp(lambda e: kov_delta_mp(eps, k, e), delta, hi=float(k * eps))


def test_report_pld_row_is_not_simple_composition_at_small_delta():
    """Reproduction: 50 x 0.5-DP at delta 1e-10 showed 25.0000 (simple composition) in the
    report while compose(method="pld") gives 23.9561. The row now equals the library default
    and lies within 1e-4 relative above the exact KOV value (mpmath)."""
    rep = compare([(dpc.PureDP(0.5), 50)], deltas=(1e-10,), methods=["pld"])
    (row,) = rep.rows
    lo_x, hi_x = _kov_epsilon_bracket(0.5, 50, 1e-10)
    assert lo_x <= row.upper <= hi_x * (1 + 1e-4)
    assert row.lower <= hi_x
    assert row.caveats == []
    g = dpc.compose([(dpc.PureDP(0.5), 50)], method="pld")
    assert row.upper == g.epsilon(1e-10)


def test_report_marks_rows_whose_numerical_error_dominates_delta():
    """A fixed fine grid (discretization = 1e-4) has an FFT error budget above 1e-10: the row is
    valid (>= exact) but loose, and the table, Markdown and JSON say why."""
    rep = compare([(dpc.PureDP(0.5), 50)], deltas=(1e-10, 1e-3), methods=["pld"],
                  options={"pld": {"discretization": 1e-4}})
    small, large = sorted(rep.rows, key=lambda r: r.target)
    lo_x, _ = _kov_epsilon_bracket(0.5, 50, 1e-10)
    assert small.upper >= lo_x
    assert small.caveats and "numerical error" in small.caveats[0]
    assert large.caveats == []
    md = to_markdown(rep)
    assert "†" in md and "numerical error" in md
    rows = to_dict(rep)["rows"]
    assert rows[0]["caveats"] or rows[1]["caveats"]


def test_error_budget_is_in_the_provenance_and_bounds_what_numerics_add():
    g = dpc.compose([(dpc.Subsampled(dpc.Gaussian(1.0), 0.01), 100)], method="pld")
    budget = g.provenance["error_budget"]["delta"]
    assert 0.0 < budget < 1e-6
    # the upper delta far beyond every finite loss is the (tail) mass at +inf, below the budget
    # plus the tail mass
    assert g.delta(1e6) <= budget + 1e-14


# ---------------------------------------------------------------------------
# 12: finite answers where a finite one is exact


def test_pure_dp_composition_at_delta_zero_is_the_sum():
    """Reproduction: optimal and pld returned inf at delta 0 or 1e-300 for PureDP(1) x 1000; the
    truth is 1000 at delta 0 (pure DP composes to the sum), and at 1e-300 it is
    1000 + log(1 - 1e-300 / p_top) with p_top = (e / (1 + e))^1000 (mpmath)."""
    p_top = (mp.e / (1 + mp.e)) ** 1000
    truth = {0.0: mp.mpf(1000), 1e-300: 1000 + mp.log1p(-mp.mpf(1e-300) / p_top)}
    for method in ("pld", "optimal", "auto"):
        g = dpc.compose([(dpc.PureDP(1.0), 1000)], method=method)
        for d, t in truth.items():
            lo, hi = g.epsilon_bounds(d)
            assert t <= hi <= 1000 * (1 + 1e-12), (method, d, hi)
            assert lo <= t, (method, d, lo)
            assert lo >= 999.0, (method, d, lo)  # useful, not the trivial 0


@pytest.mark.parametrize("mechs,path", [
    ([(dpc.PureDP(1.0), 1000)], "kov"),
    ([(dpc.PureDP(1.0), 30), (dpc.PureDP(0.5), 20)], "exact-enumeration"),
    ([(dpc.PureDP(0.01), 10 ** 6), (dpc.PureDP(0.5), 3), (dpc.PureDP(0.3), 2)], None),
    ([dpc.PureDP(0.1 + 0.01 * i) for i in range(40)], "lattice"),
])
def test_optimal_epsilon_at_delta_zero_on_every_path(mechs, path):
    """Pure DP composes to (sum of epsilons, 0): optimal's upper bound at delta 0 and 1e-300 is
    finite and at least the truth (which is at most the sum) on every computation path."""
    g = dpc.compose(mechs, method="optimal")
    if path is not None:
        assert g.provenance["path"] == path
    total = math.fsum(m.epsilon * k for m, k in
                      ((x, 1) if isinstance(x, dpc.PureDP) else x for x in mechs))
    width = g.provenance["error"] or 0.0  # the lattice rounds each epsilon up by < eta
    for d in (0.0, 1e-300):
        lo, hi = g.epsilon_bounds(d)
        assert lo <= total * (1 + 1e-12) and hi <= (total + width) * (1 + 1e-9)
    assert g.epsilon(0.0) >= total * (1 - 1e-12)  # the truth at delta 0 is the sum


@pytest.mark.parametrize("mechs,top,top_heavy", [
    ([(dpc.PureDP(0.01), 10 ** 5)], 1000.0, False),                       # aliased Chernoff window
    ([(dpc.RandomizedResponse(0.3), 40), (dpc.Laplace(2.0), 10)], 17.0, True),
    ([(dpc.Subsampled(dpc.PureDP(1.0), 0.1), 300)], 300 * math.log1p(0.1 * math.expm1(1.0)), False),
])
def test_pld_epsilon_at_delta_zero_is_the_largest_loss(mechs, top, top_heavy):
    """With no infinite loss, epsilon(0) is the largest loss of the composition (the sum of the
    per-mechanism maxima): pld answers it up to its grid, never inf. At delta 1e-300 the same
    holds where the top atom's mass exceeds 1e-300 (``top_heavy``: 2e-13 here); elsewhere the
    truth lies below the top (1e5 x PureDP(0.01): ~121.78, whose top mass is e^{-68800}), and
    the tilted composition finds it (checked against the binomial sum in
    ``tests/test_pld_tilted.py``)."""
    g = dpc.compose(mechs, method="pld")
    h = g.provenance["pld"]["grids"][0]["h"]
    n = sum(k for _, k in mechs)
    for d in (0.0, 1e-300):
        e = g.epsilon(d)
        assert e <= top + n * h + 1e-9
        if d == 0.0 or top_heavy:
            assert top * (1 - 1e-12) <= e
    assert g.delta(top + n * h + 1e-6) == 0.0


@pytest.mark.parametrize("eps,k,frac", [(0.5, 100, 0.99), (1.0, 60, 0.98), (0.3, 200, 0.995)])
def test_tiny_top_masses_lost_by_the_fft_are_still_counted(eps, k, frac):
    """Regression (found by a randomized audit against KOV): near the largest loss the exact
    delta is tiny (100 x RR(0.5) at 49.5: 1.0e-21, the top atom's mass times 1 - e^{-1/2});
    the FFT rounds such entries to zero and the trim dropped them, and pld returned 0. The
    round-off bound err now counts up to the largest loss of the exact composition."""
    e = k * eps * frac
    g = dpc.compose([(dpc.RandomizedResponse(eps), k)], method="pld")
    lo, hi = g.delta_bounds(e)
    exact = kov_delta_mp(eps, k, e)
    assert lo <= exact <= hi


@pytest.mark.parametrize("mechs", [
    [(dpc.Laplace(1.0), 3)],
    [dpc.Laplace(2.0), dpc.Gaussian(3.0)],
    [(dpc.Subsampled(dpc.Gaussian(1.0), 0.01), 100)],
    [(dpc.Subsampled(dpc.Gaussian(0.8), 0.1), 10)],
    [(dpc.Subsampled(dpc.Laplace(0.5), 0.1), 10)],
    [(dpc.ApproxDP(1.0, 1e-8), 3)],
    [(dpc.Subsampled(dpc.PureDP(1.0), 0.1), 20)],
    [dpc.Gaussian(1.0), (dpc.Laplace(1.0), 50)],
    [(dpc.PureDP(0.1), 1000)],
])
def test_pld_queries_agree_where_delta_is_below_the_error_floor(mechs):
    """epsilon(delta(e)) <= e and delta(epsilon(d)) <= d, also where delta(e) is tiny (below
    the numerical error floor) or exactly the mass at +inf: never inf for a finite e."""
    g = dpc.compose(mechs, method="pld")
    for e in (0.5, 1.0, 5.0, 20.0, 50.0, 1e3):
        d = g.delta(e)
        assert g.epsilon(d) <= e * (1 + 1e-9) + 1e-12, (e, d)
    for d in (1e-3, 1e-9, 1e-15, 0.0):
        e = g.epsilon(d)
        if math.isfinite(e):
            assert g.delta(e) <= d, (d, e)


@pytest.mark.parametrize("mechs", [
    [dpc.Gaussian(1.0), dpc.Laplace(1.0)],
    [(dpc.Subsampled(dpc.Gaussian(1.0), 0.01), 100)],
    [dpc.Subsampled(dpc.Gaussian(2.0), 0.1, "without_replacement"), dpc.PureDP(1.0)],
    [(dpc.Gaussian(5.0), 10), (dpc.RandomizedResponse(0.5), 3)],
])
def test_pld_delta_is_positive_for_unbounded_loss(mechs):
    """Gaussian noise has unbounded loss: its true delta(e) is positive at every finite e, so
    a certified upper bound is never exactly 0."""
    g = dpc.compose(mechs, method="pld")
    for e in (10.0, 50.0, 1e3, 1e6, 1e300):
        assert g.delta(e) > 0.0


# ---------------------------------------------------------------------------
# the contract at the extremes: an answer in range or a clear refusal


_EXTREME_MECHS = [
    dpc.PureDP(1.0), dpc.PureDP(50.0), dpc.PureDP(math.inf), dpc.ApproxDP(0.5, 1e-6),
    dpc.ApproxDP(50.0, 0.5), dpc.Laplace(1e6), dpc.Laplace(1e-6), dpc.RandomizedResponse(50.0),
    dpc.Subsampled(dpc.PureDP(1.0), 1e-9), dpc.Subsampled(dpc.Laplace(0.02), 0.5),
    dpc.PureDP(1e300), dpc.Laplace(1e-300), dpc.RandomizedResponse(1e8),
]


@pytest.mark.parametrize("mech", _EXTREME_MECHS, ids=describe)
@pytest.mark.parametrize("k", [1, 10 ** 9])
@pytest.mark.parametrize("method", ["pld", "optimal"])
def test_extremes_answer_or_refuse(mech, k, method):
    """eps in {0, 50, inf}, delta in {0, 1e-300, 1}, k in {1, 10^9}, tiny and huge noise."""
    if method == "pld" and k == 10 ** 9 and isinstance(mech, dpc.Subsampled) and mech.rate == 0.5:
        pytest.skip("a billion subsampled Laplace copies take ~10 s; huge counts: test_huge_count_of_large_epsilon_laplace_is_bounded")
    try:
        g = dpc.compose([(mech, k)], method=method)
    except dpc.MethodNotApplicableError as exc:
        assert method in str(exc) or "pld" in str(exc)
        return
    for d in (0.0, 1e-300, 1e-10, 1.0):
        lo, hi = g.epsilon_bounds(d)
        assert not math.isnan(lo) and not math.isnan(hi)
        assert 0.0 <= lo <= hi * (1 + 1e-12) + 1e-12
    assert g.epsilon(1.0) == 0.0
    prev = 1.0
    for e in (0.0, 1.0, 50.0, 1e6, math.inf):
        lo, hi = g.delta_bounds(e)
        assert 0.0 <= lo <= hi <= 1.0
        assert hi <= prev
        prev = hi
