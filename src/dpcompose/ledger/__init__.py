"""dpcompose.ledger: privacy budgets that hold over time and across databases.

A *ledger* keeps budgets in SQLite (a file path) or PostgreSQL (a URL). Each budget
promises every person (epsilon, delta)-DP over an interaction whose next mechanism may
be chosen after seeing earlier results; a charge is admitted only by a filter proven
valid for such adaptively chosen mechanisms (docs/ledger.md), for every person the
budget's membership constraint allows.

Quick use::

    from dpcompose.ledger import Ledger
    led = Ledger("ledger.db"); led.init()
    led.create_budget("census", currency="zcdp", epsilon=1.0, delta=1e-6,
                      databases=["north", "south"], membership={"max_databases": 1})
    led.charge("census", database="north", mechanism="gaussian(sigma=20) x 5")
    led.status("census").remaining

A budget registered with a plan (``plan=`` the TOML of docs/plans.md) is certified once
with :func:`dpcompose.hdp` and then admits exactly the planned charges
(:mod:`dpcompose.ledger.plans`, docs/ledger.md section 10).

Needs the ``ledger`` extra: ``pip install "dpcompose[ledger]"``.
"""

from __future__ import annotations

import importlib
from typing import Any

from .errors import ChargeRefused, LedgerConflict, LedgerError, LedgerNotFound, Unauthorized
from .records import PLANNED_LABEL, BudgetStatus, ChargeRecord, ChargeResult, TokenScope

__all__ = [
    "Ledger",
    "Client",
    "LedgerError",
    "LedgerNotFound",
    "LedgerConflict",
    "ChargeRefused",
    "Unauthorized",
    "BudgetStatus",
    "ChargeResult",
    "ChargeRecord",
    "TokenScope",
    "PLANNED_LABEL",
    "CURRENCIES",
]

_LAZY = {"Ledger": "core", "Client": "client", "CURRENCIES": "currencies"}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'dpcompose.ledger' has no attribute {name!r}")
    try:
        value = getattr(importlib.import_module(f"dpcompose.ledger.{module}"), name)
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.split(".")[0] in ("sqlalchemy", "alembic", "httpx", "psycopg", "fastapi"):
            raise ModuleNotFoundError(
                f"dpcompose.ledger.{name} needs the 'ledger' extra ({exc.name} is missing): "
                f"pip install 'dpcompose[ledger]'", name=exc.name) from None
        raise
    globals()[name] = value
    return value
