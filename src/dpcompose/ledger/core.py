"""The ledger: budgets that hold over time and across databases.

``Ledger(url)`` opens a store (a file path or ``sqlite:///PATH``: SQLite; a
``postgresql://`` URL: PostgreSQL). ``init()`` creates or upgrades the schema. Every
charge is checked and recorded in one transaction that holds the budget's lock
(:mod:`dpcompose.ledger.store`), so concurrent charges never both pass a check that only
one of them could; the check reads the materialized per-database totals, so its cost
grows with the number of databases, not with the history.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import secrets
import threading
import time
from datetime import datetime, timezone
from decimal import Decimal
from pathlib import Path
from typing import Any, Iterator, Sequence

from sqlalchemy import Connection, and_, func, insert, select, text, update
from sqlalchemy.exc import IntegrityError, OperationalError, ProgrammingError, SQLAlchemyError

from ..errors import DPComposeError
from ..mechanisms import Mechanism
from . import exact
from .currencies import Currency, create_currency, dumps, load_currency, loads
from .errors import LedgerConflict, LedgerError, LedgerNotFound, Unauthorized
from .membership import MembershipRule, check_databases, check_relation
from .plans import PlanBook, hdp_release, register
from .records import PLANNED_LABEL, BudgetStatus, ChargeRecord, ChargeResult, TokenScope
from .requests import (_BY_KEY, _INSERT_ENTRY, _REFUND_OF, _SET_CHARGED, _SET_REFUNDED, _SET_TOTALS, _TOTALS, _Budget,
                       _check_name, _check_share, _finite, _inserted_id, _lock_budget, parse_mechanism)
from .store import budgets as budget_t
from .store import charges as charge_t
from .store import databases as database_t
from .store import make_engine, normalize_url
from .store import tokens as token_t

__all__ = ["Ledger", "parse_mechanism"]

_MAX_HISTORY_PAGE = 1000
_PLANNED_MAX_ITEMS = 2000
#: a background recomputation of the planned figure starts at most this often per budget
_PLANNED_MIN_INTERVAL_S = 5.0


_SQLITE_WRITERS: dict[str, Any] = {}
_SQLITE_WRITERS_LOCK = threading.Lock()


def _writer_lock(url: str) -> contextlib.AbstractContextManager[Any]:
    """One lock per SQLite file in this process (shared by its Ledger objects); none for PostgreSQL."""
    if not url.startswith("sqlite"):
        return contextlib.nullcontext()
    with _SQLITE_WRITERS_LOCK:
        return _SQLITE_WRITERS.setdefault(url, threading.RLock())


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="microseconds")


class Ledger:
    """Privacy budgets in a SQLite file or a PostgreSQL database.

    Args:
        url: a file path or ``sqlite:///PATH`` (SQLite, created with mode 0600), or
            ``postgresql://USER[:PASSWORD]@HOST:PORT/DB``.

    Example::

        led = Ledger("ledger.db"); led.init()
        led.create_budget("census", currency="pure", epsilon=1.0, delta=0.0,
                          databases=["north", "south"], membership={"max_databases": 1})
        r = led.charge("census", database="north", mechanism="laplace(scale=20) x 5")
        r.admitted, r.remaining["epsilon"]      # True, 0.75

    Guarantee:
        a charge is admitted only if the budget's filter (docs/ledger.md) holds for every
        person the membership constraint allows, after adding the charge's cost rounded
        up to the stored exact totals.
    """

    def __init__(self, url: str | Any) -> None:
        self.url = normalize_url(url)
        self.engine = make_engine(self.url)
        self._writers = _writer_lock(self.url)
        self._budgets: dict[str, _Budget] = {}
        # budget id -> (entry seq, figure); budget ids being computed in the background
        self._planned: dict[int, tuple[int, dict[str, Any]]] = {}
        self._computing: set[int] = set()
        self._planned_at: dict[int, float] = {}
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ lifecycle
    def init(self) -> None:
        """Create or upgrade the schema (Alembic migrations; safe to run repeatedly)."""
        from alembic import command
        from alembic.config import Config

        cfg = Config()
        cfg.set_main_option("script_location", str(Path(__file__).parent / "migrations"))
        with self.engine.begin() as conn:
            if conn.dialect.name == "postgresql":
                conn.execute(text("SELECT pg_advisory_xact_lock(4242001)"))
            cfg.attributes["connection"] = conn
            command.upgrade(cfg, "head")

    def close(self) -> None:
        """Release the connections."""
        self.engine.dispose()

    def __enter__(self) -> "Ledger":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        from sqlalchemy.engine import make_url

        return f"Ledger({make_url(self.url).render_as_string(hide_password=True)!r})"

    @contextlib.contextmanager
    def _write(self) -> Iterator[Connection]:
        # SQLite has one writer at a time (BEGIN IMMEDIATE): writers of this process queue on a
        # lock, woken at once, instead of in SQLite's busy handler, which sleeps up to 100 ms
        # between tries; writers in other processes still meet the file lock and busy_timeout
        with self._writers, self._schema_errors(), self.engine.begin() as conn:
            yield conn

    @contextlib.contextmanager
    def _read(self) -> Iterator[Connection]:
        with self._schema_errors(), self.engine.connect() as c:
            # one snapshot for all reads of a status (PostgreSQL; SQLite's deferred BEGIN in WAL)
            opts = {"isolation_level": "REPEATABLE READ"} if c.dialect.name == "postgresql" else {}
            conn = c.execution_options(dpc_read_only=True, **opts)
            with conn.begin():
                yield conn

    @contextlib.contextmanager
    def _schema_errors(self) -> Iterator[None]:
        try:
            yield
        except (OperationalError, ProgrammingError) as exc:
            msg = str(exc.orig).lower() if exc.orig is not None else str(exc).lower()
            if "no such table" in msg or "does not exist" in msg:
                raise LedgerError("the ledger database has no schema yet; run Ledger.init() "
                                  "(or `dpcompose ledger init --db URL`)", field="db") from None
            raise

    # ------------------------------------------------------------------ budgets
    def create_budget(self, name: str, *, currency: str | None = None, epsilon: float, delta: float,
                      databases: Sequence[str] | None = None, membership: dict[str, Any] | None = None,
                      neighbors: str | None = None, orders: Sequence[float] | None = None,
                      plan: str | os.PathLike[str] | None = None) -> BudgetStatus:
        """Create a budget (everything is validated before anything is stored).

        Args:
            name: unique budget name (1-200 printable characters).
            currency: ``pure``, ``approx``, ``advanced``, ``zcdp``, ``gdp`` or ``rdp``; with
                a plan, ``plan`` or left out.
            epsilon, delta: the promise to each person: (epsilon, delta)-DP over the
                whole interaction (``pure``: delta = 0).
            databases: the database names charges may run on (with a plan: the plan's
                database names, or left out to take them from the plan).
            membership: which databases one person can be in (see
                :class:`~dpcompose.ledger.membership.MembershipRule`); ``None``: any (with a
                plan: the plan's ``[membership]``; if both are given they must be equal).
            neighbors: ``"unbounded"`` (the default) or ``"bounded"`` (with a plan that
                writes ``membership.neighbors``: that, or equal to it).
            orders: Renyi orders for ``rdp`` (default
                :data:`~dpcompose.ledger.currencies.DEFAULT_ORDERS`).
            plan: a pre-registered plan, the TOML text of a plan file (docs/plans.md) or
                a :class:`pathlib.Path` to one. The budget then admits exactly the planned
                charges (:mod:`dpcompose.ledger.plans`), and it is created only if
                :func:`dpcompose.hdp` certifies the whole plan within (epsilon, delta).

        Raises:
            LedgerError: a bad field (named; a plan that does not fit names its certified
            epsilon); LedgerConflict: the name exists.
        """
        name = _check_name("name", name)
        book = None
        cur: Currency
        if plan is not None:
            reg = register(plan, currency=currency, epsilon=epsilon, delta=delta, databases=databases,
                           membership=membership, neighbors=neighbors, orders=orders)
            cur, dbs, rule, plan_text, book = reg.currency, reg.databases, reg.rule, reg.text, reg.book
        else:
            cur = create_currency(currency, epsilon, delta, orders)
            dbs = check_databases(databases)
            rule = MembershipRule(membership, dbs, "unbounded" if neighbors is None else neighbors)
            plan_text = None
        zeros = dumps([exact.ZERO] * len(cur.components))
        created = _now()
        try:
            with self._write() as conn:
                bid = _inserted_id(conn.execute(insert(budget_t).values(
                    name=name, currency=cur.name, epsilon=cur.epsilon, delta=cur.delta, neighbors=rule.neighbors,
                    membership=json.dumps(rule.spec) if rule.spec is not None else None,
                    params=json.dumps(cur.params), plan=plan_text, limits=dumps(cur.limits),
                    charge_count=0, refund_count=0, seq=0, created_at=created)))
                conn.execute(insert(database_t), [
                    {"budget_id": bid, "name": d, "position": i, "totals": zeros} for i, d in enumerate(dbs)])
        except IntegrityError:
            with self._read() as conn:
                taken = conn.execute(select(budget_t.c.id).where(budget_t.c.name == name)).first() is not None
            if not taken:  # some other constraint: a bug, never reported as a name conflict
                raise
            raise LedgerConflict(f"a budget named {name!r} exists; choose another name", field="name") from None
        return self.status(name, planned=False)

    def _budget(self, name: Any) -> _Budget:
        if not isinstance(name, str):
            raise LedgerError(f"budget = {name!r} must be a budget name (a string)", field="budget")
        b = self._budgets.get(name)
        if b is not None:
            return b
        with self._read() as conn:
            row = conn.execute(select(budget_t).where(budget_t.c.name == name)).mappings().first()
            if row is None:
                raise LedgerNotFound(f"no budget named {name!r}", field="budget")
            dbrows = conn.execute(select(database_t.c.id, database_t.c.name).where(
                database_t.c.budget_id == row["id"]).order_by(database_t.c.position)).all()
        params = json.loads(row["params"])
        cur = load_currency(row["currency"], row["epsilon"], row["delta"], json.loads(row["limits"]), params)
        names = tuple(r.name for r in dbrows)
        membership = json.loads(row["membership"]) if row["membership"] else None
        book = PlanBook.from_params(params["plan"], names) if "plan" in params else None
        b = _Budget(row["id"], row["name"], cur, MembershipRule(membership, names, row["neighbors"]),
                    names, {r.name: r.id for r in dbrows}, row["plan"], row["created_at"], book)
        with self._lock:
            self._budgets[name] = b
        return b

    def budgets(self) -> list[BudgetStatus]:
        """Every budget's status (without the planned-in-advance figure), by name."""
        with self._read() as conn:
            names = conn.execute(select(budget_t.c.name).order_by(budget_t.c.name)).scalars().all()
        return [self.status(n, planned=False) for n in names]

    # ------------------------------------------------------------------ charges
    def charge(self, budget: str, *, database: str, mechanism: Any, idempotency_key: str | None = None,
               note: str | None = None, delta: float | None = None) -> ChargeResult:
        """Check and, if the filter admits it, record a charge, atomically.

        Args:
            budget: the budget's name.
            database: the database the mechanisms run on.
            mechanism: an expression (``"laplace(scale=20) x 5"``), a mechanism, or a
                list of mechanisms and ``(mechanism, count)`` pairs.
            idempotency_key: a retried request with the same key returns the original
                result (``replayed=True``) and is charged once; the same key with a
                different request is an error. Refused charges store nothing, so a
                retried refusal is checked again.
            note: free text kept with the record.
            delta: the charge's delta share (``approx`` and ``advanced`` currencies):
                the charge costs the smallest certified epsilon of its mechanisms at
                this delta, and this delta.

        Returns:
            :class:`ChargeResult`; ``admitted=False`` with a ``reason`` when the filter
            refuses (nothing is stored).

        Raises:
            LedgerNotFound: unknown budget or database. LedgerError: bad input,
            including a mechanism the currency cannot express (named field).
        """
        b = self._budget(budget)
        database = _check_name("database", database)
        if database not in b.db_ids:
            raise LedgerNotFound(f"budget {b.name!r} has no database {database!r}; it has "
                                 f"{', '.join(b.databases[:20])}{' ...' if len(b.databases) > 20 else ''}",
                                 field="database")
        key = None if idempotency_key is None else _check_name("idempotency_key", idempotency_key)
        if note is not None and (not isinstance(note, str) or len(note) > 2000):
            raise LedgerError("note must be a string of at most 2000 characters", field="note")
        share = _check_share(delta)
        if b.book is not None and share is not None:
            raise LedgerError("a plan budget does not use a per-charge delta share: its plan was certified at "
                              "the promised delta; leave delta out", field="delta")
        groups, canonical = parse_mechanism(mechanism)
        check_relation(groups, b.rule.neighbors)
        share_text = None if share is None else repr(share)
        request_hash = hashlib.sha256(json.dumps([database, canonical, share_text]).encode()).hexdigest()
        # a filter's cost depends on the request alone; a plan's assignment on the stored totals (below)
        filter_cost = exact.capped(b.currency.cost(groups, share)) if b.book is None else None
        with self._write() as conn:
            locked = _lock_budget(conn, b)
            if key is not None:
                prior = conn.execute(_BY_KEY, {"bid": b.id, "key": key}).mappings().first()
                if prior is not None:
                    if prior["request_hash"] != request_hash:
                        raise LedgerError(
                            f"idempotency_key {key!r} was used for a different request on budget {b.name!r}; "
                            f"use a new key for a new charge", field="idempotency_key")
                    refund = conn.execute(_REFUND_OF, {"cid": prior["id"]}).first()
                    if refund is not None:  # replaying "admitted" would let a refunded mechanism run
                        raise LedgerConflict(
                            f"idempotency_key {key!r} names charge {prior['id']}, which was refunded (entry "
                            f"{refund.id}): its mechanisms must not run. To charge again, use a new key",
                            field="idempotency_key")
                    return ChargeResult(True, None, prior["id"], json.loads(prior["remaining"]), True,
                                        b.name, database, dict(zip(b.currency.components, json.loads(prior["cost"]))))
            totals = self._totals(conn, b)
            i = b.databases.index(database)
            cost, why = (filter_cost, "") if b.book is None else b.book.assign(i, groups, totals[i])
            if cost is None:  # only a plan refuses here (a filter's cost was computed above)
                return ChargeResult(False, self._plan_reason(b, why), None,
                                    b.currency.remaining(self._worst(b, totals)[0]), False, b.name, database)
            cost_dict = dict(zip(b.currency.components, (exact.text(c) for c in cost)))
            after = list(totals)
            after[i] = exact.vec_add(totals[i], cost)
            worst_after, witness = self._worst(b, after)
            if not b.currency.admits(worst_after):
                worst_now, _ = self._worst(b, totals)
                return ChargeResult(False, self._reason(b, worst_now, worst_after, witness, cost_dict),
                                    None, b.currency.remaining(worst_now), False, b.name, database, cost_dict)
            remaining = b.currency.remaining(worst_after)
            spent_eps = b.currency.spent(worst_after)[0]
            seq = locked.seq + 1
            cid = _inserted_id(conn.execute(_INSERT_ENTRY, dict(
                budget_id=b.id, seq=seq, database_id=b.db_ids[database], kind="charge", mechanism=canonical,
                delta_share=share_text, cost=dumps(cost), refund_of=None, idempotency_key=key,
                request_hash=request_hash, note=note, reason=None, remaining=json.dumps(remaining),
                spent_epsilon=_finite(spent_eps), created_at=_now())))
            conn.execute(_SET_TOTALS, {"db_id": b.db_ids[database], "new_totals": dumps(after[i])})
            conn.execute(_SET_CHARGED, {"bid": b.id, "new_seq": seq, "new_count": locked.charge_count + 1})
        return ChargeResult(True, None, cid, remaining, False, b.name, database, cost_dict)

    def _totals(self, conn: Connection, b: _Budget) -> list[tuple[Decimal, ...]]:
        rows = conn.execute(_TOTALS, {"bid": b.id}).scalars().all()
        return [loads(r) for r in rows]

    @staticmethod
    def _worst(b: _Budget, totals: Sequence[Sequence[Decimal]]) -> tuple[tuple[Decimal, ...], list[str]]:
        """The totals the currency judges: the worst-case person's, or a plan's sums over databases."""
        if b.book is None:
            return b.rule.worst(totals)
        return tuple(exact.total(col) for col in zip(*totals)), []

    @staticmethod
    def _plan_reason(b: _Budget, why: str) -> str:
        c = b.currency.params["plan"]["certified"]
        return (f"refused: budget {b.name!r} admits only the charges of its pre-registered plan (certified "
                f"epsilon {c['epsilon']:.6g} at delta {c['delta']:g}); nothing outside the plan is admitted: "
                f"{why}. A charge must be a planned mechanism on its planned database, or one the plan's covers "
                f"(more noise, same kind; docs/ledger.md section 10)")

    def _reason(self, b: _Budget, now: Sequence[Decimal], after: Sequence[Decimal], witness: list[str],
                cost: dict[str, str]) -> str:
        cur = b.currency
        parts = [(c, t, lim) for c, t, lim in zip(cur.components, after, cur.limits) if t > lim]
        if len(parts) == len(cur.components) > 2:  # rdp: every order is over; name the closest
            c, t, lim = min(parts, key=lambda p: p[1] - p[2])
            over = f"every order over its limit (closest: {c} {exact.text(t)} > {exact.text(lim)})"
        else:
            over = "; ".join(f"{c} {exact.text(t)} > limit {exact.text(lim)}" for c, t, lim in parts)
        who = f" (databases {', '.join(witness)})" if witness and len(b.databases) > 1 else ""
        return (f"refused: budget {b.name!r} ({cur.describe()}): with this charge (cost "
                f"{', '.join(f'{k} {v}' for k, v in cost.items())}) the worst-case person{who} would reach "
                f"{over}; remaining epsilon {cur.remaining(now)['epsilon']:.6g}")

    def refund(self, budget: str, charge_id: int, *, reason: str) -> ChargeResult:
        """Refund a charge whose mechanism never ran (a signed, append-only entry).

        Calling this attests that the charge's mechanisms never ran (nothing was
        released): only then is removing its cost sound (docs/ledger.md, "Refunds").
        The refund is a new entry with the negated cost; the charge stays in the
        history, marked refunded.

        Raises:
            LedgerNotFound: unknown budget or charge. LedgerConflict: already refunded
            or a refund entry. LedgerError: missing reason.
        """
        b = self._budget(budget)
        if isinstance(charge_id, bool) or not isinstance(charge_id, int):
            raise LedgerError(f"charge_id = {charge_id!r} must be an integer", field="charge_id")
        if not isinstance(reason, str) or not reason.strip() or len(reason) > 2000:
            raise LedgerError("reason must say why the mechanism never ran (1-2000 characters)", field="reason")
        with self._write() as conn:
            locked = _lock_budget(conn, b)
            row = conn.execute(select(charge_t).where(and_(
                charge_t.c.id == charge_id, charge_t.c.budget_id == b.id))).mappings().first()
            if row is None:
                raise LedgerNotFound(f"budget {b.name!r} has no charge {charge_id}", field="charge_id")
            if row["kind"] != "charge":
                raise LedgerConflict(f"entry {charge_id} is a refund; only charges can be refunded",
                                     field="charge_id")
            done = conn.execute(_REFUND_OF, {"cid": charge_id}).first()
            if done is not None:
                raise LedgerConflict(f"charge {charge_id} was already refunded (entry {done.id})",
                                     field="charge_id")
            cost = loads(row["cost"])
            neg = tuple(-c for c in cost)
            totals = self._totals(conn, b)
            database = next(d for d, i in b.db_ids.items() if i == row["database_id"])
            i = b.databases.index(database)
            after = list(totals)
            after[i] = exact.vec_sub(totals[i], cost)
            worst_after, _ = self._worst(b, after)
            remaining = b.currency.remaining(worst_after)
            seq = locked.seq + 1
            rid = _inserted_id(conn.execute(_INSERT_ENTRY, dict(
                budget_id=b.id, seq=seq, database_id=row["database_id"], kind="refund",
                mechanism=row["mechanism"], delta_share=row["delta_share"], cost=dumps(neg), refund_of=charge_id,
                idempotency_key=None, request_hash=None, note=None, reason=reason, remaining=json.dumps(remaining),
                spent_epsilon=_finite(b.currency.spent(worst_after)[0]), created_at=_now())))
            conn.execute(_SET_TOTALS, {"db_id": row["database_id"], "new_totals": dumps(after[i])})
            conn.execute(_SET_REFUNDED, {"bid": b.id, "new_seq": seq, "new_count": locked.refund_count + 1})
        return ChargeResult(True, None, rid, remaining, False, b.name, database,
                            dict(zip(b.currency.components, (exact.text(c) for c in neg))), kind="refund")

    # ------------------------------------------------------------------ reading
    def status(self, budget: str, *, planned: bool = True, wait: bool = False) -> BudgetStatus:
        """Spent and remaining for the worst-case person, per-database totals, counts.

        Args:
            planned: include the realized sequence's tightest guarantee, labelled "if this
                had been planned in advance" (display only). It can take seconds (hypothesis
                DP over the distinct charges), so by default it is computed in a background
                thread and the latest figure is returned, with ``as_of_seq`` (the entry it
                covers) and ``current`` (whether it covers every entry).
            wait: compute the figure now if it is not current.
        """
        b = self._budget(budget)
        with self._read() as conn:
            row = conn.execute(select(budget_t).where(budget_t.c.id == b.id)).mappings().one()
            totals = self._totals(conn, b)
        cur = b.currency
        worst, witness = self._worst(b, totals)
        spent_eps, spent_delta = cur.spent(worst)
        worst_eps = spent_eps
        return BudgetStatus(
            name=b.name, currency=cur.name, epsilon=cur.epsilon, delta=cur.delta, databases=list(b.databases),
            membership=b.rule.spec, neighbors=b.rule.neighbors,
            orders=list(cur.params["orders"]) if "orders" in cur.params else None, plan=b.plan,
            components=list(cur.components),
            limits=dict(zip(cur.components, (exact.text(x) for x in cur.limits))),
            spent=dict(zip(cur.components, (exact.text(x) for x in worst))),
            remaining=cur.remaining(worst), spent_epsilon=_finite(spent_eps), spent_delta=spent_delta,
            per_database={d: dict(zip(cur.components, (exact.text(x) for x in t))) for d, t in zip(b.databases, totals)},
            worst_case={"databases": witness, "epsilon": _finite(worst_eps)},
            charge_count=row["charge_count"], refund_count=row["refund_count"],
            planned=self._planned_figure(b, row["seq"], wait) if planned else None, created_at=b.created_at,
            plan_progress=b.book.progress(totals) if b.book is not None else None)

    def history(self, budget: str, *, offset: int = 0, limit: int = 100) -> list[ChargeRecord]:
        """A page of the budget's entries in commit order (``limit`` at most 1000)."""
        b = self._budget(budget)
        for field, value, top in (("offset", offset, None), ("limit", limit, _MAX_HISTORY_PAGE)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0 or (top and value > top):
                raise LedgerError(f"{field} = {value!r} must be a whole number >= 0"
                                  f"{f' and <= {top}' if top else ''}", field=field)
        refunds = charge_t.alias("r")
        names = {i: d for d, i in b.db_ids.items()}
        with self._read() as conn:
            rows = conn.execute(
                select(charge_t, refunds.c.id.label("refund_id"))
                .select_from(charge_t.outerjoin(refunds, refunds.c.refund_of == charge_t.c.id))
                .where(charge_t.c.budget_id == b.id).order_by(charge_t.c.seq).offset(offset).limit(limit)
            ).mappings().all()
        comps = b.currency.components
        return [ChargeRecord(
            id=r["id"], seq=r["seq"], budget=b.name, kind=r["kind"], database=names[r["database_id"]],
            mechanism=r["mechanism"], delta=r["delta_share"], cost=dict(zip(comps, json.loads(r["cost"]))),
            refunded=r["refund_id"] is not None, refund_of=r["refund_of"], idempotency_key=r["idempotency_key"],
            note=r["note"], reason=r["reason"], spent_epsilon=r["spent_epsilon"], created_at=r["created_at"])
            for r in rows]

    def _planned_figure(self, b: _Budget, seq: int, wait: bool) -> dict[str, Any]:
        cached = self._planned.get(b.id)
        if cached is not None and cached[0] == seq:
            return {**cached[1], "as_of_seq": seq, "current": True}
        if wait:
            self._compute_planned(b)
            done_seq, figure = self._planned[b.id]
            return {**figure, "as_of_seq": done_seq, "current": done_seq >= seq}
        with self._lock:
            recent = time.monotonic() - self._planned_at.get(b.id, -math.inf) < _PLANNED_MIN_INTERVAL_S
            start = b.id not in self._computing and not recent
            if start:
                self._computing.add(b.id)
        if start:
            threading.Thread(target=self._compute_planned, args=(b, True), daemon=True,
                             name=f"dpcompose-planned-{b.id}").start()
        if cached is None:
            return {"label": PLANNED_LABEL, "delta": b.currency.delta, "epsilon": None, "method": None,
                    "note": "being computed", "as_of_seq": None, "current": False}
        return {**cached[1], "as_of_seq": cached[0], "current": False}

    def _compute_planned(self, b: _Budget, background: bool = False) -> None:
        try:
            refunds = charge_t.alias("r")
            with self._read() as conn:
                seq = conn.execute(select(budget_t.c.seq).where(budget_t.c.id == b.id)).scalar_one()
                rows = conn.execute(
                    select(charge_t.c.database_id, charge_t.c.mechanism, func.count().label("n"))
                    .select_from(charge_t.outerjoin(refunds, refunds.c.refund_of == charge_t.c.id))
                    .where(and_(charge_t.c.budget_id == b.id, charge_t.c.kind == "charge", refunds.c.id.is_(None)))
                    .group_by(charge_t.c.database_id, charge_t.c.mechanism)).all()
            figure = planned_in_advance(b, rows)
            with self._lock:
                old = self._planned.get(b.id)
                if old is None or old[0] <= seq:
                    self._planned[b.id] = (seq, figure)
        except (DPComposeError, SQLAlchemyError):
            if not background:
                raise
            # a background display figure is best effort (e.g. the ledger was closed)
        finally:
            with self._lock:
                self._planned_at[b.id] = time.monotonic()
                if background:
                    self._computing.discard(b.id)

    # ------------------------------------------------------------------ tokens
    def create_token(self, *, admin: bool, budgets: Sequence[str] = ()) -> str:
        """Create a bearer token; the plain token is returned once, only its SHA-256 is stored.

        Args:
            admin: an admin token creates budgets and tokens and reads everything.
            budgets: for an analyst token, the budgets it may charge and read.
        """
        if not isinstance(admin, bool):
            raise LedgerError(f"admin = {admin!r} must be true or false", field="admin")
        if isinstance(budgets, str) or not isinstance(budgets, (list, tuple)):
            raise LedgerError(f"budgets = {budgets!r} must be a list of budget names", field="budgets")
        names = [_check_name("budgets", n) for n in budgets]
        for n in names:
            self._budget(n)
        if not admin and not names:
            raise LedgerError("an analyst token needs at least one budget (or admin=true)", field="budgets")
        token = "dpl_" + secrets.token_urlsafe(32)
        with self._write() as conn:
            conn.execute(insert(token_t).values(token_hash=_hash_token(token), admin=admin,
                                               budgets=json.dumps(names), revoked=False, created_at=_now()))
        return token

    def authorize(self, token: str) -> TokenScope:
        """The scope of a token; raises :class:`Unauthorized` (never echoing the token)."""
        if not isinstance(token, str) or not token or len(token) > 500:
            raise Unauthorized("missing or malformed token", field="token")
        with self._read() as conn:
            row = conn.execute(select(token_t).where(token_t.c.token_hash == _hash_token(token))).mappings().first()
        if row is None or row["revoked"]:
            raise Unauthorized("unknown or revoked token", field="token")
        return TokenScope(row["id"], bool(row["admin"]), tuple(json.loads(row["budgets"])))

    def revoke_token(self, token_id: int) -> None:
        """Revoke a token by its id (``TokenScope.token_id``)."""
        with self._write() as conn:
            n = conn.execute(update(token_t).where(token_t.c.id == token_id).values(revoked=True)).rowcount
        if not n:
            raise LedgerNotFound(f"no token with id {token_id!r}", field="token_id")


def _hash_token(token: str) -> str:
    # tokens carry 256 random bits, so one unsalted SHA-256 is a safe verifier
    return hashlib.sha256(token.encode()).hexdigest()


def planned_in_advance(b: _Budget, rows: Sequence[Any]) -> dict[str, Any]:
    """The realized sequence's tightest (epsilon, delta) via :func:`dpcompose.hdp`, labelled.

    Display only: stopping on this figure is not a valid filter (Tran, Koskela, Räisä and
    Honkela, "f-Differential Privacy Filters: Validity and Approximate Solutions", 2026);
    it shows what a plan fixed in advance would have certified.
    """
    import dpcompose as dpc

    per_db: list[list[tuple[Mechanism, int]]] = [[] for _ in b.databases]
    index = {i: b.databases.index(d) for d, i in b.db_ids.items()}
    for db_id, text_, n in rows:
        groups, _ = parse_mechanism(text_)
        per_db[index[db_id]].extend((m, k * n) for m, k in groups)
    out: dict[str, Any] = {"label": PLANNED_LABEL, "delta": b.currency.delta, "epsilon": 0.0, "method": None}
    if not rows:
        return out
    items, where = hdp_release(per_db)
    if len(items) > _PLANNED_MAX_ITEMS:
        return {**out, "epsilon": None, "note": f"more than {_PLANNED_MAX_ITEMS} distinct charges; not computed"}
    try:
        g = dpc.hdp(items, databases=where, membership=b.rule.dpc_membership(), neighbors=b.rule.neighbors)
        eps = g.epsilon(b.currency.delta)
    except DPComposeError as exc:
        return {**out, "epsilon": None, "note": f"not computed: {exc}"}
    return {**out, "epsilon": eps if math.isfinite(eps) else None, "method": g.method}
