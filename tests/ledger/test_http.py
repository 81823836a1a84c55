"""The HTTP contract of issue 10, in-process on SQLite: status codes, bodies, auth, bad input.

Expected figures are closed forms (pure DP: costs add; "at most m databases per person":
the sum of the m largest per-database totals), never numbers the service produced
earlier. Every bad request is checked to store nothing.
"""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from dpcompose.ledger.api import NAME_PATTERN  # noqa: F401  (the module imports)


def _budget(name: str = "b1", **kw):
    body = {"name": name, "currency": "pure", "epsilon": 1.0, "delta": 0.0, "databases": ["a", "b"]}
    body.update(kw)
    return body


def _exact(d: dict) -> Fraction:
    """The single component of a pure-currency amount, exactly."""
    (v,) = d.values()
    return Fraction(v)


@pytest.fixture
def c(app_client):
    r = app_client.post("/v1/budgets", json=_budget(), headers=app_client.admin)
    assert r.status_code == 201, r.text
    return app_client


def _charge(c, mech: str, db: str = "a", key: str | None = None, budget: str = "b1", headers=None):
    body = {"database": db, "mechanism": mech}
    if key is not None:
        body["idempotency_key"] = key
    return c.post(f"/v1/budgets/{budget}/charges", json=body, headers=headers or c.admin)


def _state(c, budget: str = "b1"):
    st = c.get(f"/v1/budgets/{budget}", headers=c.admin).json()
    hist = c.get(f"/v1/budgets/{budget}/charges", headers=c.admin).json()["charges"]
    return st["charge_count"], st["spent"], len(hist)


# ---------------------------------------------------------------------------
# budgets and charges


def test_create_budget_returns_201_and_status(app_client):
    r = app_client.post("/v1/budgets", json=_budget(membership={"max_databases": 1}), headers=app_client.admin)
    assert r.status_code == 201, r.text
    body = r.json()
    assert body["name"] == "b1" and body["currency"] == "pure" and body["databases"] == ["a", "b"]
    assert body["charge_count"] == 0
    assert Fraction(body["limits"]["epsilon"]) <= 1  # the limit is rounded down, never up
    again = app_client.post("/v1/budgets", json=_budget(), headers=app_client.admin)
    assert again.status_code == 409 and again.json()["field"] == "name"


def test_charges_admitted_until_the_budget_is_spent(c):
    r1, r2 = _charge(c, "pure(0.4)"), _charge(c, "pure(0.4)")
    assert r1.status_code == r2.status_code == 201
    assert r1.json()["admitted"] is True and r1.json()["charge_id"] is not None
    r3 = _charge(c, "pure(0.4)")  # 1.2 > 1
    assert r3.status_code == 409, r3.text
    body = r3.json()
    assert body["admitted"] is False and body["reason"] and "remaining" in body
    st = c.get("/v1/budgets/b1", headers=c.admin).json()
    assert st["charge_count"] == 2
    costs = [Fraction(v) for h in c.get("/v1/budgets/b1/charges", headers=c.admin).json()["charges"]
             for v in h["cost"].values()]
    assert _exact(st["spent"]) == sum(costs)  # exact totals
    # a typed parameter counts as the decimal written (exact.param), a computed cost is rounded up
    assert Fraction("0.8") <= _exact(st["spent"]) <= Fraction(1)
    assert st["spent_epsilon"] >= 0.8 and st["remaining"]["epsilon"] <= 0.2 + 1e-12


def test_membership_at_most_m_databases_over_http(app_client):
    """a person in at most 1 of 2 databases: 0.6 on each fits under epsilon 1; with m = 2 it does not."""
    h = app_client.admin
    app_client.post("/v1/budgets", json=_budget("m1", membership={"max_databases": 1}), headers=h)
    app_client.post("/v1/budgets", json=_budget("m2", membership={"max_databases": 2}), headers=h)
    assert _charge(app_client, "pure(0.6)", "a", budget="m1").status_code == 201
    assert _charge(app_client, "pure(0.6)", "b", budget="m1").status_code == 201
    assert _charge(app_client, "pure(0.6)", "a", budget="m2").status_code == 201
    assert _charge(app_client, "pure(0.6)", "b", budget="m2").status_code == 409
    st = app_client.get("/v1/budgets/m1", headers=h).json()
    per_db = {d: _exact(t) for d, t in st["per_database"].items()}
    assert _exact(st["spent"]) == max(per_db.values())  # the worst-case person is in one database


def test_history_is_paginated_oldest_first(c):
    for i in range(5):
        assert _charge(c, "pure(0.1)", key=f"k{i}").status_code == 201
    page = c.get("/v1/budgets/b1/charges?offset=1&limit=2", headers=c.admin).json()
    assert [r["seq"] for r in page["charges"]] == [2, 3]
    assert [r["idempotency_key"] for r in page["charges"]] == ["k1", "k2"]
    assert c.get("/v1/budgets/b1/charges?limit=0", headers=c.admin).json()["field"] == "limit"


def test_idempotency_key_charges_once(c):
    r1 = _charge(c, "pure(0.3)", key="retry-1")
    r2 = _charge(c, "pure(0.3)", key="retry-1")
    assert r1.status_code == r2.status_code == 201
    assert r1.json()["charge_id"] == r2.json()["charge_id"]
    assert r1.json()["replayed"] is False and r2.json()["replayed"] is True
    count, spent, n = _state(c)
    assert count == 1 and n == 1
    # the same key with a different request is bad input, not a silent replay
    r3 = _charge(c, "pure(0.2)", key="retry-1")
    assert r3.status_code == 422 and r3.json()["field"] == "idempotency_key"
    assert _state(c) == (count, spent, n)


def test_refund_is_admin_only_and_gives_the_budget_back(c):
    token = c.post("/v1/tokens", json={"budgets": ["b1"]}, headers=c.admin).json()["token"]
    analyst = {"Authorization": f"Bearer {token}"}
    cid = _charge(c, "pure(0.5)", headers=analyst).json()["charge_id"]
    body = {"reason": "the query failed before it ran"}
    assert c.post(f"/v1/budgets/b1/charges/{cid}/refund", json=body, headers=analyst).status_code == 403
    r = c.post(f"/v1/budgets/b1/charges/{cid}/refund", json=body, headers=c.admin)
    assert r.status_code == 201, r.text
    st = c.get("/v1/budgets/b1", headers=c.admin).json()
    assert _exact(st["spent"]) == 0 and st["refund_count"] == 1
    kinds = [h["kind"] for h in c.get("/v1/budgets/b1/charges", headers=c.admin).json()["charges"]]
    assert kinds == ["charge", "refund"]
    assert c.post(f"/v1/budgets/b1/charges/{cid}/refund", json=body, headers=c.admin).status_code == 409


def test_a_refunded_charge_key_is_a_conflict_not_an_admission(c):
    first = _charge(c, "pure(0.5)", key="job-1").json()
    c.post(f"/v1/budgets/b1/charges/{first['charge_id']}/refund", json={"reason": "never ran"}, headers=c.admin)
    again = _charge(c, "pure(0.5)", key="job-1")
    assert again.status_code == 409 and again.json()["field"] == "idempotency_key"
    assert "admitted" not in again.json() and "refunded" in again.json()["message"]
    assert _state(c)[0] == 1 and _exact(_state(c)[1]) == 0


def test_client_raises_on_a_409_that_is_not_a_refusal():
    """The client decodes a 409 as a refused charge only when it is one (it has "admitted")."""
    import httpx

    from dpcompose.ledger import LedgerError
    from dpcompose.ledger.client import Client

    body = {"field": "idempotency_key", "message": "charge 3 was refunded", "detail": []}
    transport = httpx.MockTransport(lambda request: httpx.Response(409, json=body))
    with Client("http://ledger.test", "t" * 20, transport=transport, retries=0) as client:
        with pytest.raises(LedgerError) as err:
            client.charge("b1", database="a", mechanism="pure(0.5)", idempotency_key="job-1")
    assert err.value.status == 409 and err.value.field == "idempotency_key"


# ---------------------------------------------------------------------------
# authentication and authorization


def test_every_api_request_needs_a_token(c):
    for method, path, body in [("get", "/v1/budgets", None), ("get", "/v1/budgets/b1", None),
                               ("post", "/v1/budgets", _budget("x")),
                               ("post", "/v1/budgets/b1/charges", {"database": "a", "mechanism": "pure(0.1)"}),
                               ("get", "/v1/budgets/b1/charges", None), ("post", "/v1/tokens", {})]:
        for headers in ({}, {"Authorization": "Bearer wrong-token-0123456789"}, {"Authorization": "Basic abc"}):
            r = c.request(method.upper(), path, json=body, headers=headers)
            assert r.status_code == 401, (method, path, headers, r.text)
            assert r.headers["www-authenticate"] == "Bearer"
            assert r.json()["field"] == "Authorization"
    assert _state(c)[0] == 0 and [b["name"] for b in c.get("/v1/budgets", headers=c.admin).json()["budgets"]] == ["b1"]


def test_analyst_tokens_are_scoped_to_their_budgets(c):
    c.post("/v1/budgets", json=_budget("b2"), headers=c.admin)
    r = c.post("/v1/tokens", json={"budgets": ["b1"]}, headers=c.admin)
    assert r.status_code == 201
    analyst = {"Authorization": f"Bearer {r.json()['token']}"}
    assert c.get("/v1/whoami", headers=analyst).json() == {"admin": False, "budgets": ["b1"]}
    assert _charge(c, "pure(0.1)", headers=analyst).status_code == 201
    assert [b["name"] for b in c.get("/v1/budgets", headers=analyst).json()["budgets"]] == ["b1"]
    # another budget: 403, nothing charged
    assert _charge(c, "pure(0.1)", budget="b2", headers=analyst).status_code == 403
    assert c.get("/v1/budgets/b2", headers=analyst).status_code == 403
    assert c.get("/v1/budgets/b2/charges", headers=analyst).status_code == 403
    assert _state(c, "b2")[0] == 0
    # admin actions: 403
    assert c.post("/v1/budgets", json=_budget("b3"), headers=analyst).status_code == 403
    assert c.post("/v1/tokens", json={"budgets": ["b2"]}, headers=analyst).status_code == 403
    assert [b["name"] for b in c.get("/v1/budgets", headers=c.admin).json()["budgets"]] == ["b1", "b2"]


def test_token_for_an_unknown_budget_is_refused(c):
    r = c.post("/v1/tokens", json={"budgets": ["nope"]}, headers=c.admin)
    assert r.status_code == 404 and "nope" in r.json()["message"]


# ---------------------------------------------------------------------------
# bad input: 4xx naming the field, nothing stored


@pytest.mark.parametrize("change, field", [
    ({"currency": "bitcoin"}, "currency"),
    ({"epsilon": -1.0}, "epsilon"),
    ({"epsilon": "nan"}, "epsilon"),
    ({"epsilon": "inf"}, "epsilon"),
    ({"delta": 1.5}, "delta"),
    ({"delta": -1e-9}, "delta"),
    ({"databases": []}, "databases"),
    ({"name": "../etc"}, "name"),
    ({"neighbors": "sideways"}, "neighbors"),
    ({"membership": {"max_databases": 0}}, "membership"),
    ({"epsilion": 1.0}, "epsilion"),
])
def test_bad_budget_is_422_naming_the_field(app_client, change, field):
    body = {**_budget("bad"), **change}
    r = app_client.post("/v1/budgets", json=body, headers=app_client.admin)
    assert r.status_code == 422, r.text
    body = r.json()
    assert body["field"] is not None and body["field"].split(".")[0] == field, body
    assert body["message"]
    assert app_client.get("/v1/budgets", headers=app_client.admin).json()["budgets"] == []


def test_nan_literal_in_json_is_422(app_client):
    raw = json.dumps(_budget("bad")).replace("1.0", "NaN")
    r = app_client.post("/v1/budgets", content=raw, headers={**app_client.admin, "Content-Type": "application/json"})
    assert r.status_code == 422 and r.json()["field"] == "epsilon"
    assert app_client.get("/v1/budgets", headers=app_client.admin).json()["budgets"] == []


@pytest.mark.parametrize("body, status, field", [
    ({"database": "zzz", "mechanism": "pure(0.1)"}, 404, "database"),
    ({"database": "a", "mechanism": "gaussian(sigma=2)"}, 422, "mechanism"),  # pure cannot express it
    ({"database": "a", "mechanism": "laplace(scale=-1)"}, 422, "mechanism"),
    ({"database": "a", "mechanism": "no such thing"}, 422, "mechanism"),
    ({"database": "a", "mechanism": ""}, 422, "mechanism"),
    ({"database": "a"}, 422, "mechanism"),
    ({"database": "a", "mechanism": "pure(0.1)", "idempotency_key": "k" * 500}, 422, "idempotency_key"),
    ({"database": "a", "mechanism": "pure(0.1)", "budget_override": 5}, 422, "budget_override"),
])
def test_bad_charge_is_4xx_naming_the_field(c, body, status, field):
    before = _state(c)
    r = c.post("/v1/budgets/b1/charges", json=body, headers=c.admin)
    assert r.status_code == status, r.text
    assert r.json()["field"] == field, r.json()
    assert _state(c) == before


def test_gaussian_under_pure_names_the_currency_and_a_remedy(c):
    r = _charge(c, "gaussian(sigma=2)")
    msg = r.json()["message"]
    assert r.status_code == 422 and "pure" in msg
    assert any(w in msg for w in ("zcdp", "rdp", "gdp", "approx"))


def test_unknown_budget_is_404(c):
    r = _charge(c, "pure(0.1)", budget="nope")
    assert r.status_code == 404 and r.json()["message"]
    assert c.get("/v1/budgets/nope", headers=c.admin).status_code == 404


# ---------------------------------------------------------------------------
# OpenAPI page and headers


def test_openapi_docs_are_served_from_bundled_assets(app_client):
    r = app_client.get("/docs")
    assert r.status_code == 200
    html = r.text
    assert "/static/swagger-ui/swagger-ui-bundle.js" in html and "<script>" not in html
    assert "http://" not in html and "https://" not in html  # nothing from the network
    assert app_client.get("/static/swagger-ui/swagger-ui-bundle.js").status_code == 200
    spec = app_client.get("/openapi.json").json()
    paths = spec["paths"]
    for p in ["/v1/budgets", "/v1/budgets/{name}", "/v1/budgets/{name}/charges"]:
        assert p in paths
    assert "HTTPBearer" in spec["components"]["securitySchemes"]


def test_security_headers(c):
    r = c.get("/v1/budgets", headers=c.admin)
    assert "script-src 'self'" in r.headers["content-security-policy"]
    assert r.headers["cache-control"] == "no-store"
    assert r.headers["x-content-type-options"] == "nosniff"


def test_status_shows_the_planned_figure_labelled_and_can_skip_it(c):
    from dpcompose.ledger import PLANNED_LABEL

    _charge(c, "pure(0.1)")
    full = c.get("/v1/budgets/b1?wait=true", headers=c.admin).json()
    assert full["planned"]["label"] == PLANNED_LABEL and "never used to admit" in PLANNED_LABEL
    assert full["planned"]["current"] is True and full["planned"]["epsilon"] >= 0.1  # one 0.1-DP release
    assert c.get("/v1/budgets/b1?planned=false", headers=c.admin).json()["planned"] is None


def test_oversized_body_is_413_and_stores_nothing(c):
    r = c.post("/v1/budgets/b1/charges", content=b"{" + b" " * (1 << 20) + b"}",
               headers={**c.admin, "Content-Type": "application/json"})
    assert r.status_code == 413 and "limit" in r.json()["message"]
    assert _state(c)[0] == 0
