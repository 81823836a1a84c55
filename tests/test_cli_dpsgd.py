"""`dpcompose dpsgd` and the new forms of `dpcompose calibrate` (named free parameters, plans).

Every number printed is compared with the Python API (itself tested against independent
truth in tests/test_dpsgd.py and tests/test_calibration.py); exit codes 0 / 2.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from typer.testing import CliRunner

import dpcompose as dpc
from dpcompose.cli import app

runner = CliRunner()
RUN = ["--batch-size", "256", "--dataset-size", "60000", "--delta", "1e-5"]


@pytest.fixture(autouse=True)
def _wide_tables(monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")


def run(*args: str):
    return runner.invoke(app, list(args))


def test_dpsgd_states_sampler_and_neighbours_and_matches_the_api():
    r = run("dpsgd", "--noise-multiplier", "1.1", "--epochs", "3", *RUN, "-q")
    assert r.exit_code == 0, r.output
    assert "add/remove one example" in r.stdout and "Poisson sampling" in r.stdout
    assert "3 epochs = 705 steps (235 per epoch)" in r.stdout
    g = dpc.dpsgd(noise_multiplier=1.1, batch_size=256, dataset_size=60000, epochs=3)
    lo, hi = g.epsilon_bounds(1e-5)
    from dpcompose.report import fmt_lower, fmt_upper

    assert f"ε ≤ {fmt_upper(hi)}" in r.stdout and f"ε ≥ {fmt_lower(lo)}" in r.stdout
    w = run("dpsgd", "--noise-multiplier", "1.1", "--steps", "20", *RUN, "--sampler", "without_replacement", "-q")
    assert w.exit_code == 0, w.output
    assert "substitution of one example" in w.stdout and "2 x the clipping norm" in w.stdout


def test_dpsgd_per_epoch_json_and_plot(tmp_path):
    plot = tmp_path / "eps.png"
    r = run("dpsgd", "-s", "1.1", "--epochs", "4", *RUN, "--per-epoch", "--json", "--plot", str(plot), "-q")
    assert r.exit_code == 0, r.output
    d = json.loads(r.stdout)
    assert d["neighbors"] == "add/remove one example" and d["sampler"] == "poisson"
    assert d["setting"]["steps"] == 940 and len(d["per_epoch"]) == 4
    rows = dpc.dpsgd(noise_multiplier=1.1, batch_size=256, dataset_size=60000, epochs=4).per_epoch(1e-5)
    assert [r_["epsilon_upper"] for r_ in d["per_epoch"]] == [r_["epsilon_upper"] for r_ in rows]
    assert plot.stat().st_size > 1000
    t = run("dpsgd", "-s", "1.1", "--epochs", "2", *RUN, "--per-epoch", "-q")
    assert t.exit_code == 0 and "ε after each epoch" in t.stdout and "│     2 │   470 │" in t.stdout


def test_dpsgd_target_epsilon_calibrates_and_checks():
    r = run("dpsgd", "--target-epsilon", "2", "--epochs", "5", *RUN, "--json", "-q")
    assert r.exit_code == 0, r.output
    d = json.loads(r.stdout)
    sigma = d["calibrated"]["noise_multiplier"]
    assert d["epsilon_upper"] <= 2.0
    assert sigma == dpc.dpsgd_noise(target_epsilon=2.0, delta=1e-5, batch_size=256, dataset_size=60000, epochs=5)


@pytest.mark.parametrize("args, words", [
    (["--noise-multiplier", "1.1", "--epochs", "1", "--sampler", "shuffle"], ["no known certified", "poisson"]),
    (["--noise-multiplier", "1.1", "--epochs", "1", "--steps", "3"], ["exactly one of epochs and steps"]),
    (["--epochs", "1"], ["--noise-multiplier", "--target-epsilon"]),
    (["--noise-multiplier", "1.1", "--target-epsilon", "1", "--epochs", "1"], ["exactly one"]),
    (["--noise-multiplier", "nan", "--epochs", "1"], ["noise_multiplier"]),
    (["--noise-multiplier", "1.1", "--epochs", "1", "--batch-size", "70000"], ["batch_size = 70000"]),
    (["--noise-multiplier", "1.1", "--epochs", "1", "--neighbors", "substitution"], ["add_remove"]),
    (["--noise-multiplier", "1.1", "--epochs", "1", "--plot", "x.gif"], [".gif"]),
])
def test_dpsgd_bad_input_exits_2(args, words):
    base = ["--batch-size", "256", "--dataset-size", "60000", "--delta", "1e-5"]
    if "--batch-size" in args:
        base = ["--dataset-size", "60000", "--delta", "1e-5"]
    r = run("dpsgd", *args, *base, "-q")
    assert r.exit_code == 2, r.output
    for w in words:
        assert w in r.output


def test_dpsgd_zero_delta_exits_2():
    r = run("dpsgd", "-s", "1.1", "--epochs", "1", "--batch-size", "256", "--dataset-size", "60000",
            "--delta", "0")
    assert r.exit_code == 2 and "never (epsilon, 0)-DP" in r.output


def test_calibrate_named_free_parameter():
    expr = "gaussian(sigma=s) @ poisson(256/60000) x 1000 + laplace(scale=4*s) x 5"
    r = run("calibrate", expr, "--epsilon", "1.5", "--delta", "1e-5", "-m", "pld", "--json", "-q")
    assert r.exit_code == 0, r.output
    d = json.loads(r.stdout)
    s = d["value"]
    assert d["parameter"] == "s" and d["more_private"] == "larger" and d["failing_value"] < s
    g = dpc.compose([(dpc.Subsampled(dpc.Gaussian(s), 256 / 60000), 1000), (dpc.Laplace(4 * s), 5)], method="pld")
    assert g.epsilon(1e-5) <= 1.5 and d["epsilon_achieved"] == g.epsilon(1e-5)
    # a count parameter is a whole number: the largest number of epochs meeting the target
    r = run("calibrate", "gaussian(1.1) @ poisson(256/60000) x e*235", "--epsilon", "1", "--delta", "1e-5",
            "-m", "pld", "--json", "-q", "--max", "1000")
    assert r.exit_code == 0, r.output
    d = json.loads(r.stdout)
    e = d["value"]
    assert isinstance(e, int) and d["more_private"] == "smaller" and d["failing_value"] == e + 1
    m = dpc.Subsampled(dpc.Gaussian(1.1), 256 / 60000)
    assert dpc.compose([(m, 235 * e)], method="pld").epsilon(1e-5) <= 1.0
    assert dpc.compose([(m, 235 * (e + 1))], method="pld").epsilon(1e-5) > 1.0


def test_calibrate_plan_file(tmp_path):
    plan = tmp_path / "plan.toml"
    plan.write_text('title = "free sigma"\n[[invocations]]\nmechanism = "gaussian(sigma=s) x 20"\n'
                    '[targets]\ndeltas = [1e-6]\n', encoding="utf-8")
    r = run("calibrate", str(plan), "--epsilon", "1", "-m", "pld", "--json", "-q")
    assert r.exit_code == 0, r.output
    d = json.loads(r.stdout)
    assert d["parameter"] == "s" and d["delta_target"] == 1e-6 and d["epsilon_achieved"] <= 1.0
    s = d["value"]
    sigma1 = dpc.calibrate("gaussian", 1, epsilon=1.0, delta=1e-6, method="pld").parameter
    assert s == pytest.approx(sigma1 * math.sqrt(20), rel=1e-4)   # 20 Gaussians are one with mu sqrt(20)
    text = run("calibrate", str(plan), "--epsilon", "1", "-m", "pld", "-q")
    assert text.exit_code == 0 and "s = " in text.stdout and "certified upper bound" in text.stdout


def test_calibrate_hypothesis_dp_plan(tmp_path):
    plan = tmp_path / "h.toml"
    plan.write_text('[[databases]]\nname = "hospital"\ncount = 50\n[[invocations]]\n'
                    'mechanism = "laplace(scale=b)"\ndatabase = "hospital"\n[membership]\nmax_databases = 5\n'
                    '[targets]\ndeltas = [1e-6]\n', encoding="utf-8")
    r = run("calibrate", str(plan), "--parameter", "b", "--epsilon", "1", "-m", "simple", "--json", "-q")
    assert r.exit_code == 0, r.output
    d = json.loads(r.stdout)
    # a person is in at most 5 databases: the release is (5/b)-DP (parallel composition, the
    # library's), and an eps-DP release is (log(e^eps - delta (1 + e^eps)), delta)-DP (its class's
    # worst case is randomized response): the smallest b meeting (1, 1e-6) solves
    # 5/b = log((e + delta) / (1 - delta)), just below the 5 of simple composition
    b_star = 5.0 / math.log((math.e + 1e-6) / (1 - 1e-6))
    assert b_star <= d["value"] <= b_star * (1 + 1e-5) and "hypothesis DP" in d["method"]


@pytest.mark.parametrize("args, words", [
    (["gaussian(sigma=s) x 3 + laplace(scale=t)", "--epsilon", "1", "--delta", "1e-6"], ["several free parameters"]),
    (["gaussian(sigma=s) x 3", "--epsilon", "1", "--delta", "1e-6", "--parameter", "t"], ["'t'", "not a free parameter"]),
    (["laplace x 3", "--epsilon", "1", "--parameter", "b"], ["no named free parameter"]),
    (["gaussian(sigma=s) x 3", "--epsilon", "1", "--delta", "1e-6", "--more-private", "up"], ["--more-private"]),
    (["missing.toml", "--epsilon", "1"], ["missing.toml"]),
])
def test_calibrate_bad_input_exits_2(args, words):
    r = run("calibrate", *args, "-q")
    assert r.exit_code == 2, r.output
    for w in words:
        assert w in r.output


def test_calibrate_plan_needs_a_named_parameter(tmp_path):
    plan = tmp_path / "two.toml"
    plan.write_text('[parameters]\na = 1.0\n[[invocations]]\nmechanism = "laplace(scale=a) + laplace(scale=b)"\n',
                    encoding="utf-8")
    r = run("calibrate", str(plan), "--epsilon", "1", "-q")
    assert r.exit_code == 2 and "--parameter" in r.output
    # simple composition: 1/a + 1/b <= 2 with a = 1 gives b >= 1
    r = run("calibrate", str(plan), "--epsilon", "2", "--parameter", "b", "-m", "simple", "--json", "-q")
    assert r.exit_code == 0, r.output
    assert 1.0 <= json.loads(r.stdout)["value"] <= 1.0 + 1e-5
