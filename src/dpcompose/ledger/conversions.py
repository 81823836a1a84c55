"""Numeric conversions behind the ledger's currency limits (moved from :mod:`.currencies`).

zCDP and RDP conversions to (epsilon, delta), the bisection for the largest admitted
limit, and the check of a budget's Renyi orders; each rounds toward the safe side
(limits down, costs up) as written beside it.
"""

from __future__ import annotations

import math
from decimal import Decimal, localcontext
from typing import Sequence

import numpy as np

from . import exact
from .errors import LedgerError

#: the default Renyi orders of an ``rdp`` budget
DEFAULT_ORDERS: tuple[float, ...] = (1.5, 1.75, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0, 12.0, 16.0,
                                     20.0, 24.0, 32.0, 48.0, 64.0, 128.0, 256.0)


def _ln(x: Decimal) -> Decimal:
    with localcontext() as ctx:
        ctx.prec = 60
        return x.ln()


def _zcdp_rho_bs(epsilon: float, delta: float) -> Decimal:
    r"""The largest rho with rho + 2 sqrt(rho log(1/delta)) <= epsilon, rounded down.

    rho = (sqrt(L + eps) - sqrt(L))^2 with L = log(1/delta) (Bun and Steinke,
    "Concentrated Differential Privacy: Simplifications, Extensions, and Lower Bounds",
    TCC 2016, Prop. 1.3 solved for rho), computed without cancellation with 60 digits and
    lowered by a relative 1e-30 before rounding down (each 60-digit step errs by < 1e-59).
    """
    with localcontext() as ctx:
        ctx.prec = 60
        big_l = -_ln(exact.dec(delta))
        e = exact.dec(epsilon)
        r = (e / ((big_l + e).sqrt() + big_l.sqrt())) ** 2  # sqrt(L + e) - sqrt(L), no cancellation
        r = r * (1 - Decimal("1e-30"))
    return exact.down(r)


def _zcdp_epsilon(rho: float, delta: float) -> float:
    from ..methods.rdp import DEFAULT_ORDERS as dense
    from ..methods.rdp import rdp_to_epsilon

    if rho == 0.0:
        return 0.0
    return rdp_to_epsilon(dense, dense * rho, delta)[0]


def _largest(ok, hi: float, lo: float = 0.0, steps: int = 200) -> float:
    """The largest x in [lo, hi] with ok(x) found by bisection, ending on the passing side."""
    if not ok(lo):
        raise LedgerError("the promise is too small to admit anything", field="epsilon")
    while ok(hi):
        lo, hi = hi, hi * 2
    for _ in range(steps):
        mid = (lo + hi) / 2
        if mid in (lo, hi):
            break
        if ok(mid):
            lo = mid
        else:
            hi = mid
    return lo


def _rdp_offset(alpha: float, delta: float) -> float:
    """c(alpha) of CKS Prop. 12 (epsilon = tau + c), certified upper via rdp_to_epsilon at tau = 0."""
    from ..methods.rdp import rdp_to_epsilon

    # rdp_to_epsilon rounds up and clamps at 0, so its value is >= c(alpha) either way
    return rdp_to_epsilon(np.asarray([alpha]), np.zeros(1), delta)[0]


def _check_orders(orders: Sequence[float] | None) -> tuple[float, ...]:
    if orders is None:
        return DEFAULT_ORDERS
    if isinstance(orders, (str, bytes)) or not isinstance(orders, Sequence) or not orders:
        raise LedgerError(f"orders = {orders!r} must be a non-empty list of Renyi orders > 1, "
                          f"e.g. [2, 4, 8, 16, 32]", field="orders")
    out = []
    for i, a in enumerate(orders):
        if isinstance(a, bool) or not isinstance(a, (int, float)) or not math.isfinite(a) or a <= 1:
            raise LedgerError(f"orders[{i}] = {a!r} is not a finite number > 1; Renyi orders are "
                              f"alpha > 1, e.g. [2, 4, 8, 16, 32]", field="orders")
        out.append(float(a))
    if len(set(out)) != len(out):
        raise LedgerError("orders contains a repeated order; list each once", field="orders")
    if len(out) > 256:
        raise LedgerError(f"{len(out)} orders is more than 256; each order costs delta/n", field="orders")
    return tuple(sorted(out))
