"""The discrete Laplace mechanism by enumeration of its outputs, in mpmath.

Independent of dpcompose: the two-sided geometric law P(k) = c r^|k| (r = e^{-1/b},
c = (1 - r)/(1 + r)) is evaluated at every output k in [-K, K + sensitivity], with K so
large that the mass left out is below 1e-40 (so every quantity here errs low by at most
that), and the pair is B = DL(0) (with the record), A = DL(sensitivity). Compositions
merge outputs by their exact integer loss key |k - Delta| - |k| (the loss is key / b)
and convolve the loss laws. Callers set ``mp.mp.dps`` (40 or more).
"""

import mpmath as mp


def _outputs(scale, sensitivity):
    """[(key, B-mass, A-mass)] over the enumerated outputs; loss = key / scale."""
    t = 1 / mp.mpf(scale)
    r = mp.exp(-t)
    c = (1 - r) / (1 + r)
    s = int(sensitivity)
    big_k = int(mp.ceil(100 / t)) + 10  # r^K < e^-100
    out = []
    for k in range(-big_k, big_k + s + 1):
        out.append((abs(k - s) - abs(k), c * r ** abs(k), c * r ** abs(k - s)))
    return out


def loss_law(scale, sensitivity):
    """{key: (B-mass, A-mass)} of one invocation (outputs merged by loss)."""
    law = {}
    for key, b, a in _outputs(scale, sensitivity):
        pb, pa = law.get(key, (mp.mpf(0), mp.mpf(0)))
        law[key] = (pb + b, pa + a)
    return law


def compose(*laws):
    """The loss law of the product of the pairs (keys add)."""
    total = {0: (mp.mpf(1), mp.mpf(1))}
    for law in laws:
        nxt = {}
        for k1, (b1, a1) in total.items():
            for k2, (b2, a2) in law.items():
                pb, pa = nxt.get(k1 + k2, (mp.mpf(0), mp.mpf(0)))
                nxt[k1 + k2] = (pb + b1 * b2, pa + a1 * a2)
        total = nxt
    return total


def delta(law, scale, e):
    """Hockey-stick divergence sum_k (B - e^e A)_+ of a loss law whose loss is key / scale."""
    g = mp.exp(mp.mpf(e))
    return sum((max(mp.mpf(0), b - g * a) for b, a in law.values()), mp.mpf(0))


def renyi(law, alpha):
    """D_alpha(B || A) of a loss law."""
    alpha = mp.mpf(alpha)
    s = sum((b ** alpha * a ** (1 - alpha) for b, a in law.values() if b > 0), mp.mpf(0))
    return mp.log(s) / (alpha - 1)
