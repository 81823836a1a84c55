"""Plots of a :class:`~.model.Report`, and the data behind them.

Three kinds (``kind=``):

- ``"epsilon-delta"``: the certified epsilon upper bound against delta (log x), per method;
- ``"delta-epsilon"``: the certified delta upper bound against epsilon (log y);
- ``"steps"``: epsilon at the report's first target delta against the number of steps
  (every count of the composition scaled in proportion to the longest; each point is a
  fresh composition of that many steps).

Rules, so that the curves that matter stay readable:

- a curve more than :data:`DROP_FACTOR` times above the pointwise tightest curve at every
  point is not drawn; the figure and the data list it (``dropped``);
- curves that coincide (relative difference below :data:`COINCIDE_RTOL` everywhere) are
  drawn once, labelled with every method (``pld = optimal``);
- the y axis is logarithmic when the drawn values span more than a decade;
- the legend sits outside the axes and says only what applies (line styles are explained
  only when both classic and constrained curves, or lower bounds, are drawn).

:func:`plot_data` computes everything drawn; :func:`write_plot_data` exports it (CSV or
JSON, every computed curve, drawn or not), :func:`write_plot` draws it (PNG, SVG, PDF,
or HTML: the review document with the plot embedded).
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from ...errors import DPComposeError, InvalidParameterError
from .model import SCOPE_CLASSIC, Curve, Report, jsonable

__all__ = ["PLOT_KINDS", "PLOT_SUFFIXES", "DATA_SUFFIXES", "PlotData", "Series", "plot_data",
           "write_plot", "write_plot_data", "check_plot_path", "check_data_path", "PLOT_SIZE_PX",
           "DROP_FACTOR"]

PLOT_KINDS = ("epsilon-delta", "delta-epsilon", "steps")
PLOT_SUFFIXES = (".png", ".svg", ".pdf", ".html", ".htm")
DATA_SUFFIXES = (".csv", ".json")

#: a curve above the tightest by more than this factor at every point is not drawn
DROP_FACTOR = 10.0
#: curves within this relative difference at every point are drawn as one
COINCIDE_RTOL = 1e-3
#: seconds the whole plot may spend evaluating curves (in rounds across curves, coarse
#: points first); a slow method's curve is drawn through the points computed in time
PLOT_TIME_BUDGET = 8.0
#: the same for plots against steps, where every point is a fresh composition
STEPS_TIME_BUDGET = 20.0
#: points of a steps plot
STEP_POINTS = 12

#: a log axis spanning more decades than this has no minor ticks (each decade has its
#: gridline; on the demo's 7-decade delta axis the minor ticks were a third of the drawing)
MINOR_TICKS_MAX_DECADES = 4.0

PLOT_INCHES = (11.0, 5.5)
PLOT_DPI = 100
#: the size of PNG plots in pixels (width, height)
PLOT_SIZE_PX = (1100, 550)
_COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
           "#7f7f7f", "#bcbd22", "#17becf", "#393b79", "#637939"]


@dataclass
class Series:
    """One computed curve: ``upper`` (and ``lower``, where distinct) at each ``x``."""

    label: str
    method: str
    scope: str
    x: list[float]
    upper: list[float]
    lower: list[float] | None
    certified: bool
    exact: bool
    caveats: list[str] = field(default_factory=list)
    complete: bool = True
    drawn: bool = True
    same_as: list[str] = field(default_factory=list)
    #: points more than DROP_FACTOR above the tightest there: kept in the data, not drawn
    far: list[bool] = field(default_factory=list)

    def shown(self, values: Sequence[float] | None = None) -> list[tuple[float, float]]:
        """The points drawn: finite, and not far above the tightest."""
        vals = self.upper if values is None else values
        far = self.far or [False] * len(self.x)
        return [(x, y) for x, y, f in zip(self.x, vals, far) if math.isfinite(y) and not f]


@dataclass
class PlotData:
    """Everything a plot draws (and what it leaves out, with the reason)."""

    kind: str
    title: str
    xlabel: str
    ylabel: str
    xlog: bool
    ylog: bool
    series: list[Series]
    dropped: list[str]
    notes: list[str]
    marks: list[tuple[float, float]]

    @property
    def drawn(self) -> list[Series]:
        return [s for s in self.series if s.drawn]


def check_plot_path(path: str | Path, option: str = "--plot") -> Path:
    p = Path(path)
    if p.suffix.lower() not in PLOT_SUFFIXES:
        raise InvalidParameterError(
            f"{option} {str(path)!r}: unsupported file type {p.suffix or '(none)'!r}; use .png, .svg, "
            f".pdf or .html.")
    return p


def check_data_path(path: str | Path, option: str = "--plot-data") -> Path:
    p = Path(path)
    if p.suffix.lower() not in DATA_SUFFIXES:
        raise InvalidParameterError(
            f"{option} {str(path)!r}: unsupported file type {p.suffix or '(none)'!r}; use .csv or .json.")
    return p


def _check_kind(kind: str) -> str:
    k = str(kind).lower()
    if k not in PLOT_KINDS:
        raise InvalidParameterError(f"plot kind {kind!r} is not one of {', '.join(PLOT_KINDS)}.")
    return k


# ---------------------------------------------------------------------------
# sampling


def _coarse_first(n: int) -> list[int]:
    """Indices 0..n-1 ordered so that every prefix is spread over the range."""
    order = [0, n - 1] if n > 1 else [0]
    seen = set(order)
    step = n - 1
    while step > 1 and len(order) < n:
        step = max(1, step // 2)
        for i in range(0, n, step):
            if i not in seen:
                seen.add(i)
                order.append(i)
    order += [i for i in range(n) if i not in seen]
    return order


def _sample_all(fns: Sequence[tuple[Callable[[float], float], Callable[[float], float] | None]],
                xs: Sequence[float], seconds: float) -> list[tuple[list[float], list[float], list[float] | None, bool]]:
    """Evaluate every curve (upper, and lower where given) at ``xs``, coarse first and in
    rounds across the curves, until ``seconds`` have passed (every curve gets at least two
    points): cheap curves finish at once and slow ones get the time that is left.

    Returns, per curve, ``(x, upper, lower, complete)`` in increasing x.
    """
    order = _coarse_first(len(xs))
    ups: list[dict[int, float]] = [{} for _ in fns]
    lows: list[dict[int, float]] = [{} for _ in fns]
    t0 = time.perf_counter()
    for rank, i in enumerate(order):
        if rank >= 2 and time.perf_counter() - t0 > seconds:
            break
        for c, (up, low) in enumerate(fns):
            x = float(xs[i])
            ups[c][i] = float(up(x))
            if low is not None:
                lows[c][i] = float(low(x))
    out = []
    for (up, low), pu, pl in zip(fns, ups, lows):
        idx = sorted(pu)
        out.append(([float(xs[i]) for i in idx], [pu[i] for i in idx],
                    None if low is None else [pl[i] for i in idx], len(idx) == len(xs)))
    return out


def _grid(report: Report, kind: str) -> tuple[list[float], str, str, bool]:
    import numpy as np

    if kind == "epsilon-delta":
        lo, hi, n = report.plot_range
        return np.logspace(math.log10(lo), math.log10(hi), n).tolist(), "δ", "ε (certified upper bound)", True
    if kind == "delta-epsilon":
        n = report.plot_range[2]
        tops = [r.upper for r in report.rows if r.kind == "epsilon" and r.tightest and math.isfinite(r.upper)]
        tops += [r.target for r in report.rows if r.kind == "delta"]
        top = 1.5 * max(tops) if tops and max(tops) > 0 else 10.0
        return np.linspace(0.0, top, n).tolist(), "ε", "δ (certified upper bound)", False
    total = max((k for _, k in report.composition), default=1)
    xs = sorted({max(1, int(round(v))) for v in np.geomspace(1, max(1, total), STEP_POINTS)})
    single = len(report.composition) == 1
    xlabel = "steps" if single else f"steps (of the longest invocation's {total}; the others in proportion)"
    return [float(x) for x in xs], xlabel, f"ε at δ = {_step_delta(report):g} (certified upper bound)", True


def _step_delta(report: Report) -> float:
    ds = [t for k, t in report.targets if k == "epsilon"]
    return ds[0] if ds else 1e-6


def _scaled(report: Report, steps: float) -> list[tuple[Any, int]]:
    total = max((k for _, k in report.composition), default=1)
    return [(m, max(1, math.ceil(k * steps / total))) for m, k in report.composition]


def _functions(report: Report, c: Curve, kind: str) -> tuple[Callable[[float], float] | None,
                                                             Callable[[float], float] | None]:
    g = c.guarantee
    lower_ok = g.has_lower_bound and not g.exact
    if kind in ("epsilon-delta", "delta-epsilon"):
        up, low = (g.epsilon, g.epsilon_lower) if kind == "epsilon-delta" else (g.delta, g.delta_lower)
        # at the report's own targets the rows hold these very queries: not computed twice
        rows = {r.target: r for r in report.rows
                if r.method == c.method and r.scope == c.scope and r.kind == kind.split("-")[0]}
        return _known(up, {x: r.upper for x, r in rows.items()}), \
            (_known(low, {x: r.lower for x, r in rows.items() if r.lower is not None}) if lower_ok else None)
    if c.rebuild is None or not report.composition:
        return None, None
    d = _step_delta(report)
    return (lambda s: c.rebuild(_scaled(report, s)).epsilon(d)), None


def _known(fn: Callable[[float], float], values: dict[float, float]) -> Callable[[float], float]:
    """``fn``, answered from ``values`` where it was already evaluated (the report's rows)."""
    if not values:
        return fn
    return lambda x: values[x] if x in values else fn(x)


def _short(c: Curve) -> str:
    """A curve's name in plots: its method, with " [constraint]" outside classic DP."""
    name = c.method or c.label.split(" [")[0]
    return name if c.scope == SCOPE_CLASSIC else f"{name} [constraint]"


def _close_to_best(report: Report, curves: list[Curve]) -> tuple[list[Curve], list[str]]:
    """The curves whose row at the first target delta is within DROP_FACTOR of the tightest."""
    d = _step_delta(report)
    rows = {(r.method, r.scope): r.upper for r in report.rows if r.kind == "epsilon" and r.target == d}
    best = min((u for u in rows.values() if math.isfinite(u)), default=math.inf)
    keep, loose = [], []
    for c in curves:
        u = rows.get((c.method, c.scope))
        if u is not None and math.isfinite(best) and best > 0 and not u <= DROP_FACTOR * best:
            loose.append(_short(c))
        else:
            keep.append(c)
    return keep, loose


def _guarded(fn: Callable[[float], float]) -> Callable[[float], float]:
    """``fn``, with NaN for a point the method refuses (drawn as a gap, never as a number)."""

    def value(x: float) -> float:
        try:
            return fn(x)
        except (DPComposeError, ArithmeticError):
            return math.nan

    return value


def plot_data(report: Report, kind: str = "epsilon-delta") -> PlotData:
    """Compute every curve of a plot of ``report`` (see the module docstring for the rules)."""
    kind = _check_kind(kind)
    xs, xlabel, ylabel, xlog = _grid(report, kind)
    fns, kept = [], []
    notes: list[str] = []
    curves = list(report.curves)
    budget = PLOT_TIME_BUDGET
    if kind == "steps":
        # every point is a fresh composition: leave out first what is far above the tightest
        # at the full count (the report's own rows), and allow more time
        curves, loose = _close_to_best(report, curves)
        if loose:
            notes.append(f"not computed, more than {DROP_FACTOR:g}x above the tightest at "
                         f"{_step_delta(report):g} for the whole run: " + ", ".join(loose))
        budget = STEPS_TIME_BUDGET
    for c in curves:
        up_fn, low_fn = _functions(report, c, kind)
        if up_fn is None:
            notes.append(f"{_short(c)}: not drawn against steps (no way to recompute it)")
            continue
        fns.append((_guarded(up_fn), None if low_fn is None else _guarded(low_fn)))
        kept.append(c)
    series: list[Series] = []
    partial: dict[int, list[str]] = {}
    for c, (x, ys, lows, complete) in zip(kept, _sample_all(fns, xs, budget)):
        if all(math.isnan(y) for y in ys):
            notes.append(f"{_short(c)}: not drawn (the method refused these points)")
            continue
        if lows is not None and all(abs(a - b) <= 1e-6 * max(1.0, abs(b)) for a, b in zip(lows, ys)
                                    if math.isfinite(b)):
            lows = None
        series.append(Series(_short(c), c.method or c.label, c.scope, x, ys, lows, c.certified,
                             c.guarantee.exact, list(c.caveats), complete))
        if not complete:
            partial.setdefault(len(x), []).append(_short(c))
    for n, names in sorted(partial.items()):
        notes.append(f"{n} of {len(xs)} points (time budget): {', '.join(names)}")
    dropped = _drop_loose(series)
    _merge_coincident(series)
    ylog = _wants_log(series, kind)
    marks = []
    if kind == "epsilon-delta":
        marks = [(r.target, r.upper) for r in report.rows
                 if r.kind == "epsilon" and r.tightest and math.isfinite(r.upper)]
    elif kind == "delta-epsilon":
        marks = [(r.target, r.upper) for r in report.rows if r.kind == "delta" and r.tightest and r.upper > 0]
    partly = [f"{s.label} ({sum(s.far)} of {len(s.x)} points)" for s in series if s.drawn and any(s.far)]
    if partly:
        notes.insert(0, f"not drawn where more than {DROP_FACTOR:g}x above the tightest: " + ", ".join(partly))
    if dropped:
        notes.insert(0, f"not drawn, more than {DROP_FACTOR:g}x above the tightest everywhere: "
                        + ", ".join(dropped))
    return PlotData(kind, report.title, xlabel, ylabel, xlog, ylog, series, dropped, notes, marks)


def _drop_loose(series: list[Series]) -> list[str]:
    """Hide what is more than DROP_FACTOR above the pointwise tightest certified curve:
    whole curves (returned) and single points of the others (``Series.far``)."""
    best: dict[float, float] = {}
    for s in series:
        if s.certified:
            for x, y in zip(s.x, s.upper):
                if math.isfinite(y):
                    best[x] = min(best.get(x, math.inf), y)
    dropped = []
    for s in series:
        s.far = [math.isfinite(y) and x in best and y > DROP_FACTOR * best[x] and best[x] > 0
                 for x, y in zip(s.x, s.upper)]
        if not any(math.isfinite(y) for y in s.upper):
            s.drawn = False
            dropped.append(f"{s.label} (no finite bound in range)")
        elif not s.shown():
            s.drawn = False
            dropped.append(s.label)
    return dropped


def _close(a: Series, b: Series) -> bool:
    if a.x != b.x or a.scope != b.scope:
        return False
    for u, v in zip(a.upper, b.upper):
        if not (math.isfinite(u) and math.isfinite(v)):
            if not (u == v or (math.isnan(u) and math.isnan(v))):
                return False
        elif abs(u - v) > COINCIDE_RTOL * max(abs(u), abs(v), 1e-300):
            return False
    return True


def _merge_coincident(series: list[Series]) -> None:
    drawn = [s for s in series if s.drawn]
    for i, a in enumerate(drawn):
        if not a.drawn:
            continue
        for b in drawn[i + 1:]:
            if b.drawn and _close(a, b):
                b.drawn = False
                a.same_as.append(b.method)


def _wants_log(series: list[Series], kind: str) -> bool:
    vals = [y for s in series if s.drawn for _, y in s.shown() + (s.shown(s.lower) if s.lower else []) if y > 0]
    return bool(vals) and max(vals) > 10.0 * min(vals)


# ---------------------------------------------------------------------------
# drawing


def _label(caveats: Sequence[str], s: Series) -> str:
    name = " = ".join([s.method] + s.same_as[:1]) + (f" (+{len(s.same_as) - 1} equal)" if len(s.same_as) > 1 else "")
    if s.exact:
        name += " (exact)"
    if not s.certified:
        name += " (estimate, not a guarantee)"
    marks = " ".join(f"†{caveats.index(c) + 1}" for c in s.caveats if c in caveats)
    return name + (f" {marks}" if marks else "")


_SUPERSCRIPT = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")
#: the labels of matplotlib's ``LogFormatterSciNotation``: ``$\mathdefault{BODY}$`` with BODY
#: ``-?G``, ``-?B^{N}`` or ``-?G\times B^{N}`` (G a number, B the base, N an integer)
_SCI_LABEL = re.compile(r"\$\\mathdefault\{(-?)(?:([0-9.]+)\\times)?([0-9.]+)(?:\^\{(-?[0-9]+)\})?\}\$")


def plain_tick_label(label: str) -> str:
    r"""A log axis's tick label in plain text: ``$\mathdefault{10^{-6}}$`` becomes ``10⁻⁶``,
    ``$\mathdefault{2\times10^{-6}}$`` becomes ``2×10⁻⁶``; any other label is returned as it
    is (and drawn by mathtext, as before).

    The label reads the same; drawing it needs no mathtext parser, whose first use costs
    about 0.4 s (most of the time the demo spent drawing its figure).

    >>> plain_tick_label(r"$\mathdefault{10^{-6}}$"), plain_tick_label(r"$\mathdefault{2\times10^{1}}$")
    ('10⁻⁶', '2×10¹')
    """
    m = _SCI_LABEL.fullmatch(label)
    if m is None:
        return label
    sign, coeff, base, power = m.groups()
    text = ("\u2212" if sign else "") + (f"{coeff}×" if coeff else "") + base
    return text + ("" if power is None else power.translate(_SUPERSCRIPT))


def _log_ticks(axis: Any, limits: tuple[float, float]) -> None:
    """The ticks of a log ``axis`` (base 10) showing ``limits``: labelled in plain text
    (:func:`_plain_log_labels`), and no minor ticks when the axis spans more than
    :data:`MINOR_TICKS_MAX_DECADES` decades (a gridline at every decade is enough there)."""
    _plain_log_labels(axis)
    lo, hi = sorted(limits)
    if lo > 0 and math.log10(hi / lo) > MINOR_TICKS_MAX_DECADES:
        from matplotlib.ticker import NullLocator

        axis.set_minor_locator(NullLocator())


def _plain_log_labels(axis: Any) -> None:
    """Label a log ``axis`` (base 10) as matplotlib does, in plain text (:func:`plain_tick_label`)."""
    from matplotlib.ticker import LogFormatterSciNotation

    class PlainLogFormatter(LogFormatterSciNotation):
        def __call__(self, x: float, pos: int | None = None) -> str:
            return plain_tick_label(super().__call__(x, pos))

    axis.set_major_formatter(PlainLogFormatter(labelOnlyBase=axis.get_major_formatter().labelOnlyBase))
    axis.set_minor_formatter(PlainLogFormatter(labelOnlyBase=axis.get_minor_formatter().labelOnlyBase))


def figure(report: Report, data: PlotData):
    """The matplotlib figure of ``data`` (closed by the caller)."""
    return figure_of(data, report.caveats)


def figure_of(data: PlotData, caveats: Sequence[str], pyplot: bool = True):
    """The matplotlib figure of ``data``, whose report has these ``caveats`` (numbered
    "†1", ... in the legend and the footnote); :func:`figure` for a whole report.

    ``pyplot=False``: a figure pyplot does not manage (nothing to close; saved by the backend
    its file type needs), without importing pyplot: the plot worker's child draws it so.
    """
    if pyplot:
        import matplotlib

        matplotlib.use("Agg", force=False)
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=PLOT_INCHES, dpi=PLOT_DPI)
    else:
        from matplotlib.figure import Figure

        fig = Figure(figsize=PLOT_INCHES, dpi=PLOT_DPI)
        ax = fig.subplots()
    methods = list(dict.fromkeys(s.method for s in data.series))
    scopes = {s.scope for s in data.drawn}
    with_lower = False
    for s in data.drawn:
        color = _COLORS[methods.index(s.method) % len(_COLORS)]
        pts = [(x, y) for x, y in s.shown() if y > 0 or not data.ylog]
        if not pts:
            continue
        ls = "-" if s.scope == SCOPE_CLASSIC else "--"
        if not s.certified:
            ls = ":"
        label = _label(caveats, s)
        if len(scopes) > 1 and s.scope != SCOPE_CLASSIC:
            label += " [constraint]"
        ax.plot([p[0] for p in pts], [p[1] for p in pts], color=color, lw=2.2 if s.exact else 1.6, ls=ls,
                marker="o" if len(pts) <= 12 else None, ms=3, label=label)
        if s.lower is not None:
            low = [(x, y) for x, y in s.shown(s.lower) if y > 0 or not data.ylog]
            if low:
                ax.plot([p[0] for p in low], [p[1] for p in low], color=color, lw=0.9, ls=":")
                with_lower = True
    for x, y in data.marks:
        ax.plot([x], [y], marker="*", color="black", ms=12, ls="none")
    if data.xlog:
        ax.set_xscale("log")
        _log_ticks(ax.xaxis, ax.get_xlim())
    if data.ylog:
        ax.set_yscale("log")
        _log_ticks(ax.yaxis, ax.get_ylim())
    else:
        ax.set_ylim(bottom=0)
    ax.set_xlabel(data.xlabel)
    ax.set_ylabel(data.ylabel)
    ax.set_title(data.title, fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    if data.drawn:
        title = []
        if len(scopes) > 1:
            title.append("solid: classic DP · dashed: membership constraint")
        if with_lower:
            title.append("dotted: certified lower bounds")
        if data.marks:
            title.append("★ tightest at the report's targets")
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0,
                  title="\n".join(title) or None, title_fontsize=7, frameon=False, alignment="left")
    else:
        ax.text(0.5, 0.5, "no method produced a finite guarantee", transform=ax.transAxes, ha="center")
    foot = data.notes + [f"†{i} looser fallback: {c}" for i, c in enumerate(caveats, 1)]
    if foot:
        import textwrap

        fig.text(0.755, 0.04, "\n".join(textwrap.fill(n, 52, subsequent_indent="   ") for n in foot),
                 fontsize=6.5, va="bottom", ha="left", color="#6b4a00")
    fig.subplots_adjust(left=0.08, right=0.74, top=0.92, bottom=0.11)
    return fig


def write_plot(report: Report, path: str | Path, kind: str = "epsilon-delta",
               data: PlotData | None = None) -> Path:
    """Write the plot as .png (:data:`PLOT_SIZE_PX` pixels), .svg, .pdf, or .html (the review
    document with the plot embedded as SVG).

    Raises:
        InvalidParameterError: another file extension, or an unknown ``kind``.
    """
    p = check_plot_path(path)
    ext = p.suffix.lower()
    data = data if data is not None else plot_data(report, kind)
    # a figure pyplot does not manage: written, never shown, nothing to close (and no pyplot import)
    fig = figure_of(data, report.caveats, pyplot=False)
    if ext in (".png", ".svg", ".pdf"):
        fig.savefig(p, format=ext[1:], dpi=PLOT_DPI)
    else:
        from .render import to_html

        buf = io.StringIO()
        fig.savefig(buf, format="svg")
        svg = buf.getvalue()
        p.write_text(to_html(report, svg=svg[svg.find("<svg"):]), encoding="utf-8")
    return p


def write_plot_data(data: PlotData, path: str | Path) -> Path:
    """Export every computed curve (drawn or not) as .csv (one row per point) or .json."""
    p = check_data_path(path)
    if p.suffix.lower() == ".json":
        doc = {"kind": data.kind, "title": data.title, "x": data.xlabel, "y": data.ylabel,
               "log_x": data.xlog, "log_y": data.ylog, "dropped": data.dropped, "notes": data.notes,
               "curves": [{"label": s.label, "method": s.method, "applies_to": s.scope,
                           "certified": s.certified, "exact": s.exact, "drawn": s.drawn,
                           "drawn_as": None if s.drawn else next((t.label for t in data.series
                                                                  if s.method in t.same_as and t.drawn), None),
                           "caveats": s.caveats, "complete": s.complete,
                           "points": [{"x": x, "upper": u, "lower": None if s.lower is None else s.lower[i]}
                                      for i, (x, u) in enumerate(zip(s.x, s.upper))]}
                          for s in data.series]}
        p.write_text(json.dumps(jsonable(doc), indent=2, allow_nan=False) + "\n", encoding="utf-8")
        return p
    with p.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["curve", "method", "applies_to", "certified", "drawn", "x", "upper", "lower"])
        for s in data.series:
            for i, (x, u) in enumerate(zip(s.x, s.upper)):
                low = "" if s.lower is None else repr(s.lower[i])
                w.writerow([s.label, s.method, s.scope, s.certified, s.drawn, repr(x), repr(u), low])
    return p
