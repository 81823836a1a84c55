"""The example scripts run, and what they print is certified (checked against the API).

Scripts needing an optional extra (opacus, dp_accounting) are skipped without it.
"""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import pytest

import dpcompose as dpc

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def load(name: str):
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_schedule_calibration_example(capsys):
    out = load("schedule_calibration").main()
    printed = capsys.readouterr().out
    assert "schedule: noise multiplier" in printed and "epochs at sigma 1.1" in printed
    assert all(len(line) <= 80 for line in printed.splitlines())   # fits a terminal (issue 13)
    for r in out.values():
        assert r.compose().epsilon(1e-5) <= r.target_epsilon
    assert out["schedule"].more_private == "larger" and out["epochs"].more_private == "smaller"
    assert isinstance(out["epochs"].parameter, int)


def test_dp_accounting_migration_example(capsys):
    pytest.importorskip("dp_accounting")
    before, (lo, hi) = load("dp_accounting_migration").main()
    assert lo <= before and math.isclose(hi, before, rel_tol=1e-3)
    printed = capsys.readouterr().out
    assert "dp_accounting PLD" in printed and all(len(line) <= 80 for line in printed.splitlines())


def test_opacus_training_example(capsys):
    pytest.importorskip("opacus")
    eps = load("opacus_training").main(epochs=1)
    printed = capsys.readouterr().out
    assert len(eps) == 1 and math.isfinite(eps[0]) and "add/remove one example" in printed
    assert "Opacus RDP on the same steps" in printed
    assert all(len(line) <= 80 for line in printed.splitlines())


def test_schedule_plan_example_reports_and_calibrates(tmp_path):
    from typer.testing import CliRunner

    from dpcompose.cli import app

    r = CliRunner().invoke(app, ["calibrate", str(EXAMPLES / "dp_sgd_schedule.toml"), "--parameter", "s",
                                 "--epsilon", "3", "-m", "pld", "--json", "-q"])
    assert r.exit_code == 0, r.output
    import json

    d = json.loads(r.stdout)
    s = d["value"]
    n = 60000
    phases = [(dpc.Subsampled(dpc.Gaussian(s), 256 / n), 10 * 235), (dpc.Subsampled(dpc.Gaussian(s), 1024 / n), 5 * 59)]
    assert dpc.compose(phases, method="pld").epsilon(1e-5) <= 3.0
