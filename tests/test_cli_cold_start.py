"""Import discipline of the command line (issue 14 / issue 15 "cold start"): what a fresh
interpreter loads for ``import dpcompose.interfaces.cli`` and for a one-line query.

No timings here (speed belongs in ``benchmarks/bench_cold_start.py``): which modules are
loaded is deterministic. The query runs through the fast path
(:mod:`dpcompose.interfaces.cli_fast`), which never builds the typer application: no typer,
click or pydantic (typer's parameter adapters), no rich for a one-line answer, no ledger or
f-DP command modules, no report model, plots or review document, no SciPy (pld convolves
with ``numpy.fft``) and no ``numpy.ma`` (``np.unique`` loads it: ``sorted_unique``).
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from dpcompose.interfaces.cli import _RICH_TERMINAL_ENV

#: never needed by a one-line composition query (plots, plan files, calibration, research)
UNUSED_BY_QUERY = ("matplotlib", "scipy.signal", "scipy.optimize", "scipy.stats", "pandas", "fastapi",
                   "mpmath", "dpcompose.interfaces.plan", "dpcompose.calibration",
                   # the typer application: built only when a command other than a plain query runs
                   "pydantic", "typer._adapters", "dpcompose.interfaces.cli_app", "dpcompose.interfaces.cli_fdp",
                   "dpcompose.ledger",
                   # issue 15 cold start: the one-line query prints with sys.stdout
                   "typer", "click", "rich", "scipy", "numpy.ma", "dpcompose.interfaces.report.model",
                   "dpcompose.interfaces.report.plot", "dpcompose.interfaces.report.render",
                   # family files load when a rule of one of their classes is asked for (laplace here)
                   *(f"dpcompose.representations.{f}" for f in (
                       "subsampled", "discrete_laplace", "discrete_gaussian", "zcdp", "group", "bounded_range",
                       "selection", "tree_aggregation", "random_allocation", "mixture")))
#: never needed by a library query of a closed-form method or ``optimal`` (issue 14)
UNUSED_BY_LIBRARY_QUERY = ("typer", "click", "rich", "pydantic", "matplotlib", "scipy", "numpy.ma", "mpmath",
                           "dpcompose.interfaces", "dpcompose.calibration", "dpcompose.hypotheses")


def _loaded_after(code: str) -> tuple[set[str], str]:
    probe = ("import sys, atexit\n"
             "atexit.register(lambda: sys.stderr.write('\\nMODULES ' + ' '.join(sorted(sys.modules)) + '\\n'))\n"
             + code)
    # rich may call a stream that is not a tty a terminal under these (then it loads, for progress)
    env = {k: v for k, v in os.environ.items() if k not in _RICH_TERMINAL_ENV}
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=300, env=env)
    assert out.returncode == 0, out.stderr
    mods = out.stderr.rsplit("MODULES ", 1)[1].split()
    return set(mods), out.stdout


def _present(mods: set[str], names: tuple[str, ...]) -> set[str]:
    return {m for m in mods if any(m == n or m.startswith(n + ".") for n in names)}


def test_importing_the_cli_loads_no_scipy_typer_or_plots():
    mods, _ = _loaded_after("import dpcompose.interfaces.cli")
    assert _present(mods, ("scipy", "typer", "click") + UNUSED_BY_QUERY) == set()


def test_one_line_epsilon_query_loads_nothing_it_does_not_use():
    code = ("from dpcompose.interfaces.cli import main\n"
            "sys.argv = ['dpcompose', 'epsilon', 'laplace(scale=20) x 500', '--delta', '1e-6']\n"
            "try:\n    main()\nexcept SystemExit as exc:\n    assert not exc.code, exc.code\n")
    mods, stdout = _loaded_after(code)
    assert "ε ≤" in stdout  # the query ran and printed its bound
    assert _present(mods, UNUSED_BY_QUERY) == set()


def test_query_defaults_are_plot_kinds():
    """The fast path accepts the queries' default --plot-kind without loading the plot module."""
    from dpcompose.interfaces.cli_base import QUERY_PLOT_KINDS
    from dpcompose.interfaces.cli_fast import _COMMANDS
    from dpcompose.interfaces.report.plot import PLOT_KINDS

    assert {c[3] for c in _COMMANDS.values()} == set(QUERY_PLOT_KINDS) <= set(PLOT_KINDS)


@pytest.mark.parametrize("method", ["simple", "advanced", "optimal"])
def test_first_library_query_loads_no_interface_or_heavy_module(method):
    code = ("import dpcompose as d\n"
            f"g = d.compose([(d.Laplace(scale=20.0), 10**6)], method={method!r})\n"
            "print(g.epsilon(delta=1e-6))\n")
    mods, stdout = _loaded_after(code)
    assert float(stdout) > 0
    assert _present(mods, UNUSED_BY_LIBRARY_QUERY) == set()
