"""The shared numerical vocabulary of dpcompose: rounding to the safe side, log space, inversion.

- :mod:`.rounding`: the constants (:data:`~.rounding.UNIT_ROUNDOFF`,
  :data:`~.rounding.MACHINE_EPSILON`, :data:`~.rounding.SMALLEST_SUBNORMAL`) and the
  round-up / round-down helpers every module uses;
- :mod:`.logspace`: sums and differences of exponentials in log space;
- :mod:`.inversion`: monotone inversion that ends on the safe side (epsilon(delta) from
  delta(epsilon) and back);
- :mod:`.binomial`: binomial log-masses with an error bound (Loader), Chernoff windows.
- :mod:`.lazy`: SciPy functions and modules imported on first use (cold start).
- :mod:`.fft`: real FFTs from ``numpy.fft`` and ``next_fast_len`` (no SciPy import).
"""

from __future__ import annotations

from .inversion import invert_delta_to_epsilon, invert_epsilon_to_delta
from .logspace import log_sub_exp
from .rounding import LOG_SMALLEST_DELTA, MACHINE_EPSILON, SMALLEST_DELTA, SMALLEST_SUBNORMAL, UNIT_ROUNDOFF

__all__ = [
    "invert_delta_to_epsilon",
    "invert_epsilon_to_delta",
    "log_sub_exp",
    "SMALLEST_DELTA",
    "LOG_SMALLEST_DELTA",
    "SMALLEST_SUBNORMAL",
    "UNIT_ROUNDOFF",
    "MACHINE_EPSILON",
]
