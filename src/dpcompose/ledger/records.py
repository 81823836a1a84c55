"""What the ledger returns: frozen dataclasses with a JSON-ready ``to_dict()``.

Exact amounts (the budget's currency) are decimal strings, never floats, so a JSON
consumer can add them exactly; figures in (epsilon, delta) are floats rounded toward
the safe side (spent up, remaining down).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from .errors import ChargeRefused

__all__ = ["BudgetStatus", "ChargeResult", "ChargeRecord", "TokenScope", "PLANNED_LABEL"]

#: the label every display of the realized sequence's tightest guarantee carries
PLANNED_LABEL = "if this had been planned in advance (display only; never used to admit a charge)"


def _plain(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


class _ToDict:
    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (exact amounts as decimal strings)."""
        return _plain(self)


@dataclass(frozen=True)
class ChargeResult(_ToDict):
    """The answer to a charge (or a refund).

    Attributes:
        admitted: whether the charge was admitted and recorded (a refund: recorded).
        reason: why it was refused (``None`` when admitted).
        charge_id: the id of the stored entry (``None`` when refused).
        remaining: what remains for the worst-case person after this request:
            ``{"currency": {component: decimal string}, "epsilon": float, "delta": float}``.
        replayed: ``True`` when an idempotency key matched an earlier admitted charge;
            the original result is returned and nothing is charged again.
        budget, database: where the charge went.
        cost: the charge's cost in the currency (decimal strings; negative for a refund).
        kind: ``"charge"`` or ``"refund"``.
    """

    admitted: bool
    reason: str | None
    charge_id: int | None
    remaining: dict[str, Any]
    replayed: bool = False
    budget: str = ""
    database: str | None = None
    cost: dict[str, str] | None = None
    kind: str = "charge"

    def raise_if_refused(self) -> "ChargeResult":
        """Return self when admitted, else raise :class:`ChargeRefused`."""
        if not self.admitted:
            raise ChargeRefused(self)
        return self


@dataclass(frozen=True)
class ChargeRecord(_ToDict):
    """One entry of a budget's append-only history.

    Attributes:
        id: the entry id (unique in the ledger).
        seq: 1, 2, ... within the budget, in commit order.
        kind: ``"charge"`` or ``"refund"`` (a refund's cost is the negated cost of the
            charge it refunds).
        database: the database it ran on.
        mechanism: the canonical mechanism expression (``laplace(scale=20, sensitivity=1) x 5``).
        delta: the charge's delta share (approx and advanced currencies), as a decimal
            string, or ``None``.
        cost: the cost in the currency, component -> decimal string (rounded up).
        refunded: a charge that was later refunded (its mechanism never ran).
        refund_of: for a refund, the id of the refunded charge.
        idempotency_key, note, reason: as given (reason: a refund's reason).
        spent_epsilon: the worst-case person's spend in epsilon right after this entry
            (rounded up), for charts of epsilon over time.
        created_at: ISO 8601 UTC time of the commit.
    """

    id: int
    seq: int
    budget: str
    kind: str
    database: str
    mechanism: str
    delta: str | None
    cost: dict[str, str]
    refunded: bool
    refund_of: int | None
    idempotency_key: str | None
    note: str | None
    reason: str | None
    spent_epsilon: float
    created_at: str


@dataclass(frozen=True)
class BudgetStatus(_ToDict):
    """A budget: its promise, what is spent and what remains.

    Attributes:
        name, currency, epsilon, delta, databases, membership, neighbors, orders, plan:
            as created (``orders`` only for ``rdp``).
        components: the currency's components, e.g. ``["epsilon"]`` or
            ``["epsilon", "delta"]`` or ``["rdp(2)", "rdp(4)", ...]``.
        limits: the budget in the currency, component -> decimal string (rounded down).
        spent: the worst-case person's totals (component -> decimal string): for every
            component, the largest total any person the membership constraint allows can
            have (see docs/ledger.md).
        remaining: ``{"currency": limits - spent, "epsilon": float, "delta": float}``.
        spent_epsilon, spent_delta: the worst-case person's spend as (epsilon, delta):
            the smallest budget epsilon (at this delta) under which the same charges would
            have been admitted (rounded up).
        per_database: database -> {component: total} (totals on that database).
        worst_case: ``{"databases": [...], "epsilon": float}``: a set of databases one
            person may be in that attains the largest spend in the first component.
        charge_count: admitted charges (refunded ones included); refund_count: refunds.
        planned: the realized sequence's tightest (epsilon, delta), labelled
            :data:`PLANNED_LABEL`; display only, ``None`` when not computed.
        created_at: ISO 8601 UTC.
        plan_progress: for a budget with a pre-registered plan (currency ``plan``):
            ``{"label", "certified": {"epsilon", "delta", "method", "caveats"},
            "planned_total", "used_total", "databases": {db: {"planned": {mechanism: n},
            "used": {mechanism: k}}}}``; ``None`` otherwise. For a plan budget ``plan``
            is the plan's TOML text, ``spent_epsilon`` the plan's certified epsilon (it
            covers whatever part of the plan runs), and the currency's components count
            planned invocations.
    """

    name: str
    currency: str
    epsilon: float
    delta: float
    databases: list[str]
    membership: dict[str, Any] | None
    neighbors: str
    orders: list[float] | None
    plan: str | None
    components: list[str]
    limits: dict[str, str]
    spent: dict[str, str]
    remaining: dict[str, Any]
    spent_epsilon: float
    spent_delta: float
    per_database: dict[str, dict[str, str]]
    worst_case: dict[str, Any]
    charge_count: int
    refund_count: int
    planned: dict[str, Any] | None = None
    created_at: str = ""
    plan_progress: dict[str, Any] | None = None


@dataclass(frozen=True)
class TokenScope(_ToDict):
    """What a token may do: everything (``admin``) or charge and read the listed budgets."""

    token_id: int
    admin: bool
    budgets: tuple[str, ...] = field(default_factory=tuple)

    def allows(self, budget: str) -> bool:
        """Whether this token may charge and read ``budget``."""
        return self.admin or budget in self.budgets
