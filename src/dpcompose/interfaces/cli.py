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

import os
import sys
import threading
from typing import TYPE_CHECKING, Any

from .cli_base import EXIT_BAD_INPUT, EXIT_INTERNAL, EXIT_OK

__all__ = ["app", "main", "EXIT_OK", "EXIT_INTERNAL", "EXIT_BAD_INPUT"]

if TYPE_CHECKING:  # what __getattr__ below gives, for type checkers
    from rich.console import Console

    from .cli_app import app as app
    from .cli_common import _guard as _guard

#: environment variables with which rich may call a stream that is not a tty a terminal
_RICH_TERMINAL_ENV = ("FORCE_TERMINAL", "FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE")


def _console(stderr: bool = False) -> Console:
    """A rich console (rich loads here, on first use: a plain query prints without it)."""
    from rich.console import Console

    c = Console(stderr=stderr, highlight=False, soft_wrap=False)
    if not c.is_terminal:
        cols = os.environ.get("COLUMNS", "")
        width = int(cols) if cols.isdigit() and int(cols) >= 40 else 200
        c = Console(stderr=stderr, highlight=False, width=width, soft_wrap=False, color_system=None)
    return c


def _warn(message: str) -> None:
    """A warning on stderr, wrapped at the terminal's width."""
    _console(stderr=True).print(f"warning: {message}", markup=False, style="yellow")


def _may_be_terminal() -> bool:
    """False where rich would not call stderr a terminal (not a tty, no forcing variable): then
    no console is built (rich stays unloaded)."""
    try:
        tty = sys.stderr.isatty()
    except (AttributeError, ValueError):  # a replaced or closed stream
        tty = False
    return tty or any(k in os.environ for k in _RICH_TERMINAL_ENV)


class _Progress:
    """Progress on stderr with counts and the time left, for work that takes over a second.

    Shown only on a terminal and without ``--quiet``; it appears after
    :data:`PROGRESS_DELAY` seconds, so quick commands print nothing extra. Call it with a
    label before each step; ``set_total(n)`` when the number of steps becomes known.
    """

    PROGRESS_DELAY = 1.0

    def __init__(self, total: int, quiet: bool, what: str = "steps") -> None:
        self.enabled = not quiet and _may_be_terminal() and _console(stderr=True).is_terminal
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


def main() -> None:
    """Console-script entry point (``dpcompose``, ``python -m dpcompose``).

    The plain one-line queries run without building the typer application
    (:mod:`dpcompose.interfaces.cli_fast`: same output and exit codes); the rest through typer.
    """
    from . import cli_fast

    try:
        if cli_fast.run(sys.argv[1:]):
            return
        from .cli_app import app

        app(standalone_mode=True, prog_name="dpcompose")
    except SystemExit as exc:
        code = exc.code
        if isinstance(code, int) and code not in (0, 1, 2, 130):
            # click uses 2 for usage errors already; anything else is internal
            raise SystemExit(EXIT_INTERNAL) from None
        raise


#: the modules behind :func:`__getattr__`, searched in this order
_LAZY = ("cli_app", "cli_common", "cli_report", "cli_query", "cli_demo")


def __getattr__(name: str) -> Any:
    """The typer ``app``, the commands and their helpers, loaded on first use.

    ``from dpcompose.cli import app`` (and any other name the one-module CLI had) keeps
    working, while ``import dpcompose.interfaces.cli`` and :func:`main` stay free of typer
    until a command needs it. The code lives in ``cli_common`` (the app, errors, shared
    options), ``cli_report`` (report, schema, methods, mechanisms), ``cli_query`` (epsilon,
    delta, calibrate), ``cli_demo`` (dpsgd, demo) and ``cli_app`` (assembles them in order).
    """
    if name.startswith("__"):
        raise AttributeError(name)
    import importlib

    for mod in _LAZY:
        ns = vars(importlib.import_module(f"{__package__}.{mod}"))
        if name in ns:
            return ns[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


if __name__ == "__main__":  # pragma: no cover
    main()
