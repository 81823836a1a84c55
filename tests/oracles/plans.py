"""Exact oracles for pre-registered plans: privacy profiles and adaptive transcripts.

Errs on no side: closed forms and exact enumeration in mpmath (callers set ``mp.mp.dps``).

- :func:`profile_mp`: delta(e) of one mechanism's worst-case pair, from the textbook
  closed forms (randomized response / Kairouz-Oh-Viswanath for (eps, delta)-DP,
  Laplace, Gaussian), independent of dpcompose's representations.
- :func:`transcript_delta_mp`: the exact hockey-stick divergence between the transcripts
  of an adaptive analyst in two worlds, where every admitted mechanism is randomized
  response on the charged database's membership bit.
"""

from __future__ import annotations

from typing import Any, Callable

import mpmath as mp


def rr_delta_mp(eps: Any, e: Any) -> mp.mpf:
    """delta(e) of eps-randomized response: [e^eps - e^e]_+ / (1 + e^eps)."""
    eps, e = mp.mpf(eps), mp.mpf(e)
    return max(mp.mpf(0), (mp.exp(eps) - mp.exp(e)) / (1 + mp.exp(eps)))


def profile_mp(kind: str, p: Any, e: Any, delta: Any = 0) -> mp.mpf:
    """delta(e), e >= 0, of a mechanism's worst-case pair.

    Args:
        kind: ``"dp"`` ((p, delta)-DP: Kairouz, Oh and Viswanath's pair, delta + (1 - delta) RR),
            ``"laplace"`` (p = sensitivity / scale: 1 - exp((e - p) / 2) for e < p, else 0),
            ``"gaussian"`` (p = sensitivity / sigma: Balle and Wang's closed form).
    """
    p, e = mp.mpf(p), mp.mpf(e)
    if kind == "dp":
        d = mp.mpf(delta)
        return d + (1 - d) * rr_delta_mp(p, e)
    if kind == "laplace":
        return max(mp.mpf(0), 1 - mp.exp((e - p) / 2))
    if kind == "gaussian":
        return mp.ncdf(p / 2 - e / p) - mp.exp(e) * mp.ncdf(-p / 2 - e / p)
    raise ValueError(kind)


def _hockey(p0: dict, p1: dict, e: Any) -> mp.mpf:
    x = mp.exp(mp.mpf(e))
    keys = set(p0) | set(p1)
    return sum((max(mp.mpf(0), p1.get(k, 0) - x * p0.get(k, 0)) for k in keys), mp.mpf(0))


def transcripts_mp(step: Callable[[tuple], Any], b: tuple[int, ...], depth: int) -> dict[tuple, mp.mpf]:
    """The law of an adaptive analyst's transcript when the person's bits are ``b``.

    ``step(history)`` returns ``None`` (stop), ``("refused",)`` (the ledger refused: the
    analyst sees that and goes on) or ``("run", database, eps)``: randomized response with
    parameter eps on the membership bit ``b[database]`` (outputs 1 with probability
    e^eps / (1 + e^eps) when the bit is 1, else with probability 1 / (1 + e^eps)).
    """
    out: dict[tuple, mp.mpf] = {}

    def walk(h: tuple, prob: mp.mpf, left: int) -> None:
        act = step(h) if left else None
        if act is None:
            out[h] = out.get(h, mp.mpf(0)) + prob
            return
        if act[0] == "refused":
            walk(h + ("refused",), prob, left - 1)
            return
        _, d, eps = act
        q = mp.exp(mp.mpf(eps)) / (1 + mp.exp(mp.mpf(eps)))
        p1 = q if b[d] else 1 - q
        walk(h + (1,), prob * p1, left - 1)
        walk(h + (0,), prob * (1 - p1), left - 1)

    walk((), mp.mpf(1), depth)
    return out


def transcript_delta_mp(step: Callable[[tuple], Any], b0: tuple[int, ...], b1: tuple[int, ...], depth: int,
                        e: Any) -> mp.mpf:
    """max over both directions of the hockey-stick divergence of the two transcript laws."""
    t0, t1 = transcripts_mp(step, b0, depth), transcripts_mp(step, b1, depth)
    return max(_hockey(t0, t1, e), _hockey(t1, t0, e))


def rr_product_delta_mp(epsilons: list[Any], e: Any) -> mp.mpf:
    """Exact delta(e) of the product of randomized responses (all outcomes enumerated)."""
    p0: dict[tuple, mp.mpf] = {(): mp.mpf(1)}
    p1: dict[tuple, mp.mpf] = {(): mp.mpf(1)}
    for eps in epsilons:
        q = mp.exp(mp.mpf(eps)) / (1 + mp.exp(mp.mpf(eps)))
        p0 = {k + (y,): v * (q if y == 0 else 1 - q) for k, v in p0.items() for y in (0, 1)}
        p1 = {k + (y,): v * (q if y == 1 else 1 - q) for k, v in p1.items() for y in (0, 1)}
    return max(_hockey(p0, p1, e), _hockey(p1, p0, e))
