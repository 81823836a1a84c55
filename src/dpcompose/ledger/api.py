"""The ledger's HTTP API (``/v1/...``): request models, bearer-token auth, routes, error bodies.

Contract (issue 10; the OpenAPI page at ``/docs`` shows every field):

=======  ======================================  =====================================  ==========
method   path                                    body / query                           who
=======  ======================================  =====================================  ==========
POST     ``/v1/budgets``                         :class:`BudgetIn` -> 201               admin
GET      ``/v1/budgets``                         the budgets the token may read         any token
GET      ``/v1/budgets/{name}``                  spent, remaining, per database         budget
POST     ``/v1/budgets/{name}/charges``          :class:`ChargeIn` -> 201 or 409        budget
GET      ``/v1/budgets/{name}/charges``          ``?offset=&limit=`` history            budget
POST     ``/v1/budgets/{name}/charges/{id}/refund``  :class:`RefundIn` -> 201           admin
POST     ``/v1/tokens``                          :class:`TokenIn` -> 201 (shown once)   admin
GET      ``/v1/whoami``                          the token's scope                      any token
=======  ======================================  =====================================  ==========

Every ``/v1`` request needs ``Authorization: Bearer TOKEN``: 401 without a token or with
an unknown one, 403 for a token without rights to the budget or the action. The admin
token is the one the server was started with (``DPCOMPOSE_LEDGER_ADMIN_TOKEN``); analyst
tokens are created by an admin, scoped to budgets, and stored only as hashes.

Every error body has the same shape, whatever raised it::

    {"field": "epsilon", "message": "epsilon = -1 is outside ...", "detail": [...]}

``field`` names the offending request field (dotted for nested ones, ``null`` where no
single field is at fault); ``detail`` is FastAPI's list of ``{"loc", "msg", "type"}``.
Bad input is 422, an unknown budget or database 404, a refused charge 409 (its body is
the charge result: ``{"admitted": false, "reason", "remaining", ...}``).

Refunds are admin-only: a refund gives budget back, so it must come from someone who can
vouch that the mechanism never ran, not from the analyst who asked for it.
"""

from __future__ import annotations

import hmac
from dataclasses import dataclass
from typing import Any, Optional

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import JSONResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel, ConfigDict, Field

from . import ChargeRefused, LedgerError

__all__ = [
    "BudgetIn",
    "ChargeIn",
    "RefundIn",
    "TokenIn",
    "Principal",
    "ApiError",
    "ErrorOut",
    "router",
    "error_body",
    "ledger_error_response",
    "principal_for_token",
    "NAME_PATTERN",
]

#: budget and database names: they appear in URLs and in the dashboard
NAME_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$"
#: idempotency keys and notes are bounded so a client cannot grow the store without limit
MAX_KEY, MAX_NOTE, MAX_EXPR = 200, 2000, 4000


# ---------------------------------------------------------------------------
# request bodies (extra fields are refused, so a misspelled field is named, not ignored)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False, str_strip_whitespace=True)


class BudgetIn(_Strict):
    """A new budget: a promise of ``(epsilon, delta)`` per person over all its databases."""

    name: str = Field(pattern=NAME_PATTERN, description="Unique name, used in URLs.",
                      examples=["census-2026"])
    currency: Optional[str] = Field(None, description="The filter: pure, approx, advanced, zcdp, rdp or gdp "
                                                     "(docs/ledger.md); with a plan: plan or left out.",
                                    examples=["pure"])
    epsilon: float = Field(ge=0, description="The promised epsilon (finite, >= 0).", examples=[1.0])
    delta: float = Field(0.0, ge=0, lt=1, description="The promised delta, in [0, 1).")
    databases: Optional[list[str]] = Field(None, min_length=1,
                                           description="The databases a charge may run on (with a plan: its "
                                                       "database names, or left out to take them from it).",
                                           examples=[["hospital-a", "hospital-b"]])
    membership: Optional[dict[str, Any]] = Field(
        None, description='Who can be in which databases: {"max_databases": m}, '
                          '{"partition": [[...], ...]} or {"patterns": [[...], ...]}; '
                          "default: a person may be in all of them (with a plan: its [membership]).")
    neighbors: Optional[str] = Field(None, description='"unbounded" (add/remove a person; the default) or '
                                                        '"bounded" (replace one).')
    orders: Optional[list[float]] = Field(None, description="Renyi orders (rdp currency only), "
                                                             "fixed when the budget is created.")
    plan: Optional[str] = Field(None, min_length=1, max_length=1_000_000,
                                description="A pre-registered plan (TOML text, docs/plans.md): the budget "
                                            "then admits exactly the planned charges, and is created only if "
                                            "the whole plan is certified within (epsilon, delta).")


class ChargeIn(_Strict):
    """One charge: a mechanism about to run on one database."""

    database: str = Field(description="The database the mechanism runs on.", examples=["hospital-a"])
    mechanism: str = Field(min_length=1, max_length=MAX_EXPR,
                           description='A mechanism expression, e.g. "laplace(scale=20) x 5" '
                                       "(the syntax of dpcompose.expressions).",
                           examples=["laplace(scale=20) x 5"])
    idempotency_key: Optional[str] = Field(
        None, min_length=1, max_length=MAX_KEY,
        description="Send the same key again to retry safely: the original result is returned "
                    "and the budget is charged once.")
    note: Optional[str] = Field(None, max_length=MAX_NOTE, description="Free text kept with the charge.")
    delta: Optional[float] = Field(None, ge=0, lt=1, description="The charge's delta share (approx and "
                                                               "advanced currencies): the charge costs the "
                                                               "smallest certified epsilon of its mechanism "
                                                               "at this delta, and this delta.")


class RefundIn(_Strict):
    """A refund of a charge whose mechanism never ran."""

    reason: str = Field(min_length=1, max_length=MAX_NOTE, description="Why the mechanism never ran.")


class TokenIn(_Strict):
    """A new token; the plain token is returned once and only its hash is stored."""

    admin: bool = Field(False, description="An admin token may do everything.")
    budgets: list[str] = Field(default_factory=list, description="The budgets an analyst token may "
                                                                 "read and charge.")


# ---------------------------------------------------------------------------
# errors


class ApiError(Exception):
    """An HTTP error with the uniform body (``field``, ``message``, ``detail``)."""

    def __init__(self, status: int, message: str, *, field: Optional[str] = None,
                 headers: Optional[dict[str, str]] = None) -> None:
        super().__init__(message)
        self.status, self.message, self.field, self.headers = status, message, field, headers


def error_body(message: str, field: Optional[str], *, loc_prefix: str = "body",
               kind: str = "value_error") -> dict[str, Any]:
    """The uniform error body."""
    loc = [loc_prefix] + (field.split(".") if field else [])
    return {"field": field, "message": message, "detail": [{"loc": loc, "msg": message, "type": kind}]}


def ledger_error_response(exc: LedgerError) -> JSONResponse:
    """Map a :class:`LedgerError` raised by the core to the uniform JSON error.

    The core's error classes carry their status: 422 bad input, 404 unknown budget,
    database or charge, 409 conflict or refused charge, 401 unknown token.
    """
    body = error_body(exc.message or str(exc), exc.field)
    body["error"] = type(exc).__name__
    if isinstance(exc, ChargeRefused):  # the charge result: admitted, reason, remaining
        body.update(exc.result.to_dict())
    headers = {"WWW-Authenticate": "Bearer"} if exc.status == 401 else None
    return JSONResponse(body, status_code=exc.status, headers=headers)


# ---------------------------------------------------------------------------
# authentication and authorization

_bearer = HTTPBearer(auto_error=False, description="An admin or analyst token: "
                                                   "Authorization: Bearer TOKEN.")


@dataclass(frozen=True)
class Principal:
    """Who is calling: the admin, or an analyst scoped to some budgets."""

    admin: bool
    budgets: frozenset[str]

    def may_read(self, budget: str) -> bool:
        return self.admin or budget in self.budgets

    def to_dict(self) -> dict[str, Any]:
        return {"admin": self.admin, "budgets": sorted(self.budgets)}


def principal_for_token(request: Request, token: Optional[str]) -> Optional[Principal]:
    """The principal a plain token stands for, or None if it is not a valid token.

    The admin token is compared in constant time; other tokens are looked up by hash in
    the ledger (:meth:`Ledger.authorize`). Tokens are never logged.
    """
    if not token:
        return None
    admin_token: str = request.app.state.admin_token
    if hmac.compare_digest(token.encode("utf-8"), admin_token.encode("utf-8")):
        return Principal(admin=True, budgets=frozenset())
    try:
        scope = request.app.state.ledger.authorize(token)
    except LedgerError:
        return None
    return Principal(admin=bool(getattr(scope, "admin", False)),
                     budgets=frozenset(getattr(scope, "budgets", ()) or ()))


def _unauthorized(message: str) -> ApiError:
    return ApiError(401, message, field="Authorization", headers={"WWW-Authenticate": "Bearer"})


def require_principal(request: Request,
                      cred: Optional[HTTPAuthorizationCredentials] = Depends(_bearer)) -> Principal:
    """FastAPI dependency: the caller, or 401."""
    if cred is None or cred.scheme.lower() != "bearer" or not cred.credentials:
        raise _unauthorized("missing bearer token: send the header 'Authorization: Bearer TOKEN' "
                            "(the admin token the server was started with, or an analyst token).")
    p = principal_for_token(request, cred.credentials)
    if p is None:
        raise _unauthorized("unknown token: check the token, or ask an admin for one "
                            "(POST /v1/tokens).")
    return p


def require_admin(p: Principal = Depends(require_principal)) -> Principal:
    """FastAPI dependency: the caller must be an admin, else 403."""
    if not p.admin:
        raise ApiError(403, "this action needs an admin token; analyst tokens may only read and "
                            "charge the budgets they are scoped to.", field="Authorization")
    return p


def check_budget_access(p: Principal, budget: str) -> None:
    """403 unless the principal may read and charge ``budget``."""
    if not p.may_read(budget):
        raise ApiError(403, f"this token has no rights to budget {budget!r}; ask an admin for a "
                            f"token scoped to it.", field="Authorization")


# ---------------------------------------------------------------------------
# routes (plain ``def``: the ledger is synchronous, so FastAPI runs them in its thread pool)

class ErrorOut(BaseModel):
    """Every error: the field at fault (or null), a message with the remedy, FastAPI's detail list."""

    field: Optional[str] = None
    message: str
    detail: list[dict[str, Any]] = []


_ERRORS: dict[int | str, dict[str, Any]] = {
    401: {"model": ErrorOut, "description": "No token, or an unknown one."},
    403: {"model": ErrorOut, "description": "The token has no rights to this budget or action."},
    404: {"model": ErrorOut, "description": "Unknown budget, database or charge."},
    422: {"model": ErrorOut, "description": "Bad input; `field` names it."},
}

router = APIRouter(prefix="/v1", tags=["ledger"], responses=_ERRORS)


def _ledger(request: Request) -> Any:
    return request.app.state.ledger


@router.post("/budgets", status_code=201, summary="Create a budget (admin)")
def create_budget(body: BudgetIn, request: Request, _: Principal = Depends(require_admin)) -> dict[str, Any]:
    st = _ledger(request).create_budget(
        body.name, currency=body.currency, epsilon=body.epsilon, delta=body.delta,
        databases=body.databases, membership=body.membership, neighbors=body.neighbors,
        orders=body.orders, plan=body.plan)
    return st.to_dict()


@router.get("/budgets", summary="The budgets this token may read")
def list_budgets(request: Request, p: Principal = Depends(require_principal)) -> dict[str, Any]:
    rows = [b.to_dict() for b in _ledger(request).budgets()]
    return {"budgets": [b for b in rows if p.may_read(b["name"])]}


@router.get("/budgets/{name}", summary="Spent and remaining, per database and in total")
def budget_status(name: str, request: Request, p: Principal = Depends(require_principal),
                  planned: bool = Query(True, description="Also compute the realized sequence's tightest "
                                                          "figure, labelled 'if this had been planned in "
                                                          "advance' (display only; false for cheap polling)."),
                  wait: bool = Query(False, description="Compute that figure now if it is not current "
                                                        "(can take seconds); by default the latest one is "
                                                        "returned with as_of_seq and current.")
                  ) -> dict[str, Any]:
    check_budget_access(p, name)
    return _ledger(request).status(name, planned=planned, wait=wait).to_dict()


@router.post("/budgets/{name}/charges", status_code=201,
             summary="Charge a mechanism before it runs: 201 if admitted, 409 if refused",
             responses={409: {"description": "Refused: the budget would be exceeded; the body "
                                             "says why and what remains."}})
def charge(name: str, body: ChargeIn, request: Request,
           p: Principal = Depends(require_principal)) -> Any:
    check_budget_access(p, name)
    res = _ledger(request).charge(name, database=body.database, mechanism=body.mechanism,
                                  idempotency_key=body.idempotency_key, note=body.note, delta=body.delta)
    d = res.to_dict()
    if not d.get("admitted"):
        return JSONResponse(d, status_code=409)
    return JSONResponse(d, status_code=201)


@router.get("/budgets/{name}/charges", summary="The charge history, oldest first, paginated")
def history(name: str, request: Request, p: Principal = Depends(require_principal),
            offset: int = Query(0, ge=0, description="Skip this many records."),
            limit: int = Query(100, ge=1, le=1000, description="At most this many records.")) -> dict[str, Any]:
    check_budget_access(p, name)
    recs = _ledger(request).history(name, offset=offset, limit=limit)
    return {"offset": offset, "limit": limit, "charges": [r.to_dict() for r in recs]}


@router.post("/budgets/{name}/charges/{charge_id}/refund", status_code=201,
             summary="Refund a charge whose mechanism never ran (admin)")
def refund(name: str, charge_id: str, body: RefundIn, request: Request,
           _: Principal = Depends(require_admin)) -> dict[str, Any]:
    return _ledger(request).refund(name, _charge_id(charge_id), reason=body.reason).to_dict()


def _charge_id(text: str) -> Any:
    """Charge ids travel as text in URLs; the core's are integers where they look like one."""
    return int(text) if text.isdigit() else text


@router.post("/tokens", status_code=201, summary="Create a token (admin); shown once")
def create_token(body: TokenIn, request: Request, _: Principal = Depends(require_admin)) -> dict[str, Any]:
    # an unknown budget is a 404 naming it (the core checks before it stores anything)
    token = _ledger(request).create_token(admin=body.admin, budgets=list(body.budgets))
    return {"token": token, "admin": body.admin, "budgets": list(body.budgets)}


@router.get("/whoami", summary="The scope of this token")
def whoami(p: Principal = Depends(require_principal)) -> dict[str, Any]:
    return p.to_dict()
