"""The dashboard in a real headless Chromium (Debian's ``/usr/bin/chromium``, driven by Playwright).

A person's path: open the dashboard, log in with the admin token, create a budget with
the form, see a charge made by an analyst script (the Python client) appear in the
history, charge from the page, and read the remaining budget off the page; the charts
are drawn from the bundled Chart.js with no request leaving 127.0.0.1 and no console
error. The screenshot is saved as a test artifact (``$DPCOMPOSE_TEST_ARTIFACTS``, default
``test-artifacts/``, file ``ledger-dashboard.png``).

Skips only when Chromium or Playwright is not installed (``.ci/run`` installs both).
"""

from __future__ import annotations

import os
import shutil
from fractions import Fraction
from urllib.parse import urlparse

import pytest

from conftest import ARTIFACTS

CHROMIUM = os.environ.get("DPCOMPOSE_CHROMIUM", "/usr/bin/chromium")
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright not installed (pip install -e '.[test]')")
if not (os.path.isfile(CHROMIUM) or shutil.which(CHROMIUM)):
    pytest.skip(f"Chromium not found at {CHROMIUM} (apt-get install -y chromium)", allow_module_level=True)


@pytest.fixture
def browser():
    with sync_api.sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, headless=True,
                               args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"])
        try:
            yield b
        finally:
            b.close()


def test_dashboard_in_chromium(live_server, sqlite_url, admin_token, browser):
    srv = live_server(sqlite_url)
    page = browser.new_page(viewport={"width": 1200, "height": 1400})
    # generous: a loaded CI machine can take long to import and answer; the waits end as soon as the page is ready
    page.set_default_timeout(180_000)
    page.set_default_navigation_timeout(180_000)
    problems: list[str] = []
    page.on("console", lambda m: problems.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    page.on("request", lambda r: problems.append(f"off-host request {r.url}")
            if urlparse(r.url).hostname not in ("127.0.0.1", None) and not r.url.startswith("data:") else None)

    # log in
    page.goto(srv.url + "/")
    page.fill("#token", admin_token)
    page.click("#login")
    page.wait_for_selector("#create-budget")
    assert "admin" in page.inner_text("#who")

    # create a budget with the form
    page.fill("#b-name", "census")
    page.select_option("#b-currency", "pure")
    page.fill("#b-epsilon", "1")
    page.fill("#b-databases", "north, south")
    page.fill("#b-max", "1")
    page.click("#create-budget-submit")
    page.wait_for_selector("#budget-name")
    assert page.inner_text("#budget-name") == "census"
    assert Fraction("0.9999") <= Fraction(page.inner_text("#remaining-epsilon")) <= 1

    # an analyst's script charges through the API; the charge appears after a reload
    with srv.client() as admin:
        token = admin.create_token(budgets=["census"])
    with srv.client(token) as analyst:
        r = analyst.charge("census", database="north", mechanism="laplace(scale=4)", note="from a script")
        assert r.admitted
    page.reload()
    row = page.locator("#history tbody tr").first
    assert "laplace(scale=4" in row.inner_text() and "from a script" in row.inner_text()
    assert page.inner_text("#charge-count") == "1"

    # charge from the page
    page.select_option("#c-database", "south")
    page.fill("#c-mechanism", "pure(0.5)")
    page.click("#charge-submit")
    page.wait_for_selector("#message")
    assert "Admitted" in page.inner_text("#message")
    assert page.locator("#history tbody tr").count() == 2

    # read the remaining budget off the page: a person is in at most one database, so the
    # worst case is max(1/4, 0.5) = 0.5 spent; the page rounds remaining down
    remaining = Fraction(page.inner_text("#remaining-epsilon"))
    assert Fraction("0.4999") <= remaining <= Fraction("0.5")
    assert page.inner_text("#spent-epsilon") == "0.5"    # exact: no trailing zeros (dpcompose._display)

    # the charts were drawn by the bundled Chart.js
    drawn = page.evaluate("() => ['chart-databases', 'chart-epsilon'].map(id => !!Chart.getChart(id))")
    assert drawn == [True, True]
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shot = ARTIFACTS / "ledger-dashboard.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 10_000

    # an analyst logs in and sees the same figure
    page.click("#logout")
    page.wait_for_selector("#login-form")
    page.fill("#token", token)
    page.click("#login")
    page.click("#budgets a[href=\"/budgets/census\"]")
    assert Fraction(page.inner_text("#remaining-epsilon")) == remaining
    assert not problems, problems
