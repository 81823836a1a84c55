r"""Currencies: privacy filters proven valid for adaptively chosen mechanisms.

A budget is kept in one *currency*. A currency turns each charge (a list of mechanisms
fixed when the charge is made) into a cost vector, rounded up, and admits a charge only
while the totals (of the worst-case person, see :mod:`dpcompose.ledger.membership`)
stay within limits computed once, rounded down, from the promised (epsilon, delta):

==========  ======================================  ==========================================
currency    cost of a charge                        admitted while (componentwise totals T)
==========  ======================================  ==========================================
pure        epsilon                                 T <= epsilon
approx      (epsilon_i, delta_i)                    T_eps <= epsilon and T_delta <= delta
advanced    (epsilon_i^2, delta_i)                  sqrt(2 T_sq log(1/delta')) + T_sq/2 <= epsilon
                                                    and T_delta <= delta'' (delta' = delta'' = delta/2)
zcdp        rho                                     T <= rho(epsilon, delta)
gdp         mu^2                                    T <= mu(epsilon, delta)^2
rdp         epsilon_alpha at each order alpha       T_alpha <= B(alpha) for SOME order alpha,
                                                    B(alpha) from delta / (number of orders)
==========  ======================================  ==========================================

Each filter's validity under full adaptivity, with its source, is proven in
docs/ledger.md; the proofs also cover refused charges (a refused charge runs nothing)
and refunds (a refunded charge never ran).

A charge's own list of mechanisms has its parameters fixed when it is made, so within
one charge any composition valid for fixed parameters may be used (``approx`` and
``advanced`` use :func:`dpcompose.compose` at the charge's delta share).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from decimal import Decimal, localcontext
from typing import Any, ClassVar, Sequence

import numpy as np

from .._numerics.rounding import next_down, next_up
from ..errors import DPComposeError, MethodNotApplicableError
from ..mechanisms import Mechanism
from . import exact
from .conversions import DEFAULT_ORDERS, _check_orders, _largest, _rdp_offset, _zcdp_epsilon, _zcdp_rho_bs
from .errors import LedgerError
from .units import _describe, _gdp_unit, _mul, _written_floor, _zcdp_unit, approx_pair, pure_epsilon
from .units import gdp_mu_of_pure as gdp_mu_of_pure  # re-exported: its old import path

__all__ = ["Currency", "CURRENCIES", "create_currency", "load_currency", "check_promise", "Groups", "DEFAULT_ORDERS",
           "PLAN_CURRENCY"]

Groups = tuple[tuple[Mechanism, int], ...]

#: largest epsilon a budget may promise (larger ones protect nobody and break exact sums)
MAX_EPSILON = 1e4
_ALTERNATIVES = {
    "pure": "zcdp, gdp or rdp (or approx/advanced with a delta share)",
    "approx": "approx with a delta share for this charge (delta=...), or zcdp, gdp or rdp",
    "advanced": "advanced with a delta share for this charge (delta=...), or zcdp, gdp or rdp",
    "zcdp": "rdp (subsampled Gaussians) or approx/advanced with a delta share",
    "gdp": "rdp (subsampled Gaussians) or approx/advanced with a delta share",
    "rdp": "approx or advanced with a delta share",
}


def _refuse(currency: str, what: str, field: str = "mechanism") -> LedgerError:
    return LedgerError(
        f"the {currency} currency cannot express {what}; use a budget in currency "
        f"{_ALTERNATIVES[currency]}", field=field)


# ---------------------------------------------------------------------------
# the currencies


@dataclass(frozen=True)
class Currency:
    """A privacy filter: cost of a charge, limits, admission rule, display.

    Attributes:
        epsilon, delta: the promise (floats, as given).
        limits: the budget in the currency (rounded down), one per component.
        params: currency parameters kept with the budget (orders, delta split).
    """

    name: ClassVar[str] = ""
    epsilon: float
    delta: float
    limits: tuple[Decimal, ...]
    params: dict[str, Any]

    # -- construction -------------------------------------------------------------
    @classmethod
    def create(cls, epsilon: float, delta: float, orders: Sequence[float] | None = None) -> "Currency":
        """Compute the limits for the promise (epsilon, delta) (validated by the caller)."""
        if orders is not None:
            raise LedgerError(f"orders are only used by the rdp currency, not {cls.name}; leave them out",
                              field="orders")
        return cls(epsilon, delta, cls._limits(epsilon, delta, {}), {})

    @classmethod
    def _limits(cls, epsilon: float, delta: float, params: dict[str, Any]) -> tuple[Decimal, ...]:
        """The limits for the promise as written: exact decimal limits take the decimals
        written (``exact.param``); float computations take the largest floats not above
        them (``_written_floor``)."""
        raise NotImplementedError

    @property
    def components(self) -> tuple[str, ...]:
        """Names of the cost components (e.g. ``("epsilon", "delta")``)."""
        raise NotImplementedError

    # -- charges --------------------------------------------------------------------
    def cost(self, groups: Groups, delta_share: float | None) -> tuple[Decimal, ...]:
        """The charge's cost vector, rounded up (raises LedgerError if inexpressible)."""
        raise NotImplementedError

    def admits(self, totals: Sequence[Decimal]) -> bool:
        """Whether worst-case totals ``totals`` are within the budget."""
        return all(t <= lim for t, lim in zip(totals, self.limits, strict=True))

    # -- display ------------------------------------------------------------------
    def spent(self, totals: Sequence[Decimal]) -> tuple[float, float]:
        """(epsilon, delta) spent: the smallest budget epsilon (at the delta returned)
        whose filter admits these totals; epsilon rounded up."""
        raise NotImplementedError

    def remaining(self, totals: Sequence[Decimal]) -> dict[str, Any]:
        """``{"currency": {...}, "epsilon": float, "delta": float}`` (rounded down)."""
        eps, _ = self.spent(totals)
        cur = {c: exact.text(max(exact.ZERO, exact._EXACT.subtract(lim, t)))
               for c, lim, t in zip(self.components, self.limits, totals, strict=True)}
        return {"currency": cur, "epsilon": _left(self.epsilon, eps),
                "delta": self._remaining_delta(totals)}

    def _remaining_delta(self, totals: Sequence[Decimal]) -> float:
        """The delta still available (the promise's delta where delta is not spent per charge)."""
        return self.delta

    def describe(self) -> str:
        """One line: the promise and the rule."""
        return f"{self.name} (epsilon {self.epsilon:g}, delta {self.delta:g})"


def _left(promised: float, spent: float) -> float:
    """promised - spent (a float upper bound), rounded down, at least 0."""
    if not math.isfinite(spent):
        return 0.0
    # spent rounded up to 20 digits first (a float's exact value can have ~750 digits)
    return max(0.0, exact.float_down(exact._EXACT.subtract(exact.param(promised), exact.up(spent))))


def _no_share(currency: str, delta_share: float | None) -> None:
    if delta_share not in (None, 0.0):
        raise LedgerError(
            f"the {currency} currency does not use a per-charge delta share (got {delta_share!r}); "
            f"leave delta out, or use a budget in currency approx or advanced", field="delta")


def _sum_units(groups: Groups, unit, currency: str) -> Decimal:
    parts = []
    for m, k in groups:
        u = unit(m)
        if u is None:
            raise _refuse(currency, _describe(m))
        parts.append(_mul(k, u))
    return exact.total(parts)


class Pure(Currency):
    r"""Pure DP: the sum of epsilons.

    Guarantee:
        Rogers, Roth, Ullman and Vadhan, "Privacy Odometers and Filters: Pay-as-you-Go
        Composition" (NeurIPS 2016): the basic composition filter (halt before
        sum eps_i > eps_g or sum delta_i > delta_g) is a valid (eps_g, delta_g) filter for
        adaptively chosen parameters; here with every delta_i = 0.
    """

    name = "pure"

    @classmethod
    def _limits(cls, epsilon, delta, params):
        if delta != 0.0:
            raise LedgerError(f"a pure budget promises delta = 0, got delta = {delta!r}; "
                              f"pass delta=0 or use currency approx", field="delta")
        return (exact.down(exact.param(epsilon)),)

    @property
    def components(self):
        return ("epsilon",)

    def cost(self, groups, delta_share):
        _no_share(self.name, delta_share)
        return (_sum_units(groups, pure_epsilon, self.name),)

    def spent(self, totals):
        return exact.float_up(totals[0]), 0.0


class Approx(Currency):
    r"""Approximate DP: sums of epsilons and of deltas.

    A charge costs its own (eps_i, delta_i): with a delta share ``delta`` given, the
    smallest certified eps at that delta (:func:`dpcompose.compose`, or the simple sum
    when that is smaller at a smaller delta); without one, the simple sums of the
    mechanisms' own (eps, delta) (a Gaussian then needs a share).

    Guarantee:
        Rogers, Roth, Ullman and Vadhan (2016): the basic composition filter is valid
        for adaptively chosen (eps_i, delta_i).
    """

    name = "approx"

    @classmethod
    def _limits(cls, epsilon, delta, params):
        return (exact.down(exact.param(epsilon)), exact.down(exact.param(delta)))

    @property
    def components(self):
        return ("epsilon", "delta")

    def cost(self, groups, delta_share):
        return charge_pair(groups, delta_share, self.name)

    def spent(self, totals):
        return exact.float_up(totals[0]), exact.float_up(totals[1])

    def _remaining_delta(self, totals):
        # the delta limit (approx: delta; advanced: delta'') minus the delta charged, rounded down
        return max(0.0, exact.float_down(exact._EXACT.subtract(self.limits[1], totals[1])))


def charge_pair(groups: Groups, delta_share: float | None, currency: str) -> tuple[Decimal, Decimal]:
    """(eps_i, delta_i) of a charge (fixed parameters inside the charge), rounded up."""
    simple: tuple[Decimal, Decimal] | None = None
    pairs = [approx_pair(m) for m, _ in groups]
    known = [(k, p) for (_, k), p in zip(groups, pairs) if p is not None]
    if len(known) == len(pairs):
        simple = (exact.total(_mul(k, p[0]) for k, p in known),
                  exact.total(_mul(k, p[1]) for k, p in known))
    if delta_share is None:
        if simple is None:
            bad = next(m for (m, _), p in zip(groups, pairs) if p is None)
            raise LedgerError(
                f"{_describe(bad)} has no pure (epsilon, delta) description; give this charge a "
                f"delta share (delta=..., e.g. 1e-7: the charge then costs the smallest certified "
                f"epsilon at that delta), or use a budget in currency zcdp, gdp or rdp", field="delta")
        return simple
    share = exact.up(exact.param(delta_share))
    if simple is not None and simple[1] <= share and simple[1] == 0 and delta_share == 0.0:
        return simple
    import dpcompose as dpc

    try:
        # at the largest float not above the share as written (<= the delta charged)
        eps = dpc.compose(groups).epsilon(_written_floor(delta_share))
    except DPComposeError as exc:
        raise LedgerError(f"cannot convert the charge at delta = {delta_share!r}: {exc}", field="mechanism") from None
    if not math.isfinite(eps):
        if simple is not None and simple[1] <= share:
            return simple
        raise LedgerError(
            f"the charge has no finite epsilon at its delta share {delta_share!r}; give a larger delta",
            field="delta")
    pair = (exact.up(eps), share)
    if simple is not None and simple[1] <= share and simple[0] <= pair[0]:
        return simple
    return pair


class Advanced(Currency):
    r"""The advanced-composition filter of Whitehouse, Ramdas, Rogers and Wu.

    A charge costs its (eps_i, delta_i) as in ``approx``; stored are eps_i^2 and delta_i.
    With delta = delta' + delta'' (here delta' = delta'' = delta / 2), a charge is
    admitted while sqrt(2 log(1/delta') sum eps_i^2) + sum eps_i^2 / 2 <= eps and
    sum delta_i <= delta'', i.e. sum eps_i^2 <= 2 rho* with
    rho* = (sqrt(log(1/delta') + eps) - sqrt(log(1/delta')))^2.

    Guarantee:
        Whitehouse, Ramdas, Rogers and Wu, "Fully-Adaptive Composition in Differential
        Privacy" (ICML 2023), the advanced-composition filter (its rate and constants
        match advanced composition); see docs/ledger.md for the statement used.
    """

    name = "advanced"

    @classmethod
    def create(cls, epsilon, delta, orders=None):
        if orders is not None:
            raise LedgerError("orders are only used by the rdp currency; leave them out", field="orders")
        params = {"delta_prime": _written_floor(delta) / 2.0, "delta_double_prime": _written_floor(delta) / 2.0}
        return cls(epsilon, delta, cls._limits(epsilon, delta, params), params)

    @classmethod
    def _limits(cls, epsilon, delta, params):
        if delta <= 0.0:
            raise LedgerError("the advanced currency needs delta > 0 (it spends delta/2 on the "
                              "concentration bound); pass e.g. delta=1e-6", field="delta")
        rho = _zcdp_rho_bs(_written_floor(epsilon), params["delta_prime"])
        # delta'' = delta / 2 from the delta written (exact decimal halving, then down)
        return (exact.down(exact._EXACT.multiply(rho, Decimal(2))), exact.down(exact.param(delta) / 2))

    @property
    def components(self):
        return ("epsilon_squared", "delta")

    def cost(self, groups, delta_share):
        eps, delta = charge_pair(groups, delta_share, self.name)
        with localcontext(exact._EXACT):
            sq = eps * eps
        return (exact.up(sq), delta)

    def spent(self, totals):
        if not any(totals):
            return 0.0, 0.0  # nothing released: 0-DP
        s = exact.float_up(totals[0])
        big_l = next_up(-math.log(self.params["delta_prime"]), 4)
        eps = next_up(math.sqrt(next_up(2.0 * big_l * s, 8)) + next_up(s / 2.0, 8), 8)
        return eps, next_up(self.params["delta_prime"] + exact.float_up(totals[1]), 8)

    def _remaining_delta(self, totals):
        # the delta limit (approx: delta; advanced: delta'') minus the delta charged, rounded down
        return max(0.0, exact.float_down(exact._EXACT.subtract(self.limits[1], totals[1])))


class Zcdp(Currency):
    r"""zCDP: the sum of rho.

    Costs: a Gaussian rho = Delta^2 / (2 sigma^2); an eps-DP mechanism rho = eps^2 / 2
    (Bun and Steinke 2016, Props. 1.6 and 1.4); a ``ZCDP(rho)`` mechanism rho (the
    rule :data:`~dpcompose.representations.zcdp_rho`). The limit is the larger of two valid
    ones: the largest rho whose conversion (Canonne, Kamath and Steinke 2020, Prop. 12,
    minimised over the dense default grid of orders) gives at most epsilon at delta, and
    Bun and Steinke's closed form (Prop. 1.3; better for tiny epsilon, whose best order
    lies beyond the grid).

    Guarantee:
        rho-zCDP is RDP (alpha, alpha rho) at every order; with sum rho_i <= rho every
        order's Renyi filter holds at once (Feldman and Zrnic, "Individual Privacy
        Accounting via a Renyi Filter", NeurIPS 2021, their Renyi filter, cited by result
        and proven in docs/ledger.md), so the interaction is rho-zCDP and any conversion
        of rho-zCDP applies.
    """

    name = "zcdp"

    @classmethod
    def _limits(cls, epsilon, delta, params):
        if delta <= 0.0:
            raise LedgerError("the zcdp currency needs delta > 0 to state an (epsilon, delta) "
                              "promise; pass e.g. delta=1e-6", field="delta")
        epsilon, delta = _written_floor(epsilon), _written_floor(delta)
        bs = _zcdp_rho_bs(epsilon, delta)  # valid at every order (continuous optimum)
        grid = exact.down(_largest(lambda r: _zcdp_epsilon(r, delta) <= epsilon, hi=float(bs) * 4 + epsilon))
        return (max(bs, grid),)

    @property
    def components(self):
        return ("rho",)

    def cost(self, groups, delta_share):
        _no_share(self.name, delta_share)
        return (_sum_units(groups, _zcdp_unit, self.name),)

    def spent(self, totals):
        rho = exact.float_up(totals[0])
        delta = _written_floor(self.delta)
        bs = next_up(rho + 2.0 * math.sqrt(next_up(rho * -math.log(delta), 8)), 8)  # Bun-Steinke Prop. 1.3
        return min(_zcdp_epsilon(rho, delta), bs), self.delta


class Gdp(Currency):
    r"""Gaussian DP: the sum of mu^2.

    Costs: a Gaussian mu^2 = (Delta/sigma)^2; an eps-DP mechanism
    mu(eps)^2 = (2 Phi^{-1}(e^eps / (1 + e^eps)))^2 (:func:`gdp_mu_of_pure`). The limit is
    the largest mu^2 whose exact Gaussian profile (Dong, Roth and Su, Cor. 2.13; certified
    upper evaluation in :func:`dpcompose.representations.gaussian_log_delta`) gives at most
    delta at epsilon.

    Guarantee:
        Smith and Thakurta, "Fully Adaptive Composition for Gaussian Differential
        Privacy" (2022): adaptively chosen mu_i-GDP mechanisms stopped before
        sum mu_i^2 exceeds mu^2 are mu-GDP.
    """

    name = "gdp"

    @classmethod
    def _limits(cls, epsilon, delta, params):
        from ..representations import gaussian_log_delta

        if delta <= 0.0:
            raise LedgerError("the gdp currency needs delta > 0 to state an (epsilon, delta) "
                              "promise; pass e.g. delta=1e-6", field="delta")
        epsilon, delta = _written_floor(epsilon), _written_floor(delta)
        log_d = next_down(math.log(delta), 2)  # log rounds to nearest: lowered, toward refusal
        mu = _largest(lambda u: u == 0.0 or gaussian_log_delta(u, epsilon) <= log_d, hi=1.0)
        mu_down = exact.down(mu)  # 20 digits, rounded down: mu^2 rounded down again (a limit)
        return (exact.DOWN.multiply(mu_down, mu_down),)

    @property
    def components(self):
        return ("mu_squared",)

    def cost(self, groups, delta_share):
        _no_share(self.name, delta_share)
        return (_sum_units(groups, _gdp_unit, self.name),)

    def spent(self, totals):
        from ..representations import gaussian_log_delta

        mu = next_up(math.sqrt(exact.float_up(totals[0])), 8)
        if mu == 0.0:
            return 0.0, self.delta
        log_d = next_down(math.log(_written_floor(self.delta)), 2)  # lowered: epsilon spent rounds up
        # the smallest epsilon with delta_mu(epsilon) <= delta, ending on the passing side
        lo, hi = 0.0, 1.0
        while gaussian_log_delta(mu, hi) > log_d:
            hi *= 2
        for _ in range(200):
            mid = (lo + hi) / 2
            if mid in (lo, hi):
                break
            if gaussian_log_delta(mu, mid) <= log_d:
                hi = mid
            else:
                lo = mid
        return hi, self.delta


class Rdp(Currency):
    r"""Renyi DP at a grid of orders fixed when the budget is created.

    Costs: the charge's Renyi curve at each order (:func:`dpcompose.methods.rdp.compose_rdp`,
    an upper bound), rounded up. With n orders, order alpha's limit is
    B(alpha) = epsilon - c(alpha), c(alpha) = log((alpha-1)/alpha) - (log(delta/n) + log alpha)/(alpha-1)
    (Canonne, Kamath and Steinke 2020, Prop. 12 at delta/n), and a charge is admitted
    while SOME order stays within its limit.

    Guarantee:
        Each order alone is a Renyi filter (Feldman and Zrnic 2021, cited by result; proven
        in docs/ledger.md, Lemma). Admitting
        while some order has budget is not that theorem; it is valid with delta split
        over the orders (docs/ledger.md, "rdp": the process stopped at order alpha is
        (alpha, B(alpha))-RDP; every run ends inside some order's filter; a union over
        the orders of disjoint events costs delta/n each). Compare Lecuyer, "Practical
        Privacy Filters and Odometers with Renyi Differential Privacy and Applications
        to Differentially Private Deep Learning" (2021).
    """

    name = "rdp"

    @classmethod
    def create(cls, epsilon, delta, orders=None):
        if delta <= 0.0:
            raise LedgerError("the rdp currency needs delta > 0; pass e.g. delta=1e-6", field="delta")
        grid = _check_orders(orders)
        params = {"orders": list(grid)}
        return cls(epsilon, delta, cls._limits(epsilon, delta, params), params)

    @classmethod
    def _limits(cls, epsilon, delta, params):
        grid = params["orders"]
        share = next_down(_written_floor(delta) / len(grid), 1)  # a smaller delta share is the safe side
        out = []
        for a in grid:
            c = _rdp_offset(a, share)
            # the epsilon written minus the certified c(alpha), an exact decimal difference
            out.append(exact.down(exact._EXACT.subtract(exact.param(epsilon), exact.up(c))))
        if all(x <= 0 for x in out):
            raise LedgerError(
                f"epsilon = {epsilon!r} is too small for delta = {delta!r} at every order "
                f"{list(grid)}; raise epsilon or delta, or add larger orders", field="epsilon")
        return tuple(out)

    @property
    def orders(self) -> tuple[float, ...]:
        return tuple(self.params["orders"])

    @property
    def components(self):
        return tuple(f"rdp({a:g})" for a in self.orders)

    def cost(self, groups, delta_share):
        from ..methods.rdp import compose_rdp

        _no_share(self.name, delta_share)
        try:
            _, tau = compose_rdp(groups, np.asarray(self.orders))
        except (MethodNotApplicableError, DPComposeError) as exc:
            raise _refuse(self.name, f"this charge ({exc})") from None
        if not np.any(np.isfinite(tau)):
            raise _refuse(self.name, "this charge (its Renyi curve is infinite at every order)")
        return tuple(exact.up(float(t)) if math.isfinite(t) else _INF_COST for t in tau)

    def admits(self, totals):
        return any(t <= lim for t, lim in zip(totals, self.limits, strict=True))

    def spent(self, totals):
        if not any(totals):
            return 0.0, self.delta  # nothing released: 0-DP
        share = next_down(_written_floor(self.delta) / len(self.orders), 1)
        best = math.inf
        for a, t in zip(self.orders, totals):
            if t >= _INF_COST:
                continue
            best = min(best, next_up(exact.float_up(t) + _rdp_offset(a, share), 4))
        return max(0.0, best), self.delta


#: stands for an infinite Renyi cost at one order (above every limit; exact to add and refund)
_INF_COST = exact.CAP


CURRENCIES: dict[str, type[Currency]] = {c.name: c for c in (Pure, Approx, Advanced, Zcdp, Gdp, Rdp)}


#: the currency of budgets with a pre-registered plan (:mod:`dpcompose.ledger.plans`)
PLAN_CURRENCY = "plan"


def check_promise(epsilon: Any, delta: Any) -> tuple[float, float]:
    """The promise (epsilon, delta) checked: epsilon in (0, 10^4], delta in [0, 1)."""
    return (_check_number("epsilon", epsilon, 0.0, MAX_EPSILON, low_open=True),
            _check_number("delta", delta, 0.0, 1.0, high_open=True))


def create_currency(name: Any, epsilon: Any, delta: Any, orders: Sequence[float] | None = None) -> Currency:
    """Validate the promise and build the currency with its limits (rounded down)."""
    if name == PLAN_CURRENCY:
        raise LedgerError("currency 'plan' is the currency of budgets with a pre-registered plan; give the "
                          "plan (plan=TOML text) or choose a filter currency", field="plan")
    if not isinstance(name, str) or name not in CURRENCIES:
        raise LedgerError(f"currency = {name!r} is not one of {', '.join(CURRENCIES)} (or '{PLAN_CURRENCY}' "
                          f"with a pre-registered plan)", field="currency")
    eps, dlt = check_promise(epsilon, delta)
    return CURRENCIES[name].create(eps, dlt, orders)


def load_currency(name: str, epsilon: float, delta: float, limits: Sequence[str], params: dict[str, Any]) -> Currency:
    """Rebuild a stored currency (limits as stored: a library upgrade never moves a promise)."""
    if name == PLAN_CURRENCY:
        from .plans import PlanCurrency

        return PlanCurrency(epsilon, delta, tuple(Decimal(x) for x in limits), params)
    return CURRENCIES[name](epsilon, delta, tuple(Decimal(x) for x in limits), params)


def _check_number(field: str, value: Any, low: float, high: float, *, low_open: bool = False,
                  high_open: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, Decimal)):
        raise LedgerError(f"{field} = {value!r} must be a number", field=field)
    x = float(value)
    lo_b, hi_b = ("(" if low_open else "["), (")" if high_open else "]")
    if math.isnan(x) or math.isinf(x) or x < low or x > high or (low_open and x == low) or (high_open and x == high):
        raise LedgerError(f"{field} = {value!r} is outside the valid range {lo_b}{low:g}, {high:g}{hi_b}",
                          field=field)
    return x


def dumps(values: Sequence[Decimal]) -> str:
    """Decimal vector as JSON text (strings)."""
    return json.dumps([exact.text(v) for v in values])


def loads(text: str) -> tuple[Decimal, ...]:
    return tuple(Decimal(x) for x in json.loads(text))
