"""A Python client for the ledger service, for analysts' scripts and notebooks.

::

    from dpcompose.ledger import Client

    with Client("http://127.0.0.1:8765", token="...") as c:     # or $DPCOMPOSE_LEDGER_TOKEN
        r = c.charge("census-2026", database="hospital-a", mechanism="laplace(scale=20) x 5")
        if r.admitted:
            ...  # run the mechanism now
        else:
            print("refused:", r.reason)
        c.status("census-2026").remaining

The methods mirror :class:`~dpcompose.ledger.Ledger`: the same names, keywords and
return types (:class:`ChargeResult`, :class:`BudgetStatus`, :class:`ChargeRecord`), so a
script can switch between a local ledger file and a service. A refused charge is a
result with ``admitted=False``, not an exception; bad input, an unknown budget and missing rights
raise :class:`LedgerHTTPError` (a :class:`~dpcompose.ledger.LedgerError`) naming the
field and carrying the HTTP status.

Retries are safe: every charge carries an idempotency key (a random one unless you give
yours), and a charge whose answer was lost (the connection dropped, the server
restarted) is sent again with the same key, so the service charges it once and answers
with the original result.
"""

from __future__ import annotations

import dataclasses
import os
import time
import uuid
from pathlib import Path
from typing import Any, Iterable, Optional, TypeVar

import httpx

from .errors import LedgerError
from .records import BudgetStatus, ChargeRecord, ChargeResult

__all__ = ["Client", "LedgerHTTPError", "TOKEN_ENV", "URL_ENV"]

TOKEN_ENV = "DPCOMPOSE_LEDGER_TOKEN"
URL_ENV = "DPCOMPOSE_LEDGER_URL"


class LedgerHTTPError(LedgerError):
    """The service answered with an error (4xx or 5xx).

    Attributes:
        status: the HTTP status code.
        field: the request field at fault, as the service named it (or None).
        body: the decoded JSON body (or ``{"message": text}``).
    """

    def __init__(self, status: int, body: dict[str, Any]) -> None:
        self.status = status
        self.body = body
        message = str(body.get("message") or body.get("detail") or f"HTTP {status}")
        super().__init__(f"HTTP {status}: {message}", field=body.get("field"))


class Client:
    """An HTTP client for one ledger service.

    Args:
        url: the service's base URL (default ``$DPCOMPOSE_LEDGER_URL``).
        token: a bearer token (default ``$DPCOMPOSE_LEDGER_TOKEN``).
        timeout: seconds per request.
        retries: how many times a request whose answer was lost is sent again (charges
            always with their idempotency key, so they are charged once).
        backoff: seconds before the first retry; doubles each time, up to ``max_backoff``.
        transport: an ``httpx`` transport (tests pass the application's ASGI/WSGI one).
    """

    def __init__(self, url: Optional[str] = None, token: Optional[str] = None, *,
                 timeout: float = 30.0, retries: int = 5, backoff: float = 0.2, max_backoff: float = 5.0,
                 transport: Optional[httpx.BaseTransport] = None) -> None:
        url = url or os.environ.get(URL_ENV)
        token = token or os.environ.get(TOKEN_ENV)
        if not url:
            raise LedgerError(f"no service URL: pass url='http://127.0.0.1:8765' or set {URL_ENV}.",
                              field="url")
        if not token:
            raise LedgerError(f"no token: pass token=... or set {TOKEN_ENV} (an admin creates analyst "
                              f"tokens with POST /v1/tokens or `dpcompose ledger token create`).",
                              field="token")
        if retries < 0:
            raise LedgerError(f"retries = {retries} must be >= 0.", field="retries")
        self.url = url.rstrip("/")
        self.retries = retries
        self.backoff = backoff
        self.max_backoff = max_backoff
        self._http = httpx.Client(base_url=self.url, timeout=timeout, transport=transport,
                                  headers={"Authorization": f"Bearer {token}"})

    def __repr__(self) -> str:  # never show the token
        return f"Client({self.url!r})"

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # -- transport -------------------------------------------------------------------

    def _request(self, method: str, path: str, *, json: Any = None, params: Any = None,
                 ok: Iterable[int] = (200, 201), idempotent: bool = True) -> dict[str, Any]:
        """Send one request; retry while no answer arrives (only when that is safe)."""
        delay = self.backoff
        for attempt in range(self.retries + 1):
            try:
                resp = self._http.request(method, path, json=json, params=params)
            except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
                # nothing reached the server: always safe to send again
                if attempt == self.retries:
                    raise self._unreachable(exc) from exc
            except httpx.TransportError as exc:
                # the request may have been processed; only idempotent ones are repeated
                if not idempotent or attempt == self.retries:
                    raise self._unreachable(exc) from exc
            else:
                if resp.status_code == 503 and attempt < self.retries:
                    pass  # the store is busy or restarting: retry
                else:
                    return self._decode(resp, ok)
            time.sleep(delay)
            delay = min(delay * 2, self.max_backoff)
        raise AssertionError("unreachable")  # pragma: no cover

    def _unreachable(self, exc: httpx.TransportError) -> LedgerError:
        return LedgerError(f"no answer from the ledger service at {self.url} after {self.retries + 1} "
                           f"attempt(s) ({type(exc).__name__}: {exc}); check the URL and that "
                           f"`dpcompose ledger serve` is running", field="url")

    @staticmethod
    def _decode(resp: httpx.Response, ok: Iterable[int]) -> dict[str, Any]:
        try:
            body = resp.json()
        except ValueError:
            body = {"message": resp.text[:500]}
        if resp.status_code in tuple(ok):
            return body
        raise LedgerHTTPError(resp.status_code, body if isinstance(body, dict) else {"message": str(body)})

    # -- the Ledger API ---------------------------------------------------------------

    def create_budget(self, name: str, *, currency: Optional[str] = None, epsilon: float, delta: float = 0.0,
                      databases: Optional[list[str]] = None, membership: Optional[dict[str, Any]] = None,
                      neighbors: Optional[str] = None, orders: Optional[list[float]] = None,
                      plan: Any = None) -> BudgetStatus:
        """Create a budget (admin token); returns its status.

        ``plan``: a pre-registered plan, its TOML text or a :class:`pathlib.Path` to it
        (read here and sent as text); see :meth:`Ledger.create_budget`.
        """
        if isinstance(plan, os.PathLike):
            try:
                plan = Path(plan).read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                raise LedgerError(f"cannot read the plan file {os.fspath(plan)!r}: {exc}", field="plan") from None
        body = {"name": name, "currency": currency, "epsilon": epsilon, "delta": delta,
                "databases": None if databases is None else list(databases), "membership": membership,
                "neighbors": neighbors, "orders": orders, "plan": plan}
        return _build(BudgetStatus, self._request("POST", "/v1/budgets", json=body, idempotent=False))

    def charge(self, budget: str, *, database: str, mechanism: str,
               idempotency_key: Optional[str] = None, note: Optional[str] = None,
               delta: Optional[float] = None) -> ChargeResult:
        """Ask to charge a mechanism before running it; ``result.admitted`` says whether to run it.

        A refused charge returns a result with ``admitted=False``, ``reason`` and
        ``remaining``. ``delta``: the charge's delta share (approx and advanced currencies).
        """
        key = idempotency_key or f"client-{uuid.uuid4()}"
        body: dict[str, Any] = {"database": database, "mechanism": mechanism, "idempotency_key": key,
                                "note": note}
        if delta is not None:
            body["delta"] = delta
        answer = self._request("POST", f"/v1/budgets/{_seg(budget)}/charges", json=body, ok=(201, 409))
        if "admitted" not in answer:  # a 409 that is not a refusal (e.g. a refunded charge's key)
            raise LedgerHTTPError(409, answer)
        return _build(ChargeResult, answer)

    def refund(self, budget: str, charge_id: Any, *, reason: str) -> ChargeResult:
        """Refund a charge whose mechanism never ran (admin token)."""
        return _build(ChargeResult, self._request("POST", f"/v1/budgets/{_seg(budget)}/charges/{_seg(str(charge_id))}/refund",
                             json={"reason": reason}, idempotent=False))

    def status(self, budget: str, *, planned: bool = True, wait: bool = False) -> BudgetStatus:
        """Spent and remaining, per database and in total (``planned``, ``wait``: as :meth:`Ledger.status`)."""
        params = {"planned": "true" if planned else "false", "wait": "true" if wait else "false"}
        return _build(BudgetStatus, self._request("GET", f"/v1/budgets/{_seg(budget)}", params=params))

    def history(self, budget: str, *, offset: int = 0, limit: int = 100) -> list[ChargeRecord]:
        """Charge records, oldest first."""
        body = self._request("GET", f"/v1/budgets/{_seg(budget)}/charges",
                             params={"offset": offset, "limit": limit})
        return [_build(ChargeRecord, r) for r in body["charges"]]

    def budgets(self) -> list[BudgetStatus]:
        """The budgets this token may read."""
        return [_build(BudgetStatus, b) for b in self._request("GET", "/v1/budgets")["budgets"]]

    def create_token(self, *, admin: bool = False, budgets: Iterable[str] = ()) -> str:
        """A new token (admin token needed); the plain token is returned once."""
        return str(self._request("POST", "/v1/tokens", json={"admin": admin, "budgets": list(budgets)},
                                 idempotent=False)["token"])

    def whoami(self) -> dict[str, Any]:
        """This token's scope: ``{"admin": bool, "budgets": [...]}``."""
        return self._request("GET", "/v1/whoami")


_T = TypeVar("_T")


def _build(cls: type[_T], data: dict[str, Any]) -> _T:
    """A record from the service's JSON; fields a newer server adds are ignored."""
    names = {f.name for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    return cls(**{k: v for k, v in data.items() if k in names})


def _seg(text: str) -> str:
    """One URL path segment, percent-encoded."""
    from urllib.parse import quote

    return quote(text, safe="")
