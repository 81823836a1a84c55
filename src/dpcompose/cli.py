"""The ``dpcompose`` command line.

Commands (``dpcompose COMMAND --help`` for each):

- ``report PLAN.toml``: every method side by side for a plan file (``--json``,
  ``--markdown``, ``--plot FILE.png|.svg|.html``).
- ``demo``: the built-in tour (no arguments, no network): 100 x 0.1-DP, a heterogeneous
  list and the bundled hospitals plan, whose plot is written to the current directory.
- ``epsilon EXPR --delta D`` / ``delta EXPR --epsilon E``: one-line queries on a
  mechanism expression (:mod:`dpcompose.expressions`).
- ``calibrate EXPR --epsilon E --delta D``: the noise that meets a target.
- ``methods``: the registered composition methods. ``schema``: the plan JSON Schema.

Exit codes: 0 success, 2 bad input (the message says what and how to fix it),
1 internal failure.
"""

from __future__ import annotations

import functools
import json
import math
import os
import sys
import traceback
from pathlib import Path
from typing import Any, Callable, List, Optional

import typer
from rich.console import Console
from rich.markup import escape

from ._version import __version__
from .errors import DPComposeError

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
    """A Rich progress bar on stderr, shown only on a terminal and without --quiet."""

    def __init__(self, total: int, quiet: bool) -> None:
        self.enabled = not quiet and _console(stderr=True).is_terminal
        self.total = max(1, total)
        self._p = None

    def __enter__(self) -> "_Progress":
        if self.enabled:
            from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

            self._p = Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(),
                               TimeElapsedColumn(), console=_console(stderr=True), transient=True)
            self._p.start()
            self._task = self._p.add_task("computing", total=self.total)
        return self

    def __call__(self, label: str) -> None:
        if self._p is not None:
            self._p.update(self._task, description=f"computing {label}", advance=1)

    def __exit__(self, *exc: Any) -> None:
        if self._p is not None:
            self._p.stop()


def _number(option: str) -> Callable[[Any], float]:
    """A typer parser for a real-number option that refuses text whose value a double
    cannot hold (``--delta 1e-400`` would otherwise be read as 0): exit 2 naming it."""

    def parse(text: Any) -> float:
        from ._validation import float_from_text
        from .errors import InvalidParameterError

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
# report


def _emit_report(rep: Any, *, as_json: bool, as_markdown: bool, plot: Optional[Path],
                 quiet: bool, out: Console) -> None:
    from . import report as R

    if plot is not None:
        path = R.write_plot(rep, plot)
        if not quiet:
            typer.echo(f"plot written to {path.resolve()}", err=as_json or as_markdown)
    if as_json:
        typer.echo(R.to_json(rep))
    elif as_markdown:
        typer.echo(R.to_markdown(rep))
    else:
        R.render_table(rep, out)


def _check_plot_suffix(plot: Optional[Path]) -> None:
    if plot is not None and plot.suffix.lower() not in (".png", ".svg", ".html", ".htm"):
        from .errors import InvalidParameterError

        raise InvalidParameterError(
            f"--plot {str(plot)!r}: unsupported file type {plot.suffix or '(none)'!r}; use .png, .svg or .html.")


@app.command()
@_guard
def report(
    plan: Path = typer.Argument(..., help="A TOML plan file (see docs/plans.md)."),
    as_json: bool = typer.Option(False, "--json", help="Print machine-readable JSON (with provenance)."),
    as_markdown: bool = typer.Option(False, "--markdown", help="Print a Markdown table for a review document."),
    plot: Optional[Path] = typer.Option(None, "--plot", help="Write eps(delta) to FILE (.png, .svg or .html)."),
    method: Optional[List[str]] = typer.Option(None, "--method", "-m",
                                               help="Only this method (repeatable); default: the plan's list or all."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar or informational messages."),
) -> None:
    """Compare every composition method on a plan file; mark the tightest certified bound."""
    from . import report as R
    from .plan import load_plan

    if as_json and as_markdown:
        from .errors import InvalidParameterError

        raise InvalidParameterError("--json and --markdown exclude each other; pick one.")
    _check_plot_suffix(plot)
    p = load_plan(plan)
    with _Progress(len(R.composition_methods()) * (2 if p.has_hypothesis_dp else 1) + 2, quiet) as prog:
        rep = R.build_report(p, methods=method or None, progress=prog)
    _emit_report(rep, as_json=as_json, as_markdown=as_markdown, plot=plot, quiet=quiet, out=_console())


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


@app.command()
@_guard
def methods() -> None:
    """List the composition methods available in this installation."""
    from .compose import available_methods

    out = _console()
    from rich.table import Table

    t = Table(header_style="bold")
    t.add_column("method")
    t.add_column("what it computes")
    for name, summary in available_methods().items():
        t.add_row(escape(name), escape(summary or "(no summary)"))
    t.add_row("parallel", escape("reports only: parallel composition with group privacy, for plans with "
                                 "a [membership] constraint and pure-DP mechanisms"))
    t.add_row("hdp", escape("reports only: hypothesis DP for plans with [membership] or [hypotheses]"
                            + ("" if _hdp_available() else " (dpcompose.hypotheses.hdp not in this build yet; "
                               "plans with identical databases use the Example 1 reduction)")))
    out.print(t)


def _hdp_available() -> bool:
    from .report import _load_hdp

    return _load_hdp() is not None


# ---------------------------------------------------------------------------
# one-line queries


def _parse(expr: str) -> list[Any]:
    from .expressions import to_mechanisms

    return to_mechanisms(expr)


def _bound_line(kind: str, upper: float, lower: Optional[float], method: str, target: str,
                combined: bool = False) -> str:
    from .report import fmt_lower, fmt_upper

    sym = "ε" if kind == "epsilon" else "δ"
    s = f"{sym} ≤ {fmt_upper(upper, kind)}  (certified upper bound, method {method}, at {target})"
    if lower is not None:
        src = "the largest of the applicable methods' lower bounds" if combined else "same method"
        s += f"\n{sym} ≥ {fmt_lower(lower, kind)}  (certified lower bound, {src})"
    return s


def _query(expr: str, kind: str, target: float, method: str, compare_all: bool, as_json: bool,
           quiet: bool) -> None:
    from . import report as R
    from .compose import compose
    from .guarantee import CombinedGuarantee

    mechs = _parse(expr)
    if compare_all:
        deltas = [target] if kind == "epsilon" else []
        epsilons = [target] if kind == "delta" else []
        with _Progress(len(R.composition_methods()), quiet) as prog:
            rep = R.compare(mechs, deltas=deltas, epsilons=epsilons, title=expr, progress=prog)
        if as_json:
            typer.echo(R.to_json(rep))
        else:
            R.render_table(rep, _console())
        return
    g = compose(mechs, method=method)
    if isinstance(g, CombinedGuarantee):
        if kind == "epsilon":
            name = g.method_for(target)
        else:
            name = min(g.components, key=lambda c: c.delta(target)).method
    else:
        name = g.method
    if kind == "epsilon":
        lo, hi = g.epsilon_bounds(target)
        tgt = f"δ = {target:g}"
    else:
        lo, hi = g.delta_bounds(target)
        tgt = f"ε = {target:g}"
    lower = lo if g.has_lower_bound else None
    if as_json:
        d: dict[str, Any] = {"expression": expr, "method": name, "requested_method": method}
        if kind == "epsilon":
            d.update({"delta": target, "epsilon_upper": hi, "epsilon_lower": lower})
        else:
            d.update({"epsilon": target, "delta_upper": hi, "delta_lower": lower})
        d["provenance"] = g.provenance
        typer.echo(json.dumps(R._jsonable(d), indent=2, allow_nan=False))
        return
    typer.echo(_bound_line(kind, hi, lower, name, tgt, combined=isinstance(g, CombinedGuarantee)))


@app.command()
@_guard
def epsilon(
    expression: str = typer.Argument(..., help='Mechanisms, e.g. "laplace(scale=20) x 500".'),
    delta: float = typer.Option(..., "--delta", "-d", parser=_number("--delta"), metavar="FLOAT",
                                help="The delta at which to bound epsilon (0 <= delta < 1)."),
    method: str = typer.Option("auto", "--method", "-m", help="A method name, or auto for the tightest."),
    compare_all: bool = typer.Option(False, "--all", help="Show every method side by side."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
) -> None:
    """Certified epsilon at a given delta, e.g. dpcompose epsilon "laplace(scale=20) x 500" --delta 1e-6."""
    from ._validation import check_delta

    check_delta("--delta", delta)
    _query(expression, "epsilon", delta, method, compare_all, as_json, quiet)


@app.command()
@_guard
def delta(
    expression: str = typer.Argument(..., help='Mechanisms, e.g. "gaussian(sigma=2) x 100".'),
    epsilon: float = typer.Option(..., "--epsilon", "-e", parser=_number("--epsilon"), metavar="FLOAT",
                                  help="The epsilon at which to bound delta (>= 0)."),
    method: str = typer.Option("auto", "--method", "-m", help="A method name, or auto for the tightest."),
    compare_all: bool = typer.Option(False, "--all", help="Show every method side by side."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
) -> None:
    """Certified delta at a given epsilon, e.g. dpcompose delta "gaussian(sigma=2) x 100" --epsilon 1."""
    from ._validation import check_epsilon

    check_epsilon("--epsilon", epsilon)
    _query(expression, "delta", epsilon, method, compare_all, as_json, quiet)


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
                               "rdp or pld alone are faster)."),
    more_private: str = typer.Option("auto", "--more-private", help="Which way the parameter makes the "
                                     "release more private: larger, smaller or auto (detected)."),
    low: Optional[float] = typer.Option(None, "--min", help="Smallest value searched (default 1e-6; 1 for counts)."),
    high: Optional[float] = typer.Option(None, "--max", help="Largest value searched (default 1e12)."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress display."),
) -> None:
    """The parameter meeting a target (epsilon, delta): noise, a rate, epochs, any free parameter.

    The answer is checked by composing again: the reported epsilon at the target delta is
    a certified upper bound that meets the target.
    """
    from ._validation import check_delta, check_epsilon
    from .errors import InvalidParameterError

    check_epsilon("--epsilon", epsilon)
    if epsilon <= 0:
        raise InvalidParameterError("--epsilon = 0 cannot be met by adding finite noise; give a target > 0.")
    if delta is not None:
        check_delta("--delta", delta)
    if more_private not in ("auto", "larger", "smaller"):
        raise InvalidParameterError(f"--more-private = {more_private!r} is not larger, smaller or auto.")
    is_plan = target.lower().endswith(".toml") or Path(target).is_file()
    with _Progress(1, quiet) as prog:
        prog(f"calibration (method {method})")
        if is_plan:
            res = _calibrate_plan(Path(target), parameter, epsilon, delta, method, more_private, low, high)
        else:
            res = _calibrate_expression(target, parameter, epsilon, 0.0 if delta is None else delta,
                                        method, more_private, low, high)
    if as_json:
        from .report import _jsonable

        typer.echo(json.dumps(_jsonable(res), indent=2, allow_nan=False))
        return
    from .report import fmt_upper

    d = res["delta_target"]
    how = res["calibrated_by"]
    if res.get("more_private"):
        how += f"; a {res['more_private']} {res['parameter']} is more private"
    typer.echo(f"{res['parameter']} = {res['value']:.6g}  (meets ε ≤ {epsilon:g} at δ = {d:g}; {how})")
    what = res.get("expression") or res.get("plan")
    typer.echo(f"check: {what} gives ε ≤ {fmt_upper(res['epsilon_achieved'])} "
               f"(certified upper bound, method {res['method']}, at δ = {d:g})")


def _search_range(low: Optional[float], high: Optional[float], integer: bool) -> tuple[float, float]:
    return (1.0 if integer else 1e-6) if low is None else low, 1e12 if high is None else high


def _calibrate_expression(text: str, parameter: Optional[str], epsilon: float, delta: float, method: str,
                          more_private: str, low: Optional[float], high: Optional[float]) -> dict[str, Any]:
    """Templates keep the one-noise-parameter path; named free parameters go through calibrate()."""
    from .calibration import calibrate as lib_calibrate
    from .errors import InvalidParameterError
    from .expressions import bind, count_variables, format_expression, parse, to_mechanisms, variables

    terms = parse(text)
    names = sorted(variables(terms))
    if not names:
        if parameter is not None:
            raise InvalidParameterError(
                f"--parameter {parameter!r}: the expression has no named free parameter; write it "
                f"into the expression, e.g. \"gaussian(sigma={parameter}) x 100\".")
        return _calibrate(text, epsilon, delta, method)
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
    g = res.compose()
    achieved = g.epsilon(delta)
    name = g.method_for(delta) if hasattr(g, "method_for") else g.method
    return {"expression": format_expression(bind(terms, {parameter: res.parameter})), "parameter": parameter,
            "value": res.parameter, "failing_value": res.failing_parameter, "more_private": res.more_private,
            "epsilon_target": epsilon, "delta_target": delta, "epsilon_achieved": achieved,
            "method": name, "calibrated_by": "dpcompose.calibration.calibrate (ends on the passing side)",
            "evaluations": res.evaluations, "provenance": g.provenance}


def _calibrate_plan(path: Path, parameter: Optional[str], epsilon: float, delta: Optional[float], method: str,
                    more_private: str, low: Optional[float], high: Optional[float]) -> dict[str, Any]:
    """Solve a plan's free parameter so that its report's tightest certified row meets the target."""
    import tomllib

    from pydantic import ValidationError

    from . import report as R
    from .calibration import solve
    from .errors import InvalidParameterError
    from .plan import PlanError, PlanSpec, TargetsSpec, parse_plan, plan_variables

    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise PlanError(str(path), [("", "no such file. Remedy: check the path")],
                        headline=f"plan file {str(path)!r} cannot be read") from None
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise PlanError(str(path), [("", str(exc))], headline=f"plan file {str(path)!r} cannot be read") from None
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
        ms = None if methods is None else methods + (["hdp", "parallel"] if p.has_hypothesis_dp else [])
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
            "evaluations": res.evaluations, "provenance": best.provenance}


def _calibrate(expression: str, epsilon: float, delta: float, method: str) -> dict[str, Any]:
    """Fill the one free noise parameter of a template expression; verify with compose."""
    from .compose import compose
    from .errors import CalibrationError, InvalidParameterError
    from .expressions import format_expression, parse

    terms = parse(expression)
    free = [(i, t) for i, t in enumerate(terms) if t.missing]
    if len(free) != 1 or free[0][1].kind not in ("laplace", "gaussian") or len(free[0][1].missing) != 1:
        raise InvalidParameterError(
            f"calibrate needs exactly one laplace or gaussian term without its noise parameter, e.g. "
            f"\"gaussian x 14062 @ poisson(0.0042667)\" or \"laplace x 500\"; got {expression!r}.")
    idx, term = free[0]
    param = term.missing[0]

    def build(value: float) -> list[Any]:
        filled = list(terms)
        filled[idx] = term.with_params(**{param: value})
        return [(t.mechanism(), t.count) for t in filled], filled

    value, by = None, None
    try:
        from .calibration import calibrate as lib_calibrate  # type: ignore[attr-defined]
    except ImportError:
        lib_calibrate = None
    if lib_calibrate is not None and len(terms) == 1:
        value = _call_library_calibrate(lib_calibrate, term, param, epsilon, delta, method)
        if value is not None:
            by = "dpcompose.calibration.calibrate"
    if value is None:
        value = _bisect_noise(lambda v: compose(build(v)[0], method=method).epsilon(delta), epsilon)
        by = "bisection on compose (ends on the passing side)"
    mechs, filled = build(value)
    g = compose(mechs, method=method)
    achieved = g.epsilon(delta)
    if not achieved <= epsilon:
        raise CalibrationError(
            f"calibrated {param} = {value!r} gives epsilon = {achieved!r} > {epsilon!r} on re-checking; "
            f"try another --method.")
    name = g.method_for(delta) if hasattr(g, "method_for") else g.method
    return {"expression": format_expression(filled), "parameter": param, "value": value,
            "epsilon_target": epsilon, "delta_target": delta, "epsilon_achieved": achieved,
            "method": name, "calibrated_by": by, "provenance": g.provenance}


def _call_library_calibrate(fn: Callable[..., Any], term: Any, param: str, epsilon: float,
                            delta: float, method: str) -> Optional[float]:
    """dpcompose.calibration.calibrate for one template term; None if it lacks the keywords."""
    kw: dict[str, Any] = {"epsilon": epsilon, "delta": delta, "method": method}
    if term.sampling is not None:
        kw["rate"], kw["scheme"] = term.sampling[1], term.sampling[0]
    sens = dict(term.params).get("sensitivity")
    if sens is not None:
        kw["sensitivity"] = sens
    try:
        result = fn(term.kind, term.count, **kw)
    except TypeError:  # an older signature: fall back to bisection here
        return None
    v = getattr(result, "parameter", None)
    return float(v) if isinstance(v, (int, float)) and math.isfinite(v) and v > 0 else None


def _bisect_noise(eps_of: Callable[[float], float], target: float) -> float:
    """Smallest noise level (to 1e-6 relative) whose certified epsilon meets the target.

    Epsilon is non-increasing in the noise level; the search ends on the passing side.
    """
    from .errors import CalibrationError

    hi = 1.0
    while not eps_of(hi) <= target:
        hi *= 4.0
        if hi > 1e12:
            raise CalibrationError(f"no noise level up to 1e12 meets epsilon <= {target!r}.")
    lo = hi / 4.0
    while eps_of(lo) <= target:
        hi, lo = lo, lo / 4.0
        if lo < 1e-12:
            return hi
    for _ in range(60):
        if hi / lo - 1 < 1e-6:
            break
        mid = math.sqrt(lo * hi)
        if eps_of(mid) <= target:
            hi = mid
        else:
            lo = mid
    return hi


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
    from . import training as D
    from ._validation import check_delta
    from .errors import InvalidParameterError

    check_delta("--delta", delta)
    if delta == 0.0:
        raise InvalidParameterError("--delta = 0: DP-SGD (a Gaussian mechanism) is never (epsilon, 0)-DP; "
                                    "give a delta such as 1e-5.")
    if (noise_multiplier is None) == (target_epsilon is None):
        raise InvalidParameterError("give exactly one of --noise-multiplier and --target-epsilon.")
    _check_plot_suffix(plot)
    run = dict(batch_size=batch_size, dataset_size=dataset_size, epochs=epochs, steps=steps,
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
        path = D.write_epoch_plot(rows, plot, s, delta)
        if not quiet:
            typer.echo(f"plot written to {path.resolve()}", err=as_json)
    if as_json:
        from .report import _jsonable

        typer.echo(json.dumps(_jsonable(out), indent=2, allow_nan=False))
        return
    from .report import fmt_lower, fmt_upper

    con = _console()
    if "calibrated" in out:
        typer.echo(f"noise multiplier = {noise_multiplier:.6g}  (the smallest meeting ε ≤ {target_epsilon:g} at "
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
                              "(.png, .svg or .html; default: ./" + DEMO_PLOT + ")."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
) -> None:
    """A tour with no arguments and no network: every method on three compositions."""
    from . import report as R
    from .mechanisms import ApproxDP, Laplace, PureDP
    from .plan import bundled_plan

    _check_plot_suffix(plot)
    out = _console()
    n_methods = len(R.composition_methods())
    out.rule("1. k = 100 mechanisms, each 0.1-DP, at δ = 1e-6")
    out.print("Known values: optimal composition (Kairouz, Oh and Viswanath) ε = 4.7746; simple "
              "composition 10; advanced composition (Dwork, Rothblum and Vadhan) 6.31.")
    with _Progress(n_methods, quiet) as prog:
        rep1 = R.compare([(PureDP(0.1), 100)], deltas=[1e-6], progress=prog)
    R.render_table(rep1, out)

    out.rule("2. A heterogeneous list, at δ = 1e-6")
    hetero = [(PureDP(0.1), 50), (Laplace(scale=5.0), 30), (ApproxDP(0.05, 1e-8), 20)]
    with _Progress(n_methods, quiet) as prog:
        rep2 = R.compare(hetero, deltas=[1e-6], progress=prog)
    R.render_table(rep2, out)

    out.rule("3. The hospitals example (Hartmann, Bindschaedler and West, Example 1)")
    plan = bundled_plan("hospitals")
    if plan.spec.description:
        out.print(escape(plan.spec.description))
    with _Progress(n_methods * 2 + 2, quiet) as prog:
        rep3 = R.build_report(plan, progress=prog)
    R.render_table(rep3, out)
    path = R.write_plot(rep3, plot)
    out.print(f"plot of ε against δ for the hospitals example written to {escape(str(path.resolve()))}")
    out.print("Next: `dpcompose report PLAN.toml` for your own release (docs/plans.md), "
              "`dpcompose epsilon \"laplace(scale=20) x 500\" --delta 1e-6` for a one-line query.")


# ---------------------------------------------------------------------------
# ledger: the group (dpcompose.ledger.cli) imports only typer; the store, its database
# drivers and the web service load when a ledger command runs


def _add_ledger() -> None:
    from .ledger.cli import app as ledger_app

    app.add_typer(ledger_app, name="ledger")


_add_ledger()


def _add_fdp() -> None:
    """tradeoff, audit and calibrate-risk (dpcompose.cli_fdp)."""
    from .cli_fdp import register

    register(app, _guard, _number, _console)


_add_fdp()


def main() -> None:
    """Console-script entry point (``dpcompose``)."""
    try:
        app(standalone_mode=True)
    except SystemExit as exc:
        code = exc.code
        if isinstance(code, int) and code not in (0, 1, 2, 130):
            # click uses 2 for usage errors already; anything else is internal
            raise SystemExit(EXIT_INTERNAL) from None
        raise


if __name__ == "__main__":  # pragma: no cover
    main()
