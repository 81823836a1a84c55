r"""The report model: every composition method side by side, for a plan or a list of mechanisms.

A :class:`Report` holds one :class:`Row` per (method, scope, target): the certified upper
bound, the certified lower bound where the method has one, a status, the time taken and
the provenance of the :class:`~dpcompose.guarantee.Guarantee` behind it. The tightest
certified upper bound of each target is marked; :meth:`Report.headlines` states it per
target, for classic DP and under the plan's membership constraint. A report also carries
what a reviewer needs beside the numbers: the assumptions, each invocation's own
guarantee, warnings, the date, the dpcompose version and the plan's hash.

The model computes; :mod:`.render` and :mod:`.plot` only show. It is split by job (issue 15):
:mod:`.records` holds the data model and its JSON, :mod:`.rows` evaluates each method's
guarantee into rows, :mod:`.constrained` builds the rows under a membership constraint or
hypotheses, and this module assembles reports (:func:`compare`, :func:`from_guarantees`,
:func:`build_report`) with their invocations and assumptions; every public name is
importable from here. Every row is a library
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
import os
from typing import Any, Iterable, Sequence

from ...compose import compose
from ...errors import DPComposeError
from ...guarantee import Guarantee
from ...mechanisms import Mechanism, describe

# the data model, the rows and the constrained rows live in their own modules (issue 15);
# every name stays importable from here
from .constrained import _constraint_text, _hdp_jobs, _parallel_job
from .records import (
    REPORT_ONLY_METHODS,
    SCOPE_CLASSIC,
    STATUS_ESTIMATE,
    STATUS_EXACT,
    STATUS_UPPER,
    Curve,
    Headline,
    Invocation,
    Report,
    Row,
    Skipped,
    jsonable,
    to_dict,
    to_json,
)
from .rows import (
    ERROR_BUDGET_SHARE,  # noqa: F401  (re-exported: the old module's constants)
    IMPLAUSIBLE_MECHANISM_EPSILON,  # noqa: F401
    IMPLAUSIBLE_TOTAL_EPSILON,  # noqa: F401
    Progress,
    Warn,
    _classic_job,
    _evaluate,
    _mark_tightest,
    _run_jobs,
    _select,
    _status,
    _warn_all,
    composition_methods,
    exact_decimal,
    grouped,
    guarantee_caveats,
    normalize_methods,
    report_options,
    sanity_warnings,
)

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
    groups = grouped(mechs)             # composed as mechs is, grouped once for every method
    warnings = sanity_warnings(groups, deltas)
    _warn_all(warnings, warn)
    constraint = _constraint_text(plan) if plan.has_hypothesis_dp else None
    jobs = [_classic_job(m, groups, options) for m in sel.classic]
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
    from .tradeoff_section import build_sections  # opt-in ([tradeoff]): nothing computed without it

    return Report(spec.title, plan.source, spec.description, summary, k, rows, skipped, curves,
                  notes, (ps.delta_min, ps.delta_max, ps.points),
                  assumptions=_assumptions(mechs, plan), invocations=invs, warnings=warnings,
                  plan_sha256=plan.sha256, created=_today(), composition=mechs,
                  constraint=constraint, tradeoff=build_sections(curves, rows, spec.tradeoff))


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
# assumptions (what the numbers hold under)

_NORMS = {"Laplace": "L1", "Gaussian": "L2"}


def _assumptions(mechs: list[tuple[Mechanism, int]], plan: Any | None) -> list[str]:
    from ...subsampling import composition_relation
    from ...mechanisms import Subsampled
    from ...representations import accounted_as_class

    out = []
    # each distinct mechanism once, in first-seen order (a plan lists every invocation: the
    # hospitals' 1000 equal Laplace queries are one mechanism here)
    distinct = list(dict.fromkeys(m for m, _ in mechs))
    try:
        relation = composition_relation(distinct)
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
    for m in distinct:
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
    # "given by (eps, delta)": the mechanism's pair is its (eps, delta) class's (read from the rules)
    if any(accounted_as_class(m.mechanism if isinstance(m, Subsampled) else m) for m in distinct):
        out.append("Mechanisms given by (ε, δ) are taken to satisfy it for that relation, whatever "
                   "they do inside.")
    asserted = list(dict.fromkeys(_mech_text(b) for m in distinct
                                  if (b := m.mechanism if isinstance(m, Subsampled) else m).user_asserted))
    if asserted:
        out.append(f"User-asserted, not derived by dpcompose (the bounds hold if these do): {'; '.join(asserted[:3])}"
                   + (f" and {len(asserted) - 3} more" if len(asserted) > 3 else "") + ".")
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


