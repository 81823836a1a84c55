"""The rows of a report: which methods run, each method's guarantee evaluated at the
targets (:class:`~.records.Row`, or :class:`~.records.Skipped` with the reason), the
tightest row marked, and the sanity warnings given before long work starts.

Moved out of :mod:`.model` unchanged (issue 15); :mod:`.model` re-exports its public names.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Sequence

from ..._validation import did_you_mean
from ...compose import available_methods, compose
from ...errors import DPComposeError, InvalidParameterError
from ...guarantee import Guarantee
from ...mechanisms import Mechanism, describe
from .records import (
    REPORT_ONLY_METHODS,
    SCOPE_CLASSIC,
    STATUS_ESTIMATE,
    STATUS_EXACT,
    STATUS_UPPER,
    Curve,
    Row,
    Skipped,
    jsonable,
)


#: sanity thresholds: a composition above this epsilon, or one mechanism alone above
#: the second, is reported as implausible before long work starts
IMPLAUSIBLE_TOTAL_EPSILON = 100.0
IMPLAUSIBLE_MECHANISM_EPSILON = 50.0

Progress = Callable[[str], None]
Warn = Callable[[str], None]


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


def _classic_job(m: str, mechs: Sequence[tuple[Mechanism, int]], options: dict[str, dict[str, Any]]) -> _Job:
    """Method ``m`` on ``mechs`` (give :func:`grouped` ``mechs``: each job would group them again)."""
    opts = options.get(m, {})
    return _Job(m, SCOPE_CLASSIC, lambda: compose(mechs, method=m, **opts),
                lambda ms: compose(ms, method=m, **opts))


def grouped(mechs: Sequence[Any]) -> Sequence[Any]:
    """``normalize(mechs)`` where composing it is composing ``mechs`` (normalize leaves its own
    output as it is: then :func:`~dpcompose.compose` groups it as it groups ``mechs``, with
    the same provenance), else ``mechs``. A plan lists every invocation (the hospitals: 1000
    items); grouped once, each method's :func:`~dpcompose.compose` call starts from one item."""
    from ...compose import normalize

    groups = normalize(mechs)
    return groups if normalize(groups) == groups else mechs


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
        try:
            pair = eps_delta_pair(m)  # NoRuleError (a DPComposeError) for e.g. Group(Subsampled(...))
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
