"""The ``dpcompose`` typer application and what its commands share: option parsing
(:func:`_number`); error handling (exit codes, :func:`_guard`) and the plot/data outputs
come from :mod:`.cli_base` (no typer there, for the fast path) and are re-exported here.

The commands register on :data:`app` from ``cli_report``, ``cli_query`` and ``cli_demo``;
``cli_app`` imports them in their help order. See :mod:`dpcompose.interfaces.cli`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable, Optional

import typer

from .._version import __version__
from .cli_base import _check_outputs, _fail, _guard, _methods_option, _write_plots

__all__ = ["app", "_check_outputs", "_fail", "_guard", "_methods_option", "_write_plots", "_number", "_noise_term"]

app = typer.Typer(
    name="dpcompose",
    help="Certified privacy accounting under composition: what (epsilon, delta) holds after "
         "these differentially private mechanisms ran?",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


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


def _check_plot_suffix(plot: Optional[Path]) -> None:
    """The suffixes ``dpcompose dpsgd --plot`` writes (its epoch plot)."""
    if plot is not None and plot.suffix.lower() not in (".png", ".svg", ".html", ".htm"):
        from ..errors import InvalidParameterError

        raise InvalidParameterError(
            f"--plot {str(plot)!r}: unsupported file type {plot.suffix or '(none)'!r}; use .png, .svg or .html.")


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
