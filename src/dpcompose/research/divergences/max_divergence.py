r"""The max divergence and its delta-approximate form (Roth, lecture 4, Definition 2).

Moved out of the module :mod:`dpcompose.research.divergences` unchanged (issue 15); the package
re-exports every public name, and its docstring states the conventions.
"""

from __future__ import annotations

import math

import numpy as np

from ..._validation import check_delta
from .validation import _check_pair, _losses


def max_divergence(p, q) -> float:
    r"""Max divergence :math:`D_\infty(p\|q) = \max_{S \subseteq \mathrm{Supp}(p)} \log\frac{p(S)}{q(S)}`.

    On a finite set the maximum over sets is attained at a single point (a ratio of
    sums is at most the largest ratio), so this is :math:`\max_{y: p(y) > 0}
    \log(p(y)/q(y))`, :math:`+\infty` when some :math:`y` has :math:`q(y) = 0 < p(y)`.
    The value is :math:`\ge 0` (some point of the support has :math:`p(y) \ge q(y)`).

    Guarantee:
        :math:`p, q` are :math:`\varepsilon`-indistinguishable iff
        :math:`D_\infty(p\|q) \le \varepsilon` and :math:`D_\infty(q\|p) \le \varepsilon`
        (Roth, Remark after Definition 2; notes Proposition 4).

    References:
        A. Roth, CIS 800 lecture 4, Definition 2; "Advanced Composition" notes,
        equation (2).
    """
    p, q = _check_pair(p, q)
    support = p > 0
    losses = _losses(p[support], q[support])
    return max(0.0, float(np.max(losses)))


def approx_max_divergence(p, q, delta: float) -> float:
    r""":math:`\delta`-approximate max divergence (Roth, lecture 4, Definition 2).

    .. math:: D_\infty^\delta(p\|q) = \max_{S \subseteq \mathrm{Supp}(p):\ p(S) \ge \delta}
              \log\frac{p(S) - \delta}{q(S)}.

    Computed exactly: the maximum of the ratio :math:`(p(S) - \delta)/q(S)` is attained
    at a *top set*, the points of largest :math:`p/q` (for the optimal value
    :math:`\gamma^*`, :math:`p(S) - \gamma^* q(S)` is largest on :math:`\{p > \gamma^*
    q\}`), so the largest value over the :math:`n` top sets is the answer. Sets with
    :math:`p(S) = \delta` give :math:`\log(0/q(S)) = -\infty` (also when :math:`q(S) =
    0`: the condition :math:`p(S) - \delta \le e^\varepsilon q(S)` then holds for every
    :math:`\varepsilon`). The value may be negative or :math:`-\infty` when
    :math:`\delta > 0` (e.g. :math:`\delta = 1` gives :math:`-\infty`); :math:`\delta = 0`
    gives :math:`D_\infty`.

    Equivalently :math:`D^\delta_\infty(p\|q) = \log \inf\{\gamma \ge 0 : H_\gamma(p\|q) \le
    \delta\}` with the hockey-stick divergence :func:`hockey_stick`.

    Guarantee:
        :math:`p, q` are :math:`(\varepsilon, \delta)`-indistinguishable iff
        :math:`D^\delta_\infty(p\|q) \le \varepsilon` and :math:`D^\delta_\infty(q\|p) \le
        \varepsilon` (Roth, Remark after Definition 2).

    Args:
        p, q: distributions on the same finite set.
        delta: in [0, 1].

    References:
        A. Roth, CIS 800 lecture 4 "Composition Theorems", Definition 2.
    """
    p, q = _check_pair(p, q)
    delta = check_delta("delta", delta, allow_one=True)
    support = p > 0
    ps, qs = p[support], q[support]
    losses = _losses(ps, qs)
    order = np.argsort(-losses, kind="stable")
    cum_p = np.cumsum(ps[order])
    cum_q = np.cumsum(qs[order])
    best = -math.inf
    for pk, qk in zip(cum_p.tolist(), cum_q.tolist()):
        num = pk - delta
        if num <= 0.0:
            continue
        if qk <= 0.0:
            return math.inf
        best = max(best, math.log(num) - math.log(qk))
    return best
