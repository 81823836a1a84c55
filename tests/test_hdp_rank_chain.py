"""The NumPy ranking of many single-unit classes (issue 14, hdp06) equals the Python one and the truth.

``DatabaseClasses`` ranks 64 or more one-Laplace classes with a stable argsort
(:func:`~dpcompose.hypotheses.dominance._rank_chain`). Truth: the order by exact rational
epsilon (``Fraction(sensitivity) / Fraction(scale)``, rounded up as ``Laplace.epsilon``
rounds it) descending, ties by first appearance; and the Python path (threshold raised).
"""

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dpcompose as dpc
from dpcompose.hypotheses import AtMost, dominance, hdp
from dpcompose.hypotheses.release import Release

_SCALES = st.sampled_from([1.0, 2.0, 3.0, 4.0, 6.0, 7.5, 8.0, 10.0])
_SENS = st.sampled_from([1.0, 2.0, 0.5])


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(_SCALES, _SENS, st.integers(1, 4)), min_size=64, max_size=160),
       st.booleans())
def test_numpy_ranking_equals_the_python_ranking_and_the_exact_order(spec, backwards):
    mechs = [dpc.Laplace(scale=b, sensitivity=s) for b, s, _ in spec]
    dbs = list(range(len(mechs)))
    if backwards:
        dbs = dbs[::-1]
    items = Release(mechs).items
    fast = dominance.DatabaseClasses(dbs, items)
    old = dominance._ARRAY_RANK
    dominance._ARRAY_RANK = 10 ** 9
    try:
        slow = dominance.DatabaseClasses(dbs, items)
    finally:
        dominance._ARRAY_RANK = old
    assert fast.items == slow.items and fast.members == slow.members
    assert fast.chain == slow.chain and fast.order == slow.order
    # the truth: classes by exact epsilon, descending (equal epsilon: listed order)
    assert all(sorted(m) == m for m in fast.members)
    exact = [Fraction(it[0][0].sensitivity) / Fraction(it[0][0].scale) for it in fast.items]
    if len(fast) >= dominance._ARRAY_RANK and fast.chain:
        assert all(exact[a] >= exact[b] for a, b in zip(fast.order, fast.order[1:]))


@pytest.mark.parametrize("cap", [3, 40])
def test_hdp_picks_the_largest_epsilons(cap):
    """The worst cap hospitals of 200 (brute truth: the cap largest exact epsilons, pure DP sum)."""
    scales = [5.0 + (17 * i % 200) * 0.9 for i in range(200)]
    mechs = [dpc.Laplace(s) for s in scales]
    g = hdp(mechs, membership=AtMost(cap), method="simple")
    worst = sorted((1.0 / s for s in scales), reverse=True)[:cap]
    assert g.epsilon(0.0) == pytest.approx(sum(worst), rel=1e-12)
    assert g.epsilon(0.0) >= sum(worst) * (1 - 1e-15)
