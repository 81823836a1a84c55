r"""The closed-form composition theorems as plain functions, each rounded up.

Rounding rule (never under-report): sums are exact (as fractions of the given doubles)
and rounded to the next double; closed forms are inflated by a relative
:math:`10^{-12}`, far above their floating-point error, plus :math:`10^{-300}` against
underflow (:func:`_up`); an exact 0 is returned only when every epsilon is 0. The
registered methods built on them are in :mod:`.method`.
"""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction
from typing import Iterable, Sequence

from ..._numerics.rounding import frac_down, frac_up, inflate
from ..._validation import check_count, check_delta, check_epsilon, check_real
from ...errors import InvalidParameterError, MethodNotApplicableError

__all__ = [
    "simple_composition",
    "advanced_composition_epsilon",
    "advanced_composition",
    "heterogeneous_advanced_epsilon",
    "stability_composition",
    "stability_composition_pure",
    "tail_a",
    "tail_independent_epsilon",
    "tail_adaptive_epsilon",
]

#: relative inflation of closed-form epsilons (their floating-point error is ~1e-15)
_SAFETY = 1e-12
#: absolute margin added to every positive closed-form epsilon (products can underflow)
_UNDERFLOW_MARGIN = 1e-300
_LN2 = math.log(2.0)


def _up(x: float) -> float:
    """Round a computed epsilon up: relative margin plus 1e-300 (covers underflow).

    Callers return an exact 0 themselves where every input epsilon is 0.
    """
    return inflate(x, _SAFETY, _UNDERFLOW_MARGIN)


def _eps_expm1(e: float) -> float:
    r""":math:`\varepsilon(e^\varepsilon - 1)` without OverflowError (inf beyond doubles)."""
    if e > 700.0:
        return math.inf
    return e * math.expm1(e)


def _log_inv(d: float) -> float:
    """ln(1/d) for d in [0, 1]: inf at 0."""
    if d <= 0.0:
        return math.inf
    return max(0.0, -math.log(d))


def _sqrt_prod(*factors: float) -> float:
    """sqrt of a product of non-negative factors, 0 if any factor is 0 (no inf * 0 = nan)."""
    if any(f == 0.0 for f in factors):
        return 0.0
    p = 1.0
    for f in factors:
        p *= f
    return math.sqrt(p)


def _check_with_simple(with_simple: object) -> bool:
    if not isinstance(with_simple, bool):
        raise InvalidParameterError(
            f"with_simple = {with_simple!r} must be True or False (whether to report the minimum of "
            f"the theorem and basic composition)."
        )
    return with_simple


def as_written(x: float) -> Fraction:
    """A number as the decimal written: the shortest decimal that reads back as the same
    double (``0.1`` -> 1/10), exactly (docs/theory.md, "Numbers as written"). For
    displays: the exact sum of the parameters a user wrote."""
    return Fraction(repr(float(x)))


def upper_reading(x: float) -> Fraction:
    """The larger of a stated parameter's two readings, the double and the decimal written.

    A sum of these bounds the true sum whichever the user meant (0.1 as the decimal 1/10 or
    as the double just above it), so a composition of stated parameters is certified under
    both readings (docs/theory.md, "Numbers as written")."""
    return max(Fraction(x), as_written(x))


def lower_reading(x: float) -> Fraction:
    """The smaller of the two readings of a stated target (a query's delta): the budget a
    composition may spend under either reading."""
    return min(Fraction(x), as_written(x))


def decimal_text(q: Fraction) -> str | None:
    """The exact decimal text of ``q`` when its denominator divides a power of 10, else None."""
    den = q.denominator
    for p in (2, 5):
        while den % p == 0:
            den //= p
    if den != 1:
        return None
    digits = 0
    while (q * 10**digits).denominator != 1:
        digits += 1
    return str(Decimal(q.numerator * 10**digits // q.denominator).scaleb(-digits))


def simple_composition(pairs: Iterable[tuple[float, float]]) -> tuple[float, float]:
    r"""Basic composition: :math:`(\sum_i \varepsilon_i, \sum_i \delta_i)`.

    Args:
        pairs: the mechanisms' :math:`(\varepsilon_i, \delta_i)` guarantees, with
            :math:`\varepsilon_i \in [0, \infty]`, :math:`\delta_i \in [0, 1)`.

    Returns:
        ``(epsilon, delta)``: the exact sums of each number's larger reading (the double
        or the decimal written, :func:`upper_reading`), each rounded up once to a double
        (delta capped at 1).

    Guarantee:
        upper bound. The adaptive composition of mechanisms that are
        :math:`(\varepsilon_i, \delta_i)`-DP for every choice made from earlier outputs
        is :math:`(\sum_i \varepsilon_i, \sum_i \delta_i)`-DP, for any neighbour relation.

    References:
        Roth, CIS 800 lecture 4 "Composition Theorems", Thm 1 (pure DP: "the
        class of epsilon-DP mechanisms satisfies k epsilon-DP under k-fold adaptive
        composition"); lecture notes "Advanced Composition", Thm 1 (simple composition);
        blog post "A Tail of Two Densities", Claim 10 (basic composition for
        (epsilon, delta)-DP, adaptive; proof after Dwork and Lei 2009).
    """
    eps_sum, delta_sum = Fraction(0), Fraction(0)
    eps_inf = False
    n = 0
    for i, pair in enumerate(pairs):
        if not (isinstance(pair, tuple) and len(pair) == 2):
            raise InvalidParameterError(
                f"pairs[{i}] = {pair!r} must be an (epsilon, delta) tuple, e.g. (0.1, 1e-8)."
            )
        e = check_epsilon(f"pairs[{i}] epsilon", pair[0], allow_inf=True)
        d = check_delta(f"pairs[{i}] delta", pair[1])
        n += 1
        if math.isinf(e):
            eps_inf = True
        else:
            eps_sum += upper_reading(e)
        delta_sum += upper_reading(d)
    eps = math.inf if eps_inf else frac_up(eps_sum)
    return eps, min(1.0, frac_up(delta_sum))


def advanced_composition_epsilon(epsilon: float, k: int, delta_prime: float) -> float:
    r"""Dwork-Rothblum-Vadhan: :math:`\sqrt{2k\ln(1/\delta')}\,\varepsilon + k\varepsilon(e^\varepsilon - 1)`.

    Args:
        epsilon: each mechanism's :math:`\varepsilon \in [0, \infty]`.
        k: the number of mechanisms, ``>= 1``.
        delta_prime: the free :math:`\delta' \in (0, 1]`.

    Returns:
        :math:`\varepsilon'` (``inf`` when :math:`k\varepsilon(e^\varepsilon-1)` exceeds
        the doubles), rounded up.

    Guarantee:
        upper bound. If each of :math:`k` adaptively chosen mechanisms is
        :math:`(\varepsilon, \delta)`-DP, the composition is
        :math:`(\varepsilon', k\delta + \delta')`-DP (use :func:`advanced_composition` for
        the pair).

    References:
        Dwork, Rothblum and Vadhan, "Boosting and Differential Privacy" (FOCS 2010),
        Thm III.3; Roth, CIS 800 lecture 4, Thm 6 (pure DP; total delta is
        :math:`\delta'`); lecture notes "Advanced Composition", Thm 2 -- its statement
        as printed, :math:`\sqrt{2k\log 1/\delta} + k(e^\varepsilon - 1)`, drops the
        :math:`\varepsilon` factors that its own proof (eq. 6) gives; the corrected form
        is the one implemented.
    """
    epsilon = check_epsilon("epsilon", epsilon, allow_inf=True)
    k = check_count("k", k, minimum=1)
    delta_prime = check_real("delta_prime", delta_prime, low=0.0, high=1.0, low_open=True,
                             remedy="delta' is the extra failure probability, e.g. 1e-6.")
    return _advanced_value([(epsilon, k)], delta_prime)


def advanced_composition(epsilon: float, delta: float, k: int, delta_prime: float) -> tuple[float, float]:
    r"""Dwork-Rothblum-Vadhan as a pair: :math:`(\varepsilon', k\delta + \delta')`.

    Args:
        epsilon: each mechanism's :math:`\varepsilon \in [0, \infty]`.
        delta: each mechanism's :math:`\delta \in [0, 1)`.
        k: the number of mechanisms, ``>= 1``.
        delta_prime: the free :math:`\delta' \in (0, 1]`.

    Returns:
        ``(epsilon', k * delta + delta')``, rounded up (delta capped at 1).

    Guarantee:
        upper bound under k-fold adaptive composition (see
        :func:`advanced_composition_epsilon`).

    References:
        Dwork, Rothblum and Vadhan 2010, Thm III.3; Dwork and Roth, "The Algorithmic
        Foundations of Differential Privacy", Thm 3.20.
    """
    delta = check_delta("delta", delta)
    eps = advanced_composition_epsilon(epsilon, k, delta_prime)
    return eps, min(1.0, frac_up(k * Fraction(delta) + Fraction(delta_prime)))


def heterogeneous_advanced_epsilon(epsilons: Sequence[float], delta_prime: float,
                                   counts: Sequence[int] | None = None) -> float:
    r"""Advanced composition for differing :math:`\varepsilon_i`.

    .. math::
        \varepsilon' = \sqrt{2\ln(1/\delta') \sum_i \varepsilon_i^2}
        + \sum_i \varepsilon_i (e^{\varepsilon_i} - 1).

    Args:
        epsilons: the mechanisms' :math:`\varepsilon_i \in [0, \infty]` (non-empty).
        delta_prime: the free :math:`\delta' \in (0, 1]`.
        counts: optional multiplicities (``epsilons[i]`` occurs ``counts[i]`` times).

    Returns:
        :math:`\varepsilon'`, rounded up.

    Guarantee:
        upper bound. If mechanism :math:`i` is :math:`(\varepsilon_i, \delta_i)`-DP
        (parameters fixed in advance, mechanisms chosen adaptively), the composition is
        :math:`(\varepsilon', \sum_i \delta_i + \delta')`-DP. Proof (checked): the privacy
        loss :math:`C_i` of step :math:`i` given the past satisfies
        :math:`|C_i| \le \varepsilon_i` and
        :math:`\mathbb E[C_i \mid \text{past}] \le \varepsilon_i(e^{\varepsilon_i}-1)`
        (lecture 4, Lemma 7), so :math:`C_i - \mathbb E[C_i \mid \text{past}]` lies in an
        interval of length :math:`2\varepsilon_i` and Hoeffding's lemma (lecture 5,
        Thm 2) gives the conditional moment bound
        :math:`e^{\lambda^2 \varepsilon_i^2 / 2}`; chaining as in the proof of
        Azuma-Hoeffding (lecture 5, Thm 1) gives
        :math:`\Pr[\sum_i C_i > \sum_i \varepsilon_i(e^{\varepsilon_i}-1) + t]
        \le \exp(-t^2 / (2\sum_i \varepsilon_i^2))`, and
        :math:`t = \sqrt{2\ln(1/\delta')\sum_i\varepsilon_i^2}` gives :math:`\delta'`;
        the :math:`\delta_i` are handled as in Dwork-Roth Thm 3.20. With equal
        :math:`\varepsilon_i` it is exactly Dwork-Rothblum-Vadhan.

    References:
        Kairouz, Oh and Viswanath, "The Composition Theorem for Differential Privacy"
        (ICML 2015 / IEEE Trans. IT 2017), Thm 3.5, whose bound
        :math:`\sum_i \varepsilon_i\frac{e^{\varepsilon_i}-1}{e^{\varepsilon_i}+1}
        + \sqrt{2\ln(1/\delta')\sum_i\varepsilon_i^2}` with total delta
        :math:`1-(1-\delta')\prod_i(1-\delta_i) \le \delta' + \sum_i\delta_i` is smaller, so
        it implies this one; Dwork, Rothblum and Vadhan 2010, Thm III.3 (equal
        :math:`\varepsilon_i`).
    """
    delta_prime = check_real("delta_prime", delta_prime, low=0.0, high=1.0, low_open=True,
                             remedy="delta' is the extra failure probability, e.g. 1e-6.")
    eps_list = list(epsilons)
    if not eps_list:
        raise InvalidParameterError("epsilons is empty; give at least one mechanism's epsilon.")
    if counts is None:
        cnt = [1] * len(eps_list)
    else:
        cnt = list(counts)
        if len(cnt) != len(eps_list):
            raise InvalidParameterError(
                f"counts has {len(cnt)} entries but epsilons has {len(eps_list)}; give one count per epsilon."
            )
    items = []
    for i, (e, c) in enumerate(zip(eps_list, cnt)):
        e = check_epsilon(f"epsilons[{i}]", e, allow_inf=True)
        c = check_count(f"counts[{i}]", c, minimum=0)
        if c:
            items.append((e, c))
    if not items:
        return 0.0
    return _advanced_value(items, delta_prime)


def _advanced_value(items: Sequence[tuple[float, int]], delta_prime: float) -> float:
    """The heterogeneous advanced formula for ``[(eps_i, count_i)]`` (validated input)."""
    if any(math.isinf(e) for e, _ in items):
        return math.inf
    top = max(e for e, _ in items)
    if top == 0.0:
        return 0.0
    # sqrt(sum c e^2) = top * sqrt(sum c (e/top)^2): no underflow for tiny epsilons
    scaled = math.fsum(c * (e / top) ** 2 for e, c in items)
    s1 = math.fsum(c * _eps_expm1(e) for e, c in items)
    if math.isinf(s1) or math.isinf(scaled):
        return math.inf
    root = top * _sqrt_prod(2.0, _log_inv(delta_prime), scaled)
    return _up(root + s1)


def stability_composition(epsilon: float, delta: float, k: int) -> tuple[float, float]:
    r"""Composition for DP-stability, lecture 5 Thm 1: :math:`(2k\varepsilon^2 + \sqrt{2k\ln(1/(k\delta))}\,\varepsilon,\ 2k\delta)`.

    Args:
        epsilon: each mechanism's :math:`\varepsilon`, hypothesis :math:`0 < \varepsilon \le 1`.
        delta: each mechanism's :math:`\delta`, hypothesis :math:`0 < \delta \le 1`; the
            formula also needs :math:`k\delta < 1` (else :math:`\ln(1/(k\delta)) \le 0`
            and :math:`2k\delta \ge 2` certifies nothing).
        k: the number of mechanisms, ``>= 1``.

    Returns:
        ``(epsilon_hat, 2 k delta)``, rounded up.

    Raises:
        MethodNotApplicableError: outside the hypotheses.

    Guarantee:
        upper bound. "Let :math:`0 < \varepsilon, \delta \le 1`, and let :math:`\vec M` be a
        mechanism that performs :math:`k` adaptive executions of mechanisms, each of
        which is :math:`(\varepsilon, \delta)`-DP-stable (without additional access to the
        database). Then :math:`\vec M` is :math:`(2k\varepsilon^2 +
        \sqrt{2k\ln(1/(k\delta))}\,\varepsilon, 2k\delta)`-DP-stable." The lecture proves
        only Thm 2; Thm 1 follows from Dwork-Rothblum-Vadhan with
        :math:`\delta' = k\delta`, because :math:`\varepsilon(e^\varepsilon - 1) \le
        (e - 1)\varepsilon^2 \le 2\varepsilon^2` for :math:`\varepsilon \le 1` -- which is
        why the hypothesis :math:`\varepsilon \le 1` matters.

    References:
        Stemmer, lecture 5 "Azuma-Hoeffding and Composition for DP-Stability" (after
        lecture notes by Roth and Smith), Composition for DP-stability, Thm 1.
    """
    epsilon = check_epsilon("epsilon", epsilon, allow_inf=True)
    delta = check_delta("delta", delta)
    k = check_count("k", k, minimum=1)
    _stability_hypotheses(epsilon, delta, need_delta=True)
    if k * Fraction(delta) >= 1:
        raise MethodNotApplicableError(
            f"stability (lecture 5 Thm 1) needs k * delta < 1 so that ln(1/(k delta)) > 0; "
            f"got k = {k}, delta = {delta!r} (2 k delta >= 2 certifies nothing)."
        )
    return _stability_thm1(epsilon, delta, k), frac_up(2 * k * Fraction(delta))


def stability_composition_pure(epsilon: float, k: int, delta: float) -> float:
    r"""Composition for DP-stability with :math:`\delta = 0`, lecture 5 Thm 2: :math:`2k\varepsilon^2 + \sqrt{2k\ln(1/\delta)}\,\varepsilon`.

    Args:
        epsilon: each mechanism's :math:`\varepsilon`, hypothesis :math:`0 < \varepsilon \le 1`.
        k: the number of :math:`(\varepsilon, 0)`-DP-stable mechanisms, ``>= 1``.
        delta: the target :math:`\delta`, hypothesis :math:`0 < \delta \le 1`.

    Returns:
        :math:`\hat\varepsilon`, rounded up.

    Raises:
        MethodNotApplicableError: outside the hypotheses.

    Guarantee:
        upper bound. "Let :math:`0 < \varepsilon, \delta \le 1`, and let :math:`\vec M` be a
        mechanism that performs :math:`k` adaptive executions of mechanisms, each of
        which is :math:`(\varepsilon, 0)`-DP-stable. Then :math:`\vec M` is
        :math:`(\hat\varepsilon, \delta)`-DP-stable for :math:`\hat\varepsilon = 2k\varepsilon^2
        + \sqrt{2k\ln(1/\delta)}\,\varepsilon`." (Proved in the lecture with Azuma-Hoeffding
        and Aux. Claim 4, :math:`\mathbb E[\text{loss}] \le 2\varepsilon(1 - e^{-\varepsilon})
        \le 2\varepsilon^2`.)

    References:
        Stemmer, lecture 5 "Azuma-Hoeffding and Composition for DP-Stability", Thm 2.
    """
    epsilon = check_epsilon("epsilon", epsilon, allow_inf=True)
    k = check_count("k", k, minimum=1)
    delta = check_delta("delta", delta, allow_one=True)
    _stability_hypotheses(epsilon, delta, need_delta=True)
    return _stability_thm2(epsilon, k, delta)


def _stability_hypotheses(epsilon: float, delta: float, *, need_delta: bool) -> None:
    if not (0.0 < epsilon <= 1.0):
        raise MethodNotApplicableError(
            f"stability (lecture 5, Thms 1-2) needs 0 < epsilon <= 1; got epsilon = {epsilon!r}. "
            f"Use 'advanced' or 'simple' instead."
        )
    if need_delta and not (0.0 < delta <= 1.0):
        raise MethodNotApplicableError(
            f"stability (lecture 5, Thms 1-2) needs 0 < delta <= 1; got delta = {delta!r}."
        )


def _stability_thm1(epsilon: float, delta: float, k: int) -> float:
    """Thm 1's epsilon for validated input with k delta < 1."""
    kd = frac_down(k * Fraction(delta))
    return _up(2.0 * k * epsilon * epsilon + _sqrt_prod(2.0 * k, _log_inv(kd)) * epsilon)


def _stability_thm2(epsilon: float, k: int, delta: float) -> float:
    """Thm 2's epsilon for validated input."""
    return _up(2.0 * k * epsilon * epsilon + _sqrt_prod(2.0 * k, _log_inv(delta)) * epsilon)


def tail_a(epsilon: float) -> float:
    r"""The blog's :math:`a(\varepsilon)` (Claim 12): a bound on both KL divergences of an :math:`\varepsilon`-ind pair.

    .. math::
        a(\varepsilon) = \varepsilon(e^\varepsilon - 1)\,1_{\varepsilon \le \log 2}
        + \varepsilon\,1_{\varepsilon > \log 2}
        = \min(\varepsilon(e^\varepsilon - 1), \varepsilon).

    Args:
        epsilon: :math:`\varepsilon \in [0, \infty]`.

    Returns:
        :math:`a(\varepsilon)`.

    Guarantee:
        upper bound on :math:`D(p\|q)` and :math:`D(q\|p)` when :math:`p, q` are
        :math:`\varepsilon`-indistinguishable (Claim 11 gives
        :math:`D(p\|q) + D(q\|p) \le \varepsilon(e^\varepsilon-1)`, and
        :math:`D(p\|q) \le \varepsilon` directly).

    References:
        blog post "A Tail of Two Densities" (2019), Claims 11 and 12, eq. (6.98).
    """
    epsilon = check_epsilon("epsilon", epsilon, allow_inf=True)
    return _a(epsilon)


def _a(epsilon: float) -> float:
    if epsilon <= _LN2:
        return epsilon * math.expm1(epsilon)
    return epsilon


def tail_independent_epsilon(epsilon: float, k: int, beta: float) -> float:
    r"""The blog's Claims 14 and 17: :math:`k\,a(\varepsilon) + \sqrt{2k\log\beta^{-1}}\,\varepsilon`.

    Args:
        epsilon: each mechanism's :math:`\varepsilon \in [0, \infty]`.
        k: the number of mechanisms, ``>= 1``.
        beta: the free :math:`\beta \in (0, 1)`.

    Returns:
        the epsilon part, rounded up.

    Guarantee:
        upper bound. Claim 14 (:math:`\delta = 0`): "Fix :math:`0 < \beta < 1`. Let
        :math:`M_1, \dots, M_k` be :math:`\varepsilon`-dp, then the independent composition
        :math:`M` of :math:`M_{1:k}` is :math:`(k a(\varepsilon) + \sqrt{2k\log\beta^{-1}}
        \varepsilon, \beta)`-dp." Claim 17: for :math:`(\varepsilon, \delta)`-dp mechanisms
        the same epsilon holds with total delta :math:`k\delta + \beta`. Stated for
        independent composition; since :math:`a(\varepsilon) = \varepsilon(e^\varepsilon-1)`
        for :math:`\varepsilon \le \log 2` it then equals Dwork-Rothblum-Vadhan, and for
        :math:`\varepsilon > \log 2` it exceeds :math:`k\varepsilon` (basic composition),
        so the number is also valid under adaptive composition.

    References:
        blog post "A Tail of Two Densities" (2019), Claims 12, 13, 14 and 17.
    """
    epsilon = check_epsilon("epsilon", epsilon, allow_inf=True)
    k = check_count("k", k, minimum=1)
    beta = _check_beta(beta)
    return _tail_value(epsilon, k, beta, adaptive=False)


def tail_adaptive_epsilon(epsilon: float, k: int, beta: float) -> float:
    r"""The blog's Claims 16 and 18: :math:`k\,a(\varepsilon) + \sqrt{2k\log\beta^{-1}}\,(\varepsilon + a(\varepsilon))`.

    Args:
        epsilon: each mechanism's :math:`\varepsilon \in [0, \infty]`.
        k: the number of mechanisms, ``>= 1``.
        beta: the free :math:`\beta \in (0, 1)`.

    Returns:
        the epsilon part, rounded up.

    Guarantee:
        upper bound under adaptive composition. Claim 16 (:math:`\delta = 0`): "Let
        :math:`\beta > 0`. Let :math:`M_{1:k}` be :math:`k` mechanisms with independent
        noises such that for each :math:`i` and :math:`y_{1:i}`, :math:`M_i(y_{1:i})` is
        :math:`(\varepsilon, 0)`-dp. Then the adaptive composition of :math:`M_{1:k}` is
        :math:`(k a(\varepsilon) + \sqrt{2k\log\beta^{-1}}(\varepsilon + a(\varepsilon)),
        \beta)`-dp." Claim 18: the same epsilon with total delta :math:`\beta + k\delta`
        for :math:`(\varepsilon, \delta)`-dp mechanisms, :math:`0 < \beta < 1`. (Claim 16's
        :math:`\beta \ge 1` is vacuous, so :math:`\beta < 1` is required here too.) The
        Azuma step uses increments :math:`|X_i - X_{i-1}| \le \varepsilon + a(\varepsilon)`,
        looser than Dwork-Rothblum-Vadhan's, so it is never smaller than
        ``"advanced"``; it is valid (it dominates Dwork-Rothblum-Vadhan for
        :math:`\varepsilon \le \log 2` and basic composition beyond).

    References:
        blog post "A Tail of Two Densities" (2019), Claims 15, 16 and 18 (Claim 18 after
        Dwork, Rothblum and Vadhan 2010 and Dwork-Roth Thm 3.20).
    """
    epsilon = check_epsilon("epsilon", epsilon, allow_inf=True)
    k = check_count("k", k, minimum=1)
    beta = _check_beta(beta)
    return _tail_value(epsilon, k, beta, adaptive=True)


def _check_beta(beta: float) -> float:
    return check_real("beta", beta, low=0.0, high=1.0, low_open=True, high_open=True,
                      remedy="beta is the tail probability of the blog's Claims 14-18, in (0, 1).")


def _tail_value(epsilon: float, k: int, beta: float, *, adaptive: bool) -> float:
    if math.isinf(epsilon):
        return math.inf
    if epsilon == 0.0:
        return 0.0
    a = _a(epsilon)
    width = epsilon + a if adaptive else epsilon
    return _up(k * a + _sqrt_prod(2.0 * k, _log_inv(beta)) * width)
