"""Empirical audits (dpcompose.auditing) and calibration to a risk target (dpcompose.risk).

Truth: scipy's binomtest(...).proportion_ci(method="exact") for Clopper-Pearson, the exact
binomial coverage and a seeded Monte Carlo run of a worst-case attack for the audit's
error rate, the Gaussian trade-off G_mu in mpmath for risk calibration."""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
from oracles.tradeoff import laplace_tradeoff
from scipy.stats import binom, binomtest

import dpcompose as dpc
from dpcompose.errors import InvalidParameterError

CASES = [(0, 10), (1, 10), (5, 10), (10, 10), (3, 200), (150, 200), (999, 1000)]


def _exact_end(k, n, tail, upper):
    """The exact Clopper-Pearson end in mpmath: P(X >= k; p) = tail (lower) or P(X <= k; p) = tail (upper)."""
    with mp.workdps(40):
        if upper:
            f = lambda p: mp.betainc(k + 1, n - k, 0, p, regularized=True) - (1 - mp.mpf(tail))  # noqa: E731
        else:
            f = lambda p: mp.betainc(k, n - k + 1, 0, p, regularized=True) - mp.mpf(tail)  # noqa: E731
        return mp.findroot(f, (mp.mpf(0), mp.mpf(1)), solver="bisect", tol=mp.mpf(10) ** -35)


@pytest.mark.parametrize("k,n", CASES)
@pytest.mark.parametrize("c", [0.5, 0.9, 0.95, 0.999])
def test_clopper_pearson_matches_scipy_exact_interval(k, n, c):
    """Two-sided and one-sided ends equal scipy's exact intervals (binomtest finds them by root
    finding, to about 1e-12 relative: agreement within 1e-9) and lie on the wide side of the
    exact ends computed in mpmath."""
    lo, hi = dpc.clopper_pearson(k, n, c)
    ref = binomtest(k, n).proportion_ci(confidence_level=c, method="exact")
    assert lo == pytest.approx(ref.low, rel=1e-9, abs=1e-300) and hi == pytest.approx(ref.high, rel=1e-9)
    low1 = dpc.clopper_pearson(k, n, c, side="lower")
    up1 = dpc.clopper_pearson(k, n, c, side="upper")
    ref_g = binomtest(k, n, alternative="greater").proportion_ci(confidence_level=c, method="exact")
    ref_l = binomtest(k, n, alternative="less").proportion_ci(confidence_level=c, method="exact")
    assert low1[1] == 1.0 and low1[0] == pytest.approx(ref_g.low, rel=1e-9, abs=1e-300)
    assert up1[0] == 0.0 and up1[1] == pytest.approx(ref_l.high, rel=1e-9)
    if 0 < k:
        assert lo <= _exact_end(k, n, (1 - c) / 2, False) and low1[0] <= _exact_end(k, n, 1 - c, False)
    if k < n:
        assert hi >= _exact_end(k, n, (1 - c) / 2, True) and up1[1] >= _exact_end(k, n, 1 - c, True)


@pytest.mark.parametrize("p", [0.01, 0.2, 0.5, 0.93])
@pytest.mark.parametrize("n", [20, 137])
def test_clopper_pearson_coverage_is_at_least_nominal(p, n):
    """Exact coverage (sum of the binomial pmf over the outcomes whose bound covers p) >= c,
    for the one-sided lower bound and the two-sided interval."""
    c = 0.9
    ks = np.arange(n + 1)
    pmf = binom.pmf(ks, n, p)
    lower = np.array([dpc.clopper_pearson(int(k), n, c, side="lower")[0] for k in ks])
    two = [dpc.clopper_pearson(int(k), n, c) for k in ks]
    assert pmf[lower <= p].sum() >= c - 1e-12
    assert sum(w for w, (lo, hi) in zip(pmf, two) if lo <= p <= hi) >= c - 1e-12


def test_audit_false_violation_rate_monte_carlo():
    """A worst-case attack on an exactly eps-DP mechanism (randomized response, the optimal test:
    TPR = e^eps/(1+e^eps), FPR = 1/(1+e^eps)) is never a violation in truth; over 400 seeded
    audits at confidence 0.8 the "violation" rate stays below 1 - c plus 4 standard errors."""
    eps, c, trials = 1.0, 0.8, 400
    g = dpc.compose([dpc.RandomizedResponse(eps)], method="optimal")
    tpr, fpr = math.exp(eps) / (1 + math.exp(eps)), 1 / (1 + math.exp(eps))
    rng = np.random.default_rng(20240612)
    tps = rng.binomial(300, tpr, size=trials)
    fps = rng.binomial(300, fpr, size=trials)
    bad = sum(dpc.audit(g, tp=int(t), fp=int(f), positives=300, negatives=300, delta=0.0,
                        confidence=c).verdict == "violation" for t, f in zip(tps, fps))
    limit = (1 - c) + 4 * math.sqrt(c * (1 - c) / trials)
    assert bad / trials <= limit


def _empirical_eps(tp, n, fp, m, delta, c):
    """The audit's epsilon from scipy's one-sided exact bounds (each at (1 + c) / 2)."""
    each = (1 + c) / 2
    t = binomtest(tp, n, alternative="greater").proportion_ci(confidence_level=each).low
    f = binomtest(fp, m, alternative="less").proportion_ci(confidence_level=each).high
    vals = [math.log((t - delta) / f) if t > delta and f > 0 else 0.0,
            math.log((1 - f - delta) / (1 - t)) if 1 - f > delta and t < 1 else 0.0]
    return max(0.0, *vals)


def test_audit_verdicts_on_synthetic_outcomes():
    gauss = dpc.compose([dpc.Gaussian(1.0)])  # 1-GDP: at FPR 0.12 every attack has TPR <= 0.43
    r = dpc.audit(gauss, tp=900, fp=100, positives=1000, negatives=1000, delta=1e-5)
    assert r.verdict == "violation" and r.fdp_violation and not r.epsilon_violation
    assert "the accountant or the training code is wrong" in r.message
    pure = dpc.compose([dpc.PureDP(0.1)], method="optimal")
    r = dpc.audit(pure, tp=700, fp=300, positives=1000, negatives=1000, delta=0.0)
    assert r.verdict == "violation" and r.epsilon_violation and r.fdp_violation
    assert r.epsilon_empirical == pytest.approx(_empirical_eps(700, 1000, 300, 1000, 0.0, 0.95), rel=1e-9)
    assert r.epsilon_empirical <= _empirical_eps(700, 1000, 300, 1000, 0.0, 0.95)
    rr = dpc.compose([dpc.RandomizedResponse(2.0)], method="optimal")  # TPR 0.881, FPR 0.119 at best
    r = dpc.audit(rr, tp=880, fp=120, positives=1000, negatives=1000, delta=0.0)
    assert r.verdict == "consistent" and 0.7 < r.tightness < 1.0
    assert r.epsilon_empirical == pytest.approx(_empirical_eps(880, 1000, 120, 1000, 0.0, 0.95), rel=1e-9)
    r = dpc.audit(rr, tp=52, fp=50, positives=100, negatives=100, delta=0.0)
    assert r.verdict == "inconclusive" and r.epsilon_empirical == 0.0
    # the empirical GDP mu is a valid lower bound: the Gaussian's own optimal attack stays below 1
    r = dpc.audit(gauss, tp=650, fp=330, positives=1000, negatives=1000, delta=1e-5)
    assert r.verdict == "consistent" and r.mu_empirical < 1.0


def test_audit_bad_input_is_a_clear_error():
    g = dpc.compose([dpc.Gaussian(1.0)])
    ok = dict(tp=5, fp=1, positives=10, negatives=10, delta=1e-5)
    for change, pattern in [({"tp": 11}, "tp = 11 exceeds positives"), ({"fp": 12}, "fp = 12 exceeds negatives"),
                            ({"tp": -1}, "tp"), ({"tp": 2.5}, "tp"), ({"positives": 0}, "positives"),
                            ({"confidence": 1.0}, "confidence"), ({"confidence": 0.0}, "confidence"),
                            ({"confidence": float("nan")}, "confidence"), ({"delta": 1.0}, "delta")]:
        with pytest.raises(InvalidParameterError, match=pattern):
            dpc.audit(g, **{**ok, **change})
    with pytest.raises(InvalidParameterError, match="successes = 11 exceeds trials = 10"):
        dpc.clopper_pearson(11, 10)
    with pytest.raises(InvalidParameterError, match="side"):
        dpc.clopper_pearson(1, 10, side="left")


@pytest.mark.parametrize("k,tpr,fpr", [(1, 0.2, 0.05), (100, 0.1, 0.01), (1000, 0.01, 0.001)])
def test_risk_calibration_gaussian_against_closed_form(k, tpr, fpr):
    """k Gaussians are mu-GDP with mu = sqrt(k)/sigma; TPR at FPR f is Phi(Phi^{-1}(f) + mu), so the
    least sigma is sqrt(k) / (Phi^{-1}(t) - Phi^{-1}(f)). The answer is at or above it (rounded
    toward more noise), within 2e-4 relative, and its certified TPR, recomputed, meets the target."""
    with mp.workdps(40):
        probit = lambda x: mp.sqrt(2) * mp.erfinv(2 * mp.mpf(x) - 1)  # noqa: E731
        sigma = float(mp.sqrt(k) / (probit(tpr) - probit(fpr)))
    r = dpc.calibrate_risk("gaussian", k, tpr=tpr, fpr=fpr, method="pld")
    assert sigma <= r.parameter <= sigma * (1 + 2e-4)
    assert r.tpr_certified <= tpr
    assert dpc.certified_tpr(r.compose(), fpr) <= tpr
    assert r.failing_parameter is not None and r.failing_parameter < r.parameter


def test_risk_calibration_laplace_against_closed_form():
    """One Laplace mechanism: TPR(f) = 1 - beta(f) with beta the threshold test's; the least scale
    solves it in mpmath."""
    tpr, fpr = 0.3, 0.1
    with mp.workdps(40):
        eps = mp.findroot(lambda e: 1 - laplace_tradeoff(e, fpr) - tpr, 1.0)
        scale = float(1 / eps)
    r = dpc.calibrate_risk("laplace", tpr=tpr, fpr=fpr)
    assert scale <= r.parameter <= scale * (1 + 2e-4)
    assert dpc.certified_tpr(r.compose(), fpr) <= tpr


def test_risk_calibration_factory_and_bad_input():
    r = dpc.calibrate_risk(lambda s: [(dpc.Gaussian(s), 10), (dpc.Laplace(2 * s), 5)], tpr=0.2, fpr=0.05,
                           method="pld")
    assert r.more_private == "larger" and dpc.certified_tpr(r.compose(), 0.05) <= 0.2
    with pytest.raises(InvalidParameterError, match="must exceed fpr"):
        dpc.calibrate_risk("gaussian", tpr=0.01, fpr=0.05)
    with pytest.raises(InvalidParameterError, match="fpr"):
        dpc.calibrate_risk("gaussian", tpr=0.5, fpr=1.0)
    with pytest.raises(InvalidParameterError, match="tpr"):
        dpc.calibrate_risk("gaussian", tpr=1.0, fpr=0.1)
