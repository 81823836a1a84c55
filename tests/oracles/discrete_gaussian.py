"""The discrete Gaussian mechanism by enumeration of its outputs, in mpmath.

Independent of dpcompose: P(k) = exp(-k^2 / (2 sigma^2)) / Theta on the integers, with
Theta summed over |k| <= K and K so large that the mass left out is below 1e-45 (every
quantity here errs by at most that), the pair B = N_Z(sensitivity) (with the record),
A = N_Z(0), outputs merged by their exact integer loss key 2 k Delta - Delta^2 (the loss
is key / (2 sigma^2)). Callers set ``mp.mp.dps`` (40 or more).
"""

import mpmath as mp

from .discrete_laplace import compose  # noqa: F401  (keys add: the same product of loss laws)


def loss_law(sigma, sensitivity, reach=0):
    """{key: (B-mass, A-mass)} of one invocation.

    ``reach``: how much further to enumerate; Renyi divergences of order alpha weigh the
    outputs around alpha * sensitivity, so ``renyi`` needs ``reach >= alpha * sensitivity``.
    """
    s2 = 2 * mp.mpf(sigma) ** 2
    n = int(sensitivity)
    big_k = int(mp.ceil(15 * mp.mpf(sigma))) + n + 5 + int(reach)  # e^{-K^2 / 2 sigma^2} < e^-112
    theta = mp.fsum(mp.exp(-mp.mpf(k) ** 2 / s2) for k in range(-big_k - n, big_k + n + 1))
    law = {}
    for k in range(-big_k, big_k + n + 1):
        key = 2 * k * n - n * n
        law[key] = (mp.exp(-mp.mpf(k - n) ** 2 / s2) / theta, mp.exp(-mp.mpf(k) ** 2 / s2) / theta)
    return law


def delta(law, sigma, e):
    """sum (B - e^e A)_+ over the outputs, the loss of key being key / (2 sigma^2)."""
    g = mp.exp(mp.mpf(e))
    return mp.fsum(max(mp.mpf(0), b - g * a) for b, a in law.values())


def renyi(law, alpha):
    """D_alpha(B || A)."""
    alpha = mp.mpf(alpha)
    return mp.log(mp.fsum(b ** alpha * a ** (1 - alpha) for b, a in law.values())) / (alpha - 1)
