"""TreeAggregation (single-epoch DP-FTRL), against independent truth.

Truth: the node count by brute-force enumeration of the released dyadic nodes; the
Gaussian mechanism's exact profile (Balle and Wang, Thm 8) in mpmath at
mu = sqrt(nodes) / sigma; dp_accounting's single-epoch tree-aggregation RDP accountant
(an independent implementation of the same theorem: exact, so ours may only sit above it
by rounding).
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from oracles import gaussian_delta_mp

import dpcompose as dpc
from dpcompose.errors import InvalidParameterError
from dpcompose.expressions import parse_mechanisms
from dpcompose.representations import privacy_profile, renyi_curve


@pytest.fixture(autouse=True, scope="module")
def _mp_precision():
    """40 digits for this module's mpmath oracle, given back afterwards."""
    with mp.workdps(40):
        yield


def released_nodes_brute(n: int) -> int:
    """Most complete dyadic nodes [k 2^j + 1, (k+1) 2^j] within [1, n] that contain one leaf."""
    best = 0
    for leaf in range(1, n + 1):
        count, size = 0, 1
        while size <= n:
            start = ((leaf - 1) // size) * size + 1
            if start + size - 1 <= n:
                count += 1
            size *= 2
        best = max(best, count)
    return best


@pytest.mark.parametrize("steps", [*range(1, 70), 127, 128, 129, 255, 256, 1000, 1023, 1024])
def test_node_count_is_the_brute_force_count(steps):
    m = dpc.TreeAggregation(1.0, steps)
    assert m.nodes == released_nodes_brute(steps)
    assert m.nodes == math.ceil(math.log2(steps + 1))


@given(sigma=st.floats(0.3, 30.0), steps=st.integers(1, 10**6),
       e=st.sampled_from([0.0, 0.1, 0.5, 1.0, 2.0, 5.0]))
def test_profile_is_the_gaussian_with_mu_sqrt_nodes_over_sigma(sigma, steps, e):
    m = dpc.TreeAggregation(sigma, steps)
    mu = mp.sqrt(steps.bit_length()) / mp.mpf(sigma)
    exact = gaussian_delta_mp(mu, e)
    ours = privacy_profile(m)(e)
    if exact < mp.mpf("1e-290"):
        return
    assert exact <= ours <= exact * (1 + 1e-6)


@pytest.mark.parametrize("sigma, steps", [(4.0, 1000), (1.0, 1), (2.5, 1024), (10.0, 65536), (0.7, 3)])
def test_renyi_curve_matches_dp_accountings_tree_accountant(sigma, steps):
    from dp_accounting import dp_event
    from dp_accounting.privacy_accountant import NeighboringRelation
    from dp_accounting.rdp import rdp_privacy_accountant as rdp

    orders = [1.5, 2.0, 8.0, 64.0]
    # the paper's relation (Def. 1.1): one record replaced by the zero record
    acc = rdp.RdpAccountant(orders, neighboring_relation=NeighboringRelation.REPLACE_SPECIAL)
    acc.compose(dp_event.SingleEpochTreeAggregationDpEvent(sigma, steps))
    theirs = np.asarray(acc._rdp)  # the accountant's curve at those orders
    ours = renyi_curve(dpc.TreeAggregation(sigma, steps), orders)
    assert np.all(theirs <= ours) and np.all(ours <= theirs * (1 + 1e-12))


def test_pld_epsilon_is_the_gaussian_epsilon_and_restarts_compose():
    delta = 1e-5
    m = dpc.TreeAggregation(4.0, 1000)  # 10 nodes
    g = dpc.compose([m], method="pld")
    mu = mp.sqrt(10) / 4
    lo, hi = mp.mpf(0), mp.mpf(20)  # bisection of the exact profile: the exact epsilon
    for _ in range(80):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if gaussian_delta_mp(mu, mid) > delta else (lo, mid)
    assert float(lo) <= g.epsilon(delta) <= float(hi) + 1e-3
    # three epochs with the tree restarted: three trees of 10 nodes = one Gaussian of 30
    three = dpc.compose([(m, 3)], method="pld").epsilon(delta)
    one = dpc.compose([dpc.Gaussian(4.0, sensitivity=math.sqrt(30))], method="pld").epsilon(delta)
    assert three == pytest.approx(one, abs=2e-3)


def test_several_participations_and_bad_steps_are_refused():
    with pytest.raises(InvalidParameterError, match="participations = 2 is not covered"):
        dpc.TreeAggregation(1.0, 100, participations=2)
    with pytest.raises(InvalidParameterError, match="steps"):
        dpc.TreeAggregation(1.0, 0)
    with pytest.raises(InvalidParameterError, match="steps"):
        dpc.TreeAggregation(1.0, 2.5)
    with pytest.raises(InvalidParameterError, match="noise_multiplier"):
        dpc.TreeAggregation(0.0, 10)


def test_expression_syntax():
    [(m, k)] = parse_mechanisms("tree_aggregation(4, 1000)")
    assert m == dpc.TreeAggregation(4.0, 1000) and k == 1
    assert parse_mechanisms("dp_ftrl(noise_multiplier=4, steps=1000)")[0][0] == m


#: the StackOverflow setting of Kairouz et al. (1600 rounds, one pass, delta = 1e-6): noise
#: multiplier and the published epsilon, as printed (two decimals) in TensorFlow Privacy's
#: tree_aggregation_accountant_test.py (test_compute_eps_tree: "based on the StackOverflow
#: setting in 'Practical and Private (Deep) Learning without Sampling or Shuffling'")
PUBLISHED_STACKOVERFLOW = [(1.13, 19.74), (8.83, 2.04)]


@pytest.mark.parametrize("sigma, published", PUBLISHED_STACKOVERFLOW)
def test_published_stackoverflow_epsilons_are_reproduced_and_never_beaten_from_below(sigma, published):
    from oracles import tree_rdp
    from oracles.gaussian import gaussian_epsilon_mp

    steps, delta = 1600, 1e-6
    m = dpc.TreeAggregation(sigma, steps)
    assert m.nodes == tree_rdp.nodes(steps) == 11
    # their accounting, recomputed independently, gives the printed digits
    theirs = tree_rdp.classic_rdp_epsilon(sigma, steps, delta)
    assert round(float(theirs), 2) == published
    # ours is certified and never above the published value beyond the rounding of its digits
    for method in ("pld", "rdp", "auto"):
        assert dpc.compose([m], method=method).epsilon(delta) <= published + 0.005
    # the exact epsilon (the Gaussian with mu = sqrt(11)/sigma) lies in pld's bracket, below theirs
    lo, hi = gaussian_epsilon_mp(mp.sqrt(11) / mp.mpf(sigma), delta)
    e_lo, e_hi = dpc.compose([m], method="pld").epsilon_bounds(delta)
    assert e_lo <= hi and lo <= e_hi <= hi * (1 + 1e-4)
    assert hi < theirs
