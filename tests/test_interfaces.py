"""Issue 13: a report a reviewer can sign and a command line that fits a terminal.

Views against the library (independent calls to compose, hdp, parallel_composition), the
80-column table, the review document, plots checked as images, and one test per paper cut.
"""

from __future__ import annotations

import io
import json
import math
import re
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console
from typer.testing import CliRunner

import dpcompose as dpc
from dpcompose import report as R
from dpcompose.cli import app
from dpcompose.plan import bundled_plan, load_plan, parse_plan, PlanError

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((ROOT / "examples").glob("*.toml")) + [ROOT / "src" / "dpcompose" / "data" / "hospitals.toml"]
runner = CliRunner()

SMALL_HDP = """
title = "eight databases, a person in at most three"
methods = ["optimal", "pld", "simple", "parallel"]
[[databases]]
name = "h"
count = 8
[[invocations]]
mechanism = "pure(0.2)"
database = "h"
[membership]
max_databases = 3
[targets]
deltas = [1e-6]
"""


def run(*args: str, columns: int = 80):
    return runner.invoke(app, list(args), env={"COLUMNS": str(columns)})


def _render(rep, width: int, verbose: bool = False) -> str:
    buf = io.StringIO()
    R.render_table(rep, Console(file=buf, width=width, color_system=None), verbose=verbose)
    return buf.getvalue()


@pytest.fixture(scope="module")
def reports():
    """Every example plan's report, built once (the slow part) and rendered many ways."""
    return {p.name: R.build_report(load_plan(p)) for p in EXAMPLES}


# ---------------------------------------------------------------------------
# the table


def _table_lines(text: str) -> list[str]:
    """The rows of the tables (a method name first, after the mark)."""
    names = set(R.composition_methods()) | {"parallel", "hdp"}
    return [ln for ln in text.splitlines() if ln.split() and ln.replace("★", " ").split()[0] in names]


@pytest.mark.parametrize("name", [p.name for p in EXAMPLES])
def test_compact_table_fits_80_columns(reports, name):
    rep = reports[name]
    text = _render(rep, 80)
    rows = _table_lines(text)
    assert len(rows) == len(rep.rows)          # one line per row: nothing wrapped
    assert all(len(ln) <= 80 for ln in text.splitlines()), max(text.splitlines(), key=len)
    assert "…" not in "\n".join(rows)            # nothing cut either
    for r in rep.rows:
        assert any(r.method in ln and R.upper_text(r) in ln for ln in rows), r.method
    # a headline per target, naming the tightest certified bound
    for h in rep.headlines():
        best = h.classic or h.constrained
        assert f"{R.fmt_target(h.kind, h.target)}" in text and R.upper_text(best) in text


@pytest.mark.parametrize("name", [p.name for p in EXAMPLES])
def test_wide_table_has_one_line_per_row(reports, name):
    rep = reports[name]
    text = _render(rep, 200, verbose=True)
    assert len(_table_lines(text)) == len(rep.rows)
    assert all(r.status in text for r in rep.rows)


def test_headline_states_classic_and_constrained_bounds_from_the_library():
    plan = parse_plan(SMALL_HDP)
    rep = R.build_report(plan)
    (h,) = rep.headlines()
    classic = min(dpc.compose(plan.composition(), method=m).epsilon(1e-6) for m in ("optimal", "pld", "simple"))
    assert h.classic.upper == classic
    constrained = min([dpc.hdp(plan.mechanisms, databases=plan.databases, membership=dpc.AtMost(3),
                               method=m).epsilon(1e-6) for m in ("optimal", "pld", "simple")]
                      + [dpc.parallel_composition(plan.mechanisms, databases=plan.databases,
                                                  membership=dpc.AtMost(3)).epsilon(1e-6)])
    assert h.constrained.upper == constrained
    lines = R.headline_lines(rep)
    assert R.fmt_upper(classic) in lines[0] and "classic DP" in lines[0]
    assert R.fmt_upper(constrained) in lines[1] and "membership constraint" in lines[1]


# ---------------------------------------------------------------------------
# the review document


def test_review_document_holds_headline_assumptions_invocations_and_provenance(tmp_path, monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1700000000")   # 2023-11-14
    plan = parse_plan(SMALL_HDP, source="small.toml")
    rep = R.build_report(plan)
    md = R.to_markdown(rep, plot="plot.png")
    h = rep.headlines()[0]
    assert "## Headline" in md
    assert f"This release is **({R.upper_text(h.classic)}, 1e-06)-DP**" in md
    assert f"it is **({R.upper_text(h.constrained)}, 1e-06)-DP**" in md
    assert "## Assumptions" in md and "at most 3 of the 8 databases" in md and "Unbounded neighbours" in md
    assert "## Invocations" in md
    one = dpc.compose([dpc.PureDP(0.2)], method="auto").epsilon(1e-6)      # one run of pure(0.2)
    assert f"| 1 | `pure(epsilon=0.2)` | each of 8 `h` | 1 | {R.fmt_upper(one)} |" in md
    assert "## Methods compared" in md and "## Appendix A" in md
    assert f"`sha256:{plan.sha256}`" in md and "2023-11-14" in md and dpc.__version__ in md
    assert "![ε against δ for each method](plot.png)" in md
    html = R.to_html(rep, svg="<svg id='p'/>")
    assert "<h2>Headline</h2>" in html and "<svg id='p'/>" in html and "<h2>Assumptions</h2>" in html
    # the JSON carries the same
    d = json.loads(R.to_json(rep))
    assert d["plan_sha256"] == plan.sha256 and d["headlines"][0]["classic"]["upper"] == h.classic.upper
    assert d["assumptions"] == rep.assumptions and d["invocations"][0]["one_run"][0]["epsilon_upper"] == one


def test_review_document_puts_loose_methods_in_the_appendix():
    rep = R.compare([(dpc.Subsampled(dpc.Gaussian(1.1), 0.004), 2000)], deltas=[1e-5],
                    methods=["pld", "rdp", "simple"])
    md = R.to_markdown(rep)
    body, appendix = md.split("## Appendix A")
    assert "| ★ | pld |" in body and "| simple |" not in body and "| simple |" in appendix


def test_plan_hash_is_the_content_not_the_spelling(tmp_path):
    toml = tmp_path / "p.toml"
    toml.write_text('[[invocations]]\nmechanism = "pure(0.1)"\ncount = 100\n')
    js = tmp_path / "p.json"
    js.write_text(json.dumps({"invocations": [{"mechanism": "pure(0.1)", "count": 100}],
                              "targets": {"deltas": [1e-6]}}))
    assert load_plan(toml).sha256 == load_plan(js).sha256
    other = parse_plan('[[invocations]]\nmechanism = "pure(0.1)"\ncount = 101\n')
    assert other.sha256 != load_plan(toml).sha256


def test_cli_html_and_markdown_documents(tmp_path):
    plan = tmp_path / "p.toml"
    plan.write_text(SMALL_HDP)
    r = run("report", str(plan), "--markdown", "-q")
    assert r.exit_code == 0, r.output
    assert r.stdout.startswith("# eight databases") and "## Assumptions" in r.stdout
    r = run("report", str(plan), "--html", "-q")
    assert r.exit_code == 0, r.output
    assert "<svg" in r.stdout and "<h2>Headline</h2>" in r.stdout
    r = run("report", str(plan), "--html", "--markdown")
    assert r.exit_code == 2 and "exclude each other" in r.stderr


# ---------------------------------------------------------------------------
# plots, as pictures


def _png_checks(path: Path) -> None:
    from PIL import Image, ImageStat

    with Image.open(path) as im:
        assert im.format == "PNG" and im.size == R.PLOT_SIZE_PX
        stat = ImageStat.Stat(im.convert("L"))
        assert stat.stddev[0] > 10                       # not a blank page
        colors = im.convert("RGB").getcolors(maxcolors=1 << 16)
        assert colors is None or len(colors) > 20        # curves, text and grid drawn


def _sgd_report():
    return R.compare([(dpc.Subsampled(dpc.Gaussian(1.1), 256 / 60000), 2000)], deltas=[1e-5],
                     methods=["simple", "advanced", "pld", "rdp"])


def test_dp_sgd_plot_drops_the_loose_theorems_and_stays_linear(tmp_path):
    rep = _sgd_report()
    data = R.plot_data(rep)
    assert {"simple", "advanced"} <= set(data.dropped)
    assert {s.method for s in data.drawn} == {"pld", "rdp"}
    assert not data.ylog                       # what is drawn spans less than a decade
    assert any("more than 10x above the tightest" in n for n in data.notes)
    path = R.write_plot(rep, tmp_path / "sgd.png", data=data)
    _png_checks(path)
    from dpcompose.report.plot import figure
    import matplotlib.pyplot as plt

    fig = figure(rep, data)
    try:
        ax = fig.axes[0]
        assert ax.get_yscale() == "linear" and ax.get_xscale() == "log"
        labels = [t.get_text() for t in ax.get_legend().get_texts()]
        assert labels == ["pld", "rdp"]          # only what is drawn; no membership note
        assert ax.get_legend().get_title().get_text() == "dotted: certified lower bounds\n★ tightest at " \
                                                           "the report's targets"
        # the legend sits outside the axes (to their right)
        fig.canvas.draw()
        assert ax.get_legend().get_window_extent().x0 > ax.get_window_extent().x1
    finally:
        plt.close(fig)


def test_steps_plot_is_log_log_and_matches_compose(tmp_path):
    rep = R.compare([(dpc.Laplace(20.0), 500)], deltas=[1e-6], methods=["pld", "rdp"])
    data = R.plot_data(rep, "steps")
    assert data.xlog and data.ylog              # 0.05 at one step to 5.5 at 500
    pld = next(s for s in data.series if s.method == "pld")
    assert pld.x[0] == 1 and pld.x[-1] == 500
    for x, y in list(zip(pld.x, pld.upper))[::4]:
        assert y == dpc.compose([(dpc.Laplace(20.0), int(x))], method="pld").epsilon(1e-6)
    _png_checks(R.write_plot(rep, tmp_path / "steps.png", "steps", data=data))


def test_delta_epsilon_plot_and_curve_export(tmp_path):
    rep = R.compare([(dpc.Gaussian(4.0), 20)], deltas=[1e-6], epsilons=[1.0], methods=["pld", "rdp"])
    data = R.plot_data(rep, "delta-epsilon")
    assert data.xlabel == "ε" and data.ylog
    _png_checks(R.write_plot(rep, tmp_path / "de.png", "delta-epsilon", data=data))
    R.write_plot_data(data, tmp_path / "de.json")
    R.write_plot_data(data, tmp_path / "de.csv")
    doc = json.loads((tmp_path / "de.json").read_text())
    g = dpc.compose([(dpc.Gaussian(4.0), 20)], method="rdp")
    rdp = next(c for c in doc["curves"] if c["method"] == "rdp")
    for p in rdp["points"]:
        assert p["upper"] == g.delta(p["x"])
    rows = (tmp_path / "de.csv").read_text().splitlines()
    assert rows[0].startswith("curve,method") and len(rows) == 1 + sum(len(c["points"]) for c in doc["curves"])


def test_membership_plot_is_log_when_it_spans_a_decade_and_says_what_dashes_mean(reports, tmp_path):
    rep = reports["hospitals.toml"]
    data = R.plot_data(rep)
    ys = [y for s in data.drawn for _, y in s.shown() if y > 0]
    assert max(ys) > 10 * min(ys) and data.ylog      # simple's 10 against pld's 0.47 under the constraint
    assert "simple" in " ".join(data.notes)            # its points far above the tightest are listed
    from dpcompose.report.plot import figure
    import matplotlib.pyplot as plt

    fig = figure(rep, data)
    try:
        ax = fig.axes[0]
        assert ax.get_yscale() == "log"
        assert "dashed: membership constraint" in ax.get_legend().get_title().get_text()
    finally:
        plt.close(fig)
    _png_checks(R.write_plot(rep, tmp_path / "h.png", data=data))


def test_coincident_curves_are_drawn_once():
    rep = R.compare([(dpc.PureDP(0.1), 10)], deltas=[1e-6], methods=["simple", "advanced", "optimal"])
    data = R.plot_data(rep)
    drawn = {s.method: s for s in data.drawn}
    # with a small k, advanced reports its minimum with simple, which is simple itself
    assert "advanced" not in drawn and "advanced" in drawn["simple"].same_as


def test_cli_plots_on_queries_and_calibrate(tmp_path):
    out = tmp_path / "q.png"
    data = tmp_path / "q.csv"
    r = run("epsilon", "laplace(scale=20) x 50", "-d", "1e-6", "--plot", str(out), "--plot-data", str(data))
    assert r.exit_code == 0, r.output
    _png_checks(out)
    assert "pld" in data.read_text()
    r = run("delta", "gaussian(sigma=4) x 20", "-e", "1", "--plot", str(tmp_path / "d.svg"), "-q")
    assert r.exit_code == 0 and (tmp_path / "d.svg").read_text().count("<path") > 5
    r = run("calibrate", "laplace x 10", "--epsilon", "1", "-m", "pld", "--plot", str(tmp_path / "c.png"), "-q")
    assert r.exit_code == 0, r.output
    _png_checks(tmp_path / "c.png")
    r = run("report", str(ROOT / "examples" / "pure_dp_100.toml"), "--plot", str(tmp_path / "s.png"),
            "--plot-kind", "Steps", "-m", "optimal", "-q")
    assert r.exit_code == 0, r.output
    r = run("report", str(ROOT / "examples" / "pure_dp_100.toml"), "--plot-kind", "stpes")
    assert r.exit_code == 2 and "Did you mean 'steps'?" in r.stderr


# ---------------------------------------------------------------------------
# one-line queries


def test_repeated_deltas_and_methods_make_a_small_table():
    r = run("epsilon", "laplace(scale=20) x 100", "-d", "1e-6", "--delta", "1e-9", "-m", "pld", "-m", "RDP")
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    for m in ("pld", "rdp"):
        g = dpc.compose([(dpc.Laplace(20.0), 100)], method=m)
        for d in (1e-6, 1e-9):
            row = [ln for ln in lines if re.match(rf"^δ = {d:g}\s+{m}\s", ln)]
            assert row and R.fmt_upper(g.epsilon(d)) in row[0], (m, d, r.stdout)
    assert "auto" not in r.stdout          # the footer explains only what the table shows
    r = run("epsilon", "laplace(scale=20) x 100", "-d", "1e-6", "-d", "1e-9", "--json")
    res = json.loads(r.stdout)["results"]
    assert [x["delta"] for x in res] == [1e-6, 1e-9] and all(x["requested_method"] == "auto" for x in res)
    r = run("delta", "laplace(scale=20) x 100", "-e", "1", "-e", "2", "-m", "optimal", "--json")
    res = json.loads(r.stdout)["results"]
    g = dpc.compose([(dpc.Laplace(20.0), 100)], method="optimal")
    assert [x["delta_upper"] for x in res] == [g.delta(1.0), g.delta(2.0)]


def test_delta_range_is_the_same_as_python():
    """Python accepts delta = 1 (epsilon 0); the CLI refused it."""
    g = dpc.compose([(dpc.Laplace(20.0), 10)])
    assert g.epsilon(1.0) == 0.0
    r = run("epsilon", "laplace(scale=20) x 10", "--delta", "1", "--json")
    assert r.exit_code == 0, r.output and json.loads(r.stdout)["epsilon_upper"] == 0.0
    r = run("epsilon", "laplace(scale=20) x 10", "--delta", "1.01")
    assert r.exit_code == 2 and "--delta" in r.output


def test_a_count_of_zero_is_refused():
    r = run("epsilon", "laplace(scale=20) x 0", "-d", "1e-6")
    assert r.exit_code == 2 and "runs 0 times" in r.stderr and "Remedy" in r.stderr
    with pytest.raises(PlanError, match=r"invocations\[0\].mechanism .*zero times"):
        parse_plan('[[invocations]]\nmechanism = "laplace(scale=20) x 0"\n')


def test_mis_scaled_query_warns_before_the_work():
    r = run("epsilon", "gaussian(sigma=2, sensitivity=1000)", "-d", "1e-6", "-m", "rdp")
    assert r.exit_code == 0, r.output
    assert "warning:" in r.stderr and "alone has ε" in r.stderr and "sensitivity" in r.stderr
    assert r.output.index("warning:") < r.output.index("ε ≤")   # before the result
    assert all(len(ln) <= 80 for ln in r.stderr.splitlines())    # wrapped at the terminal's width
    assert R.sanity_warnings([(dpc.Laplace(20.0), 500)], [1e-6]) == []
    total = R.sanity_warnings([(dpc.PureDP(2.0), 200)], [1e-6])
    assert len(total) == 1 and "above 100" in total[0]


def test_mis_scaled_plan_warns_before_any_method_runs(tmp_path):
    text = 'methods = ["rdp", "simple"]\n[[invocations]]\nmechanism = "gaussian(sigma=2, sensitivity=1000)"\n'
    events: list[str] = []
    rep = R.build_report(parse_plan(text), warn=lambda w: events.append("warn: " + w),
                         progress=lambda label: events.append("step: " + label))
    assert events[0].startswith("warn: ") and "alone has ε" in events[0]
    assert all(e.startswith("step: ") for e in events[1:]) and len(events) > 2
    # the same warning is on stderr, in the JSON and in the review document
    assert rep.warnings and "## Warnings" in R.to_markdown(rep)
    (tmp_path / "p.toml").write_text(text)
    r = run("report", str(tmp_path / "p.toml"), "--json")
    assert r.exit_code == 0 and "alone has ε" in r.stderr
    assert json.loads(r.stdout)["warnings"] == rep.warnings


# ---------------------------------------------------------------------------
# names: case, "did you mean", -m on hypothesis-DP plans


def test_method_names_ignore_case_and_suggest():
    r = run("epsilon", "pure(0.1) x 100", "-d", "1e-6", "-m", "Optimal")
    assert r.exit_code == 0 and "method optimal" in r.stdout
    r = run("epsilon", "pure(0.1) x 100", "-d", "1e-6", "-m", "optimla")
    assert r.exit_code == 2 and "Did you mean 'optimal'?" in r.stderr and "parallel" not in r.stderr
    r = run("report", str(ROOT / "examples" / "pure_dp_100.toml"), "-m", "advnced")
    assert r.exit_code == 2 and "Did you mean 'advanced'?" in r.stderr
    with pytest.raises(PlanError, match="Did you mean 'pld'"):
        parse_plan('methods = ["PLD", "pdl"]\n[[invocations]]\nmechanism = "pure(0.1)"\n')
    rep = R.build_report(parse_plan('methods = ["PLD"]\n[[invocations]]\nmechanism = "pure(0.1)"\n'))
    assert [r.method for r in rep.rows] == ["pld"]


def test_mechanism_names_ignore_case_and_suggest():
    assert dpc.parse_mechanisms("LAPLACE(20) x 2") == [(dpc.Laplace(20.0), 2)]
    with pytest.raises(dpc.InvalidParameterError, match="Did you mean 'laplace'"):
        dpc.parse_mechanisms("lapalce(20)")
    r = run("epsilon", "gausian(sigma=2)", "-d", "1e-6")
    assert r.exit_code == 2 and "Did you mean 'gaussian'?" in r.stderr


def test_method_on_a_hypothesis_dp_plan_is_the_inner_method():
    """`report -m pld` on a hypothesis-DP plan kept only the classic row (issue 13)."""
    plan = parse_plan(SMALL_HDP)
    rep = R.build_report(plan, methods=["PLD"])
    got = {(r.method, r.scope == R.SCOPE_CLASSIC) for r in rep.rows}
    assert got == {("pld", True), ("pld", False)}
    inner = next(r for r in rep.rows if r.scope != R.SCOPE_CLASSIC)
    assert inner.upper == dpc.hdp(plan.mechanisms, databases=plan.databases, membership=dpc.AtMost(3),
                                  method="pld").epsilon(1e-6)
    only = R.build_report(plan, methods=["parallel"])
    assert [r.method for r in only.rows] == ["parallel"]


# ---------------------------------------------------------------------------
# plans: one pass, JSON, directories


def test_every_plan_problem_in_one_pass():
    text = """
[[databases]]
name = "h"
count = 3
[[invocations]]
mechanism = { type = "laplace", scale = true }
database = "h"
[[invocations]]
mechanism = "laplace(2)"
database = "nowhere"
[targets]
deltas = [1.5]
"""
    with pytest.raises(PlanError) as err:
        parse_plan(text)
    paths = [p for p, _ in err.value.problems]
    # a type error (the schema), a range error (the schema), an undeclared database (the second pass)
    assert paths == ["invocations[0].mechanism.scale", "invocations[1].database", "targets.deltas[0]"]


def test_one_pass_does_not_invent_problems_from_refused_parts():
    text = """
[[databases]]
name = "h"
count = 3
[[invocations]]
mechanism = "laplace(2)"
database = "h"
[membership]
max_databases = "two"
[options.hdp]
enumeration_limit = 10
"""
    with pytest.raises(PlanError) as err:
        parse_plan(text)
    assert [p for p, _ in err.value.problems] == ["membership.max_databases"]


def test_json_plans_and_their_errors(tmp_path):
    good = tmp_path / "p.json"
    good.write_text(json.dumps({"title": "json", "invocations": [{"mechanism": "pure(0.1)", "count": 100}]}))
    r = run("report", str(good), "-m", "simple", "--json")
    assert r.exit_code == 0, r.output and json.loads(r.stdout)["rows"][0]["epsilon_upper"] == 10.0
    bad = tmp_path / "q.json"
    bad.write_text('{"invocations": [}')
    r = run("report", str(bad))
    assert r.exit_code == 2 and "not valid JSON" in r.stderr and "TOML" not in r.stderr.split("\n")[0]
    lost = tmp_path / "l.json"
    lost.write_text('{"invocations": [{"mechanism": "pure(0.1)"}], "targets": {"deltas": [1e-400]}}')
    r = run("report", str(lost))
    assert r.exit_code == 2 and "targets.deltas[0]" in r.stderr and "underflows" in r.stderr
    misnamed = tmp_path / "m.toml"
    misnamed.write_text(good.read_text())
    r = run("report", str(misnamed))
    assert r.exit_code == 2 and "looks like JSON" in r.stderr


def test_a_directory_is_named_not_an_errno(tmp_path):
    (tmp_path / "a.toml").write_text('[[invocations]]\nmechanism = "pure(1)"\n')
    r = run("report", str(tmp_path))
    assert r.exit_code == 2 and "is a directory" in r.stderr and "a.toml" in r.stderr
    assert "Errno" not in r.stderr


def test_uniform_nonzero_false_is_a_plan_error():
    with pytest.raises(PlanError, match=r"hypotheses.p0.uniform_nonzero"):
        parse_plan('[[databases]]\nname = "d"\ncount = 2\n[[invocations]]\nmechanism = "pure(1)"\n'
                   'database = "d"\n[hypotheses.p0]\nuniform_nonzero = false\n[hypotheses.p1]\npoint = [1, 0]\n')


def test_plan_returns_library_objects():
    plan = parse_plan("""
[[databases]]
name = "a"
count = 3
[[databases]]
name = "b"
count = 2
[[invocations]]
mechanism = "pure(1)"
database = "a"
[[invocations]]
mechanism = "pure(1)"
database = "b"
[membership]
max_databases = 3
max_per_group = { a = 1 }
neighbors = "bounded"
""")
    assert plan.membership == dpc.AtMost(3) & dpc.PerGroup([[0, 1, 2]], [1])
    assert plan.neighbors == "bounded" and plan.max_members() == 3 and plan.hypotheses is None


# ---------------------------------------------------------------------------
# numbers


def test_simple_composition_sums_numbers_as_written():
    """100 x 0.1 shows 10 (issue 13): the display is the exact sum of the decimals written; the
    certified number reads each parameter as the larger of the double and the decimal."""
    g = dpc.compose([(dpc.PureDP(0.1), 100)], method="simple")
    got = g.epsilon(1e-6)
    assert Fraction(got) >= 100 * Fraction(0.1) and Fraction(math.nextafter(got, 0.0)) < 100 * Fraction(0.1)
    assert g.provenance["decimal"] == {"epsilon": "10", "delta": "0"}
    three = dpc.compose([(dpc.PureDP(0.0001), 3)], method="simple")
    assert Fraction(three.epsilon(1e-6)) >= Fraction(3, 10000)
    r = run("epsilon", "pure(0.0001) x 3", "-d", "1e-6", "-m", "simple")
    assert "ε ≤ 0.0003 " in r.stdout                      # the exact decimal, not 3.001e-04
    r = run("epsilon", "pure(0.1) x 100", "-d", "1e-6", "-m", "simple")
    assert "ε ≤ 10 " in r.stdout


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.decimals(min_value=0, max_value=5, places=4), st.integers(1, 50)),
                min_size=1, max_size=4))
def test_simple_sum_is_the_smallest_double_above_the_written_sum(terms):
    """Certified under both readings of each parameter (the decimal written, the double)."""
    mechs = [(dpc.PureDP(float(e)), k) for e, k in terms]
    exact = sum(max(Fraction(repr(float(e))), Fraction(float(e))) * k for e, k in terms)
    got = dpc.compose(mechs, method="simple").epsilon(1e-6)
    assert Fraction(got) >= exact
    assert got == 0.0 or Fraction(math.nextafter(got, 0.0)) < exact


@given(st.floats(min_value=1e-12, max_value=1e12, allow_nan=False))
def test_noise_is_shown_rounded_toward_more_noise(x):
    assert float(R.fmt_noise(x)) >= x
    assert float(R.fmt_noise(x, "smaller")) <= x


def test_calibrated_noise_is_displayed_rounded_up():
    args = ("calibrate", "gaussian x 100", "--epsilon", "1", "--delta", "1e-5", "-m", "rdp")
    value = json.loads(run(*args, "--json").stdout)["value"]
    text = run(*args).stdout
    shown = re.search(r"sigma = ([0-9.e+-]+)", text).group(1)
    assert float(shown) >= value and "rounded up" in text
    assert all(len(ln) <= 80 for ln in text.splitlines()), text     # fits a terminal


def test_significant_digits_scale_with_magnitude():
    assert R.fmt_upper(0.0012345678) == "0.0012346"     # five significant digits, not 0.0013
    assert R.fmt_upper(123.456789) == "123.46"
    assert R.fmt_upper(1.2345678e-7) == "1.2346e-07"


# ---------------------------------------------------------------------------
# Python surface


def test_laplace_sensitivity_is_keyword_only():
    with pytest.raises(TypeError):
        dpc.Laplace(20, 500)
    with pytest.raises(TypeError):
        dpc.Gaussian(2, 1000)
    assert dpc.Laplace(20, sensitivity=500).epsilon == 25.0


def test_guarantee_repr_says_what_it_holds():
    g = dpc.compose([(dpc.Laplace(20.0), 500)])
    text = repr(g)
    assert text.startswith("<Guarantee auto -> pld")
    for d in (1e-5, 1e-6, 1e-9):
        assert f"ε ≤ {R.fmt_upper(g.epsilon(d))} at δ={d:g}" in text
    html = g._repr_html_()
    assert "<table>" in html and R.fmt_lower(g.epsilon_lower(1e-6)) in html
    exact = dpc.compose([(dpc.PureDP(0.1), 100)], method="optimal")
    assert repr(exact).startswith("<Guarantee optimal, exact:")


def test_top_level_namespace_is_clean():
    import types

    public = {n for n in vars(dpc) if not n.startswith("_")}
    leaked = {n for n in public - set(dpc.__all__) if not isinstance(getattr(dpc, n), types.ModuleType)}
    assert not leaked and "annotations" not in public and "importlib" not in public
    assert set(dir(dpc)) >= set(dpc.__all__) and "annotations" not in dir(dpc)


def test_python_dash_m_dpcompose():
    ok = subprocess.run([sys.executable, "-m", "dpcompose", "--version"], capture_output=True, text=True,
                        timeout=60)
    assert ok.returncode == 0 and ok.stdout.strip() == f"dpcompose {dpc.__version__}"
    bad = subprocess.run([sys.executable, "-m", "dpcompose", "epsilon", "laplace(20)", "--delta", "2"],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "--delta" in bad.stderr


def test_methods_lists_what_each_method_accepts_and_how_fast():
    r = run("methods")
    assert r.exit_code == 0, r.output
    rows = {ln.split()[0]: ln.split() for ln in r.stdout.splitlines() if ln.split()
            and ln.split()[0] in R.composition_methods()}
    assert set(rows) == set(R.composition_methods())
    # columns P A L R G S W, from trying each: optimal refuses Gaussians, rdp refuses approx
    assert rows["optimal"][1:8] == ["✓", "✓", "✓", "✓", "—", "—", "—"]
    assert rows["rdp"][2] == "—"
    assert "lower" in " ".join(rows["pld"]) and re.search(r"\d+(\.\d+)? (µs|ms|s)$", " ".join(rows["pld"]))
    assert all(len(ln) <= 80 for ln in r.stdout.splitlines())


def test_progress_counts_steps_and_time_left(monkeypatch):
    from dpcompose import cli

    buf = io.StringIO()
    monkeypatch.setattr(cli, "_console", lambda stderr=False: Console(file=buf, force_terminal=True,
                                                                     width=100, color_system=None))
    monkeypatch.setattr(cli._Progress, "PROGRESS_DELAY", 0.0)
    monkeypatch.setattr(cli, "_may_be_terminal", lambda: True)  # stderr is not a tty under pytest
    with cli._Progress(1, quiet=False, what="steps") as prog:
        prog.set_total(3)
        prog("first")
        prog("second")
        import time

        time.sleep(0.3)       # the display starts on its timer thread
        prog("third")
        prog._p.refresh()
    text = buf.getvalue()
    assert "/3 steps" in text and "left" in text
    quiet = cli._Progress(3, quiet=True)
    assert not quiet.enabled


# ---------------------------------------------------------------------------
# the demo fits a terminal


def test_demo_fits_80_columns(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = run("demo", "--quiet")
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    assert all(len(ln) <= 80 for ln in lines), max(lines, key=len)
    assert "…" not in "\n".join(_table_lines(r.stdout))
    assert "At δ = 1e-06: ε ≤ 4.7746 (optimal, exact)" in r.stdout
    # the README's excerpt is what the demo prints
    shown = {ln.rstrip() for ln in lines}
    excerpt = _readme_block("An excerpt of `dpcompose demo`", "```\n")
    assert len(excerpt) > 10 and [ln for ln in excerpt if ln not in shown] == []


def _readme_block(after: str, fence: str) -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8").split(after, 1)[1]
    return [ln.rstrip() for ln in text.split(fence, 1)[1].split("```", 1)[0].splitlines() if ln.strip()]


def test_plans_doc_table_is_what_report_prints(reports):
    doc = (ROOT / "docs" / "plans.md").read_text(encoding="utf-8").split("## Reports", 1)[1]
    excerpt = [ln.rstrip() for ln in doc.split("```\n", 1)[1].split("```", 1)[0].splitlines() if ln.strip()]
    shown = {ln.rstrip() for ln in _render(reports["pure_dp_100.toml"], 80).splitlines()}
    assert len(excerpt) > 8 and [ln for ln in excerpt if ln not in shown] == []


def test_readme_review_excerpt_is_the_review_document(reports):
    md = R.to_markdown(reports["regions.toml"])
    excerpt = _readme_block("An excerpt of the review document", "```markdown\n")
    # everything but the lines that name the date, the version and the path
    kept = [ln for ln in excerpt if not ln.startswith(("| date", "| dpcompose", "| input"))]
    assert len(kept) > 15 and [ln for ln in kept if ln not in md] == []
