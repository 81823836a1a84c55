r"""The report model: every composition method side by side, for a plan or a list of mechanisms.

A :class:`Report` holds one :class:`Row` per (method, scope, target): the certified upper
bound, the certified lower bound where the method has one, a status, the time taken and
the provenance of the :class:`~dpcompose.guarantee.Guarantee` behind it. The tightest
certified upper bound of each target is marked; :meth:`Report.headlines` states it per
target, for classic DP and under the plan's membership constraint. A report also carries
what a reviewer needs beside the numbers: the assumptions, each invocation's own
guarantee, warnings, the date, the dpcompose version and the plan's hash.

This module computes; :mod:`.render` and :mod:`.plot` only show. Every row is a library
call: ``compose`` for classic DP, :func:`dpcompose.hypotheses.hdp` under a membership
constraint or hypotheses (the inner composition is the row's method), and
:func:`dpcompose.hypotheses.parallel_composition` for the ``parallel`` row.

Which methods run (``methods=``, a plan's ``methods``, the CLI's ``-m``): composition method
names select the classic rows *and* the inner method of the hypothesis-DP rows; ``"hdp"``
alone asks for the hypothesis-DP rows with every inner method; ``"parallel"`` for the
parallel-composition row. Names are matched without regard to case.
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import os
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Sequence

from ..._validation import did_you_mean
from ..._version import __version__
from ...compose import available_methods, compose
from ...errors import DPComposeError, InvalidParameterError
from ...guarantee import Guarantee
from ...mechanisms import Mechanism, describe

__all__ = [
    "Row",
    "Skipped",
    "Curve",
    "Invocation",
    "Headline",
    "Report",
    "STATUS_UPPER",
    "STATUS_EXACT",
    "STATUS_ESTIMATE",
    "SCOPE_CLASSIC",
    "REPORT_ONLY_METHODS",
    "composition_methods",
    "normalize_methods",
    "compare",
    "build_report",
    "from_guarantees",
    "report_options",
    "guarantee_caveats",
    "sanity_warnings",
    "exact_decimal",
    "to_dict",
    "to_json",
    "jsonable",
]

STATUS_UPPER = "certified upper bound"
STATUS_EXACT = "exact (certified upper = lower bound)"
STATUS_ESTIMATE = "estimate, not a guarantee"

SCOPE_CLASSIC = "classic DP"

#: methods a report computes from a plan itself rather than through ``compose``
REPORT_ONLY_METHODS = ("parallel", "hdp")

#: sanity thresholds: a composition above this epsilon, or one mechanism alone above
#: the second, is reported as implausible before long work starts
IMPLAUSIBLE_TOTAL_EPSILON = 100.0
IMPLAUSIBLE_MECHANISM_EPSILON = 50.0

Progress = Callable[[str], None]
Warn = Callable[[str], None]


@dataclass
class Row:
    """One method at one target.

    ``kind`` is ``"epsilon"`` (``upper`` bounds epsilon at ``target`` = delta) or
    ``"delta"`` (it bounds delta at ``target`` = epsilon). ``decimal`` is the exact decimal
    value of ``upper`` where the method knows it (simple composition of numbers as
    written); ``upper`` is then that decimal rounded up once to a double.
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
    decimal: str | None = None

    @property
    def certified(self) -> bool:
        return self.status != STATUS_ESTIMATE

    @property
    def exact(self) -> bool:
        return self.status == STATUS_EXACT


@dataclass
class Skipped:
    """A method that did not apply, and why."""

    method: str
    scope: str
    reason: str


@dataclass
class Curve:
    """A guarantee to plot: one curve per method and scope.

    ``rebuild`` recomputes the guarantee for another list of ``(mechanism, count)`` pairs
    aligned with the report's composition (the plot of epsilon against steps uses it).
    """

    label: str
    guarantee: Guarantee
    certified: bool
    caveats: list[str] = field(default_factory=list)
    scope: str = SCOPE_CLASSIC
    method: str = ""
    rebuild: Callable[[list[tuple[Mechanism, int]]], Guarantee] | None = None


@dataclass
class Invocation:
    """One invocation of a plan (or one group of a list) with its own guarantee.

    ``one_run`` and ``per_database`` map ``(kind, target)`` to a certified upper bound:
    one run of the invocation, and all ``runs`` of it on one database (the tightest
    registered method, ``compose(..., method="auto")``).
    """

    index: int
    expression: str
    database: str | None
    databases: int
    runs: int
    one_run: dict[tuple[str, float], float] = field(default_factory=dict)
    per_database: dict[tuple[str, float], float] = field(default_factory=dict)
    method: dict[tuple[str, float], str] = field(default_factory=dict)
    label: str = ""


@dataclass
class Headline:
    """The tightest certified guarantee at one target, for classic DP and under the constraint."""

    kind: str
    target: float
    classic: Row | None
    constrained: Row | None


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
    assumptions: list[str] = field(default_factory=list)
    invocations: list[Invocation] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    plan_sha256: str | None = None
    created: str = ""
    composition: list[tuple[Mechanism, int]] = field(default_factory=list)
    constraint: str | None = None
    version: str = __version__

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

    @property
    def targets(self) -> list[tuple[str, float]]:
        """``(kind, target)`` in the order the rows first name them."""
        return list(dict.fromkeys((r.kind, r.target) for r in self.rows))

    @property
    def scopes(self) -> list[str]:
        """The scopes of the rows, classic DP first."""
        return list(dict.fromkeys([r.scope for r in self.rows if r.scope == SCOPE_CLASSIC]
                                  + [r.scope for r in self.rows]))

    def best(self, kind: str, target: float, scope: str | None = None) -> Row | None:
        """The tightest certified row for a target (in ``scope``, else over all scopes)."""
        if scope is None:
            for r in self.rows:
                if r.kind == kind and r.target == target and r.tightest:
                    return r
            return None
        cands = [r for r in self.rows if r.kind == kind and r.target == target and r.scope == scope
                 and r.certified]
        return min(cands, key=lambda r: r.upper) if cands else None

    def headlines(self) -> list[Headline]:
        """One headline per target: the tightest classic row and the tightest constrained row."""
        out = []
        for kind, target in self.targets:
            found = [self.best(kind, target, s) for s in self.scopes if s != SCOPE_CLASSIC]
            constrained = [r for r in found if r is not None]
            out.append(Headline(kind, target, self.best(kind, target, SCOPE_CLASSIC),
                                min(constrained, key=lambda r: r.upper) if constrained else None))
        return out


def report_options(options: dict[str, dict[str, Any]] | None) -> dict[str, dict[str, Any]]:
    """Per-method options for a report: the caller's, else each method's registered
    ``report_defaults`` (:class:`~dpcompose.methods.registry.MethodInfo`; only keys the
    method accepts).

    Every method registers none today, so a report row equals ``compose(...,
    method=m)``. (pld once had a fixed grid h = 1e-4 here; its default grid is sized and
    aligned from the input and is faster, while the fixed grid's FFT error swamped small
    deltas: 50 x 0.5-DP at delta 1e-10 showed 25.0, simple composition, for 23.956.)
    """
    from ...methods.registry import registered_methods

    out = {k: dict(v) for k, v in (options or {}).items()}
    for info in registered_methods():
        if info.name not in out and info.report_defaults:
            out[info.name] = dict(info.report_defaults)
    return out


def composition_methods() -> list[str]:
    """The registered composition methods, in registry order ("auto" excluded)."""
    return [m for m in available_methods() if m != "auto"]


def normalize_methods(methods: Sequence[str] | None, *, report_only: bool = True,
                      option: str = "methods") -> list[str] | None:
    """Method names in their registered spelling (case ignored), or an error with a suggestion.

    Raises:
        InvalidParameterError: an unknown name, naming it, the known ones and the closest.
    """
    if methods is None:
        return None
    known = ["auto"] + composition_methods() + (list(REPORT_ONLY_METHODS) if report_only else [])
    lowered = {k.lower(): k for k in known}
    out = []
    for i, m in enumerate(methods):
        name = lowered.get(str(m).strip().lower())
        if name is None:
            raise InvalidParameterError(
                f"{option}[{i}] = {m!r} is not a known method.{did_you_mean(m, known)} Available: "
                f"{', '.join(known)}. Remedy: pick from `dpcompose methods`, or leave it out to compare all.")
        if name not in out:
            out.append(name)
    return out


@dataclass(frozen=True)
class _Selection:
    classic: list[str]
    parallel: bool
    inner: list[str]


def _select(methods: Sequence[str] | None) -> _Selection:
    """Which rows run: see the module docstring."""
    every = composition_methods()
    if methods is None:
        return _Selection(every, True, every)
    classic = [m for m in methods if m not in REPORT_ONLY_METHODS]
    inner = classic if classic else (every if "hdp" in methods else [])
    return _Selection(classic, "parallel" in methods, inner)


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
    beside the row with the text under the table, the plot, JSON)."""
    raw = (g.provenance or {}).get("caveats") or ()
    items = [raw] if isinstance(raw, str) else raw
    return [_one_line(str(c)) for c in items]


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


def exact_decimal(g: Guarantee, kind: str, target: float, upper: float) -> str | None:
    """The exact decimal of an epsilon row where the guarantee states it (``provenance["decimal"]``:
    ``{"epsilon": text, "delta": text}``, the sums of the parameters as written, at every
    delta >= that delta) and ``upper`` is that decimal rounded up once to a double, or a few
    doubles above it (the certified value reads each parameter both as the double and as the
    decimal written, docs/theory.md "Numbers as written"); else None."""
    dec = (g.provenance or {}).get("decimal")
    if kind != "epsilon" or not isinstance(dec, dict):
        return None
    from fractions import Fraction

    try:
        eps, dlt = Fraction(str(dec["epsilon"])), Fraction(str(dec["delta"]))
    except (KeyError, ValueError, ZeroDivisionError):
        return None
    if Fraction(target) < dlt or not math.isfinite(upper):
        return None
    f = float(eps)
    up = math.nextafter(f, math.inf) if Fraction(f) < eps else f
    top = up
    for _ in range(8):
        top = math.nextafter(top, math.inf)
    return str(dec["epsilon"]) if up <= upper <= top else None


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
                            status, t_build + dt, provenance=jsonable(g.provenance),
                            caveats=_caveats(g, kind, float(x), hi),
                            decimal=exact_decimal(g, kind, float(x), hi)))
    return rows


@dataclass
class _Job:
    label: str
    scope: str
    build: Callable[[], Guarantee]
    rebuild: Callable[[list[tuple[Mechanism, int]]], Guarantee] | None = None


def _run_jobs(jobs: Sequence[_Job], deltas: Sequence[float], epsilons: Sequence[float],
              progress: Progress | None, more_steps: int = 0) -> tuple[list[Row], list[Skipped], list[Curve]]:
    """Run each job at the targets; ``more_steps``: progress steps the caller takes afterwards."""
    rows: list[Row] = []
    skipped: list[Skipped] = []
    curves: list[Curve] = []
    set_total = getattr(progress, "set_total", None)
    if callable(set_total):
        set_total(len(jobs) + more_steps)
    for job in jobs:
        if progress is not None:
            progress(job.label if job.scope == SCOPE_CLASSIC else f"{job.label} (hypothesis DP)")
        t0 = time.perf_counter()
        try:
            g = job.build()
            out = _evaluate(g, job.label, job.scope, deltas, epsilons, 0.0)
        except DPComposeError as exc:
            # not applicable, or an option the method does not accept
            skipped.append(Skipped(job.label, job.scope, _one_line(str(exc))))
            continue
        except ArithmeticError as exc:
            # a method's internal NaN/overflow check fired: report it, never a number
            skipped.append(Skipped(job.label, job.scope,
                                   f"failed (internal error, please report): {_one_line(str(exc))}"))
            continue
        elapsed = time.perf_counter() - t0
        for r in out:
            r.seconds = elapsed / max(1, len(out))
        rows.extend(out)
        curves.append(Curve(job.label if job.scope == SCOPE_CLASSIC else f"{job.label} [{job.scope}]",
                            g, _status(g) != STATUS_ESTIMATE, guarantee_caveats(g), job.scope,
                            job.label, job.rebuild))
    _mark_tightest(rows)
    return rows, skipped, curves


def _one_line(msg: str) -> str:
    return " ".join(msg.split())


def _mark_tightest(rows: list[Row]) -> None:
    for kind, target in dict.fromkeys((r.kind, r.target) for r in rows):
        cands = [r for r in rows if r.kind == kind and r.target == target and r.certified]
        if cands:
            min(cands, key=lambda r: r.upper).tightest = True


def _classic_job(m: str, mechs: list[tuple[Mechanism, int]], options: dict[str, dict[str, Any]]) -> _Job:
    opts = options.get(m, {})
    return _Job(m, SCOPE_CLASSIC, lambda: compose(mechs, method=m, **opts),
                lambda ms: compose(ms, method=m, **opts))


# ---------------------------------------------------------------------------
# sanity checks (before long work starts)


def sanity_warnings(mechanisms: Iterable[Any], deltas: Sequence[float]) -> list[str]:
    """Warnings for implausible inputs, found with cheap computations before the long ones.

    - a mechanism whose own epsilon (at the smallest target delta) exceeds
      :data:`IMPLAUSIBLE_MECHANISM_EPSILON` (usually a mis-scaled query: a sensitivity far
      above the noise);
    - a composition whose Renyi-DP epsilon (fast) exceeds :data:`IMPLAUSIBLE_TOTAL_EPSILON`.

    The numbers quoted are certified upper bounds, but a warning is not a result: the
    report computes everything as asked.
    """
    from ...compose import normalize
    from ...representations import eps_delta_pair

    groups = normalize(mechanisms)
    delta = min(deltas) if deltas else 1e-6
    out = []
    for m, _ in groups:
        pair = eps_delta_pair(m)
        try:
            eps = pair[0] if pair is not None and pair[1] <= delta else compose([m], method="auto").epsilon(delta)
        except DPComposeError:
            continue
        if eps > IMPLAUSIBLE_MECHANISM_EPSILON:
            out.append(f"{describe(m)} alone has ε ≈ {eps:.3g} at δ = {delta:g}: one run already gives "
                       f"essentially no privacy. Check its scale against its sensitivity (more noise, "
                       f"or a smaller sensitivity?)")
    if groups and not out:
        total: float | None
        try:
            total = compose(groups, method="rdp").epsilon(delta)
        except DPComposeError:
            total = None
        if total is not None and total > IMPLAUSIBLE_TOTAL_EPSILON:
            out.append(f"the composition has ε ≈ {total:.3g} at δ = {delta:g} by Renyi DP (a fast upper "
                       f"bound): above {IMPLAUSIBLE_TOTAL_EPSILON:g} a guarantee means little. Check the "
                       f"noise and the counts")
    return out


def _warn_all(warnings: list[str], warn: Warn | None) -> None:
    if warn is not None:
        for w in warnings:
            warn(w)


# ---------------------------------------------------------------------------
# lists of mechanisms


def compare(mechanisms: Iterable[Any], *, deltas: Sequence[float] = (1e-6,),
            epsilons: Sequence[float] = (), methods: Sequence[str] | None = None,
            options: dict[str, dict[str, Any]] | None = None, title: str = "",
            progress: Progress | None = None, warn: Warn | None = None,
            invocations: bool = False) -> Report:
    """Compare every registered method (or ``methods``) on a list of mechanisms.

    Args:
        mechanisms: mechanisms and/or ``(mechanism, count)`` pairs.
        deltas: report the epsilon upper (and lower) bound at each.
        epsilons: report the delta bounds at each.
        methods: method names (default: all registered; case ignored).
        options: per-method options passed to :func:`dpcompose.compose`.
        progress: called with a label before each method runs.
        warn: called with each sanity warning before any method runs.
        invocations: also compute each distinct mechanism's own guarantee.

    Returns:
        A :class:`Report` (methods that do not apply are listed in ``skipped``).
    """
    from ...compose import normalize

    mechs = [(m, k) for m, k in normalize(mechanisms)]
    options = report_options(options)
    names = normalize_methods(methods)
    classic = _select(names).classic
    warnings = sanity_warnings(mechs, deltas)
    _warn_all(warnings, warn)
    rows, skipped, curves = _run_jobs([_classic_job(m, mechs, options) for m in classic],
                                      deltas, epsilons, progress)
    k = sum(c for _, c in mechs)
    invs = [Invocation(i, _mech_text(m), None, 1, c) for i, (m, c) in enumerate(mechs)]
    if invocations:
        _invocation_guarantees(invs, [[(m, 1)] for m, _ in mechs], deltas, epsilons)
    return Report(title or _summary(mechs), "<list>", "", _summary(mechs), k, rows, skipped,
                  curves, [], assumptions=_assumptions(mechs, None), invocations=invs,
                  warnings=warnings, created=_today(), composition=mechs)


def from_guarantees(guarantees: Sequence[Guarantee], mechanisms: Iterable[Any], *,
                    deltas: Sequence[float] = (), epsilons: Sequence[float] = (), title: str = "",
                    options: dict[str, dict[str, Any]] | None = None) -> Report:
    """A report of guarantees already computed for one composition (no method runs again).

    A combined guarantee (``compose(..., method="auto")``) contributes one row per
    component, so a one-line query's table and plot show every method that took part.
    Each curve can be rebuilt by its method for a plot against steps.
    """
    from ...compose import normalize
    from ...guarantee import CombinedGuarantee

    mechs = [(m, k) for m, k in normalize(mechanisms)]
    options = options or {}
    flat: list[Guarantee] = []
    for g in guarantees:
        flat += list(g.components) if isinstance(g, CombinedGuarantee) else [g]
    rows: list[Row] = []
    curves: list[Curve] = []
    for g in flat:
        rows += _evaluate(g, g.method, SCOPE_CLASSIC, deltas, epsilons, 0.0)
        curves.append(Curve(g.method, g, _status(g) != STATUS_ESTIMATE, guarantee_caveats(g), SCOPE_CLASSIC,
                            g.method, _classic_job(g.method, mechs, options).rebuild))
    _mark_tightest(rows)
    k = sum(c for _, c in mechs)
    return Report(title or _summary(mechs), "<list>", "", _summary(mechs), k, rows, [], curves, [],
                  assumptions=_assumptions(mechs, None), created=_today(), composition=mechs)


def _mech_text(m: Mechanism) -> str:
    from ..expressions import format_mechanism
    from ...errors import UnsupportedMechanismError

    try:
        return format_mechanism(m)
    except UnsupportedMechanismError:
        return describe(m)


def _summary(mechs: Iterable[Any]) -> str:
    from ...compose import normalize

    groups = normalize(mechs)
    parts = [f"{_mech_text(m)} x {k}" if k != 1 else _mech_text(m) for m, k in groups]
    if len(parts) > 4:
        parts = parts[:4] + [f"... ({len(groups)} kinds)"]
    return " + ".join(parts)


def _today() -> str:
    """Today's date (UTC), or the one ``SOURCE_DATE_EPOCH`` names (reproducible documents)."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH", "")
    if epoch.isdigit():
        return _dt.datetime.fromtimestamp(int(epoch), _dt.timezone.utc).date().isoformat()
    return _dt.datetime.now(_dt.timezone.utc).date().isoformat()


# ---------------------------------------------------------------------------
# plans


def build_report(plan: Any, *, methods: Sequence[str] | None = None,
                 progress: Progress | None = None, warn: Warn | None = None) -> Report:
    """Run every method of a :class:`~dpcompose.plan.Plan` at its targets.

    Args:
        plan: a loaded plan (:func:`dpcompose.plan.load_plan`).
        methods: override the plan's ``methods`` list (see the module docstring).
        progress: called with a label before each step.
        warn: called with each sanity warning before any method runs.
    """
    spec = plan.spec
    names = normalize_methods(methods if methods is not None else spec.methods)
    sel = _select(names)
    deltas = list(spec.targets.deltas)
    epsilons = list(spec.targets.epsilons)
    options = report_options(spec.options)
    mechs = plan.composition()
    warnings = sanity_warnings(mechs, deltas)
    _warn_all(warnings, warn)
    constraint = _constraint_text(plan) if plan.has_hypothesis_dp else None
    jobs = [_classic_job(m, mechs, options) for m in sel.classic]
    notes: list[str] = []
    if constraint is not None:  # exactly when the plan asks for hypothesis DP
        if sel.parallel and plan.membership is not None:
            jobs.append(_parallel_job(plan, constraint))
        if sel.inner:
            jobs += _hdp_jobs(plan, sel.inner, names is not None, options, constraint)
            notes.append("hypothesis-DP rows: dpcompose.hypotheses.hdp with the named inner composition "
                         "method (Hartmann, Bindschaedler and West, Alg. 2, Def. 3, Sec. V)")
    invs = _plan_invocations(plan)
    rows, skipped, curves = _run_jobs(jobs, deltas, epsilons, progress, more_steps=1)
    if progress is not None:
        progress("each invocation's own guarantee")
    _invocation_guarantees(invs, _invocation_terms(plan), deltas, epsilons)
    k = plan.total_invocations
    nd = len(plan.database_names)
    summary = f"{k} invocation{'s' if k != 1 else ''}"
    if plan.has_hypothesis_dp:
        summary += f" on {nd} database{'s' if nd != 1 else ''}"
    summary += ": " + "; ".join(_invocation_summary(plan))
    ps = spec.plot
    return Report(spec.title, plan.source, spec.description, summary, k, rows, skipped, curves,
                  notes, (ps.delta_min, ps.delta_max, ps.points),
                  assumptions=_assumptions(mechs, plan), invocations=invs, warnings=warnings,
                  plan_sha256=plan.sha256, created=_today(), composition=mechs,
                  constraint=constraint)


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


def _plan_invocations(plan: Any) -> list[Invocation]:
    sizes = {d.name: d.count for d in plan.spec.databases}
    return [Invocation(i, expr, inv.database, sizes.get(inv.database, 1) if inv.database else 1,
                       inv.count, label=inv.label)
            for i, (inv, expr) in enumerate(zip(plan.spec.invocations, plan.expressions))]


def _invocation_terms(plan: Any) -> list[list[tuple[Mechanism, int]]]:
    """The mechanisms of one run of each invocation (its expression's terms)."""
    from ..expressions import bind, parse, to_mechanisms

    out = []
    env = dict(plan.spec.parameters)
    for inv, expr in zip(plan.spec.invocations, plan.expressions):
        out.append(to_mechanisms(bind(parse(expr), env)))
    return out


def _invocation_guarantees(invs: list[Invocation], terms: list[list[tuple[Mechanism, int]]],
                           deltas: Sequence[float], epsilons: Sequence[float]) -> None:
    """Fill each invocation's one-run and per-database guarantees (tightest method)."""
    for inv, one in zip(invs, terms):
        for key, items in (("one_run", one), ("per_database", [(m, k * inv.runs) for m, k in one])):
            if key == "per_database" and inv.runs == 1:
                getattr(inv, key).update(inv.one_run)
                continue
            try:
                g = compose(items, method="auto")
            except DPComposeError:
                continue
            target = getattr(inv, key)
            for d in deltas:
                target[("epsilon", d)] = g.epsilon(d)
                if key == "per_database":
                    inv.method[("epsilon", d)] = _method_at(g, d)
            for e in epsilons:
                target[("delta", e)] = g.delta(e)


def _method_at(g: Guarantee, delta: float) -> str:
    method_for = getattr(g, "method_for", None)
    return method_for(delta) if callable(method_for) else g.method


# ---------------------------------------------------------------------------
# membership constraints and hypotheses: the library's objects, built by the plan


def _constraint_text(plan: Any) -> str:
    spec = plan.spec
    mem = spec.membership
    if mem is None:
        return "hypothesis DP: the plan's hypotheses p0 vs p1"
    if mem.patterns is not None:
        what = f"{len(mem.patterns)} allowed membership patterns"
    else:
        parts = []
        if mem.max_databases is not None:
            parts.append(f"at most {mem.max_databases} database{'s' if mem.max_databases != 1 else ''} "
                         f"per person")
        if mem.max_per_group:
            parts.append("at most " + ", ".join(f"{c} of {g}" for g, c in mem.max_per_group.items()))
        what = "; ".join(parts)
    return f"hypothesis DP: {what}, {mem.neighbors} neighbours"


def _parallel_job(plan: Any, scope: str) -> _Job:
    from ...hypotheses import parallel_composition

    kw = dict(membership=plan.membership, neighbors=plan.neighbors)
    dbs = list(plan.databases)

    def build() -> Guarantee:
        return parallel_composition(plan.mechanisms, databases=dbs, **kw)

    return _Job("parallel", scope, build, lambda ms: parallel_composition(ms, databases=dbs, **kw))


def _hdp_jobs(plan: Any, inner: list[str], named: bool, options: dict[str, dict[str, Any]],
              scope: str) -> list[_Job]:
    from ...hypotheses import hdp

    dbs = list(plan.databases)
    kwargs: dict[str, Any] = {}
    if plan.membership is not None:
        kwargs["membership"] = plan.membership
        kwargs["neighbors"] = plan.neighbors
    # [options.hdp]: enumeration_limit, coupling (validated by the plan)
    hdp_opts = dict(options.get("hdp", {}))
    if plan.hypotheses is not None:
        kwargs["hypotheses"] = plan.hypotheses
    else:
        hdp_opts.pop("coupling", None)  # only composite hypotheses have a coupling
    kwargs.update(hdp_opts)

    def job(label: str, method: str, opts: dict[str, Any]) -> _Job:
        return _Job(label, scope, lambda: hdp(plan.mechanisms, databases=dbs, method=method, **kwargs, **opts),
                    lambda ms: hdp(ms, databases=dbs, method=method, **kwargs, **opts))

    if plan.hypotheses is not None and not named:
        # explicit hypotheses: hdp's own choice (exact where it can enumerate, else the
        # tightest coupling bound); the inner method rarely matters, so one row
        return [job("hdp", "auto", {})]
    return [job(m, m, options.get(m, {})) for m in inner]


# ---------------------------------------------------------------------------
# assumptions (what the numbers hold under)

_NORMS = {"Laplace": "L1", "Gaussian": "L2"}


def _assumptions(mechs: list[tuple[Mechanism, int]], plan: Any | None) -> list[str]:
    from ...subsampling import composition_relation
    from ...mechanisms import ApproxDP, Exponential, PureDP, RandomizedResponse, Subsampled

    out = []
    try:
        relation = composition_relation([m for m, _ in mechs])
    except DPComposeError:
        relation = None
    if plan is not None and plan.has_hypothesis_dp:
        out.append("Classic DP rows: neighbouring inputs differ in one person's records, wherever they "
                   "are; every invocation counts against that person.")
    else:
        out.append("Neighbouring inputs differ in one person's records; every invocation counts "
                   "against that person.")
    if relation is not None:
        out.append(f"Subsampled invocations are accounted under {relation} (the sampling theorem's own "
                   f"relation); which records were sampled stays secret.")
    seen = []
    for m, _ in mechs:
        base = m.mechanism if isinstance(m, Subsampled) else m
        sens = getattr(base, "sensitivity", None)
        norm = _NORMS.get(type(base).__name__)
        if sens is None or norm is None:
            continue
        text = f"{_mech_text(base)}: the query's {norm} sensitivity is {sens:g} under that relation."
        if text not in seen:
            seen.append(text)
    out += seen[:6]
    if len(seen) > 6:
        out.append(f"... and {len(seen) - 6} more sensitivities (see the invocations).")
    stated = (PureDP, ApproxDP, Exponential, RandomizedResponse)
    if any(isinstance(m.mechanism if isinstance(m, Subsampled) else m, stated) for m, _ in mechs):
        out.append("Mechanisms given by (ε, δ) are taken to satisfy it for that relation, whatever "
                   "they do inside.")
    out.append("Mechanisms and their parameters are fixed in advance (this plan); each may see earlier "
               "outputs (adaptive composition).")
    if plan is not None and plan.has_hypothesis_dp:
        nd = len(plan.database_names)
        mem = plan.spec.membership
        if mem is not None:
            n = plan.max_members()
            out.append(f"Membership constraint (public knowledge, Hartmann, Bindschaedler and West): a person "
                       f"is in at most {n} of the {nd} databases"
                       + (f" ({_constraint_text(plan).split(': ', 1)[1]})" if mem.patterns is None else
                          f", one of {len(mem.patterns)} allowed patterns")
                       + ".")
            out.append("Unbounded neighbours: the person's absence is compared with presence in an allowed set "
                       "of databases." if mem.neighbors == "unbounded" else
                       "Bounded neighbours: any two allowed sets of databases are compared.")
        if plan.spec.hypotheses is not None:
            out.append("Hypotheses: the adversary tests p0 against p1 as given in the plan's [hypotheses].")
        out.append(f"What runs on each database: {'; '.join(_invocation_summary(plan))}.")
    return out


# ---------------------------------------------------------------------------
# JSON


def jsonable(x: Any) -> Any:
    """``x`` with floats JSON-safe (infinity as the string "inf"), mechanisms described."""
    if isinstance(x, float):
        if math.isnan(x):
            return None   # only possible inside provenance (never a bound): no "nan" in output
        if math.isinf(x):
            return "inf" if x > 0 else "-inf"
        return x
    if isinstance(x, (str, int, bool)) or x is None:
        return x
    if isinstance(x, dict):
        return {str(k): jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [jsonable(v) for v in x]
    if isinstance(x, Mechanism):
        return describe(x)
    import numpy as np

    if isinstance(x, np.generic):
        return jsonable(x.item())
    if isinstance(x, np.ndarray):
        return jsonable(x.tolist())
    return repr(x)


def _target_dict(kind: str, target: float, upper: float | None, lower: float | None = None,
                 lower_known: bool = True) -> dict[str, Any]:
    if kind == "epsilon":
        d = {"delta": target, "epsilon_upper": upper}
        if lower_known:
            d["epsilon_lower"] = lower
    else:
        d = {"epsilon": target, "delta_upper": upper}
        if lower_known:
            d["delta_lower"] = lower
    return d


def to_dict(report: Report) -> dict[str, Any]:
    """A JSON-ready dict (floats at full precision; infinity as the string "inf")."""
    def row(r: Row) -> dict[str, Any]:
        d: dict[str, Any] = {"method": r.method, "applies_to": r.scope}
        d.update(_target_dict(r.kind, r.target, r.upper, r.lower))
        if r.decimal is not None:
            d["epsilon_decimal"] = r.decimal
        d.update({"status": r.status, "tightest": r.tightest, "seconds": r.seconds,
                  "caveats": r.caveats, "provenance": r.provenance})
        return d

    def head(h: Headline) -> dict[str, Any]:
        d: dict[str, Any] = {"kind": h.kind, "target": h.target}
        for name, r in (("classic", h.classic), ("constrained", h.constrained)):
            d[name] = None if r is None else {"method": r.method, "applies_to": r.scope, "upper": r.upper}
        return d

    def inv(i: Invocation) -> dict[str, Any]:
        return {"index": i.index, "expression": i.expression, "label": i.label, "database": i.database,
                "databases": i.databases, "runs_per_database": i.runs,
                "one_run": [_target_dict(k, t, v, lower_known=False) for (k, t), v in i.one_run.items()],
                "per_database": [_target_dict(k, t, v, lower_known=False)
                                 for (k, t), v in i.per_database.items()]}

    return jsonable({
        "dpcompose_version": report.version,
        "date": report.created,
        "plan_sha256": report.plan_sha256,
        "title": report.title,
        "source": report.source,
        "description": report.description,
        "summary": report.summary,
        "total_invocations": report.total_invocations,
        "headlines": [head(h) for h in report.headlines()],
        "assumptions": report.assumptions,
        "warnings": report.warnings,
        "invocations": [inv(i) for i in report.invocations],
        "rows": [row(r) for r in report.rows],
        "not_applicable": [{"method": s.method, "applies_to": s.scope, "reason": s.reason}
                           for s in report.skipped],
        "notes": report.notes,
        "caveats": report.caveats,
        "units": {"epsilon_upper": "certified upper bound (natural log)",
                  "epsilon_lower": "certified lower bound, or null if the method has none",
                  "delta_upper": "certified upper bound", "delta_lower": "certified lower bound or null",
                  "epsilon_decimal": "the exact decimal value of epsilon_upper where the method knows it",
                  "inf": "the string \"inf\" stands for infinity (no finite bound)"},
    })


def to_json(report: Report) -> str:
    """The report as JSON text (see :func:`to_dict`)."""
    return json.dumps(to_dict(report), indent=2, allow_nan=False)
