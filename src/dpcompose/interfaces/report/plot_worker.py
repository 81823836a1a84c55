"""Draw a report's plot in a child process that imports matplotlib while the caller computes.

Importing matplotlib and drawing the demo's figure take about a second of ``dpcompose demo``
(issue 14, "the demo under 2 s"). :class:`PlotWorker` starts a child interpreter at once;
it imports matplotlib and this package while the parent computes the report, then draws
the figure the parent hands it (the :class:`~.plot.PlotData`, computed in the parent) and
writes the file. The figure is the one :func:`~.plot.write_plot` draws, from the same data
by the same code (``tests/test_demo_cold_start.py`` compares the files byte for byte).

Nothing numerical happens in the child: every value drawn was computed by the parent. If
the child cannot be started or fails, the parent draws the plot itself, as before. The child
is started only where a processor core is free (:func:`core_is_free`): on a busy machine a
second interpreter only adds work (measured: the demo 1.5 s slower at load 9 on 2 cores).

Use::

    with PlotWorker() as worker:
        report = ...                      # the child imports matplotlib meanwhile
        path = worker.write_plot(report, "plot.png")

or, to go on computing while the child draws, :meth:`PlotWorker.submit` then
:meth:`PlotWorker.result` (the demo prints its first two parts meanwhile).
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

# the report and plot modules load where they are used: a PlotWorker starts its child
# before the caller has imported them (the demo starts it first thing)
if TYPE_CHECKING:
    from .model import Report

__all__ = ["PlotWorker"]

#: the file types the child writes (HTML embeds the report's text: drawn by the parent)
CHILD_SUFFIXES = (".png", ".svg", ".pdf")
#: seconds the parent waits for the child's figure before it draws the plot itself
CHILD_TIMEOUT = 120.0


class PlotWorker:
    """A child process that draws one plot (see the module docstring)."""

    def __init__(self, child: bool | None = None) -> None:
        """``child``: start the child (True), draw here (False), or start it where a core is
        free (None, :func:`core_is_free`)."""
        # the child resolves imports as this process does (same sys.path), so that the
        # classes it unpickles are this process's own
        code = f"import sys; sys.path[:] = {sys.path!r}; from {__name__} import _child; _child()"
        self._proc: subprocess.Popen[bytes] | None = None
        #: what :meth:`submit` handed over: (report, path, kind, data)
        self._job: tuple[Report, Path, str, Any] | None = None
        self._sender: threading.Thread | None = None
        #: whether the child drew the plot (False: not yet, or drawn here)
        self.drawn_by_child = False
        if not (core_is_free() if child is None else child):
            return
        try:
            self._proc = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE,
                                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        except OSError:
            self._proc = None

    def write_plot(self, report: Report, path: str | Path, kind: str = "epsilon-delta") -> Path:
        """:func:`~.plot.write_plot`, drawn by the child where it can (else here)."""
        self.submit(report, path, kind)
        return self.result()

    def submit(self, report: Report, path: str | Path, kind: str = "epsilon-delta") -> None:
        """Compute the plot's data here and hand it to the child, which draws it while the
        caller goes on; :meth:`result` waits for the file (or draws it here)."""
        from .plot import check_plot_path, plot_data

        p = check_plot_path(path)
        data = plot_data(report, kind)
        self._job = (report, p, kind, data)
        proc = self._proc
        if proc is None or p.suffix.lower() not in CHILD_SUFFIXES:
            return
        job = pickle.dumps((data, list(report.caveats), str(p.resolve())))
        # written by a thread: a job larger than the pipe's buffer would otherwise block
        # here until the child, still importing matplotlib, reads it
        self._sender = threading.Thread(target=_send, args=(proc, job), daemon=True)
        self._sender.start()

    def result(self) -> Path:
        """The path of the plot :meth:`submit` handed over, once written (by the child, or
        here where the child was not started, failed, or took over :data:`CHILD_TIMEOUT`)."""
        if self._job is None:
            raise RuntimeError("PlotWorker.result() before submit()")
        report, p, kind, data = self._job
        self._job = None
        proc, self._proc = self._proc, None
        sender, self._sender = self._sender, None
        if proc is not None and sender is not None:
            sender.join()
            try:
                if proc.wait(timeout=CHILD_TIMEOUT) == 0:
                    self.drawn_by_child = True
                    return p
            except subprocess.TimeoutExpired:
                pass
        _stop(proc)
        from .plot import write_plot

        return write_plot(report, p, kind, data=data)

    def close(self) -> None:
        """Stop the child if it has not drawn (nothing is written then)."""
        proc, self._proc = self._proc, None
        sender, self._sender = self._sender, None
        _stop(proc, sender)

    def __enter__(self) -> PlotWorker:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def _others_runnable() -> int | None:
    """How many other tasks are runnable at this instant (``/proc/loadavg``'s fourth field,
    less this process), or None where the kernel does not say (not Linux)."""
    try:
        with open("/proc/loadavg", encoding="ascii") as fh:
            running = int(fh.read().split()[3].split("/")[0])
    except (OSError, IndexError, ValueError):
        return None
    return max(running - 1, 0)


def core_is_free() -> bool:
    """Whether this process may use more than one core and one of them is free for the child.

    On Linux: no more than ``cores - 2`` other tasks runnable at this instant, and a one-minute
    load average of at most ``cores`` (the average alone lags: a run just before this one
    counts for a minute after it ended). Elsewhere: the load average leaves a core free
    (where there is no load average: whether there are two cores)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:                   # not on Linux
        cores = os.cpu_count() or 1
    if cores < 2:
        return False
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):        # Windows
        return True
    others = _others_runnable()
    if others is None:
        return load <= cores - 1
    return others <= cores - 2 and load <= cores


def _send(proc: subprocess.Popen[bytes], job: bytes) -> None:
    """Write the job to the child's stdin and close it (a child that is gone: nothing; the
    caller then sees its exit status and draws the plot itself)."""
    if proc.stdin is None:
        return
    try:
        proc.stdin.write(job)
        proc.stdin.close()
    except (OSError, ValueError):             # a broken pipe, or closed by _stop
        pass


def _stop(proc: subprocess.Popen[bytes] | None, sender: threading.Thread | None = None) -> None:
    """End the child (if it still runs), then the thread writing its job, then its stdin."""
    if proc is None:
        return
    if proc.poll() is None:
        proc.kill()
        proc.wait()
    if sender is not None:
        sender.join()                         # the write fails at once: the child is gone
    if proc.stdin is not None and not proc.stdin.closed:
        try:
            proc.stdin.close()
        except OSError:                       # a broken pipe: the child is gone anyway
            pass


def _without_setter_docs() -> None:
    """Have matplotlib write empty property tables into its docstrings, in this process only.

    At import, matplotlib writes every Artist class's ``set()`` docstring (and the
    ``%(Line2D:kwdoc)s`` tables of others) by parsing the docstring of each setter: about
    0.2 s of the child's 0.9 s import. The child reads no docstring, and drawing does not
    use them (the files are byte-identical: ``tests/test_demo_cold_start.py``). A matplotlib
    without ``artist.kwdoc`` is left alone.
    """
    import matplotlib.artist

    if callable(getattr(matplotlib.artist, "kwdoc", None)):
        matplotlib.artist.kwdoc = lambda artist: ""


def _child() -> None:
    """The child: import matplotlib, read one pickled job from stdin, draw, write, exit 0."""
    _without_setter_docs()
    import matplotlib.backends.backend_agg  # noqa: F401  (imported while the parent computes)
    import matplotlib.figure  # noqa: F401  (no pyplot: the figure is saved, never shown)

    from .plot import PLOT_DPI, figure_of

    job = sys.stdin.buffer.read()
    if not job:
        return
    data, caveats, path = pickle.loads(job)
    fig = figure_of(data, caveats, pyplot=False)
    fig.savefig(path, format=Path(path).suffix.lower()[1:], dpi=PLOT_DPI)   # written and closed
    # exit at once: the parent waits for this exit, and the interpreter's teardown with
    # matplotlib loaded takes about 0.2 s (measured: 1.43 -> 1.24 s for the whole child).
    # Nothing is left to flush: stdout and stderr are /dev/null, the file is closed.
    os._exit(0)
