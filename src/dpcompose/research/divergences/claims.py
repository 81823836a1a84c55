r"""The blog's Claims 1-5: tail bounds of the privacy loss against indistinguishability,
the Kasiviswanathan-Smith tail bound, and the conditioning events of Murtagh and Vadhan.

Moved out of the module :mod:`dpcompose.research.divergences` unchanged (issue 15); the package
re-exports every public name, and its docstring states the conventions.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ..._validation import check_delta, check_epsilon, check_real
from ...errors import InvalidParameterError
from .loss import privacy_loss_tail
from .validation import _as_real_array, _check_pair


# ---------------------------------------------------------------------------
# the blog's Claims 1-7


def delta_from_loss_tails(p, q, epsilon: float) -> float:
    r"""Blog Claim 1: tail bounds of the divergence variable give indistinguishability.

    Claim 1 ("A Tail of Two Densities"). If

    .. math:: \mathbb P(L(p\|q) \le \varepsilon) \ge 1 - \delta, \qquad
              \mathbb P(L(q\|p) \le \varepsilon) \ge 1 - \delta \qquad (5)

    then :math:`p` and :math:`q` are :math:`(\varepsilon, \delta)`-ind.

    This returns the smallest :math:`\delta` for which condition (5) (called *C1* in the
    blog) holds, :math:`\max(\mathbb P(L(p\|q) > \varepsilon), \mathbb P(L(q\|p) >
    \varepsilon))`.

    Guarantee:
        Upper bound: :math:`p, q` are :math:`(\varepsilon, \delta)`-indistinguishable with
        the returned :math:`\delta`. It is never below the exact :math:`\delta` of
        :func:`pair_privacy_profile` and may be far above it (the converse fails, Claim
        2).

    References:
        The blog "A Tail of Two Densities" (2019), Claim 1.
    """
    p, q = _check_pair(p, q)
    eps = check_epsilon("epsilon", epsilon, allow_inf=True)
    return max(privacy_loss_tail(p, q, eps), privacy_loss_tail(q, p, eps))


def claim2_counterexample() -> tuple[np.ndarray, np.ndarray, float, float]:
    r"""Blog Claim 2: the converse of Claim 1 fails; returns its example ``(p, q, eps, delta)``.

    Claim 2. There exist :math:`\varepsilon, \delta > 0` and :math:`p, q` that are
    :math:`(\varepsilon, \delta)`-ind such that :math:`\mathbb P(L(p\|q) \le \varepsilon)
    < 1 - \delta` and :math:`\mathbb P(L(q\|p) \le \varepsilon) < 1 - \delta`. The
    example: :math:`Y = \{0, 1\}`, :math:`p(0) = q(1) = 2/5`, :math:`p(1) = q(0) = 3/5`,
    :math:`\varepsilon = \log(4/3)`, :math:`\delta = 1/3`; then both probabilities are
    :math:`2/5 < 2/3`.

    References:
        The blog "A Tail of Two Densities" (2019), Claim 2.
    """
    p = np.array([2.0 / 5.0, 3.0 / 5.0])
    q = np.array([3.0 / 5.0, 2.0 / 5.0])
    return p, q, math.log(4.0 / 3.0), 1.0 / 3.0


def kasiviswanathan_smith_tail_bound(epsilon: float, delta: float, alpha: float) -> float:
    r"""Blog Claim 3 (Kasiviswanathan and Smith): a tail bound from indistinguishability.

    Claim 3. Let :math:`\alpha > 1`. If :math:`p` and :math:`q` are
    :math:`(\varepsilon, \delta)`-ind, then

    .. math:: \mathbb P(L(p\|q) > \alpha\varepsilon) < \frac{1}{1 - \exp((1 - \alpha)
              \varepsilon)}\, \delta.

    Correction: the strict ``<`` fails for :math:`\delta = 0` (both sides can be 0); the
    proof gives ``<=`` in general (strict when :math:`\delta > 0`). We return the
    right-hand side, evaluated as :math:`\delta / (-\mathrm{expm1}((1-\alpha)
    \varepsilon))`, capped at 1; for :math:`\varepsilon = 0` the bound is the trivial 1.
    The same holds for :math:`L(q\|p)` by symmetry.

    Args:
        epsilon: in [0, inf).
        delta: in [0, 1].
        alpha: in (1, inf]; at :math:`\alpha = \infty` the bound is :math:`\delta`.

    Guarantee:
        Upper bound on :math:`\mathbb P(L(p\|q) > \alpha\varepsilon)` for every
        :math:`(\varepsilon, \delta)`-indistinguishable pair; with Claim 1 it gives
        :math:`(\alpha\varepsilon, \delta')`-indistinguishability from this bound
        :math:`\delta'`.

    References:
        The blog "A Tail of Two Densities" (2019), Claim 3, after Kasiviswanathan and
        Smith, "On the 'semantics' of differential privacy" (2014/2015).
    """
    eps = check_epsilon("epsilon", epsilon)
    delta = check_delta("delta", delta, allow_one=True)
    alpha = check_real("alpha", alpha, low=1.0, low_open=True, allow_inf=True,
                       remedy="Claim 3 needs alpha > 1.")
    if delta == 0.0:
        return 0.0
    if eps == 0.0:
        return 1.0
    if math.isinf(alpha):
        return delta
    denom = -math.expm1((1.0 - alpha) * eps)
    if denom <= 0.0:
        return 1.0
    return min(1.0, delta / denom)


class ConditioningEvents(NamedTuple):
    r"""The "densities" :math:`e, f` of the events :math:`E, F` of the blog's Claim 4.

    Attributes:
        e: :math:`e(y) = \mathbb P(E, \xi = y)`, with :math:`0 \le e \le p`.
        f: :math:`f(y) = \mathbb P(F, \eta = y)`, with :math:`0 \le f \le q`.
        mass: :math:`\mathbb P(E) = e(Y) = f(Y) = \mathbb P(F)`.
        delta: :math:`1 - \text{mass}`.
    """

    e: np.ndarray
    f: np.ndarray
    mass: float
    delta: float


def _capped_scaled(p: np.ndarray, q: np.ndarray, eps: float) -> np.ndarray:
    """min(p, e^eps q) pointwise, without overflow (inf * 0 never happens)."""
    with np.errstate(over="ignore"):
        scaled = np.where(q > 0, q * math.exp(min(eps, 709.0)) if eps <= 709.0 else np.inf, 0.0)
    return np.minimum(p, scaled)


def _interpolate(low: np.ndarray, high: np.ndarray, target: float) -> np.ndarray:
    """low + theta (high - low) with total mass ``target`` (low.sum() <= target <= high.sum())."""
    low_mass = math.fsum(low.tolist())
    high_mass = math.fsum(high.tolist())
    if high_mass <= low_mass:
        return high.copy()
    theta = min(1.0, max(0.0, (target - low_mass) / (high_mass - low_mass)))
    return low + theta * (high - low)


def _claim4(p: np.ndarray, q: np.ndarray, eps: float) -> ConditioningEvents:
    # The blog's e = e^eps q 1_S + p 1_{S^c} is min(p, e^eps q) (on S, e^eps q < p; off S,
    # p <= e^eps q); likewise f_+ = min(q, e^eps p), and f_- = p 1_T + (q ^ p) 1_{T^c}
    # is min(p, q) (on T, p < e^-eps q <= q).
    e_plus = _capped_scaled(p, q, eps)
    f_plus = _capped_scaled(q, p, eps)
    both_min = np.minimum(p, q)
    e_mass = math.fsum(e_plus.tolist())
    f_mass = math.fsum(f_plus.tolist())
    if e_mass <= f_mass:
        e, target = e_plus, e_mass
        f = _interpolate(both_min, f_plus, target)
    else:  # the mirror image: shrink e between e_- = min(p, q) and e_+
        f, target = f_plus, f_mass
        e = _interpolate(both_min, e_plus, target)
    mass = min(1.0, target)
    return ConditioningEvents(e=e, f=f, mass=mass, delta=max(0.0, 1.0 - mass))


def conditioning_events(p, q, epsilon: float) -> ConditioningEvents:
    r"""Blog Claim 4 (Murtagh and Vadhan): the events that make :math:`p, q` :math:`\varepsilon`-ind.

    Claim 4. Two probability measures :math:`p` and :math:`q` are
    :math:`(\varepsilon, \delta)`-ind if and only if *C3* holds: there exist two events
    :math:`E, F \subset \Omega` with :math:`\mathbb P(E), \mathbb P(F) \ge 1 - \delta`
    such that :math:`|\log p_{|E}(y) - \log q_{|F}(y)| \le \varepsilon` for all
    :math:`y \in Y`.

    This is the "only if" construction of the proof: with :math:`S = \{p > e^\varepsilon
    q\}`, :math:`T = \{q > e^\varepsilon p\}`, :math:`e = e^\varepsilon q 1_S + p
    1_{S^c}`, :math:`f_+ = e^\varepsilon p 1_T + q 1_{T^c}`, :math:`f_- = p 1_T + (q
    \wedge p) 1_{T^c}`, and :math:`f` interpolating between :math:`f_-` and :math:`f_+`
    so that :math:`f(Y) = e(Y)` (the mirror construction when :math:`e(Y) > f_+(Y)`).
    The returned ``e, f`` satisfy the proof's conditions 1-4: :math:`0 \le e \le p`,
    :math:`0 \le f \le q`, :math:`|\log e - \log f| \le \varepsilon` (where either is
    positive; both vanish together), :math:`e(Y) = f(Y)`. The common mass is
    :math:`1 - \max(H_{e^\varepsilon}(p\|q), H_{e^\varepsilon}(q\|p))`, so ``delta`` is
    the exact (smallest) :math:`\delta` of the pair. The conditioned laws are
    :math:`p_{|E} = e/e(Y)` and :math:`q_{|F} = f/f(Y)`.

    Args:
        p, q: distributions on the same finite set.
        epsilon: in [0, inf].

    References:
        The blog "A Tail of Two Densities" (2019), Claim 4, proof after Murtagh and
        Vadhan, "The complexity of computing the optimal composition of differential
        privacy" (2016/2018).
    """
    p, q = _check_pair(p, q)
    eps = check_epsilon("epsilon", epsilon, allow_inf=True)
    return _claim4(p, q, eps)


def conditional_conditioning_events(p_cond, q_cond, epsilon: float) -> list[ConditioningEvents]:
    r"""Blog Claim 5: Claim 4 for conditional laws, one prefix at a time.

    Claim 5. Let :math:`p_i(\cdot | y_{<i})`, :math:`q_i(\cdot | y_{<i})` be the
    conditional laws of :math:`\xi_i | \xi_{<i}` and :math:`\eta_i | \eta_{<i}`. Then the
    following are equivalent:

    1. for any :math:`y_{<i}`, :math:`p_i(\cdot|y_{<i})` and :math:`q_i(\cdot|y_{<i})` are
       :math:`(\varepsilon, \delta)`-ind;
    2. there exist events :math:`E_i, F_i` with :math:`\mathbb P(E_i | \xi_{<i} =
       y_{<i}) = \mathbb P(F_i | \eta_{<i} = y_{<i}) \ge 1 - \delta` for any
       :math:`y_{<i}`, such that the conditioned laws :math:`p_{i|E_i}(\cdot|y_{<i})` and
       :math:`q_{i|F_i}(\cdot|y_{<i})` are :math:`\varepsilon`-ind for any :math:`y_{<i}`.

    (The blog writes :math:`q_{i|E_i}` in item 2; the definitions that follow it use
    :math:`F_i`, as here.)

    Args:
        p_cond, q_cond: 2-D arrays, one row per prefix :math:`y_{<i}`, each row a
            distribution of the next output.
        epsilon: in [0, inf].

    Returns:
        One :class:`ConditioningEvents` per row; item 2 holds with
        :math:`\delta = \max` of their ``delta``, which is also the smallest
        :math:`\delta` for which item 1 holds.

    References:
        The blog "A Tail of Two Densities" (2019), Claim 5.
    """
    pc = _as_real_array("p_cond", p_cond)
    qc = _as_real_array("q_cond", q_cond)
    if pc.ndim != 2 or pc.shape != qc.shape:
        raise InvalidParameterError(
            f"p_cond and q_cond must be 2-D arrays of the same shape (one row per prefix), "
            f"got shapes {np.shape(pc)} and {np.shape(qc)}."
        )
    eps = check_epsilon("epsilon", epsilon, allow_inf=True)
    out = []
    for i in range(pc.shape[0]):
        p, q = _check_pair(pc[i], qc[i], (f"p_cond[{i}]", f"q_cond[{i}]"))
        out.append(_claim4(p, q, eps))
    return out
