"""The optimal composition of k identical eps-DP mechanisms at any k, in mpmath.

Kairouz, Oh and Viswanath (2015): the worst case of k-fold eps-DP is k-fold eps-randomized
response, whose delta(x) is sum over l (the flips, l ~ Bin(k, a), a = 1/(1 + e^eps) under
P) of P_l (1 - e^{x - (k - 2l) eps})_+. ``oracles.kov_delta_mp`` sums every term, which
is too slow at k = 10^6; this oracle sums only the terms with loss above x, walking down
from the largest such l with the exact ratio P_{l-1}/P_l = l e^eps / (k - l + 1), and stops
once the geometric bound on the rest is below 10^-(dps - 8) of the total. Exact up to that
relative error and the working precision (``dps`` digits); erring on neither side beyond it.
Independent of the code under test (no windows, no Loader form, no prefix sums).
"""

import mpmath as mp


def kov_delta_tail_mp(eps, k, x, dps=40):
    """delta(x) of k-fold eps-randomized response (the optimal composition of k-fold eps-DP)."""
    with mp.workdps(dps):
        E, X = mp.mpf(eps), mp.mpf(x)
        a = 1 / (1 + mp.exp(E))
        l = int(mp.floor((k - X / E) / 2))
        while l >= 0 and (k - 2 * l) * E <= X:
            l -= 1
        while l + 1 <= k and (k - 2 * (l + 1)) * E > X:
            l += 1
        if l < 0:
            return mp.mpf(0)
        l = min(l, k)
        p = mp.exp(mp.loggamma(k + 1) - mp.loggamma(l + 1) - mp.loggamma(k - l + 1)
                   + l * mp.log(a) + (k - l) * mp.log(1 - a))
        total = mp.mpf(0)
        rel = mp.mpf(10) ** -(dps - 8)
        while True:
            total += p * -mp.expm1(X - (k - 2 * l) * E)
            if l == 0:
                return total
            ratio = l * mp.exp(E) / (k - l + 1)  # P_{l-1} / P_l, non-increasing as l falls
            p *= ratio
            l -= 1
            if ratio < 1 and p / (1 - ratio) < rel * total:
                return total
