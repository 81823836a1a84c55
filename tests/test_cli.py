"""The dpcompose command line through its real entry point (typer's CliRunner, and one
subprocess run of the installed ``dpcompose`` script): exit codes 0 / 2 / 1, messages that
name the file and field, JSON equal to the Python API, plots, the demo."""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

import dpcompose as dpc
from dpcompose.cli import app
from dpcompose.report import PLOT_SIZE_PX, composition_methods

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((ROOT / "examples").glob("*.toml"))
HOSPITALS = ROOT / "src" / "dpcompose" / "data" / "hospitals.toml"

runner = CliRunner()


@pytest.fixture(autouse=True)
def _wide_tables(monkeypatch):
    """Tables one row per line whatever the CI terminal width."""
    monkeypatch.setenv("COLUMNS", "200")


def run(*args: str):
    return runner.invoke(app, list(args))


def _no_nan(text: str) -> None:
    assert not re.search(r"\bnan\b", text, re.IGNORECASE), text


@pytest.mark.parametrize("path", EXAMPLES + [HOSPITALS], ids=lambda p: p.name)
def test_report_every_example_plan(path):
    r = run("report", str(path), "--quiet")
    assert r.exit_code == 0, r.output
    assert "★" in r.stdout and "certified upper bound" in r.stdout
    _no_nan(r.output)


def test_report_json_matches_python_api():
    path = ROOT / "examples" / "heterogeneous.toml"
    r = run("report", str(path), "--json")
    assert r.exit_code == 0, r.output
    d = json.loads(r.stdout)
    from dpcompose.plan import load_plan
    from dpcompose.report import report_options

    plan = load_plan(path)
    mechs = plan.composition()
    # the report passes its per-method options (plan's, else the report defaults)
    opts = report_options(plan.spec.options)
    assert d["rows"]
    for row in d["rows"]:
        g = dpc.compose(mechs, method=row["method"], **opts.get(row["method"], {}))
        if "delta" in row and "epsilon_upper" in row:
            assert row["epsilon_upper"] == g.epsilon(row["delta"])
        else:
            assert row["delta_upper"] == g.delta(row["epsilon"])
        assert row["status"] and row["provenance"]["method"] == row["method"]
    assert sum(r["tightest"] for r in d["rows"] if "epsilon_upper" in r and r["delta"] == 1e-6) == 1
    _no_nan(r.stdout)


def test_report_markdown_and_method_filter():
    r = run("report", str(ROOT / "examples" / "pure_dp_100.toml"), "--markdown", "-m", "simple")
    assert r.exit_code == 0, r.output
    # numbers as written: 100 x 0.1 is exactly 10 (issue 13), shown without trailing zeros
    assert "| ★ | simple | 10 | — |" in r.stdout
    assert "| advanced |" not in r.stdout


@pytest.mark.parametrize(
    "text, words",
    [
        ('[[invocations]]\nmechanism = "laplace(1)"\ncount = "many"\n', ["invocations[0].count", "'many'"]),
        ('[[invocations]]\nmechanism = "laplace(1)"\ncolour = 3\n', ["invocations[0].colour", "unknown key"]),
        ('[[invocations]]\nmechanism = "laplace(1)"\n' * 3
         + '[[invocations]]\nmechanism = { type = "laplace", scale = -1 }\n',
         ["invocations[3].mechanism.scale", "-1", "Remedy"]),
        ('[[invocations]]\nmechanism = "laplace(1)"\n[targets]\ndeltas = [1.0]\n', ["targets.deltas[0]", "1.0"]),
        ("", ["invocations", "empty"]),
        ('[[invocations\nmechanism = "laplace(1)"\n', ["not valid TOML", "line 1"]),
        ('methods = ["magic"]\n[[invocations]]\nmechanism = "laplace(1)"\n', ["methods[0] = 'magic'"]),
    ],
    ids=["wrong-type", "unknown-key", "negative-scale", "delta-ge-1", "empty", "bad-toml", "unknown-method"],
)
def test_malformed_plans_exit_2_naming_file_and_field(tmp_path, text, words):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    r = run("report", str(path))
    assert r.exit_code == 2, r.output
    assert r.stdout == ""
    assert "bad.toml" in r.stderr
    for w in words:
        assert w in r.stderr, (w, r.stderr)


@pytest.mark.parametrize(
    "text, words",
    [
        ('[[invocations]]\nmechanism = "laplace(1)"\ncount = "100"\n', ["invocations[0].count", "'100'"]),
        ('[[invocations]]\nmechanism = "laplace(1)"\ncount = true\n', ["invocations[0].count", "true"]),
        ('[[invocations]]\nmechanism = { type = "laplace", scale = true }\n',
         ["invocations[0].mechanism.scale", "true"]),
        ('[[invocations]]\nmechanism = "laplace(1)"\n[options.pld]\ndiscretization = 0\n',
         ["options.pld.discretization"]),
        ('[[invocations]]\nmechanism = "laplace(1)"\n[options.pld]\ntolerance = "abc"\n',
         ["options.pld.tolerance", "'abc'"]),
        ('[[invocations]]\nmechanism = "laplace(1)"\n[targets]\ndeltas = [1e-400]\n',
         ["targets.deltas[0]", "underflows"]),
    ],
    ids=["count-string", "count-bool", "scale-bool", "pld-discretization-0", "pld-tolerance-string",
         "delta-underflow"],
)
def test_wrong_types_and_bad_options_exit_2(tmp_path, text, words):
    """Issue 9 item 10: these were accepted (exit 0), a bad option silently dropping its row."""
    path = tmp_path / "bad.toml"
    path.write_text(text)
    r = run("report", str(path), "-m", "simple", "-m", "pld")
    assert r.exit_code == 2, r.output
    assert r.stdout == "" and "bad.toml" in r.stderr
    for w in words:
        assert w in r.stderr, (w, r.stderr)


def test_missing_plan_file_exits_2(tmp_path):
    r = run("report", str(tmp_path / "nope.toml"))
    assert r.exit_code == 2 and "nope.toml" in r.stderr


@pytest.mark.parametrize("ext", [".png", ".svg", ".html"])
def test_report_writes_plot(tmp_path, ext):
    out = tmp_path / f"p{ext}"
    r = run("report", str(ROOT / "examples" / "pure_dp_100.toml"), "--plot", str(out))
    assert r.exit_code == 0, r.output
    assert out.stat().st_size > 1000
    assert f"plot written to {out.resolve()}" in r.output
    if ext == ".png":
        from PIL import Image

        with Image.open(out) as im:
            assert im.format == "PNG" and im.size == PLOT_SIZE_PX


def test_report_plot_bad_extension_exits_2(tmp_path):
    r = run("report", str(ROOT / "examples" / "pure_dp_100.toml"), "--plot", str(tmp_path / "p.bmp"))
    assert r.exit_code == 2 and ".png, .svg, .pdf or .html" in r.stderr


def test_demo_prints_tables_and_writes_plot(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    r = run("demo", "--quiet")
    assert r.exit_code == 0, r.output
    out = r.stdout
    plot = tmp_path / "dpcompose-demo-hospitals.png"
    assert plot.exists() and plot.stat().st_size > 1000
    assert str(plot) in out.replace("\n", "")
    assert "4.77" in out
    for m in composition_methods():
        assert m in out
    lines = out.splitlines()
    simple = [ln.split() for ln in lines if re.match(r"^\s*★?\s*simple\s", ln)]
    assert simple and simple[0][simple[0].index("simple") + 1] == "10"  # numbers as written: exactly 10
    adv = [ln for ln in lines if re.match(r"^\s*advanced\s", ln)]
    if adv:
        assert "6.3083" in adv[0]
    assert "Hartmann" in out and "365" in out
    _no_nan(out)
    if "optimal" in dpc.available_methods():   # the exact optimum, in the optimal row itself
        row = [ln for ln in lines if re.match(r"^\s*★?\s*optimal\s", ln)][0]
        assert "4.7746" in row


def test_epsilon_query_matches_api():
    r = run("epsilon", "laplace(scale=20) x 500", "--delta", "1e-6")
    assert r.exit_code == 0, r.output
    g = dpc.compose([(dpc.Laplace(20.0), 500)])
    value = g.epsilon(1e-6)
    m = re.search(r"ε ≤ ([0-9.]+)", r.stdout)
    shown = float(m.group(1))
    assert value <= shown <= value + 1e-4       # displayed rounded up
    assert "certified upper bound" in r.stdout and "δ = 1e-06" in r.stdout


def test_epsilon_and_delta_json():
    r = run("epsilon", "pure(0.1) x 100", "--delta", "1e-6", "--method", "simple", "--json")
    d = json.loads(r.stdout)
    assert r.exit_code == 0 and d["method"] == "simple" and 10.0 <= d["epsilon_upper"] <= 10.0 + 1e-9
    r = run("delta", "pure(0.1) x 100", "--epsilon", "1", "--json")
    d = json.loads(r.stdout)
    g = dpc.compose([(dpc.PureDP(0.1), 100)])
    assert r.exit_code == 0 and d["delta_upper"] == g.delta(1.0) and 0 <= d["delta_upper"] <= 1


def test_epsilon_all_methods_table():
    r = run("epsilon", "pure(0.1) x 100", "--delta", "1e-6", "--all", "-q")
    assert r.exit_code == 0, r.output
    for m in composition_methods():
        assert m in r.stdout


def test_calibrate_meets_the_target():
    r = run("calibrate", "gaussian x 100 @ poisson(0.01)", "--epsilon", "1", "--delta", "1e-5", "--json",
            "--method", "rdp")
    assert r.exit_code == 0, r.output
    d = json.loads(r.stdout)
    sigma = d["value"]
    g = dpc.compose([(dpc.Subsampled(dpc.Gaussian(sigma), 0.01), 100)], method="rdp")
    assert g.epsilon(1e-5) <= 1.0
    # a multi-term template goes through dpcompose.calibration.calibrate too, and is re-checked
    r = run("calibrate", "laplace x 10 + pure(0.5)", "--epsilon", "1.5", "--delta", "0", "-m", "simple", "--json")
    assert r.exit_code == 0, r.output
    d = json.loads(r.stdout)
    assert d["calibrated_by"].startswith("dpcompose.calibration.calibrate")
    assert 10.0 <= d["value"] <= 10.0 * (1 + 2e-6)   # 10/b + 0.5 <= 1.5  <=>  b >= 10
    r = run("calibrate", "laplace x 10", "--epsilon", "1", "--delta", "0", "--method", "simple")
    assert r.exit_code == 0, r.output
    assert "scale = 10" in r.stdout   # simple composition: 10 * (1/b) <= 1 exactly at b = 10


@pytest.mark.parametrize(
    "args, words",
    [
        (["epsilon", "laplace(scale=20) x", "--delta", "1e-6"], ["position 19", "^"]),
        (["epsilon", "laplace(scale=-20)", "--delta", "1e-6"], ["Laplace.scale"]),
        (["epsilon", "laplace(20)", "--delta", "1.5"], ["--delta"]),
        (["epsilon", "laplace(20)", "--delta", "nan"], ["--delta"]),
        (["delta", "laplace(20)", "--epsilon", "-1"], ["--epsilon"]),
        (["epsilon", "laplace(20)", "--delta", "1e-6", "--method", "magic"], ["magic"]),
        (["calibrate", "laplace(3) x 10", "--epsilon", "1"], ["exactly one"]),
        (["calibrate", "laplace x 10", "--epsilon", "0"], ["--epsilon"]),
        (["epsilon", "laplace(20)"], ["--delta"]),            # usage error from click
        # issue 9 item 10: a number a double cannot hold is refused, not read as 0 or inf
        (["epsilon", "laplace(20)", "--delta", "1e-400"], ["--delta", "1e-400", "underflows"]),
        (["delta", "laplace(20)", "--epsilon", "1e400"], ["--epsilon", "1e400", "overflows"]),
        (["calibrate", "laplace x 10", "--epsilon", "1", "--delta", "1e-330"], ["--delta", "underflows"]),
        (["epsilon", "laplace(20)", "--delta", "abc"], ["--delta", "'abc'", "not a number"]),
        (["epsilon", "approx(1, 1e-400) x 3", "--delta", "1e-6"], ["1e-400", "underflows", "^"]),
    ],
)
def test_bad_queries_exit_2(args, words):
    r = run(*args)
    assert r.exit_code == 2, r.output
    for w in words:
        assert w in r.output


def test_internal_failure_exits_1(monkeypatch):
    C = sys.modules["dpcompose.compose"]

    def boom(*a, **k):
        raise RuntimeError("simulated bug")

    monkeypatch.setattr(C, "compose", boom)

    r = run("epsilon", "laplace(20)", "--delta", "1e-6")
    assert r.exit_code == 1 and "internal failure" in r.stderr and "simulated bug" in r.stderr


def test_methods_and_schema_and_version():
    r = run("methods")
    assert r.exit_code == 0
    for m in dpc.available_methods():
        assert m in r.stdout
    assert "[membership]" in r.stdout
    r = run("schema")
    assert r.exit_code == 0 and json.loads(r.stdout)["title"] == "dpcompose plan"
    r = run("--version")
    assert r.exit_code == 0 and dpc.__version__ in r.stdout


def test_installed_console_script(tmp_path):
    exe = shutil.which("dpcompose", path=str(Path(sys.executable).parent)) or shutil.which("dpcompose")
    if exe is None:
        pytest.skip("the dpcompose console script is not installed")
    env = {**os.environ, "COLUMNS": "200"}
    ok = subprocess.run([exe, "epsilon", "pure(0.1) x 100", "--delta", "1e-6", "-m", "simple"],
                        capture_output=True, text=True, env=env, timeout=60)
    assert ok.returncode == 0, ok.stderr
    assert "ε ≤ 10 " in ok.stdout  # numbers as written: 100 x 0.1 is exactly 10
    bad = tmp_path / "bad.toml"
    bad.write_text('[[invocations]]\nmechanism = { type = "laplace", scale = -1 }\n')
    res = subprocess.run([exe, "report", str(bad)], capture_output=True, text=True, env=env, timeout=60)
    assert res.returncode == 2 and "invocations[0].mechanism.scale" in res.stderr


def test_quiet_suppresses_messages_but_not_results(tmp_path):
    out = tmp_path / "q.svg"
    r = run("report", str(ROOT / "examples" / "pure_dp_100.toml"), "--plot", str(out), "--quiet", "--json")
    assert r.exit_code == 0 and out.exists()
    assert "plot written" not in r.output
    json.loads(r.stdout)


def test_report_method_filter_hdp_only():
    r = run("report", str(HOSPITALS), "-m", "hdp", "-q", "--json")
    assert r.exit_code == 0, r.output
    rows = json.loads(r.stdout)["rows"]
    assert rows and all(row["applies_to"] != "classic DP" for row in rows)
