"""Random allocation by brute force: the exact epoch laws over every allocation, in mpmath.

Independent of dpcompose. The record x is allocated to a uniform k-subset S of the t steps;
the other records' contribution is the same under both databases (coupled), so it is left
out (a worst case of the counting query: step i sees the bit [i in S]).

- :func:`rr_epoch_delta`: every step releases eps-randomized response of the bit [i in S];
  the laws of the t outputs with and without x are enumerated over all 2^t outputs and all
  C(t, k) step sets, exactly at the working precision (nothing truncated).
- :func:`gaussian_epoch_delta_t2`: t = 2, k = 1, Gaussian steps with parameter mu:
  P = N(0, I_2), Q = (N(mu e_1, I_2) + N(mu e_2, I_2)) / 2; the hockey-stick divergence
  in both directions, the inner integral in closed form and the outer by mpmath
  quadrature (errs on neither side beyond the quadrature error, far below the tests'
  relative tolerance 1e-9).

Callers set ``mp.mp.dps`` (``mp.workdps``).
"""

import itertools

import mpmath as mp


def _hockey(p, q, e):
    g = mp.exp(mp.mpf(e))
    return sum((max(mp.mpf(0), a - g * b) for a, b in zip(p, q)), mp.mpf(0))


def rr_epoch_laws(eps, t, k):
    """(P, Q): laws of the t randomized-response outputs without x (P) and with x (Q)."""
    eps = mp.mpf(eps)
    keep = mp.exp(eps) / (1 + mp.exp(eps))  # RR reports the true bit with this probability
    subsets = list(itertools.combinations(range(t), k))
    p, q = [], []
    for out in itertools.product((0, 1), repeat=t):
        p.append(mp.fprod(keep if o == 0 else 1 - keep for o in out))
        total = mp.mpf(0)
        for s in subsets:
            total += mp.fprod(keep if o == (1 if i in s else 0) else 1 - keep for i, o in enumerate(out))
        q.append(total / len(subsets))
    return p, q


def rr_epoch_delta(eps, t, k, e):
    """Exact delta(e) of one epoch (both directions: remove and add x)."""
    p, q = rr_epoch_laws(eps, t, k)
    return max(_hockey(p, q, e), _hockey(q, p, e))


def gaussian_epoch_delta_t2(mu, e):
    """Exact delta(e) of one epoch, the larger of the two directions (see gaussian_epoch_directions_t2)."""
    return max(gaussian_epoch_directions_t2(mu, e))


def gaussian_epoch_directions_t2(mu, e):
    """Exact (add, remove) deltas at e of one epoch, t = 2 steps, k = 1, Gaussian steps with parameter mu.

    Rotate to u = (x + y)/sqrt 2, v = (x - y)/sqrt 2 (independent N(0, 1) under P) and let
    a = mu / sqrt 2: L = dQ/dP = e^{-mu^2/2} cosh(a v) e^{a u}, increasing in u, so L >= g iff
    u >= u*(v) = (log g + mu^2/2 - log cosh(a v)) / a, and L <= 1/g iff u <= u*(v) with
    log(1/g) in place of log g (the remove direction; an earlier version used log g there too). With phi(u) e^{a u} = e^{a^2/2} phi(u - a)
    the u-integral is closed form and the v-integral is one-dimensional mpmath quadrature:
    E_P[(L - g)_+] = E_v[c(v) Phi(a - u*) - g Phi(-u*)],
    E_P[(1 - g L)_+] = E_v[Phi(u*) - g c(v) Phi(u* - a)], c(v) = e^{-mu^2/2 + a^2/2} cosh(a v).
    """
    mu, g = mp.mpf(mu), mp.exp(mp.mpf(e))
    a = mu / mp.sqrt(2)

    def parts(v, log_threshold):
        c = mp.exp(-mu * mu / 2 + a * a / 2) * mp.cosh(a * v)
        ustar = (log_threshold + mu * mu / 2 - mp.log(mp.cosh(a * v))) / a  # L >= threshold iff u >= ustar
        return c, ustar

    def f_qp(v):
        c, us = parts(v, mp.log(g))  # (L - g)_+ is positive where L >= g
        return mp.npdf(v) * (c * mp.ncdf(a - us) - g * mp.ncdf(-us))

    def f_pq(v):
        c, us = parts(v, -mp.log(g))  # (1 - g L)_+ is positive where L <= 1/g
        return mp.npdf(v) * (mp.ncdf(us) - g * c * mp.ncdf(us - a))

    pts = [-mp.inf, -8, -4, -2, 0, 2, 4, 8, mp.inf]
    return mp.quad(f_qp, pts), mp.quad(f_pq, pts)


def gaussian_epoch_log_moment_t2(mu, gamma):
    """Exact log E_P[L^gamma] for t = 2, k = 1, Gaussian steps (L = dQ/dP, P without the record).

    gamma = alpha gives the remove direction's Renyi moment, gamma = 1 - alpha the add
    direction's (E_Q[(P/Q)^alpha] = E_P[L^(1 - alpha)]). With u, v as in
    gaussian_epoch_directions_t2, L = e^{-mu^2/2} e^{a u} cosh(a v), u and v independent
    N(0, 1), so E[L^gamma] = e^{-gamma mu^2/2 + gamma^2 a^2/2} E_v[cosh(a v)^gamma], one
    mpmath quadrature (errs on neither side beyond the quadrature error).
    """
    mu, gamma = mp.mpf(mu), mp.mpf(gamma)
    a = mu / mp.sqrt(2)
    inner = mp.quad(lambda v: mp.npdf(v) * mp.cosh(a * v) ** gamma, [-mp.inf, -8, -4, 0, 4, 8, mp.inf])
    return -gamma * mu * mu / 2 + gamma * gamma * a * a / 2 + mp.log(inner)


def gaussian_epoch_remove_moment(mu, t, n):
    """Exact E[M^n], M = (1/t) sum_i e^{mu z_i - mu^2/2}, integer n, by enumerating every composition of n.

    E[prod_i w_i^{j_i}] = prod_i e^{mu^2 j_i (j_i - 1)/2}; the multinomial sum over all
    (j_1, ..., j_t) with sum n, in mpmath (exact up to the working precision).
    """
    mu = mp.mpf(mu)
    total = mp.mpf(0)
    for js in itertools.product(range(n + 1), repeat=t):
        if sum(js) != n:
            continue
        coef = mp.factorial(n) / mp.fprod(mp.factorial(j) for j in js)
        total += coef * mp.fprod(mp.exp(mu * mu * j * (j - 1) / 2) for j in js)
    return total / mp.mpf(t) ** n
