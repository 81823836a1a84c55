r"""Reports: every composition method side by side, for a plan or a list of mechanisms.

A :class:`Report` holds one :class:`Row` per (method, target): the certified upper
bound, the certified lower bound where the method has one, a status, the time taken and
the provenance of the :class:`~dpcompose.guarantee.Guarantee` behind it. The tightest
certified upper bound of each target is marked. Views: :func:`render_table` (Rich),
:func:`to_json`, :func:`to_markdown` and :func:`write_plot` (PNG, SVG or HTML).

Methods come from :func:`dpcompose.compose.available_methods` at run time, so a method
registered later appears without changes here. Two rows are computed here from the plan
itself, each a certified upper bound under the plan's stated membership constraint:

- ``parallel``: parallel composition as the paper compares it (Hartmann, Bindschaedler
  and West, "On the Choice of Databases in Differential Privacy Composition",
  Sec. V-A1): with at most :math:`c` databases per individual, the merged database's
  neighbours differ in at most :math:`c` (unbounded) or :math:`2c` (bounded) records,
  so group privacy gives :math:`c \max_i \varepsilon_i` (resp. :math:`2c \max_i
  \varepsilon_i`), for pure-DP mechanisms only. (The paper writes "unbounded" for both
  cases in that paragraph; the second is the bounded case.) Here
  :math:`\varepsilon_i` is the simple-composition epsilon of everything run on
  database :math:`i`.
- hypothesis DP (``hdp``), through :mod:`dpcompose.hypotheses` when it is installed.
  Without it, plans whose databases all see the same mechanisms and that bound the
  number of databases per individual use the reduction of the paper's Example 1: the
  worst case over allowed membership vectors is a deterministic pair (joint convexity
  of the hockey-stick divergence), so it is the composition of the mechanisms on
  :math:`c` databases (unbounded) or :math:`\min(2c, n)` databases (bounded); every
  registered method is then applied to that composition.
"""

from __future__ import annotations

import html
import io
import json
import math
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

from ._version import __version__
from .compose import available_methods, compose
from .errors import DPComposeError, InvalidParameterError, MethodNotApplicableError
from .guarantee import Guarantee
from .mechanisms import Mechanism, describe
from .representations import eps_delta_pair

__all__ = [
    "Row",
    "Skipped",
    "Report",
    "STATUS_UPPER",
    "STATUS_EXACT",
    "STATUS_ESTIMATE",
    "composition_methods",
    "compare",
    "build_report",
    "render_table",
    "to_json",
    "to_markdown",
    "write_plot",
    "fmt_upper",
    "fmt_lower",
    "guarantee_caveats",
]

STATUS_UPPER = "certified upper bound"
STATUS_EXACT = "exact (certified upper = lower bound)"
STATUS_ESTIMATE = "estimate, not a guarantee"

SCOPE_CLASSIC = "classic DP"

Progress = Callable[[str], None]


@dataclass
class Row:
    """One method at one target.

    ``kind`` is ``"epsilon"`` (``value_upper`` bounds epsilon at ``target`` = delta) or
    ``"delta"`` (it bounds delta at ``target`` = epsilon).
    """

    method: str
    scope: str
    kind: str
    target: float
    upper: float
    lower: float | None
    status: str
    seconds: float
    tightest: bool = False
    provenance: dict[str, Any] = field(default_factory=dict)
    #: why this number may be looser than it looks (shown beside the row, marked †)
    caveats: list[str] = field(default_factory=list)

    @property
    def certified(self) -> bool:
        return self.status != STATUS_ESTIMATE


@dataclass
class Skipped:
    """A method that did not apply (or is not available), and why."""

    method: str
    scope: str
    reason: str


@dataclass
class Curve:
    """A guarantee to plot: one curve per method and scope."""

    label: str
    guarantee: Guarantee
    certified: bool
    caveats: list[str] = field(default_factory=list)


@dataclass
class Report:
    """A comparison of methods; see the module docstring."""

    title: str
    source: str
    description: str
    summary: str
    total_invocations: int
    rows: list[Row]
    skipped: list[Skipped]
    curves: list[Curve]
    notes: list[str]
    plot_range: tuple[float, float, int] = (1e-10, 1e-2, 25)

    @property
    def caveats(self) -> list[str]:
        """The distinct caveats of all rows, in order; caveat i is shown as "†i" (1-based)."""
        out: list[str] = []
        for r in self.rows:
            for c in r.caveats:
                if c not in out:
                    out.append(c)
        for cv in self.curves:
            for c in cv.caveats:
                if c not in out:
                    out.append(c)
        return out

    def best(self, kind: str, target: float) -> Row | None:
        """The tightest certified row for a target (None if no method applied)."""
        for r in self.rows:
            if r.kind == kind and r.target == target and r.tightest:
                return r
        return None


def report_options(options: dict[str, dict[str, Any]] | None) -> dict[str, dict[str, Any]]:
    """Per-method options for a report: the caller's, else each method's registered
    ``report_defaults`` (:class:`~dpcompose.methods.registry.MethodInfo`; only keys the
    method accepts).

    Every method registers none today, so a report row equals ``compose(...,
    method=m)``. (pld once had a fixed grid h = 1e-4 here; its default grid is sized and
    aligned from the input and is faster, while the fixed grid's FFT error swamped small
    deltas: 50 x 0.5-DP at delta 1e-10 showed 25.0, simple composition, for 23.956.)
    """
    from .methods.registry import registered_methods

    out = {k: dict(v) for k, v in (options or {}).items()}
    for info in registered_methods():
        if info.name not in out and info.report_defaults:
            out[info.name] = dict(info.report_defaults)
    return out


def composition_methods() -> list[str]:
    """The registered composition methods, in registry order ("auto" excluded)."""
    return [m for m in available_methods() if m != "auto"]


def _status(g: Guarantee) -> str:
    prov = g.provenance or {}
    if prov.get("estimate") or "estimate" in g.method:
        return STATUS_ESTIMATE
    if g.exact:
        return STATUS_EXACT
    return STATUS_UPPER


def guarantee_caveats(g: Guarantee) -> list[str]:
    """Where a guarantee fell back to a looser bound: ``provenance["caveats"]`` (a list of
    one-line texts, e.g. an enumeration limit in hypothesis DP, or a coarse numerical grid).

    Any method may record caveats there; every view of a report shows them (a "†" mark
    in the status column with the text under the table, the plot legend, JSON)."""
    raw = (g.provenance or {}).get("caveats") or ()
    if isinstance(raw, str):
        raw = [raw]
    return [_one_line(str(c)) for c in raw]


#: a guarantee's numerical error budget (``provenance["error_budget"]["delta"]``, e.g.
#: pld's tails and FFT round-off) above this share of the delta at stake is a caveat
ERROR_BUDGET_SHARE = 0.1


def _caveats(g: Guarantee, kind: str, target: float, upper: float) -> list[str]:
    """The guarantee's own caveats, plus one where its numerical error dominates delta."""
    out = guarantee_caveats(g)
    err = ((g.provenance or {}).get("error_budget") or {}).get("delta", 0.0)
    delta = target if kind == "epsilon" else upper
    if err > 0.0 and err >= ERROR_BUDGET_SHARE * delta:
        out.append(f"numerical error budget {err:.2g} (tails, round-off) is not small against "
                   f"δ = {delta:.2g}: this bound is dominated by it; another method or coarser "
                   f"numerics may be tighter here")
    return out


def _evaluate(g: Guarantee, method: str, scope: str, deltas: Sequence[float],
              epsilons: Sequence[float], t_build: float) -> list[Row]:
    rows = []
    status = _status(g)
    for kind, targets, query in (("epsilon", deltas, g.epsilon_bounds),
                                 ("delta", epsilons, g.delta_bounds)):
        for x in targets:
            t0 = time.perf_counter()
            lo, hi = query(x)
            dt = time.perf_counter() - t0
            rows.append(Row(method, scope, kind, float(x), hi, lo if g.has_lower_bound else None,
                            status, t_build + dt, provenance=_jsonable(g.provenance),
                            caveats=_caveats(g, kind, float(x), hi)))
    return rows


def _run(label: str, scope: str, fn: Callable[[], Guarantee], deltas: Sequence[float],
         epsilons: Sequence[float], rows: list[Row], skipped: list[Skipped],
         curves: list[Curve], progress: Progress | None) -> None:
    if progress is not None:
        progress(f"{label} ({scope})")
    t0 = time.perf_counter()
    try:
        g = fn()
        out = _evaluate(g, label, scope, deltas, epsilons, 0.0)
    except DPComposeError as exc:
        # not applicable, or an option the method does not accept
        skipped.append(Skipped(label, scope, _one_line(str(exc))))
        return
    except ArithmeticError as exc:
        # a method's internal NaN/overflow check fired: report it, never a number
        skipped.append(Skipped(label, scope, f"failed (internal error, please report): {_one_line(str(exc))}"))
        return
    elapsed = time.perf_counter() - t0
    for r in out:
        r.seconds = elapsed / max(1, len(out))
    rows.extend(out)
    curves.append(Curve(label if scope == SCOPE_CLASSIC else f"{label} [{scope}]", g,
                        _status(g) != STATUS_ESTIMATE, guarantee_caveats(g)))


def _one_line(msg: str) -> str:
    return " ".join(msg.split())


def _mark_tightest(rows: list[Row]) -> None:
    keys = {(r.kind, r.target) for r in rows}
    for kind, target in keys:
        cands = [r for r in rows if r.kind == kind and r.target == target and r.certified]
        if cands:
            best = min(cands, key=lambda r: r.upper)
            best.tightest = True


def _methods_to_run(methods: Sequence[str] | None) -> list[str]:
    """Composition methods to run: all registered by default, else those named ("auto" allowed)."""
    known = composition_methods()
    if methods is None:
        return known
    return [m for m in methods if m in known or m == "auto"]


def _inner_methods(methods: Sequence[str] | None) -> list[str]:
    """Inner methods for hypothesis-DP rows: those named, or all if only report-only names are."""
    named = _methods_to_run(methods)
    return named if named else composition_methods()


def compare(mechanisms: Iterable[Any], *, deltas: Sequence[float] = (1e-6,),
            epsilons: Sequence[float] = (), methods: Sequence[str] | None = None,
            options: dict[str, dict[str, Any]] | None = None, title: str = "",
            progress: Progress | None = None) -> Report:
    """Compare every registered method (or ``methods``) on a list of mechanisms.

    Args:
        mechanisms: mechanisms and/or ``(mechanism, count)`` pairs.
        deltas: report the epsilon upper (and lower) bound at each.
        epsilons: report the delta bounds at each.
        methods: method names (default: all registered).
        options: per-method options passed to :func:`dpcompose.compose`.

    Returns:
        A :class:`Report` (methods that do not apply are listed in ``skipped``).
    """
    mechs = list(mechanisms)
    options = report_options(options)
    rows: list[Row] = []
    skipped: list[Skipped] = []
    curves: list[Curve] = []
    _check_methods(methods)
    for m in _methods_to_run(methods):
        _run(m, SCOPE_CLASSIC, lambda m=m: compose(mechs, method=m, **options.get(m, {})),
             deltas, epsilons, rows, skipped, curves, progress)
    _mark_tightest(rows)
    k = sum(c for _, c in _pairs(mechs))
    return Report(title or _summary(mechs), "<list>", "", _summary(mechs), k, rows, skipped,
                  curves, [])


def _check_methods(methods: Sequence[str] | None, extra: Sequence[str] = ()) -> None:
    if methods is None:
        return
    known = composition_methods() + list(extra)
    for i, m in enumerate(methods):
        if m not in known and m != "auto":
            raise InvalidParameterError(
                f"methods[{i}] = {m!r} is not a known method; available: {', '.join(known)}. "
                f"Remedy: pick from `dpcompose methods`, or leave `methods` out to compare all.")


def _pairs(mechs: Iterable[Any]) -> list[tuple[Mechanism, int]]:
    out = []
    for it in mechs:
        if isinstance(it, Mechanism):
            out.append((it, 1))
        else:
            out.append((it[0], int(it[1])))
    return out


def _summary(mechs: Iterable[Any]) -> str:
    from .compose import normalize

    groups = normalize(mechs)
    parts = [f"{k} x {describe(m)}" if k != 1 else describe(m) for m, k in groups]
    if len(parts) > 4:
        parts = parts[:4] + [f"... ({len(groups)} kinds)"]
    return " + ".join(parts)


# ---------------------------------------------------------------------------
# plans


def build_report(plan: Any, *, methods: Sequence[str] | None = None,
                 progress: Progress | None = None) -> Report:
    """Run every method of a :class:`~dpcompose.plan.Plan` at its targets.

    Args:
        plan: a loaded plan (:func:`dpcompose.plan.load_plan`).
        methods: override the plan's ``methods`` list.
        progress: called with a label before each method runs.
    """
    spec = plan.spec
    methods = methods if methods is not None else spec.methods
    _check_methods(methods, extra=("parallel", "hdp"))
    deltas = list(spec.targets.deltas)
    epsilons = list(spec.targets.epsilons)
    options = report_options(spec.options)
    mechs = plan.composition()
    rows: list[Row] = []
    skipped: list[Skipped] = []
    curves: list[Curve] = []
    notes: list[str] = []
    k = plan.total_invocations
    classic_scope = SCOPE_CLASSIC
    for m in _methods_to_run(methods):
        _run(m, classic_scope, lambda m=m: compose(mechs, method=m, **options.get(m, {})),
             deltas, epsilons, rows, skipped, curves, progress)
    if plan.has_hypothesis_dp:
        want_parallel = methods is None or "parallel" in methods
        if want_parallel and spec.membership is not None:
            _parallel_rows(plan, deltas, epsilons, rows, skipped, curves, progress)
        if methods is None or "hdp" in methods:
            _hdp_rows(plan, methods, options, deltas, epsilons, rows, skipped, curves, notes, progress)
    _mark_tightest(rows)
    nd = len(plan.database_names)
    summary = f"{k} invocation{'s' if k != 1 else ''}"
    if plan.has_hypothesis_dp:
        summary += f" on {nd} database{'s' if nd != 1 else ''}"
    summary += ": " + "; ".join(_invocation_summary(plan))
    ps = spec.plot
    return Report(spec.title, plan.source, spec.description, summary, k, rows, skipped, curves,
                  notes, (ps.delta_min, ps.delta_max, ps.points))


def _invocation_summary(plan: Any) -> list[str]:
    out = []
    for inv, expr in zip(plan.spec.invocations, plan.expressions):
        s = f"{expr}"
        if inv.count != 1:
            s += f" x {inv.count}"
        if inv.database is not None:
            s += f" on each {inv.database}"
        out.append(s)
    return out


def _membership_text(spec: Any) -> str:
    mem = spec.membership
    if mem is None:
        return "hypothesis DP, the plan's hypotheses p0 vs p1"
    if mem.patterns is not None:
        return f"hypothesis DP, {len(mem.patterns)} allowed patterns, {mem.neighbors}"
    parts = []
    if mem.max_databases is not None:
        parts.append(f"at most {mem.max_databases} databases")
    if mem.max_per_group:
        parts.append("at most " + ", ".join(f"{c} {g}" for g, c in mem.max_per_group.items()))
    return "hypothesis DP, " + "; ".join(parts) + f", {mem.neighbors}"


def _per_database_mechanisms(plan: Any) -> dict[int, list[tuple[Mechanism, int]]]:
    per: dict[int, list[tuple[Mechanism, int]]] = {}
    for (m, c), db in zip(plan.mechanisms, plan.databases):
        per.setdefault(db, []).append((m, c))
    return per


def _parallel_rows(plan: Any, deltas, epsilons, rows, skipped, curves, progress) -> None:
    spec = plan.spec
    mem = spec.membership
    scope = _membership_text(spec)
    label = "parallel"
    per = _per_database_mechanisms(plan)
    eps_db = []
    for db, items in per.items():
        tot = 0.0
        for m, c in items:
            pair = eps_delta_pair(m)
            if pair is None or pair[1] > 0:
                skipped.append(Skipped(label, scope, "parallel composition applies only to pure "
                                       f"epsilon-DP mechanisms; {describe(m)} is not one"))
                return
            tot += c * pair[0]
        eps_db.append(tot)
    c = plan.max_members()
    factor = c if mem.neighbors == "unbounded" else 2 * c
    eps = factor * max(eps_db) if eps_db else 0.0
    # round up one ulp-ish so the float product never under-reports
    eps = math.nextafter(eps, math.inf) if eps > 0 else 0.0

    def build() -> Guarantee:
        return Guarantee(
            label, epsilon_upper=lambda d: eps, delta_upper=lambda e: 0.0 if e >= eps else 1.0,
            provenance={"method": label, "group_size": factor, "max_epsilon_per_database": max(eps_db),
                        "theorem": "parallel composition with group privacy (Hartmann, Bindschaedler "
                                   "and West, Sec. V-A1)"})

    _run(label, scope, build, deltas, epsilons, rows, skipped, curves, progress)


def _load_hdp() -> Any | None:
    try:
        from .hypotheses import hdp  # type: ignore[attr-defined]
    except ImportError:
        return None
    return hdp


def _hdp_rows(plan: Any, methods, options, deltas, epsilons, rows, skipped, curves, notes, progress) -> None:
    spec = plan.spec
    scope = _membership_text(spec)
    hdp = _load_hdp()
    if hdp is not None:
        from . import hypotheses as H

        kwargs: dict[str, Any] = {"databases": list(plan.databases)}
        mem = spec.membership
        try:
            if mem is not None:
                kwargs["neighbors"] = mem.neighbors
                if mem.patterns is not None:
                    kwargs["membership"] = H.Allowed([tuple(p) for p in mem.patterns])
                else:
                    parts = []
                    if mem.max_databases is not None:
                        parts.append(H.AtMost(mem.max_databases))
                    if mem.max_per_group:
                        names = list(mem.max_per_group)
                        parts.append(H.PerGroup([plan.groups[n] for n in names],
                                                [mem.max_per_group[n] for n in names]))
                    kwargs["membership"] = parts[0] if len(parts) == 1 else H.AllOf(*parts)
            if spec.hypotheses is not None:
                kwargs["hypotheses"] = (_hypothesis(H, spec.hypotheses.p0, len(plan.database_names)),
                                        _hypothesis(H, spec.hypotheses.p1, len(plan.database_names)))
        except AttributeError as exc:
            skipped.append(Skipped("hdp", scope, f"this build of dpcompose.hypotheses lacks {exc}"))
            return
        mechs = list(plan.mechanisms)
        # [options.hdp]: enumeration_limit, coupling (validated by the plan)
        hdp_opts = dict(options.get("hdp", {}))
        if spec.hypotheses is None:
            hdp_opts.pop("coupling", None)  # only composite hypotheses have a coupling
        kwargs.update(hdp_opts)
        if spec.hypotheses is not None:
            # explicit hypotheses: hdp's own choice (exact where it can enumerate, else the
            # tightest coupling bound); the inner method rarely matters, so one row
            _run("hdp", scope, lambda: hdp(mechs, method="auto", **kwargs), deltas, epsilons,
                 rows, skipped, curves, progress)
        else:
            for m in _inner_methods(methods):
                opts = options.get(m, {})
                _run(m, scope, lambda m=m, opts=opts: hdp(mechs, method=m, **kwargs, **opts),
                     deltas, epsilons, rows, skipped, curves, progress)
        notes.append("hypothesis DP rows: dpcompose.hypotheses.hdp with the named inner composition "
                     "method (Hartmann, Bindschaedler and West, Alg. 2, Def. 3, Sec. V)")
        return
    # fallback: the Example 1 reduction for identical databases
    mem = spec.membership
    if mem is None or mem.max_databases is None or mem.max_per_group:
        skipped.append(Skipped("hdp", scope, "hypothesis DP needs dpcompose.hypotheses, which is not "
                               "installed in this build"))
        return
    per = _per_database_mechanisms(plan)
    kinds = {tuple(sorted(((describe(m), c) for m, c in items))) for items in per.values()}
    if len(kinds) != 1:
        skipped.append(Skipped("hdp", scope, "hypothesis DP with databases that see different "
                               "mechanisms needs dpcompose.hypotheses, which is not installed in this build"))
        return
    nd = len(plan.database_names)
    c = min(mem.max_databases, nd) if mem.neighbors == "unbounded" else min(2 * mem.max_databases, nd)
    one = next(iter(per.values()))
    reduced = [(m, cnt * c) for m, cnt in one]
    notes.append(f"hypothesis DP rows compose the mechanisms of {c} of the {nd} databases (the "
                 f"worst case of the membership constraint; the paper's Example 1 reduction)")
    for m in _inner_methods(methods):
        _run(m, scope, lambda m=m: compose(reduced, method=m, **options.get(m, {})),
             deltas, epsilons, rows, skipped, curves, progress)


def _hypothesis(H: Any, spec: Any, nd: int) -> Any:
    P = H.Hypothesis
    if spec.point is not None:
        return P.point(tuple(spec.point))
    if spec.uniform is not None:
        return P.uniform([tuple(v) for v in spec.uniform])
    if spec.uniform_nonzero:
        return P.uniform_nonzero(nd)
    if spec.product is not None:
        return P.product(list(spec.product))
    if spec.table is not None:
        return P.table({tuple(t.b): t.p for t in spec.table})
    raise InvalidParameterError("hypothesis: uniform_nonzero = false is not a hypothesis; "
                                "give point, uniform, uniform_nonzero = true, product or table")


# ---------------------------------------------------------------------------
# formatting (upper bounds round up, lower bounds round down: never under-report)


def fmt_upper(x: float, kind: str = "epsilon") -> str:
    """Display text for an upper bound, rounded up (the text, read back, is >= x)."""
    return _fmt_bound(x, kind, up=True)


def fmt_lower(x: float | None, kind: str = "epsilon") -> str:
    """Display text for a lower bound, rounded down ("—" when unknown; read back, <= x)."""
    return _fmt_bound(x, kind, up=False)


def _fmt_bound(x: float | None, kind: str, up: bool) -> str:
    """Round the exact binary value of ``x`` with decimal arithmetic, toward the safe side.

    Four decimals for epsilons in [1e-3, 1e5), otherwise (and for every delta) four
    significant digits in scientific notation. No tolerance fudge: ``Decimal(x)`` is the
    double's exact value, so the printed upper bound is never below ``x``.
    """
    if x is None:
        return "—"
    if math.isinf(x):
        return "∞ (none finite)" if up else "∞"
    if x == 0:
        return "0"
    rounding = ROUND_CEILING if up else ROUND_FLOOR
    d = Decimal(x)
    if kind != "delta" and Decimal("1e-3") <= d < Decimal("1e5"):
        return f"{d.quantize(Decimal('0.0001'), rounding=rounding):.4f}"
    e = d.adjusted()
    mant = d.scaleb(-e).quantize(Decimal("0.001"), rounding=rounding)
    if mant >= 10:  # rounded up past the decade: 9.9995 -> 10.000 -> 1.000e(e+1), exact
        mant, e = (mant / 10).quantize(Decimal("0.001"), rounding=rounding), e + 1
    return f"{mant:.3f}e{e:+03d}"


def _marks(report: Report, caveats: Sequence[str]) -> str:
    """"†1 †3": the footnote marks of these caveats in the report's numbering."""
    allc = report.caveats
    return " ".join(f"†{allc.index(c) + 1}" for c in caveats if c in allc)


def _status_text(report: Report, r: Row) -> str:
    """The status, with "looser fallback †i" marks where the guarantee fell back to a looser bound."""
    return r.status + (f" — looser fallback {_marks(report, r.caveats)}" if r.caveats else "")


def _target_text(r: Row) -> str:
    return f"δ = {r.target:g}" if r.kind == "epsilon" else f"ε = {r.target:g}"


def _fmt_time(s: float) -> str:
    if s < 1e-3:
        return f"{s * 1e6:.0f} µs"
    if s < 1:
        return f"{s * 1e3:.1f} ms"
    return f"{s:.2f} s"


def render_table(report: Report, console: Any) -> None:
    """Print the report as Rich tables (one per target kind) to ``console``."""
    from rich.markup import escape as E
    from rich.table import Table

    console.print(f"[bold]{E(report.title)}[/bold]")
    if report.summary and report.summary != report.title:
        console.print(E(report.summary))
    for kind, head_u, head_l in (("epsilon", "ε upper", "ε lower"), ("delta", "δ upper", "δ lower")):
        rows = [r for r in report.rows if r.kind == kind]
        if not rows:
            continue
        t = Table(show_lines=False, header_style="bold")
        t.add_column("", width=1)
        t.add_column("method")
        t.add_column("applies to")
        t.add_column("target")
        t.add_column(head_u, justify="right")
        t.add_column(head_l, justify="right")
        t.add_column("status")
        t.add_column("time", justify="right")
        for r in rows:
            style = "bold green" if r.tightest else None
            t.add_row("★" if r.tightest else "", E(r.method), E(r.scope), _target_text(r),
                      fmt_upper(r.upper, kind), fmt_lower(r.lower, kind),
                      E(_status_text(report, r)) + (" — tightest" if r.tightest else ""),
                      _fmt_time(r.seconds), style=style)
        console.print(t)
    for i, c in enumerate(report.caveats, 1):
        console.print(f"[yellow]†{i} looser fallback: {E(c)}[/yellow]")
    if not report.rows:
        console.print("[yellow]no method produced a guarantee for this input[/yellow]")
    for s in report.skipped:
        console.print(f"[dim]not applicable: {E(s.method)} ({E(s.scope)}): {E(s.reason)}[/dim]")
    for n in report.notes:
        console.print(f"[dim]note: {E(n)}[/dim]")
    console.print("[dim]★ = tightest certified upper bound for that target; upper bounds are rounded "
                  "up and lower bounds down; — = no lower bound known[/dim]")


def _jsonable(x: Any) -> Any:
    if isinstance(x, float):
        if math.isnan(x):
            return None   # only possible inside provenance (never a bound): no "nan" in output
        if math.isinf(x):
            return "inf" if x > 0 else "-inf"
        return x
    if isinstance(x, (str, int, bool)) or x is None:
        return x
    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, Mechanism):
        return describe(x)
    try:
        import numpy as np

        if isinstance(x, np.generic):
            return _jsonable(x.item())
        if isinstance(x, np.ndarray):
            return _jsonable(x.tolist())
    except ImportError:  # pragma: no cover
        pass
    return repr(x)


def to_dict(report: Report) -> dict[str, Any]:
    """A JSON-ready dict (floats at full precision; infinity as the string "inf")."""
    def row(r: Row) -> dict[str, Any]:
        d: dict[str, Any] = {"method": r.method, "applies_to": r.scope}
        if r.kind == "epsilon":
            d.update({"delta": r.target, "epsilon_upper": r.upper, "epsilon_lower": r.lower})
        else:
            d.update({"epsilon": r.target, "delta_upper": r.upper, "delta_lower": r.lower})
        d.update({"status": r.status, "tightest": r.tightest, "seconds": r.seconds,
                  "caveats": r.caveats, "provenance": r.provenance})
        return d

    return _jsonable({
        "dpcompose_version": __version__,
        "title": report.title,
        "source": report.source,
        "description": report.description,
        "summary": report.summary,
        "total_invocations": report.total_invocations,
        "rows": [row(r) for r in report.rows],
        "not_applicable": [{"method": s.method, "applies_to": s.scope, "reason": s.reason}
                           for s in report.skipped],
        "notes": report.notes,
        "caveats": report.caveats,
        "units": {"epsilon_upper": "certified upper bound (natural log)",
                  "epsilon_lower": "certified lower bound, or null if the method has none",
                  "delta_upper": "certified upper bound", "delta_lower": "certified lower bound or null",
                  "inf": "the string \"inf\" stands for infinity (no finite bound)"},
    })


def to_json(report: Report) -> str:
    """The report as JSON text (see :func:`to_dict`)."""
    return json.dumps(to_dict(report), indent=2, allow_nan=False)


def to_markdown(report: Report) -> str:
    """The report as a Markdown section for a review document."""
    out = [f"## {report.title}", ""]
    if report.description:
        out += [report.description, ""]
    out += [f"Input: {report.summary} (source: `{report.source}`).", ""]
    for kind, hu, hl in (("epsilon", "ε upper", "ε lower"), ("delta", "δ upper", "δ lower")):
        rows = [r for r in report.rows if r.kind == kind]
        if not rows:
            continue
        out.append(f"| | method | applies to | target | {hu} | {hl} | status | time |")
        out.append("|---|---|---|---|--:|--:|---|--:|")
        for r in rows:
            mark = "★" if r.tightest else ""
            out.append(f"| {mark} | {r.method} | {r.scope} | {_target_text(r)} | "
                       f"{fmt_upper(r.upper, kind)} | {fmt_lower(r.lower, kind)} | {_status_text(report, r)} | "
                       f"{_fmt_time(r.seconds)} |")
        out.append("")
    if report.caveats:
        out += [f"†{i} **looser fallback:** {c}  " for i, c in enumerate(report.caveats, 1)]
        out.append("")
    if report.skipped:
        out.append("Not applicable:")
        out.append("")
        out += [f"- **{s.method}** ({s.scope}): {s.reason}" for s in report.skipped]
        out.append("")
    for n in report.notes:
        out.append(f"Note: {n}")
    out.append("★ marks the tightest certified upper bound for each target. Upper bounds are rounded "
               f"up, lower bounds down. dpcompose {__version__}.")
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------
# plots


def _figure(report: Report):
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt
    import numpy as np

    lo, hi, n = report.plot_range
    deltas = np.logspace(math.log10(lo), math.log10(hi), n)
    fig, ax = plt.subplots(figsize=PLOT_INCHES, dpi=PLOT_DPI)
    names = []
    for c in report.curves:
        base = c.label.split(" [")[0]
        if base not in names:
            names.append(base)
    plotted = 0
    per_curve = max(PLOT_MIN_SECONDS_PER_CURVE, PLOT_TIME_BUDGET / max(1, len(report.curves)))
    for c in report.curves:
        try:
            xs_c, ys, complete = _sample_curve(c.guarantee.epsilon, deltas, per_curve)
        except (DPComposeError, ArithmeticError):
            continue
        xs_all, deltas_c = deltas, xs_c
        finite = np.isfinite(ys)
        if not finite.any():
            continue
        base = c.label.split(" [")[0]
        color = _COLORS[names.index(base) % len(_COLORS)]
        classic = " [" not in c.label
        exact = c.guarantee.exact
        label = c.label + (" (exact)" if exact else "") + ("" if c.certified else " — estimate, not a guarantee")
        if c.caveats:
            label += f" — looser fallback {_marks(report, c.caveats)}"
        if not complete:
            label += f" ({len(deltas_c)} of {len(xs_all)} points: time budget)"
        ls = "-" if classic else "--"
        if not c.certified:
            ls = ":"
        ax.plot(deltas_c[finite], ys[finite], color=color, lw=2.2 if exact else 1.5, ls=ls,
                marker="o" if exact else None, ms=3, label=label)
        plotted += 1
        if c.guarantee.has_lower_bound and not exact:
            try:
                lx, lows, _ = _sample_curve(c.guarantee.epsilon_lower, deltas_c, per_curve / 2)
            except (DPComposeError, ArithmeticError):
                continue
            upper_at = dict(zip(deltas_c.tolist(), ys.tolist()))
            ups = np.array([upper_at[x] for x in lx.tolist()])
            ok = np.isfinite(lows) & np.isfinite(ups)
            if ok.any() and np.any(np.abs(lows[ok] - ups[ok]) > 1e-6 * np.maximum(1, np.abs(ups[ok]))):
                ax.plot(lx[ok], lows[ok], color=color, lw=0.8, ls=":", label=f"{c.label} (lower bound)")
    for r in report.rows:
        if r.kind == "epsilon" and r.tightest and math.isfinite(r.upper):
            ax.plot([r.target], [r.upper], marker="*", color="black", ms=12, ls="none")
    ax.set_ylim(bottom=0)
    ax.set_xscale("log")
    ax.set_xlabel("δ")
    ax.set_ylabel("ε (certified upper bound)")
    ax.set_title(report.title, fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    if plotted:
        ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0,
                  title="solid: classic DP; dashed: with the membership constraint", title_fontsize=7)
        notes = [f"†{i} looser fallback: {c}" for i, c in enumerate(report.caveats, 1)]
        if notes:
            import textwrap

            fig.text(0.61, 0.02, "\n".join(textwrap.fill(n, 95, subsequent_indent="    ") for n in notes),
                     fontsize=6, va="bottom", ha="left", color="#8a4b00")
    else:
        ax.text(0.5, 0.5, "no method produced a finite guarantee", transform=ax.transAxes,
                ha="center")
    fig.subplots_adjust(left=0.07, right=0.6, top=0.92, bottom=0.11)
    return fig


#: seconds the whole plot may spend evaluating curves, and the least each curve gets;
#: a slow method's curve is drawn through the points computed in time (coarse first)
PLOT_TIME_BUDGET = 6.0
PLOT_MIN_SECONDS_PER_CURVE = 0.5


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


def _sample_curve(fn, xs, seconds: float):
    """Evaluate ``fn`` at ``xs`` (coarse first) until ``seconds`` have passed (at least 2 points)."""
    import numpy as np

    xs = np.asarray(xs, dtype=float)
    t0 = time.perf_counter()
    got: dict[int, float] = {}
    for count, i in enumerate(_coarse_first(len(xs))):
        if count >= 2 and time.perf_counter() - t0 > seconds:
            break
        got[i] = fn(float(xs[i]))
    idx = sorted(got)
    return xs[idx], np.array([got[i] for i in idx], dtype=float), len(idx) == len(xs)


PLOT_INCHES = (12.0, 5.5)
PLOT_DPI = 100
#: the size of PNG plots in pixels (width, height)
PLOT_SIZE_PX = (1200, 550)
_COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
           "#7f7f7f", "#bcbd22", "#17becf", "#393b79", "#637939"]


def write_plot(report: Report, path: str | Path) -> Path:
    """Write the eps(delta) plot as .png (:data:`PLOT_SIZE_PX` pixels), .svg or .html (SVG embedded).

    Raises:
        InvalidParameterError: for another file extension.
    """
    p = Path(path)
    ext = p.suffix.lower()
    if ext not in (".png", ".svg", ".html", ".htm"):
        raise InvalidParameterError(
            f"--plot {str(path)!r}: unsupported file type {ext or '(none)'!r}; use .png, .svg or .html.")
    import matplotlib.pyplot as plt

    fig = _figure(report)
    try:
        if ext == ".png":
            fig.savefig(p, format="png", dpi=PLOT_DPI)
        elif ext == ".svg":
            fig.savefig(p, format="svg")
        else:
            buf = io.StringIO()
            fig.savefig(buf, format="svg")
            svg = buf.getvalue()
            svg = svg[svg.find("<svg"):]
            p.write_text(_html_page(report, svg), encoding="utf-8")
    finally:
        plt.close(fig)
    return p


def _html_page(report: Report, svg: str) -> str:
    esc = html.escape
    rows = []
    best_attr = ' class="best"'
    for r in report.rows:
        rows.append(
            f"<tr{best_attr if r.tightest else ''}><td>{'★' if r.tightest else ''}</td>"
            f"<td>{esc(r.method)}</td><td>{esc(r.scope)}</td><td>{esc(_target_text(r))}</td>"
            f"<td>{esc(fmt_upper(r.upper, r.kind))}</td><td>{esc(fmt_lower(r.lower, r.kind))}</td>"
            f"<td>{esc(_status_text(report, r))}</td><td>{esc(_fmt_time(r.seconds))}</td></tr>")
    notes = "".join(f"<p>†{i} <b>looser fallback:</b> {esc(c)}</p>" for i, c in enumerate(report.caveats, 1))
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{esc(report.title)}</title>
<style>body{{font-family:sans-serif;max-width:60em;margin:2em auto}}
table{{border-collapse:collapse}}td,th{{padding:.2em .6em;border-bottom:1px solid #ddd}}
tr.best{{font-weight:bold;background:#efe}}</style></head><body>
<h1>{esc(report.title)}</h1>
<p>{esc(report.summary)}</p>
{svg}
<table><tr><th></th><th>method</th><th>applies to</th><th>target</th><th>upper</th><th>lower</th>
<th>status</th><th>time</th></tr>
{''.join(rows)}
</table>
{notes}
<p>★ marks the tightest certified upper bound for each target. dpcompose {esc(__version__)}.</p>
</body></html>
"""
