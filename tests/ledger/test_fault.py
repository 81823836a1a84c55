"""Faults: kill -9 the server during the load, restart it on the same store, check.

Four clients charge concurrently; once some charges are acknowledged the server gets
SIGKILL (no shutdown code runs, as in a crash), then restarts on the same store and
port. The clients keep going: a request whose answer was lost is sent again with the
same idempotency key (:class:`dpcompose.ledger.Client` does this), so each charge gets
exactly one final answer. Afterwards, on SQLite and on a real PostgreSQL:

- every acknowledged admitted charge is in the history (same id), none is there twice,
  and nothing is there that no client was told about (after the retries every key has
  its answer);
- the stored totals equal the exact sums of the records, and stay within the budget.

Bounded: 4 x 150 charges, one kill, every request with a timeout and bounded retries.
"""

from __future__ import annotations

import threading
import time

from test_load import all_history, check_answers_against_records, check_totals, run_clients

CLIENTS, CHARGES, M = 4, 150, 2


def test_kill_9_during_load_then_restart(live_server, backend_url):
    srv = live_server(backend_url)
    with srv.client() as admin:
        admin.create_budget("crash", currency="pure", epsilon=3.0, databases=[f"d{i}" for i in range(CLIENTS)],
                            membership={"max_databases": M})
    out: dict = {}

    def load() -> None:
        out["results"], out["errors"] = run_clients(srv, "crash", CLIENTS, CHARGES, "pure(0.01)",
                                                    shared_every=0, retry_every=0, retries=150, timeout=20.0,
                                                    backoff=0.1, max_backoff=0.5)  # back soon after the restart

    t = threading.Thread(target=load, daemon=True)
    t.start()
    with srv.client() as admin:  # wait until some charges are acknowledged, then crash the server
        deadline = time.monotonic() + 300
        while admin.status("crash", planned=False).charge_count < 60 and time.monotonic() < deadline and t.is_alive():
            time.sleep(0.05)
    killed_at = None
    if t.is_alive():
        srv.kill9()  # clients now see refused connections and retry every 0.5 s at most
        srv.start()
        with srv.client() as admin:
            killed_at = admin.status("crash", planned=False).charge_count
    t.join(timeout=1200)
    assert not t.is_alive()
    assert killed_at is not None, "the load finished before the kill; raise CHARGES"
    assert not out["errors"], out["errors"][:3]
    results = out["results"]
    assert len(results) == CLIENTS * CHARGES  # every charge got a final answer
    with srv.client() as admin:
        status = admin.status("crash")
        records = all_history(admin, "crash")
    assert killed_at <= status.charge_count
    check_answers_against_records(results, records)
    check_totals(status, records, M)
    assert srv.starts == 2
    replayed = sum(r.replayed for r in results.values())
    print(f"\nfault on {backend_url.split(':')[0]}: killed at {killed_at} stored charges; "
          f"{sum(r.admitted for r in results.values())} admitted in all, {replayed} answered by replay "
          f"after the restart, {len(records)} records, totals equal to the records")
