"""Request helpers of :mod:`.core` (moved from there): prepared SQL, argument checks, parsing.

The hot path's SQL statements (built once), the budget row lock, checks of names and
delta shares, the parser of a charge's mechanism argument, and a budget's cached
configuration.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

from sqlalchemy import Connection, CursorResult, and_, bindparam, insert, select, update

from ..errors import DPComposeError
from ..mechanisms import Mechanism
from .errors import LedgerError, LedgerNotFound
from .store import budgets as budget_t
from .store import charges as charge_t
from .store import databases as database_t

if TYPE_CHECKING:
    from .currencies import Currency
    from .membership import MembershipRule
    from .plans import PlanBook

_NAME_HELP = "1-200 printable characters without leading or trailing spaces"

# statements of the hot path, built once (building them per call costs more than running them)
_LOCK_BUDGET = (select(budget_t.c.seq, budget_t.c.charge_count, budget_t.c.refund_count)
                .where(budget_t.c.id == bindparam("bid")).with_for_update())
_BY_KEY = select(charge_t).where(and_(charge_t.c.budget_id == bindparam("bid"),
                                      charge_t.c.idempotency_key == bindparam("key")))
_TOTALS = (select(database_t.c.totals).where(database_t.c.budget_id == bindparam("bid"))
           .order_by(database_t.c.position))
_REFUND_OF = select(charge_t.c.id).where(charge_t.c.refund_of == bindparam("cid"))
_INSERT_ENTRY = insert(charge_t)
_SET_TOTALS = update(database_t).where(database_t.c.id == bindparam("db_id")).values(totals=bindparam("new_totals"))
_SET_CHARGED = update(budget_t).where(budget_t.c.id == bindparam("bid")).values(
    seq=bindparam("new_seq"), charge_count=bindparam("new_count"))
_SET_REFUNDED = update(budget_t).where(budget_t.c.id == bindparam("bid")).values(
    seq=bindparam("new_seq"), refund_count=bindparam("new_count"))


class _Counters(NamedTuple):
    seq: int
    charge_count: int
    refund_count: int


def _lock_budget(conn: Connection, b: _Budget) -> _Counters:
    """Lock the budget's row for this transaction and read its counters."""
    locked = conn.execute(_LOCK_BUDGET, {"bid": b.id}).first()
    if locked is None:  # the row was read at the start of this call; gone only if removed meanwhile
        raise LedgerNotFound(f"budget {b.name!r} no longer exists", field="budget")
    return _Counters(locked.seq, locked.charge_count, locked.refund_count)


def _inserted_id(result: CursorResult[Any]) -> int:
    """The primary key of the row a single-row insert just wrote."""
    key = result.inserted_primary_key
    if key is None:  # SQLAlchemy returns the key of every single-row insert on our tables
        raise LedgerError("the database did not return the id of the new row", field="db")
    return int(key[0])


def _check_name(field: str, value: Any, *, max_len: int = 200) -> str:
    if not isinstance(value, str):
        raise LedgerError(f"{field} = {value!r} must be a string ({_NAME_HELP})", field=field)
    if not (1 <= len(value) <= max_len) or not value.isprintable() or value != value.strip():
        raise LedgerError(f"{field} = {value!r} must be {_NAME_HELP}", field=field)
    return value


def parse_mechanism(mechanism: Any) -> tuple[tuple[tuple[Mechanism, int], ...], str]:
    """Grouped ``((mechanism, count), ...)`` and the canonical expression text of a charge.

    Accepts an expression (``"laplace(scale=20) x 5"``), a mechanism, or a list of
    mechanisms and ``(mechanism, count)`` pairs.
    """
    from ..compose import normalize
    from ..interfaces.expressions import format_mechanism, to_mechanisms

    try:
        if isinstance(mechanism, str):
            if len(mechanism) > 10_000:
                raise LedgerError("mechanism expression is longer than 10000 characters", field="mechanism")
            items: Any = to_mechanisms(mechanism)
        elif isinstance(mechanism, Mechanism):
            items = [mechanism]
        elif isinstance(mechanism, (list, tuple)):
            items = list(mechanism)
        else:
            raise LedgerError(
                f"mechanism = {mechanism!r} must be an expression such as 'laplace(scale=20) x 5', "
                f"a dpcompose mechanism or a list of them", field="mechanism")
        groups = normalize(items)
        canonical = " + ".join(format_mechanism(m, k) for m, k in groups)
    except LedgerError:
        raise
    except (DPComposeError, TypeError, ValueError) as exc:
        raise LedgerError(str(exc), field="mechanism") from None
    if not groups:
        raise LedgerError("the charge names no mechanism (every count is 0); charge at least one",
                          field="mechanism")
    return groups, canonical


@dataclass(frozen=True)
class _Budget:
    """A budget's immutable configuration (cached per ledger)."""

    id: int
    name: str
    currency: Currency
    rule: MembershipRule
    databases: tuple[str, ...]
    db_ids: dict[str, int]
    plan: str | None                 # the registered plan's TOML text
    created_at: str
    book: PlanBook | None = None     # its planned invocations (plan budgets only)


def _check_share(delta: Any) -> float | None:
    if delta is None:
        return None
    if isinstance(delta, bool) or not isinstance(delta, (int, float)) or not math.isfinite(delta) \
            or not 0.0 <= float(delta) < 1.0:
        raise LedgerError(f"delta = {delta!r} (the charge's delta share) must be a number in [0, 1)",
                          field="delta")
    return float(delta)


def _finite(x: float) -> float:
    return x if math.isfinite(x) else 1e308
