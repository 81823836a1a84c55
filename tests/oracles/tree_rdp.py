"""Single-epoch tree aggregation's published RDP accounting, recomputed in mpmath.

Kairouz, McMahan, Song, Thakkar, Thakurta and Xu, "Practical and Private (Deep) Learning
without Sampling or Shuffling" (ICML 2021), App. D: one pass over ``steps`` leaves, each
example in one leaf, is the Gaussian mechanism on at most ``floor(log2 steps) + 1``
released nodes, i.e. ``alpha * nodes / (2 sigma^2)``-RDP; their public accounting
(TensorFlow Privacy's ``compute_rdp_tree_restart``) converts it to (epsilon, delta) with
the classic bound epsilon = min over orders of RDP(alpha) + log(1/delta)/(alpha - 1)
(Mironov, "Renyi Differential Privacy", Prop. 3) on its grid of orders
``1 + x/10`` (x = 1..99) and 12..63. Written here from those statements, independent
of dpcompose (the node count by integer arithmetic, the minimum in mpmath at the
caller's precision).

Which side it errs on: it is the source's own number, exactly (no rounding); as a bound on
the true epsilon it is an upper bound (RDP conversion), never below the exact Gaussian's.
"""

import mpmath as mp

#: TensorFlow Privacy's default RDP orders for tree aggregation
ORDERS = [1 + mp.mpf(x) / 10 for x in range(1, 100)] + [mp.mpf(a) for a in range(12, 64)]


def nodes(steps):
    """floor(log2 steps) + 1: the most released dyadic nodes one leaf lies in."""
    return int(steps).bit_length()


def classic_rdp_epsilon(noise_multiplier, steps, delta):
    """min over ORDERS of alpha nodes / (2 sigma^2) + log(1/delta) / (alpha - 1)."""
    rho = mp.mpf(nodes(steps)) / (2 * mp.mpf(noise_multiplier) ** 2)
    log_inv = -mp.log(mp.mpf(delta))
    return min(a * rho + log_inv / (a - 1) for a in ORDERS)
