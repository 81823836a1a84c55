"""Benchmark: the breadth families of issue 12 against the anchors that support them.

Run (after ``pip install -e '.[bench]'``)::

    python benchmarks/bench_breadth.py

For each family: dpcompose's certified epsilon (upper, and the lower bound where its method
gives one) at the stated delta, and the same input given to dp-accounting 0.6.0 the way its
users would write it (its PLD accountant where it has the event, else its RDP accountant),
with wall times of one call in this process. dp-accounting's numbers are its own: its PLD
is pessimistic by construction but its RDP conversions and its Gaussian mu are not
certified bounds in dpcompose's sense; a row with "-" means the anchor has no such event.

Found with this script: dp-accounting 0.6.0's ``PLDAccountant.compose(RandomizedResponseDpEvent(...), 100)``
returns the epsilon of ONE randomized response (0.5001 for eps 0.5), not of 100 (33.33 when the
event is composed one at a time, as dpcompose's exact 33.32); the table shows both.

Nothing here is a test: the numbers are checked against independent truth in tests/ (each
family's test file, named in docs/theory.md).
"""

from __future__ import annotations

import math
import time
from typing import Any, Callable

import dpcompose as dpc

DELTA = 1e-6


def _timed(fn: Callable[[], Any]) -> tuple[Any, float]:
    t0 = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - t0


def _dpcompose(mechanism: Any, count: int, method: str = "auto") -> tuple[str, float]:
    def run() -> tuple[float, float]:
        g = dpc.compose([(mechanism, count)], method=method)
        upper = g.epsilon(DELTA)
        lower = g.epsilon_lower(DELTA) if g.has_lower_bound else math.nan
        return upper, lower

    (upper, lower), secs = _timed(run)
    low = "-" if math.isnan(lower) else f"{lower:.4f}"
    return f"{upper:.4f} (lower {low})", secs


def _anchor(which: str, make: Callable[[], Any], count: int) -> tuple[str, float] | None:
    """``which``: "pld" or "rdp", optionally followed by a NeighboringRelation name."""
    try:
        from dp_accounting import pld, rdp
        from dp_accounting.privacy_accountant import NeighboringRelation
    except ImportError:
        return None
    kind, *rest = which.split()
    one_at_a_time = "one-at-a-time" in rest
    relation = NeighboringRelation[next((r for r in rest if r.isupper()), "ADD_OR_REMOVE_ONE")]

    def run() -> float:
        acc = (pld.PLDAccountant if kind == "pld" else rdp.RdpAccountant)(neighboring_relation=relation)
        if one_at_a_time:
            for _ in range(count):
                acc.compose(make())
        else:
            acc.compose(make(), count)
        return float(acc.get_epsilon(DELTA))

    from dp_accounting.privacy_accountant import UnsupportedEventError

    try:
        value, secs = _timed(run)
    except UnsupportedEventError as err:
        return f"unsupported ({str(err)[:60]}...)", math.nan
    return f"{value:.4f}", secs


def _workloads() -> list[tuple[str, Any, int, Callable[[], Any] | None, str]]:
    """(name, dpcompose mechanism, count, dp-accounting event factory, anchor accountant)."""
    try:
        from dp_accounting import dp_event as ev
    except ImportError:
        ev = None  # type: ignore[assignment]

    def event(name: str, *args: Any, **kw: Any) -> Callable[[], Any] | None:
        return None if ev is None else (lambda: getattr(ev, name)(*args, **kw))

    rr_eps = 0.5
    return [
        ("DiscreteLaplace(scale 10) x 200", dpc.DiscreteLaplace(10.0), 200,
         event("DiscreteLaplaceDpEvent", 1 / 10.0, 1), "pld"),
        ("DiscreteGaussian(sigma 5) x 100", dpc.DiscreteGaussian(5.0), 100,
         None, "pld"),  # dp-accounting has a PLD for it but no DpEvent
        ("RandomizedResponse(eps 0.5) x 100", dpc.RandomizedResponse(rr_eps), 100,
         event("RandomizedResponseDpEvent", 2 / (1 + math.exp(rr_eps)), 2), "pld REPLACE_ONE"),
        # the same input, composed one event at a time: dp-accounting 0.6.0's PLDAccountant.compose(event, 100)
        # returns the one-fold epsilon (0.5001) for this event, so its users must loop
        ("RandomizedResponse(eps 0.5) x 100", dpc.RandomizedResponse(rr_eps), 100,
         event("RandomizedResponseDpEvent", 2 / (1 + math.exp(rr_eps)), 2), "pld REPLACE_ONE one-at-a-time"),
        ("ZCDP(rho 0.01) x 100", dpc.ZCDP(0.01), 100, event("ZCDpEvent", 0.01), "rdp"),
        ("TreeAggregation(sigma 1, 1000 steps)", dpc.TreeAggregation(1.0, 1000), 1,
         event("SingleEpochTreeAggregationDpEvent", 1.0, 1000), "rdp REPLACE_SPECIAL"),
        ("Subsampled(Gaussian 1, q 0.01, without replacement) x 1000",
         dpc.Subsampled(dpc.Gaussian(1.0), 0.01, "without_replacement"), 1000,
         event("SampledWithoutReplacementDpEvent", 10_000, 100, ev.GaussianDpEvent(1.0)) if ev else None, "rdp REPLACE_ONE"),
        ("Subsampled(Gaussian 1, q 0.01, Poisson) x 1000", dpc.Subsampled(dpc.Gaussian(1.0), 0.01), 1000,
         event("PoissonSampledDpEvent", 0.01, ev.GaussianDpEvent(1.0)) if ev else None, "pld"),
        ("Group(Gaussian 10, size 3) x 100", dpc.Group(dpc.Gaussian(10.0), size=3), 100, None, "-"),
        ("RandomAllocation(Gaussian 2, 100 steps) x 10 epochs",
         dpc.RandomAllocation(dpc.Gaussian(2.0), 100), 10, None, "-"),
    ]


def main() -> None:
    print(f"epsilon at delta = {DELTA:g}; one call each; dp-accounting 0.6.0 in the same process\n")
    print("| family | dpcompose auto: upper (lower) | time | dp-accounting | its epsilon | time |")
    print("|---|---|---|---|---|---|")
    for name, mechanism, count, make, which in _workloads():
        ours, secs = _dpcompose(mechanism, count)
        anchor: tuple[str, float] | None = None
        if make is not None:
            anchor = _anchor(which, make, count)
        if anchor is None:
            print(f"| {name} | {ours} | {secs:.3f} s | - | - | - |")
        else:
            print(f"| {name} | {ours} | {secs:.3f} s | {which} | {anchor[0]} | {anchor[1]:.3f} s |".replace("nan s", "-"))


if __name__ == "__main__":
    main()
