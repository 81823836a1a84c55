"""Reports against independent truth: exact optimal composition (mpmath), closed forms for
simple and advanced composition, the paper's Example 1 reduction; plots; number formatting."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import mpmath as mp
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dpcompose as dpc
from dpcompose import report as R
from dpcompose.plan import bundled_plan, load_plan, parse_plan
from oracles.precision import at_least_digits

ROOT = Path(__file__).resolve().parents[1]


# --- independent oracle: exact optimal composition of k copies of eps0-DP -----------------
# The k-fold composition of eps0-DP mechanisms is dominated by k-fold randomized response
# (Kairouz, Oh and Viswanath 2015). With p = e^eps0/(1+e^eps0) and i ~ Bin(k, p) agreements,
# the privacy loss is (2i - k) eps0, so
#   delta(eps) = sum_i C(k, i) [p^i (1-p)^(k-i) - e^eps (1-p)^i p^(k-i)]_+ .
# eps(delta) is found by bisection at 50 digits.
@at_least_digits(40)
def exact_pure_epsilon(k: int, eps0: float, delta: float) -> float:
    e0 = mp.mpf(eps0)
    p = mp.e**e0 / (1 + mp.e**e0)
    a = [mp.binomial(k, i) * p**i * (1 - p) ** (k - i) for i in range(k + 1)]
    b = [mp.binomial(k, i) * (1 - p) ** i * p ** (k - i) for i in range(k + 1)]

    def d(eps):
        g = mp.e**eps
        return mp.fsum(x - g * y for x, y in zip(a, b) if x > g * y)

    lo, hi = mp.mpf(0), mp.mpf(k * eps0)
    for _ in range(60):
        mid = (lo + hi) / 2
        if d(mid) > delta:
            lo = mid
        else:
            hi = mid
    return float(hi)


EXACT_100 = exact_pure_epsilon(100, 0.1, 1e-6)


def test_oracle_matches_the_known_value():
    assert abs(EXACT_100 - 4.7746) < 5e-5


def _advanced(k: int, eps0: float, delta_prime: float) -> float:
    return math.sqrt(2 * k * math.log(1 / delta_prime)) * eps0 + k * eps0 * math.expm1(eps0)


def _pure_at(eps: float, delta: float) -> float:
    """eps(delta) of an eps-DP mechanism's worst case (randomized response): the parallel
    row is (s * eps)-DP, and the library answers with that class's exact profile."""
    return math.log(math.exp(eps) - delta * (1 + math.exp(eps)))


def _assert_parallel(row, eps: float, delta: float = 1e-6) -> None:
    truth = _pure_at(eps, delta)
    assert truth - 1e-12 <= row.upper <= truth + 1e-9


def _rows(rep, kind="epsilon", scope=R.SCOPE_CLASSIC):
    return {r.method: r for r in rep.rows if r.kind == kind and r.scope == scope}


def test_pure_dp_table_against_truth():
    rep = R.build_report(load_plan(ROOT / "examples" / "pure_dp_100.toml"))
    rows = _rows(rep)
    assert rows, "no method produced a row"
    for name, r in rows.items():
        assert r.upper >= EXACT_100 - 1e-9, name          # never under-report
        if r.lower is not None:
            assert r.lower <= EXACT_100 + 1e-9, name      # lower bounds are lower
    if "simple" in rows:
        assert 10.0 <= rows["simple"].upper <= 10.0 + 1e-9
    if "advanced" in rows:
        adv = _advanced(100, 0.1, 1e-6)
        assert adv - 1e-9 <= rows["advanced"].upper <= adv + 1e-6
        assert f"{rows['advanced'].upper:.2f}" == "6.31"
    if "optimal" in rows:
        assert EXACT_100 <= rows["optimal"].upper + 1e-12 <= EXACT_100 + 1e-4
    best = rep.best("epsilon", 1e-6)
    assert best is not None and best.upper == min(r.upper for r in rows.values() if r.certified)
    assert sum(r.tightest for r in rep.rows if r.kind == "epsilon") == 1


def test_report_rows_agree_with_the_python_api():
    plan = load_plan(ROOT / "examples" / "heterogeneous.toml")
    rep = R.build_report(plan)
    mechs = plan.composition()
    opts = R.report_options(plan.spec.options)  # the same per-method options the report used
    for r in rep.rows:
        g = dpc.compose(mechs, method=r.method, **opts.get(r.method, {}))
        if r.kind == "epsilon":
            assert r.upper == g.epsilon(r.target)
        else:
            assert r.upper == g.delta(r.target)
    skipped = {s.method for s in rep.skipped}
    assert set(_rows(rep)) | skipped == set(R.composition_methods())


def test_hospitals_membership_reduces_to_365_databases():
    rep = R.build_report(bundled_plan("hospitals"))
    classic = _rows(rep)
    member = {r.method: r for r in rep.rows if r.kind == "epsilon" and r.scope != R.SCOPE_CLASSIC}
    # parallel composition (paper Sec. V-A1): (365 * 0.01)-DP, read at delta 1e-6
    _assert_parallel(member["parallel"], 3.65)
    if "simple" in classic:
        assert 10.0 <= classic["simple"].upper <= 10.0 + 1e-9
        assert 3.65 - 1e-12 <= member["simple"].upper <= 3.65 + 1e-9
    best = rep.best("epsilon", 1e-6)
    assert best.scope != R.SCOPE_CLASSIC
    assert best.upper < min(r.upper for r in classic.values())


def test_membership_rows_never_below_the_exact_worst_case():
    # the hospitals structure with pure-DP descriptions, so the exact value is known:
    # at most 3 of 8 databases, unbounded -> the optimal composition of 3 x 0.2-DP
    plan = parse_plan("""
[[databases]]
name = "h"
count = 8
[[invocations]]
mechanism = "pure(0.2)"
database = "h"
[membership]
max_databases = 3
[targets]
deltas = [1e-6, 0.01]
""")
    rep = R.build_report(plan)
    for d in (1e-6, 0.01):
        exact = exact_pure_epsilon(3, 0.2, d)
        rows = [r for r in rep.rows if r.scope != R.SCOPE_CLASSIC and r.target == d]
        assert rows
        for r in rows:
            assert r.upper >= exact - 1e-9, r.method
            if r.method == "optimal":
                assert r.upper <= exact + 1e-6


def test_subsidiaries_example_is_one_database():
    rep = R.build_report(load_plan(ROOT / "examples" / "subsidiaries.toml"))
    # exact truth: one Laplace(scale=10) query, eps(delta) = 0.1 + 2 log(1 - delta)
    truth = 0.1 + 2 * math.log1p(-1e-6)
    member = [r for r in rep.rows if r.scope != R.SCOPE_CLASSIC]
    assert member
    for r in member:
        assert r.upper >= truth - 1e-12, r.method
    by = {r.method: r for r in member}
    _assert_parallel(by["parallel"], 0.1)
    if "simple" in by:
        assert 0.1 - 1e-12 <= by["simple"].upper <= 0.1 + 1e-9
        assert 1.5 - 1e-9 <= _rows(rep)["simple"].upper <= 1.5 + 1e-9


def test_software_columns_example_composes_nine_columns():
    rep = R.build_report(load_plan(ROOT / "examples" / "software_columns.toml"))
    by = {r.method: r for r in rep.rows if r.scope != R.SCOPE_CLASSIC}
    if "simple" in by:    # simple composition of the 9 columns of a paid user: 9 * 0.05
        assert 0.45 - 1e-12 <= by["simple"].upper <= 0.45 + 1e-9
        assert 0.6 - 1e-12 <= _rows(rep)["simple"].upper <= 0.6 + 1e-9


def _uniform_prior_exact(k: int, eps0: float, delta: float, eps: float) -> tuple[float, float]:
    """Brute force over the 2^k outputs of k randomized-response queries.

    Under p0 (in no database) the output law is P0; under p1 (uniform over the 2^k - 1
    non-zero membership vectors) it is P1(y) = (1 - P0(y)) / (2^k - 1), because each RR
    query's two output laws sum to 1 at every output. Both directions count.
    """
    import itertools

    import numpy as np

    p = math.exp(eps0) / (1 + math.exp(eps0))
    ys = np.array(list(itertools.product([0, 1], repeat=k)))
    P0 = np.prod(np.where(ys == 0, p, 1 - p), axis=1)
    P1 = (1 - P0) / (2**k - 1)

    def d(e):
        g = math.exp(e)
        return max(np.maximum(P1 - g * P0, 0).sum(), np.maximum(P0 - g * P1, 0).sum())

    lo, hi = 0.0, k * eps0
    for _ in range(100):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if d(mid) > delta else (lo, mid)
    return hi, d(eps)


def test_uniform_prior_example_against_brute_force():
    rep = R.build_report(load_plan(ROOT / "examples" / "uniform_prior.toml"))
    eps_exact, delta_exact = _uniform_prior_exact(10, 0.5, 1e-6, 1.0)
    (e_row,) = [r for r in rep.rows if r.method == "hdp" and r.kind == "epsilon"]
    (d_row,) = [r for r in rep.rows if r.method == "hdp" and r.kind == "delta"]
    assert eps_exact - 1e-9 <= e_row.upper <= eps_exact + 1e-3
    assert delta_exact - 1e-12 <= d_row.upper <= delta_exact * (1 + 1e-3)
    if e_row.lower is not None:
        assert e_row.lower <= eps_exact + 1e-9
    assert rep.best("epsilon", 1e-6) is e_row


def test_compare_lists_unavailable_methods_with_reasons():
    rep = R.compare([(dpc.Gaussian(2.0), 10)], deltas=[1e-5], epsilons=[1.0])
    for s in rep.skipped:
        assert s.reason
    for r in rep.rows:
        assert 0 <= r.upper and not math.isnan(r.upper)


def test_unknown_method_is_an_input_error():
    with pytest.raises(dpc.InvalidParameterError, match=r"methods\[1\] = 'magic'"):
        parse_plan('methods = ["simple", "magic"]\n[[invocations]]\nmechanism = "pure(0.1)"\n')
    plan = parse_plan('[[invocations]]\nmechanism = "pure(0.1)"\n')
    with pytest.raises(dpc.InvalidParameterError, match=r"methods\[0\] = 'magic'"):
        R.build_report(plan, methods=["magic"])


@pytest.mark.parametrize("ext", [".png", ".svg", ".html"])
def test_plot_files(tmp_path, ext):
    rep = R.build_report(load_plan(ROOT / "examples" / "pure_dp_100.toml"))
    path = R.write_plot(rep, tmp_path / f"plot{ext}")
    data = path.read_bytes()
    assert len(data) > 1000
    if ext == ".png":
        from PIL import Image

        with Image.open(path) as im:
            im.verify()
        with Image.open(path) as im:
            assert im.size == R.PLOT_SIZE_PX
    else:
        text = data.decode()
        assert "<svg" in text and not re.search(r"\bnan\b", text, re.IGNORECASE)
        if ext == ".html":
            assert "<table>" in text and "★" in text


def test_plot_rejects_other_extensions(tmp_path):
    rep = R.compare([dpc.PureDP(1.0)], deltas=[1e-6])
    with pytest.raises(dpc.InvalidParameterError, match=".png, .svg, .pdf or .html"):
        R.write_plot(rep, tmp_path / "x.bmp")


def test_json_and_markdown_views():
    rep = R.build_report(load_plan(ROOT / "examples" / "pure_dp_100.toml"))
    d = json.loads(R.to_json(rep))
    assert d["rows"] and all("provenance" in r and "status" in r for r in d["rows"])
    md = R.to_markdown(rep)
    assert "| method |" in md and "★" in md


@pytest.mark.parametrize(
    "x, up, low",
    [(4.77459, "4.7746", "4.7745"), (10.0, "10", "10"), (10.000000000000002, "10.001", "10.000"),
     (math.inf, "∞", "∞"), (1.23456e-7, "1.2346e-07", "1.2345e-07"), (0.0, "0", "0"),
     (0.0012345, "0.0012345", "0.0012344"), (2845.1124, "2845.2", "2845.1"), (0.5, "0.5", "0.5")],
)
def test_display_rounds_upper_bounds_up_and_lower_bounds_down(x, up, low):
    """Five significant digits at every magnitude; exact values without trailing zeros."""
    assert R.fmt_upper(x) == up
    assert R.fmt_lower(x) == low
    assert R.fmt_lower(None) == "—"
    assert R.fmt_upper(3.2e-5, "delta") == "3.2000e-05"   # the double 3.2e-5 lies below 3.2e-5


def test_parallel_row_is_the_librarys_parallel_composition():
    """Issue 15: the report's own copy said 0.4 where dpc.parallel_composition says 0.3 (3
    databases, at most 2 per person, bounded: a person changes at most min(2 * 2, 3) = 3)."""
    plan = parse_plan("""
[[databases]]
name = "d"
count = 3
[[invocations]]
mechanism = "pure(0.1)"
database = "d"
[membership]
max_databases = 2
neighbors = "bounded"
""")
    rep = R.build_report(plan, methods=["parallel"])
    (row,) = [r for r in rep.rows if r.method == "parallel"]
    lib = dpc.parallel_composition(plan.mechanisms, membership=dpc.AtMost(2), neighbors="bounded",
                                   databases=plan.databases)
    assert row.upper == lib.epsilon(1e-6)
    _assert_parallel(row, 0.3)                       # (3 * 0.1)-DP, not (4 * 0.1)-DP
    assert 0.3 <= lib.epsilon(0.0) <= 0.3 * (1 + 1e-12)
    assert plan.membership == dpc.AtMost(2) and plan.max_members() == 2


def test_clinics_example_per_group_caps():
    rep = R.build_report(load_plan(ROOT / "examples" / "clinics.toml"))
    by = {r.method: r for r in rep.rows if r.scope != R.SCOPE_CLASSIC}
    # at most 2 per city and 4 overall: 4 queries of 0.02-DP; group privacy gives 4 * 0.02
    _assert_parallel(by["parallel"], 0.08)
    if "simple" in by:
        assert 0.08 - 1e-12 <= by["simple"].upper <= 0.08 + 1e-9


def test_python_plan_example_runs(tmp_path, capsys):
    import runpy

    mod = runpy.run_path(str(ROOT / "examples" / "release_plan.py"))
    assert mod["main"](["x", str(tmp_path / "r.svg")]) == 0
    out = capsys.readouterr().out
    assert "tightest certified epsilon at delta = 1e-6" in out and (tmp_path / "r.svg").exists()
    assert all(len(line) <= 80 for line in out.splitlines() if str(tmp_path) not in line)  # issue 13
    assert "## Headline" in (tmp_path / "r.md").read_text() and "](r.svg)" in (tmp_path / "r.md").read_text()


def _mech_strategy():
    from hypothesis import strategies as st

    eps = st.floats(min_value=0.01, max_value=1.0)
    one = st.one_of(
        st.builds(dpc.PureDP, eps),
        st.builds(lambda b: dpc.Laplace(b), st.floats(min_value=1.0, max_value=100.0)),
        st.builds(dpc.RandomizedResponse, eps),
        st.builds(dpc.ApproxDP, eps, st.floats(min_value=1e-9, max_value=1e-7)),
        st.builds(lambda s: dpc.Gaussian(s), st.floats(min_value=0.5, max_value=10.0)),
    )
    return st.lists(st.tuples(one, st.integers(1, 50)), min_size=1, max_size=3)


@settings(max_examples=6, deadline=None)
@given(_mech_strategy())
def test_every_lower_bound_is_below_every_upper_bound(mechs):
    """Across methods: any certified lower bound <= any certified upper bound (same target)."""
    rep = R.compare(mechs, deltas=[1e-6, 1e-3], epsilons=[1.0])
    for kind, target in {(r.kind, r.target) for r in rep.rows}:
        rows = [r for r in rep.rows if r.kind == kind and r.target == target]
        uppers = [r.upper for r in rows if r.certified]
        lowers = [r.lower for r in rows if r.lower is not None]
        for r in rows:
            assert not math.isnan(r.upper) and (r.lower is None or not math.isnan(r.lower))
        if uppers and lowers:
            slack = 1e-9 * max(1.0, min(uppers)) if kind == "epsilon" else 1e-12
            assert max(lowers) <= min(uppers) + slack, [(r.method, r.lower, r.upper) for r in rows]
        best = [r for r in rows if r.tightest]
        assert len(best) == (1 if uppers else 0)
        if best:
            assert best[0].upper == min(uppers)


@given(st.floats(min_value=0.0, max_value=1e300, allow_nan=False, allow_infinity=False),
       st.sampled_from(["epsilon", "delta"]))
def test_displayed_bounds_never_cross_the_value(x, kind):
    """The text of an upper bound, read back, is >= the bound; a lower bound's is <= it."""
    up, lo = R.fmt_upper(x, kind), R.fmt_lower(x, kind)
    assert float(up) >= x and float(lo) <= x


def test_displayed_upper_bound_just_above_a_rounding_step():
    x = 4.7746 + 1e-14  # the old "ceil(x * 1e4 - 1e-9)" printed 4.7746 < x
    assert float(R.fmt_upper(x)) >= x and R.fmt_upper(x) == "4.7747"
    assert R.fmt_upper(9.999951, "delta") == "10.000" and R.fmt_upper(4.77455) == "4.7746"
    # the double nearest 4.7746 lies above it, so its upper display is one step up
    assert R.fmt_upper(4.7746) == "4.7747" and R.fmt_lower(4.7746) == "4.7746"


def test_assumption_for_mechanisms_given_by_their_eps_delta_reads_the_rules():
    """The "given by (eps, delta)" assumption is stated exactly when some mechanism is accounted as its
    (eps, delta) class (pure DP, randomized response, subsampled approximate DP), not for noise families."""
    from dpcompose.interfaces.report.model import _assumptions

    sentence = "Mechanisms given by (ε, δ)"
    for mechs, expected in (
        ([(dpc.PureDP(0.1), 3)], True),
        ([(dpc.RandomizedResponse(1.0), 1)], True),
        ([(dpc.Subsampled(dpc.ApproxDP(1.0, 1e-6), 0.1), 5)], True),
        ([(dpc.Laplace(2.0), 3), (dpc.Gaussian(4.0), 2)], False),
    ):
        text = " ".join(_assumptions(mechs, None))
        assert (sentence in text) is expected, (mechs, text)
