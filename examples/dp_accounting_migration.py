"""From Google's dp_accounting to dpcompose: one call changes.

Before::

    acc = dp_accounting.pld.PLDAccountant()
    acc.compose(event)
    eps = acc.get_epsilon(delta)

After::

    eps = dpc.compose(dpc.from_dp_event(event)).epsilon(delta)     # certified upper bound
    lo, hi = dpc.compose(dpc.from_dp_event(event)).epsilon_bounds(delta)

``from_dp_event`` reads the event tree (no dp_accounting import needed); the neighbour
relation is dp_accounting's default, add/remove (pass ``neighbors="replace_one"`` for
``REPLACE_ONE``). Needs ``pip install dp-accounting`` only to build the events.

Run: python examples/dp_accounting_migration.py
"""

from __future__ import annotations

import time

import dp_accounting
from dp_accounting.pld import PLDAccountant

import dpcompose as dpc
from dpcompose.expressions import format_mechanism
from dpcompose.report import fmt_lower, fmt_upper

DELTA = 1e-5


def main() -> tuple[float, tuple[float, float]]:
    # DP-SGD: 2,000 steps of a Poisson-sampled Gaussian, then 10 Laplace counts
    sgd = dp_accounting.PoissonSampledDpEvent(256 / 60000, dp_accounting.GaussianDpEvent(1.1))
    event = dp_accounting.ComposedDpEvent([
        dp_accounting.SelfComposedDpEvent(sgd, 2000),
        dp_accounting.SelfComposedDpEvent(dp_accounting.LaplaceDpEvent(50.0), 10),
    ])

    t = time.perf_counter()
    acc = PLDAccountant()                                      # before
    acc.compose(event)
    before = acc.get_epsilon(DELTA)
    t_before = time.perf_counter() - t

    t = time.perf_counter()
    g = dpc.compose(dpc.from_dp_event(event))                  # after
    bracket = g.epsilon_bounds(DELTA)
    t_after = time.perf_counter() - t

    print("dpcompose input:")
    for m, k in dpc.from_dp_event(event):
        print(f"  {k} x {format_mechanism(m)}")
    print(f"dp_accounting PLD : epsilon = {before:.6f}            ({t_before:.2f} s)")
    print(f"dpcompose         : epsilon in [{fmt_lower(bracket[0])}, {fmt_upper(bracket[1])}]\n"
          f"                    (certified, method {g.method}; {t_after:.2f} s)")
    return before, bracket


if __name__ == "__main__":
    main()
