"""Benchmark: one pld epsilon query on DP-SGD (issue 14; the exact-inverse query's cost).

W5 of ``bench_accountants.py``: Poisson rate 256/60000, sigma 1.1, 14,062 steps,
delta 1e-5. Reported separately (median of ``--repeat`` runs, a fresh composition each
time, modules already imported): the composition, the first ``epsilon(delta)`` query on
it and a second query. The answer is the smallest double ``e`` with
``delta(e) <= 1e-5``; the script checks ``delta(epsilon(d)) <= d`` and prints both.

Run: python benchmarks/bench_pld_query.py [--repeat N]
"""

from __future__ import annotations

import argparse
import statistics
import time

import dpcompose as dpc

Q, SIGMA, STEPS, DELTA = 256 / 60000, 1.1, 14062, 1e-5


def once() -> tuple[float, float, float, float]:
    t0 = time.perf_counter()
    g = dpc.compose([(dpc.Subsampled(dpc.Gaussian(SIGMA), Q), STEPS)], method="pld")
    t1 = time.perf_counter()
    eps = g.epsilon(DELTA)
    t2 = time.perf_counter()
    g.epsilon(DELTA)
    t3 = time.perf_counter()
    assert g.delta(eps) <= DELTA
    return eps, t1 - t0, t2 - t1, t3 - t2


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    dpc.compose([(dpc.Subsampled(dpc.Gaussian(SIGMA), Q), 10)], method="pld").epsilon(DELTA)  # imports
    runs = [once() for _ in range(args.repeat)]
    eps = runs[0][0]
    g = dpc.compose([(dpc.Subsampled(dpc.Gaussian(SIGMA), Q), STEPS)], method="pld")
    print(f"DP-SGD pld (q = 256/60000, sigma {SIGMA}, {STEPS} steps): epsilon({DELTA:g}) = {eps!r}, "
          f"delta(epsilon) = {g.delta(eps)!r}")
    for i, what in ((1, "compose"), (2, "first query"), (3, "second query")):
        ts = [r[i] for r in runs]
        print(f"  {what:<13} {statistics.median(ts):6.3f} s  (min {min(ts):.3f}, max {max(ts):.3f}, "
              f"{args.repeat} runs)")


if __name__ == "__main__":
    main()
