"""Benchmark: one pld epsilon query on DP-SGD (issue 14; the exact-inverse query's cost).

W5 of ``bench_accountants.py``: Poisson rate 256/60000, sigma 1.1, 14,062 steps,
delta 1e-5. Reported separately (median of ``--repeat`` runs, a fresh composition each
time, modules already imported): the composition, the first ``epsilon(delta)`` query on
it and a second query. The answer is the smallest double ``e`` with
``delta(e) <= 1e-5``; the script checks ``delta(epsilon(d)) <= d`` and prints both.

Second case (issue 14, "pld at huge counts"): ``Laplace(1e-3)`` (1000-DP) x 10^6 under
``method="pld"``, the composition and ``epsilon_bounds(1e-6)`` (both curves), with the
grid it chose. The pure-DP answer (``optimal``) is 1e9; pld's is about 0.1% below it.

Run: python benchmarks/bench_pld_query.py [--repeat N] [--skip-dpsgd] [--skip-laplace]
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


def laplace_once() -> tuple[tuple[float, float], float, float, dict]:
    t0 = time.perf_counter()
    g = dpc.compose([(dpc.Laplace(1e-3), 10 ** 6)], method="pld")
    t1 = time.perf_counter()
    bounds = g.epsilon_bounds(1e-6)
    t2 = time.perf_counter()
    return bounds, t1 - t0, t2 - t1, g.provenance["pld"]["grids"][0]


def laplace_case(repeat: int) -> None:
    runs = [laplace_once() for _ in range(repeat)]
    (lo, hi), _, _, grid = runs[0]
    print(f"Laplace(1e-3) x 10^6 pld: epsilon_bounds(1e-6) = [{lo!r}, {hi!r}] "
          f"(h = {grid['h']:.4g}, {grid['points']} points)")
    for i, what in ((1, "compose"), (2, "bounds query")):
        ts = [r[i] for r in runs]
        print(f"  {what:<13} {statistics.median(ts):6.3f} s  (min {min(ts):.3f}, max {max(ts):.3f}, "
              f"{repeat} runs)")
    ts = [r[1] + r[2] for r in runs]
    print(f"  {'total':<13} {statistics.median(ts):6.3f} s")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--skip-dpsgd", action="store_true")
    ap.add_argument("--skip-laplace", action="store_true")
    args = ap.parse_args()
    if not args.skip_dpsgd:
        dpsgd_case(args.repeat)
    if not args.skip_laplace:
        laplace_case(args.repeat)


def dpsgd_case(repeat: int) -> None:
    dpc.compose([(dpc.Subsampled(dpc.Gaussian(SIGMA), Q), 10)], method="pld").epsilon(DELTA)  # imports
    runs = [once() for _ in range(repeat)]
    eps = runs[0][0]
    g = dpc.compose([(dpc.Subsampled(dpc.Gaussian(SIGMA), Q), STEPS)], method="pld")
    print(f"DP-SGD pld (q = 256/60000, sigma {SIGMA}, {STEPS} steps): epsilon({DELTA:g}) = {eps!r}, "
          f"delta(epsilon) = {g.delta(eps)!r}")
    for i, what in ((1, "compose"), (2, "first query"), (3, "second query")):
        ts = [r[i] for r in runs]
        print(f"  {what:<13} {statistics.median(ts):6.3f} s  (min {min(ts):.3f}, max {max(ts):.3f}, "
              f"{repeat} runs)")


if __name__ == "__main__":
    main()
