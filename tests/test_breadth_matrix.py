"""Issue 12's audit matrix: every breadth item works, or refuses with a reason, in every place.

The matrix is ``benchmarks/audit_breadth.py`` (its table is in ``benchmarks/README.md``).
Here each row is rebuilt and checked:

- no cell crashes (an exception that is not a dpcompose error, a CLI exit code other than
  0 or 2, a nan, or a plan that builds a different mechanism than the Python class);
- every refusal carries a message (it names what is wrong; the expressions' and plans'
  messages list what is accepted);
- the cells that work today (``WORKS``) keep working: a later change that turns one into
  a refusal fails here. A cell that starts working (new syntax, a new sampler) passes.

The numbers themselves are checked against independent truth in each item's own test
file (the ``test`` column, named in docs/theory.md); this module checks the wiring.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _load_audit():
    spec = importlib.util.spec_from_file_location("audit_breadth", ROOT / "benchmarks" / "audit_breadth.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("audit_breadth", module)
    spec.loader.exec_module(module)
    return module


AB = _load_audit()

ALL = set(AB.MECHANISM_COLUMNS)
DOCS = {"theory", "test", "listing", "readme"}
#: the cells that work today; a cell may start working, none may stop
WORKS: dict[str, set[str]] = {
    "discrete Gaussian": ALL,
    "discrete Laplace": ALL,
    "zCDP input": ALL,
    "Renyi curve input": set(),
    "bounded range (exponential)": ALL,
    "permute-and-flip": ALL,
    "report-noisy-max, Gumbel": ALL,
    "report-noisy-max, Laplace": ALL,
    "mixture of Gaussians": {"compose", "calibration", "hdp", "theory", "test", "readme"},
    "tree aggregation (DP-FTRL)": ALL,
    "sparse vector": ALL,
    "sampling with replacement": {"theory", "test", "readme"},
    "truncated Poisson": {"theory", "test", "readme"},
    "random allocation": {"compose", "calibration", "hdp", "theory", "test", "readme"},
    "Poisson under substitution": ALL - {"listing"},
    "group privacy": ALL,
    "trade-off band (f-DP)": {"python", "cli", "hdp"} | DOCS,
    "TPR at FPR": {"python", "cli", "hdp"} | DOCS,
    "attack advantage": {"python", "cli", "hdp"} | DOCS,
    "Gaussian-DP mu bracket": {"python", "cli", "hdp"} | DOCS,
    "report plot of the band": {"python", "cli", "hdp"} | DOCS,
    "calibration to a risk target": {"python", "calibration"} | DOCS,
    "empirical audit comparison": {"python", "cli", "hdp"} | DOCS,
}
#: rows that compose or calibrate a pld pair on a fine lattice, or draw a plot (seconds each)
SLOW = {"discrete Gaussian", "mixture of Gaussians", "tree aggregation (DP-FTRL)", "report plot of the band",
        "calibration to a risk target", "trade-off band (f-DP)"}

ITEMS = {item.name: item for item in AB.mechanism_items() + AB.output_items()}


@pytest.fixture(scope="module")
def texts() -> tuple[str, str, str]:
    return AB._listing(), (ROOT / "docs" / "theory.md").read_text(), (ROOT / "README.md").read_text()


def test_every_item_has_an_expectation():
    assert set(WORKS) == set(ITEMS)


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n in SLOW else n for n in ITEMS])
def test_each_cell_works_or_refuses_with_a_reason(name, texts, monkeypatch):
    monkeypatch.setenv("COLUMNS", "250")
    item = ITEMS[name]
    row = (AB.mechanism_row if item.kind != "output" else AB.output_row)(item, *texts)
    crashes = {c: cell.detail for c, cell in row.items() if cell.status == "CRASH"}
    assert not crashes, crashes
    silent = [c for c, cell in row.items() if cell.status in ("refused", "absent") and len(cell.detail) < 10]
    assert not silent, f"{name}: refusals without a reason in {silent}"
    stopped = {c: row[c].detail for c in WORKS[name] if row[c].status != "ok"}
    assert not stopped, f"{name}: these cells worked and no longer do: {stopped}"


def test_a_plan_table_builds_the_same_mechanism_as_the_class():
    """The plan column compares the plan's mechanisms with the Python object (a CRASH otherwise)."""
    item = ITEMS["group privacy"]
    assert AB._plan_cell(item).status == "ok"
    wrong = AB.Item("wrong", "mechanism", mechanism=lambda: AB.dpc.Group(AB.dpc.Gaussian(10.0), 2),
                    plan_table=item.plan_table)
    assert AB._plan_cell(wrong).status == "CRASH"


def test_the_audit_classifies_a_crash_and_a_refusal():
    def crash():
        raise ZeroDivisionError("x")

    def refuse():
        raise AB.dpc.MethodNotApplicableError("no rule for this input; use method='rdp'")

    assert AB._try(crash).status == "CRASH"
    assert AB._try(refuse).status == "refused"
    assert AB._try(lambda: float("nan")).status == "CRASH"
    assert AB._try(lambda: 1.5).status == "ok"
