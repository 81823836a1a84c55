"""The ``dpcompose`` typer application and what its commands share: error handling (exit
codes, :func:`_guard`), option parsing (:func:`_number`) and the plot/data outputs.

The commands register on :data:`app` from ``cli_report``, ``cli_query`` and ``cli_demo``;
``cli_app`` imports them in their help order. See :mod:`dpcompose.interfaces.cli`.
"""

from __future__ import annotations

import functools
import os
import traceback
from pathlib import Path
from typing import Any, Callable, List, Optional

import typer

from .._version import __version__
from ..errors import DPComposeError
from .cli import EXIT_BAD_INPUT, EXIT_INTERNAL

app = typer.Typer(
    name="dpcompose",
    help="Certified privacy accounting under composition: what (epsilon, delta) holds after "
         "these differentially private mechanisms ran?",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


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


def _noise_term(terms: Any, text: str, command: str, example: str) -> tuple[int, Any, str]:
    """(index, term, noise parameter) of a template's one term that leaves out its noise parameter.

    Any family whose syntax names a noise parameter (``dpcompose mechanisms``) can be the term;
    it must leave out that parameter and nothing else.
    """
    from ..errors import InvalidParameterError
    from ..representations import all_syntax, syntax_named

    free = [(i, t) for i, t in enumerate(terms) if t.missing]
    syn = syntax_named(free[0][1].kind) if len(free) == 1 else None
    if syn is None or syn.noise is None or tuple(free[0][1].missing) != (syn.noise,):
        noisy = ", ".join(f"{x.name} ({x.noise})" for x in all_syntax() if x.noise)
        raise InvalidParameterError(
            f"{command} needs exactly one term without its noise parameter, e.g. {example} (families with "
            f"one: {noisy}), or one named free parameter (\"laplace(scale=b) x 50\"); got {text!r}.")
    idx, term = free[0]
    return idx, term, syn.noise

