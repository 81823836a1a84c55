"""Looseness check: today's certified upper bounds on the benchmark workloads against a record.

A speed change must never make a certified bound looser. ``upper_bounds.json`` holds the
upper bounds (epsilon at the workload's delta; for W6 the calibrated sigma, whose "looser"
direction is larger noise) computed on ``main`` before the speed work of issue 14, and
recorded again when issue 14 closed (2026-11-24: every value equal or tighter than before).
This script recomputes them and fails if any is looser than recorded by more than a
relative 1e-9 (the float noise of a recomputation).

Run: python benchmarks/looseness.py [--record] [--only KEY ...]
(``tests/test_looseness.py`` checks the cheap workloads on every test run.)
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

import dpcompose as dpc

RECORD = Path(__file__).with_name("upper_bounds.json")
RELATIVE_SLACK = 1e-9
Q, STEPS = 256 / 60000, 14062


def _eps(mechs, method: str, delta: float) -> Callable[[], float]:
    return lambda: dpc.compose(mechs, method=method).epsilon(delta)


def _hdp(neighbors: str, method: str) -> Callable[[], float]:
    def go() -> float:
        from dpcompose.hypotheses import AtMost, hdp

        rng = np.random.default_rng(0)
        mechs = [dpc.Laplace(scale=float(s)) for s in rng.uniform(50.0, 500.0, size=10_000)]
        return hdp(mechs, membership=AtMost(365), neighbors=neighbors, method=method).epsilon(1e-6)
    return go


def _w6() -> float:
    from dpcompose.calibration import calibrate

    return calibrate("gaussian", count=STEPS, epsilon=1.0, delta=1e-5, rate=Q, method="pld").parameter


def workloads() -> dict[str, tuple[Callable[[], float], bool]]:
    """Key -> (computation of the upper bound, cheap enough for the test suite)."""
    w1 = [(dpc.PureDP(0.1), 100)]
    w2 = [dpc.ApproxDP(0.01 + 0.19 * i / 999, 1e-9) for i in range(1000)]
    w3 = [(dpc.Laplace(20.0), 500)]
    w4 = [(dpc.Gaussian(30.0), 1000)]
    w5 = [(dpc.Subsampled(dpc.Gaussian(1.1), Q), STEPS)]
    out: dict[str, tuple[Callable[[], float], bool]] = {
        "W1 pld": (_eps(w1, "pld", 1e-6), True),
        "W1 rdp": (_eps(w1, "rdp", 1e-6), True),
        "W1 optimal": (_eps(w1, "optimal", 1e-6), True),
        "W2 pld": (_eps(w2, "pld", 1e-5), False),
        "W2 optimal": (_eps(w2, "optimal", 1e-5), False),
        "W2 auto": (_eps(w2, "auto", 1e-5), False),
        "W3 pld": (_eps(w3, "pld", 1e-6), True),
        "W3 rdp": (_eps(w3, "rdp", 1e-6), True),
        "W3 optimal": (_eps(w3, "optimal", 1e-6), True),
        "W3 auto": (_eps(w3, "auto", 1e-6), True),
        "W4 pld": (_eps(w4, "pld", 1e-5), True),
        "W4 rdp": (_eps(w4, "rdp", 1e-5), True),
        "W5 pld": (_eps(w5, "pld", 1e-5), True),
        "W5 rdp": (_eps(w5, "rdp", 1e-5), True),
        "W5 auto": (_eps(w5, "auto", 1e-5), False),
        "W5 pld delta 1e-9": (_eps(w5, "pld", 1e-9), False),
        "W5 rdp delta 1e-9": (_eps(w5, "rdp", 1e-9), True),
        "W6 sigma (pld calibrate)": (_w6, False),
    }
    for neighbors in ("unbounded", "bounded"):
        for method in ("simple", "advanced", "rdp", "optimal", "pld", "auto"):
            out[f"hdp {neighbors} {method}"] = (_hdp(neighbors, method), False)
    return out


def check(key: str, recorded: float, now: float) -> str | None:
    """An error message if ``now`` is looser than ``recorded``, else None."""
    if math.isinf(recorded):
        return None
    if not now <= recorded * (1.0 + RELATIVE_SLACK):
        return f"{key}: upper bound {now!r} is looser than recorded {recorded!r}"
    return None


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--record", action="store_true", help="write the current values as the record")
    ap.add_argument("--only", nargs="*", default=None, help="keys to compute (substring match)")
    args = ap.parse_args(argv)
    record = json.loads(RECORD.read_text()) if RECORD.exists() else {}
    failures, values = [], dict(record)
    for key, (fn, _) in workloads().items():
        if args.only and not any(s in key for s in args.only):
            continue
        now = float(fn())
        values[key] = now
        msg = None if args.record or key not in record else check(key, record[key], now)
        print(f"{key:<28} {now!r:>24}  recorded {record.get(key, '-')!r:>24}  {'LOOSER' if msg else 'ok'}")
        if msg:
            failures.append(msg)
    if args.record:
        RECORD.write_text(json.dumps(values, indent=1, sort_keys=True) + "\n")
    for msg in failures:
        print(msg, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
