"""The rows under a plan's membership constraint or hypotheses: the ``parallel`` row
(:func:`dpcompose.hypotheses.parallel_composition`) and the hypothesis-DP rows
(:func:`dpcompose.hypotheses.hdp` with the row's method as the inner method), built from
the plan's own :class:`~dpcompose.hypotheses.Membership` and hypothesis objects.

Moved out of :mod:`.model` unchanged (issue 15); :mod:`.model` re-exports its public names.
"""

from __future__ import annotations

from typing import Any

from ...guarantee import Guarantee
from .rows import _Job


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
