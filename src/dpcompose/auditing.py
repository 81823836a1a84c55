r"""Empirical privacy audits against a certified guarantee.

An audit runs a membership attack on canaries: ``positives`` canaries were inserted into
the training data, ``negatives`` were not; the attack flagged ``tp`` of the positives and
``fp`` of the negatives as members. If the true TPR and FPR of the attack were known, any
:math:`(\varepsilon, \delta)`-DP mechanism would satisfy
:math:`\mathrm{TPR} \le e^{\varepsilon}\mathrm{FPR} + \delta` and
:math:`1 - \mathrm{FPR} \le e^{\varepsilon}(1 - \mathrm{TPR}) + \delta`, so

.. math:: \varepsilon \ge \max\Big\{\log\frac{\mathrm{TPR} - \delta}{\mathrm{FPR}},\
          \log\frac{1 - \mathrm{FPR} - \delta}{1 - \mathrm{TPR}}\Big\}

(Jagielski, Ullman and Oprea, "Auditing Differentially Private Machine Learning: How
Private is Private SGD?", NeurIPS 2020, Sec. 3). The rates are estimated: a one-sided
Clopper-Pearson lower bound on the TPR and upper bound on the FPR, each at level
:math:`(1 - c)/2` so that both hold together with probability at least :math:`c` (union
bound; Clopper and Pearson, "The Use of Confidence or Fiducial Limits Illustrated in the
Case of the Binomial", Biometrika 1934). The epsilon above, evaluated at those bounds
(both terms are monotone the right way), is then an empirical lower bound on epsilon
at confidence :math:`c`.

The f-DP comparison (Nasr, Hayes, Steinke, Balle, Tramèr, Jagielski, Carlini and Terzis,
"Tight Auditing of Differentially Private Machine Learning", USENIX Security 2023; Nasr,
Song, Thakurta, Papernot and Carlini, "Adversary Instantiation", IEEE S&P 2021) uses the
whole certified trade-off curve instead of one (epsilon, delta): the attack's true point
satisfies TPR <= 1 - f(FPR) for the certified lower curve f, and f is non-increasing, so
``TPR_lower > 1 - f(FPR_upper)`` refutes the guarantee at the same confidence.

Verdicts:

- ``"violation"``: the certified guarantee is refuted at confidence c (the empirical
  lower bound on epsilon exceeds the certified upper bound, or the attack's point lies
  above the certified trade-off curve): the accountant or the training code is wrong
  (or the audit's own assumptions fail, e.g. canaries not independent).
- ``"consistent"``: the attack shows a positive empirical epsilon and stays within the
  certificate; ``tightness`` = empirical / certified lower epsilon says how close the
  attack comes to the best possible one.
- ``"inconclusive"``: the attack shows no significant privacy loss at this confidence
  (too few canaries or a weak attack), so it tests nothing.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

from scipy.special import ndtri
from scipy.stats import beta as beta_dist

from ._validation import check_count, check_delta, check_real
from .errors import InvalidParameterError
from .fdp import TradeoffCurve, check_guarantee
from .guarantee import Guarantee

__all__ = ["clopper_pearson", "audit", "AuditResult", "empirical_epsilon"]

#: relative widening of every Clopper-Pearson end (scipy's beta quantiles are accurate to
#: a few ulps; the audit's safe side is the wide interval, never a false "violation")
_WIDEN = 1e-12

VERDICTS = ("consistent", "violation", "inconclusive")


def clopper_pearson(successes: int, trials: int, confidence: float = 0.95,
                    side: str = "two-sided") -> tuple[float, float]:
    r"""The exact (Clopper-Pearson) confidence interval for a binomial proportion.

    Args:
        successes: k, in [0, trials].
        trials: n >= 1.
        confidence: c in (0, 1).
        side: ``"two-sided"`` (each tail (1 - c)/2), ``"lower"`` (a lower bound at level c;
            the upper end is 1) or ``"upper"`` (an upper bound at level c; the lower end is 0).

    Returns:
        ``(low, high)``: ``low = Beta^{-1}(a; k, n - k + 1)`` (0 if k = 0) and
        ``high = Beta^{-1}(1 - a; k + 1, n - k)`` (1 if k = n), with ``a`` the tail
        probability, widened by a relative 1e-12.

    Guarantee:
        covers the true proportion with probability at least c (exact, conservative).

    References:
        Clopper and Pearson, "The Use of Confidence or Fiducial Limits Illustrated in the
        Case of the Binomial", Biometrika 26 (1934).
    """
    n = check_count("trials", trials, minimum=1)
    k = check_count("successes", successes)
    if k > n:
        raise InvalidParameterError(f"successes = {k} exceeds trials = {n}; a count of successes "
                                    f"is at most the number of trials.")
    c = check_real("confidence", confidence, low=0.0, high=1.0, low_open=True, high_open=True,
                   remedy="a confidence level such as 0.95.")
    if side not in ("two-sided", "lower", "upper"):
        raise InvalidParameterError(f"side = {side!r} is not 'two-sided', 'lower' or 'upper'.")
    tail = (1.0 - c) / 2.0 if side == "two-sided" else 1.0 - c
    low, high = 0.0, 1.0
    if side != "upper" and k > 0:
        low = float(beta_dist.ppf(tail, k, n - k + 1)) * (1.0 - _WIDEN)
    if side != "lower" and k < n:
        high = min(1.0, float(beta_dist.ppf(1.0 - tail, k + 1, n - k)) * (1.0 + _WIDEN))
    return max(0.0, low), high


def empirical_epsilon(tpr: float, fpr: float, delta: float) -> float:
    r"""The epsilon an attack with these rates proves (0 if none): the bound of Jagielski et al.

    :math:`\max\{\log((\mathrm{TPR} - \delta)/\mathrm{FPR}),\ \log((1 - \mathrm{FPR} - \delta)/(1 - \mathrm{TPR}))\}`,
    clipped at 0, ``inf`` where a denominator is 0 and its numerator positive. Rounded down.
    """
    tpr = check_real("tpr", tpr, low=0.0, high=1.0)
    fpr = check_real("fpr", fpr, low=0.0, high=1.0)
    delta = check_delta("delta", delta)
    best = 0.0
    for num, den in ((tpr - delta, fpr), (1.0 - fpr - delta, 1.0 - tpr)):
        if num <= 0.0:
            continue
        if den <= 0.0:
            return math.inf
        best = max(best, math.log(num / den) - 8.0 * 2.0 ** -52 * (1.0 + abs(math.log(num / den))))
    return max(0.0, best)


@dataclass(frozen=True)
class AuditResult:
    """The outcome of :func:`audit` (frozen).

    Attributes:
        verdict: ``"consistent"``, ``"violation"`` or ``"inconclusive"`` (see the module).
        message: one sentence for people.
        confidence: the joint confidence level of the two rate bounds.
        tpr_lower / fpr_upper: the Clopper-Pearson bounds on the attack's rates.
        delta: the delta of the epsilon comparison.
        epsilon_empirical: empirical lower bound on epsilon at ``delta`` (confidence c).
        epsilon_certified_lower / epsilon_certified_upper: the guarantee's bracket at ``delta``.
        tpr_certified_upper: certified largest TPR of any attack at FPR ``fpr_upper``.
        epsilon_violation / fdp_violation: which comparison refutes the guarantee.
        mu_empirical: Phi^{-1}(TPR_lower) - Phi^{-1}(FPR_upper) (>= 0): no mu-GDP guarantee
            with a smaller mu holds, at confidence c.
        tightness: epsilon_empirical / epsilon_certified_lower (None when undefined).
    """

    verdict: str
    message: str
    confidence: float
    tp: int
    fp: int
    positives: int
    negatives: int
    tpr_lower: float
    fpr_upper: float
    delta: float
    epsilon_empirical: float
    epsilon_certified_lower: float
    epsilon_certified_upper: float
    tpr_certified_upper: float
    epsilon_violation: bool
    fdp_violation: bool
    mu_empirical: float
    tightness: float | None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def audit(guarantee: Guarantee, *, tp: int, fp: int, positives: int, negatives: int,
          delta: float, confidence: float = 0.95) -> AuditResult:
    r"""Compare an attack's outcomes on canaries with a certified guarantee.

    Args:
        guarantee: the certified guarantee of the training run (``dpc.compose``, ``dpc.dpsgd``).
        tp: positives (inserted canaries) the attack flagged as members.
        fp: negatives (held-out canaries) the attack flagged as members.
        positives / negatives: how many canaries of each kind (each >= 1).
        delta: the delta at which epsilons are compared, in [0, 1).
        confidence: joint confidence level c in (0, 1) of the two rate bounds.

    Returns:
        :class:`AuditResult`.

    Raises:
        InvalidParameterError: inconsistent counts (tp > positives, fp > negatives),
            counts that are not whole numbers, confidence outside (0, 1), delta outside [0, 1).

    Guarantee:
        a ``"violation"`` verdict is wrong (the guarantee in fact holds) with probability
        at most 1 - c over the audit's randomness, provided the canaries' membership
        outcomes are independent trials of the attack (the assumption of Jagielski et al.).

    References:
        Jagielski, Ullman and Oprea (NeurIPS 2020); Nasr et al., "Adversary Instantiation"
        (IEEE S&P 2021) and "Tight Auditing of Differentially Private Machine Learning"
        (USENIX Security 2023); Clopper and Pearson (Biometrika 1934).
    """
    g = check_guarantee(guarantee)
    n_pos = check_count("positives", positives, minimum=1)
    n_neg = check_count("negatives", negatives, minimum=1)
    tp = check_count("tp", tp)
    fp = check_count("fp", fp)
    if tp > n_pos:
        raise InvalidParameterError(f"tp = {tp} exceeds positives = {n_pos}: the attack cannot flag "
                                    f"more inserted canaries than there are.")
    if fp > n_neg:
        raise InvalidParameterError(f"fp = {fp} exceeds negatives = {n_neg}: the attack cannot flag "
                                    f"more held-out canaries than there are.")
    c = check_real("confidence", confidence, low=0.0, high=1.0, low_open=True, high_open=True,
                   remedy="a confidence level such as 0.95.")
    delta = check_delta("delta", delta)
    each = (1.0 + c) / 2.0  # two one-sided bounds, each failing with probability (1 - c) / 2
    tpr_lo = clopper_pearson(tp, n_pos, each, "lower")[0]
    fpr_up = clopper_pearson(fp, n_neg, each, "upper")[1]
    eps_emp = empirical_epsilon(tpr_lo, fpr_up, delta)
    cert_lo, cert_up = g.epsilon_bounds(delta)
    curve = TradeoffCurve(g)
    tpr_cert = float(curve.max_tpr([fpr_up])[1][0])
    eps_bad = eps_emp > cert_up
    fdp_bad = tpr_lo > tpr_cert
    mu_emp = 0.0
    if 0.0 < tpr_lo and fpr_up < 1.0:
        mu_emp = max(0.0, float(ndtri(tpr_lo)) - float(ndtri(fpr_up)))
    tight = None
    if cert_lo > 0.0 and math.isfinite(eps_emp):
        tight = eps_emp / cert_lo
    if eps_bad or fdp_bad:
        verdict = "violation"
        why = []
        if eps_bad:
            why.append(f"the empirical epsilon >= {eps_emp:.4g} exceeds the certified upper bound "
                       f"{cert_up:.4g} at delta = {delta:g}")
        if fdp_bad:
            why.append(f"TPR >= {tpr_lo:.4g} at FPR <= {fpr_up:.4g} lies above the certified trade-off "
                       f"curve (which allows TPR <= {tpr_cert:.4g})")
        message = (f"the accountant or the training code is wrong: {'; '.join(why)} (confidence "
                   f"{c:g}; assumes independent canaries)")
    elif eps_emp > 0.0:
        verdict = "consistent"
        message = (f"consistent: the attack proves epsilon >= {eps_emp:.4g} at delta = {delta:g} "
                   f"(confidence {c:g}), within the certified [{cert_lo:.4g}, {cert_up:.4g}]")
        if tight is not None:
            message += f"; it reaches {100.0 * min(tight, 1.0):.3g}% of the certified lower bound"
    else:
        verdict = "inconclusive"
        message = (f"inconclusive: at confidence {c:g} the attack shows no privacy loss (TPR >= "
                   f"{tpr_lo:.4g}, FPR <= {fpr_up:.4g}); use more canaries or a stronger attack")
    return AuditResult(verdict=verdict, message=message, confidence=c, tp=tp, fp=fp,
                       positives=n_pos, negatives=n_neg, tpr_lower=tpr_lo, fpr_upper=fpr_up,
                       delta=delta, epsilon_empirical=eps_emp, epsilon_certified_lower=cert_lo,
                       epsilon_certified_upper=cert_up, tpr_certified_upper=tpr_cert,
                       epsilon_violation=eps_bad, fdp_violation=fdp_bad, mu_empirical=mu_emp,
                       tightness=tight)
