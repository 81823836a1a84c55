"""RandomAllocation without amplification: an epoch bounded by k un-amplified invocations.

Truth: brute-force enumeration of every allocation and output (randomized response steps) and
the exact Gaussian epoch pair for t = 2 (tests/oracles/random_allocation.py), and the Gaussian
closed form of k * epochs invocations (tests/oracles gaussian_delta_mp); one-sided.
"""

import math

import mpmath as mp
import pytest
from oracles import gaussian_delta_mp
from oracles.random_allocation import gaussian_epoch_delta_t2, rr_epoch_delta

import dpcompose as dpc
from dpcompose.errors import (
    InvalidParameterError,
    NoRuleError,
    UnsupportedMechanismError,
)
from dpcompose.representations import privacy_profile, renyi_curve
from dpcompose.representations.random_allocation import allocation_equivalent

EPSILONS = (0.0, 0.1, 0.5, 1.0, 2.0)


@pytest.fixture(autouse=True, scope="module")
def _mp_precision():
    with mp.workdps(30):
        yield


@pytest.mark.parametrize("eps", [0.3, 1.0, 2.5])
@pytest.mark.parametrize("t", [1, 2, 3, 4])
def test_rr_epoch_bound_never_below_brute_force(eps, t):
    m = dpc.RandomAllocation(dpc.RandomizedResponse(eps), steps=t)
    profile = privacy_profile(m)
    for e in EPSILONS:
        exact = rr_epoch_delta(eps, t, 1, e)
        assert exact <= profile(e) + 1e-15, (t, e)
    if t == 1:  # one step: no amplification, the bound is exact
        assert profile(0.0) == pytest.approx(float(rr_epoch_delta(eps, 1, 1, 0.0)), rel=1e-9)


@pytest.mark.parametrize("mu", [0.5, 1.0, 2.0])
def test_gaussian_t2_epoch_bound_never_below_the_exact_pair(mu):
    m = dpc.RandomAllocation(dpc.Gaussian(1.0 / mu), steps=2)
    profile = privacy_profile(m)
    for e in EPSILONS:
        exact = gaussian_epoch_delta_t2(mu, e)
        assert exact <= profile(e) * (1 + 1e-9) + 1e-15, e
        # and the mixture really is below one invocation (the bound is not attained)
        assert exact < gaussian_delta_mp(mu, e)


@pytest.mark.parametrize(("t", "k"), [(2, 2), (3, 3), (5, 2), (10, 3)])
def test_gaussian_epoch_is_k_invocations(t, k):
    """k of t steps: the k-fold Gaussian, mu sqrt(k) (exact when k = t: no randomness)."""
    mu = 0.8
    m = dpc.RandomAllocation(dpc.Gaussian(1.0 / mu), steps=t, per_epoch=k)
    profile = privacy_profile(m)
    for e in EPSILONS:
        exact = float(gaussian_delta_mp(mu * math.sqrt(k), e))
        assert exact <= profile(e) <= exact * (1 + 1e-9) + 1e-15


@pytest.mark.parametrize("method", ["pld", "rdp"])
def test_epochs_compose_as_k_times_epochs_invocations(method):
    mu, k, epochs = 0.5, 2, 6
    m = dpc.RandomAllocation(dpc.Gaussian(1.0 / mu), steps=8, per_epoch=k)
    g = dpc.compose([(m, epochs)], method=method)
    for e in (0.5, 1.0, 2.0):
        exact = float(gaussian_delta_mp(mu * math.sqrt(k * epochs), e))
        assert exact <= g.delta(e)


def test_zcdp_epoch_is_k_rho():
    m = dpc.RandomAllocation(dpc.ZCDP(0.1), steps=5, per_epoch=3)
    orders = [1.5, 2.0, 8.0]
    for a, c in zip(orders, renyi_curve(m, orders)):
        assert 0.3 * a <= c <= 0.3 * a * (1 + 1e-12)


def test_bound_is_marked_upper_only():
    from dpcompose.representations import dominating_pair, is_class_worst_case

    m = dpc.RandomAllocation(dpc.RandomizedResponse(1.0), steps=3)
    assert not is_class_worst_case(m)
    assert dominating_pair(m).attained is False


def test_refusals_name_the_remedy():
    m = dpc.RandomAllocation(dpc.Laplace(1.0), steps=4, per_epoch=2)
    with pytest.raises(NoRuleError, match="compose the inner mechanism"):
        allocation_equivalent(m)
    for method in ("pld", "rdp", "optimal"):
        with pytest.raises(dpc.errors.MethodNotApplicableError):
            dpc.compose([(m, 3)], method=method)


@pytest.mark.parametrize(
    ("kwargs", "error", "text"),
    [
        ({"mechanism": dpc.Gaussian(1.0), "steps": 0}, InvalidParameterError, "RandomAllocation.steps"),
        ({"mechanism": dpc.Gaussian(1.0), "steps": 2.5}, InvalidParameterError, "RandomAllocation.steps"),
        ({"mechanism": dpc.Gaussian(1.0), "steps": 3, "per_epoch": 4}, InvalidParameterError, "per_epoch"),
        ({"mechanism": dpc.Gaussian(1.0), "steps": 3, "per_epoch": 0}, InvalidParameterError, "per_epoch"),
        ({"mechanism": dpc.Subsampled(dpc.Gaussian(1.0), 0.1), "steps": 3}, UnsupportedMechanismError, "sampler"),
        ({"mechanism": 1.0, "steps": 3}, UnsupportedMechanismError, "mechanism"),
    ],
)
def test_bad_inputs_name_the_parameter(kwargs, error, text):
    with pytest.raises(error, match=text):
        dpc.RandomAllocation(**kwargs)


def test_a_group_inside_random_allocation_is_refused():
    # each of a person's records is allocated on its own: the person may sit in up to
    # size x per_epoch steps, which the k-invocation bound does not cover
    with pytest.raises(UnsupportedMechanismError, match="allocated on its own"):
        dpc.RandomAllocation(dpc.Group(dpc.Gaussian(1.0), 2), steps=10)


def test_the_two_t2_oracles_agree_in_each_direction():
    """tests/oracles/random_allocation.py (rotation + closed-form u-integral) and
    tests/oracles/allocation_directions.py (written separately) give the same remove and add
    deltas; the remove direction once used the wrong threshold, which this catches."""
    import mpmath as mp

    from oracles.allocation_directions import t2_directions
    from oracles.random_allocation import gaussian_epoch_directions_t2

    with mp.workdps(20):
        for mu, e in ((0.5, 0.5), (1.0, 0.0), (2.0, 1.5), (3.0, 0.5)):
            for mine, theirs in zip(gaussian_epoch_directions_t2(mu, e), t2_directions(mu, e)):
                assert mine >= 0 and abs(mine - theirs) < mp.mpf(10) ** -15, (mu, e, mine, theirs)
