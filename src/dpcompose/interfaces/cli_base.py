"""What the commands share, without typer: printing, error handling (exit codes,
:func:`_guard`) and the plot/data outputs (issue 15 "cold start").

The plain one-line queries (:mod:`dpcompose.interfaces.cli_fast`) run without building the
typer application, so nothing here imports typer, rich or click: a command ends with
:class:`SystemExit` and the exit code (typer's standalone mode turns its own ``Exit`` into
the same ``SystemExit``), and text goes to ``sys.stdout`` / ``sys.stderr`` as ``typer.echo``
writes it (the message, a newline, a flush). :mod:`dpcompose.interfaces.cli_common`
re-exports these names for the typer commands.
"""

from __future__ import annotations

import functools
import os
import sys
from typing import TYPE_CHECKING, Any, Callable, List, Optional

from ..errors import DPComposeError

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["EXIT_OK", "EXIT_INTERNAL", "EXIT_BAD_INPUT", "echo"]

EXIT_OK, EXIT_INTERNAL, EXIT_BAD_INPUT = 0, 1, 2


def echo(message: str, err: bool = False) -> None:
    """``message`` and a newline on stdout (stderr with ``err``), flushed, as ``typer.echo`` writes it."""
    stream = sys.stderr if err else sys.stdout
    stream.write(f"{message}\n")
    stream.flush()


def _fail(message: str, code: int) -> None:
    echo(f"error: {message}", err=True)
    raise SystemExit(code)


def _is_typer_control(exc: BaseException) -> bool:
    """Whether ``exc`` is typer's own ``Exit`` / ``Abort`` (possible only once typer is loaded)."""
    if "typer" not in sys.modules:
        return False
    import typer

    return isinstance(exc, (typer.Exit, typer.Abort))


def _guard(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Map errors to exit codes: bad input -> 2 with the message, anything else -> 1."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except SystemExit:
            raise
        except DPComposeError as exc:
            _fail(str(exc), EXIT_BAD_INPUT)
        except KeyboardInterrupt:
            echo("interrupted", err=True)
            raise SystemExit(130) from None
        except Exception as exc:  # the top-level handler: exit 1, never a wrong number
            if _is_typer_control(exc):
                raise
            if os.environ.get("DPCOMPOSE_DEBUG"):
                import traceback

                traceback.print_exc()
            _fail(f"internal failure ({type(exc).__name__}: {exc}); this is a bug in dpcompose, "
                  f"please report it (set DPCOMPOSE_DEBUG=1 for the traceback)", EXIT_INTERNAL)

    return wrapper


#: the default ``--plot-kind`` of the queries (each one of ``report.plot.PLOT_KINDS``): with no
#: plot requested, :func:`_check_outputs` accepts them without loading the plot module
QUERY_PLOT_KINDS = ("epsilon-delta", "delta-epsilon")


def _check_outputs(plot: Optional[Path], plot_kind: str, plot_data: Optional[Path]) -> str:
    if plot is None and plot_data is None and plot_kind in QUERY_PLOT_KINDS:
        return plot_kind
    from .._validation import did_you_mean
    from ..errors import InvalidParameterError
    from .report.plot import PLOT_KINDS, check_data_path, check_plot_path

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
            echo(f"plot written to {path.resolve()}", err=to_stderr)
    if data_path is not None:
        path = R.write_plot_data(data, data_path)
        if not quiet:
            echo(f"plot data written to {path.resolve()}", err=to_stderr)


def _methods_option(method: Optional[List[str]], report_only: bool = True) -> Optional[List[str]]:
    from .report.rows import normalize_methods

    return normalize_methods(method or None, option="--method", report_only=report_only)
