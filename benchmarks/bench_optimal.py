"""Benchmark of the "optimal" composition method (not a test: prints figures and times).

Run:  python benchmarks/bench_optimal.py

1. k = 10**6 identical (0.01, 0)-DP mechanisms: the Kairouz-Oh-Viswanath optimum,
   exact (upper = lower up to floating point), at several deltas; and k = 10**9.
2. 1000 heterogeneous mechanisms, eps_i = 0.01 + 0.19 i / 999, delta_i = 1e-9, at total
   delta 1e-5: the certified second-order lattice bracket [lower, upper] (realised width,
   and the a-priori width (2k + 1) eta it is guaranteed within).

Each timing is the first call (cold cache) and includes building the composition.
"""

from __future__ import annotations

import time

import dpcompose as dpc
from dpcompose.methods.optimal import method as optimal


def _clear() -> None:
    optimal._build.cache_clear()


def bench_homogeneous(k: int, eps: float = 0.01) -> None:
    _clear()
    t0 = time.perf_counter()
    g = dpc.compose([(dpc.PureDP(eps), k)], method="optimal")
    e = g.epsilon(1e-6)
    t1 = time.perf_counter()
    print(f"k = {k:>13,} x ({eps}, 0)-DP   delta = 1e-6: epsilon = {e:.6f}   "
          f"time (first query, cold) = {1e3 * (t1 - t0):.1f} ms")
    for d in (1e-5, 1e-10, 1e-30):
        t2 = time.perf_counter()
        lo, hi = g.epsilon_bounds(d)
        t3 = time.perf_counter()
        print(f"    delta = {d:.0e}: [lower, upper] = [{lo:.6f}, {hi:.6f}]   "
              f"width = {hi - lo:.2e}   time = {1e3 * (t3 - t2):.2f} ms")


def bench_heterogeneous(n: int = 1000, delta_total: float = 1e-5) -> None:
    _clear()
    mechs = [dpc.ApproxDP(0.01 + 0.19 * i / (n - 1), 1e-9) for i in range(n)]
    t0 = time.perf_counter()
    g = dpc.compose(mechs, method="optimal")
    lo, hi = g.epsilon_bounds(delta_total)
    t1 = time.perf_counter()
    p = g.provenance
    print(f"{n} heterogeneous (eps_i = 0.01 + 0.19 i/{n - 1}, delta_i = 1e-9), total delta = "
          f"{delta_total:g}:")
    print(f"    epsilon in [{lo:.6f}, {hi:.6f}]   upper - lower = {hi - lo:.2e} "
          f"(relative {(hi - lo) / hi:.1e})   a-priori width ((2k + 1) eta) = {p['error']:.3g}   "
          f"grid step eta = {p['lattice_step']:.3g}   path = {p['path']}   time = {t1 - t0:.2f} s")
    simple = dpc.compose(mechs, method="simple").epsilon(delta_total) if _has("simple") else None
    if simple is not None:
        print(f"    (simple composition for comparison: {simple:.4f})")


def _has(method: str) -> bool:
    from dpcompose.compose import available_methods

    return method in available_methods()


if __name__ == "__main__":
    from dpcompose.compose import available_methods

    available_methods()  # import every method module once, outside the timings
    bench_homogeneous(10**6)
    bench_homogeneous(10**9)
    bench_heterogeneous()
