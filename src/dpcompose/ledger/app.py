"""The ledger service: one FastAPI application (HTTP API, dashboard, OpenAPI page) and ``serve``.

::

    export DPCOMPOSE_LEDGER_ADMIN_TOKEN=$(python -c "import secrets; print(secrets.token_urlsafe(32))")
    dpcompose ledger serve --db ledger.db --host 127.0.0.1 --port 8765

or in Python::

    from dpcompose.ledger.app import create_app
    app = create_app("ledger.db", admin_token="...")   # any ASGI server can run it

The application keeps no state of its own: every request reads and writes the ledger
store (the core makes check-and-charge atomic), so a crash loses nothing that was
acknowledged and a restart continues where it stopped.

Security: the admin token comes from the environment (never from the command line,
where other users could read it in the process list) and is compared in constant time;
no token, request body or header is written to any log (uvicorn's access log prints the
method, path and status only; query strings are dropped, so a token a client wrongly put
in the URL is not logged either); pages carry a Content-Security-Policy without inline
script, and every asset is bundled so nothing is fetched from the network.
"""

from __future__ import annotations

import ipaddress
import logging
import os
from importlib import resources
from pathlib import Path
from typing import Any, Optional, Union

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from sqlalchemy.exc import DBAPIError
from starlette.exceptions import HTTPException as StarletteHTTPException

from .._version import __version__
from . import Ledger, LedgerError
from .api import ApiError, error_body, ledger_error_response, router

__all__ = ["create_app", "serve", "admin_token_from_env", "ADMIN_TOKEN_ENV", "MIN_TOKEN_LENGTH"]

ADMIN_TOKEN_ENV = "DPCOMPOSE_LEDGER_ADMIN_TOKEN"
MIN_TOKEN_LENGTH = 16
MAX_BODY = 1 << 20  # bytes: every request the API takes is far smaller

log = logging.getLogger("dpcompose.ledger")

_CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
        "frame-ancestors 'none'")
# Swagger UI sets element styles from script, so /docs allows inline style (never inline script)
_CSP_DOCS = _CSP.replace("style-src 'self'", "style-src 'self' 'unsafe-inline'")


def admin_token_from_env(environ: Optional[dict[str, str]] = None) -> str:
    """The admin token from ``DPCOMPOSE_LEDGER_ADMIN_TOKEN``, checked; raises LedgerError."""
    env = os.environ if environ is None else environ
    return _check_admin_token(env.get(ADMIN_TOKEN_ENV))


def _check_admin_token(token: Optional[str]) -> str:
    if not token:
        raise LedgerError(field=ADMIN_TOKEN_ENV, message=(
            f"{ADMIN_TOKEN_ENV} is not set; the server needs an admin token. Set it to a long random "
            f"secret, e.g. export {ADMIN_TOKEN_ENV}=$(python -c \"import secrets; "
            f"print(secrets.token_urlsafe(32))\")."))
    if len(token) < MIN_TOKEN_LENGTH or token != token.strip():
        raise LedgerError(field=ADMIN_TOKEN_ENV, message=(
            f"{ADMIN_TOKEN_ENV} must be at least {MIN_TOKEN_LENGTH} characters without surrounding "
            f"spaces (got {len(token)} characters); use a long random secret such as "
            f"secrets.token_urlsafe(32)."))
    return token


def _static_dir() -> Path:
    return Path(str(resources.files("dpcompose.ledger") / "static"))


def create_app(ledger: Union[Ledger, str], *, admin_token: Optional[str] = None,
               init: bool = False) -> FastAPI:
    """The ledger's ASGI application.

    Args:
        ledger: a :class:`Ledger`, or its database URL or SQLite path.
        admin_token: the admin bearer token; default ``$DPCOMPOSE_LEDGER_ADMIN_TOKEN``.
        init: create or upgrade the schema first (as ``dpcompose ledger init``).

    Raises:
        LedgerError: naming ``DPCOMPOSE_LEDGER_ADMIN_TOKEN`` when no usable token is given.
    """
    token = _check_admin_token(admin_token) if admin_token is not None else admin_token_from_env()
    led = Ledger(ledger) if isinstance(ledger, (str, os.PathLike)) else ledger
    if init:
        led.init()
    app = FastAPI(
        title="dpcompose ledger",
        version=__version__,
        description=("Privacy budgets that hold over time and across databases. Every request needs "
                     "`Authorization: Bearer TOKEN`. A charge is admitted only by a filter valid for "
                     "adaptively chosen mechanisms (see docs/ledger.md)."),
        docs_url=None, redoc_url=None,  # /docs is served from bundled assets below
    )
    app.state.ledger = led
    app.state.admin_token = token
    app.include_router(router)
    app.mount("/static", StaticFiles(directory=_static_dir()), name="static")
    _install_error_handlers(app)
    _install_headers(app)
    _install_docs(app)
    from .dashboard import router as dashboard_router

    app.include_router(dashboard_router)
    return app


def _install_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(LedgerError)
    async def _ledger_error(request: Request, exc: LedgerError) -> JSONResponse:
        return ledger_error_response(exc)

    @app.exception_handler(ApiError)
    async def _api_error(request: Request, exc: ApiError) -> JSONResponse:
        return JSONResponse(error_body(exc.message, exc.field, loc_prefix="header" if exc.status in (401, 403)
                                       else "body"), status_code=exc.status, headers=exc.headers)

    @app.exception_handler(RequestValidationError)
    async def _validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = exc.errors()
        detail = [{"loc": list(e.get("loc", ())), "msg": e.get("msg", ""), "type": e.get("type", "")}
                  for e in errors]
        first = detail[0] if detail else {"loc": [], "msg": "invalid request"}
        loc = [str(x) for x in first["loc"] if x not in ("body", "query", "path", "header")]
        field = ".".join(loc) or None
        message = f"{field}: {first['msg']}" if field else str(first["msg"])
        if first.get("type") == "extra_forbidden":
            message += " (no such field; see /docs for the fields this request takes)"
        return JSONResponse({"field": field, "message": message, "detail": detail}, status_code=422)

    @app.exception_handler(DBAPIError)
    async def _store_error(request: Request, exc: DBAPIError) -> JSONResponse:
        # the store is busy, restarting or unreachable: nothing was acknowledged, so the
        # request may be sent again (a charge with the same idempotency key is charged once)
        if not exc.connection_invalidated and "locked" not in str(exc.orig).lower() \
                and not _is_connection_error(exc):
            raise exc
        log.warning("store unavailable: %s", type(exc.orig).__name__)
        return JSONResponse(error_body("the ledger's store is busy or unavailable; retry shortly with the "
                                       "same idempotency_key (it is charged once)", None),
                            status_code=503, headers={"Retry-After": "1"})

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        return JSONResponse(error_body(str(exc.detail), None, loc_prefix="path"),
                            status_code=exc.status_code, headers=getattr(exc, "headers", None))


def _is_connection_error(exc: DBAPIError) -> bool:
    """PostgreSQL gone (restart, network): psycopg's OperationalError without a SQLSTATE."""
    from sqlalchemy.exc import OperationalError

    return isinstance(exc, OperationalError) and getattr(exc.orig, "sqlstate", "") in (None, "", "57P01",
                                                                                       "57P02", "57P03")


def _install_headers(app: FastAPI) -> None:
    @app.middleware("http")
    async def _security_headers(request: Request, call_next: Any) -> Any:
        length = request.headers.get("content-length", "")
        if length.isdigit() and int(length) > MAX_BODY:
            response = JSONResponse(error_body(f"request body of {length} bytes is over the limit of "
                                               f"{MAX_BODY}", None), status_code=413)
        else:
            response = await call_next(request)
        path = request.url.path
        h = response.headers
        h.setdefault("Content-Security-Policy", _CSP_DOCS if path == "/docs" else _CSP)
        h.setdefault("X-Content-Type-Options", "nosniff")
        h.setdefault("X-Frame-Options", "DENY")
        h.setdefault("Referrer-Policy", "no-referrer")
        if not path.startswith("/static/"):
            h.setdefault("Cache-Control", "no-store")
        return response


def _install_docs(app: FastAPI) -> None:
    @app.get("/docs", include_in_schema=False)
    def _docs() -> HTMLResponse:
        return HTMLResponse(
            "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<title>dpcompose ledger API</title>"
            "<link rel=\"stylesheet\" href=\"/static/swagger-ui/swagger-ui.css\">"
            "<link rel=\"icon\" href=\"/static/swagger-ui/favicon-32x32.png\"></head><body>"
            "<div id=\"swagger-ui\" data-openapi-url=\"/openapi.json\"></div>"
            "<script src=\"/static/swagger-ui/swagger-ui-bundle.js\"></script>"
            "<script src=\"/static/docs.js\"></script></body></html>")


class _NoQueryString(logging.Filter):
    """Drops the query string from uvicorn's access lines: a client that puts a token in the
    URL (refused: tokens travel only in the Authorization header) must not get it logged."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if isinstance(args, tuple) and len(args) == 5 and isinstance(args[2], str) and "?" in args[2]:
            record.args = (args[0], args[1], args[2].split("?", 1)[0] + "?(query not logged)", args[3], args[4])
        return True


def _log_config() -> dict[str, Any]:
    """uvicorn's logging configuration, with the access lines' query strings dropped."""
    import copy

    from uvicorn.config import LOGGING_CONFIG

    cfg = copy.deepcopy(LOGGING_CONFIG)
    cfg.setdefault("filters", {})["no_query_string"] = {"()": f"{__name__}._NoQueryString"}
    cfg["handlers"]["access"]["filters"] = ["no_query_string"]
    return cfg


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def serve(db: str, *, host: str = "127.0.0.1", port: int = 8765, init: bool = True,
          log_level: str = "info") -> None:
    """Run the service with uvicorn until interrupted (``dpcompose ledger serve``).

    One process: the store serializes check-and-charge, and uvicorn's thread pool runs
    requests concurrently. Listening beyond the loopback interface sends tokens in clear
    text unless a TLS proxy sits in front, so it is allowed with a warning.
    """
    import uvicorn

    app = create_app(db, init=init)
    if not _is_loopback(host):
        log.warning("listening on %s, beyond this machine: put a TLS-terminating proxy in front, "
                    "or bearer tokens travel in clear text", host)
    uvicorn.run(app, host=host, port=port, log_level=log_level, access_log=True, log_config=_log_config(),
                server_header=False, proxy_headers=False)
