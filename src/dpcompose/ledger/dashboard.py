"""The ledger's web dashboard at ``/``: server-rendered HTML, charts from bundled Chart.js.

Pages: ``/`` (log in; then every budget the token may read, with remaining epsilon and
charge count, and for an admin the forms to create budgets and analyst tokens) and
``/budgets/{name}`` (the promise, spent and remaining in the currency and as
(epsilon, delta), the worst-case person, per-database spend as bars, epsilon over time as
a line, the labelled "if this had been planned in advance" figure, a charge form and
the history).

Log-in stores the token in an HttpOnly, SameSite=Strict cookie; every form carries a
CSRF field derived from the token (an HMAC), checked on each POST. Every figure in
(epsilon, delta) is rounded toward the safe side for display (spent up, remaining
down), as :func:`dpcompose.report.fmt_upper` / ``fmt_lower`` do; exact currency totals
are shown to six significant digits, rounded the same way.
"""

from __future__ import annotations

import hashlib
import hmac
import math
import uuid
from importlib import resources
from pathlib import Path
from typing import Any, Optional
from urllib.parse import quote

from fastapi import APIRouter, Form, Query, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.templating import Jinja2Templates

from .._version import __version__
from .api import Principal, principal_for_token
from .display import dec, down, membership, num, planned_text, up, used, when
from .errors import LedgerError

__all__ = ["router", "COOKIE", "csrf_token"]

COOKIE = "dpcompose_ledger_token"
CURRENCIES = ("pure", "approx", "advanced", "zcdp", "rdp", "gdp", "plan")
HISTORY_PAGE = 50
CHART_POINTS = 2000  # the epsilon-over-time chart shows at most the latest CHART_POINTS entries

router = APIRouter(include_in_schema=False)


def _templates() -> Jinja2Templates:
    t = Jinja2Templates(directory=str(Path(str(resources.files("dpcompose.ledger") / "templates"))))
    f = t.env.filters
    f.update(up=up, down=down, dec=dec, num=num, used=used, membership=membership, when=when,
             planned_text=planned_text)
    t.env.globals.update(version=__version__, currencies=CURRENCIES)
    return t


templates = _templates()


# ---------------------------------------------------------------------------
# session


def csrf_token(token: str) -> str:
    """The CSRF field for a session: an HMAC of a fixed label under the token."""
    return hmac.new(token.encode("utf-8"), b"dpcompose-ledger-csrf", hashlib.sha256).hexdigest()


def _session(request: Request) -> tuple[Optional[Principal], str]:
    token = request.cookies.get(COOKIE, "")
    p = principal_for_token(request, token) if token else None
    return p, (csrf_token(token) if p else "")


def _render(request: Request, name: str, status: int = 200, **ctx: Any) -> HTMLResponse:
    p, csrf = _session(request)
    ctx.setdefault("principal", p)
    ctx.setdefault("csrf", csrf)
    return templates.TemplateResponse(request, name, ctx, status_code=status)


def _login_page(request: Request, message: str = "", status: int = 200) -> HTMLResponse:
    return templates.TemplateResponse(request, "login.html", {"principal": None, "csrf": "",
                                                              "message": message,
                                                              "message_kind": "error" if message else None},
                                      status_code=status)


def _ledger(request: Request) -> Any:
    return request.app.state.ledger


# ---------------------------------------------------------------------------
# pages


@router.get("/", response_class=HTMLResponse)
def index(request: Request) -> Response:
    p, _ = _session(request)
    if p is None:
        return _login_page(request)
    return _index_page(request, p)


def _index_page(request: Request, p: Principal, status: int = 200, **ctx: Any) -> HTMLResponse:
    budgets = [b for b in _ledger(request).budgets() if p.may_read(b.name)]
    ctx.setdefault("form", {})
    return _render(request, "index.html", status, budgets=budgets, **ctx)


@router.post("/login")
def login(request: Request, token: str = Form("")) -> Response:
    token = token.strip()
    p = principal_for_token(request, token) if token else None
    if p is None:
        return _login_page(request, "Unknown token: check it, or ask an admin for one.", 401)
    resp = RedirectResponse("/", status_code=303)
    resp.set_cookie(COOKIE, token, httponly=True, samesite="strict", path="/",
                    secure=request.url.scheme == "https")
    return resp


@router.post("/logout")
def logout(request: Request, csrf: str = Form("")) -> Response:
    p = _form_session(request, csrf)
    if isinstance(p, Response):
        return p
    resp = RedirectResponse("/", status_code=303)
    resp.delete_cookie(COOKIE, path="/")
    return resp


@router.get("/budgets/{name}", response_class=HTMLResponse)
def budget_page(request: Request, name: str,
                offset: Optional[int] = Query(None, ge=0)) -> Response:
    p, _ = _session(request)
    if p is None:
        return RedirectResponse("/", status_code=303)
    return _budget_page(request, p, name, offset=offset)


def _budget_page(request: Request, p: Principal, name: str, *, offset: Optional[int] = None,
                 status: int = 200, **ctx: Any) -> HTMLResponse:
    if not p.may_read(name):
        return _render(request, "index.html", 403, budgets=[], form={},
                       message=f"This token has no rights to budget {name!r}.", message_kind="error")
    led = _ledger(request)
    try:
        b = led.status(name)
    except LedgerError as exc:
        return _index_page(request, p, exc.status, message=exc.message or str(exc), message_kind="error")
    total = int(b.charge_count) + int(b.refund_count)
    if offset is None:
        offset = max(total - HISTORY_PAGE, 0)
    history = led.history(name, offset=offset, limit=HISTORY_PAGE)
    return _render(request, "budget.html", status, b=b, history=history, offset=offset,
                   limit=HISTORY_PAGE, total=total, chart_data=_chart_data(led, b, total),
                   idempotency_key=f"dashboard-{uuid.uuid4()}", **ctx)


def _chart_data(led: Any, b: Any, total: int) -> dict[str, Any]:
    """What dashboard.js draws: per-database totals and epsilon after each entry."""
    first = b.components[0] if b.components else None
    start = max(total - CHART_POINTS, 0)
    recs: list[Any] = []
    while len(recs) < total - start:
        page = led.history(b.name, offset=start + len(recs), limit=1000)
        if not page:
            break
        recs.extend(page)
    return {
        "budget": b.name,
        "currency": b.currency,
        "component": first,
        "limit": _float_or_none((b.limits or {}).get(first)) if first else None,
        "epsilon": b.epsilon,
        "databases": list(b.databases),
        "per_database": [_float_or_none((b.per_database.get(db) or {}).get(first, "0")) if first else 0.0
                         for db in b.databases],
        "seq": [r.seq for r in recs],
        "spent_epsilon": [r.spent_epsilon if math.isfinite(r.spent_epsilon) else None for r in recs],
    }


def _float_or_none(text: Any) -> Optional[float]:
    try:
        x = float(text)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


# ---------------------------------------------------------------------------
# forms


def _form_session(request: Request, csrf: str) -> Principal | Response:
    """The principal of a logged-in POST with a valid CSRF field, else the response to send."""
    p, expected = _session(request)
    if p is None:
        return _login_page(request, "Log in first.", 401)
    if not hmac.compare_digest(csrf.encode(), expected.encode()):
        return _index_page(request, p, 403, message="The form expired (CSRF check failed); "
                                                    "reload the page and try again.",
                           message_kind="error")
    return p


def _parse_float(field: str, text: str, default: Optional[float] = None) -> float:
    text = text.strip()
    if not text and default is not None:
        return default
    try:
        return float(text)
    except ValueError:
        raise LedgerError(f"{text!r} is not a number; write e.g. 1.0 or 1e-6.", field=field) from None


def _split(text: str) -> list[str]:
    return [s for s in (part.strip() for part in text.replace("\n", ",").split(",")) if s]


@router.post("/budgets")
def create_budget_form(request: Request, csrf: str = Form(""), name: str = Form(""),
                       currency: str = Form(""), epsilon: str = Form(""), delta: str = Form(""),
                       databases: str = Form(""), max_databases: str = Form(""),
                       neighbors: str = Form("unbounded"), orders: str = Form(""), plan: str = Form("")) -> Response:
    p = _form_session(request, csrf)
    if isinstance(p, Response):
        return p
    form = {"name": name, "currency": currency, "epsilon": epsilon, "delta": delta,
            "databases": databases, "max_databases": max_databases, "neighbors": neighbors,
            "orders": orders, "plan": plan}
    if not p.admin:
        return _index_page(request, p, 403, form=form, message="Creating a budget needs an admin token.",
                           message_kind="error")
    try:
        membership = None
        if max_databases.strip():
            if not max_databases.strip().isdigit():
                raise LedgerError(f"{max_databases!r} is not a whole number >= 1.", field="max_databases")
            membership = {"max_databases": int(max_databases)}
        order_list = [_parse_float("orders", o) for o in _split(orders)] or None
        with_plan = bool(plan.strip())
        nb = neighbors.strip() or None
        if with_plan and nb == "unbounded":
            nb = None  # the form's default: the plan's relation (unbounded unless the plan says bounded)
        # with a plan, the databases and the constraint may come from it (equal ones if given)
        _ledger(request).create_budget(
            name.strip(), currency=currency.strip() or None, epsilon=_parse_float("epsilon", epsilon),
            delta=_parse_float("delta", delta, 0.0), databases=_split(databases) or (None if with_plan else []),
            membership=membership, neighbors=nb, orders=order_list, plan=plan if with_plan else None)
    except LedgerError as exc:
        return _index_page(request, p, exc.status, form=form, message_kind="error",
                           message=f"Not created: {exc}")
    return RedirectResponse(f"/budgets/{quote(name.strip(), safe='')}", status_code=303)


@router.post("/tokens")
def create_token_form(request: Request, csrf: str = Form(""), budgets: str = Form("")) -> Response:
    p = _form_session(request, csrf)
    if isinstance(p, Response):
        return p
    if not p.admin:
        return _index_page(request, p, 403, message="Creating a token needs an admin token.",
                           message_kind="error")
    led = _ledger(request)
    names = _split(budgets)
    try:
        if not names:
            raise LedgerError("name at least one budget the token may charge.", field="budgets")
        token = led.create_token(admin=False, budgets=names)
    except LedgerError as exc:
        return _index_page(request, p, exc.status, message=f"No token created: {exc}", message_kind="error")
    return _index_page(request, p, 201, new_token=token,
                       message=f"Analyst token created for {', '.join(names)}.", message_kind="ok")


@router.post("/budgets/{name}/charges")
def charge_form(request: Request, name: str, csrf: str = Form(""), database: str = Form(""),
                mechanism: str = Form(""), delta: str = Form(""), note: str = Form(""),
                idempotency_key: str = Form("")) -> Response:
    p = _form_session(request, csrf)
    if isinstance(p, Response):
        return p
    if not p.may_read(name):
        return _budget_page(request, p, name)
    kwargs: dict[str, Any] = {}
    try:
        if delta.strip():
            kwargs["delta"] = _parse_float("delta", delta)
        res = _ledger(request).charge(name, database=database, mechanism=mechanism,
                                      idempotency_key=idempotency_key or None, note=note or None, **kwargs)
    except LedgerError as exc:
        return _budget_page(request, p, name, status=exc.status, message=f"Not charged: {exc}",
                            message_kind="error")
    if res.admitted:
        msg = (f"Admitted{' (a retry: charged once)' if res.replayed else ''}: {mechanism} on "
               f"{database}. Remaining ε {down(res.remaining.get('epsilon'))}.")
        return _budget_page(request, p, name, status=201, message=msg, message_kind="ok")
    return _budget_page(request, p, name, status=409, message=f"Refused: {res.reason}", message_kind="error")
