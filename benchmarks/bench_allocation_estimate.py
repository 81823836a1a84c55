"""Benchmark: random allocation (balls-in-bins) of a Gaussian, Monte Carlo estimate against certified bounds.

Run::

    python benchmarks/bench_allocation_estimate.py                      # the default grid
    python benchmarks/bench_allocation_estimate.py --steps 100 --epochs 1 --samples 200000

For each (t steps, E epochs) with sigma 1 and sensitivity 1 it prints, at the target delta:

- ``mc eps (upper)``: :func:`dpcompose.allocation_epsilon_estimate`'s epsilon whose upper
  confidence limit meets delta (confidence 0.95), and ``mc eps (point)``, where the point
  estimate meets it: a Monte Carlo estimate, **not a certified bound**;
- ``certified, amplified``: ``compose`` (auto) of ``RandomAllocation(Gaussian(sigma),
  steps=t)`` E times: Renyi DP certifies the balls-in-bins amplification
  (:mod:`dpcompose.representations.random_allocation_rdp`);
- ``certified, un-amplified``: one Gaussian invocation per epoch, composed E times;
- ``Poisson 1/t``: the certified epsilon of Poisson subsampling at rate 1/t over t * E steps
  (``method="pld"``), the usual stand-in for balls-in-bins (a different sampler);
- the wall time of the estimate (one process, numpy's generator).
"""

from __future__ import annotations

import argparse
import time

import dpcompose as dpc


def row(sigma: float, t: int, epochs: int, delta: float, samples: int, seed: int) -> str:
    start = time.perf_counter()
    est = dpc.allocation_epsilon_estimate(sigma, t, delta, epochs=epochs, samples=samples, seed=seed)
    seconds = time.perf_counter() - start
    amplified = dpc.compose([(dpc.RandomAllocation(dpc.Gaussian(sigma), steps=t), epochs)]).epsilon(delta)
    unamplified = dpc.compose([(dpc.Gaussian(sigma), epochs)]).epsilon(delta)
    poisson = dpc.compose([(dpc.Subsampled(dpc.Gaussian(sigma), rate=1.0 / t), t * epochs)], method="pld")
    return (f"| {sigma:g} | {t} | {epochs} | {delta:g} | {samples} | {est.epsilon:.3f} | "
            f"{est.epsilon_estimate:.3f} | {amplified:.3f} | {unamplified:.3f} | {poisson.epsilon(delta):.3f} | "
            f"{seconds:.1f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sigma", type=float, default=1.0)
    parser.add_argument("--steps", type=int, nargs="*", default=[100, 1000])
    parser.add_argument("--epochs", type=int, nargs="*", default=[1, 5])
    parser.add_argument("--delta", type=float, default=1e-5)
    parser.add_argument("--samples", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print("| sigma | t | E | delta | samples | mc eps (upper, 0.95) | mc eps (point) | "
          "certified, amplified | certified, un-amplified | Poisson 1/t (pld) | estimate s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for t in args.steps:
        for epochs in args.epochs:
            print(row(args.sigma, t, epochs, args.delta, args.samples, args.seed), flush=True)


if __name__ == "__main__":
    main()
