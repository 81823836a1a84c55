"""Truth for the mixture-of-Gaussians pair (mpmath): P = N(0, 1), Q = sum_i p_i N(mu_i, 1).

Exact up to the working precision (callers set ``mp.mp.dps``), no side:

- :func:`hockey_threshold`: H_{e^e} of one orientation by the threshold where the
  (monotone) loss crosses e, located by a bracketing root finder in mpmath, and the Gaussian tails;
- :func:`hockey_quad`: the same divergence as ``mp.quad`` of (p - e^e q)_+ from the two
  densities, split at the threshold (independent of the tail formula);
- :func:`hockey_composed2`: the two-fold composition of one orientation, as a 1-D
  quadrature over the first output of the exact one-step divergence of the second;
- :func:`renyi_quad`: the Renyi divergence of one orientation by quadrature of
  E_P[(Q/P)^alpha] (remove) or E_P[(Q/P)^(1 - alpha)] (add).

"remove" is H(Q || P) (the record present under the first law), "add" is H(P || Q).
"""

import mpmath as mp


def _parts(sigma, cs, ps):
    mus = [mp.mpf(c) / mp.mpf(sigma) for c in cs]
    return mus, [mp.mpf(p) for p in ps]


def _loss(mus, ps, z):
    return mp.log(mp.fsum(p * mp.exp(mu * z - mu * mu / 2) for mu, p in zip(mus, ps)))


def _root(mus, ps, target):
    """z with L(z) = target (L increasing, so the root is unique), or None if target <= inf L."""
    p0 = mp.fsum(p for mu, p in zip(mus, ps) if mu == 0)
    if p0 > 0 and target <= mp.log(p0):
        return None
    lo, hi = mp.mpf(-1), mp.mpf(1)
    while _loss(mus, ps, lo) > target:
        lo *= 2
    while _loss(mus, ps, hi) < target:
        hi *= 2
    # a bracketing solver (Illinois) on [lo, hi], where L - target changes sign
    return mp.findroot(lambda z: _loss(mus, ps, z) - target, (lo, hi), solver="illinois")


def hockey_threshold(sigma, cs, ps, e, direction):
    """H_{e^e} of one orientation ("remove": H(Q||P); "add": H(P||Q)), exact."""
    mus, ps = _parts(sigma, cs, ps)
    e = mp.mpf(e)
    g = mp.exp(e)
    if direction == "remove":
        z = _root(mus, ps, e)
        return max(mp.mpf(0), mp.fsum(p * mp.ncdf(mu - z) for mu, p in zip(mus, ps)) - g * mp.ncdf(-z))
    z = _root(mus, ps, -e)
    if z is None:
        return mp.mpf(0)
    return max(mp.mpf(0), mp.ncdf(z) - g * mp.fsum(p * mp.ncdf(z - mu) for mu, p in zip(mus, ps)))


def hockey_quad(sigma, cs, ps, e, direction):
    """The same divergence by quadrature of (first - e^e second)_+ over the real line."""
    mus, ps = _parts(sigma, cs, ps)
    g = mp.exp(mp.mpf(e))

    def a(z):
        return mp.npdf(z)

    def b(z):
        return mp.fsum(p * mp.npdf(z - mu) for mu, p in zip(mus, ps))

    first, second = (b, a) if direction == "remove" else (a, b)
    z = _root(mus, ps, mp.mpf(e) if direction == "remove" else -mp.mpf(e))
    if z is None:
        return mp.mpf(0)
    f = lambda x: max(mp.mpf(0), first(x) - g * second(x))  # noqa: E731
    hi = max(mus) + 40
    if direction == "remove":
        return mp.quad(f, [z, z + 1, z + 4, hi]) if z < hi else mp.mpf(0)
    return mp.quad(f, [-40, z - 4, z - 1, z]) if z > -40 else mp.mpf(0)


def hockey_composed2(sigma, cs, ps, e, direction):
    """H_{e^e} of the two-fold composition of one orientation, exact (1-D quadrature).

    With first law F and second S of the orientation and loss l = log(F/S):
    H = int F(x) h(e - l(x)) dx, where h(t) = int (F - e^t S)_+ is the one-step divergence
    at any real t (remove: 1 - e^t where t is at most the infimum log p0 of the loss, the
    whole support positive; add: 0 where t is at least the supremum -log p0 of -l).
    """
    mus, ps = _parts(sigma, cs, ps)

    def b(z):
        return mp.fsum(p * mp.npdf(z - mu) for mu, p in zip(mus, ps))

    def one(t):
        if direction == "remove":
            z = _root(mus, ps, t)
            if z is None:  # L(y) >= t everywhere
                return 1 - mp.exp(t)
            return mp.fsum(p * mp.ncdf(mu - z) for mu, p in zip(mus, ps)) - mp.exp(t) * mp.ncdf(-z)
        z = _root(mus, ps, -t)
        if z is None:  # -L(y) <= t everywhere
            return mp.mpf(0)
        return mp.ncdf(z) - mp.exp(t) * mp.fsum(p * mp.ncdf(z - mu) for mu, p in zip(mus, ps))

    if direction == "remove":
        f = lambda x: b(x) * max(mp.mpf(0), one(mp.mpf(e) - _loss(mus, ps, x)))  # noqa: E731
    else:
        f = lambda x: mp.npdf(x) * max(mp.mpf(0), one(mp.mpf(e) + _loss(mus, ps, x)))  # noqa: E731
    top = max(mus)
    return mp.quad(f, [-30, -8, -3, 0, top, top + 3, top + 8, top + 30])


def renyi_quad(sigma, cs, ps, alpha, direction):
    """D_alpha of one orientation ("remove": D(Q||P); "add": D(P||Q)) by quadrature, exact."""
    mus, ps = _parts(sigma, cs, ps)
    alpha = mp.mpf(alpha)
    ratio = lambda z: mp.fsum(p * mp.exp(mu * z - mu * mu / 2) for mu, p in zip(mus, ps))  # noqa: E731
    top = max(mus)
    if direction == "remove":
        val = mp.quad(lambda z: mp.npdf(z) * ratio(z) ** alpha, [-mp.inf, -5, 0, 5, alpha * top + 5, mp.inf])
    else:
        val = mp.quad(lambda z: mp.npdf(z) * ratio(z) ** (1 - alpha), [-mp.inf, -alpha * top - 5, -5, 0, 5, mp.inf])
    return mp.log(val) / (alpha - 1)
