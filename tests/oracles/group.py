"""Group privacy by brute force: chains of finite distributions, in mpmath.

Independent of dpcompose: a chain ``P_0, ..., P_g`` of distributions on a few outputs
(each step multiplies the masses by random factors and renormalises), the per-step
delta at a given epsilon (the largest hockey-stick divergence of consecutive laws,
both directions), and the group's divergence between the chain's ends. Exact at the
working precision (callers set ``mp.mp.dps``); nothing is truncated.
"""

import itertools
import random

import mpmath as mp


def hockey(p, q, e):
    """H_{e^e}(P || Q) = sum (p - e^e q)_+ of two finite laws."""
    g = mp.exp(mp.mpf(e))
    return sum((max(mp.mpf(0), a - g * b) for a, b in zip(p, q)), mp.mpf(0))


def random_chain(seed, size, outputs=4, spread=0.6):
    """g + 1 laws on ``outputs`` points; consecutive ones differ by factors in e^[-spread, spread]."""
    rng = random.Random(seed)
    law = [mp.mpf(rng.random() + 0.05) for _ in range(outputs)]
    chain = [[x / sum(law) for x in law]]
    for _ in range(size):
        nxt = [x * mp.exp(mp.mpf(rng.uniform(-spread, spread))) for x in chain[-1]]
        chain.append([x / sum(nxt) for x in nxt])
    return chain


def step_delta(chain, eps):
    """The per-record delta at eps: the largest divergence between neighbours of the chain."""
    return max(max(hockey(p, q, eps), hockey(q, p, eps)) for p, q in itertools.pairwise(chain))


def group_divergence(chain, e):
    """The group's delta at e: between the chain's ends, both directions."""
    return max(hockey(chain[0], chain[-1], e), hockey(chain[-1], chain[0], e))
