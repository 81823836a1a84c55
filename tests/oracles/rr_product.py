"""Brute-force oracle: the optimal composition of heterogeneous (eps_i, delta_i)-DP, enumerated in mpmath.

The worst case of (eps_i, delta_i)-DP is randomized response with an extra atom of mass
delta_i on which the loss is infinite (Kairouz, Oh and Viswanath); the exact optimal
composition (Murtagh and Vadhan) is the hockey-stick divergence of the product of those
pairs. Here it is computed by enumerating all 2^k sign vectors of the randomized
responses, in mpmath at 40 digits (or the caller's precision if higher). Independent of
the code under test: no dpcompose import.

Which side each oracle errs on:

- :func:`rr_law`, :func:`rr_delta`, :func:`approx_delta`, :func:`mixture_hockey`, :func:`rr_hockey`:
  exact to the working precision (~1e-40 relative): neither side.
- :func:`exact_epsilon`: bisection on the exact profile; returns ``(lo, hi)`` with the
  exact epsilon in between and ``hi - lo <= 1e-14 hi`` (compare upper bounds with ``lo``,
  lower bounds with ``hi``).
"""

from __future__ import annotations

import itertools
import math

import mpmath as mp

from .precision import at_least_digits


@at_least_digits(40)
def rr_law(eps_list):
    """[(loss, P-mass)] of prod RR(eps_i) over all 2^k sign vectors with loss > 0."""
    eps = [mp.mpf(e) for e in eps_list]
    p = [1 / (1 + mp.exp(-e)) for e in eps]
    law = []
    for signs in itertools.product((1, -1), repeat=len(eps)):
        loss = mp.fsum(s * e for s, e in zip(signs, eps))
        if loss > 0:
            law.append((loss, mp.fprod(pi if s > 0 else 1 - pi for s, pi in zip(signs, p))))
    return law


@at_least_digits(40)
def rr_delta(eps_list, x, law=None):
    """H_{e^x}(prod RR(eps_i) || its mirror) = E_P[(1 - e^{x - L})_+] (``law``: :func:`rr_law`), x >= 0."""
    x = mp.mpf(x)
    law = rr_law(eps_list) if law is None else law
    return mp.fsum(m * -mp.expm1(x - loss) for loss, m in law if loss > x)


@at_least_digits(40)
def approx_delta(pairs, x, law=None):
    """delta(x) of the optimal composition of (eps_i, delta_i)-DP: 1 - prod(1 - d_i)(1 - rr_delta)."""
    keep = mp.fprod(1 - mp.mpf(d) for _, d in pairs)
    return 1 - keep * (1 - rr_delta([e for e, _ in pairs], x, law))


@at_least_digits(40)
def exact_epsilon(delta_fn, target, hi=200.0):
    """(lo, hi) around the smallest x >= 0 with delta_fn(x) <= target (bisection in mpmath).

    ``(hi, inf)`` when even ``delta_fn(hi)`` is above the target.
    """
    target = mp.mpf(target)
    lo, hi = mp.mpf(0), mp.mpf(hi)
    if delta_fn(lo) <= target:
        return 0.0, 0.0
    if delta_fn(hi) > target:
        return float(hi), math.inf
    while hi - lo > mp.mpf("1e-14") * hi:
        mid = (lo + hi) / 2
        if delta_fn(mid) > target:
            lo = mid
        else:
            hi = mid
    return float(lo), float(hi)


@at_least_digits(40)
def rr_hockey(eps, log_gamma):
    """H_gamma(RR(eps)) = (e^eps - gamma)_+ / (1 + e^eps) + (1 - gamma e^eps)_+ / (1 + e^eps)."""
    eps, g = mp.mpf(eps), mp.exp(mp.mpf(log_gamma))
    zero = mp.mpf(0)
    return (max(zero, mp.exp(eps) - g) + max(zero, 1 - g * mp.exp(eps))) / (1 + mp.exp(eps))


@at_least_digits(40)
def mixture_hockey(lam, a, b, log_gamma):
    """H_gamma of the flagged mixture lam RR(b) + (1 - lam) RR(a) (flag revealed)."""
    lam = mp.mpf(lam)
    return lam * rr_hockey(b, log_gamma) + (1 - lam) * rr_hockey(a, log_gamma)
