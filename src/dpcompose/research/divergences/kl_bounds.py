r"""Bounds on the KL divergence of an epsilon-indistinguishable pair: epsilon (e^epsilon - 1),
2 epsilon^2 and the blog's a(epsilon).

Moved out of the module :mod:`dpcompose.research.divergences` unchanged (issue 15); the package
re-exports every public name, and its docstring states the conventions.
"""

from __future__ import annotations

import math

from ..._validation import check_epsilon


# ---------------------------------------------------------------------------
# KL bounds for epsilon-indistinguishable pairs


def kl_bound_dp(epsilon: float) -> float:
    r""":math:`\varepsilon(e^\varepsilon - 1)`: the KL bound of the advanced composition proof.

    Lemma 6 ("Advanced Composition" notes). For :math:`X, Y` random variables, let
    :math:`D_\infty(X\|Y) \le \varepsilon` and :math:`D_\infty(Y\|X) \le \varepsilon`.
    It follows that :math:`D_{KL}(X\|Y) \le \varepsilon(e^\varepsilon - 1) \approx
    \varepsilon^2`. (Same as Lemma 7 of Roth's lecture 4.) The blog's Claim 11 proves
    more: :math:`D(p\|q) + D(q\|p) \le \varepsilon(e^\varepsilon - 1)`.

    Args:
        epsilon: in [0, inf]; the lemma holds for every :math:`\varepsilon \ge 0`.

    Guarantee:
        Upper bound on :math:`D(p\|q)` and on :math:`D(p\|q) + D(q\|p)` for every
        :math:`\varepsilon`-indistinguishable pair. Evaluated as
        :math:`\varepsilon \cdot \mathrm{expm1}(\varepsilon)`.

    References:
        "Advanced Composition" lecture notes, Lemma 6; A. Roth, CIS 800 lecture 4,
        Lemma 7; the blog "A Tail of Two Densities", Claim 11.
    """
    eps = check_epsilon("epsilon", epsilon, allow_inf=True)
    if eps == 0.0:
        return 0.0
    return eps * math.expm1(eps) if eps < 709.0 else math.inf


def kl_bound_stability(epsilon: float, *, sharp: bool = False) -> float:
    r""":math:`2\varepsilon^2`: the KL bound of Stemmer's lecture 5 (Auxiliary Claim 4).

    Auxiliary Claim 4 (lecture 5). For any fixed :math:`p_i` it holds that
    :math:`\mathbb E_{y_i \leftarrow M_i(S, p_i)}[\ln(\Pr[M_i(S,p_i) = y_i] /
    \Pr[M_i(S',p_i) = y_i])] \le 2\varepsilon^2`, where :math:`M_i` is
    :math:`(\varepsilon, 0)`-DP-stable; i.e. :math:`D(p\|q) \le 2\varepsilon^2` for an
    :math:`\varepsilon`-indistinguishable pair.

    Range: the lecture states it inside the proof of its Theorem 2, whose hypothesis is
    :math:`0 < \varepsilon, \delta \le 1`; the proof of the claim itself
    (:math:`D(p\|q) \le D(p\|q) + D(q\|p) \le \varepsilon \sum|p - q| = 2\varepsilon\,
    \mathrm{SD}(p, q) \le 2\varepsilon(1 - e^{-\varepsilon}) \le 2\varepsilon^2`) uses no
    bound on :math:`\varepsilon`, so it holds for every :math:`\varepsilon \ge 0` and is
    accepted there. It beats :math:`\varepsilon(e^\varepsilon - 1)` only for
    :math:`\varepsilon` above about 1.26, where the trivial :math:`D \le \varepsilon` is
    better still.

    Args:
        epsilon: in [0, inf].
        sharp: return the proof's intermediate :math:`2\varepsilon(1 - e^{-\varepsilon})`
            instead of :math:`2\varepsilon^2` (also proven there).

    Guarantee:
        Upper bound on :math:`D(p\|q) + D(q\|p)` (hence on :math:`D(p\|q)`) for every
        :math:`\varepsilon`-indistinguishable pair.

    References:
        U. Stemmer (after A. Roth and A. Smith), lecture 5 "Azuma-Hoeffding and
        Composition for DP-Stability", Auxiliary Claim 4 and its formal proof.
    """
    eps = check_epsilon("epsilon", epsilon, allow_inf=True)
    if sharp:
        return 2.0 * eps * -math.expm1(-eps) if math.isfinite(eps) else math.inf
    return 2.0 * eps * eps


def a_of_epsilon(epsilon: float, *, relaxed: bool = False) -> float:
    r"""The blog's :math:`a(\varepsilon)` (Claim 12), a bound on KL in both directions.

    Claim 12. If :math:`p` and :math:`q` are :math:`\varepsilon`-ind, then
    :math:`D(p\|q) \le a(\varepsilon) \ge D(q\|p)`, where

    .. math:: a(\varepsilon) = \varepsilon(e^\varepsilon - 1) 1_{\varepsilon \le \log 2}
              + \varepsilon 1_{\varepsilon > \log 2} \le (\log 2)^{-1}\varepsilon^2
              1_{\varepsilon \le \log 2} + \varepsilon 1_{\varepsilon > \log 2}. \qquad (6.98)

    So :math:`a(\varepsilon) = \min(\varepsilon(e^\varepsilon - 1), \varepsilon)`. (The
    blog's proof writes :math:`\max_y \log p(y) / \log q(y)`; it means
    :math:`\max_y \log(p(y)/q(y))`.)

    Args:
        epsilon: in [0, inf].
        relaxed: return the right-hand side of (6.98), :math:`\varepsilon^2/\log 2` for
            :math:`\varepsilon \le \log 2` (still an upper bound, used in the blog's
            remark after Claim 14).

    References:
        The blog "A Tail of Two Densities" (2019), Claim 12, equation (6.98).
    """
    eps = check_epsilon("epsilon", epsilon, allow_inf=True)
    if eps > math.log(2.0):
        return eps
    if relaxed:
        return eps * eps / math.log(2.0)
    return eps * math.expm1(eps)
