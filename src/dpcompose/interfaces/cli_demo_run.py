"""The work of ``dpcompose demo`` (the built-in tour), without typer: the typer command
(:mod:`.cli_demo`) and the fast path (:mod:`.cli_fast`, which runs the plain forms of the
command without building the typer application, whose parameter conversion loads pydantic)
both call :func:`run_demo`, so their output is the same.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from .cli import _console, _Progress, _warn
from .cli_base import _check_outputs

if TYPE_CHECKING:
    from .report.plot_worker import PlotWorker

DEMO_PLOT = "dpcompose-demo-hospitals.png"


def run_demo(plot: Path, verbose: bool, quiet: bool) -> None:
    """Print the tour's three parts and write the hospitals plot to ``plot``."""
    from .report.plot_worker import PlotWorker

    # a child process imports matplotlib while the tables are computed, then draws the
    # plot: started first (importing matplotlib takes it about as long as the tables take)
    with PlotWorker() as worker:
        _check_outputs(plot, "epsilon-delta", None)
        _demo_sections(plot, verbose, quiet, worker)


def _demo_sections(plot: Path, verbose: bool, quiet: bool, worker: PlotWorker) -> None:
    """The demo's three parts; ``worker`` (a :class:`~.report.plot_worker.PlotWorker`) draws the plot.

    The third part and its plot's data are computed first, so that the child draws the plot
    while the first two parts are computed and shown (the child, importing matplotlib, is
    ready about when the data is); the output is in the same order.
    """
    from . import report as R
    from ..mechanisms import ApproxDP, Laplace, PureDP
    from .plan import bundled_plan

    n_methods = len(R.composition_methods())
    plan = bundled_plan("hospitals")
    with _Progress(n_methods * 2 + 2, quiet, "steps") as prog:
        rep3 = R.build_report(plan, progress=prog, warn=_warn)
    worker.submit(rep3, plot)           # the child draws while parts 1 and 2 are computed

    from rich.markup import escape

    out = _console()
    out.rule("1. k = 100 mechanisms, each 0.1-DP, at δ = 1e-6")
    out.print("Known values: optimal composition (Kairouz, Oh and Viswanath) ε = 4.7746; simple "
              "composition 10; advanced composition (Dwork, Rothblum and Vadhan) 6.31.")
    with _Progress(n_methods, quiet, "methods") as prog:
        rep1 = R.compare([(PureDP(0.1), 100)], deltas=[1e-6], progress=prog, warn=_warn)
    R.render_table(rep1, out, verbose=verbose)

    out.rule("2. A heterogeneous list, at δ = 1e-6")
    hetero = [(PureDP(0.1), 50), (Laplace(scale=5.0), 30), (ApproxDP(0.05, 1e-8), 20)]
    with _Progress(n_methods, quiet, "methods") as prog:
        rep2 = R.compare(hetero, deltas=[1e-6], progress=prog, warn=_warn)
    R.render_table(rep2, out, verbose=verbose)

    out.rule("3. The hospitals example (Hartmann, Bindschaedler and West, Example 1)")
    if plan.spec.description:
        out.print(escape(plan.spec.description))
    R.render_table(rep3, out, verbose=verbose)
    path = worker.result()
    out.print(f"plot of ε against δ for the hospitals example written to {escape(str(path.resolve()))}")
    out.print("Next: `dpcompose report PLAN.toml` for your own release (docs/plans.md), "
              "`dpcompose epsilon \"laplace(scale=20) x 500\" --delta 1e-6` for a one-line query.")
