"""Random allocation, t = 2 Gaussian steps, k = 1: each direction's exact delta(e) in mpmath.

Independent of dpcompose. P = N(0, I_2) (without the record), Q = (N(mu e_1, I_2) +
N(mu e_2, I_2)) / 2 (with it). Rotate to u = (x + y)/sqrt 2, v = (x - y)/sqrt 2 (independent
N(0, 1) under P), a = mu / sqrt 2: L = dQ/dP = c(v) e^{a u - a^2/2} with
c(v) = e^{-mu^2/2 + a^2/2} cosh(a v), increasing in u. With phi(u) e^{a u} = e^{a^2/2} phi(u - a):

- add, H_g(Q || P) = E_P[(L - g)_+], L >= g iff u >= u_g(v):
  E_v[c(v) Phi(a - u_g) - g Phi(-u_g)];
- remove, H_g(P || Q) = E_P[(1 - g L)_+], g L <= 1 iff u <= u_{1/g}(v):
  E_v[Phi(u_{1/g}) - g c(v) Phi(u_{1/g} - a)],

with u_x(v) = (log x + mu^2/2 - log cosh(a v)) / a. The v-integral is mpmath quadrature
(errs on neither side beyond the quadrature error, far below the tests' tolerances).

(tests/oracles/random_allocation.py's ``gaussian_epoch_delta_t2`` uses u_g for the remove
direction too, so its remove term is below the true one for e > 0; its maximum is still the
add direction wherever the two were compared, mu in {0.5, 1, 2, 3}, e in {0, 0.5, 1.5}.)
Callers set ``mp.mp.dps`` (``mp.workdps``).
"""

import mpmath as mp

_POINTS = [-mp.inf, -8, -4, -2, 0, 2, 4, 8, mp.inf]


def t2_directions(mu, e):
    """(add, remove): the exact delta(e) of each direction of one epoch, t = 2, k = 1."""
    mu, g = mp.mpf(mu), mp.exp(mp.mpf(e))
    a = mu / mp.sqrt(2)

    def c(v):
        return mp.exp(-mu * mu / 2 + a * a / 2) * mp.cosh(a * v)

    def u(x, v):
        return (mp.log(x) + mu * mu / 2 - mp.log(mp.cosh(a * v))) / a

    def add(v):
        ug = u(g, v)
        return mp.npdf(v) * (c(v) * mp.ncdf(a - ug) - g * mp.ncdf(-ug))

    def remove(v):
        ui = u(1 / g, v)
        return mp.npdf(v) * (mp.ncdf(ui) - g * c(v) * mp.ncdf(ui - a))

    return mp.quad(add, _POINTS), mp.quad(remove, _POINTS)
