"""Worst case over a membership constraint: identical and dominated databases, perfect privacy.

Issue 9, item 8 (twelve identical regions: every hypothesis-DP row equalled the classic one
because C(12, 2) = 66 candidate pairs exceeded the enumeration limit) and item 6c (a
constraint that leaves no differing pair raised instead of answering "perfect privacy").
Truth comes from brute force over every output of randomized response
(tests/oracles/hdp_brute.py) and from dpc.compose of the worst subset written out by hand.
"""

import itertools
import math

import pytest
from hypothesis import given, settings, strategies as st

import dpcompose as dpc
from dpcompose.hypotheses import Allowed, AtMost, Hypothesis, OnePerGroup, PerGroup, hdp
from dpcompose.hypotheses.dominance import DatabaseClasses, class_candidates, dominates, dominating_release
from dpcompose.hypotheses.release import Release
from oracles.hdp_brute import all_vectors, brute_worst

RR = dpc.RandomizedResponse
REGION = [(dpc.Laplace(400.0), 40), (dpc.Gaussian(60000.0, sensitivity=1000.0), 10)]


def regions(n):
    """n identical regions: the mechanism list and its database index per item."""
    return REGION * n, [d for d in range(n) for _ in REGION]


# ---------------------------------------------------------------------------
# item 8: identical regions


@pytest.mark.parametrize("n", [3, 11, 12, 40])
def test_identical_regions_equal_composing_the_worst_two(n):
    mechs, dbs = regions(n)
    g = hdp(mechs, databases=dbs, membership=AtMost(2), method="pld")
    two = dpc.compose(REGION * 2, method="pld")          # independent: the worst pair written out
    lo, hi = two.epsilon_bounds(1e-6)
    assert lo <= g.epsilon(1e-6) <= hi * (1 + 1e-12)
    assert g.epsilon_lower(1e-6) <= hi
    assert g.provenance["worst_case"].startswith("exact (1 candidate composition")
    assert "caveats" not in g.provenance
    classic = dpc.compose(REGION * n, method="pld")
    if n >= 12:
        assert g.epsilon(1e-6) < 0.5 * classic.epsilon_lower(1e-6)   # 0.3035 vs 0.7921 at n = 12
    rdp = hdp(mechs, databases=dbs, membership=AtMost(2), method="rdp")
    assert rdp.epsilon(1e-6) == pytest.approx(dpc.compose(REGION * 2, method="rdp").epsilon(1e-6), rel=1e-12)


def test_identical_regions_bounded_neighbours_compose_four():
    mechs, dbs = regions(12)
    g = hdp(mechs, databases=dbs, membership=AtMost(2), neighbors="bounded", method="rdp")
    assert g.epsilon(1e-6) == pytest.approx(dpc.compose(REGION * 4, method="rdp").epsilon(1e-6), rel=1e-12)


def test_identical_databases_at_any_count_with_a_tiny_limit():
    # 200 databases, at most 3 per person: C(200, 3) = 1.3 million subsets, one class
    mechs = [RR(0.4)] * 200
    g = hdp(mechs, membership=AtMost(3), method="exact", enumeration_limit=1)
    truth = hdp([RR(0.4)] * 3, method="exact")
    for e in (0.0, 0.3, 0.8):
        assert g.delta(e) == pytest.approx(truth.delta(e), rel=1e-12, abs=1e-15)


# ---------------------------------------------------------------------------
# heterogeneous databases against brute force


def _release(spec):
    """spec: per database a tuple of randomized-response epsilons -> mechanisms, databases, eps list."""
    mechs, dbs, eps = [], [], []
    for d, es in enumerate(spec):
        for e in es:
            mechs.append(RR(e))
            dbs.append(d)
            eps.append(e)
    return mechs, dbs, eps


DB_KINDS = [(0.3,), (0.9,), (0.3, 0.3), (0.3, 0.9), (1.4,), (0.9, 0.9)]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(DB_KINDS), min_size=2, max_size=6).filter(lambda s: sum(map(len, s)) <= 9),
       st.integers(1, 3), st.sampled_from(["unbounded", "bounded"]), st.sampled_from([0.0, 0.4, 1.1]))
def test_classes_and_dominance_give_the_exact_worst_case(spec, m, neighbors, e):
    mechs, dbs, eps = _release(spec)
    n = len(spec)
    allowed = [v for v in all_vectors(n) if sum(v) <= m]
    truth = brute_worst(eps, allowed, neighbors, e, dbs)
    g = hdp(mechs, databases=dbs, membership=AtMost(m), neighbors=neighbors, method="exact")
    assert g.delta(e) >= truth - 1e-15
    assert g.delta(e) == pytest.approx(truth, rel=1e-9, abs=1e-12)
    assert g.delta_lower(e) <= truth + 1e-15
    assert g.provenance["worst_case"].startswith("exact")
    # the fallback (enumeration_limit = 1) is a certified bracket, and says so
    f = hdp(mechs, databases=dbs, membership=AtMost(m), neighbors=neighbors, method="exact", enumeration_limit=1)
    assert f.delta(e) >= truth - 1e-15
    assert f.delta_lower(e) <= truth + 1e-15
    if not f.provenance["worst_case"].startswith("exact"):
        assert any("enumeration_limit = 1" in c for c in f.provenance["caveats"])


@pytest.mark.parametrize("neighbors", ["unbounded", "bounded"])
def test_incomparable_databases_per_group_against_brute_force(neighbors):
    spec = [(0.3, 0.9), (1.4,), (0.3, 0.9), (0.9, 0.9), (1.4,), (0.3,)]
    mechs, dbs, eps = _release(spec)
    c = PerGroup([[0, 1, 2], [3, 4, 5]], [2, 1])
    allowed = [v for v in all_vectors(6) if v[0] + v[1] + v[2] <= 2 and v[3] + v[4] + v[5] <= 1]
    g = hdp(mechs, databases=dbs, membership=c, neighbors=neighbors, method="exact")
    f = hdp(mechs, databases=dbs, membership=c, neighbors=neighbors, method="exact", enumeration_limit=1)
    # unbounded: 2 x 2 non-dominated choices > 1; bounded: one choice per group (caps 3 and 2)
    assert ("caveats" in f.provenance) == (neighbors == "unbounded")
    for e in (0.0, 0.5, 1.5):
        truth = brute_worst(eps, allowed, neighbors, e, dbs)
        assert g.delta(e) == pytest.approx(truth, rel=1e-9, abs=1e-12)
        assert f.delta_lower(e) <= truth + 1e-15 <= f.delta(e) + 2e-15


def test_dominated_allowed_patterns_are_skipped_exactly():
    spec = [(0.3,), (0.9,), (0.3,), (1.4,)]
    mechs, dbs, eps = _release(spec)
    pats = [(1, 0, 0, 0), (0, 1, 0, 0), (1, 0, 1, 0), (0, 0, 0, 1), (1, 1, 0, 0)]
    g = hdp(mechs, databases=dbs, membership=Allowed(pats), method="exact")
    assert g.provenance["candidates"] == 2  # {0, 1} dominates {0}, {1}, {0, 2}; {3} is incomparable
    for e in (0.0, 0.5, 1.2):
        truth = brute_worst(eps, pats, "unbounded", e, dbs)
        assert g.delta(e) == pytest.approx(truth, rel=1e-9, abs=1e-12)


def test_heterogeneous_laplace_gaussian_regions_equal_the_worst_subset():
    # two region types neither of which dominates the other: the worst pair is one of
    # AA, AB, BB, computed here with dpc.compose of each, written out by hand
    A = [(dpc.Laplace(100.0), 40), (dpc.Gaussian(60000.0, sensitivity=1000.0), 5)]
    B = [(dpc.Laplace(400.0), 10), (dpc.Gaussian(30000.0, sensitivity=1000.0), 10)]
    mechs = A * 6 + B * 6
    dbs = [d for d in range(6) for _ in A] + [d for d in range(6, 12) for _ in B]
    g = hdp(mechs, databases=dbs, membership=AtMost(2), method="rdp")
    worst = max(dpc.compose(x, method="rdp").epsilon(1e-6) for x in (A + A, A + B, B + B))
    assert g.epsilon(1e-6) == pytest.approx(worst, rel=1e-12)
    assert g.provenance["candidates"] == 3
    f = hdp(mechs, databases=dbs, membership=AtMost(2), method="rdp", enumeration_limit=2)
    assert f.epsilon(1e-6) >= worst
    assert f.epsilon(1e-6) < dpc.compose(mechs, method="rdp").epsilon(1e-6)  # still below classic
    assert "enumeration_limit = 2" in f.provenance["caveats"][0]


def test_approx_dp_chain_in_two_parameters():
    mechs = [dpc.ApproxDP(0.2, 0.0), dpc.ApproxDP(0.5, 0.01), dpc.ApproxDP(0.9, 0.02), dpc.ApproxDP(0.5, 0.01)]
    g = hdp(mechs, membership=AtMost(2), method="exact", enumeration_limit=1)
    assert g.provenance["worst_case"].startswith("exact (1 candidate")
    truth = hdp([mechs[1], mechs[2]], method="exact")
    for e in (0.0, 0.5, 1.0):
        assert g.delta(e) == pytest.approx(truth.delta(e), rel=1e-12, abs=1e-15)


# ---------------------------------------------------------------------------
# the dominance helpers (logic checks beside the brute-force ones above)


def test_dominates_matches_the_definition_on_small_cases():
    L = dpc.Laplace
    assert dominates(((L(1.0), 2),), ((L(2.0), 2),))
    assert not dominates(((L(2.0), 2),), ((L(1.0), 2),))
    assert dominates(((L(1.0), 1), (L(2.0), 1)), ((L(2.0), 2),))
    assert not dominates(((L(1.0), 1),), ((L(2.0), 2),))          # fewer invocations
    assert not dominates(((L(1.0), 5),), ((dpc.Gaussian(1.0), 1),))  # no cross-family order
    assert dominates(((dpc.ApproxDP(1.0, 0.1), 1),), ((dpc.ApproxDP(0.5, 0.01), 1),))
    assert not dominates(((dpc.ApproxDP(1.0, 0.0), 1),), ((dpc.ApproxDP(0.5, 0.01), 1),))


@settings(max_examples=30, deadline=None)
@given(st.lists(st.sampled_from(DB_KINDS), min_size=1, max_size=7), st.integers(0, 4))
def test_candidates_and_dominating_release_cover_every_subset(spec, cap):
    mechs, dbs, _ = _release(spec)
    rel = Release(mechs, dbs)
    classes = DatabaseClasses(range(rel.n), rel.items)
    cands = class_candidates(classes, cap, 10_000)
    releases = [classes.release(k) for k in cands]
    top = dominating_release(classes, cap)
    for size in range(0, min(cap, rel.n) + 1):
        for subset in itertools.combinations(range(rel.n), size):
            r = rel.groups_for(subset)
            assert any(dominates(c, r) for c in releases)
            assert dominates(top, r)


# ---------------------------------------------------------------------------
# item 6c: no differing pair = perfect privacy, exactly


@pytest.mark.parametrize("call", [
    lambda: hdp([RR(1.0), RR(2.0)], membership=Allowed([(1, 0)]), neighbors="bounded"),
    lambda: hdp([RR(1.0), RR(2.0)], membership=Allowed([(0, 0)]), neighbors="unbounded"),
    lambda: hdp([RR(1.0), RR(2.0)], membership=Allowed([(0, 0)]), neighbors="bounded"),
    lambda: hdp([RR(1.0), RR(2.0)], membership=AtMost(0), neighbors="bounded"),
    lambda: hdp([RR(1.0)], membership=OnePerGroup([[0]]) & AtMost(0), neighbors="bounded"),
    lambda: hdp([dpc.Gaussian(1.0)], databases=[1], membership=Allowed([(1, 0), (0, 0)]), neighbors="bounded"),
    lambda: hdp([RR(1.0), RR(2.0)], hypotheses=(Hypothesis.point((1, 0)), Hypothesis.point((1, 0)))),
    lambda: hdp([RR(1.0), RR(2.0)], hypotheses=(Hypothesis.uniform([(1, 0), (0, 1)]),
                                                Hypothesis.uniform([(0, 1), (1, 0)]))),
])
def test_no_differing_pair_is_perfect_privacy(call):
    g = call()
    for e in (0.0, 0.5, math.inf):
        assert g.delta(e) == 0.0
        assert g.delta_lower(e) == 0.0
    for d in (0.0, 1e-300, 0.5):
        assert g.epsilon(d) == 0.0
    assert g.exact
