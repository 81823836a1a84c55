r"""Closed-form composition theorems of the source documents, as composition methods.

Registered methods (``dpcompose.compose(mechanisms, method=NAME)``):

============================  =====================================================
``"simple"``                  basic composition: :math:`(\sum_i \varepsilon_i, \sum_i \delta_i)`
``"advanced"``                Dwork-Rothblum-Vadhan advanced composition (and its
                              heterogeneous form), the free :math:`\delta'` optimal
``"stability"``               composition for DP-stability (Stemmer, after Roth and
                              Smith, lecture 5, Thms 1 and 2)
``"tail_independent"``        the blog's :math:`a(\varepsilon)` form for independent
                              composition ("A Tail of Two Densities", Claims 14, 17)
``"tail_adaptive"``           the blog's :math:`a(\varepsilon)` form for adaptive
                              composition (Claims 16, 18)
============================  =====================================================

Plain functions give the raw formulas: :func:`simple_composition`,
:func:`advanced_composition_epsilon`, :func:`advanced_composition`,
:func:`heterogeneous_advanced_epsilon`, :func:`stability_composition`,
:func:`stability_composition_pure`, :func:`tail_a`, :func:`tail_independent_epsilon`,
:func:`tail_adaptive_epsilon`.

How mechanisms enter the theorems
---------------------------------
Every theorem takes an :math:`(\varepsilon_i, \delta_i)` guarantee per mechanism. A
mechanism with its own pair (:func:`~dpcompose.representations.eps_delta_pair`: PureDP,
ApproxDP, Laplace, RandomizedResponse, Exponential, subsampled versions of these) enters
with that pair. A mechanism known only by its privacy profile :math:`\delta(\varepsilon)`
(Gaussian, subsampled Gaussian) is :math:`(e, \delta(e))`-DP for *every* :math:`e \ge 0`,
so any point of its profile is a valid pair; the method chooses the points to make its
bound small at the queried :math:`\delta` (the choice only affects tightness, never
validity, because every evaluated choice is itself a certified bound):

- ``"simple"`` spends the whole remaining delta budget on the profile mechanisms, either
  at one common :math:`e` or split equally per mechanism (the smaller result is kept);
- ``"advanced"`` and ``"tail_*"`` search over the delta given to the mechanisms (the
  rest of the target is the theorem's free :math:`\delta'` or :math:`\beta`): the
  exact minimum over the delta levels of the fixed lattice :math:`2^{n/64}` below the
  target, found by branch and bound (:func:`_lattice_min`; the bound at a block of
  levels takes the epsilons of its highest level and the free delta of its lowest).
  The remaining budget is charged the whole level given (not the slightly smaller delta
  the points use), so that the objective at each fixed level is non-increasing in the
  target; the minimum over a set of levels that only grows with the target is then
  non-increasing too, which the query laws need (a search whose candidates move with
  the target is not: it gave ``delta(epsilon(0.01)) = 0.01005`` in issue 9).
  Allocations at lattice levels do not depend on the query and are cached, so the
  many queries of a ``delta(epsilon)`` inversion reuse them;
- ``"stability"`` needs no search: Thm 1's per-mechanism delta is fixed by the target
  (see :func:`stability_method`), and the profile point is the smallest :math:`e`
  within it.

The equal-per-mechanism split is tried only for at most ``20`` distinct profile
mechanisms (it costs one inversion per mechanism per step); beyond that, the common-
:math:`e` choice alone is used.

Basic composition is always valid for the same input, so by default every theorem
method reports the pointwise minimum of its theorem and ``"simple"`` (as Kairouz, Oh
and Viswanath state their heterogeneous bound, Thm 3.5, with a ``min`` over
:math:`\sum_i \varepsilon_i`); pass ``with_simple=False`` to see the theorem alone.

Rounding rule (never under-report): sums of deltas are compared exactly (as fractions
of the given doubles); a remaining budget :math:`\delta'` is rounded down; every
epsilon is rounded up (exact sums to the next double; closed forms inflated by a
relative :math:`10^{-12}`, far above their floating-point error, plus :math:`10^{-300}`
against underflow; an exact 0 is returned only when every epsilon is 0); sums of
profile deltas keep a relative :math:`10^{-12}` margin to the budget. A budget of zero for a
profile-only mechanism is refused (a floating-point profile can underflow to 0 where
the truth is positive), so such queries return ``inf``.

``delta(inf)``, the probability of infinite privacy loss, is at most
:math:`1 - \prod_i (1 - \delta_i(\infty))^{k_i}` (see :func:`_infinite_loss_mass`); the
theorems, which bound delta only at finite epsilon, report the smaller of that and the
smallest delta at which they certify a finite epsilon.

Composition is adaptive throughout (each mechanism may be chosen after seeing the
earlier outputs, with its privacy parameters fixed in advance); the neighbour relation
is whatever relation the mechanisms' guarantees are stated for (the same for all).
"""

from __future__ import annotations

import heapq
import decimal
import math
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from typing import Callable, Iterable, Sequence

from ._numerics import invert_delta_to_epsilon
from ._validation import check_count, check_delta, check_epsilon, check_real
from .compose import Groups, register_method
from .errors import InvalidParameterError, MethodNotApplicableError
from .guarantee import Guarantee
from .representations import eps_delta_pair, privacy_profile

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
    "simple_method",
    "advanced_method",
    "stability_method",
    "tail_independent_method",
    "tail_adaptive_method",
]

Profile = Callable[[float], float]

#: relative inflation of closed-form epsilons (their floating-point error is ~1e-15)
_SAFETY = 1e-12
#: absolute margin added to every positive closed-form epsilon (products can underflow)
_TINY = 1e-300
#: at most this many distinct profile-only mechanisms get the per-mechanism split
_MAX_EQUAL_SPLIT_GROUPS = 20
#: the 1-D search over the delta given to profile-only mechanisms uses levels 2^(n/64)
_LATTICE = 64  # lattice points per octave of delta levels
_LATTICE_MIN = -_LATTICE * 1074  # 2^-1074, the smallest positive double
#: relative precision of the profile inversions inside the search (any point found is
#: valid: the delta used is the profile's value at the epsilon found)
_SEARCH_TOL = 1e-9
_LN2 = math.log(2.0)


# ---------------------------------------------------------------------------
# small numeric helpers


def _up(x: float) -> float:
    """Round a computed epsilon up: relative margin plus 1e-300 (covers underflow).

    Callers return an exact 0 themselves where every input epsilon is 0.
    """
    if math.isinf(x):
        return x
    return x * (1.0 + _SAFETY) + _TINY


def _frac_up(q: Fraction) -> float:
    """The smallest double >= the exact rational q."""
    x = float(q)
    if Fraction(x) < q:
        x = math.nextafter(x, math.inf)
    return x


def _as_written(x: float) -> Fraction:
    """A number as the decimal written: the shortest decimal that reads back as the same
    double (``0.1`` -> 1/10), exactly. Simple composition sums epsilons and deltas this
    way (docs/theory.md, "Numbers as written"), so 100 x pure(0.1) is exactly 10, and
    rounds the exact sum up once."""
    return Fraction(repr(float(x)))


def _frac_down(q: Fraction) -> float:
    """The largest double <= the exact rational q."""
    x = float(q)
    if Fraction(x) > q:
        x = math.nextafter(x, -math.inf)
    return x


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


# ---------------------------------------------------------------------------
# plain formulas


def simple_composition(pairs: Iterable[tuple[float, float]]) -> tuple[float, float]:
    r"""Basic composition: :math:`(\sum_i \varepsilon_i, \sum_i \delta_i)`.

    Args:
        pairs: the mechanisms' :math:`(\varepsilon_i, \delta_i)` guarantees, with
            :math:`\varepsilon_i \in [0, \infty]`, :math:`\delta_i \in [0, 1)`.

    Returns:
        ``(epsilon, delta)``: the exact sums of the numbers as written (``0.1`` is 1/10,
        see :func:`_as_written`), each rounded up once to a double (delta capped at 1).

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
            eps_sum += _as_written(e)
        delta_sum += _as_written(d)
    eps = math.inf if eps_inf else _frac_up(eps_sum)
    return eps, min(1.0, _frac_up(delta_sum))


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
    return eps, min(1.0, _frac_up(k * Fraction(delta) + Fraction(delta_prime)))


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
    return _stability_thm1(epsilon, delta, k), _frac_up(2 * k * Fraction(delta))


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
    kd = _frac_down(k * Fraction(delta))
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


# ---------------------------------------------------------------------------
# the input as the theorems see it


@dataclass(frozen=True)
class _Parts:
    fixed: tuple[tuple[float, float, int], ...]  # (eps, delta, count) with own pair
    profiled: tuple[tuple[Profile, int], ...]    # (profile, count), profile-only mechanisms
    k_total: int
    infinite_loss_mass: float  # certified upper bound on delta(inf) of the composition
    cache: dict = field(default_factory=dict, compare=False, repr=False)

    @property
    def nonprivate(self) -> bool:
        return any(math.isinf(e) for e, _, _ in self.fixed)

    @property
    def fixed_delta(self) -> Fraction:
        return sum((c * Fraction(d) for _, d, c in self.fixed), Fraction(0))

    @property
    def fixed_eps_max(self) -> float:
        return max((e for e, _, _ in self.fixed), default=0.0)

    @property
    def fixed_delta_max(self) -> float:
        return max((d for _, d, _ in self.fixed), default=0.0)


def _parts(groups: Groups) -> _Parts:
    fixed, profiled = [], []
    for m, k in groups:
        pair = eps_delta_pair(m)
        if pair is None:
            profiled.append((privacy_profile(m), k))
        else:
            fixed.append((float(pair[0]), float(pair[1]), k))
    return _Parts(tuple(fixed), tuple(profiled), sum(k for _, k in groups),
                  _infinite_loss_mass(groups))


def _infinite_loss_mass(groups: Groups) -> float:
    r"""Certified upper bound on the probability of infinite privacy loss, delta(inf).

    Mechanism :math:`i` has infinite loss with probability at most
    :math:`u_i = \delta_i(\infty)` (its privacy profile at infinity: :math:`\delta_i` for
    (eps_i, delta_i)-DP, 0 for Laplace and Gaussian); under adaptive composition each
    step, whatever came before, avoids it with probability at least :math:`1 - u_i`, so
    the composition has infinite loss with probability at most
    :math:`1 - \prod_i (1 - u_i)^{k_i}`. Computed as
    :math:`-\mathrm{expm1}(\sum_i k_i \mathrm{log1p}(-u_i))` with the sum pushed away
    from 0 by 16 ulps per term and the result raised by 4 ulps (their rounding errors).
    """
    terms = []
    for m, k in groups:
        u = float(privacy_profile(m)(math.inf))
        if u >= 1.0:
            return 1.0
        if u > 0.0:
            terms.append(k * math.log1p(-u))
    if not terms:
        return 0.0
    s = math.fsum(terms) * (1.0 + 16.0 * len(terms) * 2.0**-52)
    return min(1.0, -math.expm1(s) * (1.0 + 4.0 * 2.0**-52))


def _summed(profiled: Sequence[tuple[Profile, int]]) -> Profile:
    return lambda e: math.fsum(k * p(e) for p, k in profiled)


def _maxed(profiled: Sequence[tuple[Profile, int]]) -> Profile:
    return lambda e: max(p(e) for p, _ in profiled)


def _allocations(profiled: Sequence[tuple[Profile, int]], budget: float) -> list[list[tuple[float, float, int]]]:
    """Candidate points ``[(e_j, delta_j, k_j)]`` with ``sum_j k_j delta_j <= budget``.

    Two families: one common e (the smallest with the summed profile within budget), and
    (for few groups) an equal delta per mechanism. Empty when no point fits.
    """
    if budget <= 0.0 or not profiled:
        return []
    budget *= 1.0 - 1e-12  # margin for the rounding of the sum of k_j * delta_j
    out = []
    e = invert_delta_to_epsilon(_summed(profiled), budget, side="upper", rel_tol=_SEARCH_TOL)
    if math.isfinite(e):
        out.append([(e, p(e), k) for p, k in profiled])
    if 1 < len(profiled) <= _MAX_EQUAL_SPLIT_GROUPS:
        n = sum(k for _, k in profiled)
        per = budget / n
        pts = []
        for p, k in profiled:
            ej = invert_delta_to_epsilon(p, per, side="upper", rel_tol=_SEARCH_TOL)
            if not math.isfinite(ej):
                break
            pts.append((ej, p(ej), k))
        else:
            out.append(pts)
    return out


def _level(n: int) -> float:
    """The n-th point of the lattice of delta levels, 2^(n/_LATTICE)."""
    return 2.0 ** (n / _LATTICE)


def _lattice_min(top: float, value: Callable[[int], float],
                 bound: Callable[[int, int], float]) -> float:
    """The exact minimum of an objective over the lattice levels in (0, top).

    ``value(n)`` is the objective at the lattice level ``2^(n/_LATTICE)``;
    ``bound(lo, hi)`` is a lower bound on it at every lattice index in ``[lo, hi]``.
    Branch and bound over dyadic blocks of indices (aligned to the bottom of the
    lattice, 2^-1074, so that the points evaluated, and the allocations cached for them,
    do not depend on ``top``): the block with the smallest bound is split and each half's
    top point evaluated, until no block's bound is below the best value. The answer is
    therefore the exact minimum over the fixed set of lattice levels below ``top``, so it
    is non-increasing in ``top`` whenever the objective at each fixed level is: the query
    laws of the theorem methods rest on this (see :mod:`dpcompose.guarantee`). Every value
    returned is one the objective produced, so a valid bound stays valid.
    """
    if not top > 0.0:
        return math.inf
    n_top = math.floor(_LATTICE * math.log2(top))
    while n_top >= _LATTICE_MIN and _level(n_top) >= top:
        n_top -= 1
    while _level(n_top + 1) < top:
        n_top += 1
    if n_top < _LATTICE_MIN:
        return math.inf
    last = n_top - _LATTICE_MIN  # offsets 0..last
    best = value(n_top)
    heap = [(bound(_LATTICE_MIN, n_top), 0, last.bit_length())]  # (bound, start, log2 size)
    while heap:
        b, start, size = heapq.heappop(heap)
        if b >= best:
            break  # every remaining block is bounded below by the best value
        half = 1 << (size - 1)
        for child in (start, start + half):
            if child > last:
                continue
            lo, hi = _LATTICE_MIN + child, _LATTICE_MIN + min(child + half - 1, last)
            best = min(best, value(hi))
            if lo < hi:
                cb = bound(lo, hi)
                if cb < best:
                    heapq.heappush(heap, (cb, child, size - 1))
    return best


def _cached(parts: "_Parts", key: tuple, make: Callable[[], object]) -> object:
    """Per-input cache of allocations on lattice levels (they do not depend on the query)."""
    if key not in parts.cache:
        parts.cache[key] = make()
    return parts.cache[key]


# ---------------------------------------------------------------------------
# epsilon(delta) of each theorem for a given input


def _simple_eps(parts: _Parts, delta: float) -> float:
    if parts.nonprivate:
        return math.inf
    # numbers as written (_as_written): the target delta and each mechanism's (eps, delta)
    budget = _as_written(delta) - sum((c * _as_written(d) for _, d, c in parts.fixed), Fraction(0))
    if budget < 0:
        return math.inf
    eps_fixed = sum((c * _as_written(e) for e, _, c in parts.fixed), Fraction(0))
    if not parts.profiled:
        return _frac_up(eps_fixed)
    base = _frac_up(eps_fixed)
    best = math.inf
    for pts in _allocations(parts.profiled, _frac_down(budget)):
        total = base + math.fsum(k * e for e, _, k in pts)  # 0 only if every term is 0
        best = min(best, _up(total) if total > 0.0 else 0.0)
    return best


def _advanced_eps(parts: _Parts, delta: float) -> float:
    if parts.nonprivate:
        return math.inf
    budget = Fraction(delta) - parts.fixed_delta
    if budget <= 0:
        return math.inf
    items = [(e, c) for e, _, c in parts.fixed]
    b = _frac_down(budget)
    if not parts.profiled:
        return _advanced_value(items, b)

    def allocs(n: int) -> list:
        return _cached(parts, ("alloc", n), lambda: _allocations(parts.profiled, _level(n)))

    def rest(n: int) -> float:
        # the profile points at level n use at most level(n) of the budget in total
        return (b - _level(n)) * (1.0 - 1e-12)

    def value(n: int) -> float:
        r = rest(n)
        if r <= 0.0:
            return math.inf
        return min((_advanced_value(items + [(e, k) for e, _, k in pts], r) for pts in allocs(n)),
                   default=math.inf)

    def bound(lo: int, hi: int) -> float:
        # below hi every family's epsilons are at least those at hi (the inversions are
        # monotone in their target), and delta' is at most rest(lo)
        r = rest(lo)
        if r <= 0.0:
            return math.inf
        return min((_advanced_value(items + [(e, k) for e, _, k in pts], r) for pts in allocs(hi)),
                   default=math.inf)

    return _lattice_min(b, value, bound)


def _max_reduced(parts: _Parts, level: float) -> tuple[float, float] | None:
    """(eps, delta) that every mechanism satisfies, profile points at per-mechanism delta <= level."""
    eps, dl = parts.fixed_eps_max, parts.fixed_delta_max
    if parts.profiled:
        if level <= 0.0:
            return None
        mx = _maxed(parts.profiled)
        e = invert_delta_to_epsilon(mx, level, side="upper", rel_tol=_SEARCH_TOL)
        if not math.isfinite(e):
            return None
        eps, dl = max(eps, e), max(dl, mx(e))
    return eps, dl


def _tail_eps(parts: _Parts, delta: float, *, adaptive: bool) -> float:
    if parts.nonprivate:
        return math.inf
    k = parts.k_total

    def with_pair(eps: float, dl: float) -> float:
        beta = Fraction(delta) - k * Fraction(dl)
        if not (0 < beta < 1):
            return math.inf
        return _tail_value(eps, k, _frac_down(beta), adaptive=adaptive)

    if not parts.profiled:
        return with_pair(parts.fixed_eps_max, parts.fixed_delta_max)
    if delta <= 0.0:
        return math.inf

    def reduced(n: int) -> tuple[float, float] | None:
        return _cached(parts, ("max", n), lambda: _max_reduced(parts, _level(n)))

    def beta(n: int) -> float:
        # every mechanism's delta is at most max(fixed delta, level(n)); rounded down
        used = k * max(parts.fixed_delta_max, _level(n))
        return math.nextafter(delta - math.nextafter(used, math.inf), -math.inf)

    def at(red: tuple[float, float] | None, bt: float) -> float:
        if red is None or not 0.0 < bt < 1.0:
            return math.inf  # no profile point fits here (nor below), or no beta left
        return _tail_value(red[0], k, bt, adaptive=adaptive)

    # below hi the epsilon is at least the one at hi, and beta at most beta(lo)
    return _lattice_min(delta / k, lambda n: at(reduced(n), beta(n)),
                        lambda lo, hi: at(reduced(hi), beta(lo)))


def _stability_eps(parts: _Parts, delta: float) -> float:
    if parts.nonprivate or delta <= 0.0:
        return math.inf
    k = parts.k_total
    if not parts.profiled and parts.fixed_delta_max == 0.0:
        return _stability_thm2(parts.fixed_eps_max, k, delta)  # Thm 2
    level = _frac_down(Fraction(delta) / (2 * k))  # Thm 1 at delta_hat = delta / (2k)
    red = _max_reduced(parts, level)
    if red is None:
        return math.inf
    eps, dl = red
    if dl > level or eps > 1.0:
        return math.inf
    # a (0, d)-DP mechanism is (eta, d)-DP for every eta in (0, 1]: evaluate at the
    # smallest positive double (the hypothesis 0 < epsilon holds there)
    eps = max(eps, 5e-324)
    return _stability_thm1(eps, level, k)


# ---------------------------------------------------------------------------
# registered methods


def _guarantee(name: str, parts: _Parts, theorem: Callable[[_Parts, float], float],
               with_simple: bool, info: dict) -> Guarantee:
    @lru_cache(maxsize=4096)
    def eps_fn(delta: float) -> float:
        v = theorem(parts, delta)
        if with_simple:
            v = min(v, _simple_eps(parts, delta))
        return v

    return Guarantee(name, epsilon_upper=eps_fn, infinite_loss_mass=parts.infinite_loss_mass,
                     provenance={"theorem": info, "with_simple": with_simple})


@register_method("simple")
def simple_method(groups: Groups) -> Guarantee:
    r"""Basic composition: the sum of the epsilons and of the deltas.

    ``epsilon(delta) = sum_i eps_i`` when ``delta >= sum_i delta_i``, else ``inf``.
    Profile-only mechanisms (Gaussian) take points of their profiles chosen to spend
    the remaining delta (one common e, or an equal delta per mechanism; the smaller
    sum is kept).

    Guarantee:
        upper bound under adaptive composition, any (common) neighbour relation. See
        :func:`simple_composition`.

    References:
        Roth, CIS 800 lecture 4 "Composition Theorems", Thm 1; lecture notes "Advanced
        Composition", Thm 1; blog post "A Tail of Two Densities", Claim 10.
    """
    parts = _parts(groups)
    prov: dict = {"theorem": {"name": "basic composition", "source": "Roth lecture 4 Thm 1; blog Claim 10"}}
    if not parts.profiled and not parts.nonprivate and all(math.isfinite(e) for e, _, _ in parts.fixed):
        # the exact decimal sums, for displays: epsilon(delta) is the first rounded up once,
        # at every delta >= the second
        prov["decimal"] = {key: _decimal_text(sum((c * _as_written(x[i]) for *x, c in parts.fixed), Fraction(0)))
                           for i, key in ((0, "epsilon"), (1, "delta"))}
    return Guarantee("simple", epsilon_upper=lru_cache(maxsize=4096)(lambda d: _simple_eps(parts, d)),
                     infinite_loss_mass=parts.infinite_loss_mass, provenance=prov)


def _decimal_text(q: Fraction) -> str:
    """The exact decimal text of a sum of decimals (its denominator divides a power of 10)."""
    digits = 0
    while (q * 10**digits).denominator != 1:
        digits += 1
    n = q.numerator * 10**digits // q.denominator
    text = str(decimal.Decimal(n).scaleb(-digits))
    return text


@register_method("advanced", check_options=_check_with_simple)
def advanced_method(groups: Groups, *, with_simple: bool = True) -> Guarantee:
    r"""Advanced composition (Dwork-Rothblum-Vadhan; heterogeneous form), delta' optimal.

    At a target delta: :math:`\varepsilon' = \sqrt{2\ln(1/\delta')\sum_i\varepsilon_i^2}
    + \sum_i\varepsilon_i(e^{\varepsilon_i}-1)` with :math:`\delta' = \delta -
    \sum_i\delta_i` (the largest allowed, which is optimal since :math:`\varepsilon'`
    decreases in :math:`\delta'`); for profile-only mechanisms the split of delta
    between their points and :math:`\delta'` is searched. For :math:`k` equal
    mechanisms this is :math:`\sqrt{2k\ln(1/\delta')}\,\varepsilon + k\varepsilon(e^\varepsilon
    - 1)`, total delta :math:`k\delta + \delta'`.

    Args:
        groups: grouped mechanisms.
        with_simple: report the minimum with basic composition (default True).

    Guarantee:
        upper bound under adaptive composition (see :func:`heterogeneous_advanced_epsilon`
        and :func:`advanced_composition_epsilon`).

    References:
        Dwork, Rothblum and Vadhan, "Boosting and Differential Privacy" (2010), Thm III.3;
        Roth, CIS 800 lecture 4, Thm 6; lecture notes "Advanced Composition", Thm 2 (its
        printed statement drops the epsilon factors; corrected per its proof);
        Kairouz, Oh and Viswanath 2015, Thm 3.5 (heterogeneous, implies the form used).
    """
    with_simple = _check_with_simple(with_simple)
    parts = _parts(groups)
    return _guarantee("advanced", parts, _advanced_eps, with_simple, {
        "name": "advanced composition (heterogeneous form)",
        "source": "Dwork-Rothblum-Vadhan 2010 Thm III.3; Kairouz-Oh-Viswanath 2015 Thm 3.5",
        "free_parameter": "delta' = delta - sum_i delta_i",
    })


@register_method("stability", check_options=_check_with_simple)
def stability_method(groups: Groups, *, with_simple: bool = True) -> Guarantee:
    r"""Composition for DP-stability (lecture 5, Thms 1 and 2), for 0 < eps <= 1.

    Every mechanism is :math:`(\varepsilon, \delta)`-DP(-stable) with
    :math:`\varepsilon = \max_i\varepsilon_i`, :math:`\delta = \max_i\delta_i`, and
    :math:`k` is the total count. At a target :math:`\delta_t`:

    - all :math:`\delta_i = 0`: Thm 2, :math:`2k\varepsilon^2 +
      \sqrt{2k\ln(1/\delta_t)}\,\varepsilon` (needs :math:`\delta_t > 0`);
    - otherwise Thm 1 applied with per-mechanism :math:`\hat\delta = \delta_t / (2k)`
      (a mechanism that is :math:`(\varepsilon, \delta)`-stable is also
      :math:`(\varepsilon, \hat\delta)`-stable for :math:`\hat\delta \ge \delta`; Thm 1's
      epsilon decreases in :math:`\hat\delta` and its total is :math:`2k\hat\delta =
      \delta_t`): :math:`2k\varepsilon^2 + \sqrt{2k\ln(2/\delta_t)}\,\varepsilon`, valid
      when :math:`\delta \le \delta_t / (2k)`, else ``inf``. Profile-only mechanisms
      take the smallest :math:`e` whose profile is at most :math:`\hat\delta`; if that
      :math:`e` exceeds 1 the answer at that target is ``inf``.

    Args:
        groups: grouped mechanisms.
        with_simple: report the minimum with basic composition (default True).

    Raises:
        MethodNotApplicableError: a mechanism has :math:`\varepsilon_i > 1`, or every
            mechanism has :math:`\varepsilon_i = 0` (the hypothesis is
            :math:`0 < \varepsilon \le 1`), or :math:`2k\delta \ge 1` (nothing certified).

    Guarantee:
        upper bound under adaptive composition (DP-stability of
        :math:`M(S, p)` for every parameter :math:`p` is DP of each adaptively chosen
        mechanism). See :func:`stability_composition` and
        :func:`stability_composition_pure`.

    References:
        Stemmer, lecture 5 "Azuma-Hoeffding and Composition for DP-Stability" (after
        Roth and Smith), Thms 1 and 2 of "Composition for DP-stability".
    """
    with_simple = _check_with_simple(with_simple)
    parts = _parts(groups)
    k = parts.k_total
    too_big = [e for e, _, _ in parts.fixed if e > 1.0]
    if too_big:
        raise MethodNotApplicableError(
            f"stability (lecture 5, Thms 1-2) needs every mechanism's epsilon in (0, 1]; got "
            f"epsilon = {max(too_big)!r}. Use 'advanced' or 'simple' instead."
        )
    if not parts.profiled and parts.fixed_eps_max == 0.0:
        raise MethodNotApplicableError(
            "stability (lecture 5, Thms 1-2) needs 0 < epsilon <= 1; every mechanism here has "
            "epsilon = 0. Use 'simple' (which gives epsilon 0)."
        )
    if 2 * k * Fraction(parts.fixed_delta_max) >= 1:
        raise MethodNotApplicableError(
            f"stability (lecture 5, Thm 1) certifies only total delta 2 k delta; here 2 k delta = "
            f"{2 * k * parts.fixed_delta_max:g} >= 1 (k = {k}), so it certifies nothing."
        )
    if parts.profiled and 2 * k * _maxed(parts.profiled)(1.0) >= 1.0:
        raise MethodNotApplicableError(
            "stability (lecture 5, Thms 1-2) needs epsilon <= 1 per mechanism, and at epsilon = 1 "
            f"the profile-only mechanisms have delta >= 1/(2k) (k = {k}): nothing is certified. "
            "Use 'advanced' or 'simple' instead."
        )
    return _guarantee("stability", parts, _stability_eps, with_simple, {
        "name": "composition for DP-stability",
        "source": "Stemmer, lecture 5 (after Roth and Smith), Thms 1 and 2",
        "free_parameter": "per-mechanism delta_hat = delta / (2k) (Thm 1)",
    })


@register_method("tail_independent", check_options=_check_with_simple)
def tail_independent_method(groups: Groups, *, with_simple: bool = True) -> Guarantee:
    r"""The blog's a(eps) bound for independent composition (Claims 14, 17), beta optimal.

    With :math:`\varepsilon = \max_i\varepsilon_i`, :math:`\delta = \max_i\delta_i` and
    :math:`k` the total count: :math:`k a(\varepsilon) + \sqrt{2k\log\beta^{-1}}\,\varepsilon`
    at total delta :math:`k\delta + \beta`; at a target :math:`\delta_t` the best
    :math:`\beta = \delta_t - k\delta` (the bound decreases in :math:`\beta`), which must
    lie in (0, 1), else ``inf``. Profile-only mechanisms: the split of :math:`\delta_t`
    between their points and :math:`\beta` is searched.

    Args:
        groups: grouped mechanisms.
        with_simple: report the minimum with basic composition (default True).

    Guarantee:
        upper bound; stated for independent composition, and valid under adaptive
        composition too (see :func:`tail_independent_epsilon`).

    References:
        blog post "A Tail of Two Densities" (2019), Claims 12, 14 and 17.
    """
    with_simple = _check_with_simple(with_simple)
    parts = _parts(groups)
    return _guarantee("tail_independent", parts,
                      lambda p, d: _tail_eps(p, d, adaptive=False), with_simple, {
                          "name": "advanced independent composition, a(eps) form",
                          "source": "A Tail of Two Densities, Claims 14 and 17",
                          "free_parameter": "beta = delta - k delta_max",
                      })


@register_method("tail_adaptive", check_options=_check_with_simple)
def tail_adaptive_method(groups: Groups, *, with_simple: bool = True) -> Guarantee:
    r"""The blog's a(eps) bound for adaptive composition (Claims 16, 18), beta optimal.

    With :math:`\varepsilon = \max_i\varepsilon_i`, :math:`\delta = \max_i\delta_i` and
    :math:`k` the total count: :math:`k a(\varepsilon) + \sqrt{2k\log\beta^{-1}}
    (\varepsilon + a(\varepsilon))` at total delta :math:`k\delta + \beta`, with
    :math:`\beta = \delta_t - k\delta \in (0, 1)` at a target :math:`\delta_t` (else
    ``inf``). Profile-only mechanisms: the split is searched.

    Args:
        groups: grouped mechanisms.
        with_simple: report the minimum with basic composition (default True).

    Guarantee:
        upper bound under adaptive composition (see :func:`tail_adaptive_epsilon`).

    References:
        blog post "A Tail of Two Densities" (2019), Claims 12, 15, 16 and 18.
    """
    with_simple = _check_with_simple(with_simple)
    parts = _parts(groups)
    return _guarantee("tail_adaptive", parts,
                      lambda p, d: _tail_eps(p, d, adaptive=True), with_simple, {
                          "name": "advanced adaptive composition, a(eps) form",
                          "source": "A Tail of Two Densities, Claims 16 and 18",
                          "free_parameter": "beta = delta - k delta_max",
                      })
