"""Group privacy (a person contributing up to g records), against independent truth.

Truth: closed forms in mpmath (the Gaussian with mu = g * Delta / sigma, Balle and Wang;
the Laplace profile; k-fold randomized response, Kairouz, Oh and Viswanath), the discrete
Laplace by enumeration (tests/oracles/discrete_laplace.py), and brute-force chains of
finite laws (tests/oracles/group.py) for the (epsilon, delta) chain rule.
"""

from __future__ import annotations

import dataclasses
import itertools
import math

import mpmath as mp
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles import discrete_laplace as dl_oracle
from oracles import gaussian_delta_mp, kov_delta_mp
from oracles import group as chain_oracle
from oracles.laplace import laplace_delta_mp

import dpcompose as dpc
from dpcompose.errors import (
    InvalidParameterError,
    NoRuleError,
    UnsupportedMechanismError,
)
from dpcompose.expressions import format_mechanism
from dpcompose.hypotheses import hdp
from dpcompose.representations import (
    dominating_pair,
    eps_delta_pair,
    is_class_worst_case,
    privacy_profile,
    pure_epsilon,
    renyi_curve,
)
from dpcompose.representations.group import group_delta



@pytest.fixture(autouse=True, scope="module")
def _mp_precision():
    """50 digits for this module's mpmath oracles, given back afterwards (never set globally:
    a global setting leaks into other modules' references)."""
    with mp.workdps(50):
        yield


@pytest.mark.parametrize("sigma,sens,g", [(1.0, 1.0, 2), (3.0, 0.5, 4), (10.0, 1.0, 7)])
def test_gaussian_group_is_mu_times_g(sigma, sens, g):
    m = dpc.Group(dpc.Gaussian(sigma, sensitivity=sens), g)
    mu = mp.mpf(g) * mp.mpf(sens) / mp.mpf(sigma)
    prof = privacy_profile(m)
    for e in (0.0, 0.3, 1.0, 3.0):
        truth = float(gaussian_delta_mp(mu, e))
        assert truth * (1.0 - 1e-13) <= prof(e) <= truth * (1.0 + 1e-6) + 1e-300
    curve = renyi_curve(m, [2.0, 8.0])
    for a, tau in zip((2.0, 8.0), curve):
        assert float(a * mu * mu / 2) <= tau <= float(a * mu * mu / 2) * (1.0 + 1e-12)
    assert dominating_pair(m).attained and pure_epsilon(m) == math.inf and eps_delta_pair(m) is None


def _tree_group_sensitivity_brute(n: int, g: int) -> int:
    """max over placements of g records in n leaves of sum_v c_v^2 over the released dyadic nodes v
    (c_v: the group's records in v's leaves): the squared L2 change of the node vector in clip
    norms when the g records are zeroed out with aligned gradients."""
    released, size = [], 1
    while size <= n:
        released += [(start, start + size) for start in range(1, n - size + 2, size)]
        size *= 2
    return max(sum(sum(a <= leaf < b for leaf in placement) ** 2 for a, b in released)
               for placement in itertools.combinations_with_replacement(range(1, n + 1), g))


@pytest.mark.parametrize("n", [1, 2, 3, 5, 6, 8, 13])
@pytest.mark.parametrize("g", [1, 2, 3])
def test_tree_group_node_change_is_g_squared_nodes_by_enumeration(n, g):
    assert _tree_group_sensitivity_brute(n, g) == g * g * dpc.TreeAggregation(1.0, n).nodes


@settings(max_examples=25)
@given(sigma=st.floats(0.5, 30.0), steps=st.integers(1, 10**6), g=st.integers(1, 16),
       e=st.sampled_from([0.0, 0.5, 1.0, 3.0]))
def test_tree_group_is_the_gaussian_with_mu_g_sqrt_nodes(sigma, steps, g, e):
    m = dpc.Group(dpc.TreeAggregation(sigma, steps), g)
    mu = g * mp.sqrt(steps.bit_length()) / mp.mpf(sigma)
    exact = gaussian_delta_mp(mu, e)
    if exact < mp.mpf("1e-290"):
        return
    assert exact <= privacy_profile(m)(e) <= exact * (1 + 1e-6)
    tau = renyi_curve(m, [2.0])[0]
    assert float(mu * mu) <= tau <= float(mu * mu) * (1 + 1e-12)  # alpha mu^2 / 2 at alpha = 2
    assert dominating_pair(m).attained  # exact: attained by g records in one leaf


def test_tree_group_composes_with_lower_bounds_around_the_closed_form():
    # 3 restarted trees (epochs), a person's 4 records: mu = 4 sqrt(10 * 3) / 8
    m = dpc.Group(dpc.TreeAggregation(8.0, 1000), 4)
    res = dpc.compose([(m, 3)], method="pld")
    mu = 4 * mp.sqrt(10 * 3) / 8
    for e in (0.5, 2.0):
        truth = float(gaussian_delta_mp(mu, e))
        assert res.delta(e) >= truth * (1.0 - 1e-12)
        assert res.has_lower_bound and res.delta_lower(e) <= truth * (1.0 + 1e-12)


@pytest.mark.parametrize("scale,sens,g", [(1.0, 1.0, 2), (5.0, 0.3, 3)])
def test_laplace_group_is_sensitivity_times_g(scale, sens, g):
    m = dpc.Group(dpc.Laplace(scale, sensitivity=sens), g)
    eps = mp.mpf(g) * mp.mpf(sens) / mp.mpf(scale)
    assert pure_epsilon(m) >= float(eps) and pure_epsilon(m) == pytest.approx(float(eps), rel=1e-15)
    for frac in (0.0, 0.4, 0.9, 1.2):
        e = frac * float(eps)
        truth = float(laplace_delta_mp(eps, e))
        assert truth * (1.0 - 1e-13) - 1e-300 <= privacy_profile(m)(e) <= truth * (1.0 + 1e-9) + 1e-15


@pytest.mark.parametrize("scale,g", [(2.0, 2), (1.0, 3)])
def test_discrete_laplace_group_matches_enumeration(scale, g):
    m = dpc.Group(dpc.DiscreteLaplace(scale), g)
    law = dl_oracle.loss_law(scale, g)
    for e in (0.0, 0.3, 0.9):
        truth = float(dl_oracle.delta(law, scale, e))
        assert truth * (1.0 - 1e-13) <= privacy_profile(m)(e) <= truth * (1.0 + 1e-12) + 1e-14


@pytest.mark.parametrize("eps,g", [(0.1, 2), (0.5, 3), (1.0, 5)])
def test_pure_group_is_g_epsilon_and_bounds_g_records_of_randomized_response(eps, g):
    """Brute force: g records each released by eps-RR is g-fold RR; its largest loss is g eps."""
    m = dpc.Group(dpc.RandomizedResponse(eps), g)
    assert eps_delta_pair(m) == (g * eps, 0.0) or eps_delta_pair(m)[0] == pytest.approx(g * eps, rel=1e-15)
    assert pure_epsilon(m) >= g * eps
    # the g-fold RR attains the loss g * eps (both bits of every record flipped): tight
    assert float(kov_delta_mp(eps, g, g * eps * (1 - 1e-9))) > 0.0
    prof = privacy_profile(m)
    for frac in (0.0, 0.25, 0.5, 0.99, 1.0):
        e = frac * g * eps
        assert prof(e) >= float(kov_delta_mp(eps, g, e)) * (1.0 - 1e-12)
    # an upper bound only: the pair is not attained and no lower bound is claimed
    assert not dominating_pair(m).attained and not is_class_worst_case(m)


@pytest.mark.parametrize("eps,delta,g", [(0.5, 1e-6, 2), (0.2, 1e-3, 5), (0.0, 1e-4, 3), (1.0, 1e-8, 10)])
def test_approx_group_delta_is_the_chain_sum(eps, delta, g):
    """delta_g = delta * sum_{i<g} e^{i eps} (chain), at most Dwork and Roth's g e^{(g-1) eps} delta."""
    truth = mp.mpf(delta) * sum(mp.exp(i * mp.mpf(eps)) for i in range(g))
    ge, gd = eps_delta_pair(dpc.Group(dpc.ApproxDP(eps, delta), g))
    assert ge == pytest.approx(g * eps, rel=1e-15) and ge >= float(mp.mpf(g) * mp.mpf(eps))
    assert float(truth) <= gd <= float(truth) * (1.0 + 1e-13)
    dwork_roth = mp.mpf(g) * mp.exp((g - 1) * mp.mpf(eps)) * mp.mpf(delta)
    assert gd <= float(dwork_roth) * (1.0 + 1e-13)


@given(st.integers(0, 10_000), st.integers(1, 6), st.floats(0.05, 1.0))
@settings(max_examples=25, deadline=None)
def test_chain_rule_bounds_brute_force_chains(seed, g, eps):
    """Any chain of g neighbours that are (eps, delta)-close: its ends are within the group's pair."""
    chain = chain_oracle.random_chain(seed, g)
    delta = float(chain_oracle.step_delta(chain, eps))
    delta = min(math.nextafter(delta, 1.0), 0.999)
    ge, gd = eps_delta_pair(dpc.Group(dpc.ApproxDP(eps, delta), g))
    truth = chain_oracle.group_divergence(chain, ge)
    assert float(truth) <= min(gd, 1.0) * (1.0 + 1e-12)
    # the profile of the group dominates the chain at every e (it is the (ge, gd) class's)
    prof = privacy_profile(dpc.Group(dpc.ApproxDP(eps, delta), g))
    for e in (0.0, 0.5 * ge, ge):
        assert float(chain_oracle.group_divergence(chain, e)) <= prof(e) * (1.0 + 1e-12)


def test_group_delta_rounds_up_and_overflows_to_the_trivial_bound():
    assert group_delta(0.3, 0.0, 5) == 0.0 and group_delta(0.3, 1e-5, 1) == 1e-5
    assert group_delta(1.0, 1e-9, 1000) == math.inf
    big = dpc.Group(dpc.ApproxDP(1.0, 1e-3), 20)  # delta_g > 1: nothing is certified
    assert eps_delta_pair(big) == (math.inf, 0.0)
    assert privacy_profile(big)(5.0) == 1.0


def test_size_one_is_the_mechanism():
    for inner in (dpc.Gaussian(1.3), dpc.Laplace(2.0), dpc.DiscreteLaplace(1.5, sensitivity=2)):
        m = dpc.Group(inner, 1)
        for e in (0.0, 0.5, 1.0):
            assert privacy_profile(m)(e) == privacy_profile(inner)(e)
    assert eps_delta_pair(dpc.Group(dpc.ApproxDP(0.5, 1e-5), 1)) == (0.5, 1e-5)


@pytest.mark.parametrize("method", ["simple", "advanced", "optimal", "pld", "rdp", "auto"])
def test_every_method_composes_a_group(method):
    """k people-level Gaussians: the composition is Gaussian with mu = g sqrt(k) / sigma (exact)."""
    sigma, g, k = 8.0, 3, 4
    mu = mp.mpf(g) * mp.sqrt(k) / sigma
    try:
        res = dpc.compose([(dpc.Group(dpc.Gaussian(sigma), g), k)], method=method)
    except dpc.MethodNotApplicableError:
        assert method == "optimal"  # a Gaussian has no (epsilon, delta) pair of its own
        return
    for e in (0.5, 1.0):
        truth = float(gaussian_delta_mp(mu, e))
        assert res.delta(e) >= truth * (1.0 - 1e-12)
        if res.has_lower_bound:
            assert res.delta_lower(e) <= truth * (1.0 + 1e-12)


def test_pure_group_composes_as_the_g_eps_class():
    """Three (5 x 0.2)-DP groups: bounded by 3-fold 1.0-RR (the worst case of the 1.0-DP class).

    'optimal' composes the chained pair, exactly the class; 'auto' may be tighter (the Renyi
    group rule of the 0.2-DP curve: the class is an upper bound of the group, not attained),
    but never below a member: five records each with its own 0.2-RR bit, 15-fold 0.2-RR.
    """
    group = dpc.Group(dpc.PureDP(0.2), 5)
    optimal = dpc.compose([(group, 3)], method="optimal")
    auto = dpc.compose([(group, 3)], method="auto")
    assert auto.epsilon(1e-9) <= 3.0 * (1.0 + 1e-12)
    for e in (0.0, 1.0, 2.0, 2.9):
        truth = float(kov_delta_mp(1.0, 3, e))
        member = float(kov_delta_mp(0.2, 15, e))
        assert member * (1.0 - 1e-12) <= auto.delta(e) <= truth * (1.0 + 1e-6) + 1e-12
        res = optimal
        assert res.delta(e) >= truth * (1.0 - 1e-12)
        assert res.delta(e) <= truth * (1.0 + 1e-6) + 1e-12  # 'optimal' is exact for the class


def test_calibration_and_hypothesis_dp():
    res = dpc.calibrate(lambda s: dpc.Group(dpc.Gaussian(s), 4), 10, epsilon=1.0, delta=1e-6)
    per_record = dpc.calibrate("gaussian", 10, epsilon=1.0, delta=1e-6)
    assert res.parameter == pytest.approx(4.0 * per_record.parameter, rel=1e-3)
    g = hdp([dpc.Group(dpc.DiscreteLaplace(2.0), 2), dpc.DiscreteLaplace(2.0, sensitivity=2)], method="exact")
    law = dl_oracle.compose(dl_oracle.loss_law(2.0, 2), dl_oracle.loss_law(2.0, 2))
    for e in (0.0, 1.0):
        truth = float(dl_oracle.delta(law, 2.0, e))
        assert g.delta(e) >= truth * (1.0 - 1e-12)


def test_refusals_name_the_reason():
    # a subsampled mechanism is accepted (rdp certifies it: tests/test_group_subsampled.py)
    assert dpc.Group(dpc.Subsampled(dpc.Gaussian(1.0), 0.1), 2).size == 2
    with pytest.raises(UnsupportedMechanismError, match="g1 \\* g2"):
        dpc.Group(dpc.Group(dpc.Gaussian(1.0), 2), 2)
    for bad in (0, -1, 1.5, True, "2"):
        with pytest.raises(InvalidParameterError, match="Group.size"):
            dpc.Group(dpc.Gaussian(1.0), bad)
    assert dpc.Group(dpc.Gaussian(1.0), 2.0).size == 2

    @dataclasses.dataclass(frozen=True)
    class Mystery(dpc.Mechanism):
        x: float = 1.0

    m = dpc.Group(Mystery(), 2)
    with pytest.raises(NoRuleError, match="no certified group rule"):
        privacy_profile(m)
    with pytest.raises(dpc.MethodNotApplicableError):
        dpc.compose([(m, 1)])
    # expressions write a group (tests/test_group_syntax.py); a family without syntax is still refused
    assert format_mechanism(dpc.Group(dpc.Gaussian(1.0), 2)) == "group(gaussian(sigma=1, sensitivity=1), size=2)"
    with pytest.raises(NoRuleError, match="Mystery"):
        format_mechanism(m)
