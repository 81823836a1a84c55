"""The ``dpcompose`` command line.

Commands (``dpcompose COMMAND --help`` for each):

- ``report PLAN``: every method side by side for a plan file (TOML or JSON): a compact
  table with one headline per target (``--verbose`` for status, time and reasons),
  ``--json``, ``--markdown`` / ``--html`` (a review document), ``--plot FILE`` (``--plot-kind``
  epsilon-delta, delta-epsilon or steps) and ``--plot-data FILE`` (the curves as CSV/JSON).
- ``demo``: the built-in tour (no arguments, no network): 100 x 0.1-DP, a heterogeneous
  list and the bundled hospitals plan, whose plot is written to the current directory.
- ``epsilon EXPR --delta D`` / ``delta EXPR --epsilon E``: one-line queries on a
  mechanism expression (:mod:`dpcompose.expressions`); ``--delta``, ``--epsilon`` and
  ``-m`` repeat (a small table), ``--plot`` draws the methods that took part.
- ``calibrate EXPR --epsilon E --delta D``: the noise (or any free parameter) that meets
  a target, through :func:`dpcompose.calibration.calibrate`; shown rounded toward more privacy.
- ``methods``: what each composition method accepts, its bounds and its speed here.
- ``mechanisms``: every mechanism family, its expression syntax and its rules (from the registry).
  ``schema``: the plan JSON Schema.

Method names are matched without regard to case, and a misspelled one gets a suggestion.
Warnings about implausible inputs (a mechanism alone above epsilon 50, a composition
above 100) go to stderr before long work starts; work that takes more than about a second
shows progress with counts and the time left (on a terminal, without ``--quiet``).

Exit codes: 0 success, 2 bad input (the message says what and how to fix it),
1 internal failure.
"""

from __future__ import annotations

import functools
import json
import math
import os
import threading
import time
import traceback
from pathlib import Path
from typing import Any, Callable, List, Optional, cast

import typer
from rich.console import Console
from rich.markup import escape

from .._version import __version__
from ..errors import DPComposeError

__all__ = ["app", "main"]

EXIT_OK, EXIT_INTERNAL, EXIT_BAD_INPUT = 0, 1, 2

app = typer.Typer(
    name="dpcompose",
    help="Certified privacy accounting under composition: what (epsilon, delta) holds after "
         "these differentially private mechanisms ran?",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def _console(stderr: bool = False) -> Console:
    c = Console(stderr=stderr, highlight=False, soft_wrap=False)
    if not c.is_terminal:
        cols = os.environ.get("COLUMNS", "")
        width = int(cols) if cols.isdigit() and int(cols) >= 40 else 200
        c = Console(stderr=stderr, highlight=False, width=width, soft_wrap=False, color_system=None)
    return c


def _fail(message: str, code: int) -> None:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


def _warn(message: str) -> None:
    """A warning on stderr, wrapped at the terminal's width."""
    _console(stderr=True).print(f"warning: {message}", markup=False, style="yellow")


def _guard(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Map errors to exit codes: bad input -> 2 with the message, anything else -> 1."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except (typer.Exit, typer.Abort, SystemExit):
            raise
        except DPComposeError as exc:
            _fail(str(exc), EXIT_BAD_INPUT)
        except KeyboardInterrupt:
            typer.echo("interrupted", err=True)
            raise typer.Exit(130)
        except Exception as exc:  # the top-level handler: exit 1, never a wrong number
            if os.environ.get("DPCOMPOSE_DEBUG"):
                traceback.print_exc()
            _fail(f"internal failure ({type(exc).__name__}: {exc}); this is a bug in dpcompose, "
                  f"please report it (set DPCOMPOSE_DEBUG=1 for the traceback)", EXIT_INTERNAL)

    return wrapper


class _Progress:
    """Progress on stderr with counts and the time left, for work that takes over a second.

    Shown only on a terminal and without ``--quiet``; it appears after
    :data:`PROGRESS_DELAY` seconds, so quick commands print nothing extra. Call it with a
    label before each step; ``set_total(n)`` when the number of steps becomes known.
    """

    PROGRESS_DELAY = 1.0

    def __init__(self, total: int, quiet: bool, what: str = "steps") -> None:
        self.enabled = not quiet and _console(stderr=True).is_terminal
        self.total = max(1, total)
        self.what = what
        self.done = -1
        self.label = ""
        self._p: Any = None
        self._task: Any = None
        self._timer: threading.Timer | None = None
        self._lock = threading.Lock()

    def __enter__(self) -> "_Progress":
        if self.enabled:
            self._timer = threading.Timer(self.PROGRESS_DELAY, self._start)
            self._timer.daemon = True
            self._timer.start()
        return self

    def _start(self) -> None:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        with self._lock:
            if self._p is not None or self._timer is None:
                return
            self._p = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                               TextColumn(self.what), TimeRemainingColumn(), TextColumn("left"),
                               console=_console(stderr=True), transient=True)
            self._p.start()
            self._task = self._p.add_task(self.label or "computing", total=self.total,
                                          completed=max(0, self.done))

    def set_total(self, total: int) -> None:
        self.total = max(1, total)
        with self._lock:
            if self._p is not None:
                self._p.update(self._task, total=self.total)

    def __call__(self, label: str) -> None:
        self.done += 1
        self.label = label if len(label) <= 32 else label[:31] + "…"
        with self._lock:
            if self._p is not None:
                self._p.update(self._task, description=self.label, completed=self.done)

    def __exit__(self, *exc: Any) -> None:
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            if self._p is not None:
                self._p.stop()
                self._p = None


def _number(option: str) -> Callable[[Any], float]:
    """A typer parser for a real-number option that refuses text whose value a double
    cannot hold (``--delta 1e-400`` would otherwise be read as 0): exit 2 naming it."""

    def parse(text: Any) -> float:
        from .._validation import float_from_text
        from ..errors import InvalidParameterError

        if not isinstance(text, str):  # a default value
            return float(text)
        try:
            return float_from_text(option, text)
        except InvalidParameterError as exc:
            raise typer.BadParameter(str(exc)) from None

    return parse


def _version_callback(value: bool) -> None:
    if value:
        typer.echo(f"dpcompose {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", callback=_version_callback, is_eager=True,
                                 help="Print the version and exit."),
) -> None:
    """dpcompose: certified privacy accounting under composition."""


# ---------------------------------------------------------------------------
# shared options and outputs

_PLOT_HELP = "Write a plot to FILE (.png, .svg, .pdf, or .html: the review document with the plot)."
_KIND_HELP = "What --plot draws: epsilon-delta (default), delta-epsilon, or steps (epsilon against steps)."
_DATA_HELP = "Write every plotted curve's points to FILE (.csv or .json)."


def _check_outputs(plot: Optional[Path], plot_kind: str, plot_data: Optional[Path]) -> str:
    from .report import PLOT_KINDS, check_data_path, check_plot_path
    from ..errors import InvalidParameterError
    from .._validation import did_you_mean

    if plot is not None:
        check_plot_path(plot)
    if plot_data is not None:
        check_data_path(plot_data)
    kind = plot_kind.strip().lower()
    if kind not in PLOT_KINDS:
        raise InvalidParameterError(f"--plot-kind {plot_kind!r} is not one of {', '.join(PLOT_KINDS)}."
                                    f"{did_you_mean(plot_kind, PLOT_KINDS)}")
    return kind


def _write_plots(rep: Any, plot: Optional[Path], kind: str, data_path: Optional[Path], quiet: bool,
                 to_stderr: bool) -> None:
    if plot is None and data_path is None:
        return
    from . import report as R

    data = R.plot_data(rep, kind)
    if plot is not None:
        path = R.write_plot(rep, plot, kind, data=data)
        if not quiet:
            typer.echo(f"plot written to {path.resolve()}", err=to_stderr)
    if data_path is not None:
        path = R.write_plot_data(data, data_path)
        if not quiet:
            typer.echo(f"plot data written to {path.resolve()}", err=to_stderr)


def _check_plot_suffix(plot: Optional[Path]) -> None:
    """The suffixes ``dpcompose dpsgd --plot`` writes (its epoch plot)."""
    if plot is not None and plot.suffix.lower() not in (".png", ".svg", ".html", ".htm"):
        from ..errors import InvalidParameterError

        raise InvalidParameterError(
            f"--plot {str(plot)!r}: unsupported file type {plot.suffix or '(none)'!r}; use .png, .svg or .html.")


def _methods_option(method: Optional[List[str]], report_only: bool = True) -> Optional[List[str]]:
    from .report import normalize_methods

    return normalize_methods(method or None, option="--method", report_only=report_only)


# ---------------------------------------------------------------------------
# report


@app.command()
@_guard
def report(
    plan: Path = typer.Argument(..., help="A plan file, TOML or JSON (see docs/plans.md)."),
    as_json: bool = typer.Option(False, "--json", help="Print machine-readable JSON (with provenance)."),
    as_markdown: bool = typer.Option(False, "--markdown", help="Print a review document in Markdown."),
    as_html: bool = typer.Option(False, "--html", help="Print a review document in HTML (the plot embedded)."),
    plot: Optional[Path] = typer.Option(None, "--plot", help=_PLOT_HELP),
    plot_kind: str = typer.Option("epsilon-delta", "--plot-kind", help=_KIND_HELP),
    plot_data: Optional[Path] = typer.Option(None, "--plot-data", "--csv", help=_DATA_HELP),
    method: Optional[List[str]] = typer.Option(
        None, "--method", "-m", help="Only this method (repeatable; case ignored). On a plan with "
        "[membership] or [hypotheses] it is also the inner method of the hypothesis-DP rows; "
        "'hdp' or 'parallel' ask for those rows alone. Default: the plan's list, or all."),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Wide table: status, time, every reason."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress display or informational messages."),
) -> None:
    """Compare every composition method on a plan file; state the tightest certified bound."""
    from . import report as R
    from ..errors import InvalidParameterError
    from .plan import load_plan

    if sum((as_json, as_markdown, as_html)) > 1:
        raise InvalidParameterError("--json, --markdown and --html exclude each other; pick one.")
    kind = _check_outputs(plot, plot_kind, plot_data)
    methods = _methods_option(method)
    p = load_plan(plan)
    with _Progress(1, quiet, "steps") as prog:
        rep = R.build_report(p, methods=methods, progress=prog, warn=_warn)
    document = as_json or as_markdown or as_html
    _write_plots(rep, plot if not as_html else None, kind, plot_data, quiet, to_stderr=document)
    if as_json:
        typer.echo(R.to_json(rep))
    elif as_markdown:
        typer.echo(R.to_markdown(rep, plot=None if plot is None else str(plot)), nl=False)
    elif as_html:
        typer.echo(_html_document(rep, plot, kind, quiet), nl=False)
    else:
        R.render_table(rep, _console(), verbose=verbose)


def _html_document(rep: Any, plot: Optional[Path], kind: str, quiet: bool) -> str:
    """The review document in HTML with its plot embedded (and written to --plot if given)."""
    import io

    import matplotlib.pyplot as plt

    from . import report as R
    from .report.plot import figure

    data = R.plot_data(rep, kind)
    fig = figure(rep, data)
    try:
        buf = io.StringIO()
        fig.savefig(buf, format="svg")
        if plot is not None:
            R.write_plot(rep, plot, kind, data=data)
            if not quiet:
                typer.echo(f"plot written to {plot.resolve()}", err=True)
    finally:
        plt.close(fig)
    svg = buf.getvalue()
    return R.to_html(rep, svg=svg[svg.find("<svg"):])


@app.command()
@_guard
def schema(
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Write to this file instead of stdout."),
) -> None:
    """Print the JSON Schema of plan files."""
    from .plan import plan_json_schema

    text = json.dumps(plan_json_schema(), indent=2)
    if output is None:
        typer.echo(text)
    else:
        output.write_text(text + "\n", encoding="utf-8")


def _probes() -> list[tuple[str, Any]]:
    """What ``dpcompose methods`` tries each method on: (column name, mechanism)."""
    from ..mechanisms import ApproxDP, Gaussian, Laplace, PureDP, RandomizedResponse, Subsampled

    return [("P", PureDP(0.1)), ("A", ApproxDP(0.1, 1e-9)), ("L", Laplace(10.0)),
            ("R", RandomizedResponse(0.5)), ("G", Gaussian(5.0)),
            ("S", Subsampled(Gaussian(1.0), 0.01)),
            ("W", Subsampled(Gaussian(1.0), 0.01, "without_replacement"))]


@app.command()
@_guard
def methods(
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Also print each method's full summary."),
) -> None:
    """What each composition method accepts, which bounds it gives and how fast it is here.

    Measured, not declared: each method is asked for 100 runs of each kind of mechanism
    (✓ it answers, — it refuses), whether its answer carries a certified lower bound, and
    how long 100 x laplace(scale=10) at delta 1e-6 takes on this machine.
    """
    from rich import box
    from rich.table import Table

    from . import report as R
    from ..compose import available_methods, compose
    from .report import fmt_time

    probes = _probes()
    out = _console()
    t = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, header_style="bold")
    t.add_column("method", no_wrap=True)
    for name, _ in probes:
        t.add_column(name, justify="center", no_wrap=True)
    t.add_column("bounds", no_wrap=True)
    t.add_column("time", justify="right", no_wrap=True)
    summaries = available_methods()
    for m in R.composition_methods():
        marks, lower = [], False
        for _, mech in probes:
            try:
                g = compose([(mech, 100)], method=m)
                g.epsilon(1e-6)
            except DPComposeError:
                marks.append("—")
                continue
            lower = lower or g.has_lower_bound
            marks.append("✓")
        t0 = time.perf_counter()
        try:
            compose([(probes[2][1], 100)], method=m).epsilon(1e-6)
            speed = fmt_time(time.perf_counter() - t0)
        except DPComposeError:
            speed = "—"
        t.add_row(escape(m), *marks, "upper, lower" if lower else "upper", speed)
    out.print(t)
    out.print("✓ answers, — refuses, for 100 runs of: P pure(0.1), A approx(0.1, 1e-9), L laplace(scale=10), "
              "R rr(0.5), G gaussian(sigma=5), S and W gaussian(sigma=1) subsampled at rate 0.01 (Poisson, "
              "without replacement). time: 100 x laplace(scale=10) at δ = 1e-6 on this machine.")
    out.print("auto: the pointwise tightest of the methods that apply.")
    out.print(escape("Plans only: parallel (parallel composition with group privacy, for a [membership] "
                     "constraint and pure-DP mechanisms); hdp (hypothesis DP for [membership] or "
                     "[hypotheses]; -m METHOD picks its inner method)."))
    if verbose:
        for m in R.composition_methods():
            out.print(f"[bold]{escape(m)}[/bold]: {escape(summaries.get(m) or '(no summary)')}")


@app.command()
@_guard
def mechanisms() -> None:
    """Every mechanism family: its expression syntax and which rules (representations) it has.

    Derived from the registry (dpcompose.representations), not from a list of its own: a
    family that registers a rule shows it here.
    """
    from rich import box
    from rich.table import Table

    from ..representations import RULES, all_syntax

    rules = [(n, RULES[n]) for n in ("privacy_profile", "dominating_pair", "renyi_curve", "eps_delta_pair")]
    t = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, header_style="bold")
    for col in ("expression", "class", "profile", "pair (pld)", "renyi (rdp)", "(eps, delta)"):
        t.add_column(col)
    for syn in all_syntax():
        params = ", ".join(p.name if p.default is None else f"{p.name}={p.default:g}" for p in syn.parameters)
        t.add_row(escape(f"{syn.name}({params})"), syn.cls.__name__,
                  *("✓" if rule.has(syn.cls) else "—" for _, rule in rules))
    from ..mechanisms import Group
    from .expressions import GROUP_NAME

    # the group wrapper (not a family: its rules are the wrapped family's, representations/group.py)
    t.add_row(escape(f"{GROUP_NAME}(mechanism, size)"), Group.__name__,
              *("✓" if rule.has(Group) else "—" for _, rule in rules))
    out = _console()
    out.print(t)
    out.print("✓ the family registers the rule (it may still refuse, with a reason: zcdp has no pair), "
              "— it has none (the methods that need it refuse). Aliases: "
              + escape("; ".join(f"{s.name}: {', '.join(s.aliases)}" for s in all_syntax() if s.aliases)) + ".")


# ---------------------------------------------------------------------------
# one-line queries


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
            typer.echo(R.to_json(rep))
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
        typer.echo(json.dumps(R.jsonable(_query_json(expr, kind, results)), indent=2, allow_nan=False))
        return
    if len(results) == 1:
        r = results[0]
        tgt = R.fmt_target(kind, r["target"])
        typer.echo(_bound_line(kind, _upper_text(r["guarantee"], kind, r["target"], r["upper"]), r["lower"],
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


@app.command()
@_guard
def epsilon(
    expression: str = typer.Argument(..., help='Mechanisms, e.g. "laplace(scale=20) x 500".'),
    delta: List[float] = typer.Option(..., "--delta", "-d", parser=_number("--delta"), metavar="FLOAT",
                                      help="The delta at which to bound epsilon (0 <= delta <= 1); repeatable."),
    method: Optional[List[str]] = typer.Option(None, "--method", "-m",
                                               help="A method name (repeatable; case ignored), or auto "
                                                    "(default) for the tightest."),
    compare_all: bool = typer.Option(False, "--all", help="Show every method side by side."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
    plot: Optional[Path] = typer.Option(None, "--plot", help=_PLOT_HELP),
    plot_kind: str = typer.Option("epsilon-delta", "--plot-kind", help=_KIND_HELP),
    plot_data: Optional[Path] = typer.Option(None, "--plot-data", "--csv", help=_DATA_HELP),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="With --all: status, time and reasons."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress display."),
) -> None:
    """Certified epsilon at a given delta, e.g. dpcompose epsilon "laplace(scale=20) x 500" --delta 1e-6."""
    from .._validation import check_delta

    targets = _targets("--delta", delta, functools.partial(check_delta, allow_one=True))
    _query(expression, "epsilon", targets, method, compare_all, as_json, quiet, verbose, plot, plot_kind,
           plot_data)


@app.command()
@_guard
def delta(
    expression: str = typer.Argument(..., help='Mechanisms, e.g. "gaussian(sigma=2) x 100".'),
    epsilon: List[float] = typer.Option(..., "--epsilon", "-e", parser=_number("--epsilon"), metavar="FLOAT",
                                        help="The epsilon at which to bound delta (>= 0); repeatable."),
    method: Optional[List[str]] = typer.Option(None, "--method", "-m",
                                               help="A method name (repeatable; case ignored), or auto "
                                                    "(default) for the tightest."),
    compare_all: bool = typer.Option(False, "--all", help="Show every method side by side."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
    plot: Optional[Path] = typer.Option(None, "--plot", help=_PLOT_HELP),
    plot_kind: str = typer.Option("delta-epsilon", "--plot-kind", help=_KIND_HELP),
    plot_data: Optional[Path] = typer.Option(None, "--plot-data", "--csv", help=_DATA_HELP),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="With --all: status, time and reasons."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress display."),
) -> None:
    """Certified delta at a given epsilon, e.g. dpcompose delta "gaussian(sigma=2) x 100" --epsilon 1."""
    from .._validation import check_epsilon

    targets = _targets("--epsilon", epsilon, functools.partial(check_epsilon, allow_inf=True))
    _query(expression, "delta", targets, method, compare_all, as_json, quiet, verbose, plot, plot_kind,
           plot_data)


@app.command()
@_guard
def calibrate(
    target: str = typer.Argument(..., help='A template with one free noise parameter ("gaussian x 14062 @ '
                                           'poisson(256/60000)"), an expression with a named free parameter '
                                           '("gaussian(sigma=s) x 100 + laplace(scale=2*s) x 10"), or a plan '
                                           'file PLAN.toml whose expressions use one.'),
    epsilon: float = typer.Option(..., "--epsilon", "-e", parser=_number("--epsilon"), metavar="FLOAT",
                                  help="Target epsilon (> 0)."),
    delta: Optional[float] = typer.Option(None, "--delta", "-d", parser=_number("--delta"), metavar="FLOAT",
                                          help="Target delta (0 <= delta < 1); default 0, or a plan's first "
                                          "target delta."),
    parameter: Optional[str] = typer.Option(None, "--parameter", "-p", help="The free parameter to solve "
                                            "for (needed for plans and for expressions with several)."),
    method: str = typer.Option("auto", "--method", "-m", help="Composition method used to certify "
                               "(auto: the tightest, which tries every method and can take a minute; "
                               "rdp or pld alone are faster; case ignored)."),
    more_private: str = typer.Option("auto", "--more-private", help="Which way the parameter makes the "
                                     "release more private: larger, smaller or auto (detected)."),
    low: Optional[float] = typer.Option(None, "--min", help="Smallest value searched (default 1e-6; 1 for counts)."),
    high: Optional[float] = typer.Option(None, "--max", help="Largest value searched (default 1e12)."),
    plot: Optional[Path] = typer.Option(None, "--plot", help=_PLOT_HELP + " Draws the calibrated composition."),
    plot_kind: str = typer.Option("epsilon-delta", "--plot-kind", help=_KIND_HELP),
    plot_data: Optional[Path] = typer.Option(None, "--plot-data", "--csv", help=_DATA_HELP),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress display."),
) -> None:
    """The parameter meeting a target (epsilon, delta): noise, a rate, epochs, any free parameter.

    The answer is checked by composing again: the reported epsilon at the target delta is
    a certified upper bound that meets the target. The value shown is rounded toward more
    privacy (up for noise), so the number you copy also meets the target.
    """
    from . import report as R
    from .._validation import check_delta, check_epsilon
    from ..errors import InvalidParameterError

    check_epsilon("--epsilon", epsilon)
    if epsilon <= 0:
        raise InvalidParameterError("--epsilon = 0 cannot be met by adding finite noise; give a target > 0.")
    if delta is not None:
        check_delta("--delta", delta)
    if more_private not in ("auto", "larger", "smaller"):
        raise InvalidParameterError(f"--more-private = {more_private!r} is not larger, smaller or auto.")
    pkind = _check_outputs(plot, plot_kind, plot_data)
    names = _methods_option([method], report_only=False) if method != "auto" else None
    method = names[0] if names else "auto"
    is_plan = target.lower().endswith((".toml", ".json")) or Path(target).is_file()
    with _Progress(1, quiet, "") as prog:
        prog(f"calibration (method {method})")
        if is_plan:
            res = _calibrate_plan(Path(target), parameter, epsilon, delta, method, more_private, low, high)
        else:
            res = _calibrate_expression(target, parameter, epsilon, 0.0 if delta is None else delta,
                                        method, more_private, low, high)
    guarantee = res.pop("_guarantee", None)
    mechs = res.pop("_mechanisms", None)
    rep = res.pop("_report", None)
    if plot is not None or plot_data is not None:
        if rep is None:
            title = f"{res['expression']}: calibrated {res['parameter']}"
            rep = R.from_guarantees([guarantee], mechs, deltas=[res["delta_target"]], title=title)
        _write_plots(rep, plot, pkind, plot_data, quiet, to_stderr=as_json)
    if as_json:
        typer.echo(json.dumps(R.jsonable(res), indent=2, allow_nan=False))
        return
    d = res["delta_target"]
    how = res["calibrated_by"]
    if res.get("more_private"):
        how += f"; a {res['more_private']} {res['parameter']} is more private"
    shown = (str(res["value"]) if isinstance(res["value"], int)
             else R.fmt_noise(res["value"], res.get("more_private") or "larger"))
    rounding = "" if isinstance(res["value"], int) or shown == repr(res["value"]) else \
        (", rounded up" if (res.get("more_private") or "larger") == "larger" else ", rounded down")
    what = res.get("expression") or res.get("plan")
    out = _console()   # wraps at the terminal's width (issue 13)
    for line in (f"{res['parameter']} = {shown}  (meets ε ≤ {epsilon:g} at δ = {d:g}{rounding})",
                 f"calibrated by {how}",
                 f"check: {what} gives ε ≤ {R.fmt_upper(res['epsilon_achieved'])} "
                 f"(certified upper bound, method {res['method']}, at δ = {d:g})"):
        out.print(line, markup=False)


def _search_range(low: Optional[float], high: Optional[float], integer: bool) -> tuple[float, float]:
    return (1.0 if integer else 1e-6) if low is None else low, 1e12 if high is None else high


def _calibrate_expression(text: str, parameter: Optional[str], epsilon: float, delta: float, method: str,
                          more_private: str, low: Optional[float], high: Optional[float]) -> dict[str, Any]:
    """A template's one missing noise parameter, or a named free parameter, by calibration.calibrate."""
    from ..calibration import calibrate as lib_calibrate
    from ..errors import InvalidParameterError
    from .expressions import bind, count_variables, format_expression, parse, to_mechanisms, variables

    terms = parse(text)
    names = sorted(variables(terms))
    if not names:
        if parameter is not None:
            raise InvalidParameterError(
                f"--parameter {parameter!r}: the expression has no named free parameter; write it "
                f"into the expression, e.g. \"gaussian(sigma={parameter}) x 100\".")
        return _calibrate_template(text, epsilon, delta, method, low, high)
    if len(names) > 1:
        raise InvalidParameterError(
            f"{text!r} has several free parameters ({', '.join(names)}); calibration solves for one: "
            f"give the others values in the expression, or use a plan file with [parameters].")
    if parameter is None:
        parameter = names[0]
    if parameter not in names:
        raise InvalidParameterError(
            f"--parameter {parameter!r} is not a free parameter of {text!r} (it has {', '.join(names)}); "
            f"name one with --parameter.")
    integer = parameter in count_variables(terms)

    def factory(x: float) -> list[Any]:
        return to_mechanisms(bind(terms, {parameter: x}))

    res = lib_calibrate(factory, epsilon=epsilon, delta=delta, method=method, more_private=more_private,
                        integer=integer, search_range=_search_range(low, high, integer))
    return _checked(res, format_expression(bind(terms, {parameter: res.parameter})), parameter, epsilon, delta)


def _calibrate_template(text: str, epsilon: float, delta: float, method: str, low: Optional[float],
                        high: Optional[float]) -> dict[str, Any]:
    """Fill the one missing noise parameter of a template (a single term: the family form of
    :func:`~dpcompose.calibration.calibrate`; several terms: its factory form)."""
    from ..calibration import calibrate as lib_calibrate
    from ..errors import InvalidParameterError
    from .expressions import format_expression, parse

    terms = parse(text)
    free = [(i, t) for i, t in enumerate(terms) if t.missing]
    if len(free) != 1 or free[0][1].kind not in ("laplace", "gaussian") or len(free[0][1].missing) != 1:
        raise InvalidParameterError(
            f"calibrate needs exactly one laplace or gaussian term without its noise parameter, e.g. "
            f"\"gaussian x 14062 @ poisson(0.0042667)\" or \"laplace x 500\"; got {text!r}.")
    idx, term = free[0]
    param = term.missing[0]

    def filled(value: float) -> list[Any]:
        out = list(terms)
        out[idx] = term.with_params(**{param: value})
        return out

    search = _search_range(low, high, False)
    if len(terms) == 1 and term.group is None:  # a group: the factory form builds the Group
        kw: dict[str, Any] = {}
        if term.sampling is not None:
            kw["scheme"], kw["rate"] = term.sampling
        sens = dict(term.params).get("sensitivity")
        if sens is not None:
            kw["sensitivity"] = sens
        # the count has no free parameter: _calibrate_expression sends only such expressions here
        res = lib_calibrate(term.kind, cast(int, term.count), epsilon=epsilon, delta=delta, method=method,
                            search_range=search, **kw)
    else:
        res = lib_calibrate(lambda v: [(t.mechanism(), t.count) for t in filled(v)], epsilon=epsilon,
                            delta=delta, method=method, more_private="larger", search_range=search)
    return _checked(res, format_expression(filled(res.parameter)), param, epsilon, delta)


def _checked(res: Any, expression: str, parameter: str, epsilon: float, delta: float) -> dict[str, Any]:
    """The calibration result, composed again and checked against the target."""
    from ..errors import CalibrationError

    g = res.compose()
    achieved = g.epsilon(delta)
    if not achieved <= epsilon:
        raise CalibrationError(
            f"calibrated {parameter} = {res.parameter!r} gives epsilon = {achieved!r} > {epsilon!r} on "
            f"re-checking; try another --method.")
    method_for = getattr(g, "method_for", None)
    return {"expression": expression, "parameter": parameter, "value": res.parameter,
            "failing_value": res.failing_parameter, "more_private": res.more_private,
            "epsilon_target": epsilon, "delta_target": delta, "epsilon_achieved": achieved,
            "method": method_for(delta) if callable(method_for) else g.method,
            "calibrated_by": "dpcompose.calibration.calibrate (ends on the passing side)",
            "evaluations": res.evaluations, "provenance": g.provenance,
            "_guarantee": g, "_mechanisms": list(res.mechanisms)}


def _calibrate_plan(path: Path, parameter: Optional[str], epsilon: float, delta: Optional[float], method: str,
                    more_private: str, low: Optional[float], high: Optional[float]) -> dict[str, Any]:
    """Solve a plan's free parameter so that its report's tightest certified row meets the target."""
    from pydantic import ValidationError

    from . import report as R
    from ..calibration import solve
    from ..errors import InvalidParameterError
    from .plan import PlanError, PlanSpec, parse_plan, plan_variables, read_plan_data

    data = read_plan_data(path)
    try:
        spec = PlanSpec.model_validate(data)
    except ValidationError:
        parse_plan(data, source=str(path))  # raises PlanError naming every problem
        raise
    names, in_counts = plan_variables(spec)
    if parameter is None:
        if len(names) != 1:
            raise InvalidParameterError(
                f"{path}: name the free parameter to solve for with --parameter (the plan's expressions use "
                f"{', '.join(sorted(names)) or 'none'}).")
        parameter = next(iter(names))
    if parameter not in names:
        raise InvalidParameterError(
            f"--parameter {parameter!r} is not used by any expression of {path} (they use "
            f"{', '.join(sorted(names)) or 'no free parameter'}).")
    d = spec.targets.deltas[0] if delta is None else delta
    if d <= 0.0:
        raise InvalidParameterError("--delta must be > 0 for a plan (its report's targets are deltas in (0, 1)).")
    data = dict(data)
    data["targets"] = {"deltas": [d]}
    integer = parameter in in_counts
    methods = None if method == "auto" else [method]
    reports: dict[float, Any] = {}

    def eps_of(x: float) -> float:
        values = {**spec.parameters, parameter: x}
        try:
            p = parse_plan({**data, "parameters": values}, source=str(path))
        except PlanError as exc:
            raise InvalidParameterError(
                f"{parameter} = {x!r} makes the plan invalid ({exc}); narrow the search with --min/--max "
                f"to the parameter's valid range.") from None
        ms = None if methods is None else methods + (["parallel"] if p.has_hypothesis_dp else [])
        rep = R.build_report(p, methods=ms)
        reports[x] = rep
        best = rep.best("epsilon", d)
        return math.inf if best is None else best.upper

    res = solve(eps_of, epsilon=epsilon, search_range=_search_range(low, high, integer),
                more_private=more_private, integer=integer, label=f"{parameter} in {path}")
    best = reports[res.parameter].best("epsilon", d)
    return {"plan": f"{path} with {parameter} = {res.parameter!r}", "parameter": parameter,
            "value": res.parameter, "failing_value": res.failing_parameter, "more_private": res.more_private,
            "epsilon_target": epsilon, "delta_target": d, "epsilon_achieved": best.upper,
            "method": best.method + (f" [{best.scope}]" if best.scope != R.SCOPE_CLASSIC else ""),
            "calibrated_by": "dpcompose.calibration.solve on the plan's report (ends on the passing side)",
            "evaluations": res.evaluations, "provenance": best.provenance,
            "_report": reports[res.parameter]}


# ---------------------------------------------------------------------------
# DP-SGD


@app.command("dpsgd")
@_guard
def dpsgd_command(
    noise_multiplier: Optional[float] = typer.Option(None, "--noise-multiplier", "-s",
                                                     help="sigma: noise std / clipping norm (> 0)."),
    target_epsilon: Optional[float] = typer.Option(None, "--target-epsilon", "-e",
                                                   help="Solve for the smallest noise multiplier meeting this epsilon "
                                                        "(instead of --noise-multiplier)."),
    batch_size: int = typer.Option(..., "--batch-size", "-b", help="Expected batch size b."),
    dataset_size: int = typer.Option(..., "--dataset-size", "-n", help="Number of training examples n."),
    epochs: Optional[float] = typer.Option(None, "--epochs", help="Passes over the data (ceil(n/b) steps each)."),
    steps: Optional[int] = typer.Option(None, "--steps", help="Number of steps (instead of --epochs)."),
    delta: float = typer.Option(..., "--delta", "-d", help="The delta at which epsilon is reported (0 < delta < 1)."),
    sampler: str = typer.Option("poisson", "--sampler", help="poisson (Opacus's default) or without_replacement; "
                                "shuffle is refused (no certified bound exists)."),
    neighbors: Optional[str] = typer.Option(None, "--neighbors", help="add_remove or substitution (default: the "
                                            "sampler's own: add_remove for poisson, substitution otherwise)."),
    method: str = typer.Option("auto", "--method", "-m", help="Composition method (auto: the tightest; "
                               "--target-epsilon uses pld unless given)."),
    per_epoch: bool = typer.Option(False, "--per-epoch", help="Also show epsilon after every epoch."),
    plot: Optional[Path] = typer.Option(None, "--plot", help="Write epsilon against epochs to FILE (.png, .svg, .html)."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar or informational messages."),
) -> None:
    """Certified epsilon of a DP-SGD run (or the noise that meets a target), in epochs and batch sizes.

    Example: dpcompose dpsgd --noise-multiplier 1.1 --batch-size 256 --dataset-size 60000
    --epochs 30 --delta 1e-5 --per-epoch
    """
    from .. import training as D
    from .._validation import check_delta
    from ..errors import InvalidParameterError

    check_delta("--delta", delta)
    if delta == 0.0:
        raise InvalidParameterError("--delta = 0: DP-SGD (a Gaussian mechanism) is never (epsilon, 0)-DP; "
                                    "give a delta such as 1e-5.")
    if (noise_multiplier is None) == (target_epsilon is None):
        raise InvalidParameterError("give exactly one of --noise-multiplier and --target-epsilon.")
    _check_plot_suffix(plot)
    run: dict[str, Any] = dict(batch_size=batch_size, dataset_size=dataset_size, epochs=epochs, steps=steps,
                               sampler=sampler, neighbors=neighbors)
    out: dict[str, Any] = {}
    with _Progress(3, quiet) as prog:
        if target_epsilon is not None:
            prog("calibration")
            cal_method = "pld" if method == "auto" else method
            noise_multiplier = D.dpsgd_noise(target_epsilon=target_epsilon, delta=delta, method=cal_method, **run)
            out["calibrated"] = {"target_epsilon": target_epsilon, "method": cal_method,
                                 "noise_multiplier": noise_multiplier}
        prog(f"composition (method {method})")
        assert noise_multiplier is not None  # given or calibrated: exactly one of the two (checked above)
        g = D.dpsgd(noise_multiplier=noise_multiplier, delta=delta, method=method, **run)
        lo, hi = g.epsilon_bounds(delta)
        rows = None
        if per_epoch or plot is not None:
            prog("epsilon after each epoch")
            rows = g.per_epoch(delta)
    s = g.setting
    name = g.method_for(delta)
    out.update({"setting": s, "sampler": s["sampler"], "neighbors": s["neighbor_relation"], "delta": delta,
                "epsilon_upper": hi, "epsilon_lower": lo if g.has_lower_bound else None, "method": name,
                "per_epoch": rows, "provenance": g.provenance})
    if plot is not None:
        assert rows is not None  # computed above whenever a plot is asked for
        path = D.write_epoch_plot(rows, plot, s, delta)
        if not quiet:
            typer.echo(f"plot written to {path.resolve()}", err=as_json)
    if as_json:
        from .report import jsonable

        typer.echo(json.dumps(jsonable(out), indent=2, allow_nan=False))
        return
    from .report import fmt_lower, fmt_noise, fmt_upper

    con = _console()
    if "calibrated" in out:
        typer.echo(f"noise multiplier = {fmt_noise(noise_multiplier)}  (rounded up; the smallest meeting ε ≤ {target_epsilon:g} at "
                   f"δ = {delta:g}, to 1e-6 relative; method {out['calibrated']['method']})")
    typer.echo(D.describe_setting(s))
    typer.echo(f"ε ≤ {fmt_upper(hi)}  (certified upper bound, method {name}, at δ = {delta:g})")
    if g.has_lower_bound:
        typer.echo(f"ε ≥ {fmt_lower(lo)}  (certified lower bound)")
    if per_epoch and rows:
        from rich.table import Table

        con.print(f"ε after each epoch at δ = {delta:g} (certified pld bracket, {s['neighbor_relation']}):")
        t = Table(header_style="bold")
        for col in ("epoch", "steps", "ε lower", "ε upper"):
            t.add_column(col, justify="right")
        for r in rows:
            t.add_row(str(r["epoch"]), str(r["steps"]), fmt_lower(r["epsilon_lower"]), fmt_upper(r["epsilon_upper"]))
        con.print(t)


DEMO_PLOT = "dpcompose-demo-hospitals.png"


@app.command()
@_guard
def demo(
    plot: Path = typer.Option(Path(DEMO_PLOT), "--plot", help="Where to write the hospitals plot "
                              "(.png, .svg, .pdf or .html; default: ./" + DEMO_PLOT + ")."),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Wide tables: status, time, every reason."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress display."),
) -> None:
    """A tour with no arguments and no network: every method on three compositions."""
    from . import report as R
    from ..mechanisms import ApproxDP, Laplace, PureDP
    from .plan import bundled_plan

    _check_outputs(plot, "epsilon-delta", None)
    out = _console()
    n_methods = len(R.composition_methods())
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
    plan = bundled_plan("hospitals")
    if plan.spec.description:
        out.print(escape(plan.spec.description))
    with _Progress(n_methods * 2 + 2, quiet, "steps") as prog:
        rep3 = R.build_report(plan, progress=prog, warn=_warn)
    R.render_table(rep3, out, verbose=verbose)
    path = R.write_plot(rep3, plot)
    out.print(f"plot of ε against δ for the hospitals example written to {escape(str(path.resolve()))}")
    out.print("Next: `dpcompose report PLAN.toml` for your own release (docs/plans.md), "
              "`dpcompose epsilon \"laplace(scale=20) x 500\" --delta 1e-6` for a one-line query.")


# ---------------------------------------------------------------------------
# ledger: the group (dpcompose.ledger.cli) imports only typer; the store, its database
# drivers and the web service load when a ledger command runs


def _add_ledger() -> None:
    from ..ledger.cli import app as ledger_app

    app.add_typer(ledger_app, name="ledger")


_add_ledger()


def _add_fdp() -> None:
    """tradeoff, audit and calibrate-risk (dpcompose.cli_fdp)."""
    from .cli_fdp import register

    register(app, _guard, _number, _console)


_add_fdp()


def main() -> None:
    """Console-script entry point (``dpcompose``, ``python -m dpcompose``)."""
    try:
        app(standalone_mode=True, prog_name="dpcompose")
    except SystemExit as exc:
        code = exc.code
        if isinstance(code, int) and code not in (0, 1, 2, 130):
            # click uses 2 for usage errors already; anything else is internal
            raise SystemExit(EXIT_INTERNAL) from None
        raise


if __name__ == "__main__":  # pragma: no cover
    main()
