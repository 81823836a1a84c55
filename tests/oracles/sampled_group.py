"""A g-record instance of the Poisson-subsampled Gaussian, in mpmath: lower bounds of the group's truth.

The instance: a one-dimensional sum query with records clipped to 1, noise N(0, s^2), each of
a person's g records sampled independently with probability q. The databases with and
without the person give, per step, P = N(0, s^2) and Q = sum_j Binom(g, q)_j N(j, s^2), and
k steps the product pair (P^k, Q^k). Any database pair bounds the group's truth from below,
so every function here errs LOW (a lower bound of the true group divergence / delta), never
high:

- :func:`renyi_divergences`: D_alpha(Q||P) and D_alpha(P||Q) of one step by quadrature
  (the integrands are smooth; quadrature error far below the tests' margins);
- :func:`threshold_delta`: Q^k(S > t) - e^eps P^k(S > t) and P^k(S < t) - e^eps Q^k(S < t)
  for the sum S of the k outputs: the probabilities of an event, so a lower bound of the
  hockey-stick divergence of the product pair for ANY threshold t. Under P^k, S ~ N(0, k s^2);
  under Q^k, S is the mixture over J ~ Binom(kg, q) of N(J, k s^2) (closed forms, erfc).
  The likelihood ratio of S is monotone in t, so the best threshold is where it equals
  e^eps (found by bisection; any t is valid); for k = 1 the sum is the output itself and the
  value is the exact delta of the one-step pair.

Callers set the precision (``mp.workdps``).
"""

import mpmath as mp


def _weights(n, q):
    q = mp.mpf(q)
    return [mp.binomial(n, j) * q ** j * (1 - q) ** (n - j) for j in range(n + 1)]


def renyi_divergences(sigma, q, size, alpha):
    """(D_alpha(Q||P), D_alpha(P||Q)) of one step, integer alpha >= 2, by mpmath quadrature."""
    s = mp.mpf(sigma)
    weights = _weights(size, q)

    def p(x):
        return mp.npdf(x, 0, s)

    def qd(x):
        return mp.fsum(w * mp.npdf(x, j, s) for j, w in enumerate(weights))

    points = [-40 * s, -s, mp.mpf(0), mp.mpf(size) / 2, mp.mpf(size), size + s, size + 40 * s]
    qp = mp.quad(lambda x: qd(x) ** alpha * p(x) ** (1 - alpha), points)
    pq = mp.quad(lambda x: p(x) ** alpha * qd(x) ** (1 - alpha), points)
    return mp.log(qp) / (alpha - 1), mp.log(pq) / (alpha - 1)


def _sum_laws(sigma, q, size, steps):
    """The sum's laws: the N(0, k s^2) scale and the mixture weights over J (negligible tail cut: lower)."""
    n = size * steps
    sd = mp.sqrt(steps) * mp.mpf(sigma)
    mean = n * mp.mpf(q)
    spread = mp.sqrt(n * mp.mpf(q) * (1 - mp.mpf(q)))
    top = min(n, int(mean + 40 * spread + 40))
    # dropping the weights of J > top only lowers Q^k's probabilities (a lower bound stays one)
    weights = [mp.binomial(n, j) * mp.mpf(q) ** j * (1 - mp.mpf(q)) ** (n - j) for j in range(top + 1)]
    return sd, weights


def threshold_delta(sigma, q, size, steps, eps):
    """max over the two directions of the threshold tests' delta at eps (a lower bound of the truth)."""
    sd, weights = _sum_laws(sigma, q, size, steps)
    g = mp.exp(mp.mpf(eps))

    def ratio(t):  # density of S under Q^k over that under P^k (increasing in t)
        return mp.fsum(w * mp.exp((j * t - mp.mpf(j) ** 2 / 2) / sd ** 2) for j, w in enumerate(weights))

    def crossing(level):
        lo, hi = mp.mpf(-10) * sd - 100, mp.mpf(len(weights)) + 10 * sd + 100
        for _ in range(100):
            mid = (lo + hi) / 2
            if ratio(mid) > level:
                hi = mid
            else:
                lo = mid
        return lo

    def q_above(t):
        return mp.fsum(w * mp.ncdf(-(t - j) / sd) for j, w in enumerate(weights))

    def p_above(t):
        return mp.ncdf(-t / sd)

    t_up = crossing(g)  # Q/P > e^eps above it
    forward = q_above(t_up) - g * p_above(t_up)
    t_down = crossing(1 / g)  # P/Q > e^eps below it
    # Q^k(S < t) <= 1 - (the kept weights' mass above t): the dropped mass counted below t (lower)
    backward = (1 - p_above(t_down)) - g * (1 - q_above(t_down))
    return max(forward, backward, mp.mpf(0))
