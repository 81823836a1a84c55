r"""The Renyi curve of the Poisson-subsampled Gaussian mechanism (the sampled Gaussian mechanism).

Exact binomial sums at integer orders, a certified two-sided series at fractional orders
(Mironov, Talwar and Zhang, "Renyi Differential Privacy of the Sampled Gaussian
Mechanism", 2019, Sec. 3), each with a bound on its rounding.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._numerics.lazy import lazy_function
from .._numerics.logspace import log_expm1
from .._numerics.rounding import MACHINE_EPSILON
from .._validation import check_positive, check_probability
from .gaussian import rdp_gaussian
from .renyi import _orders_arg, _round_up_curve

#: orders above this are not evaluated for the sampled Gaussian (their curve is reported as
#: +inf, a trivial upper bound): the sums have about alpha terms

gammaln = lazy_function("scipy.special", "gammaln")  # imported on first use (cold start)
log_ndtr = lazy_function("scipy.special", "log_ndtr")  # imported on first use (cold start)
_MAX_SGM_ORDER = 1e5


def _log_a_integer(log_q: float, log_1mq: float, sigma: float,
                   alphas: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r"""log A_alpha of the sampled Gaussian at integer orders, and its rounding scale (ulps).

    Since :math:`\sum_k \binom{\alpha}{k}(1-q)^{\alpha-k}q^k = 1`, the binomial sum gives
    :math:`A_\alpha - 1 = \sum_{k\ge2}\binom{\alpha}{k}(1-q)^{\alpha-k}q^k\,\mathrm{expm1}((k^2-k)/2\sigma^2)`,
    a sum of positive terms (the terms k = 0, 1 vanish), so :math:`A_\alpha - 1` and hence
    :math:`\log A_\alpha = \mathrm{log1p}(A_\alpha - 1)` are computed to a small *relative*
    error even when :math:`q` is tiny. Each term's log carries an absolute error of a few
    ulps of the magnitudes combined in it; weighted by the terms' shares of the sum this is
    a relative error of :math:`A_\alpha - 1`, to which the correctly rounded summation
    (``fsum``) adds a few ulps. All orders in one 2-D pass (columns k = 2 .. max alpha).
    """
    al = np.asarray(alphas, dtype=float)
    if al.size == 0:
        return np.empty(0), np.empty(0)
    A = al[:, None]
    k = np.arange(2.0, float(np.max(al)) + 1.0)[None, :]
    valid = k <= A
    g = gammaln(A + 1.0)
    gk = gammaln(k + 1.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        gak = np.where(valid, gammaln(np.where(valid, A - k + 1.0, 1.0)), 0.0)
    expo = (k * k - k) / (2.0 * sigma * sigma)
    terms = np.where(valid, g - gk - gak + k * log_q + (A - k) * log_1mq + log_expm1(expo), -np.inf)
    comp = g + gk + gak + np.abs(k * log_q) + np.abs((A - k) * log_1mq) + 2.0 * expo + 4.0
    m = np.max(terms, axis=1)
    w = np.exp(terms - m[:, None])
    sums = np.array([math.fsum(r) for r in w.tolist()])
    log_am1 = m + np.log(sums)
    rel = np.sum(w * np.where(valid, comp, 0.0), axis=1) / sums + np.abs(log_am1) + 8.0
    log_a = np.logaddexp(0.0, log_am1)
    return log_a, np.abs(log_a) * rel


def _series_terms(log_q: float, log_1mq: float, sigma: float, alpha: Any, z0: float,
                  k: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Log-magnitudes of the two series' terms at indices k, their signs and a magnitude scale.

    ``alpha`` is a float or a column of orders (then the results are 2-D, one row per order).
    """
    log_abs_binom = gammaln(alpha + 1.0) - gammaln(k + 1.0) - gammaln(alpha - k + 1.0)
    j = alpha - k
    s2 = 2.0 * sigma * sigma
    e1 = (k * k - k) / s2
    e2 = (j * j - j) / s2
    n1 = log_ndtr((z0 - k) / sigma)
    n2 = log_ndtr((j - z0) / sigma)
    t1 = log_abs_binom + k * log_q + j * log_1mq + e1 + n1
    t2 = log_abs_binom + j * log_q + k * log_1mq + e2 + n2
    neg_count = np.maximum(0.0, k - 1.0 - np.floor(alpha))
    sign = np.where(np.mod(neg_count, 2.0) == 0.0, 1.0, -1.0)
    scale = (np.abs(log_abs_binom) + gammaln(alpha + 1.0) + np.abs(k * log_q) + np.abs(j * log_1mq)
             + np.abs(j * log_q) + np.abs(k * log_1mq) + np.abs(e1) + np.abs(e2) + np.abs(n1) + np.abs(n2))
    return t1, t2, sign, scale


def _bernoulli_gap(q: float, log_1mq: float, al: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r""":math:`(1-q)^\alpha - 1 + \alpha q \ge 0` (Bernoulli's inequality) at each order, and a bound on its error.

    For :math:`q \le 1/2` by the series :math:`\sum_{n\ge2}\binom{\alpha}{n}(-q)^n`; its terms
    beyond :math:`n > \alpha + 1` have one sign and ratio below :math:`q`, so the remainder
    after the last term :math:`T_N` is at most :math:`|T_N|\,q/(1-q)`. Otherwise directly.
    """
    A = al[:, None]
    if q > 0.5:
        gap = np.maximum(np.expm1(al * log_1mq) + al * q, 0.0)
        gap_err = 8.0 * MACHINE_EPSILON * (1.0 + al * q + np.abs(al * log_1mq))
        return gap, gap_err
    nn = np.arange(2.0, 2.0 + 96.0 + math.ceil(float(np.max(al))))[None, :]
    log_abs = gammaln(A + 1.0) - gammaln(nn + 1.0) - gammaln(A - nn + 1.0) + nn * math.log(q)
    nsign = np.where(np.mod(np.maximum(0.0, nn - 1.0 - np.floor(A)) + nn, 2.0) == 0.0, 1.0, -1.0)
    with np.errstate(over="ignore", invalid="ignore"):
        mags = np.exp(log_abs)
        comp = np.abs(log_abs) + 2.0 * gammaln(A + nn + 1.0) + 8.0
        gap_err = (mags[:, -1] * q / (1.0 - q) + 32.0 * MACHINE_EPSILON * np.sum(mags * comp, axis=1)
                   + (nn.size + 2) * MACHINE_EPSILON * np.sum(mags, axis=1))
    # where the series terms overflow (large orders) no gap is certified: an infinite error
    # bound makes that order's curve +inf (a trivial upper bound)
    ok = np.all(np.isfinite(mags), axis=1)
    gap = np.array([max(math.fsum(r), 0.0) if good else 0.0
                    for r, good in zip((nsign * mags).tolist(), ok)])
    return gap, np.where(ok & np.isfinite(gap_err), gap_err, np.inf)


def _log_a_fractional_at(log_q: float, log_1mq: float, sigma: float, alphas: np.ndarray, K: int,
                         final: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""One pass of :func:`_log_a_fractional` with truncation index ``K`` (>= floor of every order).

    Returns ``(log_a, scale, done)``: ``done`` where the truncation bound is below ``1e-11``
    of :math:`A_\alpha - 1` (or ``final``); the other entries are left unset.
    """
    al = np.asarray(alphas, dtype=float)
    n_ord = al.size
    out_a, out_s = np.empty(n_ord), np.empty(n_ord)
    done = np.zeros(n_ord, dtype=bool)
    if n_ord == 0:
        return out_a, out_s, done
    q = math.exp(log_q)
    z0 = sigma * sigma * (log_1mq - log_q) + 0.5
    A = al[:, None]
    k = np.arange(K + 2, dtype=float)[None, :]
    t1, t2, sign, scale = _series_terms(log_q, log_1mq, sigma, A, z0, k)
    gap, gap_err = _bernoulli_gap(q, log_1mq, al)
    ln0, ln1 = float(log_ndtr(z0 / sigma)), float(log_ndtr((z0 - 1.0) / sigma))
    lm0, lm1 = float(log_ndtr(-z0 / sigma)), float(log_ndtr((1.0 - z0) / sigma))
    log_aq = np.log(al) + log_q
    shrink = -np.expm1((al - 1.0) * log_1mq)
    c = 1.0 - al * q
    ninf = -np.inf
    with np.errstate(divide="ignore"):
        # extras: columns (gap, shrink, c-term, aq-term) with their signs
        ex = np.stack([np.log(gap) + ln0, log_aq + np.log(shrink) + ln1,
                       np.log(np.abs(c)) + lm0, log_aq + lm1], axis=1)
    ex = np.where(np.isnan(ex), ninf, ex)
    ex_sign = np.stack([np.ones(n_ord), -np.ones(n_ord), np.where(c > 0.0, -1.0, 1.0), -np.ones(n_ord)], axis=1)
    body = np.concatenate([t1[:, 2:-1], t2[:, :-1]], axis=1)
    bsign = np.concatenate([sign[:, 2:-1], sign[:, :-1]], axis=1)
    bscale = np.concatenate([scale[:, 2:-1], scale[:, :-1]], axis=1)
    log_tail = np.logaddexp(t1[:, -1], t2[:, -1])
    allv = np.concatenate([body, ex], axis=1)
    alls = np.concatenate([bsign, ex_sign], axis=1)
    ref = np.max(allv, axis=1)
    w = np.exp(allv - ref[:, None])
    pos_rows = np.where(alls > 0, w, 0.0).tolist()
    neg_rows = np.where(alls < 0, w, 0.0).tolist()
    wb = w[:, :body.shape[1]]
    wx = w[:, body.shape[1]:]
    for i in range(n_ord):
        P, N = math.fsum(pos_rows[i]), math.fsum(neg_rows[i])
        tail = math.exp(log_tail[i] - ref[i])
        done[i] = (P - N > 0.0 and tail <= 1e-11 * (P - N)) or final
        if not done[i]:
            continue
        exv = allv[i, body.shape[1]:]
        err = 32.0 * MACHINE_EPSILON * (float(np.dot(wb[i], 1.0 + bscale[i]))
                             + float(np.dot(wx[i], 8.0 + np.where(np.isfinite(exv), np.abs(exv), 0.0))))
        err += 8.0 * MACHINE_EPSILON * (P + N)
        err += tail
        if not math.isfinite(gap_err[i]):
            out_a[i] = out_s[i] = math.inf  # no certified gap: the trivial upper bound
            continue
        err += float(gap_err[i]) * math.exp(ln0 - ref[i])
        log_am1 = float(ref[i]) + math.log(max(P - N, 0.0) + err)
        la = float(np.logaddexp(0.0, log_am1))
        out_a[i], out_s[i] = la, 4.0 * abs(la)
    return out_a, out_s, done


def _log_a_fractional(log_q: float, log_1mq: float, sigma: float, alphas: np.ndarray,
                      max_terms: int = 1 << 17) -> tuple[np.ndarray, np.ndarray]:
    r"""Certified upper bounds on :math:`\log A_\alpha` of the sampled Gaussian at fractional orders.

    Mironov, Talwar and Zhang (2019, Sec. 3) split :math:`A_\alpha = \int \mu_0
    ((1-q) + qL)^\alpha`, :math:`L = \mu_1/\mu_0`, at :math:`z_0 = \sigma^2\log(1/q - 1) + 1/2`,
    where :math:`qL = 1-q`, and expand each side in a generalized binomial series whose
    ratio is at most 1 there:

    - :math:`z \le z_0`: terms :math:`T^{(1)}_k = \binom{\alpha}{k}(1-q)^{\alpha-k}q^k e^{(k^2-k)/2\sigma^2}\Phi((z_0-k)/\sigma)`;
    - :math:`z \ge z_0`: terms :math:`T^{(2)}_k = \binom{\alpha}{k}q^{\alpha-k}(1-q)^{k} e^{(j^2-j)/2\sigma^2}\Phi((j-z_0)/\sigma)`, :math:`j = \alpha - k`.

    Truncation (the rigorous part, derived here): for :math:`k > \alpha` the coefficients
    alternate in sign and :math:`|\binom{\alpha}{k+1}| / |\binom{\alpha}{k}| = (k-\alpha)/(k+1) < 1`;
    with the ratio :math:`x(z) \le 1` the pointwise series is alternating with
    non-increasing terms (Leibniz), so the remainder after index :math:`K \ge \lfloor\alpha\rfloor`
    is at most the first omitted term in absolute value, pointwise and hence after
    integration. We add the absolute values of both first omitted terms, growing K until
    they are below ``1e-11`` of :math:`A_\alpha - 1` (or ``max_terms``).

    Precision near :math:`A_\alpha = 1` (derived here): since
    :math:`\int\mu_0(1 - \alpha q + \alpha q L) = 1`, we compute :math:`A_\alpha - 1` as the
    series minus that linear function integrated over each side, i.e.
    :math:`((1-q)^\alpha - 1 + \alpha q)\Phi(z_0/\sigma) + \alpha q((1-q)^{\alpha-1} - 1)\Phi((z_0-1)/\sigma) + \sum_{k\ge2}T^{(1)}_k + \sum_k T^{(2)}_k - (1-\alpha q)\Phi(-z_0/\sigma) - \alpha q\Phi((1-z_0)/\sigma)`,
    which keeps a small relative error when :math:`q` is tiny.

    All orders share one truncation index, first :math:`K = \lfloor\max\alpha\rfloor + 256`
    (valid for each, since :math:`K \ge \lfloor\alpha\rfloor`), doubled for the orders
    whose bound is not yet small enough, up to ``max_terms`` (where the value is accepted
    with its truncation bound added: looser, never invalid).
    """
    al = np.asarray(alphas, dtype=float)
    out_a, out_s = np.empty(al.size), np.empty(al.size)
    todo = np.arange(al.size)
    K = int(math.floor(float(np.max(al)))) + 256 if al.size else 0
    while todo.size:
        final = 2 * K + 2 > max_terms
        la, sc, done = _log_a_fractional_at(log_q, log_1mq, sigma, al[todo], K, final)
        out_a[todo[done]], out_s[todo[done]] = la[done], sc[done]
        todo = todo[~done]
        K *= 2
    return out_a, out_s


def rdp_subsampled_gaussian(rate: float, noise_multiplier: float, orders: Any = None) -> np.ndarray:
    r"""Renyi curve of the Poisson-subsampled Gaussian mechanism (the sampled Gaussian mechanism).

    With :math:`\mu_0 = N(0, \sigma^2)`, :math:`\mu_1 = N(1, \sigma^2)` (``noise_multiplier``
    :math:`\sigma` = noise standard deviation / L2 sensitivity) and sampling rate
    :math:`q`, the curve is :math:`\tau(\alpha) = \frac{1}{\alpha-1}\log A_\alpha` with
    :math:`A_\alpha = E_{z\sim\mu_0}[((1-q) + q\mu_1(z)/\mu_0(z))^\alpha]`:

    - integer :math:`\alpha`: exactly
      :math:`A_\alpha = \sum_{k=0}^{\alpha}\binom{\alpha}{k}(1-q)^{\alpha-k}q^k e^{(k^2-k)/(2\sigma^2)}`
      (Mironov, Talwar and Zhang, "Renyi Differential Privacy of the Sampled Gaussian
      Mechanism", 2019, Sec. 3), summed in log space as :math:`\log(1 + (A_\alpha - 1))`
      (see :func:`_log_a_integer`);
    - fractional :math:`\alpha`: their two-sided series with a certified truncation bound
      (see :func:`_log_a_fractional`); the value is an upper bound;
    - orders above 1e5 are not evaluated and reported as ``inf`` (a trivial upper bound).

    Args:
        rate: the Poisson sampling rate :math:`q \in (0, 1]`.
        noise_multiplier: :math:`\sigma > 0`.
        orders: Renyi orders (default :data:`DEFAULT_ORDERS`).

    Guarantee:
        upper bound on the Renyi divergence for neighbours by adding or removing one record.
        :math:`A_\alpha` is the divergence :math:`D_\alpha((1-q)\mu_0+q\mu_1 \| \mu_0)`; the
        other direction :math:`D_\alpha(\mu_0 \| (1-q)\mu_0+q\mu_1)` is never larger, as
        Mironov, Talwar and Zhang (2019, Sec. 3) show for the sampled Gaussian (this is also
        what every RDP accountant for DP-SGD relies on); the tests check it numerically
        (mpmath, both directions) on a grid of rates, noise levels and orders.

    References:
        Mironov, Talwar and Zhang, "Renyi Differential Privacy of the Sampled Gaussian
        Mechanism", arXiv:1908.10530, 2019, Sec. 3; Abadi et al., "Deep Learning with
        Differential Privacy", CCS 2016 (the moments accountant).
    """
    q = check_probability("rate", rate, low_open=True)
    sigma = check_positive("noise_multiplier", noise_multiplier)
    a = _orders_arg(orders)
    if q == 1.0:
        return rdp_gaussian(1.0 / sigma, a)
    log_q, log_1mq = math.log(q), math.log1p(-q)
    log_a = np.empty_like(a)
    scale = np.zeros_like(a)
    log_a[a > _MAX_SGM_ORDER] = math.inf  # not evaluated: +inf is a valid (trivial) upper bound
    frac = np.flatnonzero((a <= _MAX_SGM_ORDER) & (a != np.floor(a)))
    ints = np.flatnonzero((a <= _MAX_SGM_ORDER) & (a == np.floor(a)))
    # orders up to 64 share one 2-D pass; larger ones (arrays of about alpha terms) one each
    for kind, fn in ((ints, _log_a_integer), (frac, _log_a_fractional)):
        small = kind[a[kind] <= 64.0]
        log_a[small], scale[small] = fn(log_q, log_1mq, sigma, a[small])
        for i in kind[a[kind] > 64.0]:
            log_a[[i]], scale[[i]] = fn(log_q, log_1mq, sigma, a[[i]])
    return _round_up_curve(log_a, a, scale)
