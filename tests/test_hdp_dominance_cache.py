"""The cached dominance bookkeeping (UnitOrder.key memo, unit_params cache) equals a plain recomputation.

Independent truth: a straightforward reference that recomputes every key from
:func:`~dpcompose.hypotheses.dominance.unit_params` and the module docstring's ranking rule,
with no caches, on random releases.
"""

from hypothesis import given
from hypothesis import strategies as st

import dpcompose as dpc
from dpcompose.hypotheses.dominance import (
    DatabaseClasses,
    UnitOrder,
    _leq,
    class_candidates,
    unit_params,
)

_MECHS = st.one_of(
    st.sampled_from([0.5, 1.0, 2.0, 4.0]).map(lambda b: dpc.Laplace(scale=b)),
    st.sampled_from([1.0, 3.0]).map(lambda s: dpc.Gaussian(sigma=s)),
    st.tuples(st.sampled_from([0.1, 1.0]), st.sampled_from([1e-6, 1e-3])).map(lambda p: dpc.ApproxDP(*p)),
    st.sampled_from([0.2, 0.7]).map(dpc.PureDP),
)
_RELEASE = st.lists(st.tuples(_MECHS, st.integers(1, 3)), min_size=0, max_size=3).map(tuple)


def _reference_key(m, releases):
    """(family, rank) by the rule in UnitOrder's docstring, recomputed from scratch."""
    params = unit_params(m)
    if params is None:
        return None
    fam = params[0]
    vals = sorted({p[1] for r in releases for x, _ in r if (p := unit_params(x)) is not None and p[0] == fam})
    if params[1] not in vals:
        return None
    if all(len(v) == 1 for v in vals):
        return (fam, params[1][0])
    if all(_leq(a, b) for a, b in zip(vals, vals[1:])):
        return (fam, float(vals.index(params[1])))
    return None


@given(st.lists(_RELEASE, min_size=1, max_size=8), _MECHS)
def test_unit_order_key_matches_reference(releases, outsider):
    order = UnitOrder(releases)
    mechs = [m for r in releases for m, _ in r] + [outsider]
    for _ in range(2):  # the second pass reads the memo
        for m in mechs:
            assert order.key(m) == _reference_key(m, releases)


@given(st.lists(_RELEASE, min_size=1, max_size=8), st.integers(1, 4))
def test_database_classes_profiles_and_candidates_match_fresh_ones(releases, cap):
    classes = DatabaseClasses(range(len(releases)), releases)
    for it, prof in zip(classes.items, classes.profiles):
        ref = {}
        other = {}
        for m, c in it:
            key = _reference_key(m, classes.items)
            if key is None:
                other[m] = other.get(m, 0) + c
            else:
                ref.setdefault(key[0], []).append((key[1], c))
        assert prof.ordered == ref and prof.other == other
    again = DatabaseClasses(range(len(releases)), releases)  # second build: unit_params from the cache
    assert (again.items, again.members, again.chain, again.order, again.beats) == (
        classes.items, classes.members, classes.chain, classes.order, classes.beats)
    assert class_candidates(again, cap, 1000) == class_candidates(classes, cap, 1000)


def _reference_dominates(a, b):
    """The threshold test of the module docstring, written out: every ordered family and rank t
    has at least as many units at or above t in a as in b; other mechanisms, at least as many."""
    both = (a, b)

    def count(r, fam, t):
        return sum(c for m, c in r if (k := _reference_key(m, both)) is not None and k[0] == fam and k[1] >= t)

    for m, c in b:
        key = _reference_key(m, both)
        if key is None:
            if sum(x for y, x in a if y == m and _reference_key(y, both) is None) < c:
                return False
        elif count(a, key[0], key[1]) < count(b, key[0], key[1]):
            return False
    return True


_SINGLE = st.tuples(_MECHS, st.integers(1, 3)).map(lambda mc: (mc,))


@given(st.one_of(_SINGLE, _RELEASE), st.one_of(_SINGLE, _RELEASE))
def test_dominates_matches_the_threshold_test(a, b):
    # one-unit releases take _dominates' shortcut (one hospital's Laplace), others the loop
    from dpcompose.hypotheses.dominance import canonical, dominates

    a, b = canonical(a), canonical(b)
    assert dominates(a, b) == _reference_dominates(a, b)
