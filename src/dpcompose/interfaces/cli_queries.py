"""The work of the one-line queries ``dpcompose epsilon EXPR --delta D`` and ``dpcompose delta
EXPR --epsilon E``, without typer (issue 15 "cold start").

The typer commands (:mod:`.cli_query`) and the fast path (:mod:`.cli_fast`) both call
:func:`run_epsilon` / :func:`run_delta`: the same validation, output and exit codes. Only
what a query asks for is loaded: the report's rows for the method names and the sanity
warnings; rich only for a table (several results, ``--all``), a warning or progress on a
terminal; the report's model and plots only for ``--all``, ``--plot`` or ``--plot-data``.
"""

from __future__ import annotations

import functools
import json
from typing import TYPE_CHECKING, Any, Callable, List, Optional

from .cli import _console, _Progress, _warn
from .cli_base import _check_outputs, _methods_option, _write_plots, echo

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["run_epsilon", "run_delta"]


def run_epsilon(expression: str, delta: List[float], method: Optional[List[str]] = None, compare_all: bool = False,
                as_json: bool = False, plot: Optional[Path] = None, plot_kind: str = "epsilon-delta",
                plot_data: Optional[Path] = None, verbose: bool = False, quiet: bool = False) -> None:
    """``dpcompose epsilon``: certified epsilon at each delta (the command's options as keywords)."""
    from .._validation import check_delta

    targets = _targets("--delta", delta, functools.partial(check_delta, allow_one=True))
    _query(expression, "epsilon", targets, method, compare_all, as_json, quiet, verbose, plot, plot_kind,
           plot_data)


def run_delta(expression: str, epsilon: List[float], method: Optional[List[str]] = None, compare_all: bool = False,
              as_json: bool = False, plot: Optional[Path] = None, plot_kind: str = "delta-epsilon",
              plot_data: Optional[Path] = None, verbose: bool = False, quiet: bool = False) -> None:
    """``dpcompose delta``: certified delta at each epsilon (the command's options as keywords)."""
    from .._validation import check_epsilon

    targets = _targets("--epsilon", epsilon, functools.partial(check_epsilon, allow_inf=True))
    _query(expression, "delta", targets, method, compare_all, as_json, quiet, verbose, plot, plot_kind,
           plot_data)


def _parse(expr: str) -> list[Any]:
    from .expressions import to_mechanisms

    mechs = to_mechanisms(expr)
    _refuse_zero_counts(expr, mechs)
    return mechs


def _refuse_zero_counts(expr: str, mechs: list[Any]) -> None:
    from ..errors import InvalidParameterError

    for m, k in mechs:
        if k == 0:
            from ..mechanisms import describe

            raise InvalidParameterError(
                f"{expr!r}: {describe(m)} runs 0 times (x 0), so it adds nothing. Remedy: remove the term, "
                f"or give a count >= 1.")


def _bound_line(kind: str, upper: Any, lower: Optional[float], method: str, target: str,
                combined: bool = False) -> str:
    from .report import fmt_lower

    sym = "ε" if kind == "epsilon" else "δ"
    s = f"{sym} ≤ {upper}  (certified upper bound, method {method}, at {target})"
    if lower is not None:
        src = "the largest of the applicable methods' lower bounds" if combined else "same method"
        s += f"\n{sym} ≥ {fmt_lower(lower, kind)}  (certified lower bound, {src})"
    return s


def _winner(g: Any, kind: str, target: float) -> str:
    from ..guarantee import CombinedGuarantee

    if not isinstance(g, CombinedGuarantee):
        return g.method
    if kind == "epsilon":
        return g.method_for(target)
    return min(g.components, key=lambda c: c.delta(target)).method


def _query(expr: str, kind: str, targets: list[float], method: Optional[List[str]], compare_all: bool,
           as_json: bool, quiet: bool, verbose: bool, plot: Optional[Path], plot_kind: str,
           plot_data: Optional[Path]) -> None:
    from . import report as R
    from ..compose import compose
    from ..guarantee import CombinedGuarantee

    pkind = _check_outputs(plot, plot_kind, plot_data)
    methods = _methods_option(method, report_only=False) or ["auto"]
    mechs = _parse(expr)
    deltas = targets if kind == "epsilon" else []
    epsilons = targets if kind == "delta" else []
    for w in R.sanity_warnings(mechs, deltas or [1e-6]):
        _warn(w)
    if compare_all:
        with _Progress(len(R.composition_methods()), quiet, "methods") as prog:
            rep = R.compare(mechs, deltas=deltas, epsilons=epsilons, progress=prog,
                            methods=None if methods == ["auto"] else methods)
        _write_plots(rep, plot, pkind, plot_data, quiet, to_stderr=as_json)
        if as_json:
            echo(R.to_json(rep))
        else:
            R.render_table(rep, _console(), verbose=verbose)
        return
    with _Progress(len(methods), quiet, "methods") as prog:
        gs = []
        for m in methods:
            prog(m)
            gs.append(compose(mechs, method=m))
    results: list[dict[str, Any]] = []
    for m, g in zip(methods, gs):
        for x in targets:
            lo, hi = g.epsilon_bounds(x) if kind == "epsilon" else g.delta_bounds(x)
            results.append({"requested_method": m, "method": _winner(g, kind, x), "target": x, "upper": hi,
                            "lower": lo if g.has_lower_bound else None,
                            "combined": isinstance(g, CombinedGuarantee), "guarantee": g})
    if plot is not None or plot_data is not None:
        rep = R.from_guarantees(gs, mechs, deltas=deltas, epsilons=epsilons)
        _write_plots(rep, plot, pkind, plot_data, quiet, to_stderr=as_json)
    if as_json:
        echo(json.dumps(R.jsonable(_query_json(expr, kind, results)), indent=2, allow_nan=False))
        return
    if len(results) == 1:
        r = results[0]
        tgt = R.fmt_target(kind, r["target"])
        echo(_bound_line(kind, _upper_text(r["guarantee"], kind, r["target"], r["upper"]), r["lower"],
                         r["method"], tgt, combined=r["combined"]))
        return
    _query_table(expr, kind, results)


def _upper_text(g: Any, kind: str, target: float, upper: float) -> str:
    """An upper bound's text: the exact decimal where the guarantee states it, else rounded up."""
    from .report import exact_decimal, fmt_decimal, fmt_upper

    dec = exact_decimal(g, kind, target, upper)
    return fmt_decimal(dec) if dec is not None else fmt_upper(upper, kind)


def _query_json(expr: str, kind: str, results: list[dict[str, Any]]) -> dict[str, Any]:
    def one(r: dict[str, Any]) -> dict[str, Any]:
        d: dict[str, Any] = {"method": r["method"], "requested_method": r["requested_method"]}
        if kind == "epsilon":
            d.update({"delta": r["target"], "epsilon_upper": r["upper"], "epsilon_lower": r["lower"]})
        else:
            d.update({"epsilon": r["target"], "delta_upper": r["upper"], "delta_lower": r["lower"]})
        d["provenance"] = r["guarantee"].provenance
        return d

    if len(results) == 1:
        return {"expression": expr, **one(results[0])}
    return {"expression": expr, "results": [one(r) for r in results]}


def _query_table(expr: str, kind: str, results: list[dict[str, Any]]) -> None:
    from rich import box
    from rich.markup import escape
    from rich.table import Table

    from .report import fmt_lower, fmt_target

    sym = "ε" if kind == "epsilon" else "δ"
    out = _console()
    out.print(escape(expr))
    t = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, header_style="bold")
    t.add_column("at", no_wrap=True)
    t.add_column("method", no_wrap=True)
    t.add_column(f"{sym} upper", justify="right", no_wrap=True)
    t.add_column(f"{sym} lower", justify="right", no_wrap=True)
    for r in results:
        name = r["method"] if r["requested_method"] == r["method"] else f"{r['requested_method']}: {r['method']}"
        t.add_row(fmt_target(kind, r["target"]), escape(name),
                  _upper_text(r["guarantee"], kind, r["target"], r["upper"]), fmt_lower(r["lower"], kind))
    out.print(t)
    auto = " · auto: the tightest method" if any(r["requested_method"] == "auto" for r in results) else ""
    out.print(f"[dim]certified bounds: upper rounded up, lower down{auto}[/dim]")


def _targets(option: str, values: List[float], check: Callable[..., float]) -> list[float]:
    return list(dict.fromkeys(check(option, v) for v in values))
