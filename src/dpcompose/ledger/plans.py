r"""Pre-registered plans: a budget that admits exactly the charges of a plan certified in advance.

A *plan budget* is registered with a plan file (the TOML format of ``docs/plans.md``)
before any release. At registration the whole plan is certified with the tightest
method, :func:`dpcompose.hdp` with the budget's membership constraint and neighbour
relation (``method="auto"``), at the promised delta; registration is refused, naming
the certified epsilon, if that epsilon is above the promise. Afterwards a charge is
admitted iff each of its mechanisms can take a planned invocation on the same database
that is still unused and *covers* it (below); the invocations it takes are recorded
as its cost (one count per planned mechanism, the budget's currency ``plan``) and
given back only by a refund. Nothing outside the plan is admitted.

Coverage (every number compared exactly, as the decimal written):

- ``laplace(scale=b, sensitivity=D)`` is covered by a planned
  ``laplace(scale=b', sensitivity=D')`` with ``D/b <= D'/b'``;
- ``gaussian(sigma=s, sensitivity=D)`` by a planned ``gaussian(sigma=s', sensitivity=D')``
  with ``D/s <= D'/s'``;
- a mechanism with a pure or approximate DP description (eps, delta) -- ``pure(eps)``,
  ``rr(eps)``, ``exponential(eps)``, ``laplace`` with ``eps = D/b``, all with delta 0, and
  ``approx(eps, delta)`` -- by a planned ``pure(eps')``, ``rr(eps')``, ``exponential(eps')``
  (delta' = 0) or ``approx(eps', delta')`` with ``eps <= eps'`` and ``delta <= delta'``;
- ``M @ S(q)`` by a planned ``M' @ S(q)`` with the same sampling scheme S, the same rate q
  and ``M'`` of the same kind (Laplace, Gaussian, or the DP descriptions above) covering M.

In each case dpcompose's description of the planned mechanism (its dominating pair,
hence its trade-off function) is also valid for the charged one, so the charged
mechanism is f-DP for the planned mechanism's f; docs/ledger.md section 10 proves that
the interaction then keeps the plan's certificate. Among the planned invocations that
cover a mechanism the least valuable one is taken (the same kind before the general DP
descriptions, then the smallest parameters): for one kind with one parameter this best
fit admits every sequence some assignment could admit; otherwise it may refuse a charge
a cleverer assignment would admit, never the reverse.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any, Callable, Sequence

from ..errors import DPComposeError, NoRuleError
from ..mechanisms import Mechanism, Subsampled
from ..representations import Quotient, accounted_as_class, dominance_key, exact_pair, gdp_mu
from . import exact
from .currencies import PLAN_CURRENCY, Currency, Groups, _written_floor, check_promise
from .errors import LedgerError
from .membership import MembershipRule, check_databases, check_relation

__all__ = ["PlanBook", "PlanCurrency", "Registration", "register", "certify", "covers", "unit_of", "Unit",
           "hdp_release", "PLAN_LABEL", "MAX_PLAN_ITEMS"]

#: the label of a plan budget's progress in statuses
PLAN_LABEL = "pre-registered plan (charges admitted only as planned; certified when registered)"
#: the most (database, planned mechanism) pairs a plan may have
MAX_PLAN_ITEMS = 100_000
#: the most characters of plan text
MAX_PLAN_CHARS = 1_000_000


# ---------------------------------------------------------------------------
# coverage


@dataclass(frozen=True)
class Unit:
    """What coverage compares: a kind, exact parameters (larger is less private), sampling.

    ``kind`` is ``"dp"`` for a mechanism described by the pair of its (eps, delta) class
    (params ``(eps, delta)``), else its dominance family (``"laplace"``: params ``(D/b,)``,
    ``"gaussian"``: ``(D/s,)``); ``pair`` is its own (eps, delta), if any.
    """

    kind: str
    params: tuple[Fraction, ...]
    sampling: tuple[str, Fraction] | None = None
    pair: tuple[Fraction, Fraction] | None = None

    @property
    def dp_pair(self) -> tuple[Fraction, Fraction] | None:
        """The pure / approximate DP description (eps, delta), if any."""
        return self.pair


def _written(x: float) -> Fraction | None:
    """The number as written, exactly (None for an infinite one)."""
    return Fraction(exact.param(x)) if math.isfinite(x) else None


def _quotient(q: Quotient) -> Fraction | None:
    """A rule's exact quotient, each parameter as written (None: infinite, or a computed inner number)."""
    if isinstance(q.num, Quotient):
        return None
    num, den = _written(q.num), _written(q.den)
    if num is None or den is None:
        return None
    return q.scale * (num / den) ** q.power


def _asked(rule: Callable[[Mechanism], Any], m: Mechanism) -> Any:
    try:
        return rule(m)
    except NoRuleError:
        return None


def unit_of(m: Mechanism) -> Unit | None:
    """The coverage description of a mechanism, or None (nothing covers it but itself).

    From the rules (exact_pair, gdp_mu, dominance_key, the pair): a mechanism described by
    its (eps, delta) class is of kind ``dp``; one with a one-parameter dominance family
    (``laplace``, ``gaussian``) is compared within it by its exact mu (gdp_mu) or pure eps.
    """
    if isinstance(m, Subsampled):  # the wrapper's structure (a type test, not a ladder over families)
        inner, rate = unit_of(m.mechanism), _written(m.rate)
        if inner is None or inner.sampling is not None or rate is None:
            return None
        return Unit(inner.kind, inner.params, (m.scheme, rate), inner.pair)
    quotients = _asked(exact_pair, m)
    pair = None
    if quotients is not None:
        eps, delta = (_quotient(q) for q in quotients)
        if eps is None or delta is None:
            return None
        pair = (eps, delta)
    if pair is not None and accounted_as_class(m):
        return Unit("dp", pair, pair=pair)
    mu = _asked(gdp_mu, m)
    ratio = _quotient(mu) if mu is not None else (pair[0] if pair is not None and pair[1] == 0 else None)
    key = _asked(dominance_key, m)
    if ratio is None or key is None or len(key.params) != 1:
        return None
    return Unit(key.family, (ratio,), pair=pair)


def covers(planned: Unit, charged: Unit) -> bool:
    """Whether a planned mechanism covers a charged one (module docstring)."""
    if planned.sampling != charged.sampling:
        return False
    if planned.kind == "dp" and (planned.sampling is None or charged.kind == "dp"):
        pair = charged.dp_pair
        return pair is not None and pair[0] <= planned.params[0] and pair[1] <= planned.params[1]
    return planned.kind == charged.kind and all(c <= p for c, p in zip(charged.params, planned.params))


def _order(u: Unit) -> tuple[Any, ...]:
    return (u.kind, (0,) if u.sampling is None else (1, *u.sampling), u.params)


# ---------------------------------------------------------------------------
# the book: planned invocations per database, and their assignment


@dataclass(frozen=True)
class PlanBook:
    """The planned invocations of a plan budget, per database, and the certificate.

    Attributes:
        slots: the distinct planned mechanisms (canonical expressions, one invocation
            each); the plan currency's components.
        databases: the budget's databases, in budget order.
        planned: per database (budget order), ``{slot index: planned count}``.
        certified: ``{"epsilon", "delta", "method", "caveats"}``: :func:`dpcompose.hdp`
            of the whole plan at the promised delta (epsilon a certified upper bound).
    """

    slots: tuple[str, ...]
    databases: tuple[str, ...]
    planned: tuple[dict[int, int], ...]
    certified: dict[str, Any]

    def __post_init__(self) -> None:
        from .core import parse_mechanism

        mechs = []
        for s in self.slots:
            ((m, _),), _ = parse_mechanism(s)
            mechs.append(m)
        object.__setattr__(self, "_mechanisms", tuple(mechs))
        object.__setattr__(self, "_units", tuple(unit_of(m) for m in mechs))

    @property
    def mechanisms(self) -> tuple[Mechanism, ...]:
        return self._mechanisms  # type: ignore[attr-defined]

    # -- storage ---------------------------------------------------------------------
    def to_params(self) -> dict[str, Any]:
        """JSON-ready: stored with the budget (never recomputed: the promise is fixed)."""
        return {"slots": list(self.slots), "certified": dict(self.certified),
                "planned": {self.databases[p]: {self.slots[j]: c for j, c in sorted(counts.items())}
                            for p, counts in enumerate(self.planned) if counts}}

    @classmethod
    def from_params(cls, params: dict[str, Any], databases: Sequence[str]) -> "PlanBook":
        slots = tuple(params["slots"])
        index = {s: j for j, s in enumerate(slots)}
        stored = params["planned"]
        planned = tuple({index[s]: int(c) for s, c in stored.get(d, {}).items()} for d in databases)
        return cls(slots, tuple(databases), planned, dict(params["certified"]))

    # -- charging --------------------------------------------------------------------
    def assign(self, position: int, groups: Groups, used: Sequence[Decimal]) -> tuple[tuple[Decimal, ...] | None, str]:
        """The planned invocations a charge on database ``position`` takes (best fit).

        Args:
            groups: the charge's ``((mechanism, count), ...)``.
            used: the database's used counts per slot (its stored totals).

        Returns:
            ``(cost, "")`` with the count taken from each slot, or ``(None, why)`` when
            some mechanism finds no unused planned invocation that covers it.
        """
        planned = self.planned[position]
        free = {j: max(0, c - int(used[j])) for j, c in planned.items()}
        taken = [0] * len(self.slots)
        units = [(unit_of(m), m, k) for m, k in groups]
        units.sort(key=lambda t: (t[0] is None, _order(t[0]) if t[0] is not None else ()))
        for u, m, k in units:
            cands = [] if u is None else [j for j in planned if covers(self._units[j], u)]  # type: ignore[attr-defined]
            cands.sort(key=lambda j: (self._units[j].kind != u.kind, self._units[j].params))  # type: ignore
            need = k
            for j in cands:
                take = min(need, free[j])
                free[j] -= take
                taken[j] += take
                need -= take
                if not need:
                    break
            if need:
                from ..interfaces.expressions import format_mechanism

                left = [f"{self.slots[j]} x {free[j]}" for j in sorted(planned) if free[j]]
                return None, (f"no unused planned invocation on database {self.databases[position]!r} covers "
                              f"{format_mechanism(m, k)} ({need} of {k} not covered); unused there: "
                              f"{'; '.join(left[:10]) + (' ...' if len(left) > 10 else '') if left else 'nothing'}")
        return tuple(Decimal(t) for t in taken), ""

    def progress(self, totals: Sequence[Sequence[Decimal]]) -> dict[str, Any]:
        """Planned against used, per database with planned invocations, and the certificate."""
        dbs: dict[str, Any] = {}
        planned_total = used_total = 0
        for p, counts in enumerate(self.planned):
            if not counts:
                continue
            used = {self.slots[j]: int(totals[p][j]) for j in sorted(counts)}
            dbs[self.databases[p]] = {"planned": {self.slots[j]: c for j, c in sorted(counts.items())},
                                      "used": used}
            planned_total += sum(counts.values())
            used_total += sum(used.values())
        return {"label": PLAN_LABEL, "certified": dict(self.certified), "planned_total": planned_total,
                "used_total": used_total, "databases": dbs}


# ---------------------------------------------------------------------------
# the currency


class PlanCurrency(Currency):
    r"""The currency of a plan budget: counts of planned invocations used.

    Components are the plan's distinct mechanisms; a database's totals count the
    planned invocations its charges took; limits are the planned counts summed over the
    databases. The (epsilon, delta) spent is the certificate of the whole plan, fixed
    when it was registered: it covers whatever part of the plan runs.

    Guarantee:
        docs/ledger.md section 10 (Theorem 9): every person allowed by the budget's
        membership constraint gets the plan's certified (epsilon, delta), whatever the
        analysts' adaptive order, choice of queries, and skipped invocations.
    """

    name = PLAN_CURRENCY

    @classmethod
    def create(cls, epsilon, delta, orders=None):
        raise LedgerError("currency 'plan' is made by registering a plan (plan=...)", field="plan")

    @property
    def components(self):
        return tuple(self.params["plan"]["slots"])

    def cost(self, groups, delta_share):  # pragma: no cover - plan charges are assigned in the store
        raise LedgerError("a plan budget's charges are matched against the plan", field="mechanism")

    def spent(self, totals):
        return float(self.params["plan"]["certified"]["epsilon"]), self.delta

    def describe(self) -> str:
        c = self.params["plan"]["certified"]
        return (f"plan (epsilon {self.epsilon:g}, delta {self.delta:g}; the plan's certified epsilon "
                f"{c['epsilon']:.6g}, {c['method']})")


# ---------------------------------------------------------------------------
# registration


@dataclass(frozen=True)
class Registration:
    """What :func:`register` hands the store: the currency, databases, constraint, plan text."""

    currency: PlanCurrency
    databases: list[str]
    rule: MembershipRule
    text: str
    book: PlanBook


def _plan_text(plan: Any) -> str:
    if isinstance(plan, os.PathLike):
        try:
            text = Path(plan).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise LedgerError(f"cannot read the plan file {os.fspath(plan)!r}: {exc}", field="plan") from None
    elif isinstance(plan, str):
        text = plan
    else:
        raise LedgerError(f"plan = {plan!r} must be the TOML text of a plan (docs/plans.md) or a "
                          f"pathlib.Path to one", field="plan")
    if not text.strip():
        raise LedgerError("plan is empty; give the TOML text of a plan (docs/plans.md)", field="plan")
    if len(text) > MAX_PLAN_CHARS:
        raise LedgerError(f"plan has {len(text)} characters, more than {MAX_PLAN_CHARS}", field="plan")
    return text


def _parse(text: str) -> Any:
    from ..interfaces.plan import PlanError, parse_plan

    try:
        return parse_plan(text, source="plan")
    except PlanError as exc:
        path = next((p for p, _ in exc.problems if p), "")
        raise LedgerError(str(exc), field=f"plan.{path}" if path else "plan") from None


def _databases(plan_names: Sequence[str], given: Any) -> list[str]:
    """The budget's databases: the plan's (by name), in the order given or the plan's."""
    if given is None:
        try:
            return check_databases(list(plan_names))
        except LedgerError as exc:
            raise LedgerError(f"the plan's databases: {exc.message}", field="plan.databases") from None
    dbs = check_databases(given)
    missing = [n for n in plan_names if n not in set(dbs)]
    extra = [n for n in dbs if n not in set(plan_names)]
    if missing or extra:
        raise LedgerError(
            f"databases must be the plan's databases, by name ({', '.join(plan_names[:10])}"
            f"{' ...' if len(plan_names) > 10 else ''}; a [[databases]] entry with count n gives name[0] .. "
            f"name[n-1]); {'missing: ' + ', '.join(missing[:10]) if missing else ''}"
            f"{'; ' if missing and extra else ''}{'not in the plan: ' + ', '.join(extra[:10]) if extra else ''}. "
            f"Leave databases out to take the plan's", field="databases")
    return dbs


def _plan_membership(plan: Any) -> tuple[dict[str, Any] | None, bool, str | None]:
    """The plan's ``[membership]`` as a budget constraint: (spec, given?, neighbours if written)."""
    mem = plan.spec.membership
    if mem is None:
        return None, False, None
    names = plan.database_names
    neighbors = mem.neighbors if "neighbors" in mem.model_fields_set else None
    if mem.patterns is not None:
        return {"patterns": [[names[i] for i, bit in enumerate(p) if bit] for p in mem.patterns]}, True, neighbors
    if mem.max_per_group:
        if mem.max_databases is not None:
            raise LedgerError("the plan's [membership] combines max_databases with max_per_group, which a budget "
                              "cannot state; write the allowed sets as membership.patterns", field="plan.membership")
        groups = []
        for g, cap in mem.max_per_group.items():
            idx = plan.groups[g]
            if cap >= len(idx):
                continue  # no constraint
            if cap != 1:
                raise LedgerError(f"the plan's membership.max_per_group.{g} = {cap}: a budget states at most one "
                                  f"database per group (partition), at most m overall, or explicit patterns; "
                                  f"write the allowed sets as membership.patterns", field=f"plan.membership.max_per_group.{g}")
            groups.append([names[i] for i in idx])
        return ({"partition": groups} if groups else None), True, neighbors
    return {"max_databases": mem.max_databases}, True, neighbors


def _canonical(rule: MembershipRule) -> tuple[Any, ...]:
    spec, n = rule.spec, len(rule.databases)
    if spec is None:
        return ("all",)
    if "max_databases" in spec:
        return ("all",) if spec["max_databases"] >= n else ("max", spec["max_databases"])
    if "partition" in spec:
        groups = frozenset(frozenset(g) for g in spec["partition"] if len(g) > 1)
        return ("partition", groups) if groups else ("all",)
    return ("patterns", frozenset(frozenset(p) for p in spec["patterns"]))


def _rule(plan: Any, dbs: list[str], membership: Any, neighbors: Any) -> MembershipRule:
    """The budget's constraint and relation: the plan's, the budget's, or both when equal."""
    spec, stated, plan_nb = _plan_membership(plan)
    if neighbors is not None and plan_nb is not None and neighbors != plan_nb:
        raise LedgerError(f"neighbors = {neighbors!r} but the plan's membership.neighbors = {plan_nb!r}; give the "
                          f"same relation, or leave one out", field="neighbors")
    nb = neighbors if neighbors is not None else (plan_nb or "unbounded")
    try:
        from_plan = MembershipRule(spec, dbs, nb) if stated else None
    except LedgerError as exc:
        raise LedgerError(f"the plan's [membership]: {exc.message}", field="plan.membership") from None
    given = MembershipRule(membership, dbs, nb)
    if from_plan is None:
        return given
    if membership is not None and _canonical(from_plan) != _canonical(given):
        raise LedgerError(f"membership = {membership!r} differs from the plan's [membership] ({from_plan.spec!r}); "
                          f"give the same constraint, or leave membership out to take the plan's",
                          field="membership")
    return from_plan


def hdp_release(per_database: Sequence[Sequence[tuple[Mechanism, int]]]) -> tuple[list[tuple[Mechanism, int]], list[int]]:
    """Items and their database indices for :func:`dpcompose.hdp` (every database present).

    hdp sizes its b-vectors by the largest database index used, so a zero-cost mechanism
    (``PureDP(0)``, which changes no profile) stands on the last database when it has none.
    """
    from ..mechanisms import PureDP as _Pure

    items: list[tuple[Mechanism, int]] = []
    where: list[int] = []
    for p, groups in enumerate(per_database):
        for m, k in groups:
            items.append((m, k))
            where.append(p)
    if per_database and (not where or max(where) < len(per_database) - 1):
        items.append((_Pure(0.0), 1))
        where.append(len(per_database) - 1)
    return items, where


def certify(book_slots: Sequence[Mechanism], planned: Sequence[dict[int, int]], rule: MembershipRule,
            delta: float, enumeration_limit: int | None) -> dict[str, Any]:
    """:func:`dpcompose.hdp` of the plan at ``delta`` (at the largest float not above it)."""
    import dpcompose as dpc

    items, where = hdp_release([[(book_slots[j], c) for j, c in sorted(counts.items())] for counts in planned])
    opts = {} if enumeration_limit is None else {"enumeration_limit": enumeration_limit}
    try:
        g = dpc.hdp(items, databases=where, membership=rule.dpc_membership(), neighbors=rule.neighbors, **opts)
        eps = g.epsilon(_written_floor(delta))
    except DPComposeError as exc:
        raise LedgerError(f"the plan cannot be certified: {exc}", field="plan") from None
    return {"epsilon": eps, "delta": delta, "method": f"{g.method} (inner method {g.provenance.get('inner_method')})",
            "worst_case": str(g.provenance.get("worst_case", "")),
            "caveats": [str(c) for c in g.provenance.get("caveats", [])]}


def register(plan: Any, *, currency: Any, epsilon: Any, delta: Any, databases: Any, membership: Any,
             neighbors: Any, orders: Any) -> Registration:
    """Validate a plan budget and certify its plan (nothing is stored here).

    Raises:
        LedgerError: naming the field (``plan.invocations[2].database``, ``databases``,
            ``membership``, ...); a plan whose certified epsilon is above the promise is
            refused with ``field="plan"`` and the certified epsilon in the message.
    """
    from ..interfaces.expressions import format_mechanism

    if currency not in (None, PLAN_CURRENCY):
        raise LedgerError(f"currency = {currency!r}: a budget with a plan admits exactly the planned charges "
                          f"(currency '{PLAN_CURRENCY}'); leave currency out or pass '{PLAN_CURRENCY}'",
                          field="currency")
    if orders is not None:
        raise LedgerError("orders are only used by the rdp currency, not by a plan budget; leave them out",
                          field="orders")
    eps, dlt = check_promise(epsilon, delta)
    text = _plan_text(plan)
    parsed = _parse(text)
    spec = parsed.spec
    if spec.hypotheses is not None:
        raise LedgerError("the plan has [hypotheses]: a budget promises (epsilon, delta) to every person its "
                          "membership constraint allows, not against one adversary's prior; remove "
                          "[hypotheses]", field="plan.hypotheses")
    for i, inv in enumerate(spec.invocations):
        if inv.database is None:
            raise LedgerError("every invocation of a registered plan names its database (a charge runs on one "
                              "database); add database = \"...\" (a [[databases]] entry)",
                              field=f"plan.invocations[{i}].database")
    dbs = _databases(parsed.database_names, databases)
    rule = _rule(parsed, dbs, membership, neighbors)
    from .core import parse_mechanism

    for i, expr in enumerate(parsed.expressions):
        groups, _ = parse_mechanism(expr)
        check_relation(groups, rule.neighbors, field=f"plan.invocations[{i}].mechanism")
    position = {d: p for p, d in enumerate(dbs)}
    slots: dict[str, Mechanism] = {}
    index: dict[str, int] = {}
    planned: list[dict[int, int]] = [{} for _ in dbs]
    for (m, k), d in zip(parsed.mechanisms, parsed.databases):
        key = format_mechanism(m, 1)
        j = index.setdefault(key, len(index))
        slots.setdefault(key, m)
        counts = planned[position[parsed.database_names[d]]]
        counts[j] = counts.get(j, 0) + k
    n_items = sum(len(c) for c in planned)
    if n_items > MAX_PLAN_ITEMS:
        raise LedgerError(f"the plan has {n_items} (database, mechanism) pairs, more than {MAX_PLAN_ITEMS}",
                          field="plan")
    limit = (spec.options.get("hdp") or {}).get("enumeration_limit")
    certified = certify(list(slots.values()), planned, rule, dlt, limit)
    c_eps = certified["epsilon"]
    if not (math.isfinite(c_eps) and exact.dec(c_eps) <= exact.param(eps)):
        shown = "infinite (no finite epsilon)" if not math.isfinite(c_eps) else repr(c_eps)
        raise LedgerError(
            f"the plan does not fit the promise: its certified epsilon at delta = {dlt!r} is {shown} "
            f"(dpcompose.hdp, {certified['method']}, {rule.neighbors} neighbours), above the promised epsilon = "
            f"{epsilon!r}; promise more, or plan fewer or noisier invocations", field="plan")
    certified["epsilon"] = c_eps
    book = PlanBook(tuple(slots), tuple(dbs), tuple(planned), certified)
    limits = tuple(Decimal(sum(c.get(j, 0) for c in planned)) for j in range(len(slots)))
    cur = PlanCurrency(eps, dlt, limits, {"plan": book.to_params()})
    return Registration(cur, dbs, rule, text, book)

