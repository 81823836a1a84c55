"""MixtureOfGaussians: dpcompose's certified pld bracket against dp_accounting's MoG PLD.

dp_accounting's ``from_mixture_gaussian_mechanism`` (pessimistic, connect-the-dots,
value interval 1e-4) is an estimate, not certified; dpcompose's ``[lower, upper]`` is.
One call each (times include building the grids); run with ``nice python
benchmarks/bench_mixture.py`` (dp_accounting's MoG PLD takes minutes per case here).
"""

from __future__ import annotations

import time

import dpcompose as dpc

CASES = [
    # (sigma, sensitivities, probabilities, steps)
    (1.0, (0.0, 1.0), (0.99, 0.01), 1000),
    (1.0, (0.0, 1.0, 2.0), (0.81, 0.18, 0.01), 100),
    (0.8, (0.0, 0.5, 1.0), (0.5, 0.3, 0.2), 5),
]
DELTA = 1e-5


def main() -> None:
    from dp_accounting.pld import privacy_loss_distribution as pld_mod

    print(f"| sigma | c | p | steps | dpcompose pld [lower, upper] (s) | dp_accounting MoG PLD (s) |")
    print("|---|---|---|---|---|---|")
    for sigma, cs, ps, k in CASES:
        t = time.perf_counter()
        lo, hi = dpc.compose([(dpc.MixtureOfGaussians(sigma, cs, ps), k)], method="pld").epsilon_bounds(DELTA)
        t_ours = time.perf_counter() - t
        t = time.perf_counter()
        one = pld_mod.from_mixture_gaussian_mechanism(sigma, list(cs), list(ps))
        theirs = one.self_compose(k).get_epsilon_for_delta(DELTA)
        t_theirs = time.perf_counter() - t
        print(f"| {sigma} | {cs} | {ps} | {k} | [{lo:.6f}, {hi:.6f}] ({t_ours:.2f}) | {theirs:.6f} ({t_theirs:.2f}) |")


if __name__ == "__main__":
    main()
