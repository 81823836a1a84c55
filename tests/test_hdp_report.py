"""Hypothesis DP in plans and reports: the twelve-region plan (issue 9, item 8), `[options.hdp]`,
and every looser fallback shown in the table, the Markdown, JSON and the plot legend.

Truth for the regions: dpc.compose of two regions' mechanisms written out by hand.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from rich.console import Console

import dpcompose as dpc
from dpcompose import report as R
from dpcompose.hypotheses.hdp import COUPLINGS
from dpcompose.plan import HdpOptionsSpec, PlanError, load_plan, parse_plan

ROOT = Path(__file__).resolve().parents[1]
REGION = [(dpc.Laplace(400.0), 40), (dpc.Gaussian(60000.0, sensitivity=1000.0), 10)]

TWO_KINDS = """
title = "two kinds of region"
methods = ["rdp", "pld", "hdp"]
[[databases]]
name = "a"
count = 6
[[databases]]
name = "b"
count = 6
[[invocations]]
mechanism = "laplace(scale=100) x 40 + gaussian(sigma=60000, sensitivity=1000) x 5"
database = "a"
[[invocations]]
mechanism = "laplace(scale=400) x 10 + gaussian(sigma=30000, sensitivity=1000) x 10"
database = "b"
[membership]
max_databases = 2
[targets]
deltas = [1e-6]
"""


def _hdp_rows(rep):
    return {r.method: r for r in rep.rows if r.scope != R.SCOPE_CLASSIC and r.kind == "epsilon"}


def test_twelve_region_plan_equals_composing_two_regions():
    rep = R.build_report(load_plan(ROOT / "examples" / "regions.toml"))
    rows = _hdp_rows(rep)
    classic = {r.method: r for r in rep.rows if r.scope == R.SCOPE_CLASSIC and r.kind == "epsilon"}
    assert {"pld", "rdp", "simple"} <= set(rows)
    two_pld = dpc.compose(REGION * 2, method="pld", **R.report_options(None).get("pld", {}))
    lo, hi = two_pld.epsilon_bounds(1e-6)
    assert lo <= rows["pld"].upper <= hi * (1 + 1e-12)
    assert rows["pld"].upper < 0.5 * classic["pld"].lower          # 0.3035 vs 0.7921
    for m, r in rows.items():
        if m != "pld":
            direct = dpc.compose(REGION * 2, method=m).epsilon(1e-6)
            assert r.upper == pytest.approx(direct, rel=1e-12), m
        assert not r.caveats, m
        assert r.provenance["worst_case"].startswith("exact")
    assert rep.best("epsilon", 1e-6).scope != R.SCOPE_CLASSIC
    assert not rep.caveats


def _fallback_report():
    return R.build_report(parse_plan(TWO_KINDS + "[options.hdp]\nenumeration_limit = 2\n"))


def test_a_fallback_is_shown_in_table_markdown_json_and_plot():
    rep = _fallback_report()
    rows = _hdp_rows(rep)
    assert rows and all(r.caveats for r in rows.values())
    assert len(rep.caveats) == 1 and "enumeration_limit = 2" in rep.caveats[0]
    # table: the mark beside each row, the text under the table
    buf = io.StringIO()
    R.render_table(rep, Console(file=buf, width=80, color_system=None))
    text = buf.getvalue()
    assert "†1" in text and "†1 looser fallback: hdp worst case is an upper bound" in text.replace("\n", " ")
    # markdown review document
    md = R.to_markdown(rep)
    assert "| †1 |" in md and "†1 looser fallback: hdp worst case" in md
    # json
    data = json.loads(R.to_json(rep))
    hdp_rows = [r for r in data["rows"] if r["applies_to"] != R.SCOPE_CLASSIC]
    assert all(r["caveats"] == rep.caveats for r in hdp_rows)
    assert data["caveats"] == rep.caveats
    assert all(r["provenance"]["caveats"] == rep.caveats for r in hdp_rows)
    # plot legend and footnote
    pytest.importorskip("matplotlib")
    import matplotlib.pyplot as plt

    from dpcompose.report.plot import figure

    data = R.plot_data(rep)
    fig = figure(rep, data)
    try:
        labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
        assert any("†1" in s for s in labels)
        assert not any("†1" in s for s in labels if "[constraint]" not in s)  # classic curves
        assert any("†1 looser fallback" in t.get_text() for t in fig.texts)
    finally:
        plt.close(fig)
    assert "looser fallback" in R.to_html(rep, svg="<svg/>")


def test_the_fallback_bounds_the_exact_rows_and_the_default_is_exact():
    exact = R.build_report(parse_plan(TWO_KINDS))
    fallback = _fallback_report()
    e, f = _hdp_rows(exact), _hdp_rows(fallback)
    assert not exact.caveats
    for m in e:
        assert f[m].upper >= e[m].upper - 1e-12
    # independent: the worst of AA, AB, BB composed by hand
    A = [(dpc.Laplace(100.0), 40), (dpc.Gaussian(60000.0, sensitivity=1000.0), 5)]
    B = [(dpc.Laplace(400.0), 10), (dpc.Gaussian(30000.0, sensitivity=1000.0), 10)]
    worst = max(dpc.compose(x, method="rdp").epsilon(1e-6) for x in (A + A, A + B, B + B))
    assert e["rdp"].upper == pytest.approx(worst, rel=1e-12)


def test_caveats_of_any_method_reach_the_report():
    g = dpc.compose([dpc.PureDP(0.1)] * 3, method="simple")
    g.provenance["caveats"] = ["coarse grid: error comparable to the target delta"]
    rep = R.from_guarantees([g], [(dpc.PureDP(0.1), 3)], deltas=[1e-6])
    assert rep.caveats == ["coarse grid: error comparable to the target delta"]
    assert "| †1 |" in R.to_markdown(rep) and "†1 looser fallback: coarse grid" in R.to_markdown(rep)


# ---------------------------------------------------------------------------
# [options.hdp]


BASE = """
[[databases]]
name = "r"
count = 3
[[invocations]]
mechanism = "laplace(scale=2)"
database = "r"
[membership]
max_databases = 1
"""


def test_hdp_options_reach_hdp():
    plan = parse_plan(BASE + "[options.hdp]\nenumeration_limit = 5\n")
    assert plan.spec.options["hdp"] == {"enumeration_limit": 5}
    rep = R.build_report(plan, methods=["simple", "hdp"])
    (row,) = _hdp_rows(rep).values()
    assert row.upper == pytest.approx(0.5)


@pytest.mark.parametrize("extra,path,words", [
    ("enumeration_limit = 0", "options.hdp.enumeration_limit", "greater than or equal to 1"),
    ('enumeration_limit = "64"', "options.hdp.enumeration_limit", "valid integer"),
    ("enumeration_limit = true", "options.hdp.enumeration_limit", "valid integer"),
    ("enumeration_limit = 1.5", "options.hdp.enumeration_limit", "valid integer"),
    ('coupling = "best"', "options.hdp.coupling", "'alg3'"),
    ("limit = 3", "options.hdp.limit", "unknown key 'limit'"),
])
def test_bad_hdp_options_name_the_field(extra, path, words):
    with pytest.raises(PlanError) as err:
        parse_plan(BASE + "[options.hdp]\n" + extra + "\n")
    msg = str(err.value)
    assert path in msg and words in msg


def test_hdp_options_need_a_hypothesis_dp_plan_and_the_hdp_rows():
    with pytest.raises(PlanError, match=r"options.hdp.*no \[membership\]"):
        parse_plan('[[invocations]]\nmechanism = "pure(1)"\n[options.hdp]\nenumeration_limit = 3\n')
    with pytest.raises(PlanError, match="runs no hypothesis-DP row"):
        parse_plan('methods = ["parallel"]\n' + BASE + "[options.hdp]\nenumeration_limit = 3\n")
    # a composition method is also the inner method of the hypothesis-DP rows (issue 13)
    parse_plan('methods = ["simple"]\n' + BASE + "[options.hdp]\nenumeration_limit = 3\n")


def test_plan_couplings_match_hdp():
    allowed = HdpOptionsSpec.model_fields["coupling"].annotation.__args__[0].__args__
    assert set(allowed) == set(COUPLINGS)


def test_cli_exit_code_for_bad_hdp_options(tmp_path):
    from typer.testing import CliRunner

    from dpcompose.cli import app

    p = tmp_path / "bad.toml"
    p.write_text(BASE + "[options.hdp]\nenumeration_limit = -3\n", encoding="utf-8")
    res = CliRunner().invoke(app, ["report", str(p)])
    assert res.exit_code == 2
    assert "options.hdp.enumeration_limit" in res.output
