"""RandomAllocation amplified under Renyi DP: the certified balls-in-bins curve of a Gaussian epoch.

Truth: the exact t = 2 epoch pair's Renyi moments and hockey-stick divergences by mpmath
quadrature, the remove direction's moments by enumerating every composition (mpmath), the
closed form E[M^2] = 1 + (e^{mu^2} - 1)/t, the Gaussian's closed form at t = 1 and the Monte
Carlo estimate's lower confidence limit (tests/oracles/random_allocation.py,
research.allocation_estimate); every comparison is one-sided.
"""

import math

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from oracles.random_allocation import (
    gaussian_epoch_delta_t2,
    gaussian_epoch_log_moment_t2,
    gaussian_epoch_remove_moment,
)

import dpcompose as dpc
from dpcompose.representations import renyi_curve
from dpcompose.representations.random_allocation_rdp import (
    MAX_ORDER,
    add_log_moment,
    allocation_renyi_curve,
    remove_log_moments,
)
from dpcompose.research.allocation_estimate import allocation_delta_estimate


ORDERS = [1.25, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0, 16.0, 24.0, 32.0, 64.0]


@pytest.fixture(autouse=True, scope="module")
def _mp_precision():
    with mp.workdps(30):
        yield


@pytest.mark.parametrize("mu", [0.5, 1.0, 2.0])
@pytest.mark.parametrize("alpha", [1.5, 2.0, 3.0, 5.5, 8.0])
def test_t2_each_direction_is_above_the_exact_pair(mu, alpha):
    """Both directions' Renyi moments at t = 2: the bound is above the exact value and close to it."""
    remove = float(gaussian_epoch_log_moment_t2(mu, alpha))
    add = float(gaussian_epoch_log_moment_t2(mu, 1 - alpha))
    got_remove = float(allocation_renyi_curve(mu, 2, [alpha])[0]) * (alpha - 1)
    got_add = add_log_moment(mu, 2, alpha - 1)
    assert add <= got_add <= add + 1e-3 * (1 + abs(add))
    assert max(remove, add) <= got_remove * (1 + 1e-12)
    if alpha == int(alpha):  # the remove direction is exact at integer orders
        assert got_remove == pytest.approx(max(remove, add), rel=1e-9)


@pytest.mark.parametrize(("mu", "beta"), [(1.0, 47.0), (0.5, 127.0), (2.0, 30.0)])
def test_t2_add_direction_at_high_orders_is_above_the_exact_pair(mu, beta):
    """High orders reach the closed Gamma bounds (underflow of the incomplete gamma): still above truth."""
    exact = float(gaussian_epoch_log_moment_t2(mu, -beta))
    got = add_log_moment(mu, 2, beta)
    assert exact <= got <= exact * 1.2


@pytest.mark.parametrize(("mu", "t"), [(0.7, 3), (1.3, 4), (2.0, 3)])
def test_remove_moments_equal_the_enumerated_multinomial_sum(mu, t):
    table = remove_log_moments(mu, t, 6)
    for n in range(2, 7):
        exact = float(mp.log(gaussian_epoch_remove_moment(mu, t, n)))
        assert exact <= table[n] <= exact + 1e-9 * (1 + abs(exact))


@settings(max_examples=25, deadline=None)
@given(mu=st.floats(0.1, 3.0), t=st.integers(2, 100_000))
def test_order_two_remove_moment_is_the_closed_form(mu, t):
    """E_Q[M^2] = 1 + (e^{mu^2} - 1)/t exactly (independent w_i with E[w] = 1, E[w^2] = e^{mu^2})."""
    exact = math.log1p(math.expm1(mu * mu) / t)
    got = float(remove_log_moments(mu, t, 4)[2])
    # the rounding margins double with each squaring of the series: about t ulps of the logs
    assert exact <= got <= exact + 1e-13 * t * (10 + 4 * mu * mu)


@pytest.mark.parametrize("alpha", [1.5, 2.0, 4.0, 16.0])
def test_one_step_is_the_gaussian(alpha):
    """t = 1: no amplification, both directions are the Gaussian's alpha mu^2 / 2 (from above)."""
    mu = 0.9
    got = float(allocation_renyi_curve(mu, 1, [alpha])[0])
    exact = alpha * mu * mu / 2
    assert exact <= got
    if alpha == int(alpha):  # fractional orders of the remove direction are bounded by neighbours
        # (at order 16 the add direction's mass reaches z < -12, where the cells stop: 5 %)
        assert got <= exact * (1 + (1e-3 if alpha <= 8 else 5e-2))


@pytest.mark.parametrize("mu", [0.5, 1.0, 2.0])
def test_rdp_delta_is_above_the_exact_t2_profile(mu):
    """Composed and converted by method='rdp', one epoch of t = 2: never below the exact pair's delta."""
    m = dpc.RandomAllocation(dpc.Gaussian(1.0 / mu), steps=2)
    g = dpc.compose([m], method="rdp", orders=ORDERS)
    for e in (0.1, 1.0, 4.0):
        assert float(gaussian_epoch_delta_t2(mu, e)) <= g.delta(e)


@pytest.mark.parametrize(("t", "epochs"), [(10, 1), (100, 1), (50, 3)])
def test_never_below_the_monte_carlo_lower_limit(t, epochs):
    m = dpc.RandomAllocation(dpc.Gaussian(1.0), steps=t)
    g = dpc.compose([(m, epochs)], method="rdp", orders=ORDERS)
    for e in (0.25, 0.5, 1.0):
        est = allocation_delta_estimate(1.0, t, e, epochs=epochs, samples=20_000, seed=7, confidence=0.999)
        assert est.delta_lower <= g.delta(e), e


@pytest.mark.parametrize("t", [10, 100, 1000])
def test_amplified_is_below_the_unamplified_bound(t):
    m = dpc.RandomAllocation(dpc.Gaussian(1.0), steps=t)
    amplified = dpc.compose([(m, 2)], method="rdp").epsilon(1e-5)
    unamplified = dpc.compose([(dpc.Gaussian(1.0), 2)], method="rdp").epsilon(1e-5)
    assert amplified < unamplified
    if t >= 100:
        assert amplified < 0.5 * unamplified
    if t == 1000:  # orders up to MAX_ORDER reach Poisson's own Renyi value (1/t, t steps)
        poisson = dpc.compose([(dpc.Subsampled(dpc.Gaussian(1.0), rate=1.0 / t), 2 * t)], method="rdp")
        assert amplified <= poisson.epsilon(1e-5) * 1.01
    curve = renyi_curve(m, [2.0, 8.0, 4096.0])
    assert np.all(curve <= renyi_curve(dpc.Gaussian(1.0), [2.0, 8.0, 4096.0]))


def test_epochs_compose_additively_and_curve_is_cached_read_only():
    m = dpc.RandomAllocation(dpc.Gaussian(1.2, sensitivity=1.5), steps=40)
    one = renyi_curve(m, [2.0, 3.5])
    g1 = dpc.compose([(m, 1)], method="rdp")
    g5 = dpc.compose([(m, 5)], method="rdp")
    assert g5.delta(1.0) > g1.delta(1.0)
    assert np.all(one > 0) and np.all(np.isfinite(one))


def test_provenance_names_the_bound_and_auto_uses_it():
    m = dpc.RandomAllocation(dpc.Gaussian(1.0), steps=100)
    g = dpc.compose([m], method="rdp")
    assert "amplified" in next(iter(g.provenance["renyi_curves"].values()))
    assert dpc.compose([m]).epsilon(1e-5) <= g.epsilon(1e-5)
    assert dpc.compose([m]).epsilon(1e-5) < dpc.compose([m], method="pld").epsilon(1e-5)
    k2 = dpc.RandomAllocation(dpc.Gaussian(1.0), steps=100, per_epoch=2)
    note = next(iter(dpc.compose([k2], method="rdp").provenance["renyi_curves"].values()))
    assert "without amplification" in note


@pytest.mark.parametrize("m", [
    dpc.RandomAllocation(dpc.Gaussian(1.0), steps=10, per_epoch=2),
    dpc.RandomAllocation(dpc.Laplace(1.0), steps=10),
    dpc.RandomAllocation(dpc.Gaussian(0.05), steps=10),  # mu = 20 > MAX_MU
])
def test_other_cases_keep_the_unamplified_curve(m):
    from dpcompose.representations.random_allocation import allocation_equivalent

    orders = [1.5, 2.0, 8.0]
    assert np.array_equal(renyi_curve(m, orders), renyi_curve(allocation_equivalent(m), orders))


def test_orders_above_the_cap_keep_the_unamplified_value():
    m = dpc.RandomAllocation(dpc.Gaussian(1.0), steps=10)
    high = [float(MAX_ORDER) * 2, 4096.0]
    assert np.array_equal(renyi_curve(m, high), renyi_curve(dpc.Gaussian(1.0), high))
