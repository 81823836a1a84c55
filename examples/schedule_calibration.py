"""Calibrate anything with one free parameter: a DP-SGD schedule, a noise split, epochs.

``dpc.calibrate(factory, epsilon=, delta=)`` takes any ``factory(x) -> list of mechanisms
or (mechanism, count) pairs`` and finds the x at which the certified epsilon meets the
target, ending on the passing side; the direction (is a larger x more private?) is
detected, or given with ``more_private=``.

Run: python examples/schedule_calibration.py
"""

from __future__ import annotations

import dpcompose as dpc
from dpcompose.report import fmt_noise, fmt_upper

N, DELTA = 60000, 1e-5


def step(sigma: float, batch: int) -> dpc.Subsampled:
    return dpc.Subsampled(dpc.Gaussian(sigma), batch / N)    # Poisson sampling, add/remove


def schedule(sigma: float) -> list:
    """10 epochs at batch 256, then 5 at batch 1024 (the same noise multiplier)."""
    return [(step(sigma, 256), 10 * -(-N // 256)), (step(sigma, 1024), 5 * -(-N // 1024))]


def main() -> dict:
    r = dpc.calibrate(schedule, epsilon=3.0, delta=DELTA, method="pld")
    print(f"schedule: noise multiplier {fmt_noise(r.parameter)} gives epsilon <= {fmt_upper(r.epsilon)}\n"
          f"  (detected: a {r.more_private} multiplier is more private; {r.evaluations} compositions)")

    # how many epochs at sigma = 1.1 fit in epsilon = 2? (a whole number; fewer is more private)
    e = dpc.calibrate(lambda k: [(step(1.1, 256), k * -(-N // 256))], epsilon=2.0, delta=DELTA,
                      method="pld", integer=True, search_range=(1, 500))
    print(f"epochs at sigma 1.1: {e.parameter} (epsilon <= {fmt_upper(e.epsilon)}; {e.failing_parameter} "
          f"epochs would not meet 2.0)")

    # the same noise multiplier for a DP-SGD model and 20 Laplace counts at twice its scale
    split = dpc.calibrate(lambda s: [(step(s, 256), 2000), (dpc.Laplace(20 * s), 20)],
                          epsilon=2.0, delta=DELTA, method="pld")
    print(f"model + counts: s = {fmt_noise(split.parameter)}, epsilon <= {fmt_upper(split.epsilon)}")
    return {"schedule": r, "epochs": e, "split": split}


if __name__ == "__main__":
    main()
