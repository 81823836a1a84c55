"""Certified trade-off outputs against Opacus's Gaussian-DP accountant (a CLT estimate).

Opacus (``opacus.accountants.analysis.gdp``) estimates the Gaussian-DP mu of Poisson-
subsampled DP-SGD by the central limit theorem of Bu, Dong, Long and Su (an estimate,
neither an upper nor a lower bound); dpcompose certifies a bracket on mu, the largest
attack TPR at a given FPR, the attack advantage, and the noise that keeps every attack
below a TPR target. Run: ``python benchmarks/bench_fdp.py`` (about a minute).
"""

from __future__ import annotations

import time

from scipy.optimize import brentq
from scipy.stats import norm

import dpcompose as dpc
from dpcompose.fdp import TradeoffCurve

Q, SIGMA, FPR, TARGET_TPR = 256 / 60000, 1.1, 1e-3, 0.05


def clt_mu(sigma: float, steps: int, q: float = Q) -> float:
    from opacus.accountants.analysis.gdp import compute_mu_poisson

    return float(compute_mu_poisson(steps=steps, noise_multiplier=sigma, sample_rate=q))


def timed(fn):
    t = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t


def main() -> None:
    print("| workload | quantity | dpcompose (certified) | time (s) | Opacus GDP (CLT estimate) | time (s) |")
    print("|---|---|---|---|---|---|")
    for steps in (1175, 7050, 14062):
        name = f"DP-SGD q = 256/60000, sigma {SIGMA}, {steps} steps"
        g = dpc.compose([(dpc.Subsampled(dpc.Gaussian(SIGMA), Q), steps)], method="pld")
        curve, t_init = timed(lambda: TradeoffCurve(g))
        b, t_mu = timed(lambda: curve.gdp_mu())
        mu, t_clt = timed(lambda: clt_mu(SIGMA, steps))
        print(f"| {name} | mu | [{b.lower:.5f}, {b.upper:.5f}] (slack {b.slack:g}) | {t_init + t_mu:.2f} "
              f"| {mu:.5f} | {t_clt:.4f} |")
        (lo, up), t_tpr = timed(lambda: curve.max_tpr([FPR]))
        print(f"| {name} | largest TPR at FPR {FPR:g} | [{lo[0]:.5f}, {up[0]:.5f}] | {t_tpr:.2f} "
              f"| {norm.cdf(norm.ppf(FPR) + mu):.5f} | - |")
        a = curve.advantage()
        print(f"| {name} | advantage max(TPR - FPR) | [{a[0]:.5f}, {a[1]:.5f}] | - "
              f"| {2 * norm.cdf(mu / 2) - 1:.5f} | - |")
    steps = 7050
    r, t_r = timed(lambda: dpc.calibrate_risk("gaussian", steps, rate=Q, tpr=TARGET_TPR, fpr=FPR, method="pld"))
    need = norm.ppf(TARGET_TPR) - norm.ppf(FPR)
    s_clt, t_c = timed(lambda: brentq(lambda s: clt_mu(s, steps) - need, 0.3, 50.0))
    g_clt = dpc.compose([(dpc.Subsampled(dpc.Gaussian(s_clt), Q), steps)], method="pld")
    tpr_clt = dpc.certified_tpr(g_clt, FPR)
    print(f"| noise for TPR <= {TARGET_TPR} at FPR {FPR:g}, {steps} steps | sigma | {r.parameter:.5f} "
          f"(certified TPR {r.tpr_certified:.5f}) | {t_r:.2f} | {s_clt:.5f} (its certified TPR "
          f"{tpr_clt:.5f}) | {t_c:.4f} |")


if __name__ == "__main__":
    main()
